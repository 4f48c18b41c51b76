#!/usr/bin/env bash
# Builds a JVM stand-in's jar (experiments/workloads/NAME-standin) with Maven and prints its
# path. NAME: lusearch (the default, as before this took an argument), h2 or xalan. Maven's
# local repository is the git-ignored .build/m2 of this checkout (override: $STANDIN_M2_REPO):
# offline (-o) when it already holds everything, online (Maven Central) the first time;
# rebuilds only when a source or the pom is newer than the jar.
#
#   JAR="$(scripts/openjdk-standin-build.sh)"           # lusearch
#   JAR="$(scripts/openjdk-standin-build.sh h2)"        # h2 | xalan | lusearch
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NAME="${1:-lusearch}"
case "$NAME" in
    lusearch|h2|xalan) ;;
    *) echo "openjdk-standin-build: unknown workload '$NAME' (lusearch, h2, xalan)" >&2; exit 2 ;;
esac
DIR="$ROOT/experiments/workloads/$NAME-standin"
JAR="$DIR/target/$NAME-standin.jar"
M2="${STANDIN_M2_REPO:-$ROOT/.build/m2}"
if [ ! -f "$JAR" ] || [ -n "$(find "$DIR/pom.xml" "$DIR/src" -newer "$JAR" -type f | head -1)" ]; then
    command -v mvn >/dev/null || { echo "openjdk-standin-build: mvn not found (apt-get install maven)" >&2; exit 1; }
    mkdir -p "$M2"
    # Offline first, silently (Maven prints its "[ERROR] ... offline mode" lines on stdout when
    # a dependency is missing); online the first time, with Maven's errors shown.
    if ! (cd "$DIR" && mvn -q -o -B -Dmaven.repo.local="$M2" package >/dev/null 2>&1); then
        (cd "$DIR" && mvn -q -B -Dmaven.repo.local="$M2" package >&2)
    fi
fi
echo "$JAR"

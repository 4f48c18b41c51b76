#!/usr/bin/env bash
# Builds the lusearch stand-in's jar (experiments/workloads/lusearch-standin) with Maven and
# prints its path. Offline (-o) when Maven's local repository already holds everything, online
# (Maven Central) otherwise; rebuilds only when a source or the pom is newer than the jar.
#
#   JAR="$(scripts/openjdk-standin-build.sh)"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/experiments/workloads/lusearch-standin"
JAR="$DIR/target/lusearch-standin.jar"
if [ ! -f "$JAR" ] || [ -n "$(find "$DIR/pom.xml" "$DIR/src" -newer "$JAR" -type f | head -1)" ]; then
    command -v mvn >/dev/null || { echo "openjdk-standin-build: mvn not found (apt-get install maven)" >&2; exit 1; }
    # Offline first, silently (Maven prints its "[ERROR] ... offline mode" lines on stdout when
    # a dependency is missing); online the first time, with Maven's errors shown.
    if ! (cd "$DIR" && mvn -q -o -B package >/dev/null 2>&1); then
        (cd "$DIR" && mvn -q -B package >&2)
    fi
fi
echo "$JAR"

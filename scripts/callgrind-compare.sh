#!/usr/bin/env bash
# Instruction counts (callgrind) of the core's single-thread and cross-thread workloads of
# scripts/bench-core.sh, this tree against another revision, side by side: the check that a change
# leaves the allocation fast path as it was (counts are repeatable whatever the machine's load).
#
#   scripts/callgrind-compare.sh REV        # e.g. HEAD~3; REV is built in .build/callgrind-REV
#
# Prints one line per workload: instructions at REV, here, and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "callgrind-compare: valgrind is required (apt-get install valgrind)" >&2; exit 2; }
rev=$(git rev-parse --short "$1^{commit}") || { echo "callgrind-compare: unknown revision $1" >&2; exit 2; }
base=".build/callgrind-$rev"
[ -d "$base" ] || git worktree add -f --detach "$base" "$rev" >/dev/null
(cd "$base" && cargo build --release -q -p shardsweep-bench --bins)
cargo build --release -q -p shardsweep-bench --bins
count() { # dir bin n
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1/target/release/$2" shardsweep "$3" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-16s %14s %14s %8s\n' workload "$rev" here ratio
for w in "mixed 1000000" "xthread 200000"; do
  set -- $w
  a=$(count "$base" "$1" "$2"); b=$(count . "$1" "$2")
  printf '%-16s %14s %14s %8s\n' "$1 $2" "$a" "$b" "$(python3 -c "print(f'{$b/$a:.4f}')")"
done

#!/bin/sh
# Bisect the minimum heap (MiB) at which a synthvm run passes.
#   scripts/minheap.sh PLAN THREADS [synthvm args...]    e.g.  scripts/minheap.sh MarkCompact 8 lusearch
# Uses target/release/synthvm; LO/HI (MiB) bound the search (defaults 1 and 512).
set -u
plan=$1; threads=$2; shift 2
bin=${SYNTHVM:-$(dirname "$0")/../target/release/synthvm}
lo=${LO:-1}; hi=${HI:-512}
run() { h=$1; shift; timeout "${TIMEOUT:-120}" "$bin" --plan "$plan" -t "$threads" --heap "$h" "$@" >/dev/null 2>&1; }
if ! run "$hi" "$@"; then echo "fails even at $hi MiB" >&2; exit 1; fi
while [ $((hi - lo)) -gt 1 ]; do
  mid=$(( (lo + hi) / 2 ))
  if run "$mid" "$@"; then hi=$mid; else lo=$mid; fi
done
echo "$hi"

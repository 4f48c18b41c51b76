#!/usr/bin/env bash
# The main job. Final form: build the shardsweep space into MMTk and print the minheap-vs-
# mutator-threads comparison against stock MarkSweep (experiments/). Until the space and the
# study land, it runs the most complete thing that works end to end, and says which.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ -x scripts/minheap-study.sh ]; then
  exec scripts/minheap-study.sh "$@"
fi
echo "minheap study not available yet: running the core's standalone demo instead"
cargo run --release --example demo

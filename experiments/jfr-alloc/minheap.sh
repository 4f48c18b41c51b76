#!/usr/bin/env bash
# Minimum heap of one synthvm run by bisection (issue 11 part 3's quick check, not the studies'
# exp.py): the smallest --heap (MiB, at RES resolution) that exits 0 with PASSED, between LO
# (must fail) and HI (must pass). One line per probe on stderr, the result on stdout.
#
#   experiments/jfr-alloc/minheap.sh BIN THREADS LO HI [RES] -- SYNTHVM-ARGS...
#   experiments/jfr-alloc/minheap.sh .build/bin/synthvm-pristine 24 4 64 0.5 -- --plan MarkSweep lusearch
set -uo pipefail
BIN=$1 T=$2 LO=$3 HI=$4 RES=${5:-0.5}
shift 5; [ "${1:-}" = -- ] && shift
probe() { # heap MiB -> 0 pass, 1 too small
    local kib rc out
    kib=$(python3 -c "print(int(round($1*1024)))"); local h=$1; shift
    out=$(timeout 120 "$BIN" -t "$T" --heap "${kib}K" "$@" 2>&1); rc=$?
    if [ $rc = 0 ] && grep -q PASSED <<<"$out"; then echo "probe t=$T heap=$h pass" >&2; return 0; fi
    if [ $rc = 3 ] || [ $rc = 124 ]; then echo "probe t=$T heap=$h too-small (rc $rc)" >&2; return 1; fi
    echo "probe t=$T heap=$h ERROR rc $rc: $(tail -2 <<<"$out")" >&2; exit 1
}
probe "$HI" "$@" || { echo "minheap: HI=$HI does not pass" >&2; exit 1; }
while python3 -c "import sys; sys.exit(0 if $HI - $LO > $RES else 1)"; do
    MID=$(python3 -c "r=$RES; print(round(($LO + $HI) / 2 / r) * r)")
    if python3 -c "import sys; sys.exit(0 if $MID in ($LO, $HI) else 1)"; then break; fi
    if probe "$MID" "$@"; then HI=$MID; else LO=$MID; fi
done
echo "threads=$T minheap_mib=$HI (resolution $RES; $BIN $*)"

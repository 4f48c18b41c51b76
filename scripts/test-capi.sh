#!/usr/bin/env bash
# The C allocation ABI (bindings/capi: libshardsweep_capi.so) under LD_PRELOAD:
#  1. bindings/capi/tests/abi.c: alignment, zeroing, usable sizes, realloc contents, large and
#     aligned requests, errno, cross-thread frees, and the arena really mapped (so the library
#     was the allocator, not glibc);
#  2. real programs, whose output must equal their output without the library: sort(1) on a
#     300k-line file, and python3 with 4 threads building, hashing and dropping dicts, strings
#     and large byte strings.
# ~30 s on 2 idle cores once built.
#   scripts/test-capi.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
T0=$(date +%s)
cargo build --release --quiet -p shardsweep-capi
LIB="$ROOT/target/release/libshardsweep_capi.so"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fail() { echo "test-capi: FAIL: $*" >&2; exit 1; }

cc -O1 -pthread -o "$TMP/abi" bindings/capi/tests/abi.c
LD_PRELOAD="$LIB" "$TMP/abi" || fail "abi.c under LD_PRELOAD (exit $?)"

python3 - "$TMP/in.txt" <<'PY'
import random, sys
r = random.Random(5)
with open(sys.argv[1], "w") as f:
    for i in range(300000):
        f.write("".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(r.randint(1, 60))) + "\n")
PY
sort "$TMP/in.txt" | sha256sum >"$TMP/sort.want"
LD_PRELOAD="$LIB" sort "$TMP/in.txt" | sha256sum >"$TMP/sort.got" || fail "sort under LD_PRELOAD"
cmp -s "$TMP/sort.want" "$TMP/sort.got" || fail "sort's output differs under LD_PRELOAD"
echo "test-capi: sort of 300k lines: same output"

cat >"$TMP/work.py" <<'PY'
import hashlib, threading
out = [None] * 4
def work(k):
    h = hashlib.sha256()
    keep = []
    for i in range(30000):
        d = {f"k{j}-{i}": "v" * (j % 50) for j in range(i % 40)}
        s = ",".join(sorted(d))
        h.update(s.encode())
        if i % 100 == 0:
            keep.append(bytes(range(256)) * (i % 700 + 1))   # up to ~180 KB: large requests
        if len(keep) > 20:
            h.update(keep.pop(0)[:64])
    out[k] = h.hexdigest()
ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for t in ts: t.start()
for t in ts: t.join()
maps = open("/proc/self/maps").read().splitlines()
big = any(int(l.split()[0].split("-")[1], 16) - int(l.split()[0].split("-")[0], 16) >= 32 << 30 for l in maps)
print(" ".join(out), "arena" if big else "no-arena")
PY
PY="$(python3 -c 'import sys; print(sys.executable)')"   # the interpreter itself, not a shim script
want=$("$PY" "$TMP/work.py")
got=$(LD_PRELOAD="$LIB" "$PY" "$TMP/work.py") || fail "python3 under LD_PRELOAD"
[ "${got% *}" = "${want% *}" ] || fail "python3's output differs under LD_PRELOAD: $got vs $want"
[ "${got##* }" = arena ] || fail "python3 under LD_PRELOAD did not map the shardsweep arena"
echo "test-capi: python3, 4 threads: same digests, shardsweep arena mapped"
echo "test-capi: PASSED in $(( $(date +%s) - T0 )) s"

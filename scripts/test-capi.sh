#!/usr/bin/env bash
# The C ABI (bindings/capi): build libshardsweep.so (release, and debug with the core's
# invariant checks), check its contract from C (tests/abi.c), then run real programs under
# LD_PRELOAD and compare their output with the same programs on the system allocator:
# python3 (single- and multi-threaded) and GNU sort --parallel=4 on a 1M-line file.
set -euo pipefail
cd "$(dirname "$0")/.."
T=$PWD/.build/target-capi
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
step() { printf '\n== %s\n' "$*"; }
fail() { echo "FAILED: $*"; exit 1; }
passed=0

(cd bindings/capi && cargo build --release --target-dir "$T" && cargo build --target-dir "$T")
gcc -O1 -pthread -Wno-alloc-size-larger-than -o "$W/abi" bindings/capi/tests/abi.c

cat >"$W/mt.py" <<'PY'
import threading, hashlib, json
def work(i, out):
    h = hashlib.sha256()
    keep = []
    for j in range(20000):
        s = [str(j * k) for k in range(20)]
        keep.append(s)              # freed later, by whichever thread drops the list
        if len(keep) > 500: keep = keep[250:]
        h.update("".join(s).encode())
    out[i] = h.hexdigest()
out = {}
ts = [threading.Thread(target=work, args=(i, out)) for i in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
d = [{"k": i, "v": str(i) * 5} for i in range(100000)]
print(sorted(out.values()), hashlib.sha256(json.dumps(d).encode()).hexdigest())
print("loaded:", any("libshardsweep" in l for l in open("/proc/self/maps")))
PY
python3 - >"$W/in.txt" <<'PY'
import random, sys
r = random.Random(7)
w = sys.stdout.write
for i in range(1000000):
    w("%08x %s\n" % (r.getrandbits(32), "x" * r.randint(0, 40)))
PY

python3 "$W/mt.py" | sed 's/loaded: False/loaded: True/' >"$W/py.expected"
# The same threads without the large objects (bounded mode's large pool stops at 256 KiB).
sed -n '1,/^print(sorted/p' "$W/mt.py" | sed 's/^print(sorted(out.values()), .*$/print(sorted(out.values()))/;/^d = /d' >"$W/mt-small.py"
python3 "$W/mt-small.py" >"$W/pyb.expected"
sort --parallel=4 -S 50M "$W/in.txt" | sha256sum >"$W/sort.expected"

for profile in release debug; do
  L=$T/$profile/libshardsweep.so
  step "capi ($profile): C contract (tests/abi.c)"
  LD_PRELOAD=$L "$W/abi" | tee "$W/abi.out"
  grep -q "all checks passed" "$W/abi.out" || fail "abi.c"
  # 24 is glibc's smallest usable size; the core's smallest cell is 8: the library is in use.
  grep -q "malloc_usable_size(malloc(1)) = 8" "$W/abi.out" || fail "abi.c did not run on shardsweep"
  passed=$((passed + 1))

  step "capi ($profile): python3, 4 threads, under LD_PRELOAD"
  LD_PRELOAD=$L python3 "$W/mt.py" >"$W/py.out"
  cmp "$W/py.out" "$W/py.expected" || fail "python3 output differs"
  grep -q "loaded: True" "$W/py.out" || fail "python3 did not load the library"
  passed=$((passed + 1))

  step "capi ($profile): sort --parallel=4 on 1M lines, under LD_PRELOAD"
  LD_PRELOAD=$L sort --parallel=4 -S 50M "$W/in.txt" | sha256sum >"$W/sort.out"
  cmp "$W/sort.out" "$W/sort.expected" || fail "sort output differs"
  passed=$((passed + 1))

  step "capi ($profile): purge delays 0 and 1000 ms run sort alike; an invalid delay is one line, exit 2"
  for d in 0 1000; do
    SHARDSWEEP_PURGE_DELAY_MS=$d LD_PRELOAD=$L sort --parallel=4 -S 50M "$W/in.txt" | sha256sum >"$W/sort.out"
    cmp "$W/sort.out" "$W/sort.expected" || fail "sort output differs with SHARDSWEEP_PURGE_DELAY_MS=$d"
  done
  rc=0; err=$(SHARDSWEEP_PURGE_DELAY_MS=soon LD_PRELOAD=$L sort "$W/in.txt" 2>&1 >/dev/null) || rc=$?
  [ "$rc" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q "SHARDSWEEP_PURGE_DELAY_MS=soon: invalid delay: valid values are 0" <<<"$err" \
    || fail "invalid SHARDSWEEP_PURGE_DELAY_MS: rc=$rc, stderr: $err"
  passed=$((passed + 1))

  step "capi ($profile): bounded mode (SHARDSWEEP_BOUNDED=64,8): python3 (4 threads) and sort alike; an invalid value is one line, exit 2"
  # Large objects come from the bounded pool (at most 256 KiB each): pymalloc's arena map needs
  # more, so python3 runs with PYTHONMALLOC=malloc; sort adapts its buffer to what malloc gives.
  SHARDSWEEP_BOUNDED=64,8 PYTHONMALLOC=malloc LD_PRELOAD=$L python3 "$W/mt-small.py" >"$W/pyb.out"
  cmp "$W/pyb.out" "$W/pyb.expected" || fail "python3 output differs in bounded mode"
  SHARDSWEEP_BOUNDED=64,8 LD_PRELOAD=$L sort -S 200K "$W/in.txt" | sha256sum >"$W/sort.out"
  cmp "$W/sort.out" "$W/sort.expected" || fail "sort output differs in bounded mode"
  rc=0; err=$(SHARDSWEEP_BOUNDED=lots LD_PRELOAD=$L sort "$W/in.txt" 2>&1 >/dev/null) || rc=$?
  [ "$rc" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q "SHARDSWEEP_BOUNDED=lots: invalid declared memory: valid values are <MiB>" <<<"$err" \
    || fail "invalid SHARDSWEEP_BOUNDED: rc=$rc, stderr: $err"
  passed=$((passed + 1))

  step "capi ($profile): SHARDSWEEP_BLOCK_KIB at run time: the build's value runs, another is one line, exit 2"
  SHARDSWEEP_BLOCK_KIB=64 LD_PRELOAD=$L sort "$W/in.txt" | sha256sum >"$W/sort.out"
  cmp "$W/sort.out" "$W/sort.expected" || fail "sort output differs with SHARDSWEEP_BLOCK_KIB=64 (the build's)"
  rc=0; err=$(SHARDSWEEP_BLOCK_KIB=4 LD_PRELOAD=$L sort "$W/in.txt" 2>&1 >/dev/null) || rc=$?
  [ "$rc" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q "SHARDSWEEP_BLOCK_KIB=4: refused: a build-time setting: this build has 64 KiB blocks" <<<"$err" \
    || fail "SHARDSWEEP_BLOCK_KIB=4 with a 64 KiB build: rc=$rc, stderr: $err"
  passed=$((passed + 1))
done
echo "$passed passed, 0 failed"

#!/usr/bin/env python3
"""A stand-in for synthvm with a known minimum heap, to test the search rules quickly.
minheap(t) = FAKE_BASE + FAKE_SLOPE * t MiB (defaults 8 and 0.5). Below it: "Out of memory",
exit 3, except heaps in FAKE_HANG (comma list, MiB), which sleep forever (timeout = too small),
and heaps in FAKE_ERROR, which panic (exit 101: an error, never a result). FAKE_BAND=W (MiB) with
FAKE_COUNTER=<file>: a pass/fail band [minheap, minheap + W) where only every third run (counted
in the file) passes, as a workload whose threads race for the last pages."""
import json, os, sys, time
a = sys.argv[1:]
t = int(a[a.index("-t") + 1]); h = a[a.index("--heap") + 1]
heap = int(h[:-1]) / 1024 if h.endswith("K") else float(h)
base = float(os.environ.get("FAKE_BASE", 8)); slope = float(os.environ.get("FAKE_SLOPE", 0.5))
def listed(name):
    return any(abs(heap - float(x)) < 1e-9 for x in os.environ.get(name, "").split(",") if x)
if listed("FAKE_ERROR"):
    print("thread 'main' panicked at fake", file=sys.stderr); sys.exit(101)
if listed("FAKE_HANG"):
    time.sleep(3600)
band = float(os.environ.get("FAKE_BAND", 0))
if band and heap + 1e-9 >= base + slope * t and heap + 1e-9 < base + slope * t + band:
    c = os.environ["FAKE_COUNTER"]
    n = int(open(c).read()) if os.path.exists(c) else 0
    open(c, "w").write(str(n + 1))
    if n % 3:
        print("synthvm: Out of memory: fake band", file=sys.stderr); sys.exit(3)
if heap + 1e-9 < base + slope * t:
    print("synthvm: Out of memory: fake", file=sys.stderr); sys.exit(3)
print("===== synthvm lusearch PASSED in 1 msec =====")
# Peak RSS = 10 MiB + the heap; the space's peak resident pages = the heap, as the space prints it
# under SHARDSWEEP_REPORT_PEAK=1 (policy/report.rs).
print(json.dumps({"synthvm": {"status": "PASSED", "threads": t, "total_ms": 1.0, "mutator_ms": 0.9,
      "gc_ms": 0.1, "gc_count": 3, "last_iteration_ms": 1.0, "last_iteration_mutator_ms": 0.9,
      "last_iteration_gc_ms": 0.1, "last_iteration_gc_count": 3, "peak_rss_kib": int((10 + heap) * 1024)}}))
if os.environ.get("SHARDSWEEP_REPORT_PEAK") == "1":
    print(f"shardsweep: peak resident pages {int(heap * 256)} ({int(heap * 1024)} KiB)", file=sys.stderr)

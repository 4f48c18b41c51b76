#!/usr/bin/env python3
"""The share of a `perf report --sort dso,sym --stdio` in the allocation call: HotSpot's runtime
entries and MemAllocator, MMTk's alloc and post_alloc, the space's allocator and the core's slow
path (listed apart). usage: alloc_share.py REPORT.txt"""
import re, sys

CALL = re.compile(r"OptoRuntime::new|Runtime1::new|InterpreterRuntime::(_?new|anewarray|newarray|multianewarray)"
                  r"|MemAllocator|MMTkMutatorContext::alloc|MMTkHeap::mem_allocate|^post_alloc$|^alloc$"
                  r"|ShardSweepAllocator.*::alloc|Allocator::alloc_slow|ThreadStateTransition")
SLOW = re.compile(r"shardsweep::heap::alloc::")
call = slow = 0.0
samples = ""
for line in open(sys.argv[1]):
    if line.startswith("# Samples:"):
        samples = line[2:].strip()
    m = re.match(r"\s+([\d.]+)%\s+(\S+)\s+\[.\]\s+(.*)$", line)
    if not m:
        continue
    sym = m.group(3).strip()
    if SLOW.search(sym):
        slow += float(m.group(1))
    elif CALL.search(sym):
        call += float(m.group(1))
print(f"the call {call:.2f}% of samples, the core's slow path {slow:.2f}% ({samples})")

#!/usr/bin/env python3
"""The share of a `perf report --sort dso,sym --stdio` in the allocation call: HotSpot's runtime
entries and MemAllocator, MMTk's alloc and post_alloc, the space's allocator and the core's slow
path (listed apart). HotSpot's out-of-line `ThreadStateTransition` is listed apart too, not
counted: call graphs put its samples under JNI entries that allocate nothing (`JVM_IsArrayClass`
most, `JVM_ArrayCopy`; none of 56 samples under an allocation entry in ../refill/transitions.sh's
two runs, one of 27 under `JVM_Clone` in a run before); the runtime entries' own transitions are
inlined into them. The measure before counted it ("with the transitions" prints that figure).
usage: alloc_share.py REPORT.txt"""
import re, sys

CALL = re.compile(r"OptoRuntime::new|Runtime1::new|InterpreterRuntime::(_?new|anewarray|newarray|multianewarray)"
                  r"|MemAllocator|MMTkMutatorContext::alloc|MMTkHeap::mem_allocate|^post_alloc$|^alloc$"
                  r"|ShardSweepAllocator.*::alloc|Allocator::alloc_slow")
TRANSITION = re.compile(r"ThreadStateTransition")
SLOW = re.compile(r"shardsweep::heap::alloc::")
call = slow = transition = 0.0
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
    elif TRANSITION.search(sym):
        transition += float(m.group(1))
    elif CALL.search(sym):
        call += float(m.group(1))
print(f"the call {call:.2f}% of samples (with the transitions {call + transition:.2f}%), "
      f"the core's slow path {slow:.2f}% ({samples})")

#!/usr/bin/env python3
"""Where the mutator threads' time goes, from `perf script -F comm,tid,ip,sym,dso` of one run:
samples of the stand-in's threads (`comm` starts with the workload's name), split into JIT-compiled
and interpreted Java code, HotSpot's runtime allocation path, the rest of HotSpot, MMTk's
allocation entry (`alloc`, `post_alloc`, the allocator trait), shardsweep's core (fast and slow
path, extension), memset/memcpy, the kernel, other. Prints one `key=percent` line.
usage: breakdown.py PERF_SCRIPT_OUTPUT WORKLOAD"""
import re
import sys
from collections import Counter

LINE = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<tid>\d+)\s+(?P<ip>[0-9a-f]+)\s+(?P<sym>.*?)\s+\((?P<dso>[^()]*)\)\s*$")
ALLOC_HS = re.compile(r"MemAllocator|ObjAllocator|ObjArrayAllocator|ClassAllocator|new_instance|new_array|new_type_array|"
                      r"new_object_array|new_multi_array|allocate_instance|allocate_objArray|TypeArrayKlass::allocate|"
                      r"CollectedHeap::(obj|array)_allocate|MMTkHeap::mem_allocate|MMTkMutatorContext::alloc|"
                      r"AllocTracer|notify_allocation|ThreadHeapSampler|JfrAllocationTracer|mem_clear|fill_to_aligned")


def category(sym, dso):
    base = dso.rsplit("/", 1)[-1]
    if dso in ("[unknown]", "") or base.startswith("perf-") or "//anon" in dso or dso.startswith("[anon"):
        return "java_code"
    if dso == "[kernel.kallsyms]":
        return "kernel"
    if dso.endswith("libmmtk_openjdk.so"):
        if "shardsweep::" in sym and "marksweepspace" not in sym:
            return "shardsweep_core"
        if re.search(r"^alloc$|post_alloc|Allocator<VM>|ShardSweepAllocator|alloc_slow|align_allocation", sym):
            return "mmtk_alloc"
        return "mmtk_other"
    if dso.endswith("libjvm.so"):
        return "hotspot_alloc" if ALLOC_HS.search(sym) else "hotspot_other"
    if re.search(r"libc[.-]", dso):
        return "libc_memset_memcpy" if re.search(r"mem(set|cpy|move)", sym) else "libc_other"
    return "other"


def main():
    path, workload = sys.argv[1], sys.argv[2]
    c, threads = Counter(), Counter()
    for line in open(path, errors="replace"):
        m = LINE.match(line)
        if not m:
            continue
        comm = m.group("comm")
        kind = ("mutator" if comm.startswith(workload[:8]) else "gc" if comm.startswith("MMTk Collector")
                else "jit_compiler" if "CompilerThre" in comm else "other_thread")
        threads[kind] += 1
        if kind != "mutator":
            continue
        c[category(m.group("sym"), m.group("dso"))] += 1
    every = sum(threads.values()) or 1
    print("threads: " + " ".join(f"{k}={threads[k]} ({100 * threads[k] / every:.1f}%)"
                                 for k in ("mutator", "gc", "jit_compiler", "other_thread")))
    total = sum(c.values()) or 1
    keys = ("java_code", "hotspot_alloc", "hotspot_other", "mmtk_alloc", "shardsweep_core", "mmtk_other",
            "libc_memset_memcpy", "libc_other", "kernel", "other")
    print(f"samples={total} " + " ".join(f"{k}={100 * c[k] / total:.1f}" for k in keys))


if __name__ == "__main__":
    main()

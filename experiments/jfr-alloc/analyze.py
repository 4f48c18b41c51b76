#!/usr/bin/env python3
"""Per-thread allocation profile of the lusearch stand-in from a JFR recording.

Reads the text of `jfr print --events jdk.ObjectAllocationOutsideTLAB,jdk.ObjectAllocationInNewTLAB,
jdk.ThreadStart,jdk.ThreadEnd REC.jfr` on stdin (or a file) and writes, for every thread that
allocated:

* `threads.csv`: one row per thread: name, Java thread id, iteration (query threads: the k-th
  thread of a name is iteration k), lifetime (start/end), objects, bytes, distinct mimalloc size
  classes (bins 1..48, objects <= 64 KiB; stock MarkSweep's space), the mean and max number of
  distinct classes in windows of WINDOW bytes of the thread's own allocation (a stand-in for one
  inter-GC interval), and the byte shares of objects > 8 KiB and > 64 KiB;
* `classes.csv`: query threads pooled: objects and bytes per size class;
* `SUMMARY.md`: the figures, and the command line given with --command.

Two recording modes:

* exact (`-XX:+UseG1GC -XX:-UseTLAB`): with no TLABs every allocation takes the runtime's slow
  path and JFR records each object as jdk.ObjectAllocationOutsideTLAB, so the sizes are complete
  (not sampled). C2's escape analysis still removes non-escaping objects, as on any JVM.
* TLAB (default JVM): jdk.ObjectAllocationInNewTLAB fires once per TLAB refill with the object
  that caused it and the new TLAB's size; an object is picked with a probability roughly
  proportional to its size, so each sample stands for `tlabSize` bytes. This mode estimates
  bytes per class as sum(tlabSize) over samples of that class; objects per class as
  sum(tlabSize / size). Distinct classes per thread cannot be recovered from it (a thread with
  a 500 KiB TLAB gets one sample per 500 KiB), so class counts are reported only in exact mode.

The size classes are mimalloc's `mi_bin` on 8-byte words, as `src/size_class.rs`
(`bin_of_words`); HotSpot's allocation sizes are already 8-byte aligned and include the header.
"""

import argparse
import collections
import csv
import os
import re
import sys

WORD = 8
MAX_MS_BYTES = 64 << 10  # stock MarkSweep's largest object (bin 48); larger go to the LOS


def bin_of_words(words):
    """mimalloc's mi_bin, as src/size_class.rs bin_of_words."""
    if words <= 1:
        return 1
    if words <= 8:
        return words
    w = words - 1
    b = w.bit_length() - 1
    return (b << 2) + ((w >> (b - 2)) & 3) - 3


def bin_of(nbytes):
    return bin_of_words((nbytes + WORD - 1) // WORD)


def bin_words(b):
    if b <= 8:
        return b
    top = (b + 3) >> 2
    r = (b + 3) & 3
    return (5 + r) << (top - 2)


assert bin_of(MAX_MS_BYTES) == 48 and bin_words(48) * WORD == MAX_MS_BYTES
assert all(bin_of(bin_words(b) * WORD) == b and bin_of(bin_words(b) * WORD + 1) == b + 1 for b in range(1, 48))

EVENT = re.compile(r"^(jdk\.\w+) \{")
FIELD = re.compile(r"^\s+(\w+) = (.*)$")
THREAD = re.compile(r'"(.*)" \(javaThreadId = (\d+)\)')
SIZE = re.compile(r"([\d.,]+) (bytes|kB|MB)")


def parse_size(s):
    m = SIZE.search(s)
    v = float(m.group(1).replace(",", ""))
    return int(round(v * {"bytes": 1, "kB": 1024, "MB": 1 << 20}[m.group(2)]))


def events(lines):
    name, fields = None, {}
    for line in lines:
        m = EVENT.match(line)
        if m:
            name, fields = m.group(1), {}
            continue
        if name is None:
            continue
        if line.startswith("}"):
            yield name, fields
            name = None
            continue
        m = FIELD.match(line)
        if m:
            fields[m.group(1)] = m.group(2)


class Thread:
    def __init__(self, name, tid):
        self.name, self.tid = name, tid
        self.start = self.end = None
        self.first = self.last = None
        self.objects = 0
        self.bytes = 0  # exact: object bytes; TLAB mode: sum of TLAB sizes + outside objects
        self.by_bin = collections.Counter()  # bytes per bin (0 = LOS, > 64 KiB)
        self.objs_by_bin = collections.Counter()
        self.windows = []  # distinct bins per WINDOW bytes
        self._wbins, self._wbytes = set(), 0

    def add(self, size, weight_bytes, weight_objs, window):
        b = bin_of(size) if size <= MAX_MS_BYTES else 0
        self.objects += weight_objs
        self.bytes += weight_bytes
        self.by_bin[b] += weight_bytes
        self.objs_by_bin[b] += weight_objs
        if b:
            self._wbins.add(b)
        self._wbytes += weight_bytes
        if self._wbytes >= window:
            self.windows.append(len(self._wbins))
            self._wbins, self._wbytes = set(), 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input", nargs="?", default="-", help="text of `jfr print` (default stdin)")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--mode", choices=["exact", "tlab"], required=True)
    ap.add_argument("--window-kib", type=int, default=1024, help="window for per-interval class counts")
    ap.add_argument("--query-prefix", default="lusearch-standin-query-")
    ap.add_argument("--queries", type=int, help="queries per iteration (for bytes per query)")
    ap.add_argument("--iterations", type=int, default=1)
    ap.add_argument("--command", default="", help="the command lines that produced the input (for SUMMARY.md)")
    a = ap.parse_args()
    window = a.window_kib << 10
    f = sys.stdin if a.input == "-" else open(a.input)
    threads = {}

    def thread(s):
        m = THREAD.search(s)
        key = int(m.group(2))
        if key not in threads:
            threads[key] = Thread(m.group(1), key)
        return threads[key]

    for name, ev in events(f):
        if name in ("jdk.ThreadStart", "jdk.ThreadEnd"):
            t = thread(ev.get("thread", ev.get("eventThread")))
            if name == "jdk.ThreadStart":
                t.start = ev["startTime"]
            else:
                t.end = ev["startTime"]
            continue
        t = thread(ev["eventThread"])
        size = parse_size(ev["allocationSize"])
        t.first = t.first or ev["startTime"]
        t.last = ev["startTime"]
        if name == "jdk.ObjectAllocationOutsideTLAB":
            t.add(size, size, 1, window)
        elif name == "jdk.ObjectAllocationInNewTLAB":
            tlab = parse_size(ev["tlabSize"])
            t.add(size, tlab, tlab / size, window)

    # Iteration of a query thread: the k-th thread with that name (ids grow with creation).
    seen = collections.Counter()
    rows = []
    for key in sorted(threads):
        t = threads[key]
        if t.objects == 0:
            continue
        q = t.name.startswith(a.query_prefix)
        it = ""
        if q:
            seen[t.name] += 1
            it = seen[t.name]
        ms_bins = [b for b in t.by_bin if b]
        big8 = sum(v for b, v in t.by_bin.items() if b == 0 or bin_words(b) * WORD > 8192)
        rows.append({
            "thread": t.name, "java_tid": t.tid, "query_thread": int(q), "iteration": it,
            "started": t.start or "", "ended": t.end or "", "first_alloc": t.first, "last_alloc": t.last,
            "objects": round(t.objects), "bytes": round(t.bytes),
            "classes": len(ms_bins) if a.mode == "exact" else "",
            "classes_per_window_mean": (f"{sum(t.windows) / len(t.windows):.1f}" if t.windows and a.mode == "exact" else ""),
            "classes_per_window_max": (max(t.windows) if t.windows and a.mode == "exact" else ""),
            "windows": len(t.windows),
            "share_gt_8k": f"{big8 / t.bytes:.4f}",
            "share_gt_64k": f"{t.by_bin[0] / t.bytes:.4f}",
        })
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "threads.csv"), "w", newline="") as o:
        w = csv.DictWriter(o, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)

    qt = [threads[r["java_tid"]] for r in rows if r["query_thread"]]
    pooled_b, pooled_o = collections.Counter(), collections.Counter()
    for t in qt:
        pooled_b.update(t.by_bin)
        pooled_o.update(t.objs_by_bin)
    tot_b = sum(pooled_b.values())
    tot_o = sum(pooled_o.values())
    with open(os.path.join(a.out, "classes.csv"), "w", newline="") as o:
        w = csv.writer(o)
        w.writerow(["bin", "cell_bytes", "objects", "bytes", "share_objects", "share_bytes", "threads_using"])
        for b in sorted(pooled_b, key=lambda b: (b == 0, b)):
            users = sum(1 for t in qt if t.by_bin.get(b))
            w.writerow([b if b else "los", bin_words(b) * WORD if b else ">65536", round(pooled_o[b]), round(pooled_b[b]),
                        f"{pooled_o[b] / tot_o:.5f}", f"{pooled_b[b] / tot_b:.5f}", users])

    qr = [r for r in rows if r["query_thread"]]
    iters = sorted({r["iteration"] for r in qr})
    per_iter = len(qr) / max(1, len(iters))

    def mean(xs):
        xs = [float(x) for x in xs if x != ""]
        return sum(xs) / len(xs) if xs else float("nan")

    big8 = sum(v for b, v in pooled_b.items() if b == 0 or bin_words(b) * WORD > 8192)
    lines = [
        f"# JFR allocation profile ({a.mode} mode)",
        "",
        "Generated by `experiments/jfr-alloc/analyze.py`; input produced by:",
        "",
        "```",
        a.command.strip(),
        "```",
        "",
        f"* query threads: {len(qr)} over {len(iters)} iteration(s), {per_iter:.0f} per iteration; "
        f"each name appears once per iteration with a new Java thread id (fresh threads per iteration: "
        f"{'yes' if all(r['ended'] for r in qr) and len(iters) > 1 else 'see threads.csv'})",
        f"* bytes per query thread (lifetime = one iteration): mean {mean(r['bytes'] for r in qr) / 2**20:.2f} MiB, "
        f"objects {mean(r['objects'] for r in qr):.0f}",
    ]
    if a.queries:
        per_q = sum(r["bytes"] for r in qr) / (a.queries * a.iterations)
        lines.append(f"* bytes per query: {per_q / 1024:.1f} KiB "
                     f"({a.queries} queries/iteration x {a.iterations} iterations)")
    lines += [
        f"* share of query-thread bytes in objects > 8 KiB (bins 37..48 and LOS): {big8 / tot_b:.3f}; "
        f"> 64 KiB (LOS): {pooled_b[0] / tot_b:.3f}",
        f"* share of query-thread objects > 8 KiB: {sum(v for b, v in pooled_o.items() if b == 0 or bin_words(b) * WORD > 8192) / tot_o:.5f}",
        f"* size classes used by query threads in all: {len([b for b in pooled_b if b])} of 48",
    ]
    if a.mode == "exact":
        lines += [
            f"* distinct size classes per query thread over its lifetime: mean {mean(r['classes'] for r in qr):.1f}, "
            f"min {min(r['classes'] for r in qr)}, max {max(r['classes'] for r in qr)}",
            f"* distinct classes per {a.window_kib} KiB of a thread's allocation: mean "
            f"{mean(r['classes_per_window_mean'] for r in qr):.1f}, max "
            f"{max((r['classes_per_window_max'] for r in qr if r['classes_per_window_max'] != ''), default='-')}",
        ]
    lines += ["", "Per thread: `threads.csv`; per class (query threads pooled): `classes.csv`.", ""]
    with open(os.path.join(a.out, "SUMMARY.md"), "w") as o:
        o.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()

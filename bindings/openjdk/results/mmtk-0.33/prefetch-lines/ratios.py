#!/usr/bin/env python3
"""Paired ratios of a jit/command.sh CSV against one configuration, per case and thread count.

    ratios.py FILE BASE_LABEL [COLUMN ...]

For each other configuration and each column (default: last_iteration_ms, cpu_s, minor_faults),
the ratio to BASE_LABEL's value in the same round: the median, the geometric mean and an
approximate 95% interval (the mean log ratio +- two standard errors, rounds taken as
independent). Rows whose run failed (rc != 0) are left out.
"""
import csv
import math
import statistics as st
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, base = sys.argv[1], sys.argv[2]
    cols = sys.argv[3:] or ["last_iteration_ms", "cpu_s", "minor_faults"]
    rows = [r for r in csv.DictReader(open(path)) if r["rc"] == "0"]
    by = {(r["round"], r["case"], r["threads"], r["config"]): r for r in rows}
    groups = sorted({(r["case"], r["threads"], r["config"]) for r in rows})
    for col in cols:
        for case, threads, config in groups:
            if config == base:
                continue
            rs = [float(r[col]) / float(by[(k[0], case, threads, base)][col])
                  for k, r in by.items()
                  if k[1:] == (case, threads, config) and (k[0], case, threads, base) in by]
            if len(rs) < 2:
                continue
            logs = [math.log(x) for x in rs]
            m, se = st.mean(logs), st.stdev(logs) / math.sqrt(len(logs))
            print(f"{col:17} {case} t{threads} {config:45} median {st.median(rs):.3f} "
                  f"gm {math.exp(m):.3f} ({math.exp(m - 2 * se):.3f}-{math.exp(m + 2 * se):.3f}) n {len(rs)}")


if __name__ == "__main__":
    main()

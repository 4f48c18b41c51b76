#!/usr/bin/env python3
"""What one more query thread adds to the stand-in's live heap, by Java class.

Runs the stand-in (host JDK, Serial GC, `-s default -n 4`) at 1 and at T threads, takes
`jcmd PID GC.class_histogram` (a full GC, then live objects per class) 5 s into each run, and
prints per class the difference in objects and bytes divided by T - 1, largest first, as CSV.
Mean sizes are exact for plain classes and means for arrays.

    python3 experiments/jfr-alloc/live-histogram.py 24 > experiments/jfr-alloc/results/live-histogram.csv
"""
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
W = os.path.join(os.environ.get("TMPDIR", "/tmp"), "shardsweep-jfr-alloc")


def histogram(jar, threads):
    p = subprocess.Popen(["java", "-XX:+UseSerialGC", "-Xmx256m", "-jar", jar, "-s", "default",
                          "--index", os.path.join(W, "index-default"), "-t", str(threads), "-n", "4"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(5)
    out = subprocess.run(["jcmd", str(p.pid), "GC.class_histogram"], capture_output=True, text=True).stdout
    if p.wait() != 0:
        sys.exit(f"live-histogram: -t {threads} failed")
    d = {}
    for line in out.splitlines():
        m = re.match(r"\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", line)
        if m:
            d[m.group(3)] = (int(m.group(1)), int(m.group(2)))
    return d


def main():
    t = int(sys.argv[1]) if len(sys.argv) > 1 else 24
    jar = subprocess.run([os.path.join(ROOT, "scripts/openjdk-standin-build.sh")], capture_output=True,
                         text=True, check=True).stdout.strip()
    if not os.path.exists(os.path.join(W, "index-default", "lusearch-standin.corpus")):
        subprocess.run(["java", "-jar", jar, "-s", "default", "--build-index", os.path.join(W, "index-default")],
                       check=True, stdout=subprocess.DEVNULL)
    a, b = histogram(jar, 1), histogram(jar, t)
    rows = []
    for k in set(a) | set(b):
        n1, b1 = a.get(k, (0, 0))
        n2, b2 = b.get(k, (0, 0))
        rows.append(((b2 - b1) / (t - 1), (n2 - n1) / (t - 1), k))
    rows.sort(reverse=True)
    print(f"# python3 experiments/jfr-alloc/live-histogram.py {t}: live heap at 1 thread {sum(v[1] for v in a.values())} B, "
          f"at {t} {sum(v[1] for v in b.values())} B; per extra thread {sum(r[0] for r in rows):.0f} B")
    print("class,bytes_per_thread,objects_per_thread,mean_bytes")
    for db, dn, k in rows:
        if abs(db) >= 1000:
            print(f"{k},{db:.0f},{dn:.1f},{db / dn if dn else 0:.0f}")


if __name__ == "__main__":
    main()

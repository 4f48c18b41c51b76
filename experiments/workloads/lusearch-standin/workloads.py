"""The JVM stand-ins that minheap.py and study.py drive: where each jar is, its command line
(DaCapo's: -s SIZE -n ITERATIONS -t THREADS, then the benchmark name) and what it needs before
the first run (lusearch: its index on disk, built once outside any heap limit).

    lusearch  experiments/workloads/lusearch-standin  Lucene 9 search (DaCapo lusearch)
    h2        experiments/workloads/h2-standin        TPC-C-like transactions on H2 in memory (DaCapo h2)
    xalan     experiments/workloads/xalan-standin     XSLT over generated documents (DaCapo xalan)

Only the Python standard library.
"""
import re
import subprocess
from pathlib import Path

WORKLOADS_DIR = Path(__file__).resolve().parent.parent
ROOT = WORKLOADS_DIR.parents[1]
NAMES = ("lusearch", "h2", "xalan")
SIZES = ("small", "default", "large")
# The minimum-heap search's first guess (MiB) and the study's default timeout (s) per run: h2
# holds its whole database on the heap, and a probe just above its minimum collects for minutes.
GUESS_MIB = {"lusearch": 16.0, "h2": 48.0, "xalan": 8.0}
TIMEOUT_S = {"lusearch": 90.0, "h2": 240.0, "xalan": 120.0}
# Every stand-in's result line (DaCapo's form): "===== NAME-standin SIZE PASSED in N msec =====".
PASSED = re.compile(rb"^===== (?:lusearch|h2|xalan)-standin \S+ PASSED in (\d+) msec =====$", re.M)


def check(name):
    if name not in NAMES:
        raise ValueError(f"unknown workload {name!r} (one of {', '.join(NAMES)})")
    return name


def jar(name):
    """The stand-in's jar as scripts/openjdk-standin-build.sh NAME builds it."""
    return WORKLOADS_DIR / f"{check(name)}-standin" / "target" / f"{name}-standin.jar"


def index_dir(size):
    """lusearch's index (one per size, shared by every JDK and run: the stand-in checks its stamp)."""
    return ROOT / ".build" / f"lusearch-standin-index-{size}"


def program_args(name, size, iterations, threads, index=None):
    """The stand-in's arguments after `-jar JAR`: DaCapo's options, the benchmark name last."""
    check(name)
    args = ["-s", size, "-n", str(iterations), "-t", str(threads)]
    if name == "lusearch":
        args += ["--index", str(index or index_dir(size))]
    return args + [name]


def prepare(name, java, jar_path, size, index=None):
    """What a workload needs once before its runs (outside any heap limit)."""
    if check(name) == "lusearch":
        subprocess.run([str(java), "-jar", str(jar_path), "-s", size, "--build-index", str(index or index_dir(size))],
                       check=True, stdout=subprocess.DEVNULL)


def prepare_command(name, java, jar_path, size, index=None):
    """prepare()'s command, for a plan (None when nothing is needed)."""
    if check(name) == "lusearch":
        return [str(java), "-jar", str(jar_path), "-s", size, "--build-index", str(index or index_dir(size))]
    return None

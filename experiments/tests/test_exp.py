#!/usr/bin/env python3
"""Fast checks of experiments/exp.py's search rules against fake_synthvm.py (no MMTk needed):
exact minimum at 1 and 0.5 MiB resolution, slope/intercept/R^2, resume without new probes,
timeouts count as too small, errors are reported and not counted, confirmation, a k-of-n quorum."""
import os, shutil, subprocess, sys, tempfile, csv
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXP = HERE.parent / "exp.py"
passed = failed = 0


def check(name, cond, extra=""):
    global passed, failed
    if cond:
        passed += 1; print(f"ok   {name}")
    else:
        failed += 1; print(f"FAIL {name} {extra}")


def run(tmp, cfg_text, env=None, args=()):
    cfg = tmp / "cfg.yaml"
    cfg.write_text(cfg_text)
    e = dict(os.environ, SHARDSWEEP_EXP_BIN_DIR=str(tmp / "bin"), **(env or {}))
    p = subprocess.run([sys.executable, str(EXP), "minheap", str(cfg), "--out", str(tmp / "out"), "--quiet", *args],
                       env=e, capture_output=True, text=True)
    rows = {}
    if (tmp / "out" / "minheap.csv").exists():
        with open(tmp / "out" / "minheap.csv") as f:
            for r in csv.DictReader(f):
                rows[(r["build"], int(r["threads"]))] = r
    return p, rows


CFG = """study: minheap
name: fake
workload: lusearch
size: small
env: {{SHARDSWEEP_REPORT_PEAK: 1}}
threads: [1, 12, 24]
search: {{lo_mib: 1, hi_mib: 512, start_mib: 4, resolution_mib: {res}, timeout_s: 2, confirm: {confirm}}}
builds:
  - {{name: a, variant: fake, plan: MarkSweep}}
"""

with tempfile.TemporaryDirectory() as d:
    tmp = Path(d)
    (tmp / "bin").mkdir()
    shutil.copy(HERE / "fake_synthvm.py", tmp / "bin" / "synthvm-fake")
    os.chmod(tmp / "bin" / "synthvm-fake", 0o755)
    # 1 MiB resolution: minheap = ceil(8 + 0.5 t)
    p, rows = run(tmp, CFG.format(res=1, confirm=0))
    got = [rows.get(("a", t), {}).get("minheap_mib") for t in (1, 12, 24)]
    check("1 MiB resolution finds ceil(8 + 0.5 t)", got == ["9", "14", "20"], f"{got} {p.stderr[-500:]}")
    readme = (tmp / "out" / "README.md").read_text() if (tmp / "out" / "README.md").exists() else ""
    check("README has slope, intercept, R²", "Gradient/Slope" in readme and "R²" in readme)
    check("plot written", (tmp / "out" / "minheap.png").exists())
    # peak RSS at each minimum (fake: 10 MiB + heap) and the space's own peak (the heap), from
    # the probe at the minimum; the RSS plot
    check("README has the peak RSS at each minimum (and the space's peak)",
          "| 1 | 19.0 (9.0) |" in readme and "| 24 | 30.0 (20.0) |" in readme, readme[readme.find("## Peak RSS"):][:600])
    check("RSS plot written", (tmp / "out" / "rss.png").exists())
    pr = [x for x in csv.DictReader(open(tmp / "out" / "probes.csv")) if x["outcome"] == "pass"]
    check("every passing probe records the space's peak resident KiB",
          pr and all(x["space_peak_resident_kib"] == str(int(float(x["heap_mib"]) * 1024)) for x in pr))
    n1 = sum(1 for _ in open(tmp / "out" / "probes.csv"))
    p, rows2 = run(tmp, CFG.format(res=1, confirm=0))
    n2 = sum(1 for _ in open(tmp / "out" / "probes.csv"))
    check("rerun reuses every probe (resumable)", n1 == n2 and rows2 == rows, f"{n1} vs {n2}")
    check("every CSV row has its command", all(r["command"].startswith("MMTK") or "synthvm-fake" in r["command"]
                                              for r in csv.DictReader(open(tmp / "out" / "probes.csv"))))
    shutil.rmtree(tmp / "out")
    # 0.5 MiB resolution: minheap = 8.5, 14, 20
    p, rows = run(tmp, CFG.format(res=0.5, confirm=0))
    got = [rows.get(("a", t), {}).get("minheap_mib") for t in (1, 12, 24)]
    check("0.5 MiB resolution", got == ["8.5", "14", "20"], f"{got}")
    shutil.rmtree(tmp / "out")
    # a hang below the minimum counts as too small (timeout), not as an error
    p, rows = run(tmp, CFG.format(res=1, confirm=0), env={"FAKE_HANG": "13"})
    check("timeout = too small", rows.get(("a", 12), {}).get("minheap_mib") == "14", str(rows.get(("a", 12))))
    shutil.rmtree(tmp / "out")
    # a panic is an error: reported, not counted, exit status non-zero
    p, rows = run(tmp, CFG.format(res=1, confirm=0), env={"FAKE_ERROR": "14,13,15,16,12"})
    r = rows.get(("a", 12), {})
    check("panic = ERROR, not a result", r.get("status") == "error" and r.get("minheap_mib") == ""
          and p.returncode != 0 and "ERROR" in (tmp / "out" / "README.md").read_text(), str(r))
    shutil.rmtree(tmp / "out")
    # confirmation: probes the minimum twice more
    p, rows = run(tmp, CFG.format(res=1, confirm=2))
    conf = [x for x in csv.DictReader(open(tmp / "out" / "probes.csv")) if x["purpose"] == "confirm"]
    check("--confirm 2 re-runs each minimum twice", len(conf) == 6 and
          [rows[("a", t)]["minheap_mib"] for t in (1, 12, 24)] == ["9", "14", "20"], f"{len(conf)}")
    shutil.rmtree(tmp / "out")
    # a pass/fail band 3 MiB wide (1 run in 3 passes): one run per heap stops anywhere in it,
    # 2 of 3 at its top (ceil(8 + 0.5 t) + 3); the runs after the first have their own purpose
    band = {"FAKE_BAND": "3", "FAKE_COUNTER": str(tmp / "counter")}
    p, rows = run(tmp, CFG.format(res=1, confirm=0), env=band, args=("--quorum", "2/3"))
    got = [rows.get(("a", t), {}).get("minheap_mib") for t in (1, 12, 24)]
    probes = list(csv.DictReader(open(tmp / "out" / "probes.csv")))
    check("--quorum 2/3 finds the band's top", got == ["12", "17", "23"], f"{got} {p.stderr[-300:]}")
    check("quorum runs after the first are search-1, search-2",
          {x["purpose"] for x in probes} == {"search", "search-1", "search-2"})
    check("the README names the quorum", "a heap passes when 2 of its 3 runs pass"
          in (tmp / "out" / "README.md").read_text())
    shutil.rmtree(tmp / "out")
    p, _ = run(tmp, CFG.format(res=1, confirm=0), args=("--quorum", "3/2"))
    check("an invalid quorum: one line naming the valid values, exit 2",
          p.returncode == 2 and "valid values are k/n" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
          f"{p.returncode} {p.stderr}")
    shutil.rmtree(tmp / "out", ignore_errors=True)
    # vm_args reach synthvm's command line and the probe key; a reference block adds the
    # comparison of slopes (fake: 0.5 MiB/thread at 0.5 MiB resolution)
    ref = CFG.format(res=0.5, confirm=0).replace("builds:\n", "") + (
        "vm_args: [--compressed-layout]\n"
        "reference: {source: test, tolerance: 0.25, slopes: {a: 0.45, b: 1.0}}\n"
        "builds:\n"
        "  - {name: a, variant: fake, plan: MarkSweep}\n"
        "  - {name: b, variant: fake, plan: MarkSweep, env: {FAKE_SLOPE: 0.8}}\n")
    ref = ref.replace("  - {name: a, variant: fake, plan: MarkSweep}\nvm_args", "vm_args")
    p, rows = run(tmp, ref)
    probes = list(csv.DictReader(open(tmp / "out" / "probes.csv")))
    check("vm_args on every probe's command line and in its row",
          probes and all("--compressed-layout lusearch" in x["command"] and x["vm_args"] == "--compressed-layout"
                         for x in probes), p.stderr[-300:])
    readme = (tmp / "out" / "README.md").read_text()
    check("reference: slopes against it (0.5 vs 0.45, 0.8 vs 1.0: both within 25%), the same order",
          "| a | 0.5" in readme and "1.11× | yes" in readme and "0.80× | yes" in readme
          and "Order here: b > a; reference: b > a: the same" in readme, readme[-900:])
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)

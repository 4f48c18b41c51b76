#!/usr/bin/env bash
# The experiments at CI size (< ~10 min on 2 cores):
#  0. the Python unit tests (no MMTk, seconds): the shared slope fit and minimum-heap search
#     (experiments/tests/test_studylib.py), the stand-in's search and run classification
#     (experiments/workloads/lusearch-standin/test_minheap.py), the policy checks' own logic
#     (experiments/tests/test_policy_checks.py), check-doc-defaults.py's prose rule
#     (experiments/tests/test_check_doc_defaults.py) and the paired timing script
#     (experiments/tests/test_paired_time.py);
#  1. the search rules of experiments/exp.py against a fake synthvm (fast, no MMTk);
#  2. minheap at threads 1, 12 and 48, lusearch --size small, stock MarkSweep vs shardsweep
#     64 KiB with page and with whole-block accounting (experiments/configs/minheap-ci.yaml), and
#     the relations that must hold, with margins: page accounting's minimum heap at least 0.5 MiB
#     below stock's and below whole-block accounting's at every thread count, and its peak RSS at
#     its own minimum at 48 threads at least 2 MiB below stock's at stock's minimum; a rerun must
#     reuse every probe;
#  3. the guard of the JVM's lusearch result (issue 20): on synthvm's JVM-fitted workload
#     (bindings/synthvm/workloads/lusearch-jvm-fit.wl, --size small, mmtk-openjdk's compressed
#     layout; experiments/configs/minheap-jvm-ci.yaml), shardsweep 64K page accounting's minimum
#     heap at 24 threads is at most the 4K build's plus one search step.
# Builds only stock, ss64k and ss4k, in the target dirs scripts/build-variants.sh keeps
# (.build/target-stock, -ss64, -ss4; scripts/test-policy.sh shares the first two), so CI does not
# build them twice.
#   scripts/test-experiments.sh [--no-build]
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD=1
[ "${1:-}" = --no-build ] && BUILD=0
python3 -c 'import yaml, matplotlib' 2>/dev/null || scripts/setup.sh
# CI's binaries live apart from the studies' (.build/bin), so a CI run never changes the binaries
# a long study is resuming with; the cargo target dirs are the shared ones.
export SHARDSWEEP_EXP_BIN_DIR="$ROOT/.build/bin-ci"
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

echo "== Python unit tests"
for t in experiments/tests/test_studylib.py experiments/workloads/lusearch-standin/test_minheap.py \
         experiments/tests/test_policy_checks.py experiments/tests/test_check_doc_defaults.py \
         experiments/tests/test_paired_time.py; do
    [ -f "$t" ] || { bad "$t missing"; continue; }
    out=$(python3 "$t" 2>&1); rc=$?
    n=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' <<<"$out")
    if [ $rc = 0 ] && [ -n "$n" ]; then ok "$t ($n tests)"; else echo "$out" | tail -20; bad "$t (rc=$rc)"; fi
done

echo "== search rules (fake synthvm)"
out=$(python3 experiments/tests/test_exp.py 2>&1); rc=$?
echo "$out" | grep -E '^(ok|FAIL)' | sed 's/^/   /'
p=$(tail -1 <<<"$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
pass=$((pass + ${p%% *})); fail=$((fail + ${p##* }))
[ -z "$p" ] && bad "test_exp.py did not report (rc=$rc)"

if [ $BUILD = 1 ]; then
    echo "== build stock, ss64k, ss4k"
    scripts/build-variants.sh stock ss64k ss4k >/dev/null 2>.build/test-experiments-build.log \
        || { tail -20 .build/test-experiments-build.log; bad "build-variants stock ss64k ss4k"; echo "$pass passed, $fail failed"; exit 1; }
fi

echo "== minheap, CI size"
OUT=experiments/results/minheap-ci/tmp   # git-ignored
rm -rf "$OUT"
res=$(python3 experiments/exp.py minheap experiments/configs/minheap-ci.yaml --out "$OUT" \
      --command "scripts/test-experiments.sh" 2>&1); rc=$?
grep -v '^  \[' <<<"$res"
[ $rc = 0 ] && ok "every point measured (no ERROR)" || bad "minheap-ci search (rc=$rc)"
# The relations that must hold (a regression breaks them), each with a margin wider than the
# run-to-run spread. Measured at this size (three runs on the idle machine on 2026-11-23,
# threads 1/12/24/48): shardsweep 64K page accounting 1.25-2.5 MiB, whole-block accounting
# 3.125-4.75, stock MarkSweep 3.125-5.375 (each figure moved by at most 0.5 MiB between runs);
# peak RSS at each build's own minimum, 48 threads: page 12.2-12.7 MiB, stock 17.5-18.0. On a
# loaded machine (load 8-14, 2026-11-25) the figures close in: page 14.1, stock 15.7 (stock's
# minimum fell to 4.0 MiB, and the process RSS of the same page-accounting run rose ~2 MiB with
# the load, for the previous commit's binary too), so the RSS margin is 1 MiB.
# An earlier check compared two 2-point slopes (differences of 0.01 MiB/thread): it flipped on
# noise, so it is gone; the per-thread growth is the studies' business (scripts/minheap-study.sh).
checks=$(python3 - "$OUT/minheap.csv" "$OUT/probes.csv" <<'PY'
import csv, sys
pts, rows = {}, list(csv.DictReader(open(sys.argv[2])))
for r in csv.DictReader(open(sys.argv[1])):
    if r["status"] == "ok":
        pts.setdefault(r["build"], {})[int(r["threads"])] = float(r["minheap_mib"])
page, stock, block = pts.get("ss64k-page", {}), pts.get("stock-ms", {}), pts.get("ss64k-block", {})
M = 0.5  # MiB: four search steps
for t in sorted(stock):
    p = page.get(t, float("inf"))
    print(("ok" if p <= stock[t] - M else "bad") + f" minheap(shardsweep 64K page, t={t}) = {p} <= stock MarkSweep's {stock[t]} - {M} MiB")
    if t in block:
        print(("ok" if p <= block[t] - M else "bad") + f" minheap(page accounting, t={t}) = {p} <= whole-block accounting's {block[t]} - {M} MiB")
def rss(build, t, h):
    v = [float(r["peak_rss_kib"]) / 1024 for r in rows if r["build"] == build and r["threads"] == str(t)
         and r["outcome"] == "pass" and r["peak_rss_kib"] and abs(float(r["heap_mib"]) - h) < 1e-6]
    return max(v) if v else None
t = max(stock)
a, b = rss("ss64k-page", t, page.get(t, -1)), rss("stock-ms", t, stock[t])
R = 1.0  # MiB
ok = a is not None and b is not None and a <= b - R
print(("ok" if ok else "bad") + f" peak RSS at the own minimum heap, t={t}: shardsweep 64K page {a and round(a, 1)} <= stock MarkSweep's {b and round(b, 1)} - {R} MiB")
PY
)
while read -r verdict msg; do
    [ "$verdict" = ok ] && ok "$msg" || bad "$msg"
done <<<"$checks"
before=$(wc -l <"$OUT/probes.csv")
python3 experiments/exp.py minheap experiments/configs/minheap-ci.yaml --out "$OUT" --quiet >/dev/null 2>&1
after=$(wc -l <"$OUT/probes.csv")
[ "$before" = "$after" ] && ok "rerun reuses all $((before - 1)) probes" || bad "rerun ran $((after - before)) new probes"
for f in README.md minheap.csv minheap.png rss.png; do
    [ -s "$OUT/$f" ] && ok "$OUT/$f written" || bad "$OUT/$f missing"
done

echo "== the JVM lusearch result's guard: minheap at 24 threads, JVM-fitted workload, CI size"
# On the JVM (bindings/openjdk/RESULTS.md) the lusearch stand-in's 64K page build needs at 24
# threads 21-22 MiB against the 4K build's 21 (one 0.5 MiB step apart or level, in two runs).
# experiments/results/minheap-jvm-fit/ has the same workload at default size. Here (seeds 1-5, loaded
# and idle machine, six runs) the 64K build needed 13.5-14.5 MiB and the 4K build 15-16.5: 64K minus 4K
# between -2.5 and -1 MiB, so the check fails only at a reversal of 3 steps or more beyond the worst.
# With SHARDSWEEP_ADOPT=headroom, the default since (seeds 1-5, one run each): 64K minus 4K -1, 0,
# -1.5, -2, -1.5 MiB; seed 1, the one run here, -1 (three steps inside the bound).
OUT=experiments/results/minheap-jvm-ci/tmp   # git-ignored
rm -rf "$OUT"
res=$(python3 experiments/exp.py minheap experiments/configs/minheap-jvm-ci.yaml --out "$OUT" \
      --command "scripts/test-experiments.sh" 2>&1); rc=$?
grep -v '^  \[' <<<"$res"
[ $rc = 0 ] && ok "every point measured (no ERROR)" || bad "minheap-jvm-ci search (rc=$rc)"
guard=$(python3 - "$OUT/minheap.csv" experiments/configs/minheap-jvm-ci.yaml <<'PY'
import csv, sys, yaml
step = yaml.safe_load(open(sys.argv[2]))["search"]["resolution_mib"]
pts = {(r["build"], int(r["threads"])): float(r["minheap_mib"])
       for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"}
a, b = pts.get(("ss64k-page", 24)), pts.get(("ss4k-page", 24))
ok = a is not None and b is not None and a <= b + step
print(("ok" if ok else "bad") + f" minheap(shardsweep 64K page, t=24) = {a} <= 4K's {b} + one step ({step} MiB)")
PY
)
while read -r verdict msg; do
    [ "$verdict" = ok ] && ok "$msg" || bad "$msg"
done <<<"$guard"
echo "$pass passed, $fail failed"
[ $fail = 0 ]

"""The minimum-heap study: for each build and thread count, the search of
experiments/studylib/heapsearch.py over synthvm probes (running-ng's rules: a probe passes on
exit 0 and PASSED, is too small on out of memory or the probe timeout, anything else is an
error, retried once). With `search.quorum` k/n a heap passes when k of its n runs pass: run 0
has purpose `search`, run i > 0 purpose `search-i`, so the CSV of a 1/1 study is reused."""
import time

from studylib.heapsearch import extrapolate_guess, find_minimum, quorum_probe

from .config import fmt_dur, fmt_heap
from .runner import Missing, Runner, Store


TOO_SMALL = ("oom", "timeout")


class SearchResult:
    def __init__(self, status, minheap=None, probes=0, detail=""):
        self.status, self.minheap, self.probes, self.detail = status, minheap, probes, detail

    def cell(self):
        if self.status == "ok":
            return fmt_heap(self.minheap)
        if self.status == "below":
            return f"≤{fmt_heap(self.minheap)}"
        if self.status == "above":
            return f">{fmt_heap(self.minheap)}"
        if self.status == "error":
            return "ERROR"
        return "—"


def find_minheap(runner, build, threads, guess, search, confirm):
    """Bracket around `guess`, bisect to `resolution`, then confirm (studylib.heapsearch, heaps
    clamped to the config's lo_mib..hi_mib). Deterministic given the probe outcomes, so
    replaying the CSV reproduces the same sequence of probes."""
    n = [0]

    def run(h, i):
        """Run i at heap h: True = passes, False = too small; raises on a repeated error."""
        attempt = 0
        while True:
            r = runner.run(build, threads, h, "search" if i == 0 else f"search-{i}", attempt)
            n[0] += 1
            if r["outcome"] == "pass":
                return True
            if r["outcome"] in TOO_SMALL:
                return False
            if attempt >= 1:
                raise RuntimeError(f"heap {fmt_heap(h)} MiB: {r['outcome']} rc={r['exit_code']}: {r['detail']}")
            attempt += 1

    probe = quorum_probe(run, *search.get("quorum", (1, 1)))

    def confirmed(h):
        """Passes `confirm` more times (False at the first too small; raises on an error)."""
        for c in range(confirm):
            r = runner.run(build, threads, h, "confirm", c)
            n[0] += 1
            if r["outcome"] == "pass":
                continue
            if r["outcome"] not in TOO_SMALL:
                raise RuntimeError(f"confirm at {fmt_heap(h)} MiB: {r['outcome']}: {r['detail']}")
            return False
        return True

    try:
        r = find_minimum(probe, guess, search["resolution_mib"], search["lo_mib"], search["hi_mib"],
                         above_hi="clamp", confirm=confirmed if confirm else None)
    except RuntimeError as e:
        return SearchResult("error", None, n[0], str(e))
    return SearchResult(r.status, r.heap, n[0], r.detail)

def next_guess(search, prev_points, threads):
    """Linear extrapolation from this build's previous thread counts (fewer probes)."""
    found = [(t, r.minheap) for t, r in prev_points if r.status == "ok"]
    return extrapolate_guess(found, threads, search["start_mib"], growth=0.05)

def minheap_study(cfg, out, replay=False, log=print):
    store = Store(out / "probes.csv")
    search = cfg["search"]
    confirm = int(search["confirm"])
    builds, threads = cfg["builds"], cfg["threads"]
    total_points = len(builds) * len(threads)
    t_start = time.monotonic()
    state = {"done": 0, "new_points": 0, "new_secs": 0.0}

    def progress(row):
        el = time.monotonic() - t_start
        remaining = total_points - state["done"]
        if state["new_points"]:
            eta = el / state["new_points"] * remaining
            eta_s = f"ETA ~{fmt_dur(eta)}"
        else:
            eta_s = "ETA: after the first point"
        log(f"  [{state['done']}/{total_points} points, {fmt_dur(el)}, {eta_s}] {row['build']} "
            f"t={row['threads']} heap={row['heap_mib']} MiB: {row['outcome']} ({float(row['wall_s']):.1f} s)")

    runner = Runner(cfg, store, "minheap", replay=replay, progress=None if replay else progress)
    results = {}
    for b in builds:
        prev = []
        for t in threads:
            before = runner.executed
            try:
                r = find_minheap(runner, b, t, next_guess(search, prev, t), search, confirm)
            except Missing:
                r = SearchResult("missing")
            results[(b["name"], t)] = r
            prev.append((t, r))
            state["done"] += 1
            if runner.executed > before:
                state["new_points"] += 1
            if not replay:
                extra = f" ({r.detail})" if r.detail else ""
                log(f"minheap {b['name']:>14} t={t:<3} -> {r.cell():>6} MiB  [{r.probes} probes, "
                    f"{runner.executed - before} new]{extra}")
    return results, runner

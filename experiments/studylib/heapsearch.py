"""The least-squares fit of a minimum heap over thread counts, and the minimum-heap search.

One implementation for synthvm's studies (experiments/exp.py, package synthexp) and the JVM
stand-in's (experiments/workloads/lusearch-standin/minheap.py, study.py). Only the standard
library; no I/O: the search calls a probe function the caller gives.

    linfit(xs, ys) -> Fit(slope, intercept, r2) | None
    slope(points) -> float | None                       # points: [(x, y)]
    extrapolate_guess(found, threads, start, growth=0.05, per_thread=False) -> float
    find_minimum(probe, guess, resolution, lo_bound, hi_bound, *, above_hi="clamp",
                 first_step=0.125, confirm=None) -> Outcome(status, heap, detail)
    parse_quorum("k/n") -> (k, n)
    quorum_probe(run, passes, runs) -> probe          # a heap passes when k of n runs pass

The search (running-ng's rules): from `guess` (snapped to the resolution), step away (first step
`first_step` x the guess, at least one resolution step, doubling each time) until a passing and a
failing heap bracket the minimum, then bisect until the bracket is one resolution step wide; the
minimum is the smallest passing heap. A probe returns True (passes) or False (too small) and
raises to abandon the search (an error: the exception goes to the caller).

Where a run near the minimum passes or fails by chance (a workload whose threads race for the
last free pages: a pass/fail band rather than a step), one run per heap lands the bisection
anywhere in the band. `quorum_probe` makes a heap pass when `passes` of `runs` runs pass,
stopping as soon as the answer is known, so the minimum found is where the chance of passing
reaches about passes/runs.
"""
from collections import namedtuple

Fit = namedtuple("Fit", "slope intercept r2")
Fit.__doc__ = "A least-squares line: slope, y-intercept, coefficient of determination (nan if all y equal)."

Outcome = namedtuple("Outcome", "status heap detail")
Outcome.__doc__ = """The result of find_minimum.
status "ok": `heap` is the minimum (the smallest passing heap, bracketed to the resolution);
"below": the lowest heap searched (`heap`) passes, so the minimum is at most that;
"above": the highest heap searched (`heap`) fails, so the minimum is above it."""

EPS = 1e-9


def linfit(xs, ys):
    """Least squares y = intercept + slope x over the points; None with fewer than two points or
    no spread in x."""
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    slope_ = sxy / sxx
    icpt = my - slope_ * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - (icpt + slope_ * x)) ** 2 for x, y in zip(xs, ys))
    r2 = 1 - ss_res / ss_tot if ss_tot > 0 else float("nan")
    return Fit(slope_, icpt, r2)


def slope(points):
    """The least-squares slope of [(x, y), ...], or None (see linfit)."""
    f = linfit([x for x, _ in points], [y for _, y in points])
    return f.slope if f else None


def extrapolate_guess(found, threads, start, growth=0.05, per_thread=False):
    """The first heap to try at `threads`, from the minima found so far at other thread counts
    (`found`: [(threads, minimum)] in the order measured, passing points only):
      none: `start`;
      one (t1, m1): m1 x (1 + growth), or with per_thread m1 x (1 + growth x (threads - t1));
      two or more: the line through the last two, its slope clipped at 0."""
    if not found:
        return float(start)
    if len(found) == 1:
        t1, m1 = found[-1]
        return m1 * (1 + growth * (threads - t1)) if per_thread else m1 * (1 + growth)
    (t1, m1), (t2, m2) = found[-2], found[-1]
    return m2 + max(0.0, (m2 - m1) / (t2 - t1)) * (threads - t2)


def find_minimum(probe, guess, resolution, lo_bound, hi_bound, *, above_hi="clamp",
                 first_step=0.125, confirm=None):
    """Search the minimum heap with `probe(heap) -> bool`; returns an Outcome.

    resolution: heaps are multiples of it (rounded), and the bracket ends this wide.
    lo_bound, hi_bound: the heaps searched. Below lo_bound every heap is raised to it; passing
      there ends the search "below".
    above_hi: "clamp" - a heap past hi_bound is lowered to it, and failing there ends the search
      "above"; "stop" - a heap past hi_bound is not probed: the search ends "above" at the
      largest failing heap.
    first_step: the first step away from the guess, as a fraction of it.
    confirm: None, or `confirm(heap) -> bool`, run on each minimum found: False (too small after
      all) moves the search up from there one resolution step at a time, then it bisects and
      confirms again.
    """
    res = float(resolution)
    lo_bound, hi_bound = float(lo_bound), float(hi_bound)
    clamp = above_hi == "clamp"
    if above_hi not in ("clamp", "stop"):
        raise ValueError(f"above_hi={above_hi!r}")

    def snap(h):
        h = max(lo_bound, round(h / res) * res)
        return min(hi_bound, h) if clamp else h

    def beyond(h, lo):  # no higher heap to probe
        return h <= lo or h > hi_bound + EPS

    g = snap(guess)
    step = max(res, snap(g * first_step))
    if probe(g):
        hi, lo = g, None
        while lo is None:
            h = snap(hi - step)
            if h >= hi:
                return Outcome("below", hi, "passes at the lowest heap searched")
            if probe(h):
                hi = h
                step *= 2
            else:
                lo = h
    else:
        lo, hi = g, None
        while hi is None:
            h = snap(lo + step)
            if beyond(h, lo):
                return Outcome("above", lo, "fails at the highest heap searched")
            if probe(h):
                hi = h
            else:
                lo = h
                step *= 2
    while True:
        while hi - lo > res + EPS:
            mid = snap((lo + hi) / 2)
            if mid <= lo or mid >= hi:  # (not reached: a bracket wider than `res` has a
                mid = lo + res          # multiple of it nearest its middle strictly inside)
            if probe(mid):
                hi = mid
            else:
                lo = mid
        if confirm is None or confirm(hi):
            return Outcome("ok", hi, "")
        # too small after all: up one resolution step at a time from there
        lo, hi = hi, None
        h = lo
        while hi is None:
            h = snap(h + res)
            if beyond(h, lo):
                return Outcome("above", lo, "confirmation failed up to the highest heap")
            if probe(h):
                hi = h
            else:
                lo = h


def parse_quorum(text):
    """"k/n" (k of n runs must pass; 1 <= k <= n <= 99) -> (k, n); ValueError naming the form."""
    try:
        k, n = (int(x) for x in str(text).split("/"))
    except ValueError:
        raise ValueError(f"invalid quorum {text!r}: valid values are k/n with 1 <= k <= n, e.g. 1/1, 2/3") from None
    if not 1 <= k <= n <= 99:
        raise ValueError(f"invalid quorum {text!r}: valid values are k/n with 1 <= k <= n, e.g. 1/1, 2/3")
    return k, n


def quorum_probe(run, passes, runs):
    """A probe for find_minimum: `run(heap, i) -> bool` is the i-th run (0-based) at `heap`; the
    heap passes when `passes` of `runs` runs pass. Runs stop as soon as the answer is known: at
    the `passes`-th pass, or when so many failed that `passes` can no longer be reached. With
    1/1 it is `run(heap, 0)`."""
    if not 1 <= passes <= runs:
        raise ValueError(f"quorum {passes}/{runs}")

    def probe(heap):
        ok = bad = 0
        for i in range(runs):
            if run(heap, i):
                ok += 1
                if ok >= passes:
                    return True
            else:
                bad += 1
                if bad > runs - passes:
                    return False
        return False  # (not reached: one of the two limits is met by the last run)

    return probe

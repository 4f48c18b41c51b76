#!/usr/bin/env python3
"""The policy tests of the shardsweep space inside mmtk 0.33.0: runs the synthvm binaries that
scripts/test-policy.sh built, parses their JSON (`{"synthvm": {...}}`) and the space's
`shardsweep-check ...` lines, and asserts. scripts/test-policy.sh (the builds) runs it; the
header of that script lists the checks.

    scripts/policy_checks.py [--full]       # after the builds of scripts/test-policy.sh

Every shardsweep run has the space's end-of-GC self-checks on (SHARDSWEEP_CHECK_ACCOUNTING=1,
SHARDSWEEP_CHECK_RECLAIM=1; policy/check.rs): a run passes only if synthvm exits 0, says PASSED,
and every GC printed an "ok" line for each check (as many lines as synthvm's gc_count).
Environment: WORKLOADS (default "lusearch gcbench fragger"), HEAP (MiB, default per run).
Prints one `ok NAME` / `FAIL NAME` line per check and `N passed, N failed (S s)` at the end;
exit 1 if any failed. The judgements are functions of the runs' outputs (judge_*), unit-tested
by experiments/tests/test_policy_checks.py; the parsing of an output and the judgements of the
space's memory reports are in scripts/policy_reports.py, the out-of-memory checks in
scripts/policy_oom.py.
"""
import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from policy_reports import (FOOTPRINT_PARTS, Run, check_lines, fields, judge_drops_report,  # noqa: F401
                            judge_footprint_report, judge_idle_cap, judge_idle_margin, judge_large_objects, judge_margin_room,
                            judge_mutator_report, num, synthvm_json)
from policy_oom import SANITY_KIB, check_out_of_memory, is_oom, is_pass, judge_lowheap  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
VM = ROOT / "bindings" / "synthvm"
COPY = ROOT / ".build" / "pol-copy"


# ------------------------------------------------------------------------------------------
# judgements: (ok, message) from outputs; no processes

def judge_run(name, run, checks=True):
    """A run passes: exit 0, PASSED; with the space's checks, one accounting and one reclaim
    "ok" line per GC."""
    if run.rc != 0 or "PASSED" not in run.out:
        return False, f"{name} (rc={run.rc})"
    if not checks:
        return True, name
    gcs = num(run.json, "gc_count")
    acc, rec = len(check_lines(run.out, "accounting")), len(check_lines(run.out, "reclaim"))
    if gcs is None or acc != gcs or rec != gcs:
        return False, f"{name}: {'' if gcs is None else gcs} GCs but {acc} accounting / {rec} reclaim checks passed"
    return True, f"{name} ({gcs} GCs checked)"


def judge_los_drop(name, run):
    """The large-object space's free pages are dropped at each GC's end (policy/space/large_objects.rs):
    the reclaim check's los_free_resident field (free pages still resident between the lowest and
    the highest large object held) is a number at some GC and 0 at every GC it is a number."""
    v = [fields(l).get("los_free_resident") for l in check_lines(run.out, "reclaim")]
    n = [int(x) for x in v if x is not None and x.isdigit()]
    if not n:
        return False, f"{name}: no GC dropped the large-object space's free pages (los_free_resident: {sorted(set(v))[:3]})"
    if max(n) > 0:
        return False, f"{name}: up to {max(n)} free large-object pages still resident after the drop"
    return True, f"{name}: large-object space's free pages dropped at {len(n)} of {len(v)} GCs, none left resident"


def judge_inline(name, run, offered):
    """--inline-alloc (synthvm's JIT-like allocation from AllocatorInfo): where the space offers its
    free-list fast path, most allocations take it (at least half: the rest are large objects,
    sizes past the direct table and empty lists); where it offers none, none do."""
    n, i = num(run.json, "allocations"), num(run.json, "inline_allocations")
    if n is None or i is None or n == 0:
        return False, f"{name}: no allocation counts in the JSON line"
    if offered and 2 * i < n:
        return False, f"{name}: only {i} of {n} allocations took the inline fast path"
    if not offered and i != 0:
        return False, f"{name}: {i} of {n} allocations took an inline fast path that is not offered"
    return True, f"{name}: {i} of {n} allocations inline"


def judge_zero_default(opt, want, run):
    """MMTk's option binding_zeroes_objects picks the space's default zeroing (printed settings)."""
    got = re.findall(r"SHARDSWEEP_ZERO=([a-z]+)", run.out)
    ok = run.rc == 0 and got == [want]
    return ok, f"MMTK_BINDING_ZEROES_OBJECTS={opt}: default SHARDSWEEP_ZERO={got[0] if got else '?'}" + ("" if ok else f", expected {want}")


def judge_unclearing_binding(run):
    """SHARDSWEEP_ZERO=poison with a binding that does not clear (synthvm's test hook): the run
    fails (exit 1, FAILED) reading the poison pattern, promptly, and does not crash."""
    ok = run.rc == 1 and "FAILED" in run.out and "0xdbdbdbdb" in run.out
    return ok, ("poison: a binding that does not clear what it allocates is caught (FAILED, the 0xDB pattern)"
                if ok else f"poison: a binding that does not clear was not caught (rc={run.rc})")


def judge_footprint(pg, bl):
    """Post-GC footprint of fragger, page charging (pg, purge now) vs whole blocks (bl):
    (notes, [(ok, message)] for the two assertions)."""
    rec = check_lines(pg.out, "reclaim")
    last = fields(rec[-1]) if rec else {}
    charged, blockp, boundl = num(last, "charged"), num(last, "block_pages"), num(last, "bound_live")
    livec, nblk = num(last, "live_cells"), num(last, "blocks")

    def max_used(run):
        v = [num(fields(l), "space_used_pages") for l in check_lines(run.out, "reclaim")]
        v = [x for x in v if x is not None]
        return max(v) if v else None
    maxpg, maxbl = max_used(pg), max_used(bl)
    notes = [f"after the last GC (page): charged={charged} pages for {nblk} blocks, {livec} live cells; "
             f"whole blocks would be {blockp}; bound_live={boundl}",
             f"space used pages after a GC, max over GCs: page {maxpg}, whole-block {maxbl}"]
    out = []
    if None not in (charged, blockp, nblk, livec) and charged * 2 <= blockp and charged <= nblk + 2 * livec:
        out.append((True, "page charging holds <= 1/2 of the blocks' pages and <= blocks + 2 x live cells"))
    else:
        out.append((False, f"page charging footprint ({charged} vs {blockp} whole-block pages, {nblk} blocks, {livec} live cells)"))
    if None not in (maxpg, maxbl) and maxpg * 2 <= maxbl:
        out.append((True, f"post-GC space used, page charging ({maxpg}) <= 1/2 of whole-block charging ({maxbl})"))
    else:
        out.append((False, f"post-GC space used, page {maxpg} vs whole-block {maxbl}"))
    return notes, out


# The final GC of a mostly dead heap (workloads/mostly-dead.wl): per thread 4 kept objects of each
# of 27 size classes (16 B..2 KiB), allocated first (K in a row, so a block starts with them), then
# ~11 MB per thread of garbage; synthvm --final-gc forces a full GC after the run and reports used
# bytes (MMTk's used_bytes), live bytes and classes = distinct (allocating thread, size class)
# pairs among live objects (see synthvm README).
# Asserted for page charging, in 4 KiB pages, with the allowance measured from the space's own
# end-of-GC lines of that final GC (the issue's bound, "one page per live (thread, size class)"):
#   used - live <= (classes + ceil(blocks x 128 B / 4 KiB) + meta + other) x 4 KiB
# classes: one partly used page per (thread, class); 128 B: each block's header (page 0 is
# charged while the block lives); meta: the side-metadata pages MMTk counts in used bytes (the
# accounting line's meta=); other: pages of MMTk's other spaces (used pages - the space's used
# pages). It holds because the core's sweep charges exactly the header page and the pages live
# cells overlap: a dead cell that straddles into a page no live cell needs is set aside, and that
# page is given back.
# Stock MarkSweep and whole-block charging must stay at whole blocks: used >= half a 64 KiB block
# per live (thread, class), and an overhead (used - live) at least 4x page charging's.
def judge_final_gc(pg, bl, st):
    """The final GC of a mostly dead heap (see test-policy.sh): page charging's used - live
    within one page per live (thread, class) + headers + metadata + other spaces; stock and
    whole-block charging at whole blocks. (notes, [(ok, message)] x 3)."""
    J = lambda run, k: num(run.json, k)  # noqa: E731
    used, live, cls = J(pg, "final_gc_used_bytes"), J(pg, "final_gc_live_bytes"), J(pg, "final_gc_live_classes")
    acc, rec = check_lines(pg.out, "accounting"), check_lines(pg.out, "reclaim")
    meta = num(fields(acc[-1]), "meta") if acc else None
    nblk = num(fields(rec[-1]), "blocks") if rec else None
    spc = num(fields(rec[-1]), "space_used_pages") if rec else None
    bused, sused = J(bl, "final_gc_used_bytes"), J(st, "final_gc_used_bytes")
    blive, slive = J(bl, "final_gc_live_bytes"), J(st, "final_gc_live_bytes")
    if None in (used, live, cls, meta, nblk, spc, bused, sused, blive, slive):
        what = "final_gc_* JSON fields or the space's check lines missing"
        return [what], [(False, f"final GC, page charging: {what}"), (False, f"final GC, stock: {what}"),
                        (False, f"final GC, whole-block charging: {what}")]
    other = used // 4096 - spc
    hdr = (nblk * 128 + 4095) // 4096
    issue = (cls + hdr + meta + other) * 4096
    over = used - live
    bover, sover = bused - blive, sused - slive
    notes = [f"live {live} B in {cls} (thread, class) pairs; used after the final GC: page {used}, whole-block {bused}, stock {sused} B",
             f"page: used - live = {over} B = {over // 4096} pages; {nblk} blocks, meta {meta}, header {hdr}, other spaces {other} pages",
             f"bound (classes + header + meta + other) = {issue // 4096} pages"]
    out = []
    if cls > 0 and 0 <= over <= issue:
        out.append((True, f"final GC, page charging: used - live ({over} B) <= (classes + header + meta + other) pages ({issue} B)"))
    else:
        out.append((False, f"final GC, page charging: used - live {over} B > {issue} B (one page per live (thread, class) + header + meta + other)"))
    half = cls * 65536 // 2
    if sused >= half and sover >= 4 * over:
        out.append((True, f"final GC, stock stays at whole blocks ({sused} B used >= {half}; overhead {sover} B >= 4 x {over})"))
    else:
        out.append((False, f"final GC, stock used {sused} B (half a block per class: {half}), overhead {sover} B vs page {over} B"))
    if bused >= half and bover >= 4 * over:
        out.append((True, f"final GC, whole-block charging stays at whole blocks ({bused} B used; overhead {bover} B >= 4 x {over})"))
    else:
        out.append((False, f"final GC, whole-block charging used {bused} B (half a block per class: {half}), overhead {bover} B vs page {over} B"))
    return notes, out


def judge_invalid(var_value, msg, rc, err):
    """An invalid setting: exit 2, one line on stderr naming the setting and the valid values."""
    ok = (rc == 2 and sum(1 for l in err.splitlines() if l) == 1
          and re.search("^" + re.escape(f"shardsweep: {var_value}: ") + ".*" + re.escape(msg), err, re.M))
    return (True, f"invalid {var_value} (exit 2, one line)") if ok else (False, f"invalid {var_value}: rc={rc}, stderr:")


def judge_ignored(name, msg, run):
    """A setting the run ignores: reported once."""
    n = len(re.findall("ignored SHARDSWEEP_ACCOUNTING=block: .*" + re.escape(msg), run.out))
    if run.rc == 0 and n == 1:
        return True, f"ignored setting reported: {name}"
    return False, f"ignored setting: {name} (rc={run.rc}, {n} notes)"


def judge_refused_feature(feat, msg, rc, out):
    if rc != 0 and re.search("error: features?.*" + re.escape(msg), out):
        return True, f"shardsweep + {feat} refused at build time"
    return False, f"shardsweep + {feat}: rc={rc}, expected a compile_error naming both features"


# ------------------------------------------------------------------------------------------
# running

class Suite:
    def __init__(self):
        self.passed = self.failed = 0

    def ok(self, name):
        self.passed += 1
        print(f"ok   {name}", flush=True)

    def bad(self, name, out=""):
        self.failed += 1
        print(f"FAIL {name}", flush=True)
        for l in out.splitlines()[-5:]:
            print("     " + l[:400])

    def verdict(self, result, out=""):
        ok, msg = result
        self.ok(msg) if ok else self.bad(msg, out)
        return ok

    @staticmethod
    def execute(argv, env=None, timeout=600, cwd=None, stderr_only=False):
        """Runs argv with the environment plus `env`; 124 when `timeout` kills it."""
        e = dict(os.environ)
        e.update({k: str(v) for k, v in (env or {}).items()})
        t0 = time.monotonic()
        try:
            p = subprocess.run([str(a) for a in argv], env=e, cwd=cwd, timeout=timeout, text=True,
                               errors="replace", stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL if stderr_only else subprocess.PIPE,
                               stderr=subprocess.PIPE if stderr_only else subprocess.STDOUT)
            rc, out = p.returncode, (p.stderr if stderr_only else p.stdout) or ""
        except subprocess.TimeoutExpired as x:
            rc, out = 124, (x.stderr if stderr_only else x.stdout) or ""
            if isinstance(out, bytes):
                out = out.decode(errors="replace")
        return Run(rc, out, int((time.monotonic() - t0) * 1000))

    def run(self, name, argv, env=None, checks=True, timeout=600):
        """A synthvm run that must pass (with the space's checks unless checks=False); the
        Run if it passed, else None."""
        c = "1" if checks else "0"
        r = self.execute(argv, dict(env or {}, SHARDSWEEP_CHECK_ACCOUNTING=c, SHARDSWEEP_CHECK_RECLAIM=c), timeout)
        return r if self.verdict(judge_run(name, r, checks), r.out) else None


def heap_for(threads, kib=64):
    if os.environ.get("HEAP"):
        return os.environ["HEAP"]
    h = 48 if threads > 8 else 16
    return str(h * 2 if kib >= 256 else h)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="blocks 4,16,32,64,256 x threads 1,8,48")
    a = ap.parse_args(argv)
    blocks, threads = ([4, 16, 32, 64, 256], [1, 8, 48]) if a.full else ([4, 64], [1, 8])
    accounting = ["page", "block"]
    workloads = os.environ.get("WORKLOADS", "lusearch gcbench fragger").split()
    t_start = time.monotonic()
    pol_bin = ROOT / ".build" / "pol-bin"

    # --full: the SANITY_KIB build has mmtk/sanity (a sanity GC after every GC), and a vo_bit build
    # runs too. The default tier uses the plain build of scripts/build-variants.sh (shared with
    # the experiments); VO bits are covered there by mmtk's mock-VM suite (scripts/test-mmtk-mock.sh).
    def bin_of(kib):  # the shardsweep binary with KIB blocks (with --full, the sanity build for SANITY_KIB)
        if kib == SANITY_KIB and a.full:
            return ROOT / ".build" / f"pol-ss{kib}" / "release" / "synthvm"
        return pol_bin / f"synthvm-ss{kib}k"
    ss64, stock = bin_of(64), pol_bin / "synthvm-stock"
    san = bin_of(SANITY_KIB)
    sanity = "sanity " if a.full else ""
    vob = ROOT / ".build" / "pol-ss64-vobit" / "release" / "synthvm"
    for b in [stock, san] + ([vob] if a.full else []) + [bin_of(k) for k in blocks]:
        if not Path(b).exists():
            print(f"policy_checks: missing {b}: run scripts/test-policy.sh (it builds them)", file=sys.stderr)
            return 2
    S = Suite()
    MS = ["--plan", "MarkSweep"]

    def small(t, heap, w, *extra):
        return [*MS, "-t", str(t), "--size", "small", *extra, "--heap", str(heap), w]

    print("== stock MarkSweep baseline")
    S.run("stock t8 lusearch", [stock, *small(8, 16, "lusearch", "--verify")], checks=False)

    print(f"== eager sweeping" + (f" ({SANITY_KIB} KiB blocks: with a sanity GC after every GC)" if a.full else ""))
    for kib in blocks:
        for acc in accounting:
            for t in threads:
                for w in workloads:
                    S.run(f"ss{kib}k {acc} t{t} {w}", [bin_of(kib), *small(t, heap_for(t, kib), w, "--verify")],
                          {"SHARDSWEEP_ACCOUNTING": acc})

    print("== lazy sweeping")
    for acc in accounting:
        for t in threads:
            for w in workloads:
                S.run(f"ss64k lazy {acc} t{t} {w}", [ss64, *small(t, heap_for(t), w, "--verify")],
                      {"SHARDSWEEP_SWEEP": "lazy", "SHARDSWEEP_ACCOUNTING": acc})
    for sw in ["eager", "lazy"]:
        S.run(f"ss{SANITY_KIB}k {sanity}stress {sw} t8 lusearch", [san, *small(8, 16, "lusearch", "--verify")],
              {"MMTK_STRESS_FACTOR": 2097152, "SHARDSWEEP_SWEEP": sw})

    print("== the JIT's inline fast path, from AllocatorInfo::FreeList (synthvm --inline-alloc)")
    # A wrong offset corrupts the lists: the accounting check, --verify or a crash fails the run.
    def inline(name, binary, t, w, offered, env=None):
        r = S.run(name, [binary, *small(t, heap_for(t), w, "--verify", "--inline-alloc")], env)
        if r is not None:
            S.verdict(judge_inline(name, r, offered), r.out)
    for kib in blocks:
        for t in threads:
            for w in ["lusearch", "gcbench"]:
                inline(f"ss{kib}k inline t{t} {w}", bin_of(kib), t, w, True)
    inline("ss64k inline lazy t8 lusearch", ss64, 8, "lusearch", True, {"SHARDSWEEP_SWEEP": "lazy"})
    inline(f"ss{SANITY_KIB}k inline {sanity}stress t8 lusearch", san, 8, "lusearch", True, {"MMTK_STRESS_FACTOR": 2097152})
    inline("ss64k inline off (MMTK_FREE_LIST_FASTPATH=false) t8 lusearch", ss64, 8, "lusearch", False,
           {"MMTK_FREE_LIST_FASTPATH": "false"})
    r = S.run("stock inline t8 lusearch", [stock, *small(8, 16, "lusearch", "--verify", "--inline-alloc")], checks=False)
    if r is not None:
        S.verdict(judge_inline("stock inline t8 lusearch", r, False), r.out)

    print("== the large-object space's free pages are given back at each GC's end")
    # 4 KiB blocks serve objects up to 512 B: lusearch's larger ones go to the large-object space.
    r = S.run(f"ss{SANITY_KIB}k los drop t8 lusearch", [san, *small(8, 16, "lusearch", "--verify")])
    if r is not None:
        S.verdict(judge_los_drop(f"ss{SANITY_KIB}k t8 lusearch", r), r.out)

    print("== mutators destroyed after a GC that did not see them (--late-exit, as OpenJDK's thread exit)")
    # An exiting thread leaves the thread list before it destroys its mutator; a GC in between does
    # not release that mutator. Its heap must still be swept at that GC, or marks left in it make the
    # next trace skip live objects' fields (--verify then finds freed, zeroed objects).
    for sw in ["eager", "lazy"]:
        S.run(f"ss64k late exit {sw} t8 lusearch x3", [ss64, *MS, "-t", "8", "-n", "3", "--size", "small", "--verify",
                                                      "--late-exit", "--heap", "16", "lusearch"], {"SHARDSWEEP_SWEEP": sw})
    S.run("stock late exit t8 lusearch x3", [stock, *MS, "-t", "8", "-n", "3", "--size", "small", "--verify",
                                             "--late-exit", "--heap", "16", "lusearch"], checks=False)

    print("== purging idle pages at once or under pressure only, other advice")
    for name, env, w in [
            ("ss64k purge=now dontneed t8 lusearch", {"SHARDSWEEP_PURGE": "now", "SHARDSWEEP_ADVICE": "dontneed"}, "lusearch"),
            ("ss64k purge=now dontneed lazy t8 gcbench", {"SHARDSWEEP_PURGE": "now", "SHARDSWEEP_ADVICE": "dontneed",
                                                          "SHARDSWEEP_SWEEP": "lazy"}, "gcbench"),
            ("ss64k advice=free decay=2 t8 fragger", {"SHARDSWEEP_ADVICE": "free", "SHARDSWEEP_DECAY": 2}, "fragger"),
            ("ss64k purge=pressure t8 lusearch", {"SHARDSWEEP_PURGE": "pressure"}, "lusearch"),
            ("ss64k purge=pressure lazy t8 fragger", {"SHARDSWEEP_PURGE": "pressure", "SHARDSWEEP_SWEEP": "lazy"}, "fragger"),
            ("ss64k advice=free t8 fragger", {"SHARDSWEEP_ADVICE": "free"}, "fragger"),
            ("ss64k advice=keep t8 fragger", {"SHARDSWEEP_ADVICE": "keep"}, "fragger")]:
        S.run(name, [ss64, *small(8, 16, w, "--verify")], env)

    print("== abandonment: idle size classes only, none")
    for name, env in [("ss64k abandon_all=0 t8 lusearch", {"SHARDSWEEP_ABANDON_ALL": 0}),
                      ("ss64k abandon_all=0 abandon_idle=0 t8 lusearch", {"SHARDSWEEP_ABANDON_ALL": 0, "SHARDSWEEP_ABANDON_IDLE": 0}),
                      ("ss64k lazy abandon_all=1 t8 lusearch", {"SHARDSWEEP_SWEEP": "lazy", "SHARDSWEEP_ABANDON_ALL": 1})]:
        S.run(name, [ss64, *small(8, 16, "lusearch", "--verify")], env)

    print("== chunks the large-object space gave back (--compressed-layout: spaces share one chunk pool)")
    # As on the JVM with compressed oops: the large-object space frees whole chunks at a GC and
    # the space takes them over, still resident and dirty; the space must drop such a chunk when
    # it takes it (else the accounting check finds resident pages no block counts, and cells read
    # as non-zero). The custom workload churns objects of 16 and 32 KiB beside small ones.
    churn = ["--workload-file", str(ROOT / "bindings" / "synthvm" / "tests" / "data" / "los-churn.wl"), "custom"]
    for sw in ["eager", "lazy"]:
        S.run(f"ss64k los churn compressed layout {sw} t4", [ss64, *MS, "-t", "4", "--verify",
                                                            "--compressed-layout", "--heap", "16", *churn],
              {"SHARDSWEEP_SWEEP": sw})
    S.run("stock los churn compressed layout t4", [stock, *MS, "-t", "4", "--verify",
                                                   "--compressed-layout", "--heap", "16", *churn], checks=False)

    print("== counting pages in use (SHARDSWEEP_COUNT=in-use): idle pages resident, uncounted")
    for name, env, w in [
            ("ss64k count=in-use t8 lusearch", {}, "lusearch"),
            ("ss64k count=in-use t8 fragger", {}, "fragger"),
            ("ss64k count=in-use lazy t8 fragger", {"SHARDSWEEP_SWEEP": "lazy"}, "fragger"),
            ("ss64k count=in-use purge=now t8 lusearch", {"SHARDSWEEP_PURGE": "now"}, "lusearch"),
            ("ss64k count=in-use purge=pressure advice=free t8 fragger", {"SHARDSWEEP_PURGE": "pressure",
                                                                         "SHARDSWEEP_ADVICE": "free"}, "fragger"),
            ("ss64k count=in-use block t8 lusearch", {"SHARDSWEEP_ACCOUNTING": "block"}, "lusearch")]:
        S.run(name, [ss64, *small(8, 16, w, "--verify")], {"SHARDSWEEP_COUNT": "in-use", **env})
    r = S.execute([ss64, *small(8, 16, "lusearch")], {"SHARDSWEEP_REPORT_FOOTPRINT": 1, "SHARDSWEEP_COUNT": "in-use"},
                  timeout=120)
    ok, msg = judge_footprint_report(r, leasing=None)
    S.verdict((ok and "count=in-use" in r.out, f"count=in-use: {msg}"), r.out)
    print("== a cap on uncounted idle pages (SHARDSWEEP_IDLE_CAP, with count=in-use): the accounting check")
    print("   asserts at every GC's end that at most the cap's worth of idle pages stays resident")
    for name, env, w in [
            ("ss64k count=in-use idle-cap=12 t8 lusearch", {"SHARDSWEEP_IDLE_CAP": 12}, "lusearch"),
            ("ss64k count=in-use idle-cap=0 t8 fragger", {"SHARDSWEEP_IDLE_CAP": 0}, "fragger"),
            ("ss64k count=in-use idle-cap=25 lazy t8 fragger", {"SHARDSWEEP_IDLE_CAP": 25, "SHARDSWEEP_SWEEP": "lazy"},
             "fragger"),
            ("ss64k count=in-use idle-cap=12 purge=pressure t8 lusearch", {"SHARDSWEEP_IDLE_CAP": 12,
                                                                          "SHARDSWEEP_PURGE": "pressure"}, "lusearch"),
            ("ss64k count=in-use idle-cap=12 block t8 lusearch", {"SHARDSWEEP_IDLE_CAP": 12,
                                                                  "SHARDSWEEP_ACCOUNTING": "block"}, "lusearch")]:
        r = S.run(name, [ss64, *small(8, 16, w, "--verify")], {"SHARDSWEEP_COUNT": "in-use", **env})
        if r is not None:
            S.verdict(judge_idle_cap(name, r.out, env["SHARDSWEEP_IDLE_CAP"], 16), r.out)

    print("== an idle margin (SHARDSWEEP_IDLE_MARGIN, with count=resident): the accounting check asserts")
    print("   at every GC's end that the count is the pages in use plus the idle pages beyond the margin")
    for name, env, w in [
            ("ss64k idle-margin=12 t8 lusearch", {"SHARDSWEEP_IDLE_MARGIN": 12}, "lusearch"),
            ("ss64k idle-margin=25 lazy t8 fragger", {"SHARDSWEEP_IDLE_MARGIN": 25, "SHARDSWEEP_SWEEP": "lazy"},
             "fragger"),
            ("ss64k idle-margin=12 block purge=pressure t8 lusearch", {"SHARDSWEEP_IDLE_MARGIN": 12,
             "SHARDSWEEP_ACCOUNTING": "block", "SHARDSWEEP_PURGE": "pressure"}, "lusearch")]:
        r = S.run(name, [ss64, *small(8, 16, w, "--verify")], env)
        if r is not None:
            S.verdict(judge_idle_margin(name, r.out), r.out)

    print("== the margin by room (SHARDSWEEP_IDLE_MARGIN_ROOM): from the floor to the floor plus a share of the heap")
    for room in (50, 0):  # 16 MiB: five GCs, each leaving about 80% of the heap free
        r = S.execute([ss64, *small(8, 16, "lusearch", "--verify")],
                      {"SHARDSWEEP_REPORT_FOOTPRINT": 1, "SHARDSWEEP_IDLE_MARGIN_ROOM": room}, timeout=120)
        S.verdict(judge_margin_room(f"ss64k margin-room={room} t8 lusearch, 16 MiB", r, 16, 12, room), r.out)

    print("== the drops report (SHARDSWEEP_REPORT_DROPS=1): one line at exit, the pages dropped by path")
    # With the margin at 0 every idle page counts and the prepares purge them all: fragger frees
    # most of what it allocates, so pages are dropped; with the default margin there may be none.
    for name, env, some in [("ss64k idle-margin=0 t8 fragger", {"SHARDSWEEP_IDLE_MARGIN": 0}, True),
                            ("ss64k default t8 fragger", {}, False)]:
        r = S.execute([ss64, *small(8, 16, "fragger")], {"SHARDSWEEP_REPORT_DROPS": 1, **env}, timeout=120)
        S.verdict(judge_drops_report(name, r, some), r.out)

    print("== documented defaults are the code's (scripts/check-doc-defaults.py)")
    r = S.execute([sys.executable, ROOT / "scripts" / "check-doc-defaults.py", ss64])
    lines = r.out.splitlines()
    S.verdict((r.rc == 0, f"documented defaults ({lines[-1] if lines else ''})" if r.rc == 0 else "documented defaults"), r.out)

    print("== the mutator report (SHARDSWEEP_REPORT_MUTATORS=1): one line at exit, a sample per mutator per GC")
    print("== who zeroes: SHARDSWEEP_ZERO=binding and poison (a binding that clears needs no zeroing)")
    for zero in ("binding", "poison"):
        for w in ("lusearch", "fragger"):
            S.run(f"ss64k zero={zero} t8 {w}", [ss64, *small(8, 16, w, "--verify")], {"SHARDSWEEP_ZERO": zero})
    S.run("ss64k zero=poison lazy t8 lusearch", [ss64, *small(8, 16, "lusearch", "--verify")],
          {"SHARDSWEEP_ZERO": "poison", "SHARDSWEEP_SWEEP": "lazy"})
    S.run("ss64k zero=space, a binding that does not clear t8 lusearch", [ss64, *small(8, 16, "lusearch", "--verify")],
          {"SYNTHVM_TEST_SKIP_CLEAR": 1})
    r = S.execute([ss64, *small(8, 16, "lusearch", "--verify")], {"SHARDSWEEP_ZERO": "poison", "SYNTHVM_TEST_SKIP_CLEAR": 1},
                  timeout=120)
    S.verdict(judge_unclearing_binding(r), r.out)
    # The binding says who zeroes through MMTk's option binding_zeroes_objects (mmtk-openjdk sets it).
    for opt, want in (("true", "binding"), ("false", "space")):
        r = S.execute([ss64, *small(1, 16, "gcbench")], {"MMTK_BINDING_ZEROES_OBJECTS": opt, "SHARDSWEEP_PRINT_SETTINGS": 1},
                      timeout=120)
        S.verdict(judge_zero_default(opt, want, r), r.out)
    print("== reuse order: SHARDSWEEP_REUSE=densest and sparsest (a sweep lists pages by their share of live cells)")
    for reuse in ("densest", "sparsest"):
        for w in ("lusearch", "fragger"):
            S.run(f"ss64k reuse={reuse} t8 {w}", [ss64, *small(8, 16, w, "--verify")],
                  {"SHARDSWEEP_REUSE": reuse, "SHARDSWEEP_CHECK_ACCOUNTING": 1, "SHARDSWEEP_CHECK_RECLAIM": 1})
    print("== spill: SHARDSWEEP_SPILL=defer (a page's last cell waits for its next page to be charged)")
    for w in ("lusearch", "fragger", "lusearch-jvm"):
        S.run(f"ss64k spill=defer t8 {w}", [ss64, *small(8, 16, w, "--verify")],
              {"SHARDSWEEP_SPILL": "defer", "SHARDSWEEP_CHECK_ACCOUNTING": 1, "SHARDSWEEP_CHECK_RECLAIM": 1})
    r = S.execute([ss64, *small(8, 16, "lusearch-jvm")], {"SHARDSWEEP_SPILL": "defer", "SHARDSWEEP_REPORT_FOOTPRINT": 1}, timeout=120)
    ok, msg = judge_footprint_report(r, leasing=None)
    S.verdict((ok, f"spill=defer lusearch-jvm: {msg}"), r.out)
    print("== adoption: SHARDSWEEP_ADOPT=headroom (the default: a lease sized by the heap's room left), =lease (a"
          " page's worth of an abandoned block's cells) and =block (the whole block)")
    for adopt in ("lease", "block", "headroom"):
        for w in ("lusearch", "fragger", "lusearch-jvm"):
            S.run(f"ss64k adopt={adopt} t8 {w}", [ss64, *small(8, 16, w, "--verify")],
                  {"SHARDSWEEP_ADOPT": adopt, "SHARDSWEEP_CHECK_ACCOUNTING": 1, "SHARDSWEEP_CHECK_RECLAIM": 1})
    S.run("ss64k adopt=lease lazy t8 lusearch", [ss64, *small(8, 16, "lusearch", "--verify")],
          {"SHARDSWEEP_ADOPT": "lease", "SHARDSWEEP_SWEEP": "lazy", "SHARDSWEEP_CHECK_ACCOUNTING": 1})
    S.run("ss64k adopt=lease stress t4 lusearch", [ss64, *small(4, 16, "lusearch", "--verify")],
          {"SHARDSWEEP_ADOPT": "lease", "MMTK_STRESS_FACTOR": 262144, "SHARDSWEEP_CHECK_ACCOUNTING": 1})
    r = S.execute([ss64, *small(8, 16, "lusearch-jvm")], {"SHARDSWEEP_ADOPT": "lease", "SHARDSWEEP_REPORT_FOOTPRINT": 1}, timeout=120)
    ok, msg = judge_footprint_report(r, leasing=True, large_objects=True)
    S.verdict((ok, f"adopt=lease lusearch-jvm: {msg}"), r.out)
    r = S.execute([ss64, *small(8, 16, "lusearch-jvm")], {"SHARDSWEEP_ADOPT": "block", "SHARDSWEEP_REPORT_FOOTPRINT": 1}, timeout=120)
    ok, msg = judge_footprint_report(r, leasing=True, large_objects=True)  # a current block's list is a lease
    S.verdict((ok, f"adopt=block lusearch-jvm: {msg}"), r.out)
    S.run("ss64k adopt=headroom lazy t8 lusearch", [ss64, *small(8, 16, "lusearch", "--verify")],
          {"SHARDSWEEP_ADOPT": "headroom", "SHARDSWEEP_SWEEP": "lazy", "SHARDSWEEP_CHECK_ACCOUNTING": 1})
    S.run("ss64k adopt=headroom stress t4 lusearch", [ss64, *small(4, 16, "lusearch", "--verify")],
          {"SHARDSWEEP_ADOPT": "headroom", "MMTK_STRESS_FACTOR": 262144, "SHARDSWEEP_CHECK_ACCOUNTING": 1})
    # A tight heap (16 MiB, 8 threads: the room's share per mutator and class falls below a block
    # near each GC) must lease.
    r = S.execute([ss64, *small(8, 16, "lusearch-jvm")], {"SHARDSWEEP_ADOPT": "headroom", "SHARDSWEEP_REPORT_FOOTPRINT": 1},
                  timeout=120)
    ok, msg = judge_footprint_report(r, leasing=True, large_objects=True)
    S.verdict((ok, f"adopt=headroom lusearch-jvm: {msg}"), r.out)
    print("== lending holes: SHARDSWEEP_HOLES=1024 (runs of free small cells lent to larger requests)")
    for w in ("lusearch", "fragger", "lusearch-jvm"):
        S.run(f"ss64k holes=1024 t8 {w}", [ss64, *small(8, 16, w, "--verify")],
              {"SHARDSWEEP_HOLES": 1024, "SHARDSWEEP_CHECK_ACCOUNTING": 1})
    r = S.execute([ss64, *small(8, 16, "lusearch-jvm")], {"SHARDSWEEP_HOLES": 1024, "SHARDSWEEP_REPORT_FOOTPRINT": 1}, timeout=120)
    ok, msg = judge_footprint_report(r, lending=True, leasing=None)
    S.verdict((ok, f"holes=1024 lusearch-jvm: {msg}"), r.out)
    r = S.execute([ss64, *MS, "lusearch"], {"SHARDSWEEP_HOLES": 1024, "SHARDSWEEP_SWEEP": "lazy"}, timeout=60, stderr_only=True)
    S.verdict(judge_invalid("SHARDSWEEP_HOLES=1024", "valid values with SHARDSWEEP_SWEEP=lazy: 0", r.rc, r.out), r.out)
    S.run("ss64k reuse=densest lazy t8 lusearch", [ss64, *small(8, 16, "lusearch", "--verify")],
          {"SHARDSWEEP_REUSE": "densest", "SHARDSWEEP_SWEEP": "lazy", "SHARDSWEEP_CHECK_ACCOUNTING": 1})
    r = S.execute([ss64, *small(8, 16, "lusearch")], {"SHARDSWEEP_REPORT_MUTATORS": 1}, timeout=120)
    S.verdict(judge_mutator_report(r), r.out)
    for sweep_mode in ("eager", "lazy"):
        r = S.execute([ss64, *small(8, 16, "lusearch")], {"SHARDSWEEP_REPORT_FOOTPRINT": 1, "SHARDSWEEP_SWEEP": sweep_mode}, timeout=120)
        ok, msg = judge_footprint_report(r, leasing=None)
        S.verdict((ok, f"{sweep_mode}: {msg}"), r.out)

    if a.full:
        print("== vo_bit build")
        for acc in accounting:
            S.run(f"ss64k vo_bit {acc} t8 lusearch", [vob, *small(8, 16, "lusearch", "--verify")], {"SHARDSWEEP_ACCOUNTING": acc})
        r = S.execute([vob, *MS, "lusearch"], {"SHARDSWEEP_SWEEP": "lazy"}, timeout=60)
        S.verdict(("incompatible with the mmtk feature vo_bit" in r.out, "vo_bit refuses SHARDSWEEP_SWEEP=lazy"), r.out)

    print("== post-GC footprint: fragger t8, 16 MiB (page charging vs whole blocks vs stock)")
    # Each block is charged exactly for its header page and the pages of its live cells (checked per
    # block at every GC by the reclaim check); here we also compare the totals.
    # Page charging with SHARDSWEEP_PURGE=now: the default keeps idle pages (resident, counted) after
    # a GC for reuse, up to half the free room, so its post-GC count says how much the purge policy
    # keeps, not what page charging needs; "now" drops them at the sweep.
    pg = S.run("footprint ss64k page fragger", [ss64, *small(8, 16, "fragger")],
               {"SHARDSWEEP_PURGE": "now", "SHARDSWEEP_ACCOUNTING": "page"})
    bl = pg and S.run("footprint ss64k block fragger", [ss64, *small(8, 16, "fragger")], {"SHARDSWEEP_ACCOUNTING": "block"})
    st = bl and S.run("footprint stock fragger", [stock, *small(8, 16, "fragger")], checks=False)
    if st:
        notes, results = judge_footprint(pg, bl)
        notes.append("(synthvm peak_used_pages, which also samples before the end of the run without a GC: "
                     f"page {pg.json.get('peak_used_pages')}, block {bl.json.get('peak_used_pages')}, "
                     f"stock {st.json.get('peak_used_pages')})")
        for n in notes:
            print("     " + n)
        for res in results:
            S.verdict(res)

    print("== final GC of a mostly dead heap: workloads/mostly-dead.wl t8, 32 MiB, --final-gc (page vs whole blocks vs stock)")
    md = str(VM / "workloads" / "mostly-dead.wl")
    pg = S.run("final-gc ss64k page mostly-dead t8", [ss64, *small(8, 32, md, "--verify", "--final-gc")],
               {"SHARDSWEEP_ACCOUNTING": "page"})
    bl = pg and S.run("final-gc ss64k block mostly-dead t8", [ss64, *small(8, 32, md, "--verify", "--final-gc")],
                      {"SHARDSWEEP_ACCOUNTING": "block"})
    st = bl and S.run("final-gc stock mostly-dead t8", [stock, *small(8, 32, md, "--verify", "--final-gc")], checks=False)
    if st:
        notes, results = judge_final_gc(pg, bl, st)
        for n in notes:
            print("     " + n)
        for res in results:
            S.verdict(res)

    check_out_of_memory(S, ss64, MS, bin_of, blocks, a.full)

    print("== invalid settings are refused clearly: one line on stderr naming the valid values, exit 2")
    # RUST_BACKTRACE=1 must not add a backtrace (no panic); aliases (pages, madv_free...) are refused.
    for var_value, msg in [
            ("SHARDSWEEP_ACCOUNTING=bogus", "valid values are page, block"),
            ("SHARDSWEEP_ACCOUNTING=pages", "valid values are page, block"),
            ("SHARDSWEEP_SWEEP=bogus", "valid values are eager, lazy"),
            ("SHARDSWEEP_ABANDON_IDLE=maybe", "valid values are 0, 1"), ("SHARDSWEEP_ABANDON_ALL=some", "valid values are 0, 1"),
            ("SHARDSWEEP_PURGE=later", "valid values are gc, now, pressure"),
            ("SHARDSWEEP_CHECK_RECLAIM=2", "valid values are 0, 1"),
            ("SHARDSWEEP_DECAY=soon", "valid values are 0 (off) to 1000000"),
            ("SHARDSWEEP_ADVICE=often", "valid values are dontneed, free, keep"),
            ("SHARDSWEEP_ADVICE=madv_free", "valid values are dontneed, free, keep"),
            ("SHARDSWEEP_ZERO=vm", "valid values are space, binding, poison"),
            ("SHARDSWEEP_REUSE=random", "valid values are address, densest, sparsest"),
            ("SHARDSWEEP_HOLES=100", "valid values are 0 (off) or 256 to 65536 bytes"),
            ("SHARDSWEEP_SPILL=ahead", "valid values are charge, defer"),
            ("SHARDSWEEP_ADOPT=page", "valid values are block, lease, headroom"),
            ("SHARDSWEEP_LISTING_PAGES=0", "valid values are 1 to 16 (the pages of a block)"), ("SHARDSWEEP_EXTENSION_PAGES=17", "valid values are 1 to 16 (the pages of a block)"),
            ("SHARDSWEEP_POLL_PAGES=0", "valid values are 1 to 64"), ("SHARDSWEEP_POLL_PAGES=65", "valid values are 1 to 64"),
            ("SHARDSWEEP_IDLE_CAP=101", "valid values are off, or 0 to 100 (percent of the heap)"),
            ("SHARDSWEEP_IDLE_CAP=12", "valid values with SHARDSWEEP_COUNT=resident: off"),
            ("SHARDSWEEP_IDLE_MARGIN=101", "valid values are 0 to 100 (percent of the heap)"),
            ("SHARDSWEEP_IDLE_MARGIN_ROOM=101", "valid values are 0 to 100 (percent of the heap a GC leaves free)"),
            # Build-time settings at run time (ss64's build: 64 KiB blocks, the block's largest
            # object): another value than the build's is refused, naming the build's.
            ("SHARDSWEEP_BLOCK_KIB=4", "this build has 64 KiB blocks (valid at run time: 64, or unset)"),
            # A misspelt name is refused, not left unseen.
            ("SHARDSWEEP_ACOUNTING=block", "not a setting of the space; its settings are SHARDSWEEP_ACCOUNTING, "),
            ("SHARDSWEEP_MAX_OBJECT_BYTES=512", "this build serves objects up to 8192 bytes (valid at run time: 8192, or unset)")]:
        var, value = var_value.split("=", 1)
        r = S.execute([ss64, *MS, "lusearch"], {"RUST_BACKTRACE": 1, var: value}, timeout=60, stderr_only=True)
        S.verdict(judge_invalid(var_value, msg, r.rc, r.out), r.out)

    print("== a margin by room without a margin is refused")
    r = S.execute([ss64, *MS, "lusearch"], {"SHARDSWEEP_IDLE_MARGIN": 0, "SHARDSWEEP_IDLE_MARGIN_ROOM": 50}, timeout=60, stderr_only=True)
    S.verdict(judge_invalid("SHARDSWEEP_IDLE_MARGIN_ROOM=50", "with SHARDSWEEP_IDLE_MARGIN=0 or SHARDSWEEP_COUNT=in-use: 0", r.rc, r.out), r.out)

    print("== a build-time setting at run time with the build's own value is accepted")
    r = S.execute([ss64, *MS, "--size", "small", "lusearch"], {"SHARDSWEEP_BLOCK_KIB": "64", "SHARDSWEEP_MAX_OBJECT_BYTES": "8192"}, timeout=120)
    S.verdict((r.rc == 0, f"SHARDSWEEP_BLOCK_KIB=64 SHARDSWEEP_MAX_OBJECT_BYTES=8192 with ss64: rc={r.rc}"), r.out)

    print("== a setting given to a run that ignores it is reported once on stderr")
    for name, b, plan, msg in [("stock MarkSweep", stock, "MarkSweep", "no shardsweep space"),
                               ("ss64k MarkCompact", ss64, "MarkCompact", "does not use the shardsweep space")]:
        r = S.execute([b, "--plan", plan, "--size", "small", "lusearch"], {"SHARDSWEEP_ACCOUNTING": "block"}, timeout=120)
        S.verdict(judge_ignored(name, msg, r), r.out)

    print("== combinations the space refuses fail the build, naming the features (cargo check)")
    # marksweep_as_nonmoving (native_ms as other plans' non-moving space) is refused, not supported
    # (policy/mod.rs); malloc_mark_sweep selects another MarkSweep space. synthvm's Cargo.lock is
    # restored afterwards (cargo rewrites it for the patched source).
    for feat, msg in [("marksweep_as_nonmoving", "does not support `marksweep_as_nonmoving`"),
                      ("malloc_mark_sweep", "`shardsweep` and `malloc_mark_sweep` both select")]:
        lock = VM / "Cargo.lock"
        saved = lock.read_bytes() if lock.exists() else None
        try:
            r = S.execute(["cargo", "check", "--quiet", "--config", f'patch.crates-io.mmtk.path="{COPY}"',
                           "--target-dir", ROOT / ".build" / "pol-refused", "--features", f"mmtk/shardsweep,mmtk/{feat}"],
                          cwd=VM, timeout=None)
        finally:
            if saved is not None:
                lock.write_bytes(saved)
        S.verdict(judge_refused_feature(feat, msg, r.rc, r.out), r.out)

    print(f"{S.passed} passed, {S.failed} failed ({int(time.monotonic() - t_start)} s)")
    return 1 if S.failed else 0


if __name__ == "__main__":
    sys.exit(main())

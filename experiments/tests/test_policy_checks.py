#!/usr/bin/env python3
"""Unit tests of the policy tests' parsing and judgements (scripts/policy_checks.py, and
scripts/policy_reports.py through it) on made-up outputs (no synthvm): each check passes on a good
output and fails on a bad one."""
import json
import re
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import policy_checks as pc  # noqa: E402


def out(gcs=2, acc=None, rec=None, passed=True, extra="", **js):
    """A synthvm output: check lines, PASSED, its JSON line."""
    acc = gcs if acc is None else acc
    rec = gcs if rec is None else rec
    lines = [f"shardsweep-check accounting gc={i} ok used_pages=10 resident=8 meta=3 blocks=4 committed_blocks=9 spare=0 kept=0"
             for i in range(acc)]
    lines += [f"shardsweep-check reclaim gc={i} ok mode=page sweep=eager blocks=4 unswept=0 charged={10 + i} live_cells=5 "
              f"bound_live=20 block_pages=64 space_used_pages={30 + i} waste_pages=1/2/3" for i in range(rec)]
    if passed:
        lines.append("===== synthvm lusearch PASSED in 5 msec =====")
    lines.append(json.dumps({"synthvm": dict({"status": "PASSED" if passed else "FAILED", "gc_count": gcs}, **js)}))
    return "\n".join(lines + [extra])


class Parsing(unittest.TestCase):
    def test_json_and_fields(self):
        r = pc.Run(0, out(gcs=3, peak_used_pages=7))
        self.assertEqual(r.json["gc_count"], 3)
        self.assertEqual(pc.synthvm_json("no json"), {})
        f = pc.fields(pc.check_lines(r.out, "accounting")[-1])
        self.assertEqual((f["blocks"], f["committed_blocks"], f["meta"]), ("4", "9", "3"))  # whole keys only
        self.assertEqual(len(pc.check_lines(r.out, "reclaim")), 3)


class Run(unittest.TestCase):
    def test_pass(self):
        self.assertEqual(pc.judge_run("x", pc.Run(0, out(gcs=2))), (True, "x (2 GCs checked)"))
        self.assertTrue(pc.judge_run("x", pc.Run(0, out(gcs=2, acc=0, rec=0)), checks=False)[0])

    def test_fail(self):
        self.assertFalse(pc.judge_run("x", pc.Run(1, out()))[0])               # exit code
        self.assertFalse(pc.judge_run("x", pc.Run(0, out(passed=False)))[0])   # no PASSED
        self.assertFalse(pc.judge_run("x", pc.Run(0, out(gcs=3, acc=2)))[0])   # a GC without an accounting check
        self.assertFalse(pc.judge_run("x", pc.Run(0, out(gcs=3, rec=4)))[0])   # reclaim lines != GCs
        self.assertFalse(pc.judge_run("x", pc.Run(0, "PASSED"))[0])            # no JSON


class LosDrop(unittest.TestCase):
    @staticmethod
    def run_with(*values):
        lines = [f"shardsweep-check reclaim gc={i + 1} ok mode=page los_free_resident={v}" for i, v in enumerate(values)]
        return pc.Run(0, "\n".join(lines))

    def test_dropped(self):
        self.assertTrue(pc.judge_los_drop("x", self.run_with("-", 0, 0))[0])

    def test_not_dropped_or_left_resident(self):
        self.assertFalse(pc.judge_los_drop("x", self.run_with("-", "-"))[0])   # no GC dropped
        self.assertFalse(pc.judge_los_drop("x", self.run_with(0, 3))[0])       # pages left resident
        self.assertFalse(pc.judge_los_drop("x", pc.Run(0, "PASSED"))[0])       # no reclaim lines


class ZeroDefault(unittest.TestCase):
    def test_zero_default(self):
        self.assertTrue(pc.judge_zero_default("true", "binding", pc.Run(0, "shardsweep: settings SHARDSWEEP_ZERO=binding X=1"))[0])
        self.assertFalse(pc.judge_zero_default("true", "binding", pc.Run(0, "shardsweep: settings SHARDSWEEP_ZERO=space"))[0])
        self.assertFalse(pc.judge_zero_default("true", "binding", pc.Run(2, "shardsweep: settings SHARDSWEEP_ZERO=binding"))[0])


class Inline(unittest.TestCase):
    def test_inline(self):
        run = lambda n, i: pc.Run(0, out(allocations=n, inline_allocations=i))
        self.assertTrue(pc.judge_inline("x", run(100, 90), True)[0])
        self.assertFalse(pc.judge_inline("x", run(100, 40), True)[0])    # most did not take it
        self.assertTrue(pc.judge_inline("x", run(100, 0), False)[0])
        self.assertFalse(pc.judge_inline("x", run(100, 1), False)[0])    # taken though not offered
        self.assertFalse(pc.judge_inline("x", pc.Run(0, out()), True)[0])  # no counts


MUT = ("shardsweep: mutators: 20 samples, size classes held mean 3.1 max 7, blocks held mean 4.0 max 9 "
       "(not full: mean 1.0 max 2), charged KiB held mean 100 max 200; per GC (2 GCs, summed over its mutators): "
       "mutators 8.0, blocks not full 3.0, charged KiB 10")


class Report(unittest.TestCase):
    def test_mutator_report(self):
        self.assertTrue(pc.judge_mutator_report(pc.Run(0, out(gcs=2, extra=MUT)))[0])
        self.assertFalse(pc.judge_mutator_report(pc.Run(0, out(gcs=3, extra=MUT)))[0])   # per-GC count differs
        self.assertFalse(pc.judge_mutator_report(pc.Run(0, out(gcs=30, extra=MUT)))[0])  # fewer samples than GCs
        self.assertFalse(pc.judge_mutator_report(pc.Run(0, out(gcs=2)))[0])              # no report
        self.assertFalse(pc.judge_mutator_report(pc.Run(1, out(gcs=2, extra=MUT)))[0])


class Footprint(unittest.TestCase):
    def test_footprint(self):
        pg, bl = pc.Run(0, out(gcs=2)), pc.Run(0, out(gcs=2).replace("space_used_pages=3", "space_used_pages=9"))
        notes, res = pc.judge_footprint(pg, bl)
        self.assertEqual([ok for ok, _ in res], [True, True], res)
        # page charging's post-GC use more than half of whole blocks'
        notes, res = pc.judge_footprint(pg, pg)
        self.assertEqual([ok for ok, _ in res], [True, False])
        # charged more than half the blocks' pages
        big = pc.Run(0, out(gcs=2).replace("charged=11", "charged=40"))
        self.assertFalse(pc.judge_footprint(big, bl)[1][0][0])
        # no check lines at all
        self.assertEqual([ok for ok, _ in pc.judge_footprint(pc.Run(0, out(gcs=0)), bl)[1]], [False, False])


def fg(used, live, classes=10, **kw):
    return dict(final_gc=True, final_gc_used_bytes=used, final_gc_live_bytes=live, final_gc_live_classes=classes, **kw)


class FinalGc(unittest.TestCase):
    # page: 10 classes, last reclaim blocks=4 space_used_pages=31, meta=3; used 40 pages:
    # other = 40 - 31 = 9, header 1, bound = (10 + 1 + 3 + 9) pages = 23 pages
    def runs(self, over_pages=20, stock_used=10 * 65536, block_used=10 * 65536):
        live = 100000
        pg = pc.Run(0, out(**fg(40 * 4096, 40 * 4096 - over_pages * 4096)))
        bl = pc.Run(0, out(**fg(block_used, live)))
        st = pc.Run(0, out(**fg(stock_used, live)))
        return pg, bl, st

    def test_good(self):
        notes, res = pc.judge_final_gc(*self.runs())
        self.assertEqual([ok for ok, _ in res], [True, True, True], res)

    def test_page_over_the_bound(self):
        self.assertEqual([ok for ok, _ in pc.judge_final_gc(*self.runs(over_pages=24))[1]][0], False)

    def test_stock_or_block_below_whole_blocks(self):
        res = pc.judge_final_gc(*self.runs(stock_used=4 * 65536))[1]
        self.assertEqual([ok for ok, _ in res], [True, False, True])
        res = pc.judge_final_gc(*self.runs(block_used=4 * 65536))[1]
        self.assertEqual([ok for ok, _ in res], [True, True, False])

    def test_missing_fields_fail(self):
        pg, bl, st = self.runs()
        res = pc.judge_final_gc(pc.Run(0, out()), bl, st)[1]
        self.assertEqual([ok for ok, _ in res], [False, False, False])


class Ends(unittest.TestCase):
    OOMS = "thread 'x': synthvm: Out of memory"

    def test_oom(self):
        self.assertTrue(pc.is_oom(pc.Run(3, self.OOMS)))
        self.assertFalse(pc.is_oom(pc.Run(3, "no message")))
        self.assertFalse(pc.is_oom(pc.Run(124, self.OOMS)))  # the livelock: a timeout

    def test_lowheap(self):
        P, O = pc.Run(0, "PASSED"), pc.Run(3, self.OOMS)
        self.assertTrue(pc.judge_lowheap("ss64k t1 small", 512, [(512, O), (768, P), (1024, P)])[0])
        self.assertFalse(pc.judge_lowheap("l", 512, [(512, P), (768, P)])[0])                     # no OOM
        self.assertFalse(pc.judge_lowheap("l", 512, [(512, O), (768, pc.Run(124, "")), (1024, P), (1280, P)])[0])
        self.assertFalse(pc.judge_lowheap("l", 512, [(512, O), (768, P), (1024, O)])[0])          # no two passes at the end
        ok, msg = pc.judge_lowheap("ss64k t1 small", 512, [(512, O), (768, P), (1024, P)])
        self.assertEqual(msg, "low heaps ss64k t1 small 512K..1024K: 1 out of memory, 2 passed; slowest run 0 ms")

    def test_invalid_setting(self):
        err = "shardsweep: SHARDSWEEP_DECAY=soon: not a number; valid values are 0 (off) to 1000000\n"
        self.assertTrue(pc.judge_invalid("SHARDSWEEP_DECAY=soon", "valid values are 0 (off) to 1000000", 2, err)[0])
        self.assertFalse(pc.judge_invalid("SHARDSWEEP_DECAY=soon", "valid values are 0 (off) to 1000000", 101, err)[0])
        self.assertFalse(pc.judge_invalid("SHARDSWEEP_DECAY=soon", "valid values are 0 (off) to 1000000", 2,
                                          err + "stack backtrace:\n")[0])
        self.assertFalse(pc.judge_invalid("SHARDSWEEP_DECAY=soon", "valid values are 0, 1", 2, err)[0])

    def test_ignored(self):
        line = "shardsweep: ignored SHARDSWEEP_ACCOUNTING=block: this plan has no shardsweep space\n"
        self.assertTrue(pc.judge_ignored("s", "no shardsweep space", pc.Run(0, line))[0])
        self.assertFalse(pc.judge_ignored("s", "no shardsweep space", pc.Run(0, line * 2))[0])
        self.assertFalse(pc.judge_ignored("s", "no shardsweep space", pc.Run(0, ""))[0])

    def test_refused_feature(self):
        o = "error: features `shardsweep` and `malloc_mark_sweep` both select a MarkSweep space"
        self.assertTrue(pc.judge_refused_feature("m", "`shardsweep` and `malloc_mark_sweep` both select", 101, o)[0])
        self.assertFalse(pc.judge_refused_feature("m", "`shardsweep` and `malloc_mark_sweep` both select", 0, o)[0])
        self.assertFalse(pc.judge_refused_feature("m", "`shardsweep` and `malloc_mark_sweep` both select", 101,
                                                  "error: linker failed")[0])



class FootprintReport(unittest.TestCase):
    LINE = ("shardsweep-footprint gc={gc} reported_pages=8 meta_pages=1 kept_pages=1 header=4096 live=8000 "
            "rounding=192 dead=4096 free=0 filling=4096 unlisted=0 tail=0 idle=4096 abandoned_pages=0 free_abandoned=0 "
            "mutators=1 free_by_class=- filling_by_class=32:4096 unlisted_by_class=- charged_by_class=16:2,32:1 "
            "holes_small=512:0,1024:0,2048:0,4096:0,all:64 lent=0 lent_runs=0 lent_unused=0 leased=0 los_pages=5")
    LOS = "shardsweep-footprint-los gc={gc} pages=3 objects=1 bytes=5000 object_pages=2 by_size=4096:1:5000"
    JSON = '{"synthvm":{"status":"PASSED","gc_count":2}}'

    def run_of(self, lines, peak=True, los=None):
        """A run with these footprint lines, each followed by its large-object line (`los`, a
        template with `{gc}`, default `LOS`)."""
        out = []
        for line in lines:
            gc = re.search(r"gc=(\d+)", line).group(1)
            out += [line, (los or self.LOS).format(gc=gc)]
        out = "\n".join(out + (["shardsweep-footprint peak gc=1"] if peak else []) + [self.JSON])
        return pc.Run(0, out)

    def test_large_objects(self):
        two = [self.LINE.format(gc=g) for g in (1, 2)]
        self.assertTrue(pc.judge_footprint_report(self.run_of(two), large_objects=True)[0])
        none = "shardsweep-footprint-los gc={gc} pages=0 objects=0 bytes=0 object_pages=0 by_size=-"
        self.assertTrue(pc.judge_footprint_report(self.run_of(two, los=none))[0])
        self.assertFalse(pc.judge_footprint_report(self.run_of(two, los=none), large_objects=True)[0],
                         "no large object, yet asked for")
        for bad in (self.LOS.replace("by_size=4096:1:5000", "by_size=4096:1:4999"),   # bins do not sum
                    self.LOS.replace("object_pages=2", "object_pages=1"),             # 5000 B on one page
                    self.LOS.replace("object_pages=2", "object_pages=3"),             # a page too many for one object
                    self.LOS.replace("pages=3 ", "pages=6 "),                         # more after the sweep than before
                    self.LOS.replace("gc={gc}", "gc=9")):                             # not the same GC
            self.assertFalse(pc.judge_footprint_report(self.run_of(two, los=bad))[0], bad)
        self.assertFalse(pc.judge_footprint_report(pc.Run(0, "\n".join(two + ["shardsweep-footprint peak gc=1", self.JSON])))[0],
                         "no large-object lines")

    def test_parts_that_add_up_pass(self):
        ok, _ = pc.judge_footprint_report(self.run_of([self.LINE.format(gc=1), self.LINE.format(gc=2)]))
        self.assertTrue(ok)

    def test_a_part_off_by_one_page_fails(self):
        bad = self.LINE.format(gc=2).replace("idle=4096", "idle=8192")
        ok, msg = pc.judge_footprint_report(self.run_of([self.LINE.format(gc=1), bad]))
        self.assertFalse(ok, msg)

    def test_abandoned_free_beyond_free_fails(self):
        bad = self.LINE.format(gc=2).replace("free_abandoned=0", "free_abandoned=16")
        self.assertFalse(pc.judge_footprint_report(self.run_of([self.LINE.format(gc=1), bad]))[0])
        bad = self.LINE.format(gc=2).replace("charged_by_class=16:2,32:1", "charged_by_class=16")
        self.assertFalse(pc.judge_footprint_report(self.run_of([self.LINE.format(gc=1), bad]))[0])

    def test_in_use_count_leaves_idle_and_kept_out(self):
        line = self.LINE.replace("gc={gc} ", "gc={gc} count=in-use ").replace("reported_pages=8", "reported_pages=6")
        self.assertTrue(pc.judge_footprint_report(self.run_of([line.format(gc=1), line.format(gc=2)]))[0])
        self.assertFalse(pc.judge_footprint_report(self.run_of([self.LINE.replace("reported_pages=8", "reported_pages=6")
                                                                .format(gc=g) for g in (1, 2)]))[0])

    def test_lent_fields(self):
        lent = self.LINE.replace("lent=0 lent_runs=0 lent_unused=0", "lent=4096 lent_runs=2 lent_unused=1024")
        two = [lent.format(gc=1), lent.format(gc=2)]
        self.assertTrue(pc.judge_footprint_report(self.run_of(two), lending=True)[0])
        self.assertFalse(pc.judge_footprint_report(self.run_of(two))[0], "lent bytes with lending off")
        self.assertFalse(pc.judge_footprint_report(
            self.run_of([self.LINE.format(gc=g) for g in (1, 2)]), lending=True)[0], "lending on, nothing lent")
        over = lent.replace("lent_unused=1024", "lent_unused=8192")
        self.assertFalse(pc.judge_footprint_report(self.run_of([over.format(gc=1), over.format(gc=2)]), lending=True)[0])
        gone = self.LINE.replace(" lent_unused=0", "")
        self.assertFalse(pc.judge_footprint_report(self.run_of([gone.format(gc=1), gone.format(gc=2)]))[0])

    def test_leased_field(self):
        leased = self.LINE.replace("leased=0", "leased=1024")
        two = [leased.format(gc=1), leased.format(gc=2)]
        self.assertTrue(pc.judge_footprint_report(self.run_of(two), leasing=True)[0])
        self.assertFalse(pc.judge_footprint_report(self.run_of(two))[0], "leased bytes with leasing off")
        self.assertFalse(pc.judge_footprint_report(
            self.run_of([self.LINE.format(gc=g) for g in (1, 2)]), leasing=True)[0], "leasing on, nothing leased")
        may = [self.LINE.format(gc=g) for g in (1, 2)]  # the default adoption: leasing or not
        self.assertTrue(pc.judge_footprint_report(self.run_of(two), leasing=None)[0])
        self.assertTrue(pc.judge_footprint_report(self.run_of(may), leasing=None)[0])
        over = self.LINE.replace("leased=0", "leased=8192")  # more than dead=4096
        self.assertFalse(pc.judge_footprint_report(self.run_of([over.format(gc=1), over.format(gc=2)]), leasing=None)[0])
        self.assertFalse(pc.judge_footprint_report(self.run_of([over.format(gc=1), over.format(gc=2)]), leasing=True)[0])
        gone = self.LINE.replace(" leased=0", "")
        self.assertFalse(pc.judge_footprint_report(self.run_of([gone.format(gc=1), gone.format(gc=2)]))[0])

    def test_a_missing_gc_or_peak_fails(self):
        self.assertFalse(pc.judge_footprint_report(self.run_of([self.LINE.format(gc=1)]))[0])
        self.assertFalse(pc.judge_footprint_report(
            self.run_of([self.LINE.format(gc=1), self.LINE.format(gc=2)], peak=False))[0])


class UnclearingBinding(unittest.TestCase):
    def test_caught_only_as_a_clean_failure(self):
        good = pc.Run(1, "synthvm: FAILED: lusearch: object 0xdbdbdbdbdbdbdbdb is not 8-byte aligned")
        self.assertTrue(pc.judge_unclearing_binding(good)[0])
        self.assertFalse(pc.judge_unclearing_binding(pc.Run(139, ""))[0], "a crash is not a catch")
        self.assertFalse(pc.judge_unclearing_binding(pc.Run(0, "PASSED"))[0], "a pass is not a catch")


if __name__ == "__main__":
    unittest.main()

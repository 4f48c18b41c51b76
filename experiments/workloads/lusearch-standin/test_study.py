#!/usr/bin/env python3
"""Unit tests of study.py's plans, study_report.py's summaries and workloads.py (no JVM): run by
scripts/openjdk-standin-test.sh, or `python3 -m unittest test_study` here."""
import contextlib
import io
import itertools
import sys
import tempfile
import unittest
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import study  # noqa: E402
import study_report  # noqa: E402
import workloads  # noqa: E402


class InterleavedPlan(unittest.TestCase):
    LABELS = list(study.FACTOR_LABELS)
    FACTORS = [1.5, 2.0, 3.0, 4.0, 6.0]

    def test_every_round_runs_every_cell_once(self):
        plan = study.interleaved_plan(self.LABELS, self.FACTORS, 5)
        self.assertEqual(len(plan), 5 * len(self.LABELS) * len(self.FACTORS))
        for r in range(5):
            cells = [(l, f) for rr, l, f in plan if rr == r]
            self.assertEqual(sorted(cells), sorted(itertools.product(self.LABELS, self.FACTORS)))
        self.assertEqual([r for r, _, _ in plan], sorted(r for r, _, _ in plan))  # rounds in order

    def test_consecutive_runs_alternate_configurations(self):
        plan = study.interleaved_plan(self.LABELS, self.FACTORS, 3)
        for (_, l1, f1), (_, l2, f2) in zip(plan, plan[1:]):
            if f1 == f2:
                self.assertNotEqual(l1, l2)

    def test_each_configuration_takes_each_place_in_a_factor_block(self):
        n = len(self.LABELS)
        plan = study.interleaved_plan(self.LABELS, self.FACTORS, n)
        places = Counter()
        for r in range(n):
            block = [l for rr, l, f in plan if rr == r and f == 2.0]
            places.update((l, i) for i, l in enumerate(block))
        self.assertEqual(set(places.values()), {1})
        self.assertEqual(len(places), n * n)

    def test_the_first_run_of_a_round_changes(self):
        plan = study.interleaved_plan(self.LABELS, self.FACTORS, 5)
        firsts = [next((l, f) for rr, l, f in plan if rr == r) for r in range(5)]
        self.assertEqual(len(set(firsts)), 5)


class Heaps(unittest.TestCase):
    def test_factor_heaps_are_multiples_of_markcompacts_minimum(self):
        h = study.factor_heaps(22.5, [1.5, 2, 3, 4, 6])
        self.assertEqual(h, {1.5: 33.75, 2: 45.0, 3: 67.5, 4: 90.0, 6: 135.0})
        self.assertEqual(study.factor_heaps(7.3, [1.5])[1.5] * 1024, round(1.5 * 7.3 * 1024))  # whole KiB

    def test_markcompact_is_measured_where_the_time_phases_need_it(self):
        a = study.parser().parse_args(["--out", "/tmp/x", "--threads", "1 12 24", "--time-threads", "8 24",
                                       "--factor-threads", "6"])
        a.threads = [1, 12, 24]
        a.time_threads = [8, 24]
        self.assertEqual(study.minheap_threads(a, "markcompact"), [1, 6, 8, 12, 24])
        self.assertEqual(study.minheap_threads(a, "ss64-page"), [1, 12, 24])


class GdbOutcome(unittest.TestCase):
    """`--phase gccount`: a run under gdb is classified as every phase classifies runs."""
    BP = (b"Num     Type           Disp Enb Address            What\n"
          b"2       breakpoint     keep y   0x00007f0000001234 <gc_start>\n"
          b"\tbreakpoint already hit 706 times\n")

    def test_pass_with_its_gc_count(self):
        out = b"===== xalan-standin default PASSED in 9357 msec =====\n" + self.BP
        self.assertEqual(study.gdb_outcome(out), ("pass", "706"))

    def test_out_of_memory_reported_on_stderr_is_oom_not_error(self):
        # The JVM's stderr is merged into what gdb_outcome reads; MMTk's own line is enough.
        out = (b"[2026-11-26T00:40:00Z ERROR mmtk_openjdk] Out of memory with HeapOutOfMemory!\n"
               b"===== xalan-standin default FAILED (out of memory) =====\n" + self.BP)
        self.assertEqual(study.gdb_outcome(out)[0], "oom")

    def test_a_crash_is_an_error_and_no_breakpoint_line_no_count(self):
        self.assertEqual(study.gdb_outcome(b"# A fatal error has been detected\nSIGSEGV\n"), ("error", ""))


def row(label, factor, wall, outcome="pass"):
    return {"label": label, "factor": f"{factor:g}", "wall_s": str(wall), "outcome": outcome}


class FactorSummary(unittest.TestCase):
    def test_normalised_to_the_reference_at_the_largest_factor(self):
        rows = [row("stock-ms", 6, 10), row("stock-ms", 6, 12), row("stock-ms", 6, 11),
                row("stock-ms", 2, 20), row("ss64-page", 2, 15), row("ss64-page", 2, 17),
                row("ss64-page", 1.5, 0, "oom")]
        ref, norm, cells = study_report.factor_summary(rows, "stock-ms")
        self.assertEqual((ref, norm), ("stock-ms", 11))
        c = cells[("ss64-page", 2.0)]
        self.assertEqual((c["median"], c["min"], c["max"], c["runs"]), (16, 15, 17, 2))
        self.assertIsNone(cells[("ss64-page", 1.5)]["median"])
        self.assertEqual(cells[("ss64-page", 1.5)]["outcomes"], {"oom"})

    def test_reference_falls_back_when_it_never_passed(self):
        rows = [row("stock-ms", 6, 0, "oom"), row("immix", 6, 8), row("ss4-page", 6, 9)]
        ref, norm, _ = study_report.factor_summary(rows, "stock-ms")
        self.assertEqual((ref, norm), ("immix", 8))
        self.assertEqual(study_report.factor_summary([row("immix", 2, 0, "oom")], "immix")[:2], (None, None))


class PairedRatios(unittest.TestCase):
    def test_one_ratio_per_round_where_both_passed(self):
        rows = [dict(row("ss64-page", 2, w), round=str(k)) for k, w in enumerate([9, 20, 11])] + \
               [dict(row("ss4-page", 2, w), round=str(k)) for k, w in enumerate([10, 10, 0])]
        rows[-1]["outcome"] = "oom"
        rows.append(dict(row("ss4-page", 3, 5), round="0"))
        self.assertEqual(study_report.paired_ratios(rows, "ss64-page", "ss4-page", 2), [0.9, 2.0])
        self.assertEqual(study_report.paired_ratios(rows, "ss64-page", "ss4-page", 3), [])


class Cli(unittest.TestCase):
    def parse(self, *argv):
        p = study.parser()
        a = p.parse_args(list(argv) + ["--out", "/tmp/x"])
        return study.parse_jdks(a, p)

    def test_jdk_per_build_label_and_the_old_aliases(self):
        im = self.parse("--jdk", "stock=/j/stock", "--jdk", "ss256=/j/ss256", "--ss64", "/j/ss64")
        self.assertEqual(im["stock"], "/j/stock")
        self.assertEqual(im["ss256"], "/j/ss256")
        self.assertEqual(im["ss64"], "/j/ss64")
        self.assertIsNone(im["ss16"])

    def test_a_bad_jdk_is_one_line_and_exit_2(self):
        for bad in ("ss8=/x", "stock"):
            err = io.StringIO()
            with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as e:
                self.parse("--jdk", bad)
            self.assertEqual(e.exception.code, 2)
            self.assertEqual(len(err.getvalue().strip().splitlines()), 1)

    def test_default_configurations_of_each_phase(self):
        p = study.parser()
        self.assertEqual([c[0] for c in study.select(p, None, study.MINHEAP_LABELS, "--configs")],
                         ["stock-ms", "markcompact", "immix", "semispace", "ss64-page", "ss64-block", "ss4-page"])
        cfg = {c[0]: c for c in study.select(p, None, study.FACTOR_LABELS, "--factor-configs")}
        self.assertEqual(sorted(cfg), sorted(["ss4-page", "ss16-page", "ss64-page", "ss256-page", "ss64-block",
                                              "stock-ms", "immix"]))
        self.assertEqual(cfg["ss64-block"][2], {"MMTK_PLAN": "MarkSweep", "SHARDSWEEP_ACCOUNTING": "block"})
        self.assertEqual(cfg["ss256-page"][1], "ss256")

    def test_plan_only_runs_nothing_and_shows_every_factor_cell(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = study.main(["--workload", "h2", "--plan-only", "--phase", "factors", "--jdk", "stock=/j/stock",
                             "--jdk", "ss4=/j/ss4", "--jdk", "ss16=/j/ss16", "--jdk", "ss64=/j/ss64",
                             "--jdk", "ss256=/j/ss256", "--out", "/nonexistent/plan", "--invocations", "5",
                             "--assume-mc-minheap", "40"])
        self.assertEqual(rc, 0)
        runs = [l for l in out.getvalue().splitlines() if l.startswith("  round ")]
        self.assertEqual(len(runs), 5 * 5 * 7)
        self.assertTrue(all(" -t 8 h2" in l and "-XX:+UseThirdPartyHeap" in l for l in runs))
        self.assertEqual(sum("-Xmx61440k" in l for l in runs), 5 * 7)  # 1.5 x 40 MiB
        self.assertFalse(Path("/nonexistent/plan").exists())

    def test_plan_only_minheap_per_workload(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            study.main(["--workload", "h2,xalan", "--plan-only", "--phase", "minheap", "--stock", "/j/stock",
                        "--ss64", "/j/ss64", "--ss4", "/j/ss4", "--out", "/nonexistent/plan"])
        lines = [l for l in out.getvalue().splitlines() if "minheap.py" in l]
        self.assertEqual(len(lines), 2 * len(study.MINHEAP_LABELS))
        h2 = [l for l in lines if "--workload h2" in l]
        self.assertTrue(all("--guess 48" in l and "--timeout 240" in l and "/nonexistent/plan/h2/minheap/" in l
                            for l in h2), h2)
        mc = [l for l in h2 if "--label markcompact" in l]
        self.assertIn("--threads '1 8 12 24 36 48'", mc[0])  # also at the time and factors threads


class Report(unittest.TestCase):
    def test_report_of_markcompact_alone(self):
        # The factors study measures only MarkCompact's minimum heap: the report must not need
        # stock MarkSweep's.
        with tempfile.TemporaryDirectory() as d:
            mc = Path(d) / "minheap" / "markcompact"
            mc.mkdir(parents=True)
            (mc / "minheap.csv").write_text(
                "workload,label,java,jvm_args,env,size,iterations,threads,minheap_mib,status,probes,"
                "resolution_mib,digest,timestamp,detail,peak_rss_kib,space_peak_resident_kib\n"
                "lusearch,markcompact,/j/bin/java,-XX:+UseThirdPartyHeap,MMTK_PLAN=MarkCompact,default,2,8,"
                "9.5,ok,8,0.5,66efc1e4129cbeb2,2026-11-25T14:59:31Z,,676064,\n")
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = study.main(["--phase", "report", "--configs", "markcompact", "--threads", "8", "--out", d])
            self.assertEqual(rc, 0)
            self.assertIn("| 8 | 9.5 (660) |", out.getvalue())
            self.assertTrue((Path(d) / "README.md").exists())


class Workloads(unittest.TestCase):
    def test_command_lines(self):
        self.assertEqual(workloads.program_args("h2", "small", 2, 4), ["-s", "small", "-n", "2", "-t", "4", "h2"])
        self.assertEqual(workloads.program_args("xalan", "default", 3, 8)[-1], "xalan")
        lu = workloads.program_args("lusearch", "default", 3, 8)
        self.assertEqual(lu[-3:], ["--index", str(workloads.index_dir("default")), "lusearch"])
        self.assertTrue(str(workloads.jar("h2")).endswith("h2-standin/target/h2-standin.jar"))
        with self.assertRaises(ValueError):
            workloads.jar("derby")

    def test_passed_line_of_every_standin(self):
        for w in workloads.NAMES:
            m = workloads.PASSED.search(f"x\n===== {w}-standin small PASSED in 812 msec =====\n".encode())
            self.assertEqual(m.group(1), b"812")
        self.assertIsNone(workloads.PASSED.search(b"===== h2-standin small FAILED (out of memory) =====\n"))


if __name__ == "__main__":
    unittest.main()

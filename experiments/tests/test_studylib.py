#!/usr/bin/env python3
"""Unit tests of experiments/studylib/heapsearch.py (the slope fit and the minimum-heap search
shared by exp.py and the JVM stand-ins): python3 experiments/tests/test_studylib.py, or
python3 -m unittest discover -s experiments/tests -p 'test_studylib.py'."""
import math
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/
from studylib.heapsearch import (extrapolate_guess, find_minimum, linfit, parse_quorum,  # noqa: E402
                                 quorum_probe, slope)


class Fit(unittest.TestCase):
    def test_exact_line(self):
        f = linfit([1, 12, 24, 48], [8.5, 14, 20, 32])
        self.assertAlmostEqual(f.slope, 0.5)
        self.assertAlmostEqual(f.intercept, 8.0)
        self.assertAlmostEqual(f.r2, 1.0)
        self.assertEqual(tuple(f)[:2], (f[0], f[1]))  # indexable as (slope, intercept, r2)

    def test_noisy_points(self):
        f = linfit([0, 1, 2], [0, 2, 1])
        self.assertAlmostEqual(f.slope, 0.5)
        self.assertAlmostEqual(f.intercept, 0.5)
        self.assertAlmostEqual(f.r2, 0.25)

    def test_too_few_points_or_no_spread(self):
        self.assertIsNone(linfit([], []))
        self.assertIsNone(linfit([3], [4]))
        self.assertIsNone(linfit([3, 3], [4, 5]))
        self.assertIsNone(slope([(3, 4), (3, 5)]))

    def test_flat_line_has_no_r2(self):
        f = linfit([1, 2, 3], [5, 5, 5])
        self.assertEqual(f.slope, 0)
        self.assertTrue(math.isnan(f.r2))

    def test_slope_of_points(self):
        self.assertAlmostEqual(slope([(1, 2), (3, 6), (5, 10)]), 2.0)


class Guess(unittest.TestCase):
    def test_start(self):
        self.assertEqual(extrapolate_guess([], 12, 16), 16.0)

    def test_one_point(self):
        self.assertAlmostEqual(extrapolate_guess([(1, 10)], 12, 16), 10.5)  # exp.py: +5 %
        self.assertAlmostEqual(extrapolate_guess([(1, 10)], 12, 16, growth=0.05, per_thread=True), 15.5)

    def test_line_through_the_last_two_clipped_at_flat(self):
        self.assertAlmostEqual(extrapolate_guess([(0, 99), (1, 10), (12, 21)], 24, 16), 33)
        self.assertAlmostEqual(extrapolate_guess([(1, 10), (12, 8)], 24, 16), 8)


def threshold_probe(minimum, seen):
    def probe(h):
        seen.append(h)
        return h >= minimum - 1e-9
    return probe


class Search(unittest.TestCase):
    def run_search(self, minimum, guess, res=1, lo=1, hi=2048, **kw):
        seen = []
        r = find_minimum(threshold_probe(minimum, seen), guess, res, lo, hi, **kw)
        return r, seen

    def test_exact_minimum_from_any_guess_both_modes(self):
        for res in (0.25, 0.5, 1):
            for mode in ("clamp", "stop"):
                for true_min in (1.5, 3.0, 11.5, 30.0, 74.0):
                    for guess in (1.0, 12.0, 16.0, 29.5, 30.5, 100.0):
                        r, seen = self.run_search(true_min, guess, res, lo=res, above_hi=mode)
                        want = math.ceil(true_min / res) * res
                        self.assertEqual((r.status, r.heap), ("ok", want), (res, mode, true_min, guess, seen))
                        self.assertLessEqual(len(seen), 20)
                        self.assertTrue(all(abs(h / res - round(h / res)) < 1e-9 for h in seen), seen)

    def test_a_close_guess_costs_few_probes(self):
        self.assertLessEqual(len(self.run_search(30, 31)[1]), 5)
        self.assertLessEqual(len(self.run_search(30, 29)[1]), 5)

    def test_passing_at_the_lowest_heap_is_below(self):
        r, seen = self.run_search(0.1, 16, res=1, lo=2)
        self.assertEqual((r.status, r.heap), ("below", 2))
        self.assertEqual(min(seen), 2)

    def test_clamp_probes_the_highest_heap_then_reports_above(self):
        r, seen = self.run_search(1e9, 16, res=1, hi=40, above_hi="clamp")
        self.assertEqual((r.status, r.heap), ("above", 40))
        self.assertEqual(seen, [16, 18, 22, 30, 40])

    def test_stop_never_probes_past_the_highest_heap(self):
        r, seen = self.run_search(1e9, 16, res=1, hi=40, above_hi="stop")
        self.assertEqual((r.status, r.heap), ("above", 30))
        self.assertEqual(seen, [16, 18, 22, 30])

    def test_a_probe_error_ends_the_search(self):
        def probe(h):
            raise RuntimeError("crash")
        with self.assertRaisesRegex(RuntimeError, "crash"):
            find_minimum(probe, 16, 1, 1, 64)

    def test_confirmation_failure_moves_up_one_step(self):
        # the search's probe passes from 10, but confirmation fails at 10 and 11: each failure
        # probes one step up (which passes), then confirms there; the minimum is 12
        confirmed = []

        def confirm(h):
            confirmed.append(h)
            return h >= 12
        r, seen = self.run_search(10, 16, confirm=confirm)
        self.assertEqual((r.status, r.heap), ("ok", 12))
        self.assertEqual(confirmed, [10, 11, 12])
        self.assertEqual(seen[-2:], [11, 12])

    def test_confirmation_failing_to_the_top_is_above(self):
        r, _ = self.run_search(10, 16, hi=12, confirm=lambda h: False)
        self.assertEqual(r.status, "above")
        self.assertEqual(r.heap, 12)

    def test_bad_mode(self):
        with self.assertRaises(ValueError):
            find_minimum(lambda h: True, 16, 1, 1, 64, above_hi="sometimes")


def band_run(minimum, band, log):
    """A run that always passes from minimum + band, never below minimum, and in between passes
    only its first run of every three (1 of 3 by chance, as a pass/fail band)."""
    def run(h, i):
        log.append((h, i))
        if h >= minimum + band:
            return True
        if h < minimum:
            return False
        return i % 3 == 0
    return run


class QuorumTest(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_quorum("2/3"), (2, 3))
        self.assertEqual(parse_quorum(" 1/1 "), (1, 1))
        for bad in ("3/2", "0/1", "2", "a/b", "1/100", ""):
            with self.assertRaisesRegex(ValueError, "valid values are k/n"):
                parse_quorum(bad)

    def test_one_of_one_is_one_run(self):
        log = []
        probe = quorum_probe(band_run(10, 4, log), 1, 1)
        self.assertTrue(probe(11))
        self.assertFalse(probe(9))
        self.assertEqual(log, [(11, 0), (9, 0)])

    def test_stops_as_soon_as_the_answer_is_known(self):
        log = []
        probe = quorum_probe(band_run(10, 4, log), 2, 3)
        self.assertTrue(probe(20))   # two passes: the third run is not needed
        self.assertFalse(probe(5))   # two failures: 2 of 3 is out of reach
        self.assertFalse(probe(12))  # pass, fail, fail
        self.assertEqual(log, [(20, 0), (20, 1), (5, 0), (5, 1), (12, 0), (12, 1), (12, 2)])

    def test_the_band_moves_the_minimum_to_its_top(self):
        # one run per heap: every heap of the band passes its first run, so the search ends at
        # the band's bottom; with 2 of 3 it ends at the band's top
        for (k, n), want in (((1, 1), 10), ((2, 3), 14), ((1, 3), 10)):
            r = find_minimum(quorum_probe(band_run(10, 4, []), k, n), 16, 1, 1, 64)
            self.assertEqual((r.status, r.heap), ("ok", want), (k, n))

    def test_bad_quorum(self):
        with self.assertRaises(ValueError):
            quorum_probe(lambda h, i: True, 3, 2)


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""Unit tests of minheap.py's search and run classification (no JVM): run by
scripts/openjdk-standin-test.sh, or `python3 -m unittest test_minheap` here."""
import sys
import types
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import minheap  # noqa: E402


def fake_study(threshold, resolution=0.5, max_heap=4096.0):
    """A Study whose probe passes iff heap >= threshold(threads), counting probes."""
    s = object.__new__(minheap.Study)
    s.a = types.SimpleNamespace(resolution=resolution, max_heap=max_heap)
    s.probes = []

    def probe(threads, heap):
        s.probes.append((threads, heap))
        return heap >= threshold(threads) - 1e-9
    s.probe = probe
    return s


class Search(unittest.TestCase):
    def check(self, true_min, guess, most):
        s = fake_study(lambda t: true_min)
        self.assertAlmostEqual(s.search(1, guess), true_min)
        self.assertLessEqual(len(s.probes), most, s.probes)
        return s

    def test_exact_minimum_from_any_guess(self):
        for true_min in (0.5, 3.0, 11.5, 30.0, 74.0):
            for guess in (1.0, 12.0, 16.0, 29.5, 30.5, 100.0):
                self.check(true_min, guess, most=20)

    def test_a_close_guess_costs_few_probes(self):
        self.check(30.0, 31.0, most=5)
        self.check(30.0, 29.0, most=5)

    def test_no_pass_up_to_the_maximum_is_an_error(self):
        s = fake_study(lambda t: 1e9, max_heap=64)
        with self.assertRaises(RuntimeError):
            s.search(1, 16)


class Quorum(unittest.TestCase):
    def study(self, quorum):
        """A Study whose runs always pass from 14 MiB, never below 10, and in between pass only
        the first of every three runs at a heap (a pass/fail band); run() is faked."""
        s = object.__new__(minheap.Study)
        s.a = types.SimpleNamespace(resolution=0.5, max_heap=4096.0, quorum=quorum)
        s.digests = set()
        s.runs = []

        def run(threads, heap, attempt, rep=0):
            s.runs.append((heap, rep))
            ok = heap >= 14 or (heap >= 10 and rep % 3 == 0)
            return ("pass" if ok else "oom"), "", []
        s.run = run
        return s

    def test_one_of_one_lands_in_the_band_two_of_three_at_its_top(self):
        self.assertEqual(self.study((1, 1)).search(24, 16.0), 10.0)
        s = self.study((2, 3))
        self.assertEqual(s.search(24, 16.0), 14.0)
        self.assertEqual({rep for _, rep in s.runs}, {0, 1, 2})

    def test_invalid_quorum_is_a_usage_error(self):
        with self.assertRaises(SystemExit) as e:
            minheap.main(["java", "--quorum", "4/3"])
        self.assertEqual(e.exception.code, 2)


class Classify(unittest.TestCase):
    PASS = b"===== lusearch-standin default PASSED in 812 msec =====\n"

    def test_pass(self):
        self.assertEqual(minheap.classify(self.PASS, 0, False), ("pass", ""))

    def test_out_of_memory(self):
        o, _ = minheap.classify(b"java.lang.OutOfMemoryError: Java heap space\n", 3, False)
        self.assertEqual(o, "oom")

    def test_failed_class_initialiser_counts_as_out_of_memory_and_says_so(self):
        out = (b"Exception in thread \"main\" java.lang.NoClassDefFoundError: Could not initialize "
               b"class org.apache.lucene.analysis.standard.StandardTokenizerImpl\n")
        o, detail = minheap.classify(out, 1, False)
        self.assertEqual(o, "oom")
        self.assertIn("class initialiser", detail)
        self.assertIn("StandardTokenizerImpl", detail)

    def test_timeout_and_crash(self):
        self.assertEqual(minheap.classify(b"...", None, True)[0], "timeout")
        self.assertEqual(minheap.classify(b"# SIGSEGV (0xb)\n", 134, False), ("error", "# SIGSEGV (0xb)"))
        self.assertEqual(minheap.classify(self.PASS, 1, False)[0], "error")  # PASSED but exit 1


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""Unit tests of scripts/paired-time.py: the pairing and the ratio, a failed run left out (seconds,
with `sleep` and `false` as the commands; the margins are 4x the difference timed)."""
import contextlib
import importlib.util
import io
import re
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("paired_time", ROOT / "scripts" / "paired-time.py")
pt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pt)


def run(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = pt.main(list(argv))
    return rc, out.getvalue()


class PairedTime(unittest.TestCase):
    def test_the_ratio_is_a_over_b_pair_by_pair(self):
        rc, out = run("-n", "3", "--warmup", "0", "--vs", "sleep 0.4", "--", "sleep", "0.1")
        self.assertEqual(rc, 0)
        self.assertIn("| A | 3 of 3 |", out)
        self.assertIn("| B | 3 of 3 |", out)
        wall = float(re.search(r"A/B paired \(3 pairs\): wall ([0-9.]+)", out).group(1))
        self.assertLess(wall, 0.5, out)    # 0.1 s against 0.4 s: 0.25, and far from 1
        self.assertGreater(wall, 0.1, out)

    def test_a_failed_run_is_counted_and_its_pair_left_out(self):
        rc, out = run("-n", "2", "--warmup", "0", "--vs", "true", "--", "false")
        self.assertEqual(rc, 0)
        self.assertIn("| A | 0 of 2 |", out)
        self.assertIn("A/B paired (0 pairs)", out)

    def test_a_run_over_the_timeout_is_killed(self):
        rc, out = run("-n", "1", "--warmup", "0", "--timeout", "0.2", "--vs", "true", "--", "sleep", "5")
        self.assertIn("| A | 0 of 1 |", out)

    def test_no_command_is_a_usage_error(self):
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(pt.main(["--vs", "true"]), 2)


if __name__ == "__main__":
    unittest.main()

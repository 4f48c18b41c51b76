#!/usr/bin/env python3
"""Unit tests of scripts/check-doc-defaults.py's prose rule: a sentence that calls a value the
default must name the code's default (no synthvm needed: the code's defaults are given)."""
import importlib.util
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("check_doc_defaults", ROOT / "scripts" / "check-doc-defaults.py")
cdd = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cdd)

CODE = {"SHARDSWEEP_ADVICE": "dontneed", "SHARDSWEEP_PURGE": "gc", "SHARDSWEEP_SWEEP": "eager",
        "SHARDSWEEP_ACCOUNTING": "page", "SHARDSWEEP_DECAY": "0", "SHARDSWEEP_ABANDON_IDLE": "1",
        "SHARDSWEEP_ABANDON_ALL": "1", "SHARDSWEEP_CHECK_ACCOUNTING": "0", "SHARDSWEEP_CHECK_RECLAIM": "0",
        "SHARDSWEEP_ZERO": "space", "SHARDSWEEP_COUNT": "resident", "SHARDSWEEP_REUSE": "address", "SHARDSWEEP_HOLES": "0",
        "SHARDSWEEP_SPILL": "charge", "SHARDSWEEP_ADOPT": "headroom", "SHARDSWEEP_IDLE_CAP": "off",
        "SHARDSWEEP_IDLE_MARGIN": "12", "SHARDSWEEP_IDLE_MARGIN_ROOM": "50", "SHARDSWEEP_LISTING_PAGES": "4",
        "SHARDSWEEP_EXTENSION_PAGES": "4", "SHARDSWEEP_POLL_PAGES": "8"}
VALUES = {"SHARDSWEEP_ADVICE": ["dontneed", "free", "keep"], "SHARDSWEEP_PURGE": ["gc", "pressure", "now"],
          "SHARDSWEEP_SWEEP": ["eager", "lazy"], "SHARDSWEEP_ACCOUNTING": ["page", "block"],
          "SHARDSWEEP_ABANDON_IDLE": ["1", "0"], "SHARDSWEEP_ABANDON_ALL": ["1", "0"],
          "SHARDSWEEP_ZERO": ["space", "binding", "poison"], "SHARDSWEEP_COUNT": ["resident", "in-use"],
          "SHARDSWEEP_REUSE": ["address", "densest", "sparsest"], "SHARDSWEEP_SPILL": ["charge", "defer"],
          "SHARDSWEEP_ADOPT": ["headroom", "lease", "block"], "SHARDSWEEP_IDLE_CAP": ["off", "0", "100"]}


def called_default(text):
    return [(var, val) for _, var, val in cdd.prose_defaults(text, CODE, VALUES)]


class Prose(unittest.TestCase):
    def test_wrong_sentences_are_caught(self):
        for text in ["With `dontneed`; `free`, the default\nsince 2026-11-21, cut the mutator time.",
                     "Pages go back with the default advice `free`.",
                     "The default is `free`.",
                     "(2026-11-21: FREE became the\ndefault; later runs measure both.)",
                     "It stays an option; plain MADV_FREE is the default for speed.",
                     "`free` (default) keeps them counted.",
                     "`SHARDSWEEP_ADVICE=free`, the default, is faster.",
                     "MADV_FREE, the new default advice, next to MADV_DONTNEED.",
                     "## Default configuration (deferred purge, `free`)"]:
            self.assertEqual(called_default(text), [("SHARDSWEEP_ADVICE", "free")], text)

    def test_right_sentences_and_the_line(self):
        self.assertEqual(cdd.prose_defaults("x\n\n`dontneed`, the default, drops them.", CODE, VALUES),
                         [(3, "SHARDSWEEP_ADVICE", "dontneed")])
        self.assertEqual(called_default("(DONTNEED, the default, vs FREE)"), [("SHARDSWEEP_ADVICE", "dontneed")])
        self.assertEqual(called_default("`gc` stays the default."), [("SHARDSWEEP_PURGE", "gc")])

    def test_not_judged(self):
        for text in ["`free`, then the default, cut the mutator time.",   # the past, said so
                     "FREE was then the default.",
                     "`0`, the default, turns it off.",                     # `0`: several settings' value
                     "free memory is the default state of a page.",        # not a value: no backquotes
                     "The default keeps idle pages for a GC.",
                     "It stays an option (default off)."]:
            self.assertEqual(called_default(text), [], text)


class Documents(unittest.TestCase):
    def test_a_planted_wrong_sentence_fails_the_check(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            (root / "policy").mkdir()
            shutil.copy(ROOT / "policy" / "settings.rs", root / "policy" / "settings.rs")
            (root / "policy" / "README.md").write_text(
                "| `SHARDSWEEP_ADVICE` | env, read at space creation | `dontneed`, `free`, `keep` |\n")
            (root / "README.md").write_text("# x\n\nGiven-back pages use `SHARDSWEEP_ADVICE=dontneed` (default).\n")
            errors, checked = cdd.check_docs(CODE, str(root))
            self.assertEqual(errors, [])
            self.assertGreater(checked, 0)
            (root / "policy" / "BENCH.md").write_text("# bench\n\nOne line.\nMADV_FREE, the default\nadvice, is faster.\n")
            errors, _ = cdd.check_docs(CODE, str(root))
            self.assertEqual(errors, ["policy/BENCH.md:4 (prose): SHARDSWEEP_ADVICE documented default 'free', "
                                      "code default 'dontneed'"])


if __name__ == "__main__":
    sys.exit(unittest.main())

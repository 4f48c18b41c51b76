#!/usr/bin/env python3
"""Medians and paired ratios of a runs.csv of command.sh: the same summary as the JIT study's
(../jit-fastpath/summarize.py, which also reads this file's columns). usage: summarize.py runs.csv"""
import runpy, sys
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parent.parent / "jit-fastpath" / "summarize.py"), run_name="__main__")

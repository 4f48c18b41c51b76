#!/usr/bin/env python3
"""shardsweep experiments on synthvm: minimum heap over mutator threads, and time over heap size.

    python3 experiments/exp.py minheap CONFIG.yaml [--out DIR] [--confirm N] [--resolution MiB]
    python3 experiments/exp.py time    CONFIG.yaml [--out DIR]
    python3 experiments/exp.py report  CONFIG.yaml [--out DIR]      # tables + plots from the CSV only

The entry point of the package experiments/synthexp/ (one module per concept: see its
__init__.py; the command line and its full help are in synthexp/cli.py), which shares the
minimum-heap search and the slope fit with the JVM stand-ins (experiments/studylib/).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # experiments/: synthexp, studylib

from synthexp.cli import main  # noqa: E402

if __name__ == "__main__":
    main()

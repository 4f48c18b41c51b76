#!/usr/bin/env python3
"""Checks that the documented defaults of the space's settings are the code's (and those of the
standalone allocator's settings, from the core's constants: STANDALONE below).

The code's defaults come from the space itself: a shardsweep synthvm run with
SHARDSWEEP_PRINT_SETTINGS=1 prints `shardsweep: settings NAME=value ...` (every setting it read,
none set). The documents checked:
  * policy/settings.rs, the table in its module doc (column "Default");
  * policy/README.md, the settings table ("Values (default first)": the first value);
  * every `SHARDSWEEP_X=value` (default) in README.md, ARCHITECTURE.md, policy/README.md,
    policy/BENCH.md, experiments/README.md and bindings/openjdk/README.md.

usage: check-doc-defaults.py SYNTHVM_BINARY     (exit 1 naming every mismatch)
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def code_defaults(binary):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHARDSWEEP_")}
    env.update(SHARDSWEEP_PRINT_SETTINGS="1", MMTK_THREADS="1")
    out = subprocess.run([binary, "--plan", "MarkSweep", "--size", "small", "--heap", "16", "gcbench"],
                         env=env, capture_output=True, text=True, timeout=300)
    m = re.search(r"^shardsweep: settings (.*)$", out.stderr, re.M)
    if not m:
        sys.exit(f"check-doc-defaults: {binary} printed no 'shardsweep: settings' line "
                 f"(exit {out.returncode}):\n{out.stderr[-2000:]}")
    return dict(kv.split("=", 1) for kv in m.group(1).split())


# Settings of the standalone allocator (not the space): their defaults are the core's constants.
STANDALONE = {"SHARDSWEEP_PURGE_DELAY_MS": ("src/malloc/purge_delay.rs", r"pub const DEFAULT_PURGE_DELAY_MS: usize = (\d+);")}


def standalone_defaults():
    out = {}
    for var, (path, pattern) in STANDALONE.items():
        m = re.search(pattern, open(os.path.join(ROOT, path)).read())
        if not m:
            sys.exit(f"check-doc-defaults: no default of {var} in {path}")
        out[var] = m.group(1)
    return out


def first_token(cell):
    m = re.search(r"`([^`]*)`", cell)
    return m.group(1) if m else cell.strip()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check-doc-defaults.py SYNTHVM_BINARY")
    code = code_defaults(sys.argv[1])
    code.update(standalone_defaults())
    errors, checked = [], 0

    def check(where, var, doc):
        nonlocal checked
        if var not in code:
            errors.append(f"{where}: {var} is documented but the space does not print it")
            return
        checked += 1
        if doc != code[var]:
            errors.append(f"{where}: {var} documented default {doc!r}, code default {code[var]!r}")

    # policy/settings.rs: `//! | `VAR` | values | default |`
    for line in open(os.path.join(ROOT, "policy/settings.rs")):
        m = re.match(r"//! \| `(SHARDSWEEP_\w+)`\s*\|[^|]*\|([^|]*)\|", line)
        if m:
            cell = m.group(2)
            doc = cell.split("else")[-1] if "debug builds" in cell else cell
            check("policy/settings.rs", m.group(1), first_token(doc))
    # policy/README.md settings table: `| `VAR` | where | values, default first |`
    for line in open(os.path.join(ROOT, "policy/README.md")):
        m = re.match(r"\| `(SHARDSWEEP_\w+)` \| env, read at space creation \|(.*)\|\s*$", line)
        if m:
            check("policy/README.md (table)", m.group(1), first_token(m.group(2)))
    # `SHARDSWEEP_X=value` (default) anywhere in the documents.
    for doc in ["README.md", "ARCHITECTURE.md", "policy/README.md", "policy/BENCH.md",
                "experiments/README.md", "bindings/openjdk/README.md"]:
        path = os.path.join(ROOT, doc)
        if not os.path.exists(path):
            continue
        text = open(path).read()
        for m in re.finditer(r"`(SHARDSWEEP_\w+)=([\w.-]+)`\s*\((?:the space's )?default", text):
            check(doc, m.group(1), m.group(2))
    for e in errors:
        print("FAIL", e)
    print(f"documented defaults: {checked - len(errors)} passed, {len(errors)} failed")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()

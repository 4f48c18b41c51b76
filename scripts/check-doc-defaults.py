#!/usr/bin/env python3
"""Checks that the documented defaults of the space's settings are the code's (and those of the
standalone allocator's settings, from the core's constants: STANDALONE below).

The code's defaults come from the space itself: a shardsweep synthvm run with
SHARDSWEEP_PRINT_SETTINGS=1 prints `shardsweep: settings NAME=value ...` (every setting it read,
none set). The documents checked:
  * policy/settings.rs, the table in its module doc (column "Default");
  * policy/README.md, the settings table ("Values (default first)": the first value);
  * every `SHARDSWEEP_X=value` (default) in README.md, ARCHITECTURE.md, policy/README.md,
    policy/BENCH.md, experiments/README.md and bindings/openjdk/README.md;
  * prose in those documents that calls a value of a setting the default (prose_defaults below):
    "`free`, the default", "`free` (default)", "the default advice `free`", "FREE became the
    default", "plain MADV_FREE is the default", "Default configuration (..., `free`, ...)": the
    value must be the code's default of its setting. A value names its setting when the setting
    is written with it (`SHARDSWEEP_X=v`), or when only one setting lists it among its values
    (policy/settings.rs's "Values" column: `free` is SHARDSWEEP_ADVICE's; `0` and `1` belong to
    several and are not judged alone); MADV_FREE, FREE, MADV_DONTNEED, DONTNEED are the advice.
    A statement about the past says so with "then" ("`free`, then the default"; "FREE was then
    the default"): not judged.

usage: check-doc-defaults.py SYNTHVM_BINARY     (exit 1 naming every mismatch)
"""
import glob
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
# The file is looked for anywhere under src/ (the core's front end moves between modules).
STANDALONE = {"SHARDSWEEP_PURGE_DELAY_MS": ("purge_delay.rs", r"pub const DEFAULT_PURGE_DELAY_MS: usize = (\d+);")}


def standalone_defaults():
    out = {}
    for var, (name, pattern) in STANDALONE.items():
        paths = sorted(glob.glob(os.path.join(ROOT, "src", "**", name), recursive=True))
        m = next((m for m in (re.search(pattern, read(p)) for p in paths) if m), None)
        if not m:
            sys.exit(f"check-doc-defaults: no default of {var} in src/**/{name}")
        out[var] = m.group(1)
    return out


def setting_values(root=ROOT):
    """{SHARDSWEEP_X: [values]}: the backquoted values of policy/settings.rs's table."""
    out = {}
    for line in read(os.path.join(root, "policy/settings.rs")).splitlines():
        m = re.match(r"//! \| `(SHARDSWEEP_\w+)`\s*\|([^|]*)\|", line)
        if m:
            out[m.group(1)] = re.findall(r"`([^`]*)`", m.group(2))
    return out


# The advice's values as the kernel's names, written in capitals in prose.
ALIASES = {"MADV_FREE": ("SHARDSWEEP_ADVICE", "free"), "FREE": ("SHARDSWEEP_ADVICE", "free"),
           "MADV_DONTNEED": ("SHARDSWEEP_ADVICE", "dontneed"), "DONTNEED": ("SHARDSWEEP_ADVICE", "dontneed")}
# A value: `v`, `SHARDSWEEP_X=v`, or a capitalised alias.
VAL = r"(?:`(?:(SHARDSWEEP_\w+)=)?([\w.-]+)`|\b((?:MADV_)?[A-Z]{4,})\b)"
# Prose that calls a value the default (a sentence's words do not cross '.', ';' or ':').
# "then" marks a statement about the past ("`free`, then the default"): not judged.
THE_DEFAULT = r"(?i:the)\s+(?:(?:new|current|then)\s+)?(?i:default)\b"
PROSE = [
    VAL + r"\s*,\s*(?:which is\s+|which was\s+)?(?:(?:now|then)\s+)?" + THE_DEFAULT,       # `free`, the default
    VAL + r"\s*\((?i:the\s+)?(?i:default)\b",                                              # `free` (default)
    VAL + r"\s+(?i:is|was|became|becomes|stays|remains)\s+(?:(?:now|still|then)\s+)?" + THE_DEFAULT,  # FREE became the default
    r"\b(?i:the default)\s+(?:[a-z]+\s+){0,2}?" + VAL,                                     # the default advice `free`
]
DEFAULT_LIST = r"\b(?i:default configuration)\s*\(([^)]*)\)"                         # Default configuration (a, `v`, ...)


def prose_defaults(text, code, values):
    """[(line, var, value)] of every value the prose calls the default, for a setting it can
    name (see the module doc); `code`: {var: default}, `values`: {var: [values]}."""
    owner = {}
    for var, vs in values.items():
        for v in vs:
            owner.setdefault(v, set()).add(var)
    flat = text.replace("\n", " ")  # sentences span lines; offsets unchanged

    def resolve(var, val, up):
        if up:
            return ALIASES.get(up, (None, None))
        if var:
            return var, val
        vars_ = owner.get(val, set())
        if len(vars_) == 1 and not val.isdigit():
            return next(iter(vars_)), val
        return None, None
    found = []

    def add(pos, var, val):
        if var in code:
            found.append((text.count("\n", 0, pos) + 1, var, val))
    for pat in PROSE:
        for m in re.finditer(pat, flat):
            if re.search(r"\bthen\b", m.group(0)):
                continue
            var, val = resolve(*m.groups()[-3:])
            add(m.start(), var, val)
    for m in re.finditer(DEFAULT_LIST, flat):
        for v in re.finditer(VAL, m.group(1)):
            var, val = resolve(*v.groups())
            add(m.start(1) + v.start(), var, val)
    return sorted(set(found))


def read(path):
    with open(path) as f:
        return f.read()


def first_token(cell):
    m = re.search(r"`([^`]*)`", cell)
    return m.group(1) if m else cell.strip()


DOCS = ["README.md", "ARCHITECTURE.md", "policy/README.md", "policy/BENCH.md", "experiments/README.md",
        "bindings/openjdk/README.md"]


def check_docs(code, root=ROOT):
    """(errors, number of documented defaults checked) of the documents under `root` against
    the code's defaults `code` ({var: value})."""
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
    for line in read(os.path.join(root, "policy/settings.rs")).splitlines():
        m = re.match(r"//! \| `(SHARDSWEEP_\w+)`\s*\|[^|]*\|([^|]*)\|", line)
        if m:
            cell = m.group(2)
            # "`1` in debug builds, else `0`", "`binding` under mmtk-openjdk, else `space`": the
            # run above is a release build under synthvm, so the value after "else" is its default.
            doc = cell.split("else")[-1] if "else" in cell else cell
            check("policy/settings.rs", m.group(1), first_token(doc))
    # policy/README.md settings table: `| `VAR` | where | values, default first |`
    for line in read(os.path.join(root, "policy/README.md")).splitlines():
        m = re.match(r"\| `(SHARDSWEEP_\w+)` \| env, read at space creation \|(.*)\|\s*$", line)
        if m:
            check("policy/README.md (table)", m.group(1), first_token(m.group(2)))
    # `SHARDSWEEP_X=value` (default) anywhere in the documents, and prose calling a value the
    # default (each place checked once).
    values = setting_values(root)
    for doc in DOCS:
        path = os.path.join(root, doc)
        if not os.path.exists(path):
            continue
        text = read(path)
        done = set()
        for m in re.finditer(r"`(SHARDSWEEP_\w+)=([\w.-]+)`\s*\((?:the space's )?default", text):
            check(doc, m.group(1), m.group(2))
            done.add((text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)))
        for found in prose_defaults(text, code, values):
            if found not in done:
                line, var, val = found
                check(f"{doc}:{line} (prose)", var, val)
    return errors, checked


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check-doc-defaults.py SYNTHVM_BINARY")
    code = code_defaults(sys.argv[1])
    code.update(standalone_defaults())
    errors, checked = check_docs(code)
    for e in errors:
        print("FAIL", e)
    print(f"documented defaults: {checked - len(errors)} passed, {len(errors)} failed")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Checks the repository's unsafe code and sequentially consistent atomics are explained:

  * every `unsafe { ... }` block and `unsafe impl` has a `// SAFETY:` comment on its line or in
    the comment lines just above it (attributes and the start of a statement may sit between);
  * every `unsafe fn` has a `# Safety` section in its doc comment (or, for a trait method
    implementation, says where its contract is: a `// SAFETY:` comment as for blocks);
  * every use of `Ordering::SeqCst` has a comment that says why, on its line or in the comment
    lines just above it (one mentioning `SeqCst`).

The Rust sources of the project only (src/, policy/, bindings/*/src and tests, benches/,
tests/, examples/); build copies and third-party code are not looked at.

usage: check-safety.py [--self-test]     (exit 1 naming every place that lacks a reason)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRS = ["src", "policy", "bindings", "benches", "tests", "examples", "build.rs"]
SKIP = {".build", "target", ".git"}
LOOKBACK = 12  # lines above a statement in which its comment may start


def sources():
    for d in DIRS:
        p = os.path.join(ROOT, d)
        if os.path.isfile(p):
            yield p
            continue
        for dirpath, dirnames, files in os.walk(p):
            dirnames[:] = [x for x in dirnames if x not in SKIP]
            for f in files:
                if f.endswith(".rs"):
                    yield os.path.join(dirpath, f)


def strip_strings(line):
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', line)


def comment_above(lines, i, pattern):
    """Whether line i, or a comment above it in the same statement or the comment block just
    before that statement, matches `pattern`. Walks up over comment lines, attributes and the
    lines of a statement that spans several (`if … {`, `} else {`, arguments), stopping at a
    blank line or at the end of the previous statement (a line ending with `;`, or a closing
    `}` / `};` alone)."""
    if re.search(pattern, lines[i]):
        return True
    j = i - 1
    steps = 0
    while j >= 0 and steps < LOOKBACK:
        s = lines[j].strip()
        if not s:
            return False
        if re.search(pattern, s):
            return True
        if not s.startswith("//") and (s.endswith(";") or s in ("}", "};", "},")):
            return False
        j -= 1
        steps += 1
    return False


def doc_has_safety(lines, i):
    j = i - 1
    while j >= 0:
        s = lines[j].strip()
        if s.startswith("///") or s.startswith("#[") or s.startswith("//!"):
            if "# Safety" in s or "Safety:" in s:
                return True
            j -= 1
            continue
        return False
    return False


def check_file(path, text):
    problems = []
    lines = [strip_strings(l) for l in text.split("\n")]
    in_block_comment = False
    for i, raw in enumerate(lines):
        code = raw.split("//", 1)[0]
        if "/*" in code:
            in_block_comment = True
        if in_block_comment:
            if "*/" in raw:
                in_block_comment = False
            continue
        rel = os.path.relpath(path, ROOT)
        if re.search(r"\bunsafe\s*\{", code) or re.search(r"\bunsafe\s+impl\b", code):
            if not comment_above(lines, i, r"SAFETY"):
                problems.append(f"{rel}:{i + 1}: unsafe without a `// SAFETY:` comment")
        # A new unsafe API (`pub … unsafe fn`) documents its contract; a trait method's
        # implementation has the trait's.
        m = re.search(r"\bpub(\([a-z]+\))?\s+unsafe\s+fn\b", code)
        if m:
            if not (doc_has_safety(lines, i) or comment_above(lines, i, r"SAFETY|# Safety")):
                problems.append(f"{rel}:{i + 1}: unsafe fn without a `# Safety` section")
        if "SeqCst" in code:
            if not comment_above(lines, i, r"//.*SeqCst|SeqCst.*//"):
                problems.append(f"{rel}:{i + 1}: SeqCst without a comment saying why")
    return problems


def self_test():
    bad = "fn f() {\n    let x = 1;\n    unsafe { g() };\n    a.store(1, Ordering::SeqCst);\n}\n"
    good = ("fn f() {\n    // SAFETY: g has no preconditions.\n    unsafe { g() };\n"
            "    // SeqCst: the flag and the data are read in the other order elsewhere.\n"
            "    a.store(1, Ordering::SeqCst);\n}\n/// Does it.\n///\n/// # Safety\n/// None.\n"
            "pub unsafe fn h() {}\n")
    assert len(check_file(os.path.join(ROOT, "x.rs"), bad)) == 2, check_file("x.rs", bad)
    assert check_file(os.path.join(ROOT, "x.rs"), good) == [], check_file("x.rs", good)
    undocumented_fn = "pub unsafe fn h() {}\nunsafe fn trait_method() {}\n"
    assert len(check_file(os.path.join(ROOT, "x.rs"), undocumented_fn)) == 1
    print("check-safety: self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return
    if sys.argv[1:]:
        sys.exit("usage: check-safety.py [--self-test]")
    problems, n = [], 0
    for p in sorted(sources()):
        n += 1
        problems += check_file(p, open(p, encoding="utf-8").read())
    for line in problems:
        print(line)
    print(f"check-safety: {n} files, {len(problems)} places without a reason")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()

"""The synthvm binaries a study runs (built by scripts/build-variants.sh into BIN_DIR): where
they are, their sha256, the snapshot a study runs, and the report's table of them."""
import os

from .config import BIN_DIR, rel


def binary_of(build):
    return BIN_DIR / f"synthvm-{build['variant']}"


_snap = {}


def snapshot_of(build):
    """The binary a study runs: a copy named by its sha256 (.build/bin/by-sha/), taken at first
    use, so a rebuild of .build/bin/synthvm-<variant> during a long study changes nothing."""
    b = binary_of(build)
    if b not in _snap:
        import shutil
        d = BIN_DIR / "by-sha"
        d.mkdir(parents=True, exist_ok=True)
        dst = d / f"{b.name}-{binary_sha(build)}"
        if not dst.exists():
            shutil.copy2(b, str(dst) + ".tmp")
            os.replace(str(dst) + ".tmp", dst)
        _snap[b] = dst
    return _snap[b]


_sha_cache = {}


def binary_sha(build):
    b = binary_of(build)
    if b not in _sha_cache:
        info = b.with_name(b.name + ".info")
        sha = None
        if info.exists():
            for line in info.read_text().splitlines():
                if line.startswith("sha256="):
                    sha = line.split("=", 1)[1].strip()
        if sha is None:
            import hashlib
            sha = hashlib.sha256(b.read_bytes()).hexdigest()[:16]
        _sha_cache[b] = sha
    return _sha_cache[b]


def binaries_section(cfg, rows=None):
    """One line per binary (variant, sha256) the study's CSV used, from its archived .info."""
    pairs = sorted({(r["variant"], r["binary_sha"]) for r in rows or [] if r.get("binary_sha")})
    if not pairs:
        pairs = sorted({(b["variant"], binary_sha(b)) for b in cfg["builds"] if binary_of(b).exists()})
    lines = ["| variant | sha256 | settings |", "|---|---|---|"]
    for v, sha in pairs:
        info = BIN_DIR / "info-archive" / f"synthvm-{v}-{sha}.info"
        if not info.exists():
            cur = BIN_DIR / f"synthvm-{v}.info"
            info = cur if cur.exists() and f"sha256={sha}" in cur.read_text() else None
        if info:
            kv = dict(l.split("=", 1) for l in info.read_text().splitlines() if "=" in l)
            s = (f"features `{kv.get('features')}`, block {kv.get('block_kib')} KiB, "
                 f"mmtk from `{rel(kv.get('mmtk_source', ''))}`, git {kv.get('git_rev')} "
                 f"(+{kv.get('dirty_files_in_src_policy_synthvm')} uncommitted files in src/policy/synthvm), "
                 f"built {kv.get('built')}")
        else:
            s = "(no .info archived for this sha256)"
        lines.append(f"| `{v}` | `{sha}` | {s} |")
    return "\n".join(lines)

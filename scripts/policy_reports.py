#!/usr/bin/env python3
"""The space's output as the policy tests read it: parsing a synthvm run's output (its JSON line,
the space's `key=value` lines) and the judgements of the space's reports on memory (the mutator
report, the footprint report with the large-object space beside it, the drops report, the
accounting check's lines under an idle cap or margin). Imported by
scripts/policy_checks.py, which runs the binaries; unit-tested by
experiments/tests/test_policy_checks.py (through policy_checks, which re-exports these names)."""
import json
import re


# ------------------------------------------------------------------------------------------
# parsing a run's output

def synthvm_json(text):
    """synthvm's result object (the `{"synthvm": {...}}` line), or {} if it printed none."""
    for line in text.splitlines():
        if line.startswith('{"synthvm":'):
            try:
                return json.loads(line)["synthvm"]
            except ValueError:
                return {}
    return {}


def fields(line):
    """`key=value` pairs of one of the space's lines, as a dict (values as printed)."""
    return dict(re.findall(r"(?<![\w/])(\w+)=(\S+)", line or ""))


def check_lines(text, kind):
    """The space's `shardsweep-check KIND gc=N ok ...` lines (KIND accounting or reclaim)."""
    return [l for l in text.splitlines() if re.match(rf"shardsweep-check {kind} gc=\d+ ok", l)]


def num(d, key):
    """An integer field of a parsed line or JSON object; None if absent or not a number."""
    v = d.get(key) if d else None
    if isinstance(v, bool) or v is None:
        return None
    try:
        return int(v)
    except (TypeError, ValueError):
        try:
            return int(float(v))
        except (TypeError, ValueError):
            return None


class Run:
    """One finished process: exit code (124 when the timeout killed it, as timeout(1)), the
    output (stdout and stderr together unless asked otherwise), its wall time in ms."""

    def __init__(self, rc, out, ms=0):
        self.rc, self.out, self.ms = rc, out, ms
        self.json = synthvm_json(out)


# ------------------------------------------------------------------------------------------
# judgements of the space's memory reports: (ok, message) from outputs; no processes

def judge_mutator_report(run):
    m = re.search(r"shardsweep: mutators: (\d+) samples", run.out)
    n, gcs = (int(m.group(1)) if m else None), num(run.json, "gc_count")
    ok = (run.rc == 0 and n is not None and gcs is not None and n >= gcs
          and re.search(r"size classes held mean [0-9.]* max [0-9]*, blocks held", run.out) is not None
          and re.search(re.escape(f"; per GC ({gcs} GCs, summed over its mutators): mutators ")
                        + r"[0-9.]*, blocks not full [0-9.]*", run.out) is not None)
    if ok:
        return True, f"mutator report: {n} samples over {gcs} GCs"
    return False, f"mutator report (rc={run.rc}, samples '{'' if n is None else n}', GCs '{'' if gcs is None else gcs}')"


FOOTPRINT_PARTS = ("header", "live", "rounding", "dead", "free", "filling", "unlisted", "tail", "idle")


def judge_large_objects(run, lines, page_bytes=4096, large_objects=False):
    """The large-object space beside the footprint report (policy/space/large_objects.rs): every
    footprint line says `los_pages` (before the sweeps), and one `shardsweep-footprint-los` line
    per GC with the same gc number says what survived there: `by_size` sums to `objects` and
    `bytes` exactly, each object takes whole pages (`bytes <= object_pages * page < bytes +
    objects * page`), `objects <= object_pages <= pages <= los_pages` (the sweep only frees).
    With `large_objects` some GC must find a live large object."""
    los = {l.split()[1]: fields(l) for l in run.out.splitlines() if l.startswith("shardsweep-footprint-los gc=")}
    if len(los) != len(lines) or any(f"gc={f.get('gc')}" not in los for f in lines):
        return False, f"large objects: {len(los)} shardsweep-footprint-los lines for {len(lines)} footprint lines"
    for f in lines:
        g = los[f"gc={f.get('gc')}"]
        before = num(f, "los_pages")
        pages, objects, bytes_, opages = (num(g, k) for k in ("pages", "objects", "bytes", "object_pages"))
        if None in (before, pages, objects, bytes_, opages):
            return False, f"large objects gc={f.get('gc')}: a field is missing"
        split = g.get("by_size", "")
        if not re.fullmatch(r"-|\d+:\d+:\d+(,\d+:\d+:\d+)*", split):
            return False, f"large objects gc={f.get('gc')}: by_size {split!r} malformed"
        bins = [[int(x) for x in kv.split(":")] for kv in split.split(",") if ":" in kv]
        if sum(b[1] for b in bins) != objects or sum(b[2] for b in bins) != bytes_:
            return False, f"large objects gc={f.get('gc')}: by_size {split} does not sum to {objects} objects, {bytes_} B"
        if not (bytes_ <= opages * page_bytes and (objects == 0 or opages * page_bytes < bytes_ + objects * page_bytes)):
            return False, f"large objects gc={f.get('gc')}: {bytes_} B in {objects} objects on {opages} pages"
        if not objects <= opages <= pages <= before:
            return False, (f"large objects gc={f.get('gc')}: objects {objects} <= object_pages {opages} <= "
                           f"pages {pages} <= los_pages {before} fails")
    if large_objects and not any(num(g, "objects") > 0 for g in los.values()):
        return False, "large objects: no GC found a live large object"
    return True, f"{sum(num(g, 'objects') for g in los.values())} large objects over {len(los)} GCs"


def judge_footprint_report(run, page_bytes=4096, lending=False, leasing=False, large_objects=False):
    """`SHARDSWEEP_REPORT_FOOTPRINT=1`: one line per GC, and on every line the parts add up to
    the reported pages exactly: (header + ... + idle) / page + kept_pages + meta_pages (with
    `count=in-use`, idle pages and kept blocks are not reported: they are left out; with
    `count=resident-margin`, those beyond `margin_pages` are); the
    abandoned blocks' free cells are part of `free`; `charged_by_class` is `-` or size:pages;
    `free_by_class`, `filling_by_class` and `unlisted_by_class` sum to `free`, `filling` and
    `unlisted` exactly; `holes_small`'s buckets are nested and within `free + filling + dead`;
    `0 <= lent_unused <= lent`, all three lent fields 0 unless `lending`, and then some GC lent;
    `0 <= leased <= dead` (leased cells count as allocated); with `leasing` False 0 on every GC,
    True some GC found cells on a lease (the space leases under every adoption unit: a current
    block's whole list is its bin's lease), None either; the large-object space's figures as
    `judge_large_objects` says."""
    lines = [fields(l) for l in run.out.splitlines() if l.startswith("shardsweep-footprint gc=")]
    gcs = num(run.json, "gc_count")
    if run.rc != 0 or gcs is None or len(lines) != gcs:
        return False, f"footprint report: rc={run.rc}, {len(lines)} lines for {'' if gcs is None else gcs} GCs"
    for f in lines:
        parts = [num(f, k) for k in FOOTPRINT_PARTS + ("kept_pages", "meta_pages", "reported_pages")]
        if None in parts:
            return False, f"footprint report: a field is missing in gc={f.get('gc')}"
        *bytes_, kept, meta, reported = parts
        if f.get("count") == "in-use":  # idle pages and kept blocks are resident, not reported
            bytes_[FOOTPRINT_PARTS.index("idle")], kept = 0, 0
        elif f.get("count") == "resident-margin":  # only the idle pages beyond the margin are
            i = FOOTPRINT_PARTS.index("idle")
            idle_pages = bytes_[i] // page_bytes + kept
            bytes_[i], kept = 0, max(0, idle_pages - (num(f, "margin_pages") or 0))
        if sum(bytes_) % page_bytes or sum(bytes_) // page_bytes + kept + meta != reported:
            return False, (f"footprint report gc={f.get('gc')}: parts {sum(bytes_)} B + {kept} kept + {meta} meta "
                           f"pages != {reported} reported pages")
        if num(f, "live") <= 0:
            return False, f"footprint report gc={f.get('gc')}: no live bytes"
        fa = num(f, "free_abandoned")
        if fa is None or not 0 <= fa <= num(f, "free"):
            return False, f"footprint report gc={f.get('gc')}: free_abandoned {f.get('free_abandoned')} not within free"
        if not re.fullmatch(r"-|\d+:\d+(,\d+:\d+)*", f.get("charged_by_class", "")):
            return False, f"footprint report gc={f.get('gc')}: charged_by_class {f.get('charged_by_class')!r} malformed"
        for part in ("free", "filling", "unlisted"):  # each by-class split sums to its part exactly
            split = f.get(f"{part}_by_class", "")
            if not re.fullmatch(r"-|\d+:\d+(,\d+:\d+)*", split):
                return False, f"footprint report gc={f.get('gc')}: {part}_by_class {split!r} malformed"
            total = sum(int(kv.split(":")[1]) for kv in split.split(",") if ":" in kv)
            if total != num(f, part):
                return False, f"footprint report gc={f.get('gc')}: {part}_by_class sums to {total}, {part}={f.get(part)}"
        holes = re.fullmatch(r"512:(\d+),1024:(\d+),2048:(\d+),4096:(\d+),all:(\d+)", f.get("holes_small", ""))
        if not holes:
            return False, f"footprint report gc={f.get('gc')}: holes_small {f.get('holes_small')!r} malformed"
        h = [int(x) for x in holes.groups()]  # nested buckets, all within what the sweep frees
        if not (h[4] >= h[0] >= h[1] >= h[2] >= h[3] >= 0 and h[4] <= sum(num(f, k) for k in ("free", "filling", "dead"))):
            return False, f"footprint report gc={f.get('gc')}: holes_small {f.get('holes_small')} not nested within free + filling + dead"
        lent = [num(f, k) for k in ("lent", "lent_runs", "lent_unused")]
        if None in lent or not 0 <= lent[2] <= lent[0] or (not lending and lent != [0, 0, 0]) or (lent[0] > 0) != (lent[1] > 0):
            return False, f"footprint report gc={f.get('gc')}: lent/lent_runs/lent_unused {lent} (lending {lending})"
        leased = num(f, "leased")
        if leased is None or not 0 <= leased <= num(f, "dead") or (leasing is False and leased != 0):
            return False, f"footprint report gc={f.get('gc')}: leased {f.get('leased')} (dead {f.get('dead')}, leasing {leasing})"
    if leasing and not any(num(f, "leased") > 0 for f in lines):
        return False, "footprint report: leasing on, yet no GC found a leased cell"
    if lending and not any(num(f, "lent") > 0 for f in lines):
        return False, "footprint report: lending on, yet no GC lent a byte"
    if "shardsweep-footprint peak gc=" not in run.out:
        return False, "footprint report: no peak line at exit"
    ok, msg = judge_large_objects(run, lines, page_bytes, large_objects)
    if not ok:
        return False, f"footprint report: {msg}"
    return True, f"footprint report: {len(lines)} GCs, the parts add up to the reported pages exactly; {msg}"


def judge_idle_cap(name, out, percent, heap_mib):
    """The accounting check's lines of a run with SHARDSWEEP_IDLE_CAP: every GC's end left at most
    the cap's worth of idle pages (the check asserts it too; this also catches a run whose check
    printed nothing), and some GC kept idle pages when the cap allows any."""
    idle = [int(x) for x in re.findall(r"^shardsweep-check accounting gc=\d+ ok .* idle=(\d+) ", out, re.M)]
    cap = heap_mib * 256 * percent // 100
    if not idle:
        return False, f"{name}: no accounting check line with idle="
    if max(idle) > cap:
        return False, f"{name}: {max(idle)} idle pages after a GC, cap {cap}"
    if percent > 0 and max(idle) == 0:
        return False, f"{name}: no GC kept an idle page under a cap of {cap}"
    return True, f"{name}: idle pages after {len(idle)} GCs at most {max(idle)} (cap {cap})"


def judge_idle_margin(name, out):
    """The accounting check's lines of a run with SHARDSWEEP_IDLE_MARGIN (the check asserts that
    the count is the pages in use plus the idle ones beyond the margin, and that the resident
    pages noted are the blocks'): every GC checked, the count never below the pages in use, and
    some GC's end left idle pages that the margin does not count."""
    rows = [(int(c), int(u), int(i)) for c, u, i in re.findall(
        r"^shardsweep-check accounting gc=\d+ ok used_pages=\d+ resident=(\d+) in_use=(\d+) idle=(\d+) ", out, re.M)]
    if not rows:
        return False, f"{name}: no accounting check line"
    if any(c < u for c, u, _ in rows):
        return False, f"{name}: a count below the pages in use"
    uncounted = max(u + i - c for c, u, i in rows)
    if uncounted == 0:
        return False, f"{name}: no GC left an idle page uncounted"
    return True, f"{name}: {len(rows)} GCs checked; at most {uncounted} idle pages uncounted after one"


def judge_margin_room(name, run, heap_mib, percent, room, page_bytes=4096):
    """`SHARDSWEEP_REPORT_FOOTPRINT=1` lines of a run with an idle margin of `percent` percent of a
    `heap_mib` MiB heap and `SHARDSWEEP_IDLE_MARGIN_ROOM=room`: every line's `margin_pages` is at
    least the heap's `percent` and at most that plus `room` percent of the heap (the room a GC
    leaves free is at most the heap); with `room` > 0 some GC left a margin above the floor (the
    run's heap is roomy), with `room` = 0 none did."""
    heap = heap_mib * 1024 * 1024 // page_bytes
    floor = heap * percent // 100
    margins = [int(m) for m in re.findall(r"^shardsweep-footprint gc=\d+ .*? margin_pages=(\d+) ", run.out, re.M)]
    if run.rc != 0 or not margins:
        return False, f"{name}: rc={run.rc}, {len(margins)} footprint lines with margin_pages"
    if min(margins) < floor or max(margins) > floor + heap * room // 100:
        return False, f"{name}: margins {min(margins)}..{max(margins)} pages, outside {floor}..{floor + heap * room // 100}"
    above = sum(m > floor for m in margins)
    if (room > 0) != (above > 0):
        return False, f"{name}: {above} of {len(margins)} GCs with a margin above the floor of {floor} pages (room {room}%)"
    return True, f"{name}: margins {min(margins)}..{max(margins)} pages over {len(margins)} GCs (floor {floor}), {above} above it"


def judge_drops_report(name, run, some=True):
    """SHARDSWEEP_REPORT_DROPS=1: exactly one line at exit naming the five paths; with `some`,
    some page dropped."""
    lines = re.findall(r"^shardsweep: dropped pages: purge (\d+) kept (\d+) trim (\d+) pressure (\d+) los (\d+)$",
                       run.out, re.M)
    if run.rc != 0 or len(lines) != 1:
        return False, f"{name}: rc={run.rc}, {len(lines)} drops report lines (want 1)"
    total = sum(int(x) for x in lines[0])
    if some and total == 0:
        return False, f"{name}: no page dropped"
    return True, f"{name}: dropped pages " + " ".join(f"{k} {v}" for k, v in zip(("purge", "kept", "trim", "pressure", "los"), lines[0]))

#!/usr/bin/env bash
# Builds the patched mmtk copy, synthvm against it (stock baseline + shardsweep variants), and
# runs the policy tests with --verify at small size. Every shardsweep run also has the space's
# end-of-GC self-checks on (SHARDSWEEP_CHECK_ACCOUNTING=1, SHARDSWEEP_CHECK_RECLAIM=1; see
# policy/check.rs): a run passes only if synthvm says PASSED and every GC printed an "ok" line
# for each check (the count of lines must equal synthvm's gc_count).
#
#   scripts/test-policy.sh            # CI subset (see below), ~10 min on 2 idle cores from cold
#   scripts/test-policy.sh --full     # + blocks 4,16,64,256 x page,block x threads 1,8,48
#   scripts/test-policy.sh --no-build # reuse existing builds
#
# CI subset: stock t8; blocks 4 (built with mmtk/sanity: a sanity GC after every GC) and 64 KiB
# x page,block x threads 1,8 x lusearch,gcbench,fragger, eager; 64 KiB lazy sweeping x
# page,block x t1,t8 x the three workloads; 4 KiB (sanity) lazy lusearch t8 under a 2 MB stress
# factor; SHARDSWEEP_ABANDON_ALL=0 (idle classes only), with ABANDON_IDLE=0 (none), lazy with
# ABANDON_ALL=1; a vo_bit build (lusearch t8, page and block; lazy refused);
# mutators destroyed after a GC that did not see them (synthvm --late-exit: eager, lazy, stock);
# the post-GC footprint test (fragger t8: page vs whole-block charging vs stock MarkSweep); the
# final-GC test (synthvm --final-gc on workloads/mostly-dead.wl t8: used - live after a full GC of
# a mostly dead heap, page vs whole-block charging vs stock);
# out of memory reported promptly; a request that can never be met ends in out of memory, not in
# endless GCs (synthvm hog, issue 11); the low-heap sweep (every block size built x t1,24,48
# small from 0.5 MiB, and t24 default from 8 MiB but for the sanity build, each up to two passes
# in a row: pass or out of memory, a timeout fails);
# invalid settings refused.
#
# Builds whose settings the experiments share (stock, and shardsweep at every block size but the
# sanity one) go through scripts/build-variants.sh: its target dirs (.build/target-*), so CI
# never builds the same thing twice, and its progress lines every 30 s; their binaries are
# copied to .build/pol-bin. The two builds only the tests need (the sanity build and the vo_bit
# build) use their own copy (.build/pol-copy) and target dirs (.build/pol-*).
# synthvm's files are not edited: the build passes [patch.crates-io] on the command line and
# restores synthvm's Cargo.lock afterwards (cargo rewrites it for the patched source).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VM="$ROOT/bindings/synthvm"
COPY="$ROOT/.build/pol-copy"
FULL=0; BUILD=1
for a in "$@"; do
    case "$a" in
        --full) FULL=1 ;;
        --no-build) BUILD=0 ;;
        *) echo "usage: $0 [--full] [--no-build]" >&2; exit 2 ;;
    esac
done
if [ $FULL = 1 ]; then BLOCKS="4 16 64 256"; THREADS="1 8 48"; else BLOCKS="4 64"; THREADS="1 8"; fi
ACCOUNTING="page block"
WORKLOADS="${WORKLOADS:-lusearch gcbench fragger}"
HEAP="${HEAP:-}"   # MiB; default: 16 up to 8 threads (several GCs per run), 48 above; doubled
                   # for 256 KiB blocks (whole-block charging of 63 blocks fills 16 MiB: a true OOM)
heap_for() { # heap_for THREADS [BLOCK_KIB]
    if [ -n "$HEAP" ]; then echo "$HEAP"; return; fi
    local h=16; [ "$1" -gt 8 ] && h=48; [ "${2:-64}" -ge 256 ] && h=$((h * 2)); echo $h
}
T0=$(date +%s)

# The overlay, refreshed file by file (cargo fingerprints path dependencies by mtime, and
# overlay.sh re-creates everything).
refresh_copy() {
    local stage="$ROOT/.build/pol-stage"
    OVERLAY_DEST="$stage" "$ROOT/scripts/overlay.sh" >/dev/null || return 1
    if [ ! -d "$COPY" ]; then cp -R "$stage" "$COPY"; return 0; fi
    local n=0 f
    while IFS= read -r f; do
        if ! cmp -s "$stage/$f" "$COPY/$f"; then
            mkdir -p "$(dirname "$COPY/$f")"; cp "$stage/$f" "$COPY/$f"; n=$((n + 1))
        fi
    done < <(cd "$stage" && find . -type f)
    while IFS= read -r f; do [ -e "$stage/$f" ] || rm -f "$COPY/$f"; done < <(cd "$COPY" && find . -type f)
    echo "== overlay copy: $n files changed"
}

build() { # build TARGET_DIR [cargo args...]
    local dir=$1; shift
    cp "$VM/Cargo.lock" "$ROOT/.build/pol-synthvm.Cargo.lock.orig"
    local log="$ROOT/.build/pol-build.log" t0=$SECONDS
    (cd "$VM" && cargo build --release \
        --config "patch.crates-io.mmtk.path=\"$COPY\"" --target-dir "$dir" "$@" >"$log" 2>&1) &
    local pid=$! next=$((SECONDS + 30))
    # A cold build takes minutes on 2 cores: say every 30 s how far it is.
    while kill -0 $pid 2>/dev/null; do
        sleep 1
        if [ $SECONDS -ge $next ]; then
            echo "   still building $(basename "$dir") ($((SECONDS - t0)) s, $(grep -c '^ *Compiling' "$log") crates compiled)"
            next=$((SECONDS + 30))
        fi
    done
    wait $pid
    local rc=$?
    grep -E '^(error|warning: unused)' -A8 "$log"
    cp "$ROOT/.build/pol-synthvm.Cargo.lock.orig" "$VM/Cargo.lock"
    [ -x "$dir/release/synthvm" ] || rc=1
    return $rc
}

fail=0; pass=0
LAST_OUT=""
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && tail -5 <<<"$2" | cut -c1-400 | sed 's/^/     /'; }
json() { grep -o "\"$1\":[0-9.]*" <<<"$2" | head -1 | cut -d: -f2; }
field() { grep -o "$1=[0-9]*" <<<"$2" | tail -1 | cut -d= -f2; }

run() { # run NAME BIN [args...]   (env CHECKS=0 for runs without the space's checks)
    local name=$1; shift
    local out; out=$(SHARDSWEEP_CHECK_ACCOUNTING=${CHECKS:-1} SHARDSWEEP_CHECK_RECLAIM=${CHECKS:-1} \
        timeout 600 "$@" 2>&1); local rc=$?
    LAST_OUT=$out
    if [ $rc != 0 ] || ! grep -q PASSED <<<"$out"; then bad "$name (rc=$rc)" "$out"; return 1; fi
    if [ "${CHECKS:-1}" = 1 ]; then
        local gcs acc rec
        gcs=$(json gc_count "$out")
        acc=$(grep -c '^shardsweep-check accounting gc=[0-9]* ok' <<<"$out")
        rec=$(grep -c '^shardsweep-check reclaim gc=[0-9]* ok' <<<"$out")
        if [ "$acc" != "$gcs" ] || [ "$rec" != "$gcs" ]; then
            bad "$name: $gcs GCs but $acc accounting / $rec reclaim checks passed" "$out"; return 1
        fi
        ok "$name ($gcs GCs checked)"
    else
        ok "$name"
    fi
}

mkdir -p "$ROOT/.build"
SANITY_KIB=4
if [ $BUILD = 1 ]; then
    vars="stock"
    for kib in $BLOCKS; do [ "$kib" = "$SANITY_KIB" ] || vars="$vars ss${kib}k"; done
    echo "== build stock baseline and shardsweep ($vars) with scripts/build-variants.sh"
    SHARDSWEEP_EXP_BIN_DIR="$ROOT/.build/pol-bin" "$ROOT/scripts/build-variants.sh" $vars || exit 1
    refresh_copy || exit 1
    echo "== build shardsweep, $SANITY_KIB KiB blocks, sanity (mmtk/shardsweep,mmtk/sanity)"
    SHARDSWEEP_BLOCK_KIB=$SANITY_KIB build "$ROOT/.build/pol-ss$SANITY_KIB" --features mmtk/shardsweep,mmtk/sanity || exit 1
    echo "== build shardsweep, 64 KiB blocks, vo_bit"
    SHARDSWEEP_BLOCK_KIB=64 build "$ROOT/.build/pol-ss64-vobit" --features mmtk/shardsweep,mmtk/vo_bit || exit 1
    echo "== builds done in $(( $(date +%s) - T0 )) s"
fi
bin_of() { # bin_of KIB: the shardsweep binary with KIB blocks (the sanity build for SANITY_KIB)
    if [ "$1" = "$SANITY_KIB" ]; then echo "$ROOT/.build/pol-ss$1/release/synthvm"; else echo "$ROOT/.build/pol-bin/synthvm-ss$1k"; fi
}
SS64=$(bin_of 64)
STOCK="$ROOT/.build/pol-bin/synthvm-stock"

echo "== stock MarkSweep baseline"
CHECKS=0 run "stock t8 lusearch" "$STOCK" --plan MarkSweep -t 8 --size small --verify --heap 16 lusearch

echo "== eager sweeping (4 KiB blocks: with a sanity GC after every GC)"
for kib in $BLOCKS; do
    bin=$(bin_of "$kib")
    for acc in $ACCOUNTING; do
        for t in $THREADS; do
            for w in $WORKLOADS; do
                SHARDSWEEP_ACCOUNTING=$acc run "ss${kib}k $acc t$t $w" \
                    "$bin" --plan MarkSweep -t "$t" --size small --verify --heap "$(heap_for "$t" "$kib")" "$w"
            done
        done
    done
done

echo "== lazy sweeping"
for acc in $ACCOUNTING; do
    for t in $THREADS; do
        for w in $WORKLOADS; do
            SHARDSWEEP_SWEEP=lazy SHARDSWEEP_ACCOUNTING=$acc run "ss64k lazy $acc t$t $w" \
                "$SS64" --plan MarkSweep -t "$t" --size small --verify --heap "$(heap_for "$t")" "$w"
        done
    done
done
SAN="$ROOT/.build/pol-ss$SANITY_KIB/release/synthvm"
for sw in eager lazy; do
    MMTK_STRESS_FACTOR=2097152 SHARDSWEEP_SWEEP=$sw run "ss${SANITY_KIB}k sanity stress $sw t8 lusearch" \
        "$SAN" --plan MarkSweep -t 8 --size small --verify --heap 16 lusearch
done

echo "== mutators destroyed after a GC that did not see them (--late-exit, as OpenJDK's thread exit)"
# An exiting thread leaves the thread list before it destroys its mutator; a GC in between does
# not release that mutator. Its heap must still be swept at that GC, or marks left in it make the
# next trace skip live objects' fields (--verify then finds freed, zeroed objects).
for sw in eager lazy; do
    SHARDSWEEP_SWEEP=$sw run "ss64k late exit $sw t8 lusearch x3" "$SS64" --plan MarkSweep -t 8 -n 3 --size small --verify --late-exit --heap 16 lusearch
done
CHECKS=0 run "stock late exit t8 lusearch x3" "$STOCK" --plan MarkSweep -t 8 -n 3 --size small --verify --late-exit --heap 16 lusearch
echo "== purging idle pages at once or under pressure only, other advice"
SHARDSWEEP_PURGE=now SHARDSWEEP_ADVICE=dontneed run "ss64k purge=now dontneed t8 lusearch" "$SS64" --plan MarkSweep -t 8 --size small --verify --heap 16 lusearch
SHARDSWEEP_PURGE=now SHARDSWEEP_ADVICE=dontneed SHARDSWEEP_SWEEP=lazy run "ss64k purge=now dontneed lazy t8 gcbench" "$SS64" --plan MarkSweep -t 8 --size small --verify --heap 16 gcbench
SHARDSWEEP_ADVICE=free SHARDSWEEP_DECAY=2 run "ss64k advice=free decay=2 t8 fragger" "$SS64" --plan MarkSweep -t 8 --size small --verify --heap 16 fragger
SHARDSWEEP_PURGE=pressure run "ss64k purge=pressure t8 lusearch" "$SS64" --plan MarkSweep -t 8 --size small --verify --heap 16 lusearch
SHARDSWEEP_PURGE=pressure SHARDSWEEP_SWEEP=lazy run "ss64k purge=pressure lazy t8 fragger" "$SS64" --plan MarkSweep -t 8 --size small --verify --heap 16 fragger
for adv in free keep; do
    SHARDSWEEP_ADVICE=$adv run "ss64k advice=$adv t8 fragger" "$SS64" --plan MarkSweep -t 8 --size small --verify --heap 16 fragger
done

echo "== abandonment: idle size classes only, none"
SHARDSWEEP_ABANDON_ALL=0 run "ss64k abandon_all=0 t8 lusearch" "$SS64" --plan MarkSweep -t 8 --size small --verify --heap 16 lusearch
SHARDSWEEP_ABANDON_ALL=0 SHARDSWEEP_ABANDON_IDLE=0 run "ss64k abandon_all=0 abandon_idle=0 t8 lusearch" "$SS64" --plan MarkSweep -t 8 --size small --verify --heap 16 lusearch
SHARDSWEEP_SWEEP=lazy SHARDSWEEP_ABANDON_ALL=1 run "ss64k lazy abandon_all=1 t8 lusearch" "$SS64" --plan MarkSweep -t 8 --size small --verify --heap 16 lusearch

echo "== documented defaults are the code's (scripts/check-doc-defaults.py)"
if out=$(python3 "$ROOT/scripts/check-doc-defaults.py" "$SS64" 2>&1); then ok "documented defaults ($(tail -1 <<<"$out"))"
else bad "documented defaults" "$out"; fi

echo "== the mutator report (SHARDSWEEP_REPORT_MUTATORS=1): one line at exit, a sample per mutator per GC"
out=$(SHARDSWEEP_REPORT_MUTATORS=1 timeout 120 "$SS64" --plan MarkSweep -t 8 --size small --heap 16 lusearch 2>&1); rc=$?
n=$(grep -o 'shardsweep: mutators: [0-9]* samples' <<<"$out" | grep -o '[0-9]*'); gcs=$(json gc_count "$out")
if [ $rc = 0 ] && [ -n "$n" ] && [ -n "$gcs" ] && [ "$n" -ge "$gcs" ] && grep -q 'size classes held mean [0-9.]* max [0-9]*, blocks held' <<<"$out" \
   && grep -q "; per GC ($gcs GCs, summed over its mutators): mutators [0-9.]*, blocks not full [0-9.]*" <<<"$out"; then
    ok "mutator report: $n samples over $gcs GCs"
else bad "mutator report (rc=$rc, samples '$n', GCs '$gcs')" "$out"; fi

echo "== vo_bit build"
VOB="$ROOT/.build/pol-ss64-vobit/release/synthvm"
for acc in $ACCOUNTING; do
    SHARDSWEEP_ACCOUNTING=$acc run "ss64k vo_bit $acc t8 lusearch" "$VOB" --plan MarkSweep -t 8 --size small --verify --heap 16 lusearch
done
out=$(SHARDSWEEP_SWEEP=lazy timeout 60 "$VOB" --plan MarkSweep lusearch 2>&1)
if grep -q "incompatible with the mmtk feature vo_bit" <<<"$out"; then ok "vo_bit refuses SHARDSWEEP_SWEEP=lazy"; else bad "vo_bit refuses SHARDSWEEP_SWEEP=lazy" "$out"; fi

echo "== post-GC footprint: fragger t8, 16 MiB (page charging vs whole blocks vs stock)"
# Each block is charged exactly for its header page and the pages of its live cells (checked per
# block at every GC by the reclaim check); here we also compare the totals.
# Page charging with SHARDSWEEP_PURGE=now: the default keeps idle pages (resident, counted) after
# a GC for reuse, up to half the free room, so its post-GC count says how much the purge policy
# keeps, not what page charging needs; "now" drops them at the sweep.
if SHARDSWEEP_PURGE=now SHARDSWEEP_ACCOUNTING=page run "footprint ss64k page fragger" "$SS64" --plan MarkSweep -t 8 --size small --heap 16 fragger; then
    pg=$LAST_OUT
    if SHARDSWEEP_ACCOUNTING=block run "footprint ss64k block fragger" "$SS64" --plan MarkSweep -t 8 --size small --heap 16 fragger; then
        bl=$LAST_OUT
        if CHECKS=0 run "footprint stock fragger" "$STOCK" --plan MarkSweep -t 8 --size small --heap 16 fragger; then
            st=$LAST_OUT
            line=$(grep '^shardsweep-check reclaim' <<<"$pg" | tail -1)
            charged=$(field charged "$line"); blockp=$(field block_pages "$line"); boundl=$(field bound_live "$line")
            livec=$(field live_cells "$line"); nblk=$(field blocks "$line")
            maxpg=$(grep -o 'space_used_pages=[0-9]*' <<<"$pg" | cut -d= -f2 | sort -n | tail -1)
            maxbl=$(grep -o 'space_used_pages=[0-9]*' <<<"$bl" | cut -d= -f2 | sort -n | tail -1)
            echo "     after the last GC (page): charged=$charged pages for $nblk blocks, $livec live cells; whole blocks would be $blockp; bound_live=$boundl"
            echo "     space used pages after a GC, max over GCs: page $maxpg, whole-block $maxbl"
            echo "     (synthvm peak_used_pages, which also samples before the end of the run without a GC: page $(json peak_used_pages "$pg"), block $(json peak_used_pages "$bl"), stock $(json peak_used_pages "$st"))"
            if [ $((charged * 2)) -le "$blockp" ] && [ $((charged)) -le $((nblk + 2 * livec)) ]; then
                ok "page charging holds <= 1/2 of the blocks' pages and <= blocks + 2 x live cells"
            else bad "page charging footprint ($charged vs $blockp whole-block pages, $nblk blocks, $livec live cells)"; fi
            if [ $((maxpg * 2)) -le "$maxbl" ]; then ok "post-GC space used, page charging ($maxpg) <= 1/2 of whole-block charging ($maxbl)"
            else bad "post-GC space used, page $maxpg vs whole-block $maxbl"; fi
        fi
    fi
fi

echo "== final GC of a mostly dead heap: workloads/mostly-dead.wl t8, 32 MiB, --final-gc (page vs whole blocks vs stock)"
# Per thread 4 kept objects of each of 27 size classes (16 B..2 KiB), allocated first (K in a row,
# so a block starts with them), then ~11 MB per thread of garbage; synthvm --final-gc forces a
# full GC after the run and reports used bytes (MMTk's used_bytes), live bytes and
# classes = distinct (allocating thread, size class) pairs among live objects (see synthvm README).
# Asserted for page charging, in 4 KiB pages, with the allowance measured from the space's own
# end-of-GC lines of that final GC (the issue's bound, "one page per live (thread, size class)"):
#   used - live <= (classes + ceil(blocks x 128 B / 4 KiB) + meta + other) x 4 KiB
# classes: one partly used page per (thread, class); 128 B: each block's header (page 0 is
# charged while the block lives); meta: the side-metadata pages MMTk counts in used bytes (the
# accounting line's meta=); other: pages of MMTk's other spaces (used pages - the space's used
# pages). It holds because the core's sweep charges exactly the header page and the pages live
# cells overlap: a dead cell that straddles into a page no live cell needs is set aside, and that
# page is given back.
# Stock MarkSweep and whole-block charging must stay at whole blocks: used >= half a 64 KiB block
# per live (thread, class), and an overhead (used - live) at least 4x page charging's.
MD="$VM/workloads/mostly-dead.wl"
if SHARDSWEEP_ACCOUNTING=page run "final-gc ss64k page mostly-dead t8" "$SS64" --plan MarkSweep -t 8 --size small --verify --heap 32 --final-gc "$MD"; then
    pg=$LAST_OUT
    if SHARDSWEEP_ACCOUNTING=block run "final-gc ss64k block mostly-dead t8" "$SS64" --plan MarkSweep -t 8 --size small --verify --heap 32 --final-gc "$MD"; then
        bl=$LAST_OUT
        if CHECKS=0 run "final-gc stock mostly-dead t8" "$STOCK" --plan MarkSweep -t 8 --size small --verify --heap 32 --final-gc "$MD"; then
            st=$LAST_OUT
            used=$(json final_gc_used_bytes "$pg"); live=$(json final_gc_live_bytes "$pg"); cls=$(json final_gc_live_classes "$pg")
            acc=$(grep '^shardsweep-check accounting' <<<"$pg" | tail -1); rec=$(grep '^shardsweep-check reclaim' <<<"$pg" | tail -1)
            meta=$(field meta "$acc"); nblk=$(field blocks "$rec"); spc=$(field space_used_pages "$rec")
            other=$(( used / 4096 - spc )); hdr=$(( (nblk * 128 + 4095) / 4096 ))
            allow=$(( (cls + nblk + hdr + meta + other) * 4096 )); issue=$(( (cls + hdr + meta + other) * 4096 ))
            over=$((used - live))
            bused=$(json final_gc_used_bytes "$bl"); sused=$(json final_gc_used_bytes "$st")
            bover=$((bused - $(json final_gc_live_bytes "$bl"))); sover=$((sused - $(json final_gc_live_bytes "$st")))
            echo "     live $live B in $cls (thread, class) pairs; used after the final GC: page $used, whole-block $bused, stock $sused B"
            echo "     page: used - live = $over B = $((over / 4096)) pages; $nblk blocks, meta $meta, header $hdr, other spaces $other pages"
            echo "     bound (classes + header + meta + other) = $((issue / 4096)) pages"
            if [ "$cls" -gt 0 ] && [ $over -ge 0 ] && [ $over -le $issue ]; then ok "final GC, page charging: used - live ($over B) <= (classes + header + meta + other) pages ($issue B)"
            else bad "final GC, page charging: used - live $over B > $issue B (one page per live (thread, class) + header + meta + other)"; fi
            half=$(( cls * 65536 / 2 ))
            if [ "$sused" -ge $half ] && [ "$sover" -ge $((4 * over)) ]; then ok "final GC, stock stays at whole blocks ($sused B used >= $half; overhead $sover B >= 4 x $over)"
            else bad "final GC, stock used $sused B (half a block per class: $half), overhead $sover B vs page $over B"; fi
            if [ "$bused" -ge $half ] && [ "$bover" -ge $((4 * over)) ]; then ok "final GC, whole-block charging stays at whole blocks ($bused B used; overhead $bover B >= 4 x $over)"
            else bad "final GC, whole-block charging used $bused B (half a block per class: $half), overhead $bover B vs page $over B"; fi
        fi
    fi
fi

echo "== out of memory is reported, promptly"
out=$(timeout 60 "$SS64" --plan MarkSweep -t 8 --heap 2 lusearch 2>&1); rc=$?
if [ $rc = 3 ] && grep -qi "out of memory" <<<"$out"; then ok "OOM at 2 MiB (rc=3)"; else bad "OOM at 2 MiB (rc=$rc)" "$out"; fi
out=$(SHARDSWEEP_SWEEP=lazy timeout 60 "$SS64" --plan MarkSweep -t 8 --heap 2 lusearch 2>&1); rc=$?
if [ $rc = 3 ] && grep -qi "out of memory" <<<"$out"; then ok "lazy: OOM at 2 MiB (rc=3)"; else bad "lazy: OOM at 2 MiB (rc=$rc)" "$out"; fi

echo "== a request that cannot be met ends in out of memory, not in endless GCs (issue 11)"
# synthvm hog: one thread keeps ~7 KiB arrays while 7 wait for it, as in the OpenJDK livelock.
# Before the fix (a fresh block's header page counted as an allocation success although its
# cells' pages were then refused, so MMTk never declared an emergency GC), 12.75 MiB spun forever.
# A timeout is a failure here. The GC-overhead limit is off: MMTk's own out-of-memory must end it.
for kib_heap in "12288K" "13056K"; do
    out=$(SYNTHVM_GC_OVERHEAD_LIMIT=0 timeout 120 "$SS64" --plan MarkSweep -t 8 --heap "$kib_heap" hog 2>&1); rc=$?
    if [ $rc = 3 ] && grep -qi "out of memory" <<<"$out"; then ok "hog t8 at $kib_heap: out of memory (rc=3)"
    else bad "hog t8 at $kib_heap: expected out of memory within 120 s (rc=$rc; 124 = timeout, the livelock)" "$out"; fi
done
out=$(SYNTHVM_GC_OVERHEAD_LIMIT=0 SHARDSWEEP_CHECK_ACCOUNTING=1 timeout 120 "$SS64" --plan MarkSweep -t 8 --heap 20 hog 2>&1); rc=$?
if [ $rc = 0 ] && grep -q PASSED <<<"$out"; then ok "hog t8 at 20 MiB passes"; else bad "hog t8 at 20 MiB (rc=$rc)" "$out"; fi

# The low-heap sweep: every heap from the smallest (1 MiB) to past each build's minimum, at 1, 24
# and 48 threads, 64 KiB and 4 KiB blocks, GC-overhead limit off: each run passes or reports out
# of memory (rc 3) within its timeout; a timeout or any other end is a failure (not "too small").
# Small size (minimum heaps 2-4 MiB) from 0.5 MiB in 256 KiB steps, and default size at 24
# threads (the livelock's thread count; minimum ~11.5 MiB at 64 KiB) from 8 MiB in 512 KiB steps
# (near the minimum a run takes ~12 s on 2 idle cores: many GCs, none of them futile), each up
# to two passes in a row.
echo "== low-heap sweep: pass or out of memory, never a spin (GC-overhead limit off)"
lowheap() { # lowheap KIB THREADS SIZE FROM_KIB STEP_KIB: up from FROM until two passes in a row
    local kib=$1 t=$2 size=$3 h=$4 passes=0 ooms=0 streak=0 n=0 others="" slowest=0 s ms out rc
    local bin; bin=$(bin_of "$kib")
    while [ $streak -lt 2 ] && [ $n -lt 48 ]; do
        s=$(date +%s%N)
        out=$(SYNTHVM_GC_OVERHEAD_LIMIT=0 timeout 120 "$bin" --plan MarkSweep -t "$t" --size "$size" --heap "${h}K" lusearch 2>&1); rc=$?
        ms=$(( ($(date +%s%N) - s) / 1000000 )); [ $ms -gt $slowest ] && slowest=$ms
        if [ $rc = 0 ] && grep -q PASSED <<<"$out"; then passes=$((passes + 1)); streak=$((streak + 1))
        elif [ $rc = 3 ] && grep -qi "out of memory" <<<"$out"; then ooms=$((ooms + 1)); streak=0
        else others="$others ${h}K:rc=$rc"; LAST_OUT=$out; streak=0; fi
        h=$((h + $5)); n=$((n + 1))
    done
    if [ -z "$others" ] && [ $streak = 2 ] && [ $ooms -ge 1 ]; then
        ok "low heaps ss${kib}k t$t $size $4K..$((h - $5))K: $ooms out of memory, $passes passed; slowest run ${slowest} ms"
    else bad "low heaps ss${kib}k t$t $size from $4K: ${others:+runs that neither passed nor ran out of memory:$others; }$ooms out of memory, $passes passed (want >= 1 out of memory, then two passes in a row)" "$LAST_OUT"; fi
}
# The default-size sweep skips the sanity build (a sanity GC after every GC: at 13.5 MiB, just
# below its minimum, the 4 KiB sanity build passes after 4485 GCs in 172 s: slow, not a spin).
for kib in $BLOCKS; do
    for t in 1 24 48; do lowheap "$kib" "$t" small 512 256; done
    [ "$kib" = "$SANITY_KIB" ] || lowheap "$kib" 24 default 8192 512
done

echo "== invalid settings are refused clearly: one line on stderr naming the valid values, exit 2"
# RUST_BACKTRACE=1 must not add a backtrace (no panic); aliases (pages, madv_free...) are refused.
for kv in "SHARDSWEEP_ACCOUNTING=bogus:valid values are page, block" "SHARDSWEEP_ACCOUNTING=pages:valid values are page, block" \
          "SHARDSWEEP_SWEEP=bogus:valid values are eager, lazy" \
          "SHARDSWEEP_ABANDON_IDLE=maybe:valid values are 0, 1" "SHARDSWEEP_ABANDON_ALL=some:valid values are 0, 1" "SHARDSWEEP_PURGE=later:valid values are gc, now, pressure" "SHARDSWEEP_CHECK_RECLAIM=2:valid values are 0, 1" "SHARDSWEEP_DECAY=soon:valid values are 0 (off) to 1000000" "SHARDSWEEP_ADVICE=often:valid values are dontneed, free, keep" "SHARDSWEEP_ADVICE=madv_free:valid values are dontneed, free, keep"; do
    var=${kv%%:*}; msg=${kv#*:}
    err=$(env RUST_BACKTRACE=1 "$var" timeout 60 "$SS64" --plan MarkSweep lusearch 2>&1 >/dev/null); rc=$?
    if [ $rc = 2 ] && [ "$(grep -c . <<<"$err")" = 1 ] && grep -q "^shardsweep: $var: .*$msg" <<<"$err"; then
        ok "invalid $var (exit 2, one line)"
    else
        bad "invalid $var: rc=$rc, stderr:" "$err"
    fi
done
echo "== a setting given to a run that ignores it is reported once on stderr"
for c in "stock MarkSweep:$STOCK:MarkSweep:no shardsweep space" "ss64k MarkCompact:$SS64:MarkCompact:does not use the shardsweep space"; do
    IFS=: read -r name bin plan msg <<<"$c"
    out=$(SHARDSWEEP_ACCOUNTING=block timeout 120 "$bin" --plan "$plan" --size small lusearch 2>&1); rc=$?
    n=$(grep -c "ignored SHARDSWEEP_ACCOUNTING=block: .*$msg" <<<"$out")
    if [ $rc = 0 ] && [ "$n" = 1 ]; then ok "ignored setting reported: $name"; else bad "ignored setting: $name (rc=$rc, $n notes)" "$out"; fi
done

echo "== combinations the space refuses fail the build, naming the features (cargo check)"
# marksweep_as_nonmoving (native_ms as other plans' non-moving space) is refused, not supported
# (policy/mod.rs); malloc_mark_sweep selects another MarkSweep space.
for c in "marksweep_as_nonmoving:does not support \`marksweep_as_nonmoving\`" "malloc_mark_sweep:\`shardsweep\` and \`malloc_mark_sweep\` both select"; do
    feat=${c%%:*}; msg=${c#*:}
    out=$(cd "$VM" && cargo check --quiet --config "patch.crates-io.mmtk.path=\"$COPY\"" \
        --target-dir "$ROOT/.build/pol-refused" --features "mmtk/shardsweep,mmtk/$feat" 2>&1); rc=$?
    cp "$ROOT/.build/pol-synthvm.Cargo.lock.orig" "$VM/Cargo.lock" 2>/dev/null
    if [ $rc != 0 ] && grep -q "error: feature.*$msg\|error: features.*$msg" <<<"$out"; then
        ok "shardsweep + $feat refused at build time"
    else
        bad "shardsweep + $feat: rc=$rc, expected a compile_error naming both features" "$out"
    fi
done

echo "$pass passed, $fail failed ($(( $(date +%s) - T0 )) s)"
[ $fail = 0 ]

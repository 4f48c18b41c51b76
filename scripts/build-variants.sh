#!/usr/bin/env bash
# Builds the synthvm variants the experiments measure and caches their binaries under
# .build/bin/synthvm-<variant> (plus a .info file: settings, git revision, sha256).
#
#   scripts/build-variants.sh                 # every variant
#   scripts/build-variants.sh stock ss64k     # only these
#   scripts/build-variants.sh --list          # names and settings
#
# Variants (one cargo target dir each under .build/, shared with scripts/test-policy.sh where
# the settings are the same, so CI never builds the same thing twice):
#   stock     patched copy WITHOUT the feature = stock mmtk 0.33.0 MarkSweep (64 KiB blocks);
#             also runs MarkCompact, SemiSpace, Immix (--plan)           .build/target-stock
#   ssNk      copy + --features mmtk/shardsweep, SHARDSWEEP_BLOCK_KIB=N (N = 4, 8, 16, 32, 64,
#             128, 256); accounting is chosen at run time (SHARDSWEEP_ACCOUNTING) .build/target-ssN
#   ssNk-maxM the same with SHARDSWEEP_MAX_OBJECT_BYTES=M (a power of two from 512 to an eighth
#             of the block): the largest object the space serves, larger ones to the
#             large-object space (a control of the memory studies)    .build/target-ssN-maxM
#   malloc    copy + --features mmtk/malloc_mark_sweep (MarkSweep over libc malloc)
#                                                                         .build/target-malloc
#   pristine  the UNMODIFIED crate from cargo's registry (no overlay), to check that `stock`
#             behaves as pristine mmtk 0.33.0                             .build/target-pristine
#
# Cargo decides what to rebuild. The overlay copy is refreshed file by file (only files whose
# content changed are rewritten), so an unchanged policy/ does not force a rebuild of mmtk.
# synthvm's files are not edited: [patch.crates-io] is passed on the command line and synthvm's
# Cargo.lock is restored afterwards (cargo rewrites it for a patched source).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VM="$ROOT/bindings/synthvm"
COPY="$ROOT/.build/mmtk-0.33.0-shardsweep"
BIN="${SHARDSWEEP_EXP_BIN_DIR:-$ROOT/.build/bin}"   # where the binaries are cached (CI uses its own)
ALL="stock ss4k ss16k ss64k malloc pristine"

describe() { # variant -> "target-dir|block-kib|cargo features|mmtk source"
    case "$1" in
        stock)    echo "target-stock||-|copy" ;;
        malloc)   echo "target-malloc||mmtk/malloc_mark_sweep|copy" ;;
        pristine) echo "target-pristine||pristine|registry" ;;
        ss*k-max*) local k=${1#ss} m=${1##*-max}; k=${k%%k-max*}
                  case "$k" in 4|8|16|32|64|128|256) ;; *) return 1 ;; esac
                  case "$m" in 512|1024|2048|4096|8192|16384|32768) ;; *) return 1 ;; esac
                  echo "target-ss$k-max$m|$k|mmtk/shardsweep|copy" ;;
        ss*k)     local k=${1#ss}; k=${k%k}
                  case "$k" in 4|8|16|32|64|128|256) echo "target-ss$k|$k|mmtk/shardsweep|copy" ;;
                                                    *) return 1 ;; esac ;;
        *) return 1 ;;
    esac
}

registry_src() {
    local d
    for d in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/mmtk-0.33.0; do
        [ -f "$d/Cargo.toml" ] && { echo "$d"; return 0; }
    done
    return 1
}

# Refresh the overlay copy without touching unchanged files (cargo fingerprints path
# dependencies by mtime; overlay.sh re-copies everything).
refresh_copy() {
    local stage="$ROOT/.build/overlay-stage"
    OVERLAY_DEST="$stage" "$ROOT/scripts/overlay.sh" >/dev/null || return 1
    if [ ! -d "$COPY" ]; then
        mkdir -p "$COPY" && cp -R "$stage/." "$COPY/" && return 0
    fi
    local n=0 f
    while IFS= read -r -d '' f; do
        if ! cmp -s "$stage/$f" "$COPY/$f"; then
            mkdir -p "$(dirname "$COPY/$f")"; cp "$stage/$f" "$COPY/$f"; n=$((n + 1))
        fi
    done < <(cd "$stage" && find . -type f -print0)
    while IFS= read -r -d '' f; do
        [ -e "$stage/$f" ] || { rm -f "$COPY/$f"; n=$((n + 1)); }
    done < <(cd "$COPY" && find . -type f -print0)
    [ $n -gt 0 ] && echo "build-variants: overlay copy refreshed ($n files changed)"
    return 0
}

build_one() { # variant
    local v=$1 desc dir kib feat src
    desc=$(describe "$v") || { echo "build-variants: unknown variant '$v' (known: $ALL, ssNk, ssNk-maxM)" >&2; return 2; }
    IFS='|' read -r dir kib feat src <<<"$desc"
    local path="$COPY" maxb=""
    case "$v" in *-max*) maxb=${v##*-max} ;; esac
    [ "$src" = registry ] && { path=$(registry_src) || { echo "mmtk-0.33.0 not in cargo's registry (run scripts/overlay.sh once)" >&2; return 1; }; }
    local args=(build --release --config "patch.crates-io.mmtk.path=\"$path\"" --target-dir "$ROOT/.build/$dir")
    [ "$feat" != - ] && args+=(--features "$feat")
    local save="$ROOT/.build/synthvm.Cargo.lock.build-variants"
    cp "$VM/Cargo.lock" "$save"
    local t0=$SECONDS rc
    echo "build-variants: $v  (cd bindings/synthvm && ${kib:+SHARDSWEEP_BLOCK_KIB=$kib }${maxb:+SHARDSWEEP_MAX_OBJECT_BYTES=$maxb }cargo ${args[*]})"
    # cargo's warnings about the mmtk copy are noise here: keep them in a log, show it on failure
    local log="$ROOT/.build/build-$v.log"
    # A cold build takes minutes on 2 cores: say every 30 s how far it is (cargo's "Compiling"
    # lines in the log; ~95 crates from cold, two after a policy change).
    (cd "$VM" && env ${kib:+SHARDSWEEP_BLOCK_KIB=$kib} ${maxb:+SHARDSWEEP_MAX_OBJECT_BYTES=$maxb} cargo "${args[@]}") >"$log" 2>&1 &
    local pid=$! next=$((SECONDS + 30))
    while kill -0 $pid 2>/dev/null; do
        sleep 1
        if [ $SECONDS -ge $next ]; then
            echo "build-variants: $v still building ($((SECONDS - t0)) s, $(grep -c '^ *Compiling' "$log") crates compiled)"
            next=$((SECONDS + 30))
        fi
    done
    wait $pid
    rc=$?
    cp "$save" "$VM/Cargo.lock"
    [ $rc = 0 ] || { tail -40 "$log" >&2; echo "build-variants: $v FAILED (rc=$rc), log: .build/build-$v.log" >&2; return $rc; }
    mkdir -p "$BIN"
    local out="$ROOT/.build/$dir/release/synthvm"
    # Copy (not link): a later rebuild by someone else must not change a binary mid-study.
    if ! cmp -s "$out" "$BIN/synthvm-$v"; then
        cp "$out" "$BIN/synthvm-$v.tmp" && mv "$BIN/synthvm-$v.tmp" "$BIN/synthvm-$v"
    fi
    local rev dirty
    rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
    dirty=$(git -C "$ROOT" status --porcelain -- src policy bindings/synthvm/src 2>/dev/null | wc -l)
    {
        echo "variant=$v"
        echo "mmtk_source=$path"
        echo "features=$feat"
        echo "block_kib=${kib:-64 (stock)}"
        [ -n "$maxb" ] && echo "max_object_bytes=$maxb"
        echo "git_rev=$rev"
        echo "dirty_files_in_src_policy_synthvm=$dirty"
        echo "sha256=$(sha256sum "$BIN/synthvm-$v" | cut -c1-16)"
        echo "built=$(date -u +%FT%TZ) in $((SECONDS - t0)) s"
    } >"$BIN/synthvm-$v.info"
    # keep every binary's .info by sha256: results name the binary they ran by its sha256
    mkdir -p "$BIN/info-archive"
    cp "$BIN/synthvm-$v.info" "$BIN/info-archive/synthvm-$v-$(sed -n 's/^sha256=//p' "$BIN/synthvm-$v.info").info"
    echo "build-variants: $v -> ${BIN#"$ROOT"/}/synthvm-$v ($((SECONDS - t0)) s)"
}

if [ "${1:-}" = --list ]; then
    for v in $ALL; do echo "$v: $(describe "$v")"; done; exit 0
fi
case "${1:-}" in -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;; esac
VARIANTS="${*:-$ALL}"
mkdir -p "$ROOT/.build"
need_copy=0
for v in $VARIANTS; do
    d=$(describe "$v") || { echo "build-variants: unknown variant '$v' (known: $ALL, ssNk, ssNk-maxM)" >&2; exit 2; }
    [ "${d##*|}" = copy ] && need_copy=1
done
if [ $need_copy = 1 ]; then refresh_copy || exit 1; fi
fail=0
for v in $VARIANTS; do build_one "$v" || fail=1; done
exit $fail

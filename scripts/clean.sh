#!/usr/bin/env bash
# Frees the disk the builds take. Everything here is rebuilt by the next command that needs it.
#
#   scripts/clean.sh          # the cargo target dirs under .build/ (~0.4 GB each; a full
#                             # scripts/test.sh makes ~15 of them: ~6 GB). Keeps the studies'
#                             # binaries (.build/bin, by sha256) so results stay reproducible,
#                             # and the overlay copies (a few MB).
#   scripts/clean.sh --all    # all of .build/ and ./target (binaries too)
#   scripts/clean.sh --dry-run [--all]   # only say what would be removed
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ALL=0; DRY=0
for a in "$@"; do
    case "$a" in
        --all) ALL=1 ;;
        --dry-run|-n) DRY=1 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "clean: unknown option $a (usage: scripts/clean.sh [--all] [--dry-run])" >&2; exit 2 ;;
    esac
done
cd "$ROOT"
shopt -s nullglob
if [ $ALL = 1 ]; then
    set --
    for d in .build target; do [ -d "$d" ] && set -- "$@" "$d"; done
else
    # cargo target dirs: those of test-core.sh (target-core*), build-variants.sh (target-*),
    # test-policy.sh (pol-*, except its copy and staging dir), and the standalone ones
    set --
    for d in .build/target-* .build/pol-*/ target; do
        d=${d%/}
        case "$d" in .build/pol-copy|.build/pol-stage) continue ;; esac
        [ -d "$d" ] && set -- "$@" "$d"
    done
fi
[ $# -gt 0 ] || { echo "clean: nothing to remove"; exit 0; }
total=$(du -sck "$@" 2>/dev/null | tail -1 | cut -f1)
for d in "$@"; do
    [ -e "$d" ] || continue
    if [ $DRY = 1 ]; then echo "would remove $d"; else rm -rf "$d"; fi
done
printf 'clean: %s %d MB\n' "$([ $DRY = 1 ] && echo 'would free' || echo freed)" $((total / 1024))

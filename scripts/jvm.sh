#!/usr/bin/env bash
# Builds MMTk OpenJDK 11 with the shardsweep space: one JDK, then one libmmtk_openjdk.so per
# configuration, each in an image folder of its own under .build/jvm/images/.
#
#   scripts/jvm.sh build --openjdk DIR --mmtk-openjdk DIR [--boot-jdk DIR] [--blocks 64,32,4]
#   scripts/jvm.sh check [--quick]  # checks the images (scripts/jvm-check.sh)
#   scripts/jvm.sh images           # prints the image folders the last build made
#
# DIR are git checkouts (or clones) of mmtk/openjdk and mmtk/mmtk-openjdk holding the pinned
# commits below; without --openjdk / --mmtk-openjdk they are cloned from GitHub into
# .build/jvm/checkouts (where the network allows; JVM_CLONE_BASE, default https://github.com/mmtk,
# names another place that serves openjdk.git and mmtk-openjdk.git, a URL or a local directory; from a
# directory nothing is checked out, so a partial copy serves). The checkouts are only read: each pinned
# commit is exported (git archive) into .build/jvm/src/, and our patches
# (bindings/openjdk/patches/) are applied to the export. A second run rebuilds only what
# changed: the export is kept while its commit is the pinned one, a patch set that changed is
# reversed and the new one applied (a file whose content ends as it was keeps its time, so make
# rebuilds only what changed), configure runs again only when its arguments or make/autoconf
# change, and make and cargo are incremental.
#
# Configurations: stock (mmtk 0.33.0's MarkSweep, --no-default-features), and ss<N>k
# (shardsweep, N KiB blocks) for each block size of --blocks (default 64,32,4: ss64k, ss32k
# and ss4k, which `scripts/jvm.sh check` needs).
# Each image is a hard-linked copy of the JDK image with its own libmmtk_openjdk.so.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OPENJDK_COMMIT=28e56ee32525c32c5a88391d0b01f24e5cd16c0f      # the commit e350a01 names
MMTK_OPENJDK_COMMIT=e350a01316b56172477906b62e07a2373232fe31 # mmtk-openjdk master, 2025-09-22
PATCHES="$ROOT/bindings/openjdk/patches"
JVM_DIR="${JVM_BUILD_DIR:-$ROOT/.build/jvm}" # JVM_BUILD_DIR: elsewhere (the tests of this script)
CLONE_BASE="${JVM_CLONE_BASE:-https://github.com/mmtk}"
CONF=linux-x86_64-normal-server-release
APT_PACKAGES="autoconf make zip unzip file g++ libx11-dev libxext-dev libxrender-dev libxrandr-dev libxtst-dev libxt-dev libcups2-dev libfontconfig1-dev libasound2-dev"

die() { echo "jvm: $*" >&2; exit 2; }
usage() { die "usage: scripts/jvm.sh build [--openjdk DIR] [--mmtk-openjdk DIR] [--boot-jdk DIR] [--blocks LIST] | check [--quick] | images"; }

# step NAME CMD...: runs CMD, then prints NAME and its wall time.
step() {
    local name="$1" t0=$SECONDS; shift
    echo "jvm: $name ..."
    "$@"
    echo "jvm: $name: done in $((SECONDS - t0)) s"
}

# run_logged LOG CMD...: CMD's output into LOG; on failure, its last lines and the log's path.
run_logged() {
    local log="$1"; shift
    mkdir -p "$(dirname "$log")"
    if ! "$@" >"$log" 2>&1; then
        tail -n 30 "$log" >&2
        echo "jvm: failed: $* (log: $log)" >&2
        exit 1
    fi
}

cmd="${1:-}"; [ $# -gt 0 ] && shift
[ "$cmd" = check ] && exec "$ROOT/scripts/jvm-check.sh" "$@"
OPENJDK_SRC=""; MMTK_OPENJDK_SRC=""; BOOT_JDK="${JAVA_HOME:-}"; BLOCKS="64,32,4"
while [ $# -gt 0 ]; do
    case "$1" in
        --openjdk) OPENJDK_SRC="${2:?}"; shift 2 ;;
        --mmtk-openjdk) MMTK_OPENJDK_SRC="${2:?}"; shift 2 ;;
        --boot-jdk) BOOT_JDK="${2:?}"; shift 2 ;;
        --blocks) BLOCKS="${2:?}"; shift 2 ;;
        *) die "unknown option '$1'; valid: --openjdk DIR, --mmtk-openjdk DIR, --boot-jdk DIR, --blocks LIST (of 4 8 16 32 64 128 256)" ;;
    esac
done

# The configurations: name and block size (0: stock).
configs() {
    echo "stock 0"
    local b
    for b in ${BLOCKS//,/ }; do
        case "$b" in 4|8|16|32|64|128|256) echo "ss${b}k $b" ;;
            *) die "--blocks $BLOCKS: invalid block size '$b'; valid: 4 8 16 32 64 128 256" ;; esac
    done
}

if [ "$cmd" = images ]; then
    configs | while read -r name _; do echo "$JVM_DIR/images/$name"; done
    exit 0
fi
[ "$cmd" = build ] || usage
configs >/dev/null
# One build at a time: two makes in one build directory corrupt each other's files.
mkdir -p "$JVM_DIR"
exec 9>"$JVM_DIR/.lock"
flock -n 9 || die "another scripts/jvm.sh build is running (lock $JVM_DIR/.lock); wait for it"

# --- 1. What the build needs on this machine --------------------------------------------------
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
check_tools() {
    local missing=() p
    for p in $APT_PACKAGES; do installed "$p" || missing+=("$p"); done
    # freetype's headers: Debian 12 names the package libfreetype-dev (libfreetype6-dev before).
    installed libfreetype-dev || installed libfreetype6-dev || missing+=("libfreetype-dev")
    [ ${#missing[@]} -eq 0 ] || die "missing Debian packages; run: apt-get install -y ${missing[*]}"
    command -v cargo >/dev/null || die "cargo not found; install Rust (https://rustup.rs), stable"
    if [ -z "$BOOT_JDK" ]; then
        for d in /usr/lib/jvm/java-11-openjdk-amd64 /usr/lib/jvm/java-17-openjdk-amd64; do
            [ -x "$d/bin/javac" ] && BOOT_JDK="$d" && break
        done
    fi
    [ -n "$BOOT_JDK" ] && [ -x "$BOOT_JDK/bin/javac" ] \
        || die "no boot JDK (a JDK 11 or 17 with javac); run: apt-get install -y openjdk-17-jdk-headless, or pass --boot-jdk DIR"
    BOOT_VERSION="$("$BOOT_JDK/bin/java" -XshowSettings:properties -version 2>&1 \
        | sed -n 's/^ *java.specification.version = //p')"
    case "$BOOT_VERSION" in
        10|11|17) ;;
        *) die "boot JDK $BOOT_JDK is version $BOOT_VERSION; valid: 10, 11 or 17 (--boot-jdk DIR)" ;;
    esac
    echo "jvm: boot JDK $BOOT_JDK (version $BOOT_VERSION); $(cargo --version)"
}
check_tools

# --- 2. The checkouts, at the pinned commits --------------------------------------------------
checkout() { # NAME URL COMMIT DIR -> prints the checkout's path
    local name="$1" url="$2" commit="$3" dir="$4"
    if [ -z "$dir" ]; then
        dir="$JVM_DIR/checkouts/$name"
        if [ ! -d "$dir/.git" ] && [ ! -f "$dir/.git" ]; then
            echo "jvm: cloning $url into $dir" >&2
            mkdir -p "$JVM_DIR/logs"
            # Over the network: blobs on demand, fetched in one go by the checkout. From a local
            # copy (a path): every object it has, and HEAD detached at the commit with no work
            # tree, since the build reads the commit's tree with git archive, leaving out the
            # tests, and a checkout would need every blob (a partial copy may lack some).
            local filter=(--filter=blob:none) local_copy=0
            case "$url" in *://*|*@*:*) ;; *) filter=(); local_copy=1 ;; esac
            git clone -q "${filter[@]}" --no-checkout "$url" "$dir" >&2 2>"$JVM_DIR/logs/clone-$name.log" \
                || die "cannot clone $url (git's words: $JVM_DIR/logs/clone-$name.log); pass a checkout at $commit with --$name DIR"
            if [ "$local_copy" = 1 ]; then
                { git -C "$dir" cat-file -e "$commit^{commit}" \
                    && git -C "$dir" update-ref --no-deref HEAD "$commit"; } >&2 2>>"$JVM_DIR/logs/clone-$name.log" \
                    || die "$url has no commit $commit; pass a checkout at it with --$name DIR"
            else
                git -C "$dir" checkout -q --detach "$commit" >&2 2>>"$JVM_DIR/logs/clone-$name.log" \
                    || die "cannot check out $commit in $dir; pass a checkout at it with --$name DIR"
            fi
        fi
    fi
    [ -d "$dir" ] || die "--$name $dir: no such directory"
    local head
    head="$(git -C "$dir" rev-parse HEAD 2>/dev/null)" || die "--$name $dir: not a git checkout"
    [ "$head" = "$commit" ] \
        || die "--$name $dir is at $head, not the pinned $commit; run: git -C $dir checkout $commit"
    echo "$dir"
}
OPENJDK_SRC="$(checkout openjdk "$CLONE_BASE/openjdk.git" "$OPENJDK_COMMIT" "$OPENJDK_SRC")"
MMTK_OPENJDK_SRC="$(checkout mmtk-openjdk "$CLONE_BASE/mmtk-openjdk.git" "$MMTK_OPENJDK_COMMIT" "$MMTK_OPENJDK_SRC")"

# export SRC COMMIT DEST [EXCLUDES...]: the commit's tree into DEST, once per commit. Tests are
# left out of OpenJDK's (the build needs none; some are large blobs a partial clone may lack).
export_tree() {
    local src="$1" commit="$2" dest="$3"; shift 3
    if [ "$(cat "$dest/.shardsweep-export" 2>/dev/null)" = "$commit" ]; then
        return
    fi
    rm -rf "$dest"; mkdir -p "$dest" "$JVM_DIR/logs"
    local pathspec=(.) x
    for x in "$@"; do pathspec+=(":(exclude)$x"); done
    # git may name an excluded blob that a partial clone lacks on stderr, and still exit 0.
    (set -o pipefail; git -C "$src" archive --format=tar "$commit" -- "${pathspec[@]}" 2>"$JVM_DIR/logs/export.log" \
        | tar -x -C "$dest") || { cat "$JVM_DIR/logs/export.log" >&2; die "cannot export $commit from $src (git archive failed)"; }
    echo "$commit" >"$dest/.shardsweep-export"
}
JDK_SRC="$JVM_DIR/src/openjdk"
MOJ_SRC="$JVM_DIR/src/mmtk-openjdk"
step "export openjdk $OPENJDK_COMMIT" \
    export_tree "$OPENJDK_SRC" "$OPENJDK_COMMIT" "$JDK_SRC" test src/utils/LogCompilation/src/test
step "export mmtk-openjdk $MMTK_OPENJDK_COMMIT" \
    export_tree "$MMTK_OPENJDK_SRC" "$MMTK_OPENJDK_COMMIT" "$MOJ_SRC"

# --- 3. Our patches ------------------------------------------------------------------------
# apply_patches DEST PATCH...: makes DEST's applied set exactly PATCH...; the set applied last
# is kept in DEST/.shardsweep-applied/ and reversed (last first) when it differs. A file whose
# content ends as it was keeps its modification time, so make rebuilds only what changed.
apply_patches() {
    local dest="$1"; shift
    local applied="$dest/.shardsweep-applied" want p i=0 f
    want="$(cat "$@" 2>/dev/null | sha256sum | cut -c1-16)"
    [ "$(cat "$applied/SET" 2>/dev/null)" = "$want" ] && { echo "jvm: patches of $dest unchanged"; return; }
    # The files any old or new patch touches, with their content hash and time before.
    local touched
    touched="$({ cat "$@"; cat "$applied"/*.patch 2>/dev/null || true; } | sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' | sort -u)"
    local before="$dest/.shardsweep-before"
    : >"$before"
    for f in $touched; do
        [ -f "$dest/$f" ] && echo "$f $(sha256sum <"$dest/$f" | cut -c1-64) $(stat -c %Y "$dest/$f")" >>"$before"
    done
    if [ -d "$applied" ]; then
        for p in $(ls "$applied"/*.patch 2>/dev/null | sort -r); do
            patch -s -R -p1 -F0 -d "$dest" --no-backup-if-mismatch <"$p" \
                || die "cannot reverse $p in $dest; remove $dest and run again"
        done
        rm -rf "$applied"
    fi
    mkdir -p "$applied"
    for p in "$@"; do
        i=$((i + 1))
        patch -s --dry-run -p1 -F0 -d "$dest" <"$p" >/dev/null 2>&1 \
            || die "patch $p does not apply to $dest (commit $(cat "$dest/.shardsweep-export")); fix the patch against that commit"
        patch -s -p1 -F0 -d "$dest" --no-backup-if-mismatch <"$p"
        cp "$p" "$applied/$(printf %02d $i)-$(basename "$p")"
        echo "jvm: applied $(basename "$p")"
    done
    local sum mtime n=0
    while read -r f sum mtime; do
        if [ -f "$dest/$f" ] && [ "$(sha256sum <"$dest/$f" | cut -c1-64)" = "$sum" ]; then
            touch -d "@$mtime" "$dest/$f"
        else
            n=$((n + 1))
        fi
    done <"$before"
    rm -f "$before"
    echo "jvm: $n file(s) of $dest changed"
    echo "$want" >"$applied/SET"
}
JDK_PATCHES=()
case "$BOOT_VERSION" in 10|11) ;; *) JDK_PATCHES+=("$PATCHES/openjdk-boot-jdk17.patch") ;; esac
step "patch openjdk" apply_patches "$JDK_SRC" "${JDK_PATCHES[@]}"
MOJ_PATCHES=("$PATCHES"/mmtk-openjdk-*.patch)
step "patch mmtk-openjdk" apply_patches "$MOJ_SRC" "${MOJ_PATCHES[@]}"

# --- 4. The patched mmtk copy, and the binding pointed at it ---------------------------------
step "overlay (patched mmtk 0.33.0)" "$ROOT/scripts/overlay.sh"
mkdir -p "$MOJ_SRC/mmtk/.cargo"
printf '# Written by scripts/jvm.sh: mmtk 0.33.0 is the patched copy.\n[patch.crates-io]\nmmtk = { path = "%s" }\n' \
    "$ROOT/.build/mmtk-0.33.0-shardsweep" >"$MOJ_SRC/mmtk/.cargo/config.toml"

# Nothing of the caller's MMTk or space settings reaches the build: mmtk-openjdk's make turns
# MMTK_PLAN into a cargo feature, and the core reads SHARDSWEEP_BLOCK_KIB when compiled.
for v in $(env | sed -n 's/^\(MMTK_[A-Z_]*\|SHARDSWEEP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
# mmtk-openjdk pins Rust 1.83.0, older than mmtk 0.33.0's 1.84: current stable builds both.
export RUSTUP_TOOLCHAIN="${RUSTUP_TOOLCHAIN:-stable}"
JOBS="$(nproc)"

# --- 5. The JDK ---------------------------------------------------------------------------
CONFIGURE_ARGS=(--disable-warnings-as-errors --with-debug-level=release --with-target-bits=64
    --with-boot-jdk="$BOOT_JDK" --with-jobs="$JOBS" --with-native-debug-symbols=none)
configure_jdk() {
    local want
    # Again when its arguments or its sources (make/autoconf, which a patch may change) change:
    # by content, not by time (a patch reversed and applied again leaves them newer than the
    # configuration), hence make's own check off (CONF_CHECK=ignore below).
    want="$( (printf '%s\n' "${CONFIGURE_ARGS[@]}"; find "$JDK_SRC/make/autoconf" -type f | sort | xargs cat) | sha256sum | cut -c1-16)"
    if [ -f "$JDK_SRC/build/$CONF/spec.gmk" ] && [ "$(cat "$JDK_SRC/build/.shardsweep-configure" 2>/dev/null)" = "$want" ]; then
        echo "jvm: configure arguments unchanged"; return
    fi
    (cd "$JDK_SRC" && run_logged "$JVM_DIR/logs/configure.log" bash configure "${CONFIGURE_ARGS[@]}")
    echo "$want" >"$JDK_SRC/build/.shardsweep-configure"
}
step "configure" configure_jdk
step "make images (log: $JVM_DIR/logs/make-images.log)" \
    run_logged "$JVM_DIR/logs/make-images.log" \
    make -C "$JDK_SRC" CONF="$CONF" CONF_CHECK=ignore THIRD_PARTY_HEAP="$MOJ_SRC/openjdk" images
JDK_IMAGE="$JDK_SRC/build/$CONF/images/jdk"
[ -f "$JDK_IMAGE/lib/server/libmmtk_openjdk.so" ] || die "make images made no $JDK_IMAGE/lib/server/libmmtk_openjdk.so"

# --- 6. One libmmtk_openjdk.so per configuration, one image each --------------------------
HOST_TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"
build_config() { # NAME BLOCK_KIB
    local name="$1" kib="$2" target features=() lib
    # ss64k shares the target directory of make's own cargo build (the same features).
    if [ "$name" = ss64k ]; then target="$MOJ_SRC/mmtk/target"; else target="$JVM_DIR/target-$name"; fi
    [ "$kib" = 0 ] && features=(--no-default-features)
    # The core's build script reads SHARDSWEEP_BLOCK_KIB; left unset for 64 (its default), as
    # in make's build, so that the two share one fingerprint.
    local envs=()
    case "$kib" in 0|64) ;; *) envs=(SHARDSWEEP_BLOCK_KIB="$kib") ;; esac
    (cd "$MOJ_SRC/mmtk" && run_logged "$JVM_DIR/logs/cargo-$name.log" \
        env "${envs[@]}" cargo build --release --target "$HOST_TRIPLE" --target-dir "$target" "${features[@]}")
    lib="$target/$HOST_TRIPLE/release/libmmtk_openjdk.so"
    local image="$JVM_DIR/images/$name"
    # The image: hard links to the JDK image (rebuilt when the JDK's libjvm.so is newer), with
    # a copy (not a link) of this configuration's library.
    if [ ! -f "$image/.shardsweep-image" ] || [ "$JDK_IMAGE/lib/server/libjvm.so" -nt "$image/.shardsweep-image" ]; then
        rm -rf "$image"; mkdir -p "$JVM_DIR/images"
        cp -al "$JDK_IMAGE" "$image"
        touch "$image/.shardsweep-image"
    fi
    if ! cmp -s "$lib" "$image/lib/server/libmmtk_openjdk.so"; then
        rm -f "$image/lib/server/libmmtk_openjdk.so"
        cp "$lib" "$image/lib/server/libmmtk_openjdk.so"
    fi
    "$image/bin/java" -XX:+UseThirdPartyHeap -Xmx64m -version >/dev/null 2>&1 \
        || die "$image/bin/java -XX:+UseThirdPartyHeap -version fails"
}
while read -r name kib; do
    step "libmmtk_openjdk.so and image $name" build_config "$name" "$kib"
done < <(configs)
echo "jvm: images:"
configs | while read -r name _; do echo "  $JVM_DIR/images/$name"; done

# SPDX-License-Identifier: GPL-3.0-or-later
# Building Pacer inside a Debian root of another release (a root build-aux/shell-root.sh lays
# out), against that release's libraries, with this machine's Rust toolchain. Sourced, not run,
# after common.sh, as root (the overlay mounts and chroot need it), by the scripts that build
# there: gtk-build.sh (the window against GTK 4.18 or 4.24), flatpak-test.sh (the Flatpak's
# app) and package-deb.sh (the Debian 13 packages).
#
# The root itself is never written: the shell tests use it. A build sees it under a layer of
# the packages the build needs (pacer_root_layer, made once and kept), a throwaway layer on top
# (a tmpfs), the checkout read-only at its own path, cargo's target directory at its own (so
# that what is built there is where it was built), this machine's rustup toolchain and crates
# read-only, and nothing from the network (`--offline --locked`).

# What a build of the window needs in a root: gcc and libc6-dev link; pkg-config finds GTK
# and libadwaita (-dev: their .pc files, and glib-compile-resources for build.rs); meson and
# gettext (its i18n module) build the project as distributions and the Flatpak do.
PACER_ROOT_BUILD_PACKAGES=(gcc libc6-dev pkg-config libgtk-4-dev libadwaita-1-dev meson gettext)

# pacer_in_namespace SCRIPT ARGS… : the sh SCRIPT runs in a mount namespace of its own, so
# that what it mounts goes with it however it ends, and never lies under a folder rm removes.
pacer_in_namespace() {
  local script=$1
  shift
  unshare --mount --propagation private sh -euc "$script" sh "$@"
}

# mount_root WORK LOWER… : the overlay of the layers LOWER (topmost first) at WORK/root
# ($merged), what changes going to WORK/upper; inside it /proc, /sys, /dev and this machine's
# name servers. Text for pacer_in_namespace's scripts.
# shellcheck disable=SC2016 # expanded by the scripts' sh
PACER_MOUNT_ROOT='mount_root() {
  work=$1; shift
  mkdir -p "$work/upper" "$work/work" "$work/root"
  mount -t overlay pacer-root -o "lowerdir=$(IFS=:; echo "$*"),upperdir=$work/upper,workdir=$work/work" \
    "$work/root"
  merged=$work/root
  mount -t proc proc "$merged/proc"
  mount --rbind /sys "$merged/sys"
  mount --rbind /dev "$merged/dev"
  mount --bind /etc/resolv.conf "$merged/etc/resolv.conf"
}
'

# pacer_root_layer NAME ROOT PACKAGES… : prints the layer of PACKAGES installed over ROOT,
# kept in ${XDG_CACHE_HOME:-~/.cache}/pacer/NAME/KEY/layer, KEY being ROOT's path (its
# recipe's key) and the packages; installed once (about a minute), into an overlay whose upper
# layer becomes the layer. It is made beside it and renamed once complete: an interrupted run
# leaves no layer, only what the next run removes. One run lays it out; another waits. apt
# takes the archive's lists whatever their Valid-Until: testing's Release file expires a week
# after it is published, and a mirror that is a snapshot (or a machine's clock) may be older.
pacer_root_layer() {
  local name=$1 root=$2
  shift 2
  local dev layer lock work started
  dev=$(pacer_cache_dir "$name" "$(printf '%s\n' "$root" "$@" | sha256sum | cut -c1-16)")
  layer=$dev/layer
  exec {lock}> "$dev/.lock"
  flock "$lock"
  if [ ! -d "$layer" ]; then
    rm -rf --one-file-system "$layer".*
    work=$(mktemp -d "$layer.XXXXXX")
    started=$(date +%s)
    pacer_say "$name: installing $* over $root (once)"
    # shellcheck disable=SC2016 # expanded by pacer_in_namespace's sh
    if ! pacer_in_namespace "$PACER_MOUNT_ROOT"'
      work=$1 root=$2; shift 2
      mount_root "$work" "$root"
      chroot "$merged" apt-get update -q -o Acquire::Check-Valid-Until=false
      DEBIAN_FRONTEND=noninteractive nice -n 10 chroot "$merged" apt-get install -y -q \
        --no-install-recommends "$@"
      chroot "$merged" apt-get clean
      rm -rf "$merged"/var/lib/apt/lists/*_Packages
    ' "$work" "$root" "$@" > "$work.log" 2>&1; then
      tail -n 5 "$work.log" >&2
      pacer_say "$name: the packages could not be installed (log: $work.log)"
      exec {lock}>&-
      return 1
    fi
    mv -T "$work/upper" "$layer"
    mv "$work.log" "$layer.log"
    rm -rf "$work"
    pacer_say "$name: layer made in $(($(date +%s) - started)) s ($(du -sh "$layer" | cut -f1))"
  fi
  exec {lock}>&-
  echo "$layer"
}

# pacer_root_target NAME LAYER : prints cargo's target directory for builds over LAYER, kept in
# ${XDG_CACHE_HOME:-~/.cache}/pacer/NAME/KEY, so that the next build compiles only Pacer's own
# crates; KEY is the versions of the packages the build sees (a root laid out again from the
# same archive keeps the compiled crates), the toolchain and the published crates of Cargo.lock.
pacer_root_target() {
  pacer_cache_dir "$1" "$( (
    dpkg-query --admindir="$2/var/lib/dpkg" -W -f '${Package} ${Version}\n'
    pacer_published_crates Cargo.lock
    rustc -vV) | sha256sum | cut -c1-16)"
}

# pacer_root_run ROOT LAYER TARGET SCRIPT ARGS… : runs the sh SCRIPT, with ARGS, where the
# function `in_root COMMAND…` runs COMMAND in the checkout inside ROOT under LAYER (none when
# empty: ROOT as it is, under the throwaway layer alone), with
# cargo's target directory TARGET; the folders named in PACER_ROOT_WRITABLE (separated by
# spaces) are bound there writable at their own paths too. One build at a time in TARGET.
pacer_root_run() {
  local root=$1 layer=$2 target=$3 script=$4
  shift 4
  local scratch lock status=0
  exec {lock}> "$target/.pacer-lock"
  flock "$lock"
  scratch=$(mktemp -d)
  # shellcheck disable=SC2016 # expanded by pacer_in_namespace's sh
  pacer_in_namespace "$PACER_MOUNT_ROOT"'
    scratch=$1 layer=$2 root=$3 checkout=$4 target=$5 toolchain=$6 writable=$7
    shift 7
    mount -t tmpfs scratch "$scratch"
    mount_root "$scratch" ${layer:+"$layer"} "$root"
    for folder in "$checkout" "$target" $writable /opt/rustup /opt/cargo/bin /opt/cargo-home/registry; do
      mkdir -p "$merged$folder"
    done
    mount --bind "$checkout" "$merged$checkout"
    mount -o remount,bind,ro "$merged$checkout"
    for folder in "$target" $writable; do mount --bind "$folder" "$merged$folder"; done
    ro() { mount --bind "$1" "$merged$2"; mount -o remount,bind,ro "$merged$2"; }
    ro "${RUSTUP_HOME:-$HOME/.rustup}" /opt/rustup
    ro "${CARGO_HOME:-$HOME/.cargo}/bin" /opt/cargo/bin
    ro "${CARGO_HOME:-$HOME/.cargo}/registry" /opt/cargo-home/registry
    in_root() {
      chroot "$merged" /usr/bin/env -i PATH=/opt/cargo/bin:/usr/bin:/bin HOME=/root \
        RUSTUP_HOME=/opt/rustup RUSTUP_TOOLCHAIN="$toolchain" RUSTUP_AUTO_INSTALL=0 \
        CARGO_HOME=/opt/cargo-home CARGO_TARGET_DIR="$target" CARGO_NET_OFFLINE=true \
        CARGO_PROFILE_DEV_DEBUG=line-tables-only CARGO_TERM_COLOR=never \
        sh -c "cd \"\$0\" && exec nice -n 10 \"\$@\"" "$checkout" "$@"
    }
  '"$script" "$scratch" "$layer" "$root" "$PWD" "$target" \
    "$(rustup show active-toolchain | cut -d' ' -f1)" "${PACER_ROOT_WRITABLE:-}" "$@" || status=$?
  rmdir "$scratch"
  exec {lock}>&-
  return "$status"
}

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Pacer built against GTK 4.18 and libadwaita 1.7 (its `gnome_48` feature), for the shell-48
# lane of build-aux/test.sh: Debian 12 has GTK 4.8, so the build runs in the Debian 13 root
# ROOT that build-aux/shell-root.sh 48 lays out, with the packages a build needs on top. Then
# clippy, -D warnings, for that feature, in the same root, and a check that meson, its
# gnome-widgets option left at auto, builds that feature there. Prints the program's path.
#
#   build-aux/gtk-48-build.sh ROOT        (as root: the overlay mounts and chroot need it)
#
# Two folders are kept outside the checkout, in ${XDG_CACHE_HOME:-~/.cache}/pacer (made once,
# each keyed by how it is made; pacer_cache_dir removes what an older recipe made):
# - gtk-48-dev/KEY/layer: the build's packages, installed once (about a minute) into an
#   overlay whose lower layer is ROOT, kept as that overlay's upper layer; KEY is ROOT's path
#   (its recipe's key) and the packages. ROOT itself is never written: the shell tests use it.
# - gtk-48-target/KEY: cargo's target directory, so that the next build compiles only Pacer's
#   own crates; KEY is the versions of the packages in ROOT and the layer, the toolchain and
#   the published crates of Cargo.lock.
# The build sees ROOT under that layer, and a throwaway layer on top (a tmpfs); the checkout
# read-only at its own path, the target directory at its own (so that the program, and the
# schema build.rs compiles beside it, are where they were built); this machine's rustup
# toolchain and crates read-only; nothing from the network (`--offline --locked`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh

# gcc and libc6-dev link; pkg-config finds GTK and libadwaita (-dev: their .pc files, and
# glib-compile-resources for build.rs). meson and gettext (its i18n module) to check that
# the project's meson build picks these widgets by itself here (its gnome-widgets option).
PACKAGES=(gcc libc6-dev pkg-config libgtk-4-dev libadwaita-1-dev meson gettext)
# Bump when the way the layer is made changes beyond ROOT and the packages.
LAYOUT=1
FEATURE=gnome_48

root=${1:?usage: build-aux/gtk-48-build.sh ROOT (the root build-aux/shell-root.sh 48 prints)}
root=$(cd "$root" && pwd -P)
if [ "$(id -u)" -ne 0 ]; then
  pacer_say "gtk-48: the build's root is an overlay mount and a chroot: run it as root"
  exit 1
fi
[ -x "$root/usr/bin/apt-get" ] || { pacer_say "gtk-48: $root is not a Debian root"; exit 1; }
pacer_ensure_rust
checkout=$PWD

# `unshare --mount` with SCRIPT ARGS…: SCRIPT runs in a mount namespace of its own, so that
# what it mounts goes with it however it ends, and never lies under a folder rm removes.
in_namespace() {
  local script=$1
  shift
  unshare --mount --propagation private sh -euc "$script" sh "$@"
}

# mount_root WORK LOWER… : the overlay of the layers LOWER (topmost first) at WORK/root, what
# changes going to WORK/upper; inside it /proc, /sys, /dev and this machine's name servers.
# Text for in_namespace's scripts.
# shellcheck disable=SC2016 # expanded by the scripts' sh
MOUNT_ROOT='mount_root() {
  work=$1; shift
  mkdir -p "$work/upper" "$work/work" "$work/root"
  mount -t overlay gtk-48 -o "lowerdir=$(IFS=:; echo "$*"),upperdir=$work/upper,workdir=$work/work" \
    "$work/root"
  merged=$work/root
  mount -t proc proc "$merged/proc"
  mount --rbind /sys "$merged/sys"
  mount --rbind /dev "$merged/dev"
  mount --bind /etc/resolv.conf "$merged/etc/resolv.conf"
}
'

# make_layer LAYER : installs PACKAGES into an overlay on ROOT; its upper layer, which
# records what apt changed, becomes LAYER. It is made beside LAYER and renamed once
# complete: an interrupted run leaves no LAYER, only what the next run removes.
make_layer() {
  rm -rf --one-file-system "$1".*
  local work started
  work=$(mktemp -d "$1.XXXXXX")
  started=$(date +%s)
  pacer_say "gtk-48: installing ${PACKAGES[*]} over $root (once)"
  # shellcheck disable=SC2016 # expanded by in_namespace's sh
  if ! in_namespace "$MOUNT_ROOT"'
    work=$1 root=$2; shift 2
    mount_root "$work" "$root"
    chroot "$merged" apt-get update -q
    DEBIAN_FRONTEND=noninteractive nice -n 10 chroot "$merged" apt-get install -y -q \
      --no-install-recommends "$@"
    chroot "$merged" apt-get clean
    rm -rf "$merged"/var/lib/apt/lists/*_Packages
    chroot "$merged" pkg-config --modversion gtk4 libadwaita-1
  ' "$work" "$root" "${PACKAGES[@]}" > "$work.log" 2>&1; then
    tail -n 5 "$work.log" >&2
    pacer_say "gtk-48: the packages could not be installed (log: $work.log)"
    return 1
  fi
  mv -T "$work/upper" "$1"
  mv "$work.log" "$1.log"
  rm -rf "$work"
  pacer_say "gtk-48: layer made in $(($(date +%s) - started)) s ($(du -sh "$1" | cut -f1)):" \
    "GTK and libadwaita $(tail -n 2 "$1.log" | tr '\n' ' ')"
}

key=$(printf '%s\n' "$root" "$LAYOUT" "${PACKAGES[@]}" | sha256sum | cut -c1-16)
dev=$(pacer_cache_dir gtk-48-dev "$key")
layer=$dev/layer
# One run lays the layer out; another waits for it.
exec {dev_lock}> "$dev/.lock"
flock "$dev_lock"
[ -d "$layer" ] || make_layer "$layer"
flock --unlock "$dev_lock"

# Keyed by what the build sees of the root, the versions of its packages, rather than by
# its path: a root laid out again from the same archive keeps the compiled crates.
target=$(pacer_cache_dir gtk-48-target "$( (
  dpkg-query --admindir="$layer/var/lib/dpkg" -W -f '${Package} ${Version}\n'
  pacer_published_crates Cargo.lock
  rustc -vV) | sha256sum | cut -c1-16)")
# One build at a time in it; a shell-48 lane of another checkout waits.
exec {target_lock}> "$target/.pacer-lock"
flock "$target_lock"
toolchain=$(rustup show active-toolchain | cut -d' ' -f1)
# Where the throwaway layer is mounted.
scratch=$(mktemp -d)
trap 'rmdir "$scratch"' EXIT
started=$(date +%s)
# shellcheck disable=SC2016 # expanded by in_namespace's sh
in_namespace "$MOUNT_ROOT"'
  scratch=$1 layer=$2 root=$3 checkout=$4 target=$5 toolchain=$6 feature=$7
  mount -t tmpfs scratch "$scratch"
  mount_root "$scratch" "$layer" "$root"
  for folder in "$checkout" "$target" /opt/rustup /opt/cargo/bin /opt/cargo-home/registry; do
    mkdir -p "$merged$folder"
  done
  mount --bind "$checkout" "$merged$checkout"
  mount -o remount,bind,ro "$merged$checkout"
  mount --bind "$target" "$merged$target"
  ro() { mount --bind "$1" "$merged$2"; mount -o remount,bind,ro "$merged$2"; }
  ro "${RUSTUP_HOME:-$HOME/.rustup}" /opt/rustup
  ro "${CARGO_HOME:-$HOME/.cargo}/bin" /opt/cargo/bin
  ro "${CARGO_HOME:-$HOME/.cargo}/registry" /opt/cargo-home/registry
  in_root() {
    chroot "$merged" /usr/bin/env -i PATH=/opt/cargo/bin:/usr/bin:/bin HOME=/root \
      RUSTUP_HOME=/opt/rustup RUSTUP_TOOLCHAIN="$toolchain" RUSTUP_AUTO_INSTALL=0 \
      CARGO_HOME=/opt/cargo-home CARGO_TARGET_DIR="$target" \
      CARGO_PROFILE_DEV_DEBUG=line-tables-only CARGO_TERM_COLOR=never \
      sh -c "cd \"\$0\" && exec nice -n 10 \"\$@\"" "$checkout" "$@"
  }
  in_root cargo build --offline --locked -p pacer --features "$feature"
  in_root cargo clippy --offline --locked -p pacer --features "$feature" --all-targets -- -D warnings
  # What a distribution building on GTK 4.18 gets from meson, its option left at auto.
  in_root meson setup /tmp/pacer-meson -Dhelper=false -Dshell-extension=false > /dev/null
  if ! in_root grep -q -e "--features pacer/$feature" /tmp/pacer-meson/build.ninja; then
    echo "meson setup did not pick the $feature build over GTK 4.18" >&2
    exit 1
  fi
'  "$scratch" "$layer" "$root" "$checkout" "$target" "$toolchain" "$FEATURE" >&2
pacer_say "gtk-48: built and linted with --features $FEATURE in $(($(date +%s) - started)) s;" \
  "meson picks it by itself"
echo "$target/debug/pacer"

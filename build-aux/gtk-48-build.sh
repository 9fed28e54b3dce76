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
# What it builds in is kept outside the checkout, in ${XDG_CACHE_HOME:-~/.cache}/pacer (made
# once, each keyed by how it is made: build-aux/root-build.sh): gtk-48-dev, the build's
# packages installed over ROOT, and gtk-48-target, cargo's target directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh
source build-aux/root-build.sh

FEATURE=gnome_48

root=${1:?usage: build-aux/gtk-48-build.sh ROOT (the root build-aux/shell-root.sh 48 prints)}
root=$(cd "$root" && pwd -P)
if [ "$(id -u)" -ne 0 ]; then
  pacer_say "gtk-48: the build's root is an overlay mount and a chroot: run it as root"
  exit 1
fi
[ -x "$root/usr/bin/apt-get" ] || { pacer_say "gtk-48: $root is not a Debian root"; exit 1; }
pacer_ensure_rust

layer=$(pacer_root_layer gtk-48-dev "$root" "${PACER_ROOT_BUILD_PACKAGES[@]}")
target=$(pacer_root_target gtk-48-target "$layer")
started=$(date +%s)
# shellcheck disable=SC2016 # expanded by pacer_root_run's sh
pacer_root_run "$root" "$layer" "$target" '
  feature=$1
  echo "gtk-48: GTK and libadwaita $(in_root pkg-config --modversion gtk4 libadwaita-1 | tr "\n" " ")" >&2
  in_root cargo build --offline --locked -p pacer --features "$feature"
  in_root cargo clippy --offline --locked -p pacer --features "$feature" --all-targets -- -D warnings
  # What a distribution building on GTK 4.18 gets from meson, its option left at auto.
  in_root meson setup /tmp/pacer-meson -Dhelper=false -Dshell-extension=false > /dev/null
  if ! in_root grep -q -e "--features pacer/$feature" /tmp/pacer-meson/build.ninja; then
    echo "meson setup did not pick the $feature build over GTK 4.18" >&2
    exit 1
  fi
' "$FEATURE" >&2
pacer_say "gtk-48: built and linted with --features $FEATURE in $(($(date +%s) - started)) s;" \
  "meson picks it by itself"
echo "$target/debug/pacer"

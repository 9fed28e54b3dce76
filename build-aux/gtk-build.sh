#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Pacer built against a newer GNOME's GTK and libadwaita, in the root of that GNOME's shell
# (build-aux/shell-root.sh lays it out), with the packages a build needs on top: for the
# shell-48 and shell-50 lanes of build-aux/test.sh, as Debian 12 has GTK 4.8.
#
#   48: the `gnome_48` feature, against Debian 13's GTK 4.18 and libadwaita 1.7
#   50: the `gnome_50` feature, against Debian testing's GTK 4.24 and libadwaita 1.10
#
# Then clippy, -D warnings, for that feature, in the same root, and a check that meson, its
# gnome-widgets option left at auto, builds that feature there. Prints the program's path.
#
#   build-aux/gtk-build.sh 48|50 ROOT     (as root: the overlay mounts and chroot need it;
#                                         ROOT is what build-aux/shell-root.sh 48|50 prints)
#
# What it builds in is kept outside the checkout, in ${XDG_CACHE_HOME:-~/.cache}/pacer (made
# once, each keyed by how it is made: build-aux/root-build.sh): gtk-VERSION-dev, the build's
# packages installed over ROOT, and gtk-VERSION-target, cargo's target directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh
source build-aux/root-build.sh

VERSION=${1:-}
case "$VERSION" in
  48) FEATURE=gnome_48 ;;
  50) FEATURE=gnome_50 ;;
  *)
    pacer_say "gtk-build.sh: which GNOME's widgets? 48 (GTK 4.18, Debian 13) or 50 (GTK 4.24, Debian testing)"
    exit 2
    ;;
esac
NAME=gtk-$VERSION

root=${2:?usage: build-aux/gtk-build.sh 48|50 ROOT (the root build-aux/shell-root.sh 48|50 prints)}
root=$(cd "$root" && pwd -P)
if [ "$(id -u)" -ne 0 ]; then
  pacer_say "$NAME: the build's root is an overlay mount and a chroot: run it as root"
  exit 1
fi
[ -x "$root/usr/bin/apt-get" ] || { pacer_say "$NAME: $root is not a Debian root"; exit 1; }
pacer_ensure_rust

layer=$(pacer_root_layer "$NAME-dev" "$root" "${PACER_ROOT_BUILD_PACKAGES[@]}")
target=$(pacer_root_target "$NAME-target" "$layer")
started=$(date +%s)
# shellcheck disable=SC2016 # expanded by pacer_root_run's sh
pacer_root_run "$root" "$layer" "$target" '
  name=$1 feature=$2
  echo "$name: GTK and libadwaita $(in_root pkg-config --modversion gtk4 libadwaita-1 | tr "\n" " ")" >&2
  in_root cargo build --offline --locked -p pacer --features "$feature"
  in_root cargo clippy --offline --locked -p pacer --features "$feature" --all-targets -- -D warnings
  # What a distribution building on these versions gets from meson, its option left at auto.
  in_root meson setup /tmp/pacer-meson -Dhelper=false -Dshell-extension=false > /dev/null
  if ! in_root grep -q -e "--features pacer/$feature " /tmp/pacer-meson/build.ninja; then
    echo "$name: meson setup did not pick the $feature build here: $(in_root grep -o -e "--features [^ ]*" /tmp/pacer-meson/build.ninja || echo "no --features")" >&2
    exit 1
  fi
' "$NAME" "$FEATURE" >&2
pacer_say "$NAME: built and linted with --features $FEATURE in $(($(date +%s) - started)) s;" \
  "meson picks it by itself"
echo "$target/debug/pacer"

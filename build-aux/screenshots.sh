#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Takes every screenshot the documentation shows again, from the tests that take them: the
# window on the simulated laptop with the real profile daemon (gui lane), GNOME Shell 43, 48
# and 50 (shell lanes, the GTK 4.18 and 4.24 windows among them), the Flatpak in its sandbox
# (flatpak lane), and the Xfce and KDE trays (gui lane). The tests write into a folder of
# their own; then each picture that README.md, docs/*.md or the metainfo names is copied
# into docs/screenshots/. It fails, naming them, when a lane failed or a named picture was
# not taken, and lists the pictures in docs/screenshots/ that nothing names any more.
#
#   build-aux/screenshots.sh            every lane that takes one
#   build-aux/screenshots.sh --lane gui only those of that lane (again for more)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh

# Lanes as test.sh takes them (`--lane NAME`, again for more; it checks the names).
every_lane=false
if [ $# -eq 0 ]; then
  every_lane=true
  set -- --lane gui --lane shell-43 --lane shell-48 --lane shell-50 --lane flatpak
fi

taken="$PWD/target/screenshots-taken"
rm -rf "$taken" && mkdir -p "$taken"
PACER_SCREENSHOTS="$taken" build-aux/test.sh "$@"
status=$?

# The pictures the documentation names, by file name.
named=$( (cat README.md docs/*.md HACKING.md 2> /dev/null
  cat data/io.github.pacerapp.Pacer.metainfo.xml.in.in) |
  grep -o 'screenshots/[A-Za-z0-9._-]*\.png' | sed 's|.*/||' | sort -u)
copied=0 missing=()
for picture in $named; do
  if [ -f "$taken/$picture" ]; then
    cp "$taken/$picture" "docs/screenshots/$picture" && copied=$((copied + 1))
  else
    missing+=("$picture")
  fi
done
pacer_say "screenshots.sh: $copied pictures copied into docs/screenshots/"
for picture in docs/screenshots/*.png; do
  grep -qx "${picture##*/}" <<< "$named" ||
    pacer_say "screenshots.sh: nothing names $picture any more"
done
if [ ${#missing[@]} -gt 0 ]; then
  pacer_say "screenshots.sh: not taken: ${missing[*]}"
  # Every lane ran, so a picture not taken is one no test takes; a run of some lanes only
  # leaves the others' pictures as they were.
  [ "$every_lane" = false ] || status=1
fi
exit "$status"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Renders the SVG-only icons of libadwaita that Pacer's window shows into pre-rendered
# symbolic PNGs under resources/icons/, as GTK ships its own: drawing an SVG icon makes GTK
# load librsvg and libxml2 (16 MB resident). Run after a libadwaita update changes them;
# needs libgtk-4-bin (gtk4-encode-symbolic-svg) and libglib2.0-bin (gresource).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
libadwaita=$(ldconfig -p | awk '/libadwaita-1\.so\.0 / { print $NF; exit }')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for icon in adw-expander-arrow-symbolic; do
  gresource extract "$libadwaita" "/org/gnome/Adwaita/icons/scalable/actions/$icon.svg" > "$work/$icon.svg"
  for size in 16 32; do
    mkdir -p "$work/$size"
    gtk4-encode-symbolic-svg -o "$work/$size" "$work/$icon.svg" "${size}x${size}"
  done
  cp "$work/16/$icon.symbolic.png" resources/icons/16x16/actions/
  cp "$work/32/$icon.symbolic.png" "resources/icons/16x16@2/actions/"
done

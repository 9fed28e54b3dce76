#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The Debian packages as built: builds them with `build-aux/package.sh deb` (offline, from
# debian/; skipped when target/package/ holds those of the same files), runs lintian on them,
# compares each package's files with its list in build-aux/packages/, and checks that the
# three together ship every file `meson install` installs (build-aux/expected-install.txt),
# so that a file added to the installation and forgotten in debian/*.install fails here.
#
#   build-aux/package-test.sh        (build-aux/test.sh runs it)
#
# One line per check (`ok - …` / `FAIL - …`, notes start with `#`), then `N passed, N failed`;
# the exit status is non-zero when a check failed. Log: target/package/package-test.log.
#
# The lists: one path a line as `dpkg-deb -c` shows it (without `./`), directories left out,
# sorted (LC_ALL=C); a line with @LANG@ stands for one line per language in po/LINGUAS, and
# lines starting with # are comments. Update one with the `diff` this lane prints.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
source build-aux/common.sh
REPO=$PWD
PACKAGE_DIR=$REPO/target/package
LANE_LOG=$PACKAGE_DIR/package-test.log
source build-aux/lane.sh
cleanup() { :; }
export LC_ALL=C

PACKAGES=(pacer pacer-helper gnome-shell-extension-pacer)
APP_ID=io.github.pacerapp.Pacer
mkdir -p "$PACKAGE_DIR"
: > "$LANE_LOG"
pacer_install_packages dpkg-dev lintian jq >> "$LANE_LOG" 2>&1 || abort "installing dpkg-dev, lintian and jq"

# expand FILE: the list's lines, comments dropped, @LANG@ and @APP_ID@ expanded, sorted.
languages=$(sed -e 's/#.*//' po/LINGUAS | tr -s ' \t' '\n\n' | sed '/^$/d')
expand() {
  local line lang
  while IFS= read -r line; do
    case $line in
      '' | '#'*) ;;
      *@LANG@*) for lang in $languages; do printf '%s\n' "${line//@LANG@/$lang}"; done ;;
      *) printf '%s\n' "${line//@APP_ID@/$APP_ID}" ;;
    esac
  done < "$1" | sort
}

# contents DEB: the package's files and links (not its directories), as the lists name them.
contents() {
  dpkg-deb -c "$1" | awk '$1 !~ /^d/ { sub(/^\.\//, "", $6); print $6 }' | sort
}

# ---------------------------------------------------------------- the build
build_packages deb
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
arch=$(dpkg --print-architecture)
deb_of() { # deb_of PACKAGE [DIR]: its .deb in DIR, target/package by default
  local package_arch=$arch
  [ "$1" = gnome-shell-extension-pacer ] && package_arch=all
  printf '%s/%s_%s_%s.deb\n' "${2:-$PACKAGE_DIR}" "$1" "$version" "$package_arch"
}
changes=$PACKAGE_DIR/pacer_${version}_$arch.changes
for package in "${PACKAGES[@]}"; do
  deb=$(deb_of "$package")
  [ -f "$deb" ] || abort "no $deb"
  note "$(basename "$deb"): $(du -k "$deb" | cut -f1) KiB, installed $(dpkg-deb -f "$deb" Installed-Size) KiB"
done

# ---------------------------------------------------------------- lintian
# Every tag lintian gives is printed; errors and warnings fail (what is accepted is in
# debian/*.lintian-overrides, with the reason).
lintian_out=$PACKAGE_DIR/lintian.txt
lintian --display-info --fail-on error,warning "$changes" > "$lintian_out" 2>&1
lintian_status=$?
grep -v '^running with root privileges' "$lintian_out" | sed 's/^/# lintian: /'
if [ "$lintian_status" = 0 ]; then
  ok "lintian: no error or warning on $(basename "$changes") ($(grep -c '^[IPX]:' "$lintian_out") info, pedantic or experimental tags)"
else
  bad "lintian: $(grep -c '^E:' "$lintian_out") errors, $(grep -c '^W:' "$lintian_out") warnings (status $lintian_status; $lintian_out)"
fi

# ---------------------------------------------------------------- the contents
union=$(mktemp)
for package in "${PACKAGES[@]}"; do
  list=build-aux/packages/$package.txt
  actual=$(contents "$(deb_of "$package")")
  printf '%s\n' "$actual" >> "$union"
  if [ ! -f "$list" ]; then
    bad "$package: no list $list; it holds:"
    printf '%s\n' "$actual" | sed 's/^/#   /'
  elif difference=$(diff <(expand "$list") <(printf '%s\n' "$actual")); then
    ok "$package ships the $(printf '%s\n' "$actual" | wc -l) files of $list"
  else
    bad "$package's files differ from $list (< list, > package):"
    printf '%s\n' "$difference" | grep '^[<>]' | sed 's/^/#   /'
  fi
done

# Debian 12's units are in /lib/systemd/system (debian/rules says why): /usr/lib's, as meson
# installs them by default, with merged /usr.
uncovered=$(comm -23 <(expand build-aux/expected-install.txt) \
  <(sed 's|^lib/systemd/|usr/lib/systemd/|' "$union" | sort -u))
rm -f "$union"
if [ -z "$uncovered" ]; then
  ok "the packages ship every file of build-aux/expected-install.txt (meson install, default profile)"
else
  bad "installed by meson but in no package (debian/*.install):"
  printf '%s\n' "$uncovered" | sed 's/^/#   /'
fi

# ---------------------------------------------------------------- the relations
# The helper, which runs as root, links no GUI library; the window does.
helper_depends=$(dpkg-deb -f "$(deb_of pacer-helper)" Depends)
if grep -q 'libc6' <<< "$helper_depends" && ! grep -Eq 'libgtk|libadwaita|libglib' <<< "$helper_depends" &&
  grep -q polkitd <<< "$helper_depends"; then
  ok "pacer-helper depends on libc, polkitd and a system bus, on no GUI library: $helper_depends"
else
  bad "pacer-helper's Depends: $helper_depends"
fi
pacer_depends=$(dpkg-deb -f "$(deb_of pacer)" Depends)
if grep -q 'libgtk-4-1' <<< "$pacer_depends" && grep -q 'libadwaita-1-0' <<< "$pacer_depends" &&
  [ "$(dpkg-deb -f "$(deb_of pacer)" Recommends)" = pacer-helper ]; then
  ok "pacer depends on GTK 4 and libadwaita (${pacer_depends:0:120}…) and recommends pacer-helper"
else
  bad "pacer's Depends: $pacer_depends; Recommends: $(dpkg-deb -f "$(deb_of pacer)" Recommends)"
fi
# The GNOME Shell versions the extension depends on are those its metadata.json declares.
extension_depends=$(dpkg-deb -f "$(deb_of gnome-shell-extension-pacer)" Depends)
shell_versions=$(dpkg-deb --fsys-tarfile "$(deb_of gnome-shell-extension-pacer)" |
  tar -xOf - ./usr/share/gnome-shell/extensions/pacer@pacerapp.github.io/metadata.json |
  jq -r '.["shell-version"] | map(tonumber) | "gnome-shell (>= \(min)~), gnome-shell (<< \(max + 1)~)"')
if [ -n "$shell_versions" ] && grep -qF "$shell_versions" <<< "$extension_depends" &&
  grep -q "pacer (>= $version)" <<< "$extension_depends"; then
  ok "gnome-shell-extension-pacer depends on pacer and on the shells its metadata.json names: $shell_versions"
else
  bad "gnome-shell-extension-pacer's Depends: $extension_depends (metadata.json: $shell_versions)"
fi

# ---------------------------------------------------------------- Debian 13
# The same source built with Debian 13's tools against its libraries (build-aux/package.sh
# deb-13, in the root build-aux/shell-root.sh 48 lays out), then installed there by apt, as a
# Debian 13 user installs it.
build_packages deb-13
DEB_13=$PACKAGE_DIR/debian-13
for package in "${PACKAGES[@]}"; do
  [ -f "$(deb_of "$package" "$DEB_13")" ] || abort "no $(deb_of "$package" "$DEB_13")"
done
deb_13_depends=$(dpkg-deb -f "$(deb_of pacer "$DEB_13")" Depends)
# The GNOME 48 build's widgets come from libadwaita 1.5 (AdwAlertDialog) and 1.4 (breakpoints).
if grep -Eq 'libadwaita-1-0 \(>= 1\.([5-9]|[1-9][0-9])' <<< "$deb_13_depends"; then
  ok "Debian 13's pacer depends on libadwaita 1.5 or newer: $(grep -Eo 'lib(gtk-4-1|adwaita-1-0) \([^)]*\)' <<< "$deb_13_depends" | paste -sd' ')"
else
  bad "Debian 13's pacer does not ask for libadwaita 1.5: $deb_13_depends"
fi
# The same files as Debian 12's, but for the systemd units, below /usr (debian/rules says why).
for package in "${PACKAGES[@]}"; do
  if difference=$(diff <(expand "build-aux/packages/$package.txt" | sed 's|^lib/systemd/|usr/&|' | sort) \
    <(contents "$(deb_of "$package" "$DEB_13")")); then
    ok "Debian 13's $package ships the files of build-aux/packages/$package.txt, units below /usr"
  else
    bad "Debian 13's $package's files differ from build-aux/packages/$package.txt (< list, > package):"
    printf '%s\n' "$difference" | grep '^[<>]' | sed 's/^/#   /'
  fi
done
# The window with GNOME 48's widgets: meson picked them over GTK 4.18 by itself.
window_13=$(mktemp)
dpkg-deb --fsys-tarfile "$(deb_of pacer "$DEB_13")" | tar -xOf - ./usr/bin/pacer > "$window_13"
widgets_48=(adw_banner_get_type adw_alert_dialog_new adw_breakpoint_new gtk_file_dialog_save)
not_imported=$(for symbol in "${widgets_48[@]}"; do
  pacer_elf_imports "$symbol" "$window_13" || echo "$symbol"
done)
rm -f "$window_13"
if [ -z "$not_imported" ]; then
  ok "Debian 13's /usr/bin/pacer is the GNOME 48 build: it calls ${widgets_48[*]}"
else
  bad "Debian 13's /usr/bin/pacer does not call ${not_imported//$'\n'/ }"
fi
# The extension as ES modules, for the shells from 45 on, Debian 13's 48 among them.
metadata_13=$(dpkg-deb --fsys-tarfile "$(deb_of gnome-shell-extension-pacer "$DEB_13")" |
  tar -xOf - ./usr/share/gnome-shell/extensions/pacer@pacerapp.github.io/metadata.json)
extension_13_depends=$(dpkg-deb -f "$(deb_of gnome-shell-extension-pacer "$DEB_13")" Depends)
if jq -e '.["shell-version"] | index("48") and (map(tonumber) | min >= 45)' <<< "$metadata_13" > /dev/null &&
  grep -q 'gnome-shell (>= 45~)' <<< "$extension_13_depends"; then
  ok "Debian 13's extension is the ES-module one, for $(jq -c '.["shell-version"]' <<< "$metadata_13"): $extension_13_depends"
else
  bad "Debian 13's extension: metadata.json $(jq -c '.["shell-version"]' <<< "$metadata_13"), Depends $extension_13_depends"
fi

# apt installs the three in the Debian 13 root (a throwaway layer over it: the root stays as
# it is), their dependencies from Debian 13's archive, and what they install runs there.
source build-aux/root-build.sh
root_13=$(build-aux/shell-root.sh 48 2> /dev/null) || abort "no Debian 13 root (build-aux/shell-root.sh 48)"
install_13_log=$DEB_13/install.log
install_13_lock=$(mktemp -d)
# shellcheck disable=SC2016 # expanded by pacer_root_run's sh
pacer_root_run "$root_13" "" "$install_13_lock" '
  debs=$1
  in_root apt-get update -q
  in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$debs"/*.deb
  echo "== audit"; in_root dpkg --audit; echo "== end"
  echo "== installed"; in_root dpkg-query -W -f "\${Package} \${Version}\n" pacer pacer-helper gnome-shell-extension-pacer
  echo "== shell"; in_root gnome-shell --version
  echo "== programs"; in_root pacer --version; in_root pacerctl --version
  echo "== status"; in_root pacerctl --sysfs-root /tmp/machine --simulate intel-hybrid status
' "$DEB_13" > "$install_13_log" 2>&1
install_13_status=$?
rm -rf "$install_13_lock"
section() { sed -n "/^== $1\$/,/^== /{/^== /d;p}" "$install_13_log"; }
installed_13=$(section installed | paste -sd',' | sed 's/,/, /g')
if [ "$install_13_status" = 0 ] && [ -z "$(section audit)" ] && [ "$(section installed | wc -l)" = 3 ]; then
  ok "apt installs the three in Debian 13 ($(section shell)), dependencies from its archive, dpkg --audit clean: $installed_13"
else
  tail -n 5 "$install_13_log" | sed 's/^/# /'
  bad "apt could not install Debian 13's packages in its root (status $install_13_status; log: $install_13_log)"
fi
if section programs | grep -qx "pacer ${version%-*}" && section programs | grep -qx "pacerctl ${version%-*}" &&
  section status | grep -q .; then
  ok "the installed pacer and pacerctl run on Debian 13; pacerctl status on a simulated machine: $(section status | head -n 1)"
else
  bad "the installed programs did not run on Debian 13 (log: $install_13_log)"
fi

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
deb_of() { # deb_of PACKAGE: its .deb in target/package
  local package_arch=$arch
  [ "$1" = gnome-shell-extension-pacer ] && package_arch=all
  printf '%s/%s_%s_%s.deb\n' "$PACKAGE_DIR" "$1" "$version" "$package_arch"
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

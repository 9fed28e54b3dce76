#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Pacer's RPM packages (pacer.spec, build-aux/package-rpm.sh): the spec parses (rpmspec -P)
# and names the three packages, rpmbuild builds them from the offline source tree, and each
# package holds the files of its Debian twin (build-aux/packages/NAME.txt, which
# build-aux/package-test.sh checks the .debs against), but for what differs between the two
# by design: Debian's changelog.Debian.gz, copyright and lintian overrides against RPM's
# %license and %doc files, and Debian 12's /lib/systemd/system against /usr/lib/systemd/system.
#
#   build-aux/rpm-test.sh
#
# One line per check (`ok - …` / `FAIL - …`, notes start with `#`), then `N passed, N failed`;
# the exit status is non-zero when a check failed. The packages are built unless they are
# those of the project's files already (build-aux/package.sh; the whole workspace in release,
# the window included: a cold build takes long on few cores). PACER_PACKAGE_FAST=1 builds
# them without the release profile's optimisation and fat LTO. Log: target/rpm-test/rpm-test.log.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
source build-aux/common.sh
REPO=$PWD
WORK=$REPO/target/rpm-test
LANE_LOG=$WORK/rpm-test.log
source build-aux/lane.sh
PACKAGE_DIR=$REPO/target/package
PACKAGES=(pacer pacer-helper gnome-shell-extension-pacer)

cleanup() { :; }

check() {
  local name=$1
  shift
  if "$@"; then ok "$name"; else bad "$name"; fi
}

mkdir -p "$WORK"
: > "$LANE_LOG"
pacer_install_packages rpm >> "$LANE_LOG" 2>&1 || abort "installing rpm (rpmbuild, rpmspec)"
note "$(rpm --version)"
VERSION=$(sed -n "s/^  version: '\(.*\)',$/\1/p" meson.build)

# ---------------------------------------------------------------- the spec
if rpmspec -P pacer.spec > "$WORK/pacer.spec.parsed" 2>> "$LANE_LOG"; then
  ok "rpmspec -P parses pacer.spec"
else
  abort "rpmspec -P pacer.spec (log: $LANE_LOG)"
fi
names=$(rpmspec -q --qf '%{NAME}\n' pacer.spec 2>> "$LANE_LOG" | LC_ALL=C sort | paste -sd' ')
check "pacer.spec makes ${PACKAGES[*]}" test "$names" = "$(printf '%s\n' "${PACKAGES[@]}" | LC_ALL=C sort | paste -sd' ')"
check "pacer.spec's Version is meson.build's ($VERSION)" \
  test "$(rpmspec -q --srpm --qf '%{VERSION}' pacer.spec 2> /dev/null)" = "$VERSION"
licenses=$(rpmspec -q --qf '%{LICENSE}\n' pacer.spec 2> /dev/null | sort -u)
check "every package's License is GPL-3.0-or-later" test "$licenses" = GPL-3.0-or-later

# ---------------------------------------------------------------- built
# rpm_of NAME: the binary package NAME built from this version, if any.
rpm_of() {
  local file
  for file in "$PACKAGE_DIR/$1-$VERSION"-*.rpm; do
    case $file in *.src.rpm) ;; *) [ -f "$file" ] && { echo "$file"; return; } ;; esac
  done
}
build_packages rpm

# ---------------------------------------------------------------- each package
# The Debian list as an RPM package holds it.
expected_files() {
  grep -v '^#' "build-aux/packages/$1.txt" | while read -r line; do
    [ -n "$line" ] || continue
    case $line in
      usr/share/doc/*/changelog.Debian.gz | usr/share/doc/*/copyright | usr/share/lintian/*) continue ;;
      lib/systemd/*) line=usr/$line ;;
    esac
    if [[ $line == *@LANG@* ]]; then
      while read -r lang; do [ -n "$lang" ] && echo "${line//@LANG@/$lang}"; done < <(grep -v '^#' po/LINGUAS)
    else
      echo "$line"
    fi
  done | man_pages | LC_ALL=C sort
}
# Manual pages with their compression left out: rpm's brp-compress (Fedora's) gzips them,
# Debian's rpm leaves them as they are.
man_pages() { sed 's|^\(usr/share/man/.*\)\.gz$|\1|'; }

for package in "${PACKAGES[@]}"; do
  file=$(rpm_of "$package")
  if [ -z "$file" ]; then
    bad "$package: no package in $PACKAGE_DIR"
    continue
  fi
  note "$(basename "$file"): $(stat -c %s "$file") bytes ($(du -h --apparent-size "$file" | cut -f1))"
  rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILENAMES}\n]' "$file" \
    > "$WORK/$package.files" 2>> "$LANE_LOG"
  # Directories and build-id links are the package manager's; the licence and documentation
  # files are compared below. (Debian 12's dh_installdocs puts changelog.Debian.gz and
# copyright where RPM puts %license and %doc.)
  actual=$(awk '$1 !~ /^d/ {print substr($3, 2)}' "$WORK/$package.files" |
    grep -v -e '^usr/lib/\.build-id/' -e '^usr/share/licenses/' -e '^usr/share/doc/' | man_pages | LC_ALL=C sort)
  if [ ! -f "build-aux/packages/$package.txt" ]; then
    bad "$package: build-aux/packages/$package.txt is missing"
  else
    expected=$(expected_files "$package")
    if [ "$expected" = "$actual" ]; then
      ok "$package holds the files of the Debian package, as RPM lays them out ($(echo "$actual" | wc -l) files)"
    else
      bad "$package differs from build-aux/packages/$package.txt: $(diff <(echo "$expected") <(echo "$actual") | grep '^[<>]' | tr '\n' ' ')"
    fi
  fi
  # (/usr/share/licenses/NAME on Fedora, NAME-VERSION where %_docdir_fmt is rpm's old default.)
  check "$package carries COPYING as its licence" \
    grep -qE " /usr/share/licenses/$package(-$VERSION)?/COPYING\$" "$WORK/$package.files"
  not_root=$(awk '$2 != "root:root" {print $3}' "$WORK/$package.files")
  check "$package: every file is root's" test -z "$not_root"
  check "$package: License GPL-3.0-or-later" test "$(rpm -qp --qf '%{LICENSE}' "$file" 2> /dev/null)" = GPL-3.0-or-later
done

# ---------------------------------------------------------------- what ties them together
helper=$(rpm_of pacer-helper)
extension=$(rpm_of gnome-shell-extension-pacer)
main=$(rpm_of pacer)
if [ -n "$helper" ] && [ -n "$extension" ] && [ -n "$main" ]; then
  check "gnome-shell-extension-pacer is noarch" test "$(rpm -qp --qf '%{ARCH}' "$extension" 2> /dev/null)" = noarch
  check "gnome-shell-extension-pacer requires pacer of its version" \
    sh -c "rpm -qp --requires '$extension' 2> /dev/null | grep -q '^pacer = $VERSION-'"
  check "pacer recommends pacer-helper of its version" \
    sh -c "rpm -qp --recommends '$main' 2> /dev/null | grep -q '^pacer-helper = $VERSION-'"
  scripts=$(rpm -qp --scripts "$helper" 2> /dev/null)
  check "pacer-helper's scripts tell systemd (post, preun, postun)" \
    sh -c "printf '%s' \"\$1\" | grep -q 'postinstall scriptlet' && printf '%s' \"\$1\" | grep -q 'preuninstall scriptlet' &&
      printf '%s' \"\$1\" | grep -q 'postuninstall scriptlet' && printf '%s' \"\$1\" | grep -q systemctl" _ "$scripts"
  check "the autostart entry is a configuration file (%config(noreplace))" \
    sh -c "rpm -qp --configfiles '$main' 2> /dev/null | grep -qx /etc/xdg/autostart/io.github.pacerapp.Pacer.Autostart.desktop"
fi

# ---------------------------------------------------------------- installed together
# Into an empty root with rpm itself (no scriptlets: the root has no shell), and out again.
if [ -n "$helper" ] && [ -n "$extension" ] && [ -n "$main" ]; then
  root=$WORK/root
  rm -rf "$root"
  mkdir -p "$root"
  if rpm --root="$root" --initdb >> "$LANE_LOG" 2>&1 &&
    rpm --root="$root" -i --nodeps --noscripts "$main" "$helper" "$extension" >> "$LANE_LOG" 2>&1; then
    ok "the three packages install side by side, no file of one in another"
  else
    bad "rpm -i of the three packages into $root (log: $LANE_LOG)"
  fi
  check "installed, pacer-helper's unit runs the installed helper" \
    sh -c "grep -q '^ExecStart=/usr/libexec/pacer-helper ' '$root/usr/lib/systemd/system/pacer-helper.service' &&
      [ -x '$root/usr/libexec/pacer-helper' ]"
  if rpm --root="$root" -e --nodeps --noscripts gnome-shell-extension-pacer pacer-helper pacer >> "$LANE_LOG" 2>&1; then
    left=$(cd "$root" && find etc usr -type f 2> /dev/null)
    check "rpm -e takes every file away again" test -z "$left"
  else
    bad "rpm -e of the three packages (log: $LANE_LOG)"
  fi
  rm -rf "$root"
fi

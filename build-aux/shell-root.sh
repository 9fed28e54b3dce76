#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# GNOME Shell for the shell-48 and shell-50 lanes of build-aux/test.sh: a Debian root with
# the shell and its AppIndicator extension, made by debootstrap from the Debian mirror apt
# uses here: Debian 13 (trixie) for GNOME Shell 48, Debian testing for GNOME Shell 50.
# Prints the root's path, and says the shell's version (`GNOME Shell 48.7`).
#
#   build-aux/shell-root.sh 48|50     (as root: debootstrap and chroot need it)
#
# The root is made once and kept outside the checkout, in
# ${XDG_CACHE_HOME:-~/.cache}/pacer/shell-VERSION-root/KEY/root, KEY a hash of its recipe
# (the suite, the packages, the layout): a fresh clone uses it again, a change of the recipe
# makes a new one (pacer_cache_dir removes the old). It is made in a folder beside it and
# renamed once complete, so a root whose making was interrupted is never used. The tests use
# it read-only (crates/pacer-testrig/src/gnome_shell/which.rs): only gnome-shell runs in it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh

VERSION=${1:-}
# The suite, what Debian calls it, and debootstrap's script for it: Debian 12's debootstrap
# has none for testing's codename, and testing is laid out as unstable is.
case "$VERSION" in
  48) SUITE=trixie DEBIAN="Debian 13 (trixie)" SCRIPT=() FONT=fonts-cantarell ;;
  50) SUITE=testing DEBIAN="Debian testing" SCRIPT=(/usr/share/debootstrap/scripts/sid) FONT=fonts-adwaita-sans ;;
  *)
    pacer_say "shell-root.sh: which GNOME Shell? 48 (Debian 13) or 50 (Debian testing)"
    exit 2
    ;;
esac
# gnome-shell-extension-appindicator: the tray's host in the top bar. libglib2.0-bin for
# gsettings. The rest because debootstrap does not choose between alternatives: without a
# `logind` (libpam-systemd, systemd-sysv), a `dbus-system-bus` (dbus) and a
# `dbus-session-bus` (dbus-x11), polkitd, gnome-settings-daemon, dconf-service and
# wireplumber stay unconfigured, and gnome-shell with them. power-profiles-daemon: the
# distribution's own (0.30), which also owns the name 48 and later show their power toggle
# for, org.freedesktop.UPower.PowerProfiles (the tests run it in the root, as the shell).
# FONT: the interface font the shell's settings name (Cantarell in 48, Adwaita Sans in 50),
# which GNOME's users have and the checks of cut words need. The X server, the buses and
# everything else the tests drive are the host's.
PACKAGES=(gnome-shell gnome-shell-extension-appindicator libglib2.0-bin libpam-systemd systemd-sysv
  dbus dbus-x11 power-profiles-daemon "$FONT")
# Bump when the way the root is made changes beyond the suite and the packages.
LAYOUT=1
KEY=$(printf '%s\n' "$SUITE" "$LAYOUT" "${PACKAGES[@]}" | sha256sum | cut -c1-16)

if [ "$(id -u)" -ne 0 ]; then
  pacer_say "shell-$VERSION: GNOME Shell $VERSION runs in a $DEBIAN root made by debootstrap: run it as root"
  exit 1
fi
pacer_install_packages debootstrap util-linux >&2

# complete ROOT : whether dpkg in ROOT has every package configured, gnome-shell among them.
complete() {
  chroot "$1" dpkg-query -W -f '${Status}\n' gnome-shell 2> /dev/null | grep -qx 'install ok installed' &&
    [ -z "$(chroot "$1" dpkg --audit 2>&1)" ]
}

# configure_missed ROOT LOG : installs what debootstrap missed in ROOT and configures what it
# left unconfigured, with apt in the root and the package lists debootstrap fetched (testing's
# Release file may have expired meanwhile: the lists are those of the packages unpacked).
# Testing's libonnxruntime, pulled by pipewire's modules, depends on a name that only a
# package's Provides gives, which debootstrap's resolver does not read; debootstrap fails
# configuring it, and gnome-shell, with all unpacked. In a mount namespace of its own, as
# debootstrap: the mounts apt needs go with it.
configure_missed() {
  nice -n 10 unshare --mount --propagation private bash -euc '
    mount -t proc proc "$1/proc"
    mount -t sysfs sys "$1/sys"
    mount --rbind /dev "$1/dev"
    DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get -f install -y -q --no-install-recommends' \
    configure "$1" >> "$2" 2>&1
}

cache=$(pacer_cache_dir "shell-$VERSION-root" "$KEY")
root=$cache/root
# One run lays the root out; another waits for it.
exec {lock}> "$cache/.lock"
flock "$lock"
if [ ! -d "$root" ]; then
  # What an interrupted run left.
  find "$cache" -mindepth 1 -maxdepth 1 -name 'root.*' -exec rm -rf --one-file-system {} +
  mirror=$(pacer_debian_mirror)
  work=$(mktemp -d "$cache/root.XXXXXX")
  chmod 755 "$work"
  log=$cache/debootstrap.log
  pacer_say "shell-$VERSION: laying out $DEBIAN with GNOME Shell in $root (minutes, once)"
  started=$(date +%s)
  # In a mount namespace of its own: what debootstrap mounts (proc, sys) goes with it, even
  # when it is killed, and never lies under a folder rm removes. It may fail, or succeed,
  # with packages it could not configure: apt in the root sees to them, and the root is kept
  # only once dpkg has every package configured.
  if ! nice -n 10 unshare --mount --propagation private debootstrap --variant=minbase \
    --include="$(IFS=,; echo "${PACKAGES[*]}")" "$SUITE" "$work" "$mirror" "${SCRIPT[@]}" \
    > "$log" 2>&1 || ! complete "$work"; then
    pacer_say "shell-$VERSION: debootstrap failed or left packages unconfigured: apt-get -f install in the root"
    configure_missed "$work" "$log" || true
  fi
  if ! complete "$work"; then
    tail -n 5 "$log" >&2
    pacer_say "shell-$VERSION: debootstrap $SUITE left the root incomplete (log: $log)"
    exit 1
  fi
  # The packages, their lists, and the folder debootstrap keeps when it fails.
  rm -rf "$work"/var/cache/apt/archives/*.deb "$work"/var/lib/apt/lists/*_Packages "$work/debootstrap"
  mv -T "$work" "$root"
  pacer_say "shell-$VERSION: root laid out in $(($(date +%s) - started)) s ($(du -sh "$root" | cut -f1))"
fi
# The version of the shell the lane runs, for its log; a suite that has moved on to another
# shell is not the lane's.
version=$(chroot "$root" gnome-shell --version)
printf '%s\n' "$version" >&2
case "$version" in
  "GNOME Shell $VERSION."*) ;;
  *)
    pacer_say "shell-$VERSION: $DEBIAN has $version, not GNOME Shell $VERSION"
    exit 1
    ;;
esac
echo "$root"

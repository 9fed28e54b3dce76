#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# GNOME Shell 48 for the shell-48 lane of build-aux/test.sh: a Debian 13 (trixie) root with
# the shell and its AppIndicator extension, made by debootstrap from the Debian mirror apt
# uses here. Prints the root's path, and says the shell's version (`GNOME Shell 48.7`).
#
#   build-aux/shell-48-root.sh        (as root: debootstrap and chroot need it)
#
# The root is made once and kept outside the checkout, in
# ${XDG_CACHE_HOME:-~/.cache}/pacer/shell-48-root/KEY/root, KEY a hash of its recipe (the
# suite, the packages, the layout): a fresh clone uses it again, a change of the recipe makes
# a new one (pacer_cache_dir removes the old). It is made in a folder beside it and renamed
# once complete, so a root whose making was interrupted is never used. The tests use it
# read-only (crates/pacer-testrig/src/gnome_shell/root.rs): only gnome-shell runs in it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh

SUITE=trixie
# gnome-shell-extension-appindicator: the tray's host in the top bar. libglib2.0-bin for
# gsettings. The rest because debootstrap does not choose between alternatives: without a
# `logind` (libpam-systemd, systemd-sysv), a `dbus-system-bus` (dbus) and a
# `dbus-session-bus` (dbus-x11), polkitd, gnome-settings-daemon, dconf-service and
# wireplumber stay unconfigured, and gnome-shell with them. The X server, the buses and
# everything the tests drive are the host's.
PACKAGES=(gnome-shell gnome-shell-extension-appindicator libglib2.0-bin libpam-systemd systemd-sysv
  dbus dbus-x11)
# Bump when the way the root is made changes beyond the suite and the packages.
LAYOUT=1
KEY=$(printf '%s\n' "$SUITE" "$LAYOUT" "${PACKAGES[@]}" | sha256sum | cut -c1-16)

if [ "$(id -u)" -ne 0 ]; then
  pacer_say "shell-48: GNOME Shell 48 runs in a Debian 13 root made by debootstrap: run it as root"
  exit 1
fi
pacer_install_packages debootstrap util-linux >&2

cache=$(pacer_cache_dir shell-48-root "$KEY")
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
  pacer_say "shell-48: laying out Debian $SUITE with GNOME Shell in $root (a few minutes, once)"
  started=$(date +%s)
  # In a mount namespace of its own: what debootstrap mounts (proc, sys) goes with it, even
  # when it is killed, and never lies under a folder rm removes.
  if ! nice -n 10 unshare --mount --propagation private debootstrap --variant=minbase \
    --include="$(IFS=,; echo "${PACKAGES[*]}")" "$SUITE" "$work" "$mirror" \
    > "$cache/debootstrap.log" 2>&1; then
    tail -n 5 "$cache/debootstrap.log" >&2
    pacer_say "shell-48: debootstrap $SUITE failed (log: $cache/debootstrap.log)"
    exit 1
  fi
  # debootstrap succeeds with packages it could not configure.
  if ! chroot "$work" dpkg-query -W -f '${Status}\n' gnome-shell | grep -qx 'install ok installed'; then
    pacer_say "shell-48: gnome-shell is not configured in the root (log: $cache/debootstrap.log)"
    exit 1
  fi
  rm -rf "$work"/var/cache/apt/archives/*.deb "$work"/var/lib/apt/lists/*_Packages
  mv -T "$work" "$root"
  pacer_say "shell-48: root laid out in $(($(date +%s) - started)) s ($(du -sh "$root" | cut -f1))"
fi
# The version of the shell the lane runs, for its log.
chroot "$root" gnome-shell --version >&2
echo "$root"

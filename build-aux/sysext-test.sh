#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Pacer's system extension (target/package/pacer.raw, build-aux/package-sysext.sh) as an
# immutable system uses it: the image is checked (squashfs, /usr alone, what it holds, its
# extension-release), merged with the real systemd-sysext over a scratch root's /usr, and the
# helper is D-Bus activated out of the merged tree by its bus name, by an unprivileged caller
# through a bus that loads the merged bus policy and activation file (its Exec= pointed into
# the scratch root and at a simulated machine), with polkit's stand-in allowing the actions
# that the merged polkit policy declares; pacerctl from the merged tree changes the machine
# through it. Then the extension is unmerged and its files are checked gone.
#
#   build-aux/sysext-test.sh        (as root: merging mounts a loop device and an overlay)
#
# One line per check (`ok - …` / `FAIL - …`, notes start with `#`), then `N passed, N failed`;
# the exit status is non-zero when a check failed. The image is built unless it is that of
# the project's files already (build-aux/package.sh). Everything runs in a mount namespace of its own, with a tmpfs
# holding the scratch root and the bus, and another on /run: nothing stays mounted or written
# outside when the lane ends. Where there are no loop devices (or with
# PACER_SYSEXT_TEST_DIRECTORY=1), the image's tree is merged as a directory extension instead.
# Log: target/sysext-test/sysext-test.log.
set -uo pipefail
SELF=$(readlink -f "${BASH_SOURCE[0]}")
cd "$(dirname "$SELF")/.." || exit 1

# Into a mount namespace of its own, where the mounts that systemd-sysext makes in its own
# namespace propagate back, and no further. The lane's files go to a tmpfs mounted there over
# an empty directory of /tmp, which anyone may reach (the unprivileged caller runs programs of
# the merged tree); the directory is removed once the namespace is gone.
if [ "$(id -u)" -eq 0 ] && [ "${PACER_SYSEXT_TEST_NS:-0}" != 1 ]; then
  mountpoint_dir=$(mktemp -d /tmp/pacer-sysext-test.XXXXXX) || exit 1
  unshare --mount --propagation private \
    env PACER_SYSEXT_TEST_NS=1 PACER_SYSEXT_TEST_DIR="$mountpoint_dir" "$SELF" "$@"
  status=$?
  rmdir "$mountpoint_dir"
  exit "$status"
fi

source build-aux/common.sh
REPO=$PWD
WORK=$REPO/target/sysext-test
LANE_LOG=$WORK/sysext-test.log
source build-aux/lane.sh
IMAGE=$REPO/target/package/pacer.raw
RUNDIR=${PACER_SYSEXT_TEST_DIR:-}
SCRATCH=$RUNDIR/root
UNPACKED=$RUNDIR/unpacked
MACHINE=$RUNDIR/machine
STATE=$RUNDIR/state
BUS_DIR=$RUNDIR/bus
BUS_SOCKET=$BUS_DIR/system_bus_socket
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$BUS_SOCKET
MODEL=intel-hybrid

HELPER=io.github.pacerapp.Pacer.Helper1
HELPER_PATH=/io/github/pacerapp/Pacer/Helper1
POLKIT=org.freedesktop.PolicyKit1

# What the image holds (files; @LANG@: one per language of po/LINGUAS). All but the
# extension-release file are what meson installs (build-aux/expected-install.txt).
EXPECTED_FILES=(
  usr/bin/pacerctl
  usr/lib/extension-release.d/extension-release.pacer
  usr/lib/systemd/system/pacer-helper-privileged.socket
  usr/lib/systemd/system/pacer-helper-privileged@.service
  usr/lib/systemd/system/pacer-helper.service
  usr/lib/systemd/system/pacer.slice
  usr/libexec/pacer-helper
  usr/share/dbus-1/interfaces/io.github.pacerapp.Pacer.Helper1.xml
  usr/share/dbus-1/system-services/io.github.pacerapp.Pacer.Helper1.service
  usr/share/dbus-1/system.d/io.github.pacerapp.Pacer.Helper1.conf
  usr/share/locale/@LANG@/LC_MESSAGES/pacer.mo
  usr/share/polkit-1/actions/io.github.pacerapp.Pacer.policy
)

check() {
  local name=$1
  shift
  if "$@"; then ok "$name"; else bad "$name"; fi
}

DBUS_PID=
POLKIT_PID=
HELPER_PID=
MERGED=0

stop_pid() {
  local pid=$1
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2> /dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2> /dev/null
}

stop_bus() {
  stop_pid "$HELPER_PID"
  HELPER_PID=
  stop_pid "$POLKIT_PID"
  POLKIT_PID=
  stop_pid "$DBUS_PID"
  [ -n "$DBUS_PID" ] && wait "$DBUS_PID" 2> /dev/null
  DBUS_PID=
}

cleanup() {
  stop_bus
  if [ "$MERGED" = 1 ]; then
    systemd-sysext --root="$SCRATCH" unmerge >> "$LANE_LOG" 2>&1
  fi
  # The namespace, and with it the tmpfs and its mounts, goes with the last of its processes.
}

lane_start "merging a system extension mounts a loop device and an overlay"
if [ "${PACER_SYSEXT_TEST_NS:-0}" != 1 ] || [ ! -d "$RUNDIR" ]; then
  abort "not in a mount namespace of its own (unshare failed)"
fi

# ---------------------------------------------------------------- tools, the image
pacer_install_packages squashfs-tools systemd dbus libglib2.0-bin python3-dbusmock util-linux \
  >> "$LANE_LOG" 2>&1 || abort "installing squashfs-tools systemd dbus libglib2.0-bin python3-dbusmock"
command -v systemd-sysext > /dev/null || abort "systemd-sysext is missing (systemd 248 or newer)"
note "$(systemd-sysext --version | head -n 1)"

build_packages sysext
note "image: $IMAGE, $(stat -c %s "$IMAGE") bytes"

# The lane's files: the scratch root, the bus, the machine. systemd-sysext makes /run a slave
# in its own namespace (where it mounts the image), so the overlay it mounts propagates back
# from a shared mount outside /run alone; its own files go to a /run of the lane's.
mount -t tmpfs -o mode=755 pacer-sysext-test "$RUNDIR" || abort "mounting a tmpfs on $RUNDIR"
mount -t tmpfs -o mode=755 pacer-sysext-test-run /run || abort "mounting a tmpfs on /run"
mount --make-rshared / || abort "making the lane's mounts shared in its namespace"

# ---------------------------------------------------------------- the image
if unsquashfs -s "$IMAGE" 2>&1 | grep -q 'Found a valid SQUASHFS 4:0 superblock'; then
  ok "the image is a squashfs file system ($(unsquashfs -s "$IMAGE" | sed -n 's/^Compression //p'))"
else
  bad "the image is not a squashfs file system"
fi

listing=$(unsquashfs -lls "$IMAGE" 2> /dev/null | grep ' squashfs-root' |
  sed 's|^\([^ ]*\) \([^ ]*\) .* squashfs-root/\{0,1\}|\1 \2 |')
outside=$(printf '%s\n' "$listing" | awk '$3 != "" && $3 != "usr" && $3 !~ /^usr\//')
if [ -z "$outside" ] && [ -n "$listing" ]; then
  ok "the image holds /usr alone"
else
  bad "the image holds more than /usr: $(echo "$outside" | awk '{print $3}' | tr '\n' ' ')"
fi
not_root=$(printf '%s\n' "$listing" | awk '$2 != "root/root"')
check "every file of the image is root's" test -z "$not_root"
writable=$(printf '%s\n' "$listing" | awk 'substr($1, 6, 1) == "w" || substr($1, 9, 1) == "w" {print $3}')
check "no file of the image is writable by group or others" test -z "$writable"
for program in usr/libexec/pacer-helper usr/bin/pacerctl; do
  mode=$(printf '%s\n' "$listing" | awk -v p="$program" '$3 == p {print $1}')
  check "$program is in the image, -rwxr-xr-x" test "$mode" = "-rwxr-xr-x"
done

expected=$(for file in "${EXPECTED_FILES[@]}"; do
  if [[ $file == *@LANG@* ]]; then
    while read -r lang; do [ -n "$lang" ] && echo "${file//@LANG@/$lang}"; done < <(grep -v '^#' po/LINGUAS)
  else
    echo "$file"
  fi
done | LC_ALL=C sort)
actual=$(printf '%s\n' "$listing" | awk '$1 !~ /^d/ {print $3}' | LC_ALL=C sort)
if [ "$expected" = "$actual" ]; then
  ok "the image holds the helper, its data files, pacerctl and the translations, and nothing else ($(echo "$actual" | wc -l) files)"
else
  bad "the image's files differ from the expected ones: $(diff <(echo "$expected") <(echo "$actual") | grep '^[<>]' | tr '\n' ' ')"
fi
not_installed=$(for file in "${EXPECTED_FILES[@]}"; do
  case $file in usr/lib/extension-release.d/*) ;; *) grep -qxF "$file" build-aux/expected-install.txt || echo "$file" ;; esac
done)
check "each of them but the extension-release file is one that meson installs (build-aux/expected-install.txt)" \
  test -z "$not_installed"
check "the window is not in the image (its users here have the Flatpak)" eval "! grep -q '^usr/bin/pacer\$' <<< \"\$actual\""

unsquashfs -no-progress -d "$UNPACKED" "$IMAGE" >> "$LANE_LOG" 2>&1 || abort "unsquashfs $IMAGE"
release=$UNPACKED/usr/lib/extension-release.d/extension-release.pacer
field() { sed -n "s/^$1=//p" "$release" | tr -d '"'; }
check "extension-release.pacer has ID=_any (any distribution)" test "$(field ID)" = _any
case "$(uname -m)" in
  x86_64) machine_arch=x86-64 ;; aarch64) machine_arch=arm64 ;; *) machine_arch=$(uname -m) ;;
esac
check "extension-release.pacer has ARCHITECTURE=$machine_arch, this machine's" test "$(field ARCHITECTURE)" = "$machine_arch"
check "extension-release.pacer has SYSEXT_SCOPE=system" test "$(field SYSEXT_SCOPE)" = system
version=$(sed -n "s/^  version: '\(.*\)',$/\1/p" meson.build)
check "extension-release.pacer has SYSEXT_VERSION_ID=$version (meson.build's)" test "$(field SYSEXT_VERSION_ID)" = "$version"
check "the image has no os-release of its own" test ! -e "$UNPACKED/usr/lib/os-release" -a ! -e "$UNPACKED/etc"
note "extension-release.pacer: $(tr '\n' ' ' < "$release")"

activation=$UNPACKED/usr/share/dbus-1/system-services/$HELPER.service
check "the activation file starts /usr/libexec/pacer-helper through pacer-helper.service" \
  grep -qxF -e "Exec=/usr/libexec/pacer-helper" "$activation"
check "the activation file names pacer-helper.service" grep -qxF "SystemdService=pacer-helper.service" "$activation"
check "pacer-helper.service runs /usr/libexec/pacer-helper" \
  grep -q '^ExecStart=/usr/libexec/pacer-helper ' "$UNPACKED/usr/lib/systemd/system/pacer-helper.service"

# Other distributions' /usr: the programs may need no library but glibc's and libgcc_s.
libraries=$(ldd "$UNPACKED/usr/libexec/pacer-helper" "$UNPACKED/usr/bin/pacerctl" 2>&1 |
  awk '/=>|ld-linux|vdso/ {print $1}' | sed 's|.*/||' | sort -u |
  grep -v -e '^linux-vdso' -e '^libc\.so' -e '^libm\.so' -e '^libgcc_s\.so' -e '^ld-linux' -e ':$')
check "pacer-helper and pacerctl need only glibc and libgcc_s${libraries:+ (also: $(printf '%s' "$libraries" | tr '\n' ' '))}" test -z "$libraries"
glibc=$(objdump -T "$UNPACKED/usr/libexec/pacer-helper" "$UNPACKED/usr/bin/pacerctl" 2> /dev/null |
  grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)
note "the newest glibc symbol they use: ${glibc:-unknown} (older distributions cannot merge it)"

# ---------------------------------------------------------------- merged
# A scratch root: an os-release (systemd-sysext compares the extension's with it) and a file of
# the "host's" /usr, which must stay visible under the overlay.
mkdir -p "$SCRATCH/usr/lib" "$SCRATCH/usr/share/pacer-sysext-test" "$SCRATCH/var/lib/extensions" "$SCRATCH/etc"
cp /usr/lib/os-release "$SCRATCH/usr/lib/os-release"
echo base > "$SCRATCH/usr/share/pacer-sysext-test/base"
install -m 644 "$IMAGE" "$SCRATCH/var/lib/extensions/pacer.raw"
if [ "${PACER_SYSEXT_TEST_DIRECTORY:-0}" = 1 ] || { [ ! -e /dev/loop-control ] && ! losetup -f > /dev/null 2>&1; }; then
  # No loop devices (a container without them): systemd-sysext takes a directory as well.
  note "no loop devices here (or PACER_SYSEXT_TEST_DIRECTORY=1): merging the image's tree as a directory extension instead"
  rm "$SCRATCH/var/lib/extensions/pacer.raw"
  cp -a "$UNPACKED" "$SCRATCH/var/lib/extensions/pacer"
fi
if systemd-sysext --root="$SCRATCH" list 2>> "$LANE_LOG" | grep -q '^pacer '; then
  ok "systemd-sysext list finds the extension ($(systemd-sysext --root="$SCRATCH" list 2> /dev/null | awk '$1 == "pacer" {print $2}'))"
else
  bad "systemd-sysext list does not find the extension"
fi
if systemd-sysext --root="$SCRATCH" merge >> "$LANE_LOG" 2>&1 &&
  [ "$(findmnt -n -o FSTYPE "$SCRATCH/usr")" = overlay ]; then
  MERGED=1
  ok "systemd-sysext merge mounts the extension over the scratch root's /usr"
else
  tail -n 5 "$LANE_LOG" | sed 's/^/# /'
  abort "systemd-sysext merge (log: $LANE_LOG)"
fi
not_merged=$(for file in $expected; do [ -e "$SCRATCH/$file" ] || echo "$file"; done)
check "every file of the image is under the merged /usr" test -z "$not_merged"
check "the scratch root's own /usr stays visible" test -f "$SCRATCH/usr/share/pacer-sysext-test/base"

# ---------------------------------------------------------------- activated
# A system bus as the distribution's: nothing may be owned or called but what a policy allows,
# and the merged tree's policy is included. The activation file is the merged one with Exec=
# pointed into the scratch root and at the simulated machine.
mkdir -p "$BUS_DIR/system-services" "$STATE"
chmod 700 "$STATE"
sed -e "s|^Exec=/usr/libexec/pacer-helper\$|Exec=$SCRATCH/usr/libexec/pacer-helper --sysfs-root $MACHINE --state-dir $STATE|" \
  "$SCRATCH/usr/share/dbus-1/system-services/$HELPER.service" > "$BUS_DIR/system-services/$HELPER.service"
check "the merged activation file, its Exec= pointed into the scratch root" \
  grep -q "^Exec=$SCRATCH/usr/libexec/pacer-helper " "$BUS_DIR/system-services/$HELPER.service"
cat > "$BUS_DIR/system.conf" << CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$BUS_SOCKET</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$BUS_DIR/system-services</servicedir>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Peer"/>
    <allow send_destination="$POLKIT"/>
  </policy>
  <policy user="root">
    <allow own="$POLKIT"/>
  </policy>
  <includedir>$SCRATCH/usr/share/dbus-1/system.d</includedir>
</busconfig>
CONF
chmod 755 "$RUNDIR" "$BUS_DIR"

"$SCRATCH/usr/bin/pacerctl" --sysfs-root "$MACHINE" --simulate "$MODEL" status --json > /dev/null 2>> "$LANE_LOG" ||
  abort "the merged pacerctl could not lay out the simulated $MODEL in $MACHINE"
chmod -R go-w "$MACHINE"
GOVERNOR=$MACHINE/sys/devices/system/cpu/cpufreq/policy0/scaling_governor
[ -f "$GOVERNOR" ] || abort "the simulated $MODEL has no policy0"

dbus-daemon --config-file="$BUS_DIR/system.conf" --nofork --nopidfile >> "$LANE_LOG" 2>&1 &
DBUS_PID=$!
bus() { gdbus call --system --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus --method "$@"; }
for _ in $(seq 100); do [ -S "$BUS_SOCKET" ] && bus org.freedesktop.DBus.GetId > /dev/null 2>&1 && break; sleep 0.05; done
bus org.freedesktop.DBus.GetId > /dev/null 2>&1 || abort "the private system bus did not start (log: $LANE_LOG)"
activatable() { bus org.freedesktop.DBus.ListActivatableNames | grep -q "'$HELPER'"; }
owned() { bus org.freedesktop.DBus.NameHasOwner "$1" 2> /dev/null | grep -q true; }
check "the bus reads the merged activation file: $HELPER is activatable" activatable
check "and nothing owns it yet" eval '! owned "$HELPER"'

/usr/bin/python3 -m dbusmock --system --template polkitd >> "$LANE_LOG" 2>&1 &
POLKIT_PID=$!
for _ in $(seq 200); do owned "$POLKIT" && break; sleep 0.05; done
actions=$(grep -o 'action id="[^"]*"' "$SCRATCH/usr/share/polkit-1/actions/io.github.pacerapp.Pacer.policy" |
  sed 's/action id="\(.*\)"/'"'"'\1'"'"'/' | paste -sd, -)
gdbus call --system --dest "$POLKIT" --object-path /org/freedesktop/PolicyKit1/Authority \
  --method org.freedesktop.DBus.Mock.SetAllowed "[$actions]" >> "$LANE_LOG" 2>&1 ||
  abort "polkit's stand-in did not start (log: $LANE_LOG)"
note "polkit's stand-in allows what the merged policy declares: $actions"

as_nobody() { setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups env HOME=/nonexistent "$@"; }
snapshot=$(as_nobody gdbus call --system --dest "$HELPER" --object-path "$HELPER_PATH" \
  --method io.github.pacerapp.Pacer.Helper1.Snapshot 2>> "$LANE_LOG")
if printf '%s' "$snapshot" | grep -q '"schema"'; then
  ok "an unprivileged caller's Snapshot call bus-activates the helper by its name and is answered"
else
  bad "Snapshot through bus activation: ${snapshot:-no answer} (log: $LANE_LOG)"
fi
HELPER_PID=$(bus org.freedesktop.DBus.GetConnectionUnixProcessID "$HELPER" 2> /dev/null | grep -o '[0-9]\+' | tail -n 1)
exe=$( [ -n "$HELPER_PID" ] && readlink "/proc/$HELPER_PID/exe")
check "the helper that owns $HELPER is the merged tree's, run as root (${exe:-none})" \
  sh -c "[ '$exe' = '$SCRATCH/usr/libexec/pacer-helper' ] && [ \"\$(stat -c %u /proc/$HELPER_PID)\" = 0 ]"

before=$(cat "$GOVERNOR")
target=performance
[ "$before" = performance ] && target=powersave
if as_nobody "$SCRATCH/usr/bin/pacerctl" --sysfs-root "$MACHINE" set governor "$target" --all >> "$LANE_LOG" 2>&1 &&
  [ "$(cat "$GOVERNOR")" = "$target" ]; then
  ok "the merged pacerctl, unprivileged, sets the governor through the activated helper ($before -> $target)"
else
  bad "pacerctl set governor $target through the helper: policy0 reads $(cat "$GOVERNOR") (log: $LANE_LOG)"
fi
denied=$(as_nobody gdbus call --system --dest "$HELPER" --object-path "$HELPER_PATH" \
  --method io.github.pacerapp.Pacer.NotAnInterface.Call 2>&1)
if printf '%s' "$denied" | grep -q 'AccessDenied'; then
  ok "the merged bus policy is in force: a call to an interface it does not name is denied"
else
  bad "a call outside the merged bus policy was not denied: $denied"
fi

# ---------------------------------------------------------------- unmerged
stop_bus
if systemd-sysext --root="$SCRATCH" unmerge >> "$LANE_LOG" 2>&1 && ! findmnt -n "$SCRATCH/usr" > /dev/null; then
  MERGED=0
  ok "systemd-sysext unmerge takes the overlay away"
else
  bad "systemd-sysext unmerge (log: $LANE_LOG)"
fi
left=$(for file in $expected; do [ -e "$SCRATCH/$file" ] && echo "$file"; done)
check "none of the extension's files is left under /usr" test -z "$left"
check "the scratch root's own /usr is as it was" \
  sh -c "[ -f '$SCRATCH/usr/share/pacer-sysext-test/base' ] && [ -f '$SCRATCH/usr/lib/os-release' ]"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds Pacer with meson the way a distribution does (--prefix=/usr, cargo driven by meson
# with its target directory inside the build directory), runs the data checks
# (`meson test --suite data`), installs into a fresh staging directory and compares what was
# installed with build-aux/expected-install.txt (a unified diff on a mismatch). Then it checks
# that the programs the desktop, activation and systemd files start are installed, and that
# the installed pacer-helper and pacerctl run.
#
#   build-aux/meson-install-check.sh                  development profile (cargo's dev profile)
#   PACER_INSTALL_PROFILE=default build-aux/meson-install-check.sh   the release build
#
# The build directory is kept in target/meson-install-check/PROFILE, so a second run only
# rebuilds what changed; the staging directory is new each time. The dev profile is built
# without debugger information here (CARGO_PROFILE_DEV_DEBUG=0, or test.sh's setting, with
# its shared cargo target directory): faster, and a fraction of the disk; the files
# installed are the same.
# Needs meson, gettext, desktop-file-utils, appstream, libxml2-utils (build-aux/common.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh
pacer_ensure_rust

profile="${PACER_INSTALL_PROFILE:-development}"
case "$profile" in
  default) app_id=io.github.pacerapp.Pacer ;;
  development) app_id=io.github.pacerapp.Pacer.Devel ;;
  *) pacer_say "PACER_INSTALL_PROFILE must be default or development, not $profile"; exit 2 ;;
esac

build="target/meson-install-check/$profile"
options=(--prefix=/usr -Dprofile="$profile" -Dgui=true -Dhelper=true -Dsystemdsystemunitdir=)
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-0}"

if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "${options[@]}" "$build" >/dev/null
else
  rm -rf "$build"
  meson setup "${options[@]}" "$build" >/dev/null
fi
pacer_link_cargo_target "$build"
meson compile -C "$build"
meson test -C "$build" --no-rebuild --suite data --print-errorlogs

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --no-rebuild --destdir "$stage" >/dev/null

# The expected list, with @APP_ID@ and @LANG@ filled in.
languages=$(sed -e 's/#.*//' po/LINGUAS | tr -s ' \t' '\n\n' | sed '/^$/d')
while IFS= read -r line; do
  case "$line" in
    '#'* | '') ;;
    *@LANG@*) for lang in $languages; do printf '%s\n' "${line//@LANG@/$lang}"; done ;;
    *) printf '%s\n' "$line" ;;
  esac
done < build-aux/expected-install.txt | sed "s/@APP_ID@/$app_id/g" | LC_ALL=C sort > "$stage.expected"
trap 'rm -rf "$stage" "$stage.expected" "$stage.installed"' EXIT
(cd "$stage" && find . \( -type f -o -type l \) -printf '%P\n') | LC_ALL=C sort > "$stage.installed"

if ! diff -u --label expected-install.txt --label installed "$stage.expected" "$stage.installed"; then
  pacer_say "meson install put other files in place than build-aux/expected-install.txt lists (diff above)"
  exit 1
fi
pacer_say "meson install ($profile): all $(wc -l < "$stage.installed") files as expected"

# Exec= of the desktop files and the activation file, ExecStart= of the unit: installed,
# executable.
fail=0
check_program() { # FILE KEY
  local command program
  command=$(sed -n "s/^$2=//p" "$stage/$1" | head -n 1)
  program=${command%% *}
  case "$program" in
    /*) ;;
    *) program=/usr/bin/$program ;;
  esac
  if [ ! -x "$stage$program" ]; then
    pacer_say "$1: $2=$command, but $program is not installed"
    fail=1
  fi
}
check_program "usr/share/applications/$app_id.desktop" Exec
check_program etc/xdg/autostart/io.github.pacerapp.Pacer.Autostart.desktop Exec
check_program usr/share/dbus-1/system-services/io.github.pacerapp.Pacer.Helper1.service Exec
check_program usr/lib/systemd/system/pacer-helper.service ExecStart
if ! grep -qx "SystemdService=pacer-helper.service" "$stage/usr/share/dbus-1/system-services/io.github.pacerapp.Pacer.Helper1.service"; then
  pacer_say "the activation file does not name pacer-helper.service"
  fail=1
fi

# The installed GNOME Shell extension follows this build's Pacer, for the module system of
# the shell installed here (43 on Debian 12: legacy), and is what build.py makes for it: the
# build that tests/gnome_shell.rs loads into a real GNOME Shell.
extension="usr/share/gnome-shell/extensions/pacer@pacerapp.github.io"
if ! grep -q "\"bus-name\": \"$app_id\"" "$stage/$extension/metadata.json"; then
  pacer_say "the installed shell extension does not follow $app_id"
  fail=1
fi
api=esm
if command -v gnome-shell >/dev/null 2>&1; then
  shell_version=$(gnome-shell --version | awk '{print $NF}')
  [ "${shell_version%%.*}" -lt 45 ] && api=legacy
fi
python3 shell-extension/build.py --api "$api" --bus-name "$app_id" --localedir /usr/share/locale \
  --out "$stage.extension"
if ! diff -r "$stage.extension" "$stage/$extension"; then
  pacer_say "the installed shell extension is not build.py's $api build"
  fail=1
fi
rm -rf "$stage.extension"

# The installed programs run.
if ! "$stage/usr/libexec/pacer-helper" --help >/dev/null; then
  pacer_say "the installed pacer-helper does not answer --help"
  fail=1
fi
if ! "$stage/usr/bin/pacerctl" --help >/dev/null; then
  pacer_say "the installed pacerctl does not answer --help"
  fail=1
fi
[ "$fail" -eq 0 ] || exit 1
pacer_say "meson install ($profile): the desktop, activation and systemd files start installed programs, and they run"

# The installed desktop entry opens the window: its Exec, as installed, on a virtual display
# (settings from their defaults, nothing kept).
work=$(mktemp -d)
pids=()
cleanup_work() {
  kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup_work EXIT
exec_line=$(sed -n 's/^Exec=//p' "$stage/usr/share/applications/$app_id.desktop" | head -n 1)
PATH="$stage/usr/bin:$PATH" GSK_RENDERER=cairo G_MESSAGES_DEBUG=pacer GSETTINGS_BACKEND=memory \
  WORK="$work" EXEC_LINE="$exec_line" timeout 30 xvfb-run -a dbus-run-session -- sh -c '
    $EXEC_LINE > "$WORK/gui.log" 2>&1 & pid=$!
    for _ in $(seq 150); do grep -q "first frame drawn" "$WORK/gui.log" && break; sleep 0.1; done
    kill $pid' || true
if ! grep -q 'first frame drawn' "$work/gui.log"; then
  pacer_say "the installed desktop entry (Exec=$exec_line) did not open the window:"
  cat "$work/gui.log" >&2
  exit 1
fi
pacer_say "meson install ($profile): the desktop entry opens the window"

# The installed helper starts on a private system bus (polkit: python-dbusmock's polkitd)
# and answers.
cat > "$work/bus.conf" <<BUS
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$work/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/>
    <allow send_type="method_call"/><allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/><allow receive_type="method_return"/>
    <allow receive_type="error"/><allow receive_type="signal"/>
  </policy>
</busconfig>
BUS
dbus-daemon --config-file="$work/bus.conf" --nofork --nopidfile &
pids+=($!)
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/bus"
for _ in $(seq 100); do [ -S "$work/bus" ] && break; sleep 0.05; done
/usr/bin/python3 -m dbusmock --system --template polkitd >/dev/null 2>&1 &
pids+=($!)
"$stage/usr/libexec/pacer-helper" --simulate vm --sysfs-root "$work/machine" \
  --state-dir "$work/state" --idle-timeout 30 2> "$work/helper.log" &
pids+=($!)
answered=
for _ in $(seq 100); do
  if gdbus call --system --dest io.github.pacerapp.Pacer.Helper1 \
    --object-path /io/github/pacerapp/Pacer/Helper1 \
    --method io.github.pacerapp.Pacer.Helper1.Snapshot > "$work/snapshot" 2>/dev/null; then
    answered=1
    break
  fi
  sleep 0.1
done
if [ -z "$answered" ] || ! grep -q 'simulated.: *true' "$work/snapshot"; then
  pacer_say "the installed pacer-helper did not answer on a private system bus:"
  cat "$work/helper.log" "$work/snapshot" >&2
  exit 1
fi
pacer_say "meson install ($profile): the installed helper starts on a private system bus and answers"

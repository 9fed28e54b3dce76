#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Pacer as a Flatpak user runs it: built with meson as flatpak/io.github.pacerapp.Pacer.json
# builds it, finished with that manifest's own finish-args, installed from a local repository
# and started with the real `flatpak run` (flatpak 1.14, bubblewrap, xdg-dbus-proxy), under
# Xvfb, against private system and session buses that carry the real power-profiles-daemon,
# the polkit stand-in, pacer-helper and pacerctl's simulated kernel on the "host" side, a real
# StatusNotifierWatcher and a real notification server (Debian's dunst, unpacked).
#
#   build-aux/flatpak-test.sh ROOT   (as root; ROOT: the Debian 13 root that
#                                     build-aux/shell-root.sh 48 prints; build-aux/test.sh
#                                     runs it so)
#
# One line per check (`ok - …` / `FAIL - …`, notes start with `#`), then `N passed, N failed`;
# the exit status is non-zero when a check failed. Everything lives in target/flatpak-test
# (the private flatpak installation: FLATPAK_USER_DIR and friends, a private HOME; the logs)
# but the local repository, kept in ~/.cache/pacer/flatpak-test-repo so that a fresh clone
# reuses the test runtime it holds, and what the app's build in ROOT keeps (root-build.sh).
# Nothing is written to /var/lib/flatpak or the user's own installation.
#
# The runtime is a *test runtime*, io.github.pacerapp.TestPlatform (branch "test"), made from
# Debian 13's own packages (debootstrap minbase plus the GTK 4.18 and libadwaita 1.7 that
# Pacer links): Flathub's org.gnome.Platform cannot be downloaded here, and GNOME's runtimes
# since 48 have GTK 4.18 and libadwaita 1.7 or newer, on which the manifest's meson builds the
# window's GNOME 48 widgets (the gnome_48 feature). So the app is built with the libraries of
# the same Debian release, in ROOT (under the layer of the build's packages, as
# gtk-build.sh 48 builds: build-aux/root-build.sh), with meson, the manifest's config-opts and
# --prefix=/app, and the test manifest copies what meson installed. The exported runtime stays
# in the local repository, marked with a stamp of its suite, its package list and the way it
# is made; a change of any makes a new one.
#
# The simulated machine's way in (not one real installs use, and not in the shipped
# manifest): a `flatpak override` in the private installation grants the sandbox the
# machine's directory read-only and points PACER_SYSFS_ROOT at it. On the host,
# `pacerctl simulate run` keeps it moving, as the kernel keeps /sys moving.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh
source build-aux/root-build.sh
REPO=$PWD
WORK=$REPO/target/flatpak-test
LANE_LOG=$WORK/flatpak-test.log
source build-aux/lane.sh
MANIFEST=$REPO/flatpak/io.github.pacerapp.Pacer.json
MODEL=intel-hybrid

TEST_RUNTIME=io.github.pacerapp.TestPlatform
TEST_BRANCH=test
# The Debian release of the runtime, the one of ROOT, where the app is built: Debian 13, the
# first with GTK 4.18 and libadwaita 1.7 (GNOME 48).
RUNTIME_SUITE=trixie
# What Pacer links (GTK 4, libadwaita and what they pull in), gdbus for the in-sandbox bus
# calls and glib-compile-schemas for the settings schema, the SVG loader for the icons, a
# font and the icon theme. Bump RUNTIME_LAYOUT when the way the runtime is made changes.
RUNTIME_PACKAGES=(libgtk-4-1 libadwaita-1-0 libglib2.0-bin librsvg2-common fonts-cantarell adwaita-icon-theme)
RUNTIME_LAYOUT=2
RUNTIME_STAMP=$(printf '%s\n' "$RUNTIME_SUITE" "$RUNTIME_LAYOUT" "${RUNTIME_PACKAGES[@]}" | sha256sum | cut -c1-12)
# Where the runtime records the Debian packages it was made of (name and version, one a line):
# its files/ become the sandbox's /usr, and dpkg's own records are not among them.
RUNTIME_PACKAGE_LIST=share/pacer-test-runtime/packages

HELPER=io.github.pacerapp.Pacer.Helper1
PPD=net.hadess.PowerProfiles
PPD_PATH=/net/hadess/PowerProfiles
STATE=io.github.pacerapp.Pacer.State1
STATE_PATH=/io/github/pacerapp/Pacer
SNW=org.kde.StatusNotifierWatcher
POLKIT=org.freedesktop.PolicyKit1
POLKIT_PATH=/org/freedesktop/PolicyKit1/Authority
# The polkit actions Pacer's helper asks for (crates/pacer-dbus/src/lib.rs).
PACER_ACTIONS="'io.github.pacerapp.Pacer.set-cpu-power','io.github.pacerapp.Pacer.set-scheduler','io.github.pacerapp.Pacer.set-driver-mode','io.github.pacerapp.Pacer.run-measurement'"


# A symbol of libadwaita 1.5, which the gnome_48 build takes from it and the GNOME 43 build
# (libadwaita 1.2) does not: AdwAlertDialog, the notices' details there.
ADW_15_SYMBOL=adw_alert_dialog_new
# A symbol only libadwaita 1.7 exports (GNOME 48's AdwToggleGroup): the runtime's is that new.
ADW_17_SYMBOL=adw_toggle_group_get_type

PIDS=()
APP_PID=
APP_LOG=
start_app() { # LOG
  APP_LOG=$1
  flatpak run --user --log-session-bus --log-system-bus "$APP" > "$APP_LOG" 2>&1 &
  APP_PID=$!
}
stop_app() {
  [ -n "$APP_PID" ] || return 0
  flatpak kill "$APP" > /dev/null 2>&1 || kill "$APP_PID" 2> /dev/null
  for _ in $(seq 50); do kill -0 "$APP_PID" 2> /dev/null || break; sleep 0.1; done
  kill -KILL "$APP_PID" 2> /dev/null
  wait "$APP_PID" 2> /dev/null
  APP_PID=
}
cleanup() {
  stop_app
  # An instance started by D-Bus activation.
  [ -n "${APP:-}" ] && flatpak kill "$APP" > /dev/null 2>&1
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2> /dev/null; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2> /dev/null; done
  # flatpak's xdg-dbus-proxy exits on its own once the app has gone.
  for _ in $(seq 50); do
    grep -lsa -- "$WORK/xdg-run/.dbus-proxy" /proc/[0-9]*/cmdline > /dev/null || break
    sleep 0.1
  done
}
lane_start "the Flatpak test makes its runtime with debootstrap and builds the app in a chroot"
# Checked before anything is installed or built: without it, nothing here can be tested.
ROOT=${1:-}
if [ -z "$ROOT" ] || [ ! -x "$ROOT/usr/bin/apt-get" ]; then
  abort "no Debian 13 root to build the app in (${ROOT:-none given}): build-aux/shell-root.sh 48 lays it out and prints its path, the argument"
fi
# Its real path: pacer_root_layer keys the build's layer by it, the same key as gtk-build.sh 48.
ROOT=$(cd "$ROOT" && pwd -P)

# ---------------------------------------------------------------- host tools
pacer_install_packages "${PACER_BUILD_PACKAGES[@]}" flatpak flatpak-builder bubblewrap xdg-dbus-proxy \
  debootstrap zstd jq xvfb xdotool imagemagick dbus libglib2.0-bin python3-dbusmock \
  haskell-status-notifier-item-utils >> "$WORK/flatpak-test.log" 2>&1 ||
  abort "installing the host tools (log: $WORK/flatpak-test.log)"
pacer_unpack_ppd 2>> "$WORK/flatpak-test.log"
DUNST=$(pacer_unpack_package dunst /usr/bin/dunst "${PACER_DUNST_LIBRARIES[@]}" 2>> "$WORK/flatpak-test.log") ||
  abort "unpacking dunst (log: $WORK/flatpak-test.log)"
pacer_ensure_rust
APP=$(jq -er .id "$MANIFEST") || abort "no id in $MANIFEST"
log "host tools present (flatpak $(flatpak --version | awk '{print $2}'))"

# ---------------------------------------------------------------- the test runtime
# Made in the background while Pacer builds (debootstrap waits on the network, cargo on the
# processors).
REPO_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/pacer/flatpak-test-repo
make_runtime() {
  set -e
  local root=$WORK/runtime-root runtime=$WORK/runtime mirror started
  if [ -f "$REPO_DIR/pacer-runtime-$RUNTIME_STAMP" ]; then
    echo "runtime $RUNTIME_STAMP already in $REPO_DIR"
    return 0
  fi
  started=$(date +%s)
  rm -rf "$REPO_DIR" "$root" "$runtime"
  mkdir -p "$(dirname "$REPO_DIR")"
  mirror=$(pacer_debian_mirror)
  debootstrap --variant=minbase "$RUNTIME_SUITE" "$root" "$mirror"
  # The GTK stack with apt inside the root, from the suite debootstrap wrote into its
  # sources.list (this machine's own sources name another release): debootstrap's --include
  # cannot resolve virtual packages (dconf-service's default-dbus-session-bus). bwrap as root
  # is a chroot with its own /proc and /dev that leaves no mounts behind.
  local in_root=(bwrap --bind "$root" / --proc /proc --dev /dev --ro-bind /etc/resolv.conf /etc/resolv.conf
    --setenv PATH /usr/sbin:/usr/bin:/sbin:/bin --setenv DEBIAN_FRONTEND noninteractive --)
  "${in_root[@]}" apt-get update -q
  "${in_root[@]}" apt-get install -y -q --no-install-recommends "${RUNTIME_PACKAGES[@]}"
  # A runtime's files/ is the sandbox's /usr and files/etc its /etc; flatpak makes /lib64
  # a link into /usr because files/lib64 exists, and writes ld.so.cache only when
  # files/bin/ldconfig exists (Debian keeps it in sbin).
  mkdir -p "$runtime"
  mv "$root/usr" "$runtime/files"
  mkdir -p "$(dirname "$runtime/files/$RUNTIME_PACKAGE_LIST")"
  dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Package} ${Version}\n' > "$runtime/files/$RUNTIME_PACKAGE_LIST"
  cp -a "$root/etc" "$runtime/files/etc"
  rm -rf "$root" "$runtime"/files/share/{doc,man,info}
  ln -sf ../sbin/ldconfig "$runtime/files/bin/ldconfig"
  printf '[Runtime]\nname=%s\nruntime=%s/x86_64/%s\nsdk=%s/x86_64/%s\n' \
    "$TEST_RUNTIME" "$TEST_RUNTIME" "$TEST_BRANCH" "$TEST_RUNTIME" "$TEST_BRANCH" > "$runtime/metadata"
  flatpak build-export --runtime --files=files --disable-fsync "$REPO_DIR" "$runtime" "$TEST_BRANCH"
  rm -rf "$runtime"
  touch "$REPO_DIR/pacer-runtime-$RUNTIME_STAMP"
  echo "runtime $RUNTIME_STAMP laid out in $(($(date +%s) - started)) s"
}

# The private installation: every flatpak command sees only these directories (a bare
# `flatpak list` would otherwise create ~/.local/share/flatpak). Its environment is exported
# once Pacer is built (the build's own caches are the user's); the runtime is installed into
# it in the background, while Pacer builds.
rm -rf "$WORK/home" "$WORK/xdg-run" "$WORK/fp-user" "$WORK/fp-system" "$WORK/fp-etc" "$WORK/run"
PRIVATE_ENV=(HOME="$WORK/home" XDG_RUNTIME_DIR="$WORK/xdg-run" FLATPAK_USER_DIR="$WORK/fp-user"
  FLATPAK_SYSTEM_DIR="$WORK/fp-system" FLATPAK_CONFIG_DIR="$WORK/fp-etc"
  XDG_DATA_HOME="$WORK/home/.local/share" XDG_CONFIG_HOME="$WORK/home/.config"
  XDG_CACHE_HOME="$WORK/home/.cache")
mkdir -p "$WORK/home" "$WORK/fp-user" "$WORK/fp-system" "$WORK/fp-etc" "$WORK/run"
mkdir -p -m 700 "$WORK/xdg-run"
install_runtime() {
  set -e
  make_runtime
  env "${PRIVATE_ENV[@]}" flatpak remote-add --user --if-not-exists --no-gpg-verify pacer-test "file://$REPO_DIR"
  env "${PRIVATE_ENV[@]}" flatpak install --user -y --noninteractive pacer-test "$TEST_RUNTIME//$TEST_BRANCH"
}
(install_runtime > "$WORK/runtime.log" 2>&1) &
RUNTIME_JOB=$!

# ---------------------------------------------------------------- Pacer, built as the manifest builds it
# meson with the manifest's config-opts and Flatpak's prefix, its gnome-widgets option left
# at auto, in ROOT: its GTK 4.18 and libadwaita 1.7 are GNOME 48's (GNOME's runtimes of today
# have those or newer) and the test runtime's. The release profile is built without LTO and optimisation here: the same
# program, in a third of the time (in_root clears the environment, so they are given there).
# The build directory is its own, not the host's one of before: meson refuses to reconfigure
# a directory that another version of it set up.
BUILD=$WORK/app-build
APP_STAGE=$WORK/app-stage
mapfile -t config_opts < <(jq -r '.modules[] | select(.name == "pacer") | ."config-opts"[]' "$MANIFEST")
[ ${#config_opts[@]} -gt 0 ] || abort "no config-opts for the pacer module in $MANIFEST"
options=(--prefix=/app "${config_opts[@]}")
log "meson ${options[*]}, in $ROOT"
layer=$(pacer_root_layer gtk-48-dev "$ROOT" "${PACER_ROOT_BUILD_PACKAGES[@]}" 2>> "$LANE_LOG") ||
  abort "installing the build's packages over $ROOT (log: $LANE_LOG)"
target=$(pacer_root_target gtk-48-target "$layer")
[ -f "$BUILD/build.ninja" ] || rm -rf "$BUILD"
rm -rf "$APP_STAGE"
mkdir -p "$BUILD" "$APP_STAGE"
# cargo's target directory in the build directory (src/meson.build) is the root's builds' own.
pacer_link_cargo_target "$BUILD" "$target"
# shellcheck disable=SC2016 # expanded by pacer_root_run's sh
PACER_ROOT_WRITABLE="$BUILD $APP_STAGE" pacer_root_run "$ROOT" "$layer" "$target" '
  build=$1 stage=$2
  shift 2
  reconfigure=
  [ ! -f "$build/build.ninja" ] || reconfigure=--reconfigure
  in_root meson setup $reconfigure "$@" "$build"
  in_root env CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256 \
    CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_DEBUG=0 meson compile -C "$build"
  in_root meson install -C "$build" --no-rebuild --destdir "$stage"
' "$BUILD" "$APP_STAGE" "${options[@]}" >> "$LANE_LOG" 2>&1 ||
  abort "meson setup, compile and install in $ROOT (log: $LANE_LOG)"
log "the app built in $ROOT and staged"
# What meson picked by itself there: the window's GNOME 48 widgets (src/meson.build says).
widgets=$(grep -o "the window's widgets: GNOME [0-9]*'s" "$BUILD/meson-logs/meson-log.txt" | tail -n 1)
if [ "$widgets" = "the window's widgets: GNOME 48's" ] && grep -q -e "--features pacer/gnome_48" "$BUILD/build.ninja"; then
  ok "meson, its gnome-widgets option at auto, builds the gnome_48 feature in the Debian 13 root: $widgets"
else
  bad "meson in the Debian 13 root did not pick the gnome_48 build: ${widgets:-no widgets in its log}"
fi

# The host side: pacer-helper and pacerctl as a distribution installs them.
HOST_STAGE=$WORK/host-stage
pacer_stage_development_build "$HOST_STAGE" "$WORK/flatpak-test.log" ||
  abort "building and staging the host's pacer-helper (log: $WORK/flatpak-test.log)"
HOST_HELPER=$HOST_STAGE/usr/libexec/pacer-helper
HOST_PACERCTL=$HOST_STAGE/usr/bin/pacerctl
log "the host's helper built and staged"

if ! wait "$RUNTIME_JOB"; then
  tail -n 5 "$WORK/runtime.log" | sed 's/^/# /'
  abort "making the test runtime from Debian 13, or installing it (log: $WORK/runtime.log)"
fi
log "test runtime in the repository ($(du -sh "$REPO_DIR" | cut -f1)) and installed: $(grep '^runtime ' "$WORK/runtime.log")"

# ---------------------------------------------------------------- the private installation
export CARGO_HOME=${CARGO_HOME:-$HOME/.cargo} RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
export "${PRIVATE_ENV[@]}"

# The test manifest: the shipped one with the test runtime and the staged files in place of
# the SDK build; id, command and finish-args are the shipped manifest's own.
TEST_MANIFEST=$WORK/$APP.json
jq --arg runtime "$TEST_RUNTIME" --arg branch "$TEST_BRANCH" --arg files "$APP_STAGE/app" '{
    id, command, "finish-args",
    runtime: $runtime, "runtime-version": $branch, sdk: $runtime,
    "appstream-compose": false,
    modules: [{
      name: "pacer", buildsystem: "simple",
      "build-options": {"no-debuginfo": true},
      "build-commands": ["cp -a . /app/", "glib-compile-schemas /app/share/glib-2.0/schemas"],
      sources: [{type: "dir", path: $files}]
    }]
  }' "$MANIFEST" > "$TEST_MANIFEST" || abort "writing the test manifest from $MANIFEST"
if ! flatpak-builder --user --disable-rofiles-fuse --force-clean --state-dir="$WORK/builder-state" \
  --repo="$REPO_DIR" "$WORK/builder-build" "$TEST_MANIFEST" > "$WORK/builder.log" 2>&1; then
  tail -n 5 "$WORK/builder.log" | sed 's/^/# /'
  abort "flatpak-builder $TEST_MANIFEST (log: $WORK/builder.log)"
fi
flatpak install --user -y --noninteractive --reinstall pacer-test "$APP" >> "$WORK/flatpak-test.log" 2>&1 ||
  abort "installing $APP from the local repository"
log "app built with flatpak-builder and installed"

info=$(flatpak info --user "$APP" 2> /dev/null)
if grep -q "Runtime: $TEST_RUNTIME/x86_64/$TEST_BRANCH" <<< "$info"; then
  ok "$APP is installed from the local repository on the test runtime $TEST_RUNTIME//$TEST_BRANCH"
else
  bad "$APP is not on the test runtime: $(grep Runtime: <<< "$info")"
fi
# The program flatpak installed is the gnome_48 build.
if pacer_elf_imports "$ADW_15_SYMBOL" "$FLATPAK_USER_DIR/app/$APP/current/active/files/bin/pacer"; then
  ok "the installed /app/bin/pacer is the gnome_48 build: it imports libadwaita 1.5's $ADW_15_SYMBOL"
else
  bad "the installed /app/bin/pacer does not import libadwaita 1.5's $ADW_15_SYMBOL: not the gnome_48 build"
fi
# The permissions flatpak holds are the manifest's, no more and no fewer.
permissions=$(flatpak info --user --show-permissions "$APP")
# (flatpak keeps --socket=fallback-x11 as the sockets x11 and fallback-x11: X11 is used
# where there is no Wayland.)
wanted=$(jq -r '."finish-args"[] | if . == "--socket=fallback-x11" then ., "--socket=x11" else . end' "$MANIFEST" | LC_ALL=C sort)
granted=$(awk '
  /^\[/ { section = $0; next }
  section == "[Context]" && $1 ~ /^(shared|sockets|devices)=/ {
    split($0, kv, "="); n = split(kv[2], v, ";")
    flag = (kv[1] == "shared") ? "share" : (kv[1] == "sockets") ? "socket" : "device"
    for (i = 1; i <= n; i++) if (v[i] != "") print "--" flag "=" v[i]
  }
  section == "[Session Bus Policy]" && /=/ { split($0, kv, "="); print "--" (kv[2] == "own" ? "own" : "talk") "-name=" kv[1] }
  section == "[System Bus Policy]" && /=/ { split($0, kv, "="); print "--system-" (kv[2] == "own" ? "own" : "talk") "-name=" kv[1] }
' <<< "$permissions" | LC_ALL=C sort)
if [ "$wanted" = "$granted" ]; then
  ok "the installed app holds exactly the manifest's finish-args ($(wc -l <<< "$wanted") grants)"
else
  bad "the installed app's permissions differ from the manifest's finish-args: $(diff <(echo "$wanted") <(echo "$granted") | grep '^[<>]' | tr '\n' ' ')"
fi

# ---------------------------------------------------------------- the host: display, buses, services
RUN=$WORK/run
TREE=$RUN/machine
rm -f "$RUN/display"
Xvfb -displayfd 3 -screen 0 1100x760x24 -nolisten tcp 3> "$RUN/display" 2> "$WORK/xvfb.log" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$RUN/display" ] && break; sleep 0.1; done
[ -s "$RUN/display" ] || abort "Xvfb did not start (log: $WORK/xvfb.log)"
export DISPLAY=:$(head -n 1 "$RUN/display")

# bus_config TYPE SOCKET [SERVICEDIR]: the tests' private bus (the one pacer-testrig starts),
# where everyone may own and call everything: what the app reaches is the sandbox proxy's
# decision, not the bus's.
bus_config() {
  local servicedir=${3:+<servicedir>$3</servicedir>}
  sed -e "s#@TYPE@#$1#" -e "s#@SOCKET@#$2#" -e "s#@SERVICEDIR@#$servicedir#" \
    "$REPO/crates/pacer-testrig/data/bus.conf.in"
}
# The session bus activates what flatpak exported: Pacer itself, as a desktop's bus would.
bus_config system "$RUN/system_bus_socket" > "$RUN/system.conf"
bus_config session "$RUN/session_bus_socket" "$FLATPAK_USER_DIR/exports/share/dbus-1/services" > "$RUN/session.conf"
# flatpak reads both addresses and points its xdg-dbus-proxy at them.
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$RUN/system_bus_socket
export DBUS_SESSION_BUS_ADDRESS=unix:path=$RUN/session_bus_socket
dbus-daemon --config-file="$RUN/system.conf" --nofork --nopidfile > "$WORK/system-bus.log" 2>&1 &
PIDS+=($!)
dbus-daemon --config-file="$RUN/session.conf" --nofork --nopidfile > "$WORK/session-bus.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do [ -S "$RUN/system_bus_socket" ] && [ -S "$RUN/session_bus_socket" ] && break; sleep 0.1; done

# bus_call system|session DEST PATH METHOD ARG...: gdbus call on the host.
bus_call() {
  local bus=$1 dest=$2 path=$3 method=$4
  shift 4
  timeout 10 gdbus call "--$bus" --dest "$dest" --object-path "$path" --method "$method" "$@" 2>&1
}
# wait_for_name system|session NAME: up to 10 s.
wait_for_name() {
  for _ in $(seq 100); do
    [[ $(bus_call "$1" org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner "$2") == "(true,)" ]] && return 0
    sleep 0.1
  done
  return 1
}
# until_true SECONDS COMMAND...: runs COMMAND every 0.2 s until it succeeds.
until_true() {
  local limit=$1
  shift
  for _ in $(seq $((limit * 5))); do "$@" && return 0; sleep 0.2; done
  return 1
}

# The kernel's stand-in: the simulated laptop's files, kept moving.
"$HOST_PACERCTL" --sysfs-root "$TREE" --simulate "$MODEL" status --json > /dev/null ||
  abort "pacerctl --simulate $MODEL could not lay out the machine in $TREE"
"$HOST_PACERCTL" simulate run "$MODEL" --sysfs-root "$TREE" > "$WORK/kernel.log" 2>&1 &
PIDS+=($!)
CPUFREQ=$TREE/sys/devices/system/cpu/cpufreq

# The system side: polkit's stand-in (python-dbusmock), the profile daemon, the helper.
/usr/bin/python3 -m dbusmock --system --template polkitd -l "$WORK/polkit.log" > "$WORK/polkit.out" 2>&1 &
PIDS+=($!)
wait_for_name system "$POLKIT" || abort "the polkit stand-in did not come up (log: $WORK/polkit.out)"
allow() { bus_call system "$POLKIT" "$POLKIT_PATH" org.freedesktop.DBus.Mock.SetAllowed "[$1]" > /dev/null; }
allow "$PACER_ACTIONS,'net.hadess.PowerProfiles.switch-profile','org.freedesktop.UPower.PowerProfiles.switch-profile'"
UMOCKDEV_DIR=$TREE "$PACER_PPD" -v > "$WORK/power-profiles-daemon.log" 2>&1 &
PIDS+=($!)
wait_for_name system "$PPD" || abort "power-profiles-daemon did not come up (log: $WORK/power-profiles-daemon.log)"
start_helper() {
  "$HOST_HELPER" --sysfs-root "$TREE" --state-dir "$RUN/helper-state" --idle-timeout 0 >> "$WORK/pacer-helper.log" 2>&1 &
  HELPER_PID=$!
  PIDS+=("$HELPER_PID")
  wait_for_name system "$HELPER"
}
start_helper || abort "pacer-helper did not come up (log: $WORK/pacer-helper.log)"

# The session side: a real StatusNotifierWatcher and a real notification server, which
# writes down each notification it shows.
status-notifier-watcher > "$WORK/status-notifier-watcher.log" 2>&1 &
PIDS+=($!)
cat > "$RUN/record-notification" << SCRIPT
#!/bin/sh
printf '%s\t%s\n' "\$1" "\$2" >> "$RUN/notifications"
SCRIPT
chmod +x "$RUN/record-notification"
printf '[record]\n    summary = "*"\n    script = %s\n' "$RUN/record-notification" > "$RUN/dunstrc"
"$DUNST" -config "$RUN/dunstrc" > "$WORK/dunst.log" 2>&1 &
PIDS+=($!)
wait_for_name session "$SNW" || abort "status-notifier-watcher did not come up (log: $WORK/status-notifier-watcher.log)"
wait_for_name session org.freedesktop.Notifications || abort "dunst did not come up (log: $WORK/dunst.log)"
/usr/bin/python3 -m dbusmock org.gnome.Shell /org/gnome/Shell org.gnome.Shell > "$WORK/gnome-shell-stand-in.log" 2>&1 &
PIDS+=($!)
wait_for_name session org.gnome.Shell || abort "the org.gnome.Shell stand-in did not come up (log: $WORK/gnome-shell-stand-in.log)"
log "display $DISPLAY, buses and host services up"

# ---------------------------------------------------------------- the sandbox's own /usr, /sys and /proc
in_sandbox() { timeout 60 flatpak run --user --command="$1" "$APP" "${@:2}"; }
# The sandbox's /usr is Debian 13's, with GTK 4.18 and libadwaita 1.7 (the versions the runtime
# was made of), and that libadwaita has 1.7's API.
runtime_files=$(flatpak info --user --show-location "$TEST_RUNTIME//$TEST_BRANCH")/files
os_release=$(in_sandbox cat /usr/lib/os-release 2>&1)
versions=$(in_sandbox cat "/usr/$RUNTIME_PACKAGE_LIST" 2>&1 |
  awk '$1 == "libgtk-4-1" || $1 == "libadwaita-1-0"' | LC_ALL=C sort | tr '\n' ' ')
if [[ $os_release == *'VERSION_CODENAME=trixie'* ]] && [[ $versions =~ ^libadwaita-1-0\ 1\.7\..*libgtk-4-1\ 4\.18\. ]] &&
  pacer_elf_exports "$ADW_17_SYMBOL" "$runtime_files/lib/x86_64-linux-gnu/libadwaita-1.so.0"; then
  ok "the app runs on Debian 13's GNOME stack: $(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' <<< "$os_release"), ${versions% }; its libadwaita exports $ADW_17_SYMBOL"
else
  bad "the sandbox's /usr is not Debian 13 with GTK 4.18 and libadwaita 1.7: ${os_release:0:200}; ${versions:-no package list}"
fi
# Before the simulated machine's way in is granted: what pacerctl reads in the sandbox is what
# it reads on the host, through flatpak's own read-only /sys and the sandbox's /proc.
host_view=$("$HOST_PACERCTL" status --json 2> /dev/null | jq -c '{cpus: (.cpus | length), policies: (.policies | length), driver, eas, smt_active, simulated}')
sandbox_view=$(in_sandbox pacerctl status --json 2> "$WORK/sandbox-status.err" | jq -c '{cpus: (.cpus | length), policies: (.policies | length), driver, eas, smt_active, simulated}')
if [ -n "$host_view" ] && [ "$host_view" = "$sandbox_view" ]; then
  ok "pacerctl in the sandbox reads this machine's /sys and /proc as on the host: $sandbox_view"
else
  bad "pacerctl in the sandbox reads another machine: host $host_view, sandbox ${sandbox_view:-nothing} ($(head -c 300 "$WORK/sandbox-status.err"))"
fi
# A file of /sys written with the value it holds: refused, so nothing changes either way.
sys_file=$(find /sys/devices/system/cpu -maxdepth 2 -type f -perm -u+w 2> /dev/null | head -n 1)
if [ -n "$sys_file" ]; then
  refusal=$(in_sandbox sh -c "cat '$sys_file' > '$sys_file'" 2>&1)
  if [[ $refusal == *"Read-only file system"* ]]; then
    ok "the sandbox's /sys is read-only (writing $sys_file: Read-only file system)"
  else
    bad "writing $sys_file in the sandbox was not refused as read-only: ${refusal:-it succeeded}"
  fi
else
  note "no writable file under /sys/devices/system/cpu on this host to try a write on"
fi

# ---------------------------------------------------------------- the names the sandbox refuses
# Services that are there (the host reaches them) but not in finish-args: the proxy answers
# as if they were not.
# Its log shows the refusal ("Filtering message due to arg0 NAME"), which is how the app's own
# logs are read below.
refused() { # BUS NAME PATH: host control, then the same from the sandbox
  local bus=$1 name=$2 path=$3 host owner call
  host=$(bus_call "$bus" org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.GetNameOwner "$name")
  owner=$(timeout 60 flatpak run --user "--log-$bus-bus" --command=gdbus "$APP" call "--$bus" --dest org.freedesktop.DBus \
    --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.GetNameOwner "$name" 2>&1)
  call=$(in_sandbox gdbus call "--$bus" --dest "$name" --object-path "$path" \
    --method org.freedesktop.DBus.Introspectable.Introspect 2>&1)
  if [[ $host == "(':"* ]] && [[ $owner == *"org.freedesktop.DBus.Error.NameHasNoOwner"* ]] &&
    [[ $owner == *"Filtering message due to arg0 $name"* ]] && [[ $call == *"org.freedesktop.DBus.Error.ServiceUnknown"* ]]; then
    ok "$bus bus: $name is there for the host ($host) but hidden from the sandbox: NameHasNoOwner, and a call to it ServiceUnknown"
  else
    bad "$bus bus: $name from the sandbox: owner …${owner: -400}; call ${call:0:200} (host: ${host:0:80})"
  fi
}
# A name every GNOME session has (a stand-in here), which Pacer has no business calling.
refused session org.gnome.Shell /org/gnome/Shell

# ---------------------------------------------------------------- the window
# The way in for the simulated machine, in the private installation only; and the settings
# of a test display (software rendering, no accessibility bus, Pacer's debug lines).
flatpak override --user --filesystem="$TREE:ro" --env=PACER_SYSFS_ROOT="$TREE" \
  --env=G_MESSAGES_DEBUG=pacer --env=GSK_RENDERER=cairo --env=GTK_A11Y=none --env=LC_ALL=C.UTF-8 "$APP" ||
  abort "flatpak override for the simulated machine"
if jq -e --arg tree "$TREE" '[."finish-args"[] | select(contains($tree) or contains("PACER_SYSFS_ROOT"))] | length == 0' \
  "$MANIFEST" > /dev/null; then
  ok "the simulated machine's way in is an override of the private installation, not in the shipped manifest"
else
  bad "the shipped manifest grants the simulated machine's tree"
fi

app_said() { grep -q -- "$1" "$APP_LOG"; }
# state PROPERTY: a property of Pacer's State1, read by the host through the session bus.
state() { bus_call session "$APP" "$STATE_PATH" org.freedesktop.DBus.Properties.Get "$STATE" "$1"; }
state_call() { bus_call session "$APP" "$STATE_PATH" "$STATE.$1" "${@:2}"; }
file_is() { [ "$(cat "$1" 2> /dev/null)" = "$2" ]; }

start_app "$WORK/app.log"
if until_true 40 app_said "first frame drawn"; then
  ok "flatpak run $APP opens the window ($(grep -o 'first frame drawn after [0-9]* ms' "$APP_LOG"))"
else
  abort "the window did not open in the sandbox (log: $APP_LOG): $(tail -n 3 "$APP_LOG" | tr '\n' ' ')"
fi
core_types=
read_core_types() { core_types=$(state CoreTypes); [[ $core_types == *"'performance', 'balance_performance', 'powersave'"* ]]; }
if until_true 10 read_core_types && [[ $core_types == *"'efficiency', 'balance_performance', 'powersave'"* ]]; then
  ok "the window shows the simulated laptop read through its read-only grant: $core_types"
else
  bad "the window's core types are not the simulated laptop's: $core_types"
fi
profile_daemon=$(state ProfileDaemon)
if [[ $(state Profile) == "(<'balanced'>,)" ]] && [[ $profile_daemon == "(<'power-profiles-daemon'>,)" ]]; then
  ok "the profile daemon answers through the system-bus filter: balanced, from power-profiles-daemon"
else
  bad "the window's profile daemon: $(state Profile) from $profile_daemon"
fi

# ---------------------------------------------------------------- the tray and the state, through the session-bus filter
items=
registered() {
  items=$(bus_call session "$SNW" /StatusNotifierWatcher org.freedesktop.DBus.Properties.Get "$SNW" RegisteredStatusNotifierItems)
  [[ $items == *"':"* ]]
}
if until_true 15 registered; then
  # The entry is the item's bus name (the sandbox's unique name), the path the default one.
  item=$(grep -o "':[0-9.]*[^']*'" <<< "$items" | head -n 1 | tr -d "'")
  item_path=/StatusNotifierItem
  [[ $item == */* ]] && item_path=/${item#*/}
  title=$(bus_call session "${item%%/*}" "$item_path" org.freedesktop.DBus.Properties.Get org.kde.StatusNotifierItem Title)
  if [[ $title == *"Pacer"* ]]; then
    ok "the tray item registers with the StatusNotifierWatcher ($item), and the host reads it back: $title"
  else
    bad "the tray item $item registered, but the host cannot read its title: $title"
  fi
else
  bad "no tray item registered with the StatusNotifierWatcher: $items"
fi

# ---------------------------------------------------------------- the profile switch, to the daemon
ppd_profile() { bus_call system "$PPD" "$PPD_PATH" org.freedesktop.DBus.Properties.Get "$PPD" ActiveProfile; }
# switch_profile PROFILE EPP: through the window's State1, as the Shell extension does; the
# daemon switches and writes EPP, and the window follows.
switch_profile() {
  local answer
  answer=$(state_call SetProfile "$1")
  if [ "$answer" = "()" ] && until_true 10 eval '[[ $(ppd_profile) == "(<'"'$1'"'>,)" ]]' &&
    until_true 10 file_is "$CPUFREQ/policy0/energy_performance_preference" "$2" &&
    until_true 10 eval '[[ $(state Profile) == "(<'"'$1'"'>,)" ]]'; then
    ok "the window switches the daemon to $1 (which writes EPP $2; the window follows)"
  else
    bad "switching the profile to $1 from the sandbox: $answer; daemon $(ppd_profile), EPP $(cat "$CPUFREQ/policy0/energy_performance_preference")"
  fi
}
switch_profile performance performance
switch_profile balanced balance_performance

# ---------------------------------------------------------------- changes through the host helper
# pacerctl in the sandbox, then the window's own fix; polkit decides on the caller the
# helper sees: the sandbox's xdg-dbus-proxy, running as the user outside the sandbox.
if out=$(in_sandbox pacerctl set governor performance 2>&1) &&
  until_true 10 file_is "$CPUFREQ/policy15/scaling_governor" performance; then
  ok "pacerctl set governor performance in the sandbox goes through the host's helper: ${out//$'\n'/ }"
else
  bad "pacerctl set governor in the sandbox: ${out//$'\n'/ }"
fi
switch_profile performance performance
# The EPP-restore scenario (docs/kernel.md 2.4): back to powersave, the kernel resets the EPP
# behind the daemon's back (balance_performance again, under the performance
# profile); the window warns and notifies.
in_sandbox pacerctl set governor powersave > "$WORK/pacerctl-powersave.log" 2>&1
findings=
warned() { findings=$(state Findings); [[ $findings == *"'warning'"*"true)"* ]]; }
if until_true 15 warned; then
  ok "the window finds the EPP lost behind the daemon's back, fixable: ${findings:0:160}…"
else
  bad "no fixable warning after the governor went back: $findings"
fi
summary=$(sed -n "s/^(<\[('[^']*', 'warning', '\([^']*\)'.*/\1/p" <<< "$findings")
if until_true 10 grep -qF -- "$summary" "$RUN/notifications" 2> /dev/null && [ -n "$summary" ]; then
  ok "the warning's notification reaches the notification server: $(grep -F -- "$summary" "$RUN/notifications" | head -n 1 | tr '\t' ' ')"
else
  bad "the notification server got no notification \"$summary\": $(cat "$RUN/notifications" 2> /dev/null)"
fi
# The screenshot of docs/INSTALL.md: the warning, as a Flatpak user sees it.
sleep 1
window=$(xdotool search --onlyvisible --name 'Pacer' 2> /dev/null | head -n 1)
# Where the tests put theirs (PACER_SCREENSHOTS, as build-aux/screenshots.sh sets it).
shots="${PACER_SCREENSHOTS:-$REPO/target/screenshots}"
mkdir -p "$shots"
if [ -n "$window" ] && import -window "$window" "$shots/flatpak.png" 2> /dev/null; then
  ok "screenshot of Pacer as a Flatpak: $shots/flatpak.png"
else
  bad "no window named Pacer to take a screenshot of"
fi
key=$(sed -n "s/^(<\[('\([^']*\)', 'warning'.*/\1/p" <<< "$findings")
answer=$(state_call Fix "$key")
if [ "$answer" = "()" ] && until_true 10 file_is "$CPUFREQ/policy0/energy_performance_preference" performance &&
  until_true 10 eval '[[ $(state Findings) == "(<@a(ssssb) []>,)" ]]'; then
  ok "the window's Fix has the daemon write EPP performance again, and the warning clears"
else
  bad "the window's Fix: $answer; EPP $(cat "$CPUFREQ/policy0/energy_performance_preference"), findings $(state Findings)"
fi
# Turbo switched off behind Pacer's back (by the firmware, or another tool): the window's fix
# goes through the host's helper.
NO_TURBO=$TREE/sys/devices/system/cpu/intel_pstate/no_turbo
"$HOST_PACERCTL" simulate --sysfs-root "$TREE" write /sys/devices/system/cpu/intel_pstate/no_turbo 1 > /dev/null
turbo_off() { findings=$(state Findings); [[ $findings == *"('turbo-disabled@"*"true)"* ]]; }
if until_true 15 turbo_off; then
  key=$(grep -o "'turbo-disabled@[^']*'" <<< "$findings" | tr -d "'")
  answer=$(state_call Fix "$key")
  if [ "$answer" = "()" ] && until_true 10 file_is "$NO_TURBO" 0; then
    ok "the window's Fix of \"$key\" goes through the host's helper: turbo is allowed again"
  else
    bad "the window's Fix of \"$key\": $answer; no_turbo $(cat "$NO_TURBO")"
  fi
else
  bad "no fixable finding after turbo was switched off: $findings"
fi
# Whom polkit was asked about: the bus name of the window's request to the helper.
subject=$(grep "CheckAuthorization" "$WORK/polkit.log" | grep "io.github.pacerapp.Pacer\." | tail -n 1 | grep -o "':[0-9.]*'" | head -n 1 | tr -d "'")
subject_pid=$(bus_call system org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.GetConnectionUnixProcessID "$subject" | sed -n 's/^(uint32 \([0-9]*\),)$/\1/p')
subject_comm=$(cat "/proc/$subject_pid/comm" 2> /dev/null)
if [ "$subject_comm" = xdg-dbus-proxy ] && [ "$(stat -c %u "/proc/$subject_pid")" = "$(id -u)" ]; then
  ok "the helper asks polkit about $subject: the sandbox's xdg-dbus-proxy (pid $subject_pid), the user's own process"
else
  bad "the helper asked polkit about '${subject:-nothing}' (pid ${subject_pid:-?}, ${subject_comm:-no process})"
fi
allow "'net.hadess.PowerProfiles.switch-profile','org.freedesktop.UPower.PowerProfiles.switch-profile'"
denied=$(in_sandbox pacerctl set governor performance 2>&1)
if [[ $denied == *"io.github.pacerapp.Pacer.set-cpu-power"* ]] && file_is "$CPUFREQ/policy0/scaling_governor" powersave; then
  ok "where polkit says no, pacerctl in the sandbox is refused and nothing changes: ${denied//$'\n'/ }"
else
  bad "a refused change from the sandbox: ${denied//$'\n'/ }; governor $(cat "$CPUFREQ/policy0/scaling_governor")"
fi
allow "$PACER_ACTIONS,'net.hadess.PowerProfiles.switch-profile','org.freedesktop.UPower.PowerProfiles.switch-profile'"

# ---------------------------------------------------------------- what the sandbox hides from Pacer
# Another power manager's bus name (tuned's, a stand-in here) is hidden like every name not
# granted, and its process is outside the sandbox's /proc: the host's pacerctl names it, the
# sandbox's cannot (docs/INSTALL.md, "The Flatpak and the host helper", says why the
# manifest does not grant it).
/usr/bin/python3 -m dbusmock --system com.redhat.tuned /Tuned com.redhat.tuned.control > "$WORK/tuned-stand-in.log" 2>&1 &
PIDS+=($!)
if wait_for_name system com.redhat.tuned; then
  managers() { jq -c '[.power_managers[].name]'; }
  host_managers=$("$HOST_PACERCTL" --sysfs-root "$TREE" status --json 2> /dev/null | managers)
  sandbox_managers=$(in_sandbox pacerctl status --json 2> /dev/null | managers)
  if [[ $host_managers == *'"tuned"'* ]] && [[ $sandbox_managers != *'"tuned"'* ]] &&
    [[ $sandbox_managers == *'"power-profiles-daemon"'* ]]; then
    ok "the sandbox hides other power managers: the host's pacerctl finds $host_managers, the sandbox's $sandbox_managers"
  else
    bad "power managers seen: host ${host_managers:-nothing}, sandbox ${sandbox_managers:-nothing}"
  fi
else
  bad "the com.redhat.tuned stand-in did not come up (log: $WORK/tuned-stand-in.log)"
fi

# ---------------------------------------------------------------- what the proxies held back
stop_app
# The proxies log every message they pass (--log-session-bus, --log-system-bus): the app
# asked for nothing they held back (filtered, *HIDDEN* or *DENIED*, like the refusals above).
held_back=$(grep -c -E '^(\*HIDDEN\*|\*DENIED\*|Filtering message)' "$APP_LOG")
logged=$(grep -c -E '^C[0-9]+: ->' "$APP_LOG")
if [ "$logged" -gt 0 ] && [ "$held_back" = 0 ]; then
  ok "the app needs no more than the manifest grants: none of its $logged calls on either bus was held back"
else
  bad "$held_back of the app's $logged calls were held back by the proxies: $(grep -B1 -E '^(\*HIDDEN\*|\*DENIED\*|Filtering message)' "$APP_LOG" | grep -- '->' | sort -u | head -n 5 | tr '\n' ' ')"
fi

# ---------------------------------------------------------------- without the host helper
kill "$HELPER_PID" 2> /dev/null
wait "$HELPER_PID" 2> /dev/null
start_app "$WORK/app-without-helper.log"
# One line says so; its details say where the helper goes.
if until_true 40 app_said "banner shows read-only: Settings are read-only" &&
  app_said "banner details read-only: A Flatpak cannot bring pacer-helper: install it on the computer itself"; then
  ok "without the host's helper the window is read-only and its details say how to get it: $(grep -o 'banner details read-only: .*' "$APP_LOG" | head -n 1 | cut -d: -f2-)"
else
  bad "without the helper the window did not say it is read-only and where the helper goes: $(grep -o 'banner shows .*' "$APP_LOG" | tr '\n' ' ')"
fi
missing=$(in_sandbox pacerctl set governor performance 2>&1)
if [[ $missing == *"pacer-helper is not installed"* ]] && file_is "$CPUFREQ/policy0/scaling_governor" powersave; then
  ok "without the host's helper pacerctl in the sandbox says so and changes nothing: ${missing//$'\n'/ }"
else
  bad "pacerctl without the helper: ${missing//$'\n'/ }"
fi
stop_app

# ---------------------------------------------------------------- started by D-Bus activation
# As the GNOME Shell extension starts it: a call to Pacer's name on the session bus starts the
# exported service, `flatpak run` in the background.
start_helper || bad "pacer-helper did not come back"
activated=$(state Profile)
activated_profile() { activated=$(state Profile); [[ $activated == "(<'performance'>,)" ]]; }
if until_true 20 activated_profile && flatpak ps --columns=application | grep -qx "$APP"; then
  ok "a call to $APP on the session bus starts the Flatpak by activation (flatpak ps lists it), which shows the daemon's profile: $activated"
else
  bad "activating $APP on the session bus: $activated; flatpak ps: $(flatpak ps --columns=application | tr '\n' ' ')"
fi
flatpak kill "$APP" > /dev/null 2>&1

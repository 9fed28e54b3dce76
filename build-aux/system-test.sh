#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Pacer as installed: boots Debian 12 with systemd as PID 1 in systemd-nspawn, installs
# Pacer's Debian packages there with apt (pacer and pacer-helper, as built by
# `build-aux/package.sh deb`), and checks the helper as a distribution ships it: D-Bus activated under its real unit (seccomp, capabilities, read-only /sys), asked by
# real users through the real dbus-daemon (and dbus-broker) and the real polkitd, next to
# the real power-profiles-daemon, on a simulated machine's files bound over
# /sys/devices/system/cpu (measurements run on the real CPU 1).
#
#   build-aux/system-test.sh        (as root; build-aux/test.sh runs it)
#
# One line per check (`ok - …` / `FAIL - …`, notes start with `#`), then `N passed, N failed`;
# the exit status is non-zero when a check failed. The Debian root is debootstrapped once and
# kept as a zstd tarball in ${XDG_CACHE_HOME:-~/.cache}/pacer/system-test (its name carries a
# stamp of the recipe, so a change of the package list makes a new one); later runs unpack it
# in seconds. The packages are those in target/package/, built first by package.sh (which
# does nothing when they are those of the files here). They are installed with the
# container booted, so that their maintainer scripts talk to its systemd, and purged at the
# end: no file of Pacer may be left. Logs: target/system-test/*.log.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh
REPO=$PWD
WORK=$REPO/target/system-test
LANE_LOG=$WORK/system-test.log
source build-aux/lane.sh
ROOT=$WORK/root
STAGE=$WORK/stage
MACHINE=$WORK/machine
PACKAGE_DIR=$REPO/target/package
CPU=$MACHINE/sys/devices/system/cpu
MODEL=intel-hybrid

# The Debian root: systemd, both buses, polkitd, Debian's power-profiles-daemon (0.12) and
# python3-gi for its powerprofilesctl. (libpam-systemd: debootstrap does not resolve
# polkitd's `default-logind | logind`, nor dconf-service's `default-dbus-session-bus |
# dbus-session-bus`, hence dbus-user-session.) pacer-helper and pacerctl need only libc and
# libgcc_s, which minbase has; the window, in the same package as pacerctl, needs GTK 4,
# libadwaita and a GSettings backend, which the root has beforehand: apt installs the
# packages with no package lists (the tarball keeps none), from what is installed. Bump
# ROOTFS_LAYOUT when the way the root is made changes.
ROOTFS_PACKAGES=(systemd systemd-sysv libpam-systemd dbus dbus-broker polkitd power-profiles-daemon python3-gi
  libgtk-4-1 libadwaita-1-0 dconf-gsettings-backend dbus-user-session)
ROOTFS_LAYOUT=2
ROOTFS_STAMP=$(printf '%s\n' "$ROOTFS_LAYOUT" "${ROOTFS_PACKAGES[@]}" | sha256sum | cut -c1-12)
CACHE_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/pacer/system-test
CACHE=$CACHE_DIR/rootfs-bookworm-$ROOTFS_STAMP.tar.zst
# Where the container sees target/package (bound read-only).
DEBS=/run/pacer-packages

HELPER=io.github.pacerapp.Pacer.Helper1
HELPER_PATH=/io/github/pacerapp/Pacer/Helper1
PPD=net.hadess.PowerProfiles
PPD_PATH=/net/hadess/PowerProfiles

# check NAME COMMAND...: ok when COMMAND succeeds.
check() {
  local name=$1
  shift
  if "$@"; then ok "$name"; else bad "$name"; fi
}

CG_NAME=pacer-system-test-$$
NSPAWN_PID=
LEADER=
BUS_IMPL=

inside() { nsenter -t "$LEADER" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
as_user() {
  local user=$1
  shift
  inside setpriv --reuid="$user" --regid="$user" --init-groups env HOME="/home/$user" USER="$user" "$@"
}

stop_container() {
  [ -n "$NSPAWN_PID" ] || return 0
  if kill -0 "$NSPAWN_PID" 2> /dev/null; then
    [ -n "$LEADER" ] && inside systemctl poweroff > /dev/null 2>&1
    for _ in $(seq 100); do kill -0 "$NSPAWN_PID" 2> /dev/null || break; sleep 0.1; done
    if kill -0 "$NSPAWN_PID" 2> /dev/null; then
      kill -TERM "$NSPAWN_PID" 2> /dev/null
      sleep 2
      kill -KILL "$NSPAWN_PID" 2> /dev/null
    fi
  fi
  wait "$NSPAWN_PID" 2> /dev/null
  NSPAWN_PID=
  LEADER=
  # Without systemd on the host, nspawn leaves its supervisor/payload cgroups behind.
  local d
  for d in /sys/fs/cgroup/unified/$CG_NAME /sys/fs/cgroup/systemd/$CG_NAME /sys/fs/cgroup/$CG_NAME; do
    [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} \; 2> /dev/null
  done
  log "container stopped"
}

cleanup() {
  stop_container
  if [ "${PACER_SYSTEM_TEST_KEEP:-0}" != 1 ]; then
    rm -rf "$ROOT" "$STAGE" "$MACHINE"
  fi
}

lane_start "the system test boots a container with systemd-nspawn"

# ---------------------------------------------------------------- host tools, the packages
pacer_install_packages systemd-container debootstrap zstd jq >> "$WORK/system-test.log" 2>&1 ||
  abort "installing the host tools (systemd-container debootstrap zstd jq)"
log "host tools present"

build-aux/package.sh deb >> "$WORK/system-test.log" 2>&1 ||
  abort "building the Debian packages with build-aux/package.sh deb (logs: $WORK/system-test.log, $PACKAGE_DIR/deb-build.log)"
VERSION=$(dpkg-parsechangelog -l debian/changelog -S Version)
ARCH=$(dpkg --print-architecture)
PACER_DEB=pacer_${VERSION}_$ARCH.deb
HELPER_DEB=pacer-helper_${VERSION}_$ARCH.deb
# pacerctl for the host, which lays out the machine's files.
rm -rf "$STAGE"
dpkg-deb -x "$PACKAGE_DIR/$PACER_DEB" "$STAGE" || abort "unpacking $PACER_DEB"
log "packages built: $PACER_DEB $HELPER_DEB"

# ---------------------------------------------------------------- the Debian root
rm -rf "$ROOT"
mkdir -p "$ROOT"
if [ ! -f "$CACHE" ]; then
  mirror=$(pacer_debian_mirror) || abort "no Debian mirror in the apt sources: set PACER_DEBIAN_MIRROR"
  log "debootstrap from $mirror"
  if ! debootstrap --variant=minbase --include="$(IFS=,; echo "${ROOTFS_PACKAGES[*]}")" \
    bookworm "$ROOT" "$mirror" > "$WORK/debootstrap.log" 2>&1; then
    tail -n 5 "$WORK/debootstrap.log" | sed 's/^/# /'
    abort "debootstrap bookworm (log: $WORK/debootstrap.log)"
  fi
  rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/*_Packages
  # The roots of other recipes go, and those kept in target/system-test before.
  mkdir -p "$CACHE_DIR"
  rm -f "$CACHE_DIR"/rootfs-bookworm-*.tar.zst "$WORK"/rootfs-bookworm-*.tar.zst
  tar -C "$ROOT" --zstd -cpf "$CACHE.tmp" . && mv "$CACHE.tmp" "$CACHE" || abort "caching the root as $CACHE"
  log "debootstrap done, cached as $CACHE"
else
  tar -C "$ROOT" --zstd -xpf "$CACHE" || abort "unpacking $CACHE"
  log "root unpacked from $CACHE"
fi
echo pacer-test > "$ROOT/etc/hostname"

UNIT_FILE=$ROOT/usr/lib/systemd/system/pacer-helper.service

# alice may do everything Pacer asks for and switch the power profile; carol may change
# governor, EPP and boost only; bob has no rule (and no session, so no defaults either).
for user in alice bob carol; do chroot "$ROOT" useradd -m "$user" || abort "useradd $user"; done
install -Dm644 /dev/stdin "$ROOT/etc/polkit-1/rules.d/50-pacer-system-test.rules" << 'RULES'
polkit.addRule(function(action, subject) {
    if (subject.user == "alice" &&
        (action.id.indexOf("io.github.pacerapp.Pacer.") == 0 ||
         action.id == "net.hadess.PowerProfiles.switch-profile")) {
        return polkit.Result.YES;
    }
    if (subject.user == "carol" && action.id == "io.github.pacerapp.Pacer.set-cpu-power") {
        return polkit.Result.YES;
    }
});
RULES
log "root prepared"

# ---------------------------------------------------------------- the machine's files
# A simulated model rendered as plain files, without its simulation state: the installed
# helper takes it for the real machine.
EAS_BIND=
render_machine() {
  rm -rf "$MACHINE"
  mkdir -p "$MACHINE"
  "$STAGE/usr/bin/pacerctl" --sysfs-root "$MACHINE" --simulate "$MODEL" status --json > /dev/null ||
    abort "pacerctl --simulate $MODEL could not lay out the machine in $MACHINE"
  rm -rf "$MACHINE/.pacer-sim"
  [ -d "$CPU/cpu1" ] && [ -d "$CPU/cpufreq" ] || abort "the $MODEL tree has no cpu1 or no cpufreq"
  # The EAS switch can only be bound over a file the kernel has.
  EAS_BIND=
  if [ -f "$MACHINE/proc/sys/kernel/sched_energy_aware" ] && [ -f /proc/sys/kernel/sched_energy_aware ]; then
    EAS_BIND=--bind=$MACHINE/proc/sys/kernel/sched_energy_aware:/proc/sys/kernel/sched_energy_aware
  fi
}

# ---------------------------------------------------------------- booting
# boot dbus-daemon|dbus-broker
boot() {
  BUS_IMPL=$1
  case $BUS_IMPL in
    dbus-broker) ln -sf /lib/systemd/system/dbus-broker.service "$ROOT/etc/systemd/system/dbus.service" ;;
    *) rm -f "$ROOT/etc/systemd/system/dbus.service" ;;
  esac
  local binds=(--bind="$CPU:/sys/devices/system/cpu" --bind-ro="$PACKAGE_DIR:$DEBS")
  [ -n "$EAS_BIND" ] && binds+=("$EAS_BIND")
  (
    # Without systemd on the host: no machined (--register=no), no scope (--keep-unit), and a
    # cgroup of nspawn's own, removed afterwards.
    keep=()
    if [ "$(cat /proc/1/comm)" != systemd ]; then
      for d in /sys/fs/cgroup/unified /sys/fs/cgroup/systemd; do
        if [ -d "$d" ]; then mkdir -p "$d/$CG_NAME" && echo "$BASHPID" > "$d/$CG_NAME/cgroup.procs"; fi
      done
      if [ ! -d /sys/fs/cgroup/unified ] && [ -f /sys/fs/cgroup/cgroup.procs ]; then
        mkdir -p "/sys/fs/cgroup/$CG_NAME" && echo "$BASHPID" > "/sys/fs/cgroup/$CG_NAME/cgroup.procs"
      fi
      keep=(--keep-unit)
    fi
    # nspawn's own seccomp filter denies fanotify, which a machine booted on its own has:
    # let the helper's unit alone decide, as it does there.
    exec setsid systemd-nspawn -D "$ROOT" -b -M pacer-test --register=no "${keep[@]}" \
      --system-call-filter="fanotify_init fanotify_mark" \
      --console=read-only "${binds[@]}" < /dev/null
  ) > "$WORK/nspawn-$BUS_IMPL.log" 2>&1 &
  NSPAWN_PID=$!
  LEADER=
  for _ in $(seq 300); do
    LEADER=$(ps -o pid=,comm= --ppid "$NSPAWN_PID" | awk '$2=="systemd"{print $1}')
    [ -n "$LEADER" ] && break
    sleep 0.1
  done
  [ -n "$LEADER" ] || { tail -n 5 "$WORK/nspawn-$BUS_IMPL.log" | sed 's/^/# /'; abort "[$BUS_IMPL] the container did not start"; }
  for _ in $(seq 300); do inside test -S /run/systemd/private && break; sleep 0.1; done
  local state
  state=$(timeout 120 nsenter -t "$LEADER" -a systemctl is-system-running --wait 2> /dev/null)
  log "[$BUS_IMPL] booted: $state"
  case $state in
    running | degraded) ok "[$BUS_IMPL] Debian 12 boots with systemd as PID 1 (is-system-running: $state)" ;;
    *)
      inside systemctl --failed --no-pager | sed 's/^/# /'
      abort "[$BUS_IMPL] the container did not boot (is-system-running: $state)"
      ;;
  esac
  local bus_unit=dbus.service
  [ "$BUS_IMPL" = dbus-broker ] && bus_unit=dbus-broker.service
  check "[$BUS_IMPL] the system bus is $BUS_IMPL" inside systemctl is-active --quiet "$bus_unit"
}

# ---------------------------------------------------------------- installing, purging
# The root's files, but those that change with any use of a system: logs, caches, apt's and
# dpkg's records, the users' homes (the checks write there), power-profiles-daemon's state
# (the checks switch profiles), the link that chooses the system bus (boot above), and the
# private /var/tmp folders (PrivateTmp=) of the services running, but Pacer's.
root_files() {
  (cd "$ROOT" && find . -mindepth 1 \( -path ./var/log -o -path ./var/cache -o -path ./var/lib/apt \
    -o -path ./var/lib/dpkg -o -path ./home -o -path ./var/lib/power-profiles-daemon \) -prune -o -print) |
    grep -vx './etc/systemd/system/dbus.service' |
    awk '!/^\.\/var\/tmp\/systemd-private-/ || /pacer/' | LC_ALL=C sort
}

# apt installs the packages in the booted container: their maintainer scripts run against its
# systemd, as on a machine.
install_packages() {
  local b=$BUS_IMPL out
  root_files > "$WORK/files-before.txt"
  if out=$(inside env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    "$DEBS/$HELPER_DEB" "$DEBS/$PACER_DEB" 2>&1); then
    ok "[$b] apt installs $HELPER_DEB and $PACER_DEB (their dependencies from the root's packages)"
  else
    echo "$out" | tail -n 8 | sed 's/^/# /'
    abort "[$b] apt install of $HELPER_DEB and $PACER_DEB"
  fi
  echo "$out" > "$WORK/apt-install.log"
  [ -f "$UNIT_FILE" ] || abort "pacer-helper did not install /lib/systemd/system/pacer-helper.service"
  local missing
  missing=$(inside ldd /usr/libexec/pacer-helper /usr/bin/pacerctl /usr/bin/pacer 2>&1 | grep 'not found')
  if [ -z "$missing" ]; then
    ok "[$b] the installed pacer-helper, pacerctl and pacer find all their libraries in the Debian 12 root"
  else
    bad "[$b] libraries missing in the root: $(echo "$missing" | tr -s ' \t\n' ' ')"
  fi
  # D-Bus starts the helper; its unit pulls in the socket: installing starts and enables
  # nothing.
  local states
  states=$(inside systemctl is-active pacer-helper.service pacer-helper-privileged.socket | tr '\n' ' ')
  states+=$(inside systemctl is-enabled pacer-helper.service pacer-helper-privileged.socket | tr '\n' ' ')
  if [ "$states" = "inactive inactive static disabled " ]; then
    ok "[$b] installing starts nothing: the helper and its socket inactive, the socket not enabled"
  else
    bad "[$b] after installing, is-active and is-enabled of the helper and its socket: $states"
  fi
}

# An upgrade's scripts (apt reinstalling the package runs them: prerm upgrade, postinst
# configure VERSION) restart a running helper, which then runs the new program.
check_upgrade() {
  local b=$BUS_IMPL out before after
  snapshot_call alice > /dev/null
  before=$(helper_pid)
  if ! out=$(inside env DEBIAN_FRONTEND=noninteractive apt-get install -y --reinstall "$DEBS/$HELPER_DEB" 2>&1); then
    echo "$out" | tail -n 8 | sed 's/^/# /'
    bad "[$b] apt install --reinstall $HELPER_DEB"
    return
  fi
  echo "$out" > "$WORK/apt-reinstall.log"
  after=$(helper_pid)
  if [ "$before" != 0 ] && helper_active && [ "$after" != "$before" ] && snapshot_call alice > /dev/null; then
    ok "[$b] reinstalling pacer-helper (an upgrade's scripts) restarts the running helper (pid $before, then $after), which answers"
  else
    bad "[$b] after reinstalling pacer-helper: helper $(inside systemctl is-active pacer-helper.service), pid $before, then $after"
  fi
}

# apt purges the packages with the helper running: its prerm stops it, and nothing of Pacer
# stays, in the root's files or in /run.
purge_packages() {
  local b=$BUS_IMPL out left
  snapshot_call alice > /dev/null
  helper_active || note "[$b] the helper did not start before the purge"
  if out=$(inside env DEBIAN_FRONTEND=noninteractive apt-get purge -y pacer pacer-helper 2>&1); then
    ok "[$b] apt purges pacer and pacer-helper"
  else
    echo "$out" | tail -n 8 | sed 's/^/# /'
    bad "[$b] apt purge pacer pacer-helper"
  fi
  echo "$out" > "$WORK/apt-purge.log"
  if helper_inactive && [ -z "$(container_pids pacer-helper)" ] &&
    [ -z "$(inside systemctl list-units --all --no-legend 'pacer*' | grep -v 'not-found')" ]; then
    ok "[$b] the purge stopped the running helper; no unit of Pacer is loaded"
  else
    bad "[$b] after the purge: pacer-helper $(inside systemctl is-active pacer-helper.service), processes '$(container_pids pacer-helper | tr '\n' ' ')', units: $(inside systemctl list-units --all --no-legend 'pacer*' | tr -s ' \n' ' ')"
  fi
  # The privileged step's socket node too: its unit removes it when stopped (RemoveOnStop=).
  left=$(inside sh -c 'ls -d /run/pacer-helper* 2> /dev/null')
  if [ -z "$left" ]; then
    ok "[$b] nothing of the helper is left in /run (its preserved runtime directory and the privileged step's socket removed)"
  else
    bad "[$b] left in /run after the purge: $left"
  fi
  root_files > "$WORK/files-after.txt"
}

# The root's files after the purge as before the packages came (both listed in the booted
# container).
check_nothing_left() {
  local left
  left=$(diff "$WORK/files-before.txt" "$WORK/files-after.txt" | grep '^[<>]')
  if [ -z "$left" ]; then
    ok "the purge left no file behind: the root's files are those before the installation ($(wc -l < "$WORK/files-before.txt") paths, but logs, caches, apt's and dpkg's records and homes)"
  else
    bad "the root's files after the purge differ from those before the installation (< before, > after):"
    echo "$left" | head -n 40 | sed 's/^/#   /'
  fi
}

# ---------------------------------------------------------------- helpers for the checks
# The settings the helper may change, as the tree holds them (one `file:value` a line).
tree_state() {
  (cd "$CPU" && grep -r . cpufreq/policy*/scaling_governor cpufreq/policy*/energy_performance_preference \
    cpufreq/boost cpufreq/policy*/boost intel_pstate/status intel_pstate/no_turbo amd_pstate/status 2> /dev/null)
  [ -f "$MACHINE/proc/sys/kernel/sched_energy_aware" ] &&
    echo "eas:$(cat "$MACHINE/proc/sys/kernel/sched_energy_aware")"
  true
}
all_values() { # all_values FILE-NAME: the values of every policy, space-separated
  cat "$CPU"/cpufreq/policy*/"$1" | tr '\n' ' ' | sed 's/ $//'
}
same_all() { # same_all FILE-NAME VALUE: every policy holds VALUE
  local f
  for f in "$CPU"/cpufreq/policy*/"$1"; do [ "$(cat "$f")" = "$2" ] || return 1; done
}
helper_active() { [ "$(inside systemctl is-active pacer-helper.service)" = active ]; }
helper_inactive() { ! helper_active; }
helper_pid() { inside systemctl show -p MainPID --value pacer-helper.service; }
snapshot_call() { # snapshot_call USER: Snapshot on the system bus, its JSON on stdout
  as_user "$1" busctl --json=short --timeout=10 call "$HELPER" "$HELPER_PATH" "$HELPER" Snapshot |
    jq -r '.data[0]'
}
wait_inactive() { # wait_inactive SECONDS
  local i
  for i in $(seq $(($1 * 20))); do
    helper_active || return 0
    sleep 0.05
  done
  return 1
}
journal_files() { ls "$ROOT"/var/lib/pacer-helper/settings-*.json 2> /dev/null; }
wait_tree_changed() { # wait_tree_changed BEFORE SECONDS
  local i
  for i in $(seq $(($2 * 20))); do
    [ "$(tree_state)" != "$1" ] && [ -n "$(journal_files)" ] && return 0
    sleep 0.05
  done
  return 1
}
# set_as USER ARGS...: `pacerctl set ARGS` as USER; its output in $SET_OUT.
set_as() {
  local user=$1
  shift
  local rc=0
  SET_OUT=$(as_user "$user" pacerctl set "$@" 2>&1) || rc=$?
  SET_OUT=$(tr '\n' ' ' <<< "$SET_OUT")
  return "$rc"
}
refused_unauthorized() { # refused_unauthorized USER ARGS...: non-zero and NotAuthorized
  if set_as "$@"; then return 1; fi
  grep -qi 'not authori' <<< "$SET_OUT"
}
capbnd_of_unit() { # the unit's CapabilityBoundingSet as /proc/PID/status prints it
  local caps mask=0 cap index
  caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT_FILE" | tr ' ' '\n' | sed '/^$/d')
  for cap in $caps; do
    index=$(setpriv --list-caps | grep -nx "$(echo "${cap#CAP_}" | tr 'A-Z' 'a-z')" | cut -d: -f1)
    [ -n "$index" ] || return 1
    mask=$((mask | (1 << (index - 1))))
  done
  printf '%016x\n' "$mask"
}
container_pids() { # container_pids COMM: the container's processes called COMM (host pids)
  local ns pid
  ns=$(readlink "/proc/$LEADER/ns/pid")
  for pid in $(ps -e -o pid=,comm= | awk -v c="$1" '$2==c{print $1}'); do
    [ "$(readlink "/proc/$pid/ns/pid" 2> /dev/null)" = "$ns" ] && echo "$pid"
  done
}
helper_log() { inside journalctl -q -b -u pacer-helper.service --no-pager -o cat 2> /dev/null; }
idle_dropin() { # idle_dropin SECONDS|off: a runtime drop-in that shortens the idle timeout
  local dir=/run/systemd/system/pacer-helper.service.d
  if [ "$1" = off ]; then
    inside rm -rf "$dir"
  else
    inside mkdir -p "$dir"
    printf '[Service]\nExecStart=\nExecStart=/usr/libexec/pacer-helper --privileged-socket /run/pacer-helper-privileged.socket --idle-timeout %s\n' "$1" |
      inside tee "$dir/50-system-test-idle.conf" > /dev/null
  fi
  inside systemctl daemon-reload
}

# ---------------------------------------------------------------- a. activation, the unit
check_activation() {
  local b=$BUS_IMPL snapshot pid status expected
  check "[$b] pacer-helper.service is not running before the first call" helper_inactive
  if snapshot=$(snapshot_call alice) && jq -e '.simulated == false' <<< "$snapshot" > /dev/null; then
    ok "[$b] a Snapshot call D-Bus-activates pacer-helper.service, which reads the tree as the real machine"
  else
    bad "[$b] the first Snapshot call was not answered by an activated helper: ${snapshot:0:200}"
  fi
  check "[$b] pacer-helper.service is active after the call" helper_active
  pid=$(helper_pid)
  status=$(inside cat "/proc/$pid/status" 2> /dev/null)
  expected=$(capbnd_of_unit)
  local seccomp nnp capbnd fragment dropins
  seccomp=$(awk '$1=="Seccomp:"{print $2}' <<< "$status")
  nnp=$(awk '$1=="NoNewPrivs:"{print $2}' <<< "$status")
  capbnd=$(awk '$1=="CapBnd:"{print $2}' <<< "$status")
  fragment=$(inside systemctl show -p FragmentPath --value pacer-helper.service)
  dropins=$(inside systemctl show -p DropInPaths --value pacer-helper.service)
  if [ "$seccomp" = 2 ] && [ "$nnp" = 1 ] && [ -n "$expected" ] && [ "$capbnd" = "$expected" ] &&
    [ "${fragment#/usr}" = /lib/systemd/system/pacer-helper.service ] && [ -z "$dropins" ]; then
    ok "[$b] the helper (pid $pid) runs under the shipped unit: Seccomp 2, NoNewPrivs 1, CapBnd $capbnd"
  else
    bad "[$b] the helper's sandbox: Seccomp '$seccomp' NoNewPrivs '$nnp' CapBnd '$capbnd' (unit: '$expected'), unit $fragment, drop-ins '$dropins'"
  fi
}

# ---------------------------------------------------------------- b. who may change what
check_settings() {
  local b=$BUS_IMPL before governors epps
  governors=$(cat "$CPU/cpufreq/policy0/scaling_available_governors")
  epps=$(cat "$CPU/cpufreq/policy0/energy_performance_available_preferences" 2> /dev/null)
  # The tree is plain files: a value shorter than the one before must replace it whole, as
  # `echo value > file` does (O_TRUNC, which sysfs ignores).
  local file=$CPU/cpufreq/policy0/energy_performance_preference
  echo balance_performance > "$file"
  if set_as alice epp power --policies 0 && [ "$(cat "$file")" = power ]; then
    ok "[$b] a shorter value written by the helper replaces the longer one whole"
  else
    bad "[$b] alice set epp power over balance_performance: the file holds '$(tr '\n' '|' < "$file")': the helper writes without truncating (O_TRUNC), so a plain file keeps the old value's tail"
  fi
  echo balance_performance > "$file"
  # EPP first: under the performance governor intel_pstate refuses other values.
  if grep -qw balance_power <<< "$epps" && grep -qw powersave <<< "$governors"; then
    if set_as alice governor powersave && set_as alice epp balance_power && same_all energy_performance_preference balance_power; then
      ok "[$b] alice sets the EPP (balance_power on every policy)"
    else
      bad "[$b] alice setting the EPP: ${SET_OUT:0:200}; EPP now: $(all_values energy_performance_preference)"
    fi
  else
    bad "[$b] the $MODEL tree offers no balance_power EPP / powersave governor ($epps / $governors)"
  fi
  if set_as alice boost off && [ "$(cat "$CPU/intel_pstate/no_turbo")" = 1 ] &&
    set_as alice boost on && [ "$(cat "$CPU/intel_pstate/no_turbo")" = 0 ]; then
    ok "[$b] alice turns boost off and on (intel_pstate/no_turbo 1, then 0)"
  else
    bad "[$b] alice switching boost: ${SET_OUT:0:200}; no_turbo: $(cat "$CPU/intel_pstate/no_turbo" 2> /dev/null)"
  fi
  if set_as alice governor performance && same_all scaling_governor performance; then
    ok "[$b] alice sets the governor (performance on every policy)"
  else
    bad "[$b] alice setting the governor: ${SET_OUT:0:200}; governors now: $(all_values scaling_governor)"
  fi
  set_as alice governor powersave || bad "[$b] alice setting the governor back to powersave: ${SET_OUT:0:200}"


  before=$(tree_state)
  local refusals=0 what
  for what in "governor performance" "epp power" "boost off" "mode passive"; do
    # shellcheck disable=SC2086 # the words are the arguments
    if refused_unauthorized bob $what; then refusals=$((refusals + 1)); else note "bob, set $what: ${SET_OUT:0:160}"; fi
  done
  # Without the EAS switch the helper refuses EAS as unsupported, before polkit is asked.
  if [ -n "$EAS_BIND" ]; then
    if refused_unauthorized bob eas on; then refusals=$((refusals + 1)); else note "bob, set eas on: ${SET_OUT:0:160}"; fi
  elif ! set_as bob eas on; then
    refusals=$((refusals + 1))
  fi
  if [ "$refusals" = 5 ] && [ "$(tree_state)" = "$before" ]; then
    ok "[$b] bob is refused governor, EPP, boost, mode (NotAuthorized) and EAS, non-zero exits, and the tree is unchanged"
  else
    bad "[$b] bob: $refusals of 5 changes refused; tree unchanged: $([ "$(tree_state)" = "$before" ] && echo yes || echo no)"
  fi
}

# The helper sends a refusal as a kind with arguments; the client words it in its user's
# language (here German, from the installed catalogue), never in the helper's.
check_language() {
  local b=$BUS_IMPL out
  out=$(as_user bob env LANG=C.UTF-8 LANGUAGE=de pacerctl set governor performance --all 2>&1)
  if grep -q 'nicht erlaubt: nicht berechtigt für io.github.pacerapp.Pacer.set-cpu-power' <<< "$out"; then
    ok "[$b] bob's refusal is worded in his language (German), not the helper's"
  else
    bad "[$b] bob's refusal with LANGUAGE=de: ${out:0:200}"
  fi
}

check_carol() {
  local b=$BUS_IMPL before
  if set_as carol governor performance && same_all scaling_governor performance &&
    set_as carol governor powersave && same_all scaling_governor powersave; then
    ok "[$b] carol (set-cpu-power only) sets the governor"
  else
    bad "[$b] carol setting the governor: ${SET_OUT:0:200}; governors: $(all_values scaling_governor)"
  fi
  before=$(tree_state)
  if refused_unauthorized carol mode passive && [ "$(tree_state)" = "$before" ]; then
    ok "[$b] carol may not set the driver mode (NotAuthorized), the tree is unchanged"
  else
    bad "[$b] carol set mode passive: ${SET_OUT:0:200}"
  fi
  if [ -n "$EAS_BIND" ]; then
    if refused_unauthorized carol eas off && [ "$(tree_state)" = "$before" ]; then
      ok "[$b] carol may not switch EAS (NotAuthorized), the tree is unchanged"
    else
      bad "[$b] carol set eas off: ${SET_OUT:0:200}"
    fi
  else
    # The helper checks that the kernel has EAS before it asks polkit.
    if ! set_as carol eas off && [ "$(tree_state)" = "$before" ]; then
      ok "[$b] carol's EAS switch is refused and the tree is unchanged"
      note "this kernel has no /proc/sys/kernel/sched_energy_aware to bind the model's over: the helper refuses EAS as unsupported before polkit is asked (${SET_OUT:0:120})"
    else
      bad "[$b] carol set eas off: ${SET_OUT:0:200}"
    fi
  fi
}

# ---------------------------------------------------------------- c. a measurement
check_measure() {
  local b=$BUS_IMPL mpid threads json
  : > "$WORK/ramp-threads.txt"
  as_user alice pacerctl measure ramp --cpu 1 --trials 2 --json > "$WORK/ramp.json" 2> "$WORK/ramp.err" &
  mpid=$!
  # What the helper's threads run with while it measures: nice and allowed CPUs. The
  # looking runs on CPU 0, so that it does not take CPU 1 from the measurement.
  (
    taskset -p -c 0 "$BASHPID" > /dev/null
    while kill -0 "$mpid" 2> /dev/null; do
      inside sh -c 'p=$(systemctl show -p MainPID --value pacer-helper.service)
        for t in /proc/$p/task/*; do
          echo "$(sed "s/.*) //" $t/stat | cut -d" " -f17) $(sed -n "s/^Cpus_allowed_list:\t//p" $t/status)"
        done' >> "$WORK/ramp-threads.txt" 2> /dev/null
      sleep 0.05
    done
  )
  if wait "$mpid" && json=$(cat "$WORK/ramp.json") &&
    jq -e '.kind == "ramp" and .simulated == false and (.runs | length) == 1 and .runs[0].cpu == 1
           and .runs[0].steady_mops != null and (.runs[0].windows | length) == 7' <<< "$json" > /dev/null; then
    ok "[$b] alice's ramp on CPU 1 runs through the installed helper to the end (steady $(jq -r '.runs[0].steady_mops.mean | floor' <<< "$json") Mops/s)"
  else
    bad "[$b] measure ramp --cpu 1 as alice: $(tr '\n' ' ' < "$WORK/ramp.err" | cut -c1-240)"
  fi
  if grep -qx -- '-20 1' "$WORK/ramp-threads.txt"; then
    ok "[$b] the helper measured on a thread pinned to CPU 1 at nice -20 (read from /proc while it ran)"
  else
    bad "[$b] no helper thread pinned to CPU 1 at nice -20 while it measured: $(sort -u "$WORK/ramp-threads.txt" | tr '\n' ',' | cut -c1-200)"
  fi
  if jq -e '.kind == "ramp" and .runs[0].power_w == null and .runs[0].j_per_gop == null' <<< "${json:-null}" > /dev/null 2>&1; then
    ok "[$b] the ramp's energy is null (this machine has no RAPL)"
  else
    bad "[$b] the ramp's energy is not null: $(jq -c '.runs[0] | {power_w, j_per_gop}' <<< "${json:-null}" 2> /dev/null)"
  fi
  if jq -e '.runs[0] | has("pinned") and has("nice")' <<< "${json:-null}" > /dev/null 2>&1; then
    if jq -e '.runs[0].pinned == true and .runs[0].nice == -20' <<< "$json" > /dev/null; then
      ok "[$b] the ramp's report says so: pinned true, nice -20"
    else
      bad "[$b] the ramp's report says $(jq -c '.runs[0] | {pinned, nice}' <<< "$json")"
    fi
  else
    note "gap: the ramp's JSON does not say it ran pinned or at raised priority (checked from /proc above)"
  fi
  # What the scheduler did, reported beside the figures: as root at nice -20 other tasks
  # should seldom take the CPU.
  if jq -e '.runs[0] | (.off_cpu_ms.median != null) and (.interruptions.median != null) and (.per_trial | length > 0) and (.quiet != null)' <<< "${json:-null}" > /dev/null 2>&1; then
    ok "[$b] the report says what the scheduler did: $(jq -r '.runs[0] | "\(.off_cpu_ms.median * 10 | floor / 10) ms off the CPU, \(.interruptions.median) interruptions a trial, \(.disturbed_trials) disturbed, CPU 1 \(.quiet.busy_pct | floor) % busy and \(.quiet.runnable_on_cpu) tasks seen runnable there before"' <<< "$json")"
  else
    bad "[$b] the ramp's report lacks the scheduler's figures: $(jq -c '.runs[0] | {off_cpu_ms, interruptions, quiet}' <<< "${json:-null}" 2> /dev/null | cut -c1-200)"
  fi
  check_measure_busy
}

# What the scheduler does to the helper's measurements, with nothing looking at the helper
# meanwhile (the thread watch above wakes systemd every 50 ms, which takes CPU 1 now and
# then). First a quiet CPU 1: at nice -20 other tasks should seldom take it. Then a busy
# desktop: a CPU-bound task of alice's on CPU 1, at the default nice level, in user.slice
# as her session's processes are. The unit's ProtectProc=invisible hides it from the
# helper, but not the kernel's count of CPU 1's busy time. CFS shares a CPU between task
# groups by their weight, and a thread's nice counts only within its group: between cgroups
# (where the CPU controller is on: the helper's pacer.slice weighs 10000 beside user.slice's
# 100) and between sessions' autogroups (where tasks are in no CPU cgroup, as on this host:
# the helper raises its group to nice -20 while it measures). Either way the task should
# get about 1 % of the CPU, some 13 ms of a 1.3 s trial, not the half it gets otherwise.
check_measure_busy() {
  local b=$BUS_IMPL json cgroup
  json=$(as_user alice pacerctl measure ramp --cpu 1 --trials 3 --json 2> "$WORK/ramp-quiet.err")
  log "ramp on a quiet CPU: $(jq -c '.runs[0] | {quiet, off_cpu_ms, interruptions, per_trial}' <<< "${json:-null}" 2> /dev/null)"
  # The time taken from it is what disturbs a measurement: at most 1 % of a trial. The kernel's
  # own short preemptions (timers, kworkers; 7 to 18 a trial on CI's 2-core machine, some
  # 80 µs each) no nice level prevents: only a flood of them fails.
  if jq -e '.runs[0] | (.per_trial | length) == 3 and .interruptions.median <= 100 and .off_cpu_ms.median <= 13' <<< "${json:-null}" > /dev/null 2>&1; then
    ok "[$b] on a quiet CPU 1 other tasks seldom took it from the helper: $(jq -r '.runs[0] | "\(.interruptions.median) interruptions and \(.off_cpu_ms.median * 10 | floor / 10) ms off the CPU a 1300 ms trial (median of 3)"' <<< "$json")"
  else
    bad "[$b] the helper's measurement on a quiet CPU: $(jq -c '.runs[0] | {interruptions, off_cpu_ms, quiet}' <<< "${json:-null}" 2> /dev/null | cut -c1-300) $(tr '\n' ' ' < "$WORK/ramp-quiet.err" | cut -c1-200)"
  fi
  inside systemd-run --quiet --unit=alice-busy --uid=alice --slice=user.slice -p CPUAffinity=1 \
    -p RuntimeMaxSec=120 /bin/sh -c 'while :; do :; done'
  sleep 0.5
  json=$(as_user alice pacerctl measure ramp --cpu 1 --trials 3 --json 2> "$WORK/ramp-busy.err")
  cgroup=$(inside sh -c 'grep "^0::" /proc/$(systemctl show -p MainPID --value pacer-helper.service)/cgroup' 2>&1)
  inside systemctl stop alice-busy.service
  if [ "$cgroup" = "0::/pacer.slice/pacer-helper.service" ]; then
    ok "[$b] the helper runs in pacer.slice, beside user.slice ($cgroup)"
  else
    bad "[$b] the helper's cgroup: $cgroup"
  fi
  log "ramp beside a busy task: $(jq -c '.runs[0] | {quiet, off_cpu_ms, interruptions, per_trial}' <<< "${json:-null}" 2> /dev/null)"
  if jq -e '.runs[0].quiet | .busy_pct >= 80 and .all_tasks_seen == false' <<< "${json:-null}" > /dev/null 2>&1; then
    ok "[$b] the helper saw CPU 1 $(jq -r '.runs[0].quiet.busy_pct | floor' <<< "$json") % busy before measuring, though alice's task there is hidden from it (all tasks seen: false)"
  else
    bad "[$b] the quiet check beside alice's busy task: $(jq -c '.runs[0].quiet' <<< "${json:-null}" 2> /dev/null) $(tr '\n' ' ' < "$WORK/ramp-busy.err" | cut -c1-200)"
  fi
  if jq -e '.runs[0] | .disturbed_trials == 0 and (.per_trial | length) == 3 and ([.per_trial[].off_cpu_ms] | max) <= 39' <<< "${json:-null}" > /dev/null 2>&1; then
    ok "[$b] at nice -20 (its autogroup at $(jq -r '.runs[0].group_nice' <<< "$json")) alice's busy task took $(jq -r '[.runs[0].per_trial[].off_cpu_ms | . * 10 | floor / 10] | join(", ")' <<< "$json") ms of the 1300 ms trials (at most 3 %), $(jq -r '[.runs[0].per_trial[].interruptions] | join(", ")' <<< "$json") interruptions; no trial disturbed"
  else
    bad "[$b] beside alice's busy task: $(jq -c '.runs[0] | {disturbed_trials, per_trial}' <<< "${json:-null}" 2> /dev/null | cut -c1-300)"
  fi
}

# ---------------------------------------------------------------- d. power-profiles-daemon
status_json() { as_user alice pacerctl status --json; }
check_ppd() {
  local b=$BUS_IMPL profiles status kinds
  profiles=$(inside busctl --json=short get-property "$PPD" "$PPD_PATH" "$PPD" Profiles 2> /dev/null)
  if inside systemctl is-active --quiet power-profiles-daemon.service && grep -q intel_pstate <<< "$profiles"; then
    ok "[$b] power-profiles-daemon $(inside dpkg-query -W -f='${Version}' power-profiles-daemon) runs, started by systemd, and drives the tree with intel_pstate"
  else
    bad "[$b] power-profiles-daemon is not active on the tree: $(inside systemctl is-active power-profiles-daemon.service) ${profiles:0:160}"
  fi
  if as_user alice busctl set-property "$PPD" "$PPD_PATH" "$PPD" ActiveProfile s performance &&
    same_all energy_performance_preference performance; then
    ok "[$b] alice switches the profile to performance through the daemon (EPP performance on every policy)"
  else
    bad "[$b] the profile switch as alice: EPP now $(all_values energy_performance_preference)"
  fi
  status=$(status_json)
  if jq -e '.profile.active == "performance" and (.findings | length) == 0' <<< "$status" > /dev/null; then
    ok "[$b] pacerctl status shows the profile and no finding after the switch"
  else
    bad "[$b] status after the switch: profile $(jq -c '.profile.active' <<< "$status"), findings $(jq -c '[.findings[].kind]' <<< "$status")"
  fi
  echo power > "$CPU/cpufreq/policy0/energy_performance_preference"
  status=$(status_json)
  kinds=$(jq -c '[.findings[].kind]' <<< "$status")
  if jq -e '[.findings[] | select(.kind == "epp-mismatch")] | length == 1' <<< "$status" > /dev/null; then
    ok "[$b] an EPP written behind the daemon's back gives an epp-mismatch finding"
  else
    bad "[$b] after writing EPP power to policy0 behind the daemon: findings $kinds"
  fi
  local out
  if out=$(as_user alice pacerctl fix 2>&1) && status=$(status_json) &&
    jq -e '[.findings[] | select(.kind == "epp-mismatch")] | length == 0' <<< "$status" > /dev/null &&
    same_all energy_performance_preference performance; then
    ok "[$b] pacerctl fix as alice clears it (EPP performance again)"
  else
    bad "[$b] pacerctl fix: $(tr '\n' ' ' <<< "$out" | cut -c1-200); findings $(jq -c '[.findings[].kind]' <<< "$status" 2> /dev/null)"
  fi
}

# ---------------------------------------------------------------- e. restoring
compare_as_alice() { # in the background; its pid in $COMPARE_PID
  as_user alice pacerctl measure compare --setting epp=power --setting epp=balance_power --cpu 1 \
    --trials 3 --json > "$WORK/compare-$1.json" 2> "$WORK/compare-$1.err" &
  COMPARE_PID=$!
}
check_restore() {
  local b=$BUS_IMPL before saved=
  # SIGKILL in the middle of a comparison: the next start restores.
  before=$(tree_state)
  rm -f "$WORK/previous-boot.json"
  compare_as_alice kill
  if wait_tree_changed "$before" 20; then
    saved=$(journal_files | head -n 1)
    cp "$saved" "$WORK/previous-boot.json"
    inside systemctl kill --signal=SIGKILL pacer-helper.service
    wait "$COMPARE_PID" 2> /dev/null
    snapshot_call alice > /dev/null
    if [ "$(tree_state)" = "$before" ] && [ -z "$(journal_files)" ]; then
      ok "[$b] the helper killed (SIGKILL) during a comparison restores the settings at its next start"
    else
      bad "[$b] after SIGKILL during a comparison and a new start: journal '$(journal_files)', tree differs: $(diff <(echo "$before") <(tree_state) | grep '^[<>]' | tr '\n' ' ' | cut -c1-200)"
    fi
  else
    wait "$COMPARE_PID" 2> /dev/null
    bad "[$b] the comparison changed nothing (or kept no journal) within 20 s: $(tr '\n' ' ' < "$WORK/compare-kill.err" | cut -c1-200)"
  fi

  # A journal from an earlier boot: its boot id replaced by another one. (A reboot of the
  # container would not do: nspawn gives the container a boot id of its own, but the helper,
  # with a procfs of its own (ProtectProc=), reads the kernel's, which a container reboot
  # keeps. Either may be in the journal.)
  if [ -n "$saved" ] && [ -f "$WORK/previous-boot.json" ]; then
    local kernel_boot container_boot other
    kernel_boot=$(cat /proc/sys/kernel/random/boot_id)
    container_boot=$(inside cat /proc/sys/kernel/random/boot_id)
    other=$(cat /proc/sys/kernel/random/uuid)
    if grep -q -e "$kernel_boot" -e "$container_boot" "$WORK/previous-boot.json"; then
      ok "[$b] the helper's journal records the boot id"
    else
      bad "[$b] the helper's journal records neither the kernel's boot id ($kernel_boot) nor the container's ($container_boot): an entry of another boot cannot be told apart"
    fi
    set_as alice epp balance_performance || note "alice set epp balance_performance: ${SET_OUT:0:160}"
    inside systemctl stop pacer-helper.service
    before=$(tree_state)
    sed -e "s/$kernel_boot/$other/g" -e "s/$container_boot/$other/g" "$WORK/previous-boot.json" > "$ROOT/var/lib/pacer-helper/$(basename "$saved")"
    chmod 600 "$ROOT/var/lib/pacer-helper/$(basename "$saved")"
    snapshot_call alice > /dev/null
    if [ "$(tree_state)" = "$before" ]; then
      ok "[$b] a journal left from a previous boot is not applied"
    else
      bad "[$b] a journal left from a previous boot was applied: $(diff <(echo "$before") <(tree_state) | grep '^[<>]' | tr '\n' ' ' | cut -c1-200)"
    fi
    if helper_log | grep -qi discarded; then
      ok "[$b] the helper logs that it discarded the previous boot's journal"
    else
      bad "[$b] the helper's log does not say it discarded the previous boot's journal: $(helper_log | tail -n 2 | tr '\n' ' ' | cut -c1-200)"
    fi
    inside sh -c 'rm -f /var/lib/pacer-helper/settings-*.json'
  fi

  # systemctl stop during a comparison: the settings are back when stop returns.
  before=$(tree_state)
  compare_as_alice stop
  if wait_tree_changed "$before" 20; then
    # The client is held still meanwhile: a call of its to the helper's name as it leaves
    # would start a new helper (and cancel the stop job), which restores at its start.
    # (nsenter, its parent, stops itself when its child stops: both are continued.)
    local client parent= after journal
    client=$(container_pids pacerctl | head -n 1)
    if [ -n "$client" ]; then
      parent=$(ps -o ppid= -p "$client" | tr -d ' ')
      kill -STOP "$client"
    fi
    inside systemctl stop pacer-helper.service
    after=$(tree_state)
    journal=$(journal_files)
    [ -n "$client" ] && kill -CONT "$client" $parent
    wait "$COMPARE_PID" 2> /dev/null
    if [ "$after" = "$before" ] && [ -z "$journal" ]; then
      ok "[$b] systemctl stop during a comparison restores the settings before the helper exits"
    else
      bad "[$b] after systemctl stop during a comparison: journal left '${journal##*/}', tree differs: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | tr '\n' ' ' | cut -c1-200)"
    fi
  else
    wait "$COMPARE_PID" 2> /dev/null
    bad "[$b] the comparison changed nothing (or kept no journal) within 20 s: $(tr '\n' ' ' < "$WORK/compare-stop.err" | cut -c1-200)"
  fi
  # Whatever is left is restored by the next start.
  snapshot_call alice > /dev/null
}

# ---------------------------------------------------------------- f. idle exit
check_idle() {
  local b=$BUS_IMPL start took result lost=0 delay
  idle_dropin 1
  inside systemctl stop pacer-helper.service
  snapshot_call alice > /dev/null
  start=$(date +%s.%N)
  if helper_active && wait_inactive 10; then
    took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
    result=$(inside systemctl show -p Result --value pacer-helper.service)
    if [ "$result" = success ]; then
      ok "[$b] the helper exits when idle (--idle-timeout 1 in a drop-in: inactive after ${took} s, result $result)"
    else
      bad "[$b] the helper's idle exit ends with result $result"
    fi
  else
    bad "[$b] the helper did not exit within 10 s of idleness (--idle-timeout 1)"
  fi
  if [ "${1:-}" = quick ]; then
    idle_dropin off
    return
  fi
  # Calls at the moment it decides to leave (1 to 1.5 s after the last one) are answered.
  for delay in 1.0 1.15 1.3 1.45; do
    wait_inactive 10 || true
    snapshot_call alice > /dev/null || lost=$((lost + 1))
    sleep "$delay"
    snapshot_call alice > /dev/null || lost=$((lost + 1))
  done
  if [ "$lost" = 0 ]; then
    ok "[$b] calls made as the helper exits when idle are all answered (8 calls around the exit)"
  else
    bad "[$b] $lost of 8 calls made around the helper's idle exit were not answered"
  fi
  idle_dropin off
}

# ---------------------------------------------------------------- f. who changed it
# history_has JQ-FILTER: some line alice's `pacerctl history --follow --json` printed matches.
HISTORY_OUT=/home/alice/history.jsonl
history_has() { inside cat "$HISTORY_OUT" 2> /dev/null | jq -e -s "map(select($1)) | length > 0" > /dev/null; }
wait_history() { # wait_history SECONDS JQ-FILTER
  local i
  for i in $(seq $(($1 * 10))); do
    history_has "$2" && return 0
    sleep 0.1
  done
  return 1
}
check_history() {
  local b=$BUS_IMPL follower governor other
  as_user alice sh -c "exec pacerctl history --follow --json > $HISTORY_OUT 2> $HISTORY_OUT.err" &
  follower=$!
  if wait_history 10 '.setting == "recording" and .new == "started"'; then
    ok "[$b] alice's pacerctl history --follow opens a watch: the helper records under its unit, in a fanotify group the privileged step made"
  else
    bad "[$b] no recording started: $(inside cat "$HISTORY_OUT.err" 2> /dev/null | tr '\n' ' ' | cut -c1-200); helper: $(helper_log | tail -n 3 | tr '\n' ' '); step: $(inside journalctl -q -b -u 'pacer-helper-privileged@*' --no-pager -o cat 2> /dev/null | tail -n 3 | tr '\n' ' ')"
  fi
  # Recording, the helper holds no CAP_SYS_ADMIN: the step that made its group is gone.
  local status admin=$((1 << 21)) held="" set
  status=$(inside cat "/proc/$(helper_pid)/status" 2> /dev/null)
  for set in CapEff CapPrm CapBnd; do
    (( 0x$(awk -v s="$set:" '$1==s{print $2}' <<< "$status") & admin )) && held="$held $set"
  done
  if [ -n "$status" ] && [ -z "$held" ] &&
    [ "$(inside systemctl is-active pacer-helper-privileged.socket)" = active ] &&
    [ -z "$(inside systemctl list-units --no-legend --state=active 'pacer-helper-privileged@*')" ]; then
    ok "[$b] recording, the helper holds no CAP_SYS_ADMIN ($(grep -E '^Cap(Eff|Prm|Bnd)' <<< "$status" | tr -s '\t\n' ' ')); no privileged step stays running"
  else
    bad "[$b] CAP_SYS_ADMIN in the helper's${held:- (none)} sets, or a step still running: $(inside systemctl list-units --no-legend 'pacer-helper-privileged*' | tr '\n' ' ')"
  fi
  # A service of its own writes a governor, as TLP would.
  governor=$(cat "$CPU/cpufreq/policy3/scaling_governor")
  other=powersave
  [ "$governor" = powersave ] && other=performance
  inside systemd-run --quiet --wait --unit=governor-writer.service \
    sh -c "echo $other > /sys/devices/system/cpu/cpufreq/policy3/scaling_governor; sleep 1"
  if wait_history 5 ".setting == \"governor\" and .policies == [3] and .new == \"$other\" and .source == \"process\" and .process.comm == \"sh\" and .process.unit == \"governor-writer.service\" and .process.uid == 0"; then
    ok "[$b] a write by a process in governor-writer.service is recorded with its command, unit and user"
  else
    bad "[$b] the governor-writer.service write was not recorded as its: $(inside tail -n 3 "$HISTORY_OUT" | tr '\n' ' ' | cut -c1-300)"
  fi
  as_user alice busctl set-property "$PPD" "$PPD_PATH" "$PPD" ActiveProfile s balanced
  if wait_history 5 '.setting == "profile" and .new == "balanced" and .source == "daemon" and .process.unit == "power-profiles-daemon.service"' &&
    wait_history 5 '.setting == "epp" and .source == "process" and .process.unit == "power-profiles-daemon.service"'; then
    ok "[$b] the profile switch is the daemon's, and the EPP writes are power-profiles-daemon.service's"
  else
    bad "[$b] the daemon's change or its EPP writes were not recorded as its: $(inside tail -n 3 "$HISTORY_OUT" | tr '\n' ' ' | cut -c1-300)"
  fi
  set_as alice governor "$governor" --policies 3
  if wait_history 5 ".setting == \"governor\" and .policies == [3] and .new == \"$governor\" and .source == \"pacer\" and .process.comm == \"pacerctl\" and .process.uid == $(inside id -u alice)"; then
    ok "[$b] Pacer's own write is recorded as Pacer's, for alice's pacerctl"
  else
    bad "[$b] Pacer's write for alice was not recorded as such ($SET_OUT): $(inside tail -n 3 "$HISTORY_OUT" | tr '\n' ' ' | cut -c1-300)"
  fi
  # pacerctl itself, not only the nsenter that started it, and the watch goes with it.
  local pid
  for pid in $(container_pids pacerctl); do kill "$pid" 2> /dev/null; done
  wait "$follower" 2> /dev/null
  # The watch gone, the recording stops and is kept for the boot, for root only.
  local kept=/run/pacer-helper/history.json i
  kept_writer() { inside cat "$kept" 2> /dev/null | jq -e 'map(select(.process.unit == "governor-writer.service")) | length > 0' > /dev/null 2>&1; }
  for i in $(seq 50); do
    kept_writer && break
    sleep 0.1
  done
  if kept_writer &&
    [ "$(inside stat -c %a:%U "$kept")" = 600:root ]; then
    ok "[$b] the watch closed, the recording is kept for the boot in $kept (mode 600, root's)"
  else
    bad "[$b] $kept after the watch closed: $(inside stat -c %a:%U "$kept" 2>&1)"
  fi
}

# ---------------------------------------------------------------- the runs
render_machine
if [ -z "$EAS_BIND" ]; then
  note "not bound: /proc/sys/kernel/sched_energy_aware ($( [ -f /proc/sys/kernel/sched_energy_aware ] && echo "the $MODEL model has none" || echo "this kernel has none to bind over"))"
fi
boot dbus-daemon
install_packages
check_activation
check_settings
check_language
check_carol
check_measure
check_ppd
check_history
check_restore
check_idle
stop_container

# The other bus: activation, changes, refusal, idle exit.
render_machine
boot dbus-broker
check_activation
check_settings
check_idle quick
check_upgrade
purge_packages
stop_container
check_nothing_left

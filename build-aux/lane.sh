# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the lanes that run Pacer as installed (system-test.sh, flatpak-test.sh). Sourced,
# not run, after common.sh, with LANE_LOG naming the lane's log file; the lane defines
# `cleanup`, which runs however it ends.
#
# One line per check (`ok - …` / `FAIL - …`, notes start with `#`), then `N passed, N failed`;
# the exit status is non-zero when a check failed.

passed=0
failed=0
ok() { printf 'ok - %s\n' "$*"; passed=$((passed + 1)); }
bad() { printf 'FAIL - %s\n' "$*"; failed=$((failed + 1)); }
note() { printf '# %s\n' "$*"; }
lane_t0=$(date +%s.%N)
elapsed() { awk -v a="$lane_t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
log() { printf '[%6ss] %s\n' "$(elapsed)" "$*" >> "$LANE_LOG" 2> /dev/null; }

# build_packages KIND : builds KIND's packages with build-aux/package.sh, which does nothing
# when they are those of the project's files already; a check, or the lane's end.
build_packages() {
  local kind=$1 started
  started=$(date +%s)
  if build-aux/package.sh "$kind" >> "$LANE_LOG" 2>&1; then
    ok "build-aux/package.sh $kind builds the packages offline ($(($(date +%s) - started)) s)"
  else
    tail -n 20 "$LANE_LOG" | sed 's/^/# /'
    abort "build-aux/package.sh $kind (log: $LANE_LOG, and the build's log in target/package/)"
  fi
}

finish() {
  # How the lane ended: `exit` alone in an EXIT trap would give the status of the command
  # before the trap, not the checks' (a failed check once left the lane's status 0).
  local status=$?
  trap - EXIT
  cleanup
  log "done: $passed passed, $failed failed"
  printf '%s passed, %s failed\n' "$passed" "$failed"
  if [ "$failed" -gt 0 ] || [ "$status" -ne 0 ]; then
    exit 1
  fi
  exit 0
}
trap finish EXIT
# abort WHY: a step the rest depends on failed.
abort() {
  bad "$*"
  exit 1
}

# lane_start WHAT: as root (WHAT says what the lane does that needs it), with a fresh log.
lane_start() {
  if [ "$(id -u)" -ne 0 ]; then
    abort "$1: run it as root"
  fi
  mkdir -p "$(dirname "$LANE_LOG")"
  : > "$LANE_LOG"
}

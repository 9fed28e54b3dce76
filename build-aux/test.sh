#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what is missing, then runs the whole test suite, lane by lane: formatting and
# clippy, the meson install check, the packages users install (Debian's, with lintian and
# their contents; the system extension, merged; the RPMs), Pacer as installed (the .debs in a
# booted Debian 12, the Flatpak in its sandbox), fuzzing, plain cargo test, and the tests that
# need more than it has (a display, GNOME Shell, flatpak tooling, root). It ends with each
# lane's `N passed, M failed` and the total; the exit status is non-zero when any lane failed.
# A failed lane does not stop the ones after it.
#
#   build-aux/test.sh                 every lane
#   build-aux/test.sh --lane NAME     one lane (again for more: --lane deb --lane system)
#   build-aux/test.sh --list          the lanes' names, with what each runs
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh

# The lanes in the order they run: name, then what it runs.
LANES=(
  lint "cargo fmt --check and cargo clippy -D warnings"
  install "build-aux/meson-install-check.sh: meson installs what a distribution would"
  deb "build-aux/package-test.sh: the Debian packages, lintian, their files; built in Debian 13 and installed there"
  sysext "build-aux/sysext-test.sh: the system extension, merged, its helper activated"
  rpm "build-aux/rpm-test.sh: the RPM spec, built, installed into a scratch root"
  system "as root: the cargo tests that need it; build-aux/system-test.sh: the .debs, booted"
  flatpak "the cargo tests of the manifests; as root: build-aux/flatpak-test.sh, the Flatpak in its sandbox on a Debian 13 test runtime, built in the root of shell-48"
  fuzz "build-aux/fuzz.sh: every fuzz target over its corpus"
  cargo "plain cargo test of the workspace: every unit and model test, without a display"
  gui "the cargo tests that need a display, under Xvfb: widgets, window, accessibility, tray (in Xfce's and KDE Plasma's panels too)"
  shell-43 "the cargo tests of GNOME Shell 43: the extension in a real shell, its two builds"
  shell-48 "as root: the cargo tests of GNOME Shell 48, in a Debian 13 root made once and cached; Pacer built against GTK 4.18 there"
  shell-50 "as root: the cargo tests of GNOME Shell 50 (headless), in a Debian testing root made once and cached; Pacer built against GTK 4.24 there"
)

lane_names() { for ((i = 0; i < ${#LANES[@]}; i += 2)); do echo "${LANES[i]}"; done; }

chosen=()
while [ $# -gt 0 ]; do
  case "$1" in
    --list)
      for ((i = 0; i < ${#LANES[@]}; i += 2)); do printf '%-8s %s\n' "${LANES[i]}" "${LANES[i + 1]}"; done
      exit 0
      ;;
    --lane)
      [ $# -ge 2 ] || { pacer_say "test.sh: --lane needs a name (--list names them)"; exit 2; }
      lane_names | grep -qx -- "$2" ||
        { pacer_say "test.sh: no lane '$2'; the lanes: $(lane_names | tr '\n' ' ')"; exit 2; }
      chosen+=("$2")
      shift 2
      ;;
    -h | --help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) pacer_say "test.sh: unknown argument '$1' (--lane NAME, --list)"; exit 2 ;;
  esac
done
[ ${#chosen[@]} -gt 0 ] || mapfile -t chosen < <(lane_names)

pacer_install_packages "${PACER_BUILD_PACKAGES[@]}" "${PACER_TEST_PACKAGES[@]}" || exit 1
pacer_unpack_ppd || exit 1
pacer_ensure_rust || exit 1

# The lanes' builds in cargo's dev profile (clippy, meson's development builds, cargo test)
# share one target directory outside the checkout, and one debug setting: line tables, for
# the file and line of a failure's backtrace, without the full debugger information that
# takes most of the linking time of the workspace's test programs on two processors.
[ -n "${CARGO_TARGET_DIR:-}" ] || pacer_shared_cargo_target cargo-target .
export CARGO_PROFILE_DEV_DEBUG=${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}

# The packages are built without the release profile's fat LTO here (the same files, in a
# fraction of the time on two processors: build-aux/package.sh).
export PACER_PACKAGE_FAST=1

# plain `cargo test` runs every test that needs no display, root or network; a test that
# needs one of them is marked `#[ignore = "needs …: build-aux/test.sh --lane NAME runs it"]`,
# and lane NAME runs it with `-- --ignored` (tests/tiers.rs checks that each is run, once).
# Every cargo command names the whole workspace and picks targets with --lib and --test:
# cargo unifies the crates' features over the packages it is given, so `-p pacer` would
# compile the crates of the workspace again with other features.
CARGO_TEST=(cargo test --locked --workspace --no-fail-fast)

# Each lane prints its checks; its counts come from its own `N passed, M failed` line and
# cargo's `test result:` lines, or from what it prints per check where it has neither
# (lint_lane, fuzz's `no crash` lines). A lane that fails without a count counts one failure,
# and so does one that checked nothing.
lint_lane() {
  local passed=0 failed=0
  pacer_say "cargo fmt --check"
  if cargo fmt --all --check; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  pacer_say "cargo clippy"
  if cargo clippy --locked --workspace --all-targets -- -D warnings; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
  printf '%s passed, %s failed\n' "$passed" "$failed"
  [ "$failed" = 0 ]
}
run_lane() {
  case "$1" in
    lint) lint_lane ;;
    install) build-aux/meson-install-check.sh ;;
    deb) build-aux/package-test.sh ;;
    sysext) build-aux/sysext-test.sh ;;
    rpm) build-aux/rpm-test.sh ;;
    # Both halves run whatever the first gave; the lane fails with either.
    system)
      "${CARGO_TEST[@]}" --test recorder --test history --test watchers --test history_cli \
        --test priority -- --ignored
      both $? build-aux/system-test.sh
      ;;
    # The Flatpak's app is built in the root of 48, on whose Debian 13 the test runtime is
    # made; without the root, flatpak-test.sh fails and says so.
    flatpak)
      local status
      "${CARGO_TEST[@]}" --test flatpak -- --ignored
      status=$?
      both "$status" build-aux/flatpak-test.sh "$(build-aux/shell-root.sh 48)"
      ;;
    fuzz) build-aux/fuzz.sh ;;
    # Without the display of the session it runs in, if any: a test that needs one fails here,
    # and is marked for the gui lane.
    cargo) env -u DISPLAY -u WAYLAND_DISPLAY "${CARGO_TEST[@]}" ;;
    # Under Xvfb, so that the GUI's unit tests can make widgets (the window tests start their
    # own X server too); the cairo renderer, as everywhere under Xvfb.
    gui)
      GSK_RENDERER=cairo xvfb-run -a "${CARGO_TEST[@]}" --lib --test window --test window_limits --test accessibility \
        --test plain_words --test tray --test xfce_panel --test kde_panel --test state_bus \
        -- --ignored
      ;;
    shell-43) "${CARGO_TEST[@]}" --test gnome_shell --test shell_extension -- --ignored ;;
    shell-48)
      shell_lane 48 "${CARGO_TEST[@]}" --test gnome_shell_48 --test gtk_48_window -- --ignored
      ;;
    shell-50)
      shell_lane 50 "${CARGO_TEST[@]}" --test gnome_shell_50 --test gtk_50_window -- --ignored
      ;;
  esac
}
# shell_lane VERSION COMMAND… : in the root of GNOME Shell VERSION, build-aux/gtk-build.sh
# builds Pacer against that release's GTK (its gnome_VERSION feature: 48 on GTK 4.18, 50 on
# GTK 4.24) and lints that build; then COMMAND (the lane's cargo tests) runs with the shell's
# root (with_shell_root) and PACER_GTK_VERSION naming the build. Without the build the
# window's test runs all the same, and fails for want of it.
shell_lane() {
  local version=$1 pacer status=0
  shift
  pacer=$(build-aux/gtk-build.sh "$version" "$(build-aux/shell-root.sh "$version")") || status=1
  local -x "PACER_GTK_$version=$pacer"
  with_shell_root "$version" "$@"
  both $? test "$status" = 0
}
# with_shell_root VERSION COMMAND… : runs COMMAND with PACER_SHELL_VERSION_ROOT naming the
# root of GNOME Shell VERSION (made once, then cached: build-aux/shell-root.sh), which says
# the shell's version; without it COMMAND runs all the same, its tests fail for want of it,
# and so does the lane.
with_shell_root() {
  local version=$1 root status
  shift
  root=$(build-aux/shell-root.sh "$version")
  status=$?
  env "PACER_SHELL_${version}_ROOT=$root" "$@"
  both $? test "$status" = 0
}
# both STATUS COMMAND… : runs COMMAND; succeeds when it and what gave STATUS both did.
both() {
  local first=$1
  shift
  "$@" && [ "$first" = 0 ]
}
# lane_counts LOG STATUS : prints "PASSED FAILED" for a lane's output.
lane_counts() {
  local log=$1 status=$2 counted
  # The lane's own count (its last), plus cargo's.
  counted=$(awk '
    /^[0-9]+ passed, [0-9]+ failed$/ {own = 1; own_p = $1; own_f = $3}
    /^test result: / {p += $4; f += $6}
    END {if (own || p + f) print own_p + p, own_f + f}' "$log")
  if [ -z "$counted" ]; then
    counted="$(grep -cE '^pacer: (fuzz [a-z_]+: .*no crash|meson install \()' "$log") 0"
  fi
  # A lane that failed beyond what it counted (a build, a set-up step) fails once more.
  if [ "$status" != 0 ] && [ "${counted#* }" = 0 ]; then
    counted="${counted% *} 1"
  fi
  # Nothing checked is no pass: a lane whose tests were all left out, say.
  if [ "$counted" = "0 0" ]; then
    counted="0 1"
  fi
  echo "$counted"
}

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
summary=()
total_passed=0
total_failed=0
for lane in "${chosen[@]}"; do
  pacer_say "lane $lane"
  started=$(date +%s)
  run_lane "$lane" 2>&1 | tee "$logs/$lane.log"
  status=${PIPESTATUS[0]}
  read -r passed failed < <(lane_counts "$logs/$lane.log" "$status")
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  summary+=("$(printf '%-8s %4s passed, %s failed (%s s)' "$lane" "$passed" "$failed" \
    "$(($(date +%s) - started))")")
done

echo
echo "Test summary"
printf '%s\n' "${summary[@]}"
printf '%-8s %4s passed, %s failed\n' all "$total_passed" "$total_failed"
[ "$total_failed" = 0 ]

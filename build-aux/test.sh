#!/usr/bin/env bash
# Installs what is missing, then runs every check and the whole test suite:
# formatting, clippy, `pacerctl status --json` over the shared reference trees, the meson
# install check, Pacer as installed (the system test, the Flatpak test), fuzzing, cargo test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh

pacer_install_packages "${PACER_BUILD_PACKAGES[@]}" "${PACER_TEST_PACKAGES[@]}"
pacer_unpack_ppd
pacer_ensure_rust

pacer_say "cargo fmt --check"
cargo fmt --all --check
pacer_say "cargo clippy"
cargo clippy --locked --workspace --all-targets -- -D warnings

# `pacerctl status --json` on every reference tree in ../shared/fixtures/sysfs, when it is
# there: a non-zero exit or invalid JSON fails the run. The trees are regenerated in a
# temporary copy first (git does not keep the empty directories they need).
fixtures="${PACER_FIXTURES:-../shared/fixtures/sysfs}"
if [ -f "$fixtures/make-fixtures.sh" ]; then
  cargo build --locked -p pacerctl
  copy=$(mktemp -d)
  trap 'rm -rf "$copy"' EXIT
  cp "$fixtures/make-fixtures.sh" "$copy/"
  bash "$copy/make-fixtures.sh" >/dev/null
  count=0
  for tree in "$copy"/*/; do
    if ! target/debug/pacerctl status --json --sysfs-root "$tree" > "$copy/status.json"; then
      pacer_say "pacerctl status --json failed on $(basename "$tree")"
      exit 1
    fi
    if ! jq -e '.schema == 1' "$copy/status.json" >/dev/null; then
      pacer_say "pacerctl status --json printed invalid JSON on $(basename "$tree")"
      exit 1
    fi
    count=$((count + 1))
  done
  pacer_say "pacerctl status --json is valid on all $count reference trees"
else
  pacer_say "no reference trees at $fixtures (shared/fixtures/sysfs beside the checkout, or PACER_FIXTURES): the sweep cannot run"
  exit 1
fi

# Meson builds and installs everything as a distribution would, into a staging directory:
# the data files pass their validators and the installed files are build-aux/expected-install.txt.
pacer_say "meson install check"
build-aux/meson-install-check.sh
build-aux/system-test.sh
build-aux/flatpak-test.sh

build-aux/fuzz.sh
# Under Xvfb, so that the GUI's unit tests can make widgets (the window tests start their own
# X server too); the cairo renderer, as everywhere under Xvfb.
GSK_RENDERER=cairo xvfb-run -a cargo test --locked --workspace --no-fail-fast

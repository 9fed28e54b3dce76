#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what is missing, then runs every check and the whole test suite: formatting,
# clippy, the meson install check, the packages users install (Debian's, with lintian and
# their contents; the system extension, merged; the RPMs), Pacer as installed (the .debs in a
# booted Debian 12, the Flatpak in its sandbox), fuzzing, cargo test.
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

# Meson builds and installs everything as a distribution would, into a staging directory:
# the data files pass their validators and the installed files are build-aux/expected-install.txt.
pacer_say "meson install check"
build-aux/meson-install-check.sh
# The packages, built offline from vendored crates into target/package/, each checked as its
# tools check it and against its list of files (build-aux/packages/); the system test
# installs the .debs. They are built without the release profile's fat LTO here (the same
# files, in a fraction of the time on two processors: build-aux/package.sh).
export PACER_PACKAGE_FAST=1
build-aux/package-test.sh
build-aux/sysext-test.sh
build-aux/rpm-test.sh
build-aux/system-test.sh
build-aux/flatpak-test.sh

build-aux/fuzz.sh
# Under Xvfb, so that the GUI's unit tests can make widgets (the window tests start their own
# X server too); the cairo renderer, as everywhere under Xvfb.
GSK_RENDERER=cairo xvfb-run -a cargo test --locked --workspace --no-fail-fast

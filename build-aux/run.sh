#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what is missing, builds Pacer and runs it: the window where there is a display,
# otherwise `pacerctl status`. Arguments are passed on (for example --sysfs-root DIR).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh

pacer_install_packages "${PACER_BUILD_PACKAGES[@]}"
pacer_ensure_rust
cargo build --release --locked --workspace

# Without CPU frequency control (a VM, a container) there is nothing to show or change:
# run on the simulated laptop instead, and say so.
args=("$@")
if [ $# -eq 0 ] && ! ls /sys/devices/system/cpu/cpufreq/policy* >/dev/null 2>&1; then
  pacer_say "this machine has no CPU frequency control: running on a simulated laptop (intel-hybrid)"
  args=(--simulate intel-hybrid)
fi

if [ -n "${WAYLAND_DISPLAY:-}${DISPLAY:-}" ]; then
  exec target/release/pacer "${args[@]}"
fi
pacer_say "no display: showing the machine's state in the terminal instead of the window"
exec target/release/pacerctl status "${args[@]}"

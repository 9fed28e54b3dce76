#!/usr/bin/env bash
# Installs what is missing, builds Pacer and runs it: the window where there is a display,
# otherwise `pacerctl status`. Arguments are passed on (for example --sysfs-root DIR).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh

pacer_install_packages "${PACER_BUILD_PACKAGES[@]}"
pacer_ensure_rust
cargo build --release --locked --workspace

if [ -n "${WAYLAND_DISPLAY:-}${DISPLAY:-}" ]; then
  exec target/release/pacer "$@"
fi
pacer_say "no display: showing the machine's state in the terminal instead of the window"
exec target/release/pacerctl status "$@"

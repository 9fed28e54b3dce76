# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by run.sh and test.sh: installs what is missing, and nothing else.
# Sourced, not run.

# Debian/Ubuntu packages Pacer builds against.
# (glib-compile-schemas, from libglib2.0-bin, compiles the settings schema for a build tree;
# meson builds and installs everything, see docs/INSTALL.md.)
PACER_BUILD_PACKAGES=(build-essential pkg-config libgtk-4-dev libadwaita-1-dev libglib2.0-bin meson)
# What the test suite uses besides: a virtual display for the window, jq for the JSON checks,
# util-linux's setpriv to read as an unprivileged user, a D-Bus daemon, gdbus, and
# python-dbusmock (polkit, UPower and profile-daemon stand-ins), pyatspi (the window's
# accessibility tree) and prometheus-client (its OpenMetrics parser checks `pacerctl status
# --openmetrics`) for Debian's python3,
# xmllint and systemd-analyze for the helper's data files, xdotool and ImageMagick's import
# to drive the window and take its screenshots, desktop-file-validate for the desktop files,
# and a real StatusNotifierWatcher for the tray, and Xfce's panel (with xfconf, its settings
# store) as a real StatusNotifier host that draws the tray item, and KDE Plasma's as a second
# (plasma-workspace: plasmashell, its system tray and kded5, whose module is the watcher;
# plasma-desktop-data: the desktop shell and panel plasmashell loads, which plasma-workspace
# lacks; about 330 packages, 730 MB, most of them Qt, KDE Frameworks and their media
# libraries); for the meson install
# check, appstreamcli for the metainfo and polkitd's DTD, against which the helper's data
# tests check the polkit policy; flatpak-builder and python3-jsonschema for the Flatpak manifest; systemd-nspawn,
# debootstrap and zstd for the system test (build-aux/system-test.sh: a booted Debian 12);
# flatpak, bubblewrap and xdg-dbus-proxy for the Flatpak test (build-aux/flatpak-test.sh: the
# app in a real sandbox; it unpacks dunst, a notification server, for itself);
# gjs (gnome-shell needs only its library) for the extension's module tests and the state bus
# test; GNOME Shell (with gnome-extensions) and its AppIndicator extension for the shell
# tests, eslint for the extension's source and unzip to look into its zips.
# fonts-cantarell: GNOME 43's interface font, which its users have (gnome-core installs it);
# the shell lanes check that the power toggle's words fit in it.
PACER_TEST_PACKAGES=(xvfb xauth x11-utils dbus jq util-linux libglib2.0-bin python3-dbusmock python3-prometheus-client python3-pyatspi libxml2-utils systemd xdotool imagemagick desktop-file-utils haskell-status-notifier-item-utils xfce4-panel xfconf plasma-workspace plasma-desktop-data gettext appstream polkitd flatpak-builder python3-jsonschema systemd-container debootstrap zstd flatpak bubblewrap xdg-dbus-proxy gjs gnome-shell gnome-shell-extension-appindicator fonts-cantarell eslint unzip)
# The libraries Debian's power-profiles-daemon links against.
PACER_PPD_LIBRARIES=(libglib2.0-0 libgudev-1.0-0 libpolkit-gobject-1-0)
# Those of dunst, the notification server of the Flatpak test (unpacked, not installed: its
# package would make it the notification server of every session without one).
PACER_DUNST_LIBRARIES=(libcairo2 libgdk-pixbuf-2.0-0 libglib2.0-0 libnotify4 libpango-1.0-0 libpangocairo-1.0-0
  libwayland-client0 libwayland-cursor0 libx11-6 libxext6 libxinerama1 libxrandr2 libxss1)

pacer_say() { printf 'pacer: %s\n' "$*" >&2; }

# pacer_install_packages NAME... : installs the Debian packages that are not installed yet.
pacer_install_packages() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    pacer_say "not a Debian or Ubuntu system: install these yourself if missing:"
    pacer_say "  Fedora:  sudo dnf install gcc pkgconf-pkg-config gtk4-devel libadwaita-devel xorg-x11-server-Xvfb jq"
    pacer_say "  Arch:    sudo pacman -S --needed base-devel gtk4 libadwaita xorg-server-xvfb jq"
    pacer_say "  openSUSE: sudo zypper install gcc pkg-config gtk4-devel libadwaita-devel xvfb-run jq"
    return 0
  fi
  local missing=() package
  for package in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$package")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
  fi
  pacer_say "installing ${missing[*]}"
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# pacer_ensure_rust : finds cargo (rustup's, in ~/.cargo/bin) and checks it is new enough.
pacer_ensure_rust() {
  export PATH="$HOME/.cargo/bin:$PATH"
  if ! command -v cargo >/dev/null 2>&1; then
    pacer_say "Rust is missing: install it with rustup (https://rustup.rs), then run this again."
    pacer_say "(Debian's own cargo is too old for Pacer, which needs Rust 1.85 or newer.)"
    exit 1
  fi
  local version
  version=$(rustc --version | awk '{print $2}')
  if [ "$(printf '%s\n1.85.0\n' "$version" | sort -V | head -n 1)" != "1.85.0" ]; then
    pacer_say "Rust $version is too old: Pacer needs 1.85 or newer (rustup update)."
    exit 1
  fi
}

# pacer_unpack_package PACKAGE PROGRAM LIBRARY... : makes PROGRAM (a path inside the Debian
# package PACKAGE) available to the tests, and prints its path. Where the package is
# installed, the installed program; otherwise the package is downloaded and unpacked under
# target/test-deps/PACKAGE, with only its LIBRARY packages installed: installing the package
# itself would give this machine a service it did not ask for (see the callers).
pacer_unpack_package() {
  local package=$1 program=$2
  shift 2
  if [ -x "$program" ]; then
    printf '%s\n' "$program"
    return 0
  fi
  local dest="$PWD/target/test-deps/$package"
  if [ ! -x "$dest$program" ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
      pacer_say "$package is needed by the tests: install it from your distribution"
      return 1
    fi
    pacer_install_packages "$@" >&2
    local download
    download=$(mktemp -d)
    pacer_say "unpacking Debian's $package for the tests into $dest"
    if ! (cd "$download" && apt-get download -q "$package" >/dev/null 2>&1); then
      apt-get update -q >&2
      (cd "$download" && apt-get download -q "$package" >&2)
    fi
    mkdir -p "$dest"
    dpkg-deb -x "$download/${package}"_*.deb "$dest"
    rm -rf "$download"
  fi
  printf '%s\n' "$dest$program"
}

# pacer_cargo_cache NAME FILE : prints ~/.cache/pacer/NAME/KEY, a cargo target directory kept
# outside the checkout for builds of FILE (a Cargo.lock) with this toolchain, made if missing.
# KEY is the hash of the toolchain and of the lock's published crates (name, version, source
# and checksum): what the directory holds of use to another checkout. A change to Pacer's own
# crates (a dependency added between them, one renamed) keeps it. NAME's folders for other
# crates or toolchains go: nothing would use them.
pacer_cargo_cache() {
  pacer_cache_dir "$1" "$( (pacer_published_crates "$2"; rustc -vV) | sha256sum | cut -c1-16)"
}

# pacer_cache_dir NAME KEY : prints ~/.cache/pacer/NAME/KEY, made if missing: a folder kept
# outside the checkout (a fresh clone finds it) for what KEY, a hash of how its contents are
# made, names. NAME's folders for other keys go: nothing would use them. (--one-file-system:
# a folder of a Debian root may have something mounted on it by a run that was killed.)
pacer_cache_dir() {
  local root=${XDG_CACHE_HOME:-$HOME/.cache}/pacer/$1
  mkdir -p "$root/$2"
  find "$root" -mindepth 1 -maxdepth 1 ! -name "$2" -exec rm -rf --one-file-system {} +
  echo "$root/$2"
}

# pacer_debian_mirror : the Debian mirror apt uses here (or PACER_DEBIAN_MIRROR), for
# debootstrap.
pacer_debian_mirror() {
  local mirror=${PACER_DEBIAN_MIRROR:-$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2> /dev/null)}
  [ -n "$mirror" ] || mirror=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list 2> /dev/null)
  [ -n "$mirror" ] || { pacer_say "no Debian mirror in the apt sources: set PACER_DEBIAN_MIRROR"; return 1; }
  echo "$mirror"
}

# pacer_published_crates FILE : the crates of the Cargo.lock FILE that come from a registry or
# a git repository, one line each: name, version, source and checksum.
pacer_published_crates() {
  awk '/^\[\[package\]\]/ { if (source) print crate; crate = ""; source = 0 }
    /^(name|version|source|checksum) = / { crate = crate $0 " " }
    /^source = / { source = 1 }
    END { if (source) print crate }' "$1"
}

# pacer_shared_cargo_target NAME DIR : exports CARGO_TARGET_DIR, a cargo target directory
# kept outside the checkout for the builds of the cargo workspace in DIR (its Cargo.lock
# keys it: pacer_cargo_cache NAME), so that a fresh clone compiles only Pacer's crates, not
# the crates of Cargo.lock again. Pacer's crates, and the other crates at a path, are
# compiled again for each checkout (a crate's fingerprint holds its source's path): when
# another checkout used the directory last, its artifacts of them go first (a run again
# in the same checkout keeps its own). The directory stays locked, shared, until the calling
# script ends; those artifacts are cleared only when no other run holds it.
pacer_shared_cargo_target() {
  local workspace
  workspace=$(cd "$2" && pwd)
  CARGO_TARGET_DIR=$(pacer_cargo_cache "$1" "$2/Cargo.lock")
  export CARGO_TARGET_DIR
  exec {pacer_target_lock}> "$CARGO_TARGET_DIR/.pacer-lock"
  if flock --exclusive --nonblock "$pacer_target_lock" &&
    [ "$(cat "$CARGO_TARGET_DIR/.pacer-checkout" 2> /dev/null)" != "$workspace" ]; then
    local local_crates=()
    mapfile -t local_crates < <(cargo metadata --locked --format-version 1 \
      --manifest-path "$2/Cargo.toml" 2> /dev/null |
      jq -r '.packages[] | select(.source == null) | "--package=\(.name)"')
    if [ ${#local_crates[@]} -gt 0 ]; then
      cargo clean --quiet --manifest-path "$2/Cargo.toml" "${local_crates[@]}" 2> /dev/null || true
    fi
    printf '%s\n' "$workspace" > "$CARGO_TARGET_DIR/.pacer-checkout"
  fi
  flock --shared "$pacer_target_lock"
}

# pacer_link_cargo_target BUILD [TARGET] : the meson build directory BUILD's cargo target
# directory (src/meson.build gives cargo BUILD/target) becomes a link to TARGET, by default
# CARGO_TARGET_DIR (pacer_shared_cargo_target); with neither, it stays BUILD's own.
pacer_link_cargo_target() {
  local target=${2:-${CARGO_TARGET_DIR:-}}
  [ -n "$target" ] || return 0
  if [ "$(readlink "$1/target" 2> /dev/null)" != "$target" ]; then
    rm -rf "$1/target"
    ln -s "$target" "$1/target"
  fi
}

# pacer_unpack_ppd : Debian's power-profiles-daemon for the tests, as $PACER_PPD. Installing
# it would make it this machine's profile daemon (and apt would remove TLP or tuned, which
# conflict with it).
pacer_unpack_ppd() {
  PACER_PPD=$(pacer_unpack_package power-profiles-daemon /usr/libexec/power-profiles-daemon \
    "${PACER_PPD_LIBRARIES[@]}") || exit 1
  export PACER_PPD
}

# pacer_stage_development_build STAGE LOG : Pacer as a distribution installs it, for the
# lanes that run it as installed (system-test.sh, flatpak-test.sh): built in
# meson-install-check.sh's build directory with its options (a no-op compile when
# test.sh has just run that check; set up here when missing), installed with
# `meson install --destdir STAGE` into a fresh STAGE. Output goes to LOG.
pacer_stage_development_build() {
  local stage=$1 log=$2 build=target/meson-install-check/development
  export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-0}"
  if [ ! -f "$build/build.ninja" ]; then
    rm -rf "$build"
    meson setup --prefix=/usr -Dprofile=development -Dgui=true -Dhelper=true -Dsystemdsystemunitdir= \
      "$build" >> "$log" 2>&1 || return 1
  fi
  pacer_link_cargo_target "$build"
  meson compile -C "$build" >> "$log" 2>&1 || return 1
  rm -rf "$stage"
  meson install -C "$build" --no-rebuild --destdir "$stage" >> "$log" 2>&1
}

# pacer_elf_imports|pacer_elf_exports SYMBOL FILE : whether the ELF FILE takes SYMBOL (its
# version aside) from a library, or gives it, by its dynamic symbol table.
pacer_elf_imports() { pacer_elf_symbol "$@" '=='; }
pacer_elf_exports() { pacer_elf_symbol "$@" '!='; }
pacer_elf_symbol() {
  readelf --dyn-syms --wide "$2" 2> /dev/null | awk -v symbol="$1" -v undefined="$3" '
    { name = $8; sub(/@.*/, "", name) }
    name == symbol && (undefined == "==" ? $7 == "UND" : $7 != "UND") { found = 1 }
    END { exit !found }'
}

# Shared by run.sh and test.sh: installs what is missing, and nothing else.
# Sourced, not run.

# Debian/Ubuntu packages Pacer builds against.
# (glib-compile-schemas, from libglib2.0-bin, compiles the settings schema for a build tree;
# meson builds and installs everything, see README's "Installing".)
PACER_BUILD_PACKAGES=(build-essential pkg-config libgtk-4-dev libadwaita-1-dev libglib2.0-bin meson)
# What the test suite uses besides: a virtual display for the window, jq for the JSON checks,
# util-linux's setpriv to read as an unprivileged user, a D-Bus daemon, gdbus, and
# python-dbusmock (polkit, UPower and profile-daemon stand-ins) for Debian's python3,
# xmllint and systemd-analyze for the helper's data files, xdotool and ImageMagick's import
# to drive the window and take its screenshots, desktop-file-validate for the desktop files,
# and a real StatusNotifierWatcher for the tray; for the meson install check, appstreamcli
# for the metainfo and polkitd's ITS rules, with which gettext's msgfmt translates the polkit
# policy; flatpak-builder and python3-jsonschema for the Flatpak manifest; systemd-nspawn,
# debootstrap and zstd for the system test (build-aux/system-test.sh: a booted Debian 12);
# GNOME Shell (with gjs and gnome-extensions) and its AppIndicator extension for the shell
# tests, eslint for the extension's source and unzip to look into its zips.
PACER_TEST_PACKAGES=(xvfb xauth x11-utils dbus jq util-linux libglib2.0-bin python3-dbusmock libxml2-utils systemd xdotool imagemagick desktop-file-utils haskell-status-notifier-item-utils gettext appstream polkitd flatpak-builder python3-jsonschema systemd-container debootstrap zstd gnome-shell gnome-shell-extension-appindicator eslint unzip)
# The libraries Debian's power-profiles-daemon links against.
PACER_PPD_LIBRARIES=(libglib2.0-0 libgudev-1.0-0 libpolkit-gobject-1-0)

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

# pacer_unpack_ppd : makes Debian's power-profiles-daemon available to the tests as
# $PACER_PPD. Where the package is not installed, it is downloaded and unpacked under
# target/test-deps instead of installed: installing it would make it this machine's profile
# daemon (and apt would remove TLP or tuned, which conflict with it).
pacer_unpack_ppd() {
  if [ -x /usr/libexec/power-profiles-daemon ]; then
    export PACER_PPD=/usr/libexec/power-profiles-daemon
    return 0
  fi
  local dest="$PWD/target/test-deps/power-profiles-daemon"
  if [ ! -x "$dest/usr/libexec/power-profiles-daemon" ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
      pacer_say "power-profiles-daemon is needed by the tests: install it from your distribution"
      exit 1
    fi
    pacer_install_packages "${PACER_PPD_LIBRARIES[@]}"
    local download
    download=$(mktemp -d)
    pacer_say "unpacking Debian's power-profiles-daemon for the tests into $dest"
    if ! (cd "$download" && apt-get download -q power-profiles-daemon 2>/dev/null); then
      apt-get update -q
      (cd "$download" && apt-get download -q power-profiles-daemon)
    fi
    mkdir -p "$dest"
    dpkg-deb -x "$download"/power-profiles-daemon_*.deb "$dest"
    rm -rf "$download"
  fi
  export PACER_PPD="$dest/usr/libexec/power-profiles-daemon"
}

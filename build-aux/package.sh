#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds Pacer's packages into target/package/, from a source tree that builds offline: the
# project's files (tracked, or new and not ignored) and every crate of Cargo.lock vendored
# beside them (`cargo vendor`, the only step that needs crates.io), so that the package build
# itself never reaches the network, as a distribution's builders do not.
#
#   build-aux/package.sh deb      the Debian packages (dpkg-buildpackage, debian/)
#   build-aux/package.sh deb-13   the same, built in a Debian 13 root against its libraries,
#                                 into target/package/debian-13/
#   build-aux/package.sh sysext   the systemd system extension target/package/pacer.raw
#   build-aux/package.sh rpm      the RPM packages (rpmbuild -bb, pacer.spec)
#
# The vendored crates are put into the build tree, never into the repository.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source build-aux/common.sh

PACKAGE_DIR=$PWD/target/package
# What package builds keep between runs, for every checkout of the project on this machine.
PACKAGE_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/pacer/package
VERSION=$(sed -n "s/^  version: '\(.*\)',$/\1/p" meson.build)
[ -n "$VERSION" ] || { pacer_say "no version in meson.build"; exit 1; }

# pacer_project_files : the project's files (tracked, or new and not ignored) that exist,
# NUL-separated: what a package is built from.
pacer_project_files() {
  local file
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' file; do
      if [ -e "$file" ] || [ -L "$file" ]; then printf '%s\0' "$file"; fi
    done
}

# pacer_package_failed LOG WHAT : a build step failed: the end of its log, then what failed
# and where the whole log is; the build ends.
pacer_package_failed() {
  tail -n 30 "$1" >&2
  pacer_say "$2 failed (log: $1)"
  exit 1
}

# pacer_package_source DIR : DIR becomes Pacer's source tree, with the crates vendored in
# DIR/cargo-vendor and DIR/.cargo/config.toml telling cargo to use them and nothing else.
# The project's files are dated by their contents (pacer_package_date_by_content).
pacer_package_source() {
  local dir=$1
  rm -rf "$dir"
  mkdir -p "$dir"
  pacer_project_files | tar --null --files-from=- -cf - | tar -C "$dir" --touch -xf -
  pacer_package_date_by_content "$dir"
  cargo vendor --quiet --locked --versioned-dirs --manifest-path "$dir/Cargo.toml" \
    "$dir/cargo-vendor" > /dev/null
  mkdir -p "$dir/.cargo"
  # A relative directory in a cargo configuration is taken from the folder above .cargo/.
  cat > "$dir/.cargo/config.toml" << 'CONFIG'
[source.crates-io]
replace-with = "vendored-sources"

[source.vendored-sources]
directory = "cargo-vendor"

[net]
offline = true
CONFIG
}

# pacer_package_date_by_content DIR : gives each file of the source tree DIR the date it had
# in the last tree made with the same contents at the same path, and the date of now to the
# others, from the ledger PACKAGE_CACHE/source-dates.json. Cargo decides by date whether Pacer's
# own crates changed, and the build folder and cargo's target directory are shared by every
# kind and checkout (pacer_package_build_dir): dated by their clone, files could be taken for
# older than a build of another checkout's; dated now, every build compiled Pacer's crates
# again (over 3 minutes for each kind). The vendored crates keep their published dates, which
# do not change with their contents' version.
pacer_package_date_by_content() {
  [ "${PACER_PACKAGE_CACHE:-1}" != 0 ] || return 0
  python3 - "$1" "$PACKAGE_CACHE/source-dates.json" << 'PYTHON'
import hashlib, json, os, sys

tree, ledger_path = sys.argv[1:]
try:
    with open(ledger_path) as ledger_file:
        ledger = json.load(ledger_file)
except (OSError, ValueError):
    ledger = {}
dated = {}
for folder, _, names in os.walk(tree):
    for name in names:
        path = os.path.join(folder, name)
        if os.path.islink(path):
            continue
        with open(path, "rb") as source:
            digest = hashlib.sha256(source.read()).hexdigest()
        relative = os.path.relpath(path, tree)
        known = ledger.get(relative)
        if known and known[0] == digest:
            os.utime(path, ns=(known[1], known[1]))
            dated[relative] = known
        else:
            dated[relative] = [digest, os.stat(path).st_mtime_ns]
with open(ledger_path + ".new", "w") as ledger_file:
    json.dump(dated, ledger_file)
os.replace(ledger_path + ".new", ledger_path)
PYTHON
}

# pacer_package_build_dir : prints the folder where every kind of package makes its offline
# source tree, pacer-VERSION, and builds it: the same folder whichever kind or checkout asks,
# outside all checkouts (target/package/build with PACER_PACKAGE_CACHE=0). Cargo's kept
# target directory (below) is of use only to sources at the same path: a crate's fingerprint
# holds the path of its source files, the vendored crates' included, so a tree made in a
# folder of each clone, or of each kind, compiled every crate again.
pacer_package_build_dir() {
  if [ "${PACER_PACKAGE_CACHE:-1}" = 0 ]; then
    echo "$PACKAGE_DIR/build"
  else
    echo "$PACKAGE_CACHE/build"
  fi
}

# pacer_package_cargo_target : prints cargo's target directory for the package builds, kept
# outside the checkout between builds, so that the crates of Cargo.lock are compiled once for
# all three kinds and a build after a change compiles only Pacer's own crates. (What differs
# between the kinds' builds, the C flags of a build script's compiler, the packages built and
# so the crates' features, makes artifacts of their own beside the others'; symbols are
# stripped after the build, by each kind's tools.) A new Cargo.lock or toolchain starts a new
# one, and the others go. Prints nothing with PACER_PACKAGE_CACHE=0 (a build from nothing).
pacer_package_cargo_target() {
  [ "${PACER_PACKAGE_CACHE:-1}" != 0 ] || return 0
  pacer_cargo_cache package/cargo-target Cargo.lock
}

# pacer_package_stamp : what a kind's packages are made of: every file of the project, the
# toolchain, and the environment variables that change cargo's release profile.
pacer_package_stamp() {
  pacer_project_files | sort -z | xargs -0 -r sha256sum
  rustc -vV
  env | grep '^CARGO_PROFILE_RELEASE_' | sort || true
  # The Debian 13 root's path names its recipe (build-aux/shell-root.sh).
  [ -z "${DEB_13_ROOT:-}" ] || echo "$DEB_13_ROOT"
}

kind=${1:-}
case "$kind" in
  deb | deb-13 | sysext | rpm) ;;
  *)
    pacer_say "usage: build-aux/package.sh deb|deb-13|sysext|rpm"
    exit 2
    ;;
esac
pacer_ensure_rust
mkdir -p "$PACKAGE_DIR"
# Where deb-13 builds: the Debian 13 root of the shell-48 lane, laid out once and cached.
if [ "$kind" = deb-13 ]; then
  DEB_13_ROOT=$(build-aux/shell-root.sh 48) || { pacer_say "deb-13: no Debian 13 root"; exit 1; }
fi
# PACER_PACKAGE_FAST=1 (the test lanes): the release profile without its optimisation, fat
# LTO and single codegen unit, which take most of a build's time on few processors; the same
# files in the same places, larger and slower. Built incrementally too: each build's source tree
# is new (pacer_package_source), so cargo compiles Pacer's crates again every time, and
# rustc's incremental cache, kept in cargo's target directory (pacer_package_cargo_target),
# lets it reuse the code of every function whose source did not change.
if [ "${PACER_PACKAGE_FAST:-0}" = 1 ]; then
  export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    CARGO_PROFILE_RELEASE_INCREMENTAL=true CARGO_PROFILE_RELEASE_OPT_LEVEL=0
fi

# rpmbuild's %build sets PKG_CONFIG_PATH to the one it was given followed by its
# %{_libdir}/pkgconfig and %{_datadir}/pkgconfig, and cargo runs the build scripts that ask
# pkg-config for GTK's libraries again whenever PKG_CONFIG_PATH changes, and compiles again
# every crate above them. So the Debian and system-extension builds are given the path that
# rpmbuild makes of none (two more folders for pkg-config to look in), and rpmbuild none:
# the three kinds' builds share the crates compiled once.
if [ "$kind" = rpm ]; then
  unset PKG_CONFIG_PATH
else
  export PKG_CONFIG_PATH=:/usr/lib64/pkgconfig:/usr/share/pkgconfig
fi

# One package build at a time (two lanes, or two checkouts, may ask at once: they share the
# build folder): the second waits, then finds its packages up to date or builds them.
mkdir -p "$PACKAGE_CACHE"
exec {package_lock}> "$PACKAGE_CACHE/build.lock"
if ! flock --nonblock "$package_lock"; then
  pacer_say "waiting for the package build running beside this one"
  flock "$package_lock"
fi

# Nothing to do when the packages of the same files are there already (PACER_PACKAGE_FORCE=1
# builds anyway). KIND.stamp: the stamp, then the files the build made, one a line.
stamp_file=$PACKAGE_DIR/$kind.stamp
stamp=$(pacer_package_stamp | sha256sum | cut -d' ' -f1)
if [ "${PACER_PACKAGE_FORCE:-0}" != 1 ] && [ "$(head -n 1 "$stamp_file" 2> /dev/null)" = "$stamp" ] &&
  tail -n +2 "$stamp_file" | (cd "$PACKAGE_DIR" && xargs -r -d '\n' ls > /dev/null 2>&1); then
  pacer_say "the $kind packages in $PACKAGE_DIR are up to date"
  exit 0
fi
rm -f "$stamp_file"
# Each kind starts from an empty build folder (what an earlier build left there is of no use).
PACKAGE_BUILD_DIR=$(pacer_package_build_dir)
rm -rf "$PACKAGE_BUILD_DIR"
mkdir -p "$PACKAGE_BUILD_DIR"
# Each kind's script builds in PACKAGE_BUILD_DIR, puts its packages into PACKAGE_DIR and
# names them in PACKAGE_OUTPUTS.
PACKAGE_OUTPUTS=()
source "build-aux/package-${kind%-13}.sh"
printf '%s\n' "$stamp" "${PACKAGE_OUTPUTS[@]}" > "$stamp_file"

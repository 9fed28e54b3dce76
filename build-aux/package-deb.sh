# SPDX-License-Identifier: GPL-3.0-or-later
# The Debian packages: pacer, pacer-helper and gnome-shell-extension-pacer, built by
# dpkg-buildpackage from debian/ in an offline copy of the project, into target/package/
# (the .debs, .buildinfo and .changes). Sourced by build-aux/package.sh, which sets kind,
# PACKAGE_DIR, PACKAGE_BUILD_DIR, VERSION (and DEB_13_ROOT for deb-13) and has made
# pacer_package_source and cargo available.
#
# kind deb builds them here, against this machine's release (Debian 12: GTK 4.8, GNOME Shell
# 43). kind deb-13 builds them in the Debian 13 root that build-aux/shell-root.sh 48 lays out,
# with debian/control's Build-Depends installed over it (build-aux/root-build.sh), into
# target/package/debian-13/: what Debian 13's builders make of the same source, the window
# with GNOME 48's widgets (meson picks them over GTK 4.18) and the extension as ES modules.
#
# build-aux/package.sh skips the build when target/package/ holds the packages of the same
# files already. Cargo's target directory is kept between builds (pacer_package_cargo_target in
# build-aux/package.sh; for deb-13, deb-13-target in the cache): a later build recompiles only
# what changed (the release profile's fat LTO makes a first build long). Output of the build:
# deb-build.log beside the packages.

deb_out=$PACKAGE_DIR
deb_root=
if [ "$kind" = deb-13 ]; then
  source build-aux/root-build.sh
  deb_out=$PACKAGE_DIR/debian-13
  deb_root=$DEB_13_ROOT
fi
mkdir -p "$deb_out"
deb_log=$deb_out/deb-build.log
deb_version=$(dpkg-parsechangelog -l debian/changelog -S Version)
deb_arch=$(dpkg --print-architecture)
deb_files=("pacer_${deb_version}_$deb_arch.deb" "pacer-helper_${deb_version}_$deb_arch.deb"
  "gnome-shell-extension-pacer_${deb_version}_all.deb")
[ "$deb_version" = "$VERSION-${deb_version##*-}" ] || {
  pacer_say "debian/changelog's version $deb_version is not meson.build's $VERSION"
  exit 1
}

# What debian/control's Build-Depends names (debhelper-compat is debhelper's) and the
# programs that run the build (dpkg-buildpackage: dpkg-dev; in a root, build-essential, as
# on Debian's builders); here, lintian for the checks.
mapfile -t build_depends < <(
  sed -n '/^Build-Depends:/,/^[A-Z][A-Za-z-]*:/{/^ /p}' debian/control |
    sed -e 's/([^)]*)//g' -e 's/<[^>]*>//g' -e 's/[ ,]//g' -e 's/^debhelper-compat$/debhelper/' |
    sed '/^$/d'
)
if [ -z "$deb_root" ]; then
  pacer_install_packages dpkg-dev lintian "${build_depends[@]}"
else
  deb_layer=$(pacer_root_layer deb-13-dev "$deb_root" build-essential "${build_depends[@]}")
fi

# The source tree, vendored, in the build folder (pacer_package_build_dir): dpkg-buildpackage
# writes the packages into the folder above it.
deb_build=$PACKAGE_BUILD_DIR
deb_source=$deb_build/pacer-$VERSION
start=$(date +%s)
pacer_say "making the offline source tree $deb_source"
pacer_package_source "$deb_source"

# Cargo's kept target directory (debian/rules links it in; none with PACER_PACKAGE_CACHE=0).
PACER_CARGO_TARGET_DIR=$(pacer_package_cargo_target)
export PACER_CARGO_TARGET_DIR

# debhelper gives the build a HOME of its own: rustup's cargo finds its toolchain through
# RUSTUP_HOME and CARGO_HOME then.
export RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup} CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}

pacer_say "building the Debian packages of $kind (dpkg-buildpackage; log: $deb_log)"
if [ -z "$deb_root" ]; then
  (cd "$deb_source" && dpkg-buildpackage -us -uc -b) > "$deb_log" 2>&1
else
  # In the root, with the release profile's settings of this build (PACER_PACKAGE_FAST), its
  # own kept target directory, and the build folder writable.
  deb_target=$(pacer_root_target deb-13-target "$deb_layer")
  deb_kept=$deb_target
  [ -n "$PACER_CARGO_TARGET_DIR" ] || deb_kept=
  mapfile -t deb_profile < <(env | grep '^CARGO_PROFILE_RELEASE_' || true)
  # shellcheck disable=SC2016 # expanded by pacer_root_run's sh
  PACER_ROOT_WRITABLE=$deb_build pacer_root_run "$deb_root" "$deb_layer" "$deb_target" '
    source=$1; shift
    in_root env "$@" sh -c "cd \"\$0\" && exec dpkg-buildpackage -us -uc -b" "$source"
  ' "$deb_source" "PACER_CARGO_TARGET_DIR=$deb_kept" "${deb_profile[@]}" \
    > "$deb_log" 2>&1
fi || pacer_package_failed "$deb_log" "dpkg-buildpackage ($kind)"

rm -f "$deb_out"/*.deb "$deb_out"/pacer_*.buildinfo "$deb_out"/pacer_*.changes
mv "$deb_build"/*.deb "$deb_build"/pacer_*.buildinfo "$deb_build"/pacer_*.changes "$deb_out/"
for file in "${deb_files[@]}"; do
  [ -f "$deb_out/$file" ] || { pacer_say "dpkg-buildpackage made no $file"; exit 1; }
done
PACKAGE_OUTPUTS=("${deb_files[@]}" "pacer_${deb_version}_$deb_arch.changes")
[ -z "$deb_root" ] || PACKAGE_OUTPUTS=("${PACKAGE_OUTPUTS[@]/#/debian-13/}")
pacer_say "built in $(($(date +%s) - start)) s: ${deb_files[*]} in $deb_out"

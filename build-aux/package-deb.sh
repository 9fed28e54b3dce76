# SPDX-License-Identifier: GPL-3.0-or-later
# The Debian packages: pacer, pacer-helper and gnome-shell-extension-pacer, built by
# dpkg-buildpackage from debian/ in an offline copy of the project, into target/package/
# (the .debs, .buildinfo and .changes). Sourced by build-aux/package.sh, which sets
# PACKAGE_DIR, PACKAGE_BUILD_DIR and VERSION and has made pacer_package_source and cargo
# available.
#
# build-aux/package.sh skips the build when target/package/ holds the packages of the same
# files already. Cargo's target directory is kept between builds (pacer_package_cargo_target in
# build-aux/package.sh): a later build recompiles only what changed (the release profile's fat
# LTO makes a first build long). Output of the build: target/package/deb-build.log.

deb_log=$PACKAGE_DIR/deb-build.log
deb_version=$(dpkg-parsechangelog -l debian/changelog -S Version)
deb_arch=$(dpkg --print-architecture)
deb_files=("pacer_${deb_version}_$deb_arch.deb" "pacer-helper_${deb_version}_$deb_arch.deb"
  "gnome-shell-extension-pacer_${deb_version}_all.deb")
[ "$deb_version" = "$VERSION-${deb_version##*-}" ] || {
  pacer_say "debian/changelog's version $deb_version is not meson.build's $VERSION"
  exit 1
}

# What debian/control's Build-Depends names (debhelper-compat is debhelper's), the
# programs that run the build (dpkg-buildpackage: dpkg-dev), and lintian for the checks.
mapfile -t build_depends < <(
  sed -n '/^Build-Depends:/,/^[A-Z][A-Za-z-]*:/{/^ /p}' debian/control |
    sed -e 's/([^)]*)//g' -e 's/<[^>]*>//g' -e 's/[ ,]//g' -e 's/^debhelper-compat$/debhelper/' |
    sed '/^$/d'
)
pacer_install_packages dpkg-dev lintian "${build_depends[@]}"

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

pacer_say "building the Debian packages (dpkg-buildpackage; log: $deb_log)"
(cd "$deb_source" && dpkg-buildpackage -us -uc -b) > "$deb_log" 2>&1 ||
  pacer_package_failed "$deb_log" dpkg-buildpackage

rm -f "$PACKAGE_DIR"/*.deb "$PACKAGE_DIR"/pacer_*.buildinfo "$PACKAGE_DIR"/pacer_*.changes
mv "$deb_build"/*.deb "$deb_build"/pacer_*.buildinfo "$deb_build"/pacer_*.changes "$PACKAGE_DIR/"
for file in "${deb_files[@]}"; do
  [ -f "$PACKAGE_DIR/$file" ] || { pacer_say "dpkg-buildpackage made no $file"; exit 1; }
done
PACKAGE_OUTPUTS=("${deb_files[@]}" "pacer_${deb_version}_$deb_arch.changes")
pacer_say "built in $(($(date +%s) - start)) s: ${deb_files[*]} in $PACKAGE_DIR"

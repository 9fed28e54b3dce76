# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the RPM packages of pacer.spec into target/package/: pacer, pacer-helper and
# gnome-shell-extension-pacer. Sourced by build-aux/package.sh (`build-aux/package.sh rpm`),
# which gives PACKAGE_DIR, PACKAGE_BUILD_DIR and VERSION.
#
# Source0 is the offline source tree (the project's files, every crate vendored, cargo told to
# use them alone) as pacer-VERSION.tar.gz; rpmbuild takes it from target/package/rpm/rpmbuild
# and builds it in the build folder every kind shares (pacer_package_build_dir), with --nodeps,
# since the BuildRequires name Fedora's packages, not this machine's (here Debian's, installed
# below).
# The whole workspace is built in release, the window included.
#
# Cargo's target directory is kept between builds (pacer_package_cargo_target in
# build-aux/package.sh), through pacer.spec's pacer_cargo_target hook, which distribution
# builds leave unset. PACER_PACKAGE_FAST=1 (build-aux/package.sh) builds without the release
# profile's optimisation, fat LTO and single codegen unit, for tests that check the packaging,
# not the programs.

RPM_WORK=$PACKAGE_DIR/rpm
RPM_TOP=$RPM_WORK/rpmbuild
RPM_LOG=$RPM_WORK/rpmbuild.log

# What the spec's BuildRequires are on Debian, with rpmbuild itself; the checks of %check.
pacer_install_packages rpm "${PACER_BUILD_PACKAGES[@]}" gettext python3 help2man \
  desktop-file-utils appstream libxml2-utils

spec_version=$(sed -n 's/^Version:[[:space:]]*//p' pacer.spec)
if [ "$spec_version" != "$VERSION" ]; then
  pacer_say "rpm: pacer.spec says Version: $spec_version, meson.build $VERSION"
  exit 1
fi

rm -rf "$RPM_WORK"
mkdir -p "$RPM_TOP"/{SOURCES,SPECS,BUILD,BUILDROOT}
rm -f "$PACKAGE_DIR"/*.rpm
rpm_started=$(date +%s)

pacer_say "rpm: making Source0 (the offline source tree)"
pacer_package_source "$RPM_WORK/pacer-$VERSION"
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2> /dev/null || date +%s)}
# The files keep their dates in the tarball (pacer_package_source says why).
tar -C "$RPM_WORK" --sort=name --owner=0 --group=0 --numeric-owner \
  -cf - "pacer-$VERSION" | gzip -n -6 > "$RPM_TOP/SOURCES/pacer-$VERSION.tar.gz"
rm -rf "${RPM_WORK:?}/pacer-$VERSION"
cp pacer.spec "$RPM_TOP/SPECS/pacer.spec"

# Built as Fedora builds them: brp-compress run by bash (it uses `read -d`, which Debian's
# /bin/sh, dash, refuses: the manual pages stayed uncompressed), the payload compressed with
# zstd (level 19), and the packages side by side in target/package.
rpm_defines=(
  --define "_topdir $RPM_TOP"
  --define "_rpmdir $PACKAGE_DIR"
  --define "_build_name_fmt %%{NAME}-%%{VERSION}-%%{RELEASE}.%%{ARCH}.rpm"
  --define "__brp_compress /bin/bash %{_rpmconfigdir}/brp-compress %{?_prefix}"
  --define "_binary_payload w19.zstdio"
)
# Unpacked and built in the build folder (pacer_package_build_dir), at the path where cargo's
# kept target directory is of use.
rpm_defines+=(--define "_builddir $PACKAGE_BUILD_DIR")
cache=$(pacer_package_cargo_target)
if [ -n "$cache" ]; then
  rpm_defines+=(--define "pacer_cargo_target $cache")
fi

pacer_say "rpm: rpmbuild -bb (log: $RPM_LOG)"
rpmbuild -bb --nodeps "${rpm_defines[@]}" "$RPM_TOP/SPECS/pacer.spec" > "$RPM_LOG" 2>&1 ||
  pacer_package_failed "$RPM_LOG" "rpm: rpmbuild"
for rpm_file in "$PACKAGE_DIR"/*.rpm; do
  pacer_say "rpm: $rpm_file ($(du -h --apparent-size "$rpm_file" | cut -f1))"
  PACKAGE_OUTPUTS+=("$(basename "$rpm_file")")
done
pacer_say "rpm: built in $(($(date +%s) - rpm_started)) s"

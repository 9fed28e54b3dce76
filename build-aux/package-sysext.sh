# SPDX-License-Identifier: GPL-3.0-or-later
# Builds target/package/pacer.raw: a systemd system extension (systemd-sysext(8)) that adds
# Pacer's privileged part to an immutable system (Fedora Silverblue and Kinoite, Bazzite,
# SteamOS) without layering a package: pacer-helper with its systemd units, D-Bus
# policy and activation file, polkit actions and interface, and pacerctl, all under /usr,
# where systemd, the bus and polkitd read them once the image is merged over /usr. Sourced by
# build-aux/package.sh (`build-aux/package.sh sysext`), which gives PACKAGE_DIR,
# PACKAGE_BUILD_DIR and VERSION.
#
# The window is not in it: on these systems it comes from Flathub, sandboxed, and talks to
# this helper over the system bus. It could not come this way anyway: an extension has no
# /etc (its autostart entry), the host's GTK and libadwaita are not this build's, and its
# settings schema and icons need the host's caches rebuilt, which nothing does on a merge.
#
# Built with meson (-Dgui=false -Dshell-extension=false) from the offline source tree, in
# release, installed into a DESTDIR and checked to hold nothing outside /usr. Cargo's target
# directory is kept between builds (pacer_package_cargo_target in build-aux/package.sh), so a
# rebuild after a change compiles only Pacer's own crates; PACER_PACKAGE_FAST=1 leaves out the
# release profile's optimisation, fat LTO and single codegen unit (for tests of the image,
# not of the programs). Installed on a machine with:
#
#   sudo install -Dm644 pacer.raw /var/lib/extensions/pacer.raw
#   sudo systemctl enable systemd-sysext.service    # merges it at every boot
#   sudo systemd-sysext refresh                     # or reboot
#   sudo systemctl daemon-reload                    # (systemd before 255 only)
#   sudo systemctl reload dbus; sudo systemctl restart polkit
#
# (At boot the merge comes before the bus and polkitd start; the last line is for a merge
# made while they run, since either may have read its directories under /usr before it.)
#
# build-aux/sysext-test.sh merges it on a scratch root and bus-activates the helper from it.

SYSEXT_WORK=$PACKAGE_DIR/sysext
SYSEXT_IMAGE=$PACKAGE_DIR/pacer.raw
SYSEXT_LOG=$SYSEXT_WORK/build.log

pacer_install_packages squashfs-tools meson pkg-config gettext libxml2-utils

# systemd's name (ConditionArchitecture=) for the architecture cargo builds for here.
pacer_sysext_architecture() {
  case "$(rustc -vV | sed -n 's/^host: \([^-]*\)-.*/\1/p')" in
    x86_64) echo x86-64 ;;
    i686 | i586) echo x86 ;;
    aarch64) echo arm64 ;;
    armv7 | arm) echo arm ;;
    riscv64gc | riscv64) echo riscv64 ;;
    powerpc64le) echo ppc64-le ;;
    s390x) echo s390x ;;
    loongarch64) echo loongarch64 ;;
    *) echo _any ;;
  esac
}

rm -rf "$SYSEXT_WORK"
mkdir -p "$SYSEXT_WORK"
: > "$SYSEXT_LOG"
sysext_started=$(date +%s)

# The source tree and meson's build directory in the build folder of every kind, at the path
# the other kinds build from (pacer_package_cargo_target).
sysext_source=$PACKAGE_BUILD_DIR/pacer-$VERSION
pacer_say "sysext: making the offline source tree"
pacer_package_source "$sysext_source"

# The build directory is inside the source tree: cargo finds its configuration (the vendored
# crates, offline) by looking up from the directory it runs in, which meson makes the build
# directory. An empty CARGO_HOME shows that nothing comes from ~/.cargo's registry either.
build=$sysext_source/_build
export CARGO_HOME=$SYSEXT_WORK/cargo-home
pacer_say "sysext: building pacer-helper and pacerctl in release (log: $SYSEXT_LOG)"
meson setup "$build" "$sysext_source" \
  --prefix=/usr --libexecdir=libexec --buildtype=plain \
  -Dprofile=default -Dgui=false -Dhelper=true -Dshell-extension=false \
  -Dsystemdsystemunitdir=/usr/lib/systemd/system >> "$SYSEXT_LOG" 2>&1 ||
  pacer_package_failed "$SYSEXT_LOG" "sysext: meson setup"
# src/meson.build builds in BUILD/target: there, a link to the kept one.
pacer_link_cargo_target "$build" "$(pacer_package_cargo_target)"
meson compile -C "$build" >> "$SYSEXT_LOG" 2>&1 ||
  pacer_package_failed "$SYSEXT_LOG" "sysext: meson compile"
sysext_built=$(date +%s)

destdir=$SYSEXT_WORK/destdir
meson install -C "$build" --no-rebuild --destdir "$destdir" >> "$SYSEXT_LOG" 2>&1 ||
  pacer_package_failed "$SYSEXT_LOG" "sysext: meson install"
# An extension has no debug package to split into: the programs' symbols go, after the build
# (as dh_strip and rpmbuild strip theirs), so that the build is the other kinds' own.
for program in "$destdir/usr/bin/pacerctl" "$destdir/usr/libexec/pacer-helper"; do
  strip --strip-all "$program" >> "$SYSEXT_LOG" 2>&1 ||
    pacer_package_failed "$SYSEXT_LOG" "sysext: strip $program"
done

# Only /usr is merged (and /opt, unused): anything else would silently be missing.
outside=$(cd "$destdir" && find . -mindepth 1 -maxdepth 1 ! -name usr)
if [ -n "$outside" ]; then
  pacer_say "sysext: meson installed outside /usr, which an extension cannot carry: $outside"
  exit 1
fi
tree=$SYSEXT_WORK/tree
mkdir -p "$tree"
cp -a "$destdir/usr" "$tree/usr"

# What systemd-sysext checks before merging: ID=_any merges on any distribution (the
# programs need only glibc and libgcc_s), so SYSEXT_LEVEL and VERSION_ID are not compared;
# ARCHITECTURE= keeps it off a machine the binaries cannot run on; SYSEXT_SCOPE=system
# (not initrd or portable); EXTENSION_RELOAD_MANAGER=1 has systemd 255 and later reload the
# service manager after a merge, so that pacer-helper.service is known at once.
install -d -m 755 "$tree/usr/lib/extension-release.d"
cat > "$tree/usr/lib/extension-release.d/extension-release.pacer" << RELEASE
ID=_any
ARCHITECTURE=$(pacer_sysext_architecture)
SYSEXT_SCOPE=system
EXTENSION_RELOAD_MANAGER=1
SYSEXT_ID=pacer
SYSEXT_VERSION_ID=$VERSION
RELEASE
chmod 644 "$tree/usr/lib/extension-release.d/extension-release.pacer"

# Reproducible: files owned by root, every time that of the last commit, no extended
# attributes of this machine. (mksquashfs 4.5 refuses -all-time with SOURCE_DATE_EPOCH set.)
image_time=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2> /dev/null || date +%s)}
rm -f "$SYSEXT_IMAGE"
env -u SOURCE_DATE_EPOCH mksquashfs "$tree" "$SYSEXT_IMAGE" -noappend -all-root -no-xattrs -comp xz \
  -all-time "$image_time" -mkfs-time "$image_time" -quiet >> "$SYSEXT_LOG" 2>&1 ||
  pacer_package_failed "$SYSEXT_LOG" "sysext: mksquashfs"
chmod 644 "$SYSEXT_IMAGE"
PACKAGE_OUTPUTS=("$(basename "$SYSEXT_IMAGE")")
pacer_say "sysext: $SYSEXT_IMAGE ($(du -h --apparent-size "$SYSEXT_IMAGE" | cut -f1);" \
  "built in $((sysext_built - sysext_started)) s, $(($(date +%s) - sysext_started)) s in all)"

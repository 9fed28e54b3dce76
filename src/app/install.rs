// SPDX-License-Identifier: GPL-3.0-or-later
//! How this Pacer was installed, and so how its missing helper is to be installed: the
//! first thing a new user reads on the banner when the helper is not there.

use std::path::Path;

use pacer_core::i18n::{fill, gettext};

/// The file Flatpak puts at the root of every sandbox (flatpak-metadata(5)).
pub const FLATPAK_INFO: &str = "/.flatpak-info";

/// Where the system bus and polkit read what a helper needs (`README.md`, "Installing"),
/// and the prefix under it they do not read.
const SYSTEM_PREFIX: &str = "/usr";
const LOCAL_PREFIX: &str = "/usr/local";

/// How this Pacer came to be on the machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallKind {
    /// In a Flatpak sandbox: the helper goes on the host.
    Flatpak,
    /// Run from cargo's or meson's build directory.
    BuildTree,
    /// Installed with meson under a prefix the system bus does not read (`/usr/local`).
    OtherPrefix(String),
    /// Installed under `/usr`: a package, or meson with `--prefix=/usr`.
    System,
}

impl InstallKind {
    /// This process's: from the sandbox's marker, where its program lies and where it was
    /// built to put its helper.
    pub fn of_this_process() -> InstallKind {
        let exe = std::env::current_exe().unwrap_or_default();
        InstallKind::of(
            Path::new(FLATPAK_INFO).exists(),
            &exe,
            Path::new(crate::app::config::LIBEXECDIR),
        )
    }

    pub fn of(sandboxed: bool, exe: &Path, libexecdir: &Path) -> InstallKind {
        // cargo's profile directory (`target/debug/pacer`, beside its `.fingerprint`), or
        // meson's build directory (`build/src/pacer`).
        let in_cargo_profile = exe
            .parent()
            .is_some_and(|dir| dir.join(".fingerprint").is_dir());
        let in_meson_build = exe
            .ancestors()
            .skip(1)
            .take(2)
            .any(|dir| dir.join("meson-private").is_dir());
        let off_the_bus_path =
            !libexecdir.starts_with(SYSTEM_PREFIX) || libexecdir.starts_with(LOCAL_PREFIX);
        if sandboxed {
            InstallKind::Flatpak
        } else if in_cargo_profile || in_meson_build {
            InstallKind::BuildTree
        } else if off_the_bus_path {
            let prefix = libexecdir.parent().unwrap_or(libexecdir);
            InstallKind::OtherPrefix(prefix.display().to_string())
        } else {
            InstallKind::System
        }
    }

    /// The banner's line when the system bus has no helper: that it is read-only, and the
    /// one step that installs the helper for this kind of install.
    pub fn missing_helper(&self) -> String {
        match self {
            InstallKind::Flatpak => gettext("Read-only: pacer-helper is not installed on this computer, so settings cannot be changed. A Flatpak cannot bring it: install pacer-helper on the computer itself (see “The Flatpak and the host helper” in the README) to change them."),
            InstallKind::BuildTree => gettext("Read-only: pacer-helper is not installed, so settings cannot be changed. This Pacer runs from its build directory: install it with its helper by “meson setup build --prefix=/usr” and “sudo meson install -C build” (see “Installing” in the README)."),
            InstallKind::OtherPrefix(prefix) => fill(
                gettext("Read-only: pacer-helper is not installed where the system bus looks, so settings cannot be changed. Pacer was installed under {prefix}; install it again with “meson setup build --prefix=/usr” (see “Installing” in the README)."),
                &[("prefix", prefix)],
            ),
            InstallKind::System => gettext("Read-only: pacer-helper is not installed, so settings cannot be changed. Install the pacer-helper package, or Pacer with its helper (see “Installing” in the README), to change them."),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn each_kind_of_install_is_told_its_own_step() {
        let build = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(build.path().join("debug/.fingerprint")).unwrap();
        let in_tree = build.path().join("debug/pacer");
        let installed = Path::new("/usr/bin/pacer");
        let usr = Path::new("/usr/libexec");
        assert_eq!(InstallKind::of(true, installed, usr), InstallKind::Flatpak);
        assert_eq!(
            InstallKind::of(false, &in_tree, usr),
            InstallKind::BuildTree
        );
        assert_eq!(InstallKind::of(false, installed, usr), InstallKind::System);
        let meson = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(meson.path().join("meson-private")).unwrap();
        let meson_built = meson.path().join("src/pacer");
        assert_eq!(
            InstallKind::of(false, &meson_built, usr),
            InstallKind::BuildTree
        );
        let local = InstallKind::of(
            false,
            Path::new("/usr/local/bin/pacer"),
            Path::new("/usr/local/libexec"),
        );
        assert_eq!(local, InstallKind::OtherPrefix("/usr/local".into()));
        // One line each, each naming its own step.
        let words = [
            (InstallKind::Flatpak, "on the computer itself"),
            (InstallKind::BuildTree, "sudo meson install -C build"),
            (local, "installed under /usr/local"),
            (InstallKind::System, "the pacer-helper package"),
        ];
        for (kind, step) in words {
            let line = kind.missing_helper();
            assert!(
                line.starts_with("Read-only: ") && line.contains(step),
                "{kind:?}: {line}"
            );
            assert!(!line.contains('\n'));
        }
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! How this Pacer was installed, and so how its missing helper is to be installed (the
//! first thing a new user reads on the banner when the helper is not there, in the words of
//! `words::helper`).

use std::path::Path;

/// The file Flatpak puts at the root of every sandbox (flatpak-metadata(5)).
pub const FLATPAK_INFO: &str = "/.flatpak-info";

/// Where the system bus and polkit read what a helper needs (`docs/INSTALL.md`),
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
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn each_kind_of_install_is_told_apart() {
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
    }
}

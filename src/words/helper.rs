// SPDX-License-Identifier: GPL-3.0-or-later
//! Why the window is read-only, in the banner's words: the system bus out of reach, the
//! helper not installed (and the one step that installs it for this kind of install), or
//! the simulated machine's own helper not started. A library's own message goes in
//! parentheses, as it gave it.

use pacer_core::i18n::{fill, gettext};

use crate::app::install::InstallKind;
use crate::data::helper::{HelperMissing, OwnHelperError};

/// The banner's line for a window with no helper.
pub fn read_only(why: &HelperMissing) -> String {
    match why {
        HelperMissing::SystemBus(error) => fill(
            gettext("Read-only: the system bus cannot be reached ({error}), so settings cannot be changed."),
            &[("error", error)],
        ),
        HelperMissing::NotInstalled(install) => missing_helper(install),
        HelperMissing::OwnNotStarted(error) => {
            let error = match error {
                OwnHelperError::NotFound => gettext("pacer-helper not found"),
                OwnHelperError::NameNeverAppeared => {
                    gettext("its name did not appear on the session bus")
                }
                OwnHelperError::Bus(error) => error.to_string(),
                OwnHelperError::StateFolder(error) | OwnHelperError::Spawn(error) => {
                    error.to_string()
                }
            };
            fill(
                gettext("Read-only: the simulated machine's helper could not start ({error})."),
                &[("error", &error)],
            )
        }
    }
}

/// The banner's line when the system bus has no helper: that it is read-only, and the
/// one step that installs the helper for this kind of install.
fn missing_helper(install: &InstallKind) -> String {
    match install {
        InstallKind::Flatpak => gettext("Read-only: pacer-helper is not installed on this computer, so settings cannot be changed. A Flatpak cannot bring it: install pacer-helper on the computer itself (see “The Flatpak and the host helper” in the README) to change them."),
        InstallKind::BuildTree => gettext("Read-only: pacer-helper is not installed, so settings cannot be changed. This Pacer runs from its build directory: install it with its helper by “meson setup build --prefix=/usr” and “sudo meson install -C build” (see “Installing” in the README)."),
        InstallKind::OtherPrefix(prefix) => fill(
            gettext("Read-only: pacer-helper is not installed where the system bus looks, so settings cannot be changed. Pacer was installed under {prefix}; install it again with “meson setup build --prefix=/usr” (see “Installing” in the README)."),
            &[("prefix", prefix)],
        ),
        InstallKind::System => gettext("Read-only: pacer-helper is not installed, so settings cannot be changed. Install the pacer-helper package, or Pacer with its helper (see “Installing” in the README), to change them."),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn each_kind_of_install_is_told_its_own_step() {
        let local = InstallKind::OtherPrefix("/usr/local".into());
        // One line each, each naming its own step.
        let words = [
            (InstallKind::Flatpak, "on the computer itself"),
            (InstallKind::BuildTree, "sudo meson install -C build"),
            (local, "installed under /usr/local"),
            (InstallKind::System, "the pacer-helper package"),
        ];
        for (kind, step) in words {
            let line = missing_helper(&kind);
            assert!(
                line.starts_with("Read-only: ") && line.contains(step),
                "{kind:?}: {line}"
            );
            assert!(!line.contains('\n'));
        }
    }
}

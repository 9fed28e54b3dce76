// SPDX-License-Identifier: GPL-3.0-or-later
//! Why the window is read-only, in the banner's words: one line (the system bus out of
//! reach, the helper not installed, or the simulated machine's own helper not started),
//! and in its details what lies behind it: the steps that install the helper for this kind
//! of install, with their commands, or a library's own message as it gave it.

use pacer_core::i18n::{fill, gettext};

use crate::app::install::InstallKind;
use crate::data::helper::{HelperMissing, OwnHelperError};
use crate::words::banner::{Details, NoticeWords};

/// The commands that build and install Pacer with its helper under `/usr` (docs/INSTALL.md,
/// "From source").
const INSTALL_COMMAND: &str = "meson setup build --prefix=/usr && sudo meson install -C build";

/// The banner's notice for a window with no helper.
pub fn read_only(why: &HelperMissing) -> NoticeWords {
    match why {
        HelperMissing::SystemBus(error) => NoticeWords {
            title: gettext("Settings are read-only: the system bus cannot be reached"),
            details: Details {
                explanation: fill(
                    gettext("Pacer changes settings through its helper on the system bus, which did not answer ({error})."),
                    &[("error", error)],
                ),
                ..Details::default()
            },
        },
        HelperMissing::NotInstalled(install) => NoticeWords {
            title: gettext("Settings are read-only: Pacer's helper is not installed"),
            details: missing_helper(install),
        },
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
            NoticeWords {
                title: gettext("Settings are read-only: the simulated machine's helper did not start"),
                details: Details {
                    explanation: fill(
                        gettext("A simulated machine is changed through a helper of Pacer's own, which did not start ({error})."),
                        &[("error", &error)],
                    ),
                    ..Details::default()
                },
            }
        }
    }
}

/// What installs the helper when the system bus has none, for this kind of install.
fn missing_helper(install: &InstallKind) -> Details {
    let (explanation, command) = match install {
        InstallKind::Flatpak => (
            gettext("A Flatpak cannot bring pacer-helper: install it on the computer itself (see “The Flatpak and the host helper” in docs/INSTALL.md) to change settings."),
            None,
        ),
        InstallKind::BuildTree => (
            gettext("This Pacer runs from its build directory: install it with its helper (see docs/INSTALL.md), then start it again."),
            Some(INSTALL_COMMAND),
        ),
        InstallKind::OtherPrefix(prefix) => (
            fill(
                gettext("Pacer was installed under {prefix}, where the system bus does not look for its helper: install it again under /usr (see docs/INSTALL.md)."),
                &[("prefix", prefix)],
            ),
            Some(INSTALL_COMMAND),
        ),
        InstallKind::System => (
            gettext("Install the pacer-helper package, or Pacer with its helper (see docs/INSTALL.md), to change settings."),
            None,
        ),
    };
    Details {
        explanation,
        command: command.map(str::to_owned),
        ..Details::default()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn each_kind_of_install_is_told_its_own_step_in_the_details() {
        let local = InstallKind::OtherPrefix("/usr/local".into());
        let words = [
            (InstallKind::Flatpak, "on the computer itself", None),
            (
                InstallKind::BuildTree,
                "build directory",
                Some(INSTALL_COMMAND),
            ),
            (local, "installed under /usr/local", Some(INSTALL_COMMAND)),
            (InstallKind::System, "the pacer-helper package", None),
        ];
        for (kind, step, command) in words {
            let notice = read_only(&HelperMissing::NotInstalled(kind.clone()));
            // One line on the banner, the same whatever the install; the steps below it.
            assert_eq!(
                notice.title,
                "Settings are read-only: Pacer's helper is not installed"
            );
            let details = notice.details;
            assert!(details.explanation.contains(step), "{kind:?}: {details:?}");
            assert_eq!(details.command.as_deref(), command, "{kind:?}");
        }
        assert!(INSTALL_COMMAND.contains("sudo meson install -C build"));
    }

    #[test]
    fn a_library_s_message_stays_in_the_details() {
        let error = std::io::Error::from_raw_os_error(2);
        let missing = [
            HelperMissing::SystemBus(zbus::Error::InputOutput(error.into())),
            HelperMissing::OwnNotStarted(OwnHelperError::Spawn(
                std::io::Error::from_raw_os_error(13).into(),
            )),
        ];
        for why in missing {
            let notice = read_only(&why);
            assert!(notice.title.starts_with("Settings are read-only: "));
            assert!(!notice.title.contains("os error"), "{}", notice.title);
            assert!(
                notice.details.explanation.contains("(os error "),
                "{:?}",
                notice.details
            );
        }
    }
}

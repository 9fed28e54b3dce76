// SPDX-License-Identifier: GPL-3.0-or-later
//! Why the window is read-only, in the banner's words: the system bus out of reach, the
//! helper not installed (and the one step that installs it for this kind of install), or
//! the simulated machine's own helper not started. A library's own message goes in
//! parentheses, as it gave it.

use pacer_core::i18n::{fill, gettext};

use crate::data::helper::{HelperMissing, OwnHelperError};

/// The banner's line for a window with no helper.
pub fn read_only(why: &HelperMissing) -> String {
    match why {
        HelperMissing::SystemBus(error) => fill(
            gettext("Read-only: the system bus cannot be reached ({error}), so settings cannot be changed."),
            &[("error", error)],
        ),
        HelperMissing::NotInstalled(install) => install.missing_helper(),
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

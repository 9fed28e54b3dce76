// SPDX-License-Identifier: GPL-3.0-or-later
//! Why the History page has nothing to show, in its words: the helper has no recording to
//! offer, refused to share it, or sent one Pacer cannot read. The library's own message goes
//! in parentheses, as it gave it.

use pacer_core::i18n::{fill, gettext};

use crate::data::history::HistoryUnavailable;

/// The History page's description when the recording cannot be followed.
pub fn unavailable(why: &HistoryUnavailable) -> String {
    let (text, error) = match why {
        HistoryUnavailable::Bus(error) => (
            gettext("The helper offers no recording of changes ({error})."),
            error.to_string(),
        ),
        HistoryUnavailable::Helper(error) => (
            gettext("The helper did not share its recording of changes ({error})."),
            error.to_string(),
        ),
        HistoryUnavailable::Read(error) => (
            gettext("The helper's recording of changes cannot be read ({error})."),
            error.to_string(),
        ),
    };
    fill(text, &[("error", &error)])
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! When a recorded change happened, as the History page, the banner's "Why?" and the plot's
//! marks say it.

use pacer_core::history::Event;
use relm4::gtk::glib;

/// `14:02:11`, in the user's time zone.
pub fn local_time(event: &Event) -> String {
    let seconds = event
        .time
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    glib::DateTime::from_unix_local(seconds as i64)
        .and_then(|time| time.format("%H:%M:%S"))
        .map_or_else(|_| "--:--:--".to_owned(), |text| text.to_string())
}

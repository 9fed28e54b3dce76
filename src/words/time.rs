// SPDX-License-Identifier: GPL-3.0-or-later
//! When a recorded change happened, as the History page's headings, the banner's "Why?" and
//! the plot's marks say it.

use std::time::{SystemTime, UNIX_EPOCH};

use pacer_core::history::Event;
use relm4::gtk::glib;

use crate::data::history::Moment;

/// `14:02:11`, in the user's time zone.
pub fn local_time(event: &Event) -> String {
    local(event.time)
        .and_then(|time| time.format("%H:%M:%S").ok())
        .map_or_else(|| "--:--:--".to_owned(), |text| text.to_string())
}

/// A History heading: `14:02`, or `14:02:11` where it names a second; before today, with
/// the date as the user's locale writes it.
pub fn heading(moment: &Moment) -> String {
    let format = match (moment.seconds, is_today(moment.time)) {
        (false, true) => "%H:%M",
        (true, true) => "%H:%M:%S",
        (false, false) => "%x %H:%M",
        (true, false) => "%x %H:%M:%S",
    };
    local(moment.time)
        .and_then(|time| time.format(format).ok())
        .map_or_else(|| "--:--".to_owned(), |text| text.to_string())
}

fn local(time: SystemTime) -> Option<glib::DateTime> {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    glib::DateTime::from_unix_local(i64::try_from(seconds).ok()?).ok()
}

fn is_today(time: SystemTime) -> bool {
    let day = |time: &glib::DateTime| time.ymd();
    match (local(time), glib::DateTime::now_local()) {
        (Some(then), Ok(now)) => day(&then) == day(&now),
        _ => true,
    }
}

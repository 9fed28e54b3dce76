// SPDX-License-Identifier: GPL-3.0-or-later
//! When a recorded change happened, as the History page's headings, the banner's "Why?" and
//! the plot's marks say it; since when a limit has held the cores.

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
    at(moment.time, moment.seconds)
}

/// `14:02`; before today, with the date as the user's locale writes it.
pub fn clock(time: SystemTime) -> String {
    at(time, false)
}

fn at(time: SystemTime, seconds: bool) -> String {
    let format = match (seconds, is_today(time)) {
        (false, true) => "%H:%M",
        (true, true) => "%H:%M:%S",
        (false, false) => "%x %H:%M",
        (true, false) => "%x %H:%M:%S",
    };
    local(time)
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

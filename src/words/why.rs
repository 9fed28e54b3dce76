// SPDX-License-Identifier: GPL-3.0-or-later
//! A finding's cause in words, wherever the finding is shown (the banner's "Why?", the tray's
//! tooltip, a notification, the shell's Quick Settings): the recorded chain behind it, newest
//! first, each change with when, what and who, as the live plot's marks say them too.

use pacer_core::findings::Finding;
use pacer_core::history::Event;
use pacer_core::i18n::{fill, gettext};
use pacer_core::who::{by_whom, what_changed};

use crate::words::time::local_time;

/// "Why: at 14:02:11 EPP on policy 0: performance → balance_performance, by the kernel,
/// after change #2; before that, at 14:02:10 governor …"; `None` when nothing recorded
/// explains `finding`.
pub fn why(finding: &Finding) -> Option<String> {
    if finding.cause.is_empty() {
        return None;
    }
    let steps: Vec<String> = finding.cause.iter().map(said).collect();
    Some(fill(
        gettext("Why: {chain}"),
        &[("chain", &steps.join(&gettext("; before that, ")))],
    ))
}

/// A finding's explanation, then what the recording says caused it (`why`), where it says.
pub fn with_why(detail: &str, why: Option<&str>) -> String {
    match why {
        Some(why) => format!("{detail}\n{why}"),
        None => detail.to_owned(),
    }
}

/// One change, when, what and who: "at 14:02:11 governor on policy 0: powersave →
/// performance, by tlp (pid 812, tlp.service)".
pub fn said(event: &Event) -> String {
    let who = by_whom(event);
    let what = what_changed(event);
    if who.is_empty() {
        fill(
            gettext("at {time} {what}"),
            &[("time", &local_time(event)), ("what", &what)],
        )
    } else {
        fill(
            gettext("at {time} {what}, {who}"),
            &[("time", &local_time(event)), ("what", &what), ("who", &who)],
        )
    }
}

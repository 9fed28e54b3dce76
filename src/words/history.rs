// SPDX-License-Identifier: GPL-3.0-or-later
//! The History page in words: each row's what (`change`) and who (`who`) in plain words, with
//! the recording's own (tokens, policies, process ids) in its tooltip; and why the page has
//! nothing to show: the helper has no recording to offer, refused to share it, or sent one
//! Pacer cannot read. The library's own message goes in parentheses, as it gave it.

use pacer_core::history::Event;
use pacer_core::i18n::{fill, gettext, ngettext};
use pacer_core::who::{by_whom, setting_label, what_changed};

use crate::data::history::{is_rewrite, Cores, Entry, HistoryUnavailable};
use crate::words::setting::with_token;
use crate::words::time::{heading, local_time};

mod change;
mod who;

pub use change::filter_name;

/// A History row in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowWords {
    /// What changed, in one short line.
    pub title: String,
    /// Who changed it; empty where there is no one to name.
    pub subtitle: String,
    /// The recording's own words: the kernel's values, the policies, process ids and
    /// change numbers; empty for the recording's own events, which have none.
    pub tooltip: String,
    /// The heading the row goes under: "14:02", or "14:02:11" where its minute has several.
    pub heading: String,
}

/// `entry` in words, its policies named by `cores`; `cause`: the change the kernel answered,
/// where kept.
pub fn row_words(entry: &Entry, cores: &Cores, cause: Option<&Event>) -> RowWords {
    let event = &entry.event;
    let subtitle = who::by(event, cause);
    let heading = heading(&entry.moment);
    let (title, tokens) = title(event, entry.rewrites, cores);
    if !event.setting.is_value() {
        return RowWords {
            title,
            subtitle,
            tooltip: String::new(),
            heading,
        };
    }
    let setting = setting_label(event.setting);
    let policies = if event.policies.is_empty() {
        setting
    } else {
        let policies: pacer_core::cpuset::CpuSet = event.policies.iter().copied().collect();
        fill(
            gettext("{setting} on policy {policies}"),
            &[("setting", &setting), ("policies", &policies)],
        )
    };
    let tooltip = [with_token(&tokens), policies, capitalised(&by_whom(event))].join("\n");
    RowWords {
        title,
        subtitle,
        tooltip,
        heading,
    }
}

/// A change as the live plot's mark reads it out, in the History row's words: "at 14:02:11
/// Energy preference on all cores: Performance → Balanced performance, by the kernel".
pub fn mark_words(event: &Event, cores: &Cores) -> String {
    let (what, _) = title(event, usize::from(is_rewrite(event)), cores);
    let who = who::by(event, None);
    let time = local_time(event);
    if who.is_empty() {
        fill(
            gettext("at {time} {what}"),
            &[("time", &time), ("what", &what)],
        )
    } else {
        fill(
            gettext("at {time} {what}, {who}"),
            &[("time", &time), ("what", &what), ("who", &who)],
        )
    }
}

/// What a row says changed, in one short line, with the kernel's values it stands for (for
/// the tooltip): `rewrites` writes of the value already there, or a change where 0.
fn title(event: &Event, rewrites: usize, cores: &Cores) -> (String, String) {
    if !event.setting.is_value() {
        return (capitalised(&what_changed(event)), String::new());
    }
    let what = change::setting_on(event.setting, &cores.covered(&event.policies));
    let new = change::value_words(event.setting, &event.new);
    match (&event.old, rewrites) {
        (Some(old), 0) => (
            fill(
                gettext("{what}: {old} → {new}"),
                &[
                    ("what", &what),
                    ("old", &change::value_words(event.setting, old)),
                    ("new", &new),
                ],
            ),
            format!("{old} → {}", event.new),
        ),
        (None, 0) => (
            fill(
                gettext("{what}: now {new}"),
                &[("what", &what), ("new", &new)],
            ),
            event.new.clone(),
        ),
        (_, 1) => (
            fill(
                gettext("{what} stays {value}"),
                &[("what", &what), ("value", &new)],
            ),
            event.new.clone(),
        ),
        (_, times) => (
            fill(
                ngettext(
                    "{what} stays {value} · rewritten {count} time",
                    "{what} stays {value} · rewritten {count} times",
                    u32::try_from(times).unwrap_or(u32::MAX),
                ),
                &[("what", &what), ("value", &new), ("count", &times)],
            ),
            event.new.clone(),
        ),
    }
}

/// `text` with its first letter in capitals.
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

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

#[cfg(test)]
mod tests;

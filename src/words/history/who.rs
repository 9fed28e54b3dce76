// SPDX-License-Identifier: GPL-3.0-or-later
//! Who made a change, in a History row's second line: a program by its name, the kernel by
//! whose change it answered ("by the kernel, after a change by Pacer"). Process ids, units
//! and change numbers stay in the row's tooltip, in the recording's own words.

use pacer_core::history::{Event, Setting, Source};
use pacer_core::i18n::{fill, gettext};

/// "by power-profiles-daemon", "by the kernel, after a change by Pacer"; nothing for the
/// recording's own events and sleep. `cause`: the event `event.cause` names, where kept.
pub fn by(event: &Event, cause: Option<&Event>) -> String {
    if matches!(event.setting, Setting::Recording | Setting::Sleep) {
        return String::new();
    }
    let woken = cause.is_some_and(|cause| cause.setting == Setting::Sleep);
    match (event.source, name(event)) {
        (Source::Process | Source::Daemon, Some(name)) => {
            fill(gettext("by {name}"), &[("name", &name)])
        }
        (Source::Process, None) => gettext("by a program"),
        (Source::Daemon, None) => gettext("by the profile daemon"),
        (Source::Pacer, Some(name)) => {
            fill(gettext("by Pacer, asked by {name}"), &[("name", &name)])
        }
        // A caller gone before it could be named.
        (Source::Pacer, None) if event.process.is_some() => gettext("by Pacer, asked by a program"),
        (Source::Pacer, None) => gettext("by Pacer, putting back settings it saved"),
        (Source::Kernel, _) if woken => gettext("by the kernel, on waking from sleep"),
        (Source::Kernel, _) => match (event.cause, cause) {
            (_, Some(cause)) => fill(
                gettext("by the kernel, after a change by {actor}"),
                &[("actor", &actor(cause))],
            ),
            (Some(_), None) => gettext("by the kernel, after an earlier change"),
            (None, None) => gettext("by the kernel"),
        },
        (Source::Unknown, _) if woken => gettext("found changed on waking from sleep"),
        (Source::Unknown, _) => gettext("found changed, with no write seen"),
    }
}

/// Who made `event`, in a few words: "Pacer", "tlp", "the kernel".
fn actor(event: &Event) -> String {
    match (event.source, name(event)) {
        (Source::Pacer, _) => "Pacer".to_owned(),
        (Source::Process | Source::Daemon, Some(name)) => name.to_owned(),
        (Source::Process, None) => gettext("a program"),
        (Source::Daemon, None) => gettext("the profile daemon"),
        (Source::Kernel, _) => gettext("the kernel"),
        (Source::Unknown, _) => gettext("an unseen writer"),
    }
}

/// The process's name, as the kernel knows it.
fn name(event: &Event) -> Option<&str> {
    event.process.as_ref()?.comm.as_deref()
}

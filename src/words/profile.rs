// SPDX-License-Identifier: GPL-3.0-or-later
//! A power profile in words as the profile daemons' own settings panels say it, wherever
//! Pacer shows it (the overview's Power Mode, the tray's menu and tooltip): its name, what it
//! does, what holds or limits it, and why no daemon offers any, each in one line. The
//! daemon's own words (a hold's reason, a degradation's token, a bus error) go on hover.

use pacer_core::i18n::{fill, gettext};
use pacer_core::profile::daemon::Hold;
use pacer_core::profile::ProfileProblem;

/// The profiles every daemon offers, from the fastest: what Power Mode shows, greyed, when
/// no daemon offers any.
pub const USUAL_PROFILES: [&str; 3] = ["performance", "balanced", "power-saver"];

/// A power profile's name in words.
pub fn profile_label(profile: &str) -> String {
    match profile {
        "power-saver" => gettext("Power Saver"),
        "balanced" => gettext("Balanced"),
        "performance" => gettext("Performance"),
        other => other.to_owned(),
    }
}

/// What a power profile does, as GNOME Settings says it; `None` for one it does not name.
pub fn profile_explanation(profile: &str) -> Option<String> {
    match profile {
        "performance" => Some(gettext("High performance and power usage")),
        "balanced" => Some(gettext("Standard performance and power usage")),
        "power-saver" => Some(gettext("Reduced performance and power usage")),
        _ => None,
    }
}

/// Why no daemon offers profiles, in one line; the technical reason is the problem's own
/// text (`Display`), for a tooltip.
pub fn no_daemon_line(problem: Option<&ProfileProblem>) -> String {
    match problem {
        None | Some(ProfileProblem::NoBus(_) | ProfileProblem::NoDaemon) => {
            gettext("No power profile daemon is running")
        }
        Some(ProfileProblem::Timeout { .. }) => gettext("The power profile daemon does not answer"),
        Some(ProfileProblem::Failed(_) | ProfileProblem::OddProperties(_)) => {
            gettext("The power profile daemon's answer cannot be read")
        }
    }
}

/// An application holding a profile, in one line: "org.gnome.Shell holds Power Saver"; its
/// reason goes on hover.
pub fn hold_line(hold: &Hold) -> String {
    fill(
        gettext("{application} holds {profile}"),
        &[
            ("application", &hold.application_id),
            ("profile", &profile_label(&hold.profile)),
        ],
    )
}

/// The daemon's `PerformanceDegraded` reason in one line, as GNOME Settings says it.
pub fn degraded_line(reason: &str) -> String {
    match reason {
        "lap-detected" => gettext("Performance mode is unavailable while the computer is on a lap"),
        "high-operating-temperature" => {
            gettext("Performance mode is limited because the computer is hot")
        }
        _ => gettext("Performance mode is limited for now"),
    }
}

/// The daemon's own word for something shown in words, for a tooltip: "The daemon says:
/// lap-detected".
pub fn daemon_said(token: &str) -> String {
    fill(gettext("The daemon says: {token}"), &[("token", &token)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_usual_profile_has_a_name_and_gnome_s_line() {
        for profile in USUAL_PROFILES {
            assert_ne!(profile_label(profile), profile);
            assert!(profile_explanation(profile).is_some(), "{profile}");
        }
        assert_eq!(
            profile_explanation("power-saver").as_deref(),
            Some("Reduced performance and power usage")
        );
        assert_eq!(profile_explanation("turbo"), None);
    }

    #[test]
    fn no_daemon_is_one_plain_line_whatever_the_bus_said() {
        let raw = "Failed to connect to socket /run/dbus/system_bus_socket: No such file or \
                   directory (os error 2)";
        let line = no_daemon_line(Some(&ProfileProblem::NoBus(raw.into())));
        assert_eq!(line, "No power profile daemon is running");
        assert_eq!(no_daemon_line(Some(&ProfileProblem::NoDaemon)), line);
        let stuck = no_daemon_line(Some(&ProfileProblem::Timeout { what: "the daemon" }));
        assert_ne!(stuck, line);
    }

    #[test]
    fn holds_and_degradation_are_words_with_the_daemon_s_on_hover() {
        let hold = Hold {
            application_id: "org.gnome.Shell".into(),
            profile: "power-saver".into(),
            reason: "Battery low".into(),
        };
        assert_eq!(hold_line(&hold), "org.gnome.Shell holds Power Saver");
        assert!(!degraded_line("lap-detected").contains('-'));
        assert_ne!(
            degraded_line("lap-detected"),
            degraded_line("high-operating-temperature")
        );
        assert_eq!(daemon_said("lap-detected"), "The daemon says: lap-detected");
    }
}

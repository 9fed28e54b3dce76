// SPDX-License-Identifier: GPL-3.0-or-later
//! What the overview shows, worked out from a reading, with no widgets: the profile section
//! (the offered profiles, who serves them, what holds them), the driver and its modes,
//! Energy Aware Scheduling, the frequencies per core type, and what the plot draws.

use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::{cores_heading, Snapshot};
use pacer_core::profile::ProfileProblem;
use pacer_core::status::Status;
use pacer_core::values::DriverMode;

use crate::widgets::plot::{Shown, TypeSummary};
use crate::words::profile::profile_label;

/// What the profile section shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileView {
    /// Each offered profile and whether it is the active one; empty without a daemon.
    pub choices: Vec<(String, bool)>,
    /// Who serves the profiles, or why nobody does (in words).
    pub source: String,
    /// The technical detail of why nobody does, behind "Details".
    pub detail: Option<String>,
    /// One line per hold, and the degradation if any.
    pub notes: Vec<String>,
}

impl ProfileView {
    pub fn of(status: &Status) -> ProfileView {
        let Some(profile) = &status.profile else {
            let problem = status.profile_problems.first();
            let why = problem.map(ProfileProblem::summary).unwrap_or_default();
            return ProfileView {
                choices: Vec::new(),
                source: fill(gettext("No power profile daemon: {why}"), &[("why", &why)]),
                detail: problem.and_then(ProfileProblem::detail),
                notes: Vec::new(),
            };
        };
        let choices = profile
            .available
            .iter()
            .map(|info| (info.profile.clone(), info.profile == profile.active))
            .collect();
        let source = match &profile.version {
            Some(version) => fill(
                gettext("Set by {daemon} {version}"),
                &[("daemon", &profile.daemon), ("version", version)],
            ),
            None => fill(gettext("Set by {daemon}"), &[("daemon", &profile.daemon)]),
        };
        let mut notes: Vec<String> = profile
            .holds
            .iter()
            .map(|hold| {
                fill(
                    gettext("Held at {profile} by {application}: {reason}"),
                    &[
                        ("profile", &profile_label(&hold.profile)),
                        ("application", &hold.application_id),
                        ("reason", &hold.reason),
                    ],
                )
            })
            .collect();
        if let Some(reason) = &profile.degraded {
            notes.push(fill(
                gettext("Performance is degraded: {reason}"),
                &[("reason", reason)],
            ));
        }
        ProfileView {
            choices,
            source,
            detail: None,
            notes,
        }
    }
}

/// The driver in words, and the modes it can be switched to (empty: it has none).
pub fn driver_view(snapshot: &Snapshot) -> (String, Vec<DriverMode>) {
    let driver = &snapshot.driver;
    let Some(name) = &driver.name else {
        return (gettext("No CPU frequency scaling"), Vec::new());
    };
    let Some(mode) = driver.mode else {
        return (name.clone(), Vec::new());
    };
    let modes = if name.starts_with("amd") {
        vec![DriverMode::Active, DriverMode::Passive, DriverMode::Guided]
    } else {
        vec![DriverMode::Active, DriverMode::Passive]
    };
    let text = fill(
        gettext("{driver}, {mode} mode"),
        &[("driver", name), ("mode", &mode)],
    );
    (text, modes)
}

/// Energy Aware Scheduling in words: whether it runs, and why not.
pub fn eas_view(snapshot: &Snapshot) -> String {
    let eas = &snapshot.eas;
    let state = match eas.active {
        Some(true) => gettext("Running"),
        Some(false) => gettext("Not running"),
        None => gettext("Unknown"),
    };
    if eas.reasons.is_empty() {
        state
    } else {
        fill(
            gettext("{state}: {reasons}"),
            &[("state", &state), ("reasons", &eas.reasons_text())],
        )
    }
}

/// Median and maximum frequency per core type, as one line each.
pub fn summary_lines(summary: &[TypeSummary]) -> Vec<String> {
    summary
        .iter()
        .map(|kind| {
            fill(
                gettext("{cores}: median {median} GHz, highest {max} GHz"),
                &[
                    ("cores", &cores_heading(kind.core_type)),
                    (
                        "median",
                        &format!("{:.2}", f64::from(kind.median_khz) / 1e6),
                    ),
                    ("max", &format!("{:.2}", f64::from(kind.max_khz) / 1e6)),
                ],
            )
        })
        .collect()
}

/// What the plot's description says it shows.
pub fn plot_description(shown: Shown) -> String {
    match shown {
        Shown::Bands => gettext(
            "Each core type over the last minute: its median CPU as a line, its lowest to its highest CPU as a band",
        ),
        Shown::EachCpu => gettext("Each CPU over the last minute, coloured by core type"),
    }
}

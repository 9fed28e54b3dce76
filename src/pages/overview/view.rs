// SPDX-License-Identifier: GPL-3.0-or-later
//! What the overview shows, worked out from a reading, with no widgets: Power Mode (the
//! offered profiles, who serves them, what holds them), the driver and its modes, Energy
//! Aware Scheduling, the frequencies per core type, and what the plot draws; each in words,
//! the kernel's and the daemon's own on hover.

use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::{cores_heading, Snapshot};
use pacer_core::status::Status;
use pacer_core::values::DriverMode;

use crate::widgets::plot::{Shown, TypeSummary};
use crate::words::profile::{
    daemon_said, degraded_line, hold_line, no_daemon_line, USUAL_PROFILES,
};
use crate::words::setting::{driver_mode_explanation, eas_line, with_token};

/// What the Power Mode section shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileView {
    /// Each profile shown and whether it is the active one: the daemon's offer, or the usual
    /// three, none active, when no daemon offers any.
    pub choices: Vec<(String, bool)>,
    /// Whether a daemon offers the choices: without one they are greyed.
    pub offered: bool,
    /// Who keeps the profile, or that nobody does, in one line.
    pub source: String,
    /// The technical reason why nobody does, on hover.
    pub detail: Option<String>,
    /// A line per hold, and the degradation if any.
    pub notes: Vec<Note>,
}

/// A line under the profiles, with the daemon's own words on hover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub line: String,
    pub detail: Option<String>,
}

impl ProfileView {
    pub fn of(status: &Status) -> ProfileView {
        let Some(profile) = &status.profile else {
            let problem = status.profile_problems.first();
            return ProfileView {
                choices: USUAL_PROFILES
                    .iter()
                    .map(|name| ((*name).to_owned(), false))
                    .collect(),
                offered: false,
                source: no_daemon_line(problem),
                detail: problem.map(ToString::to_string),
                notes: Vec::new(),
            };
        };
        let mut choices: Vec<(String, bool)> = profile
            .available
            .iter()
            .map(|info| (info.profile.clone(), info.profile == profile.active))
            .collect();
        // The fastest first, as GNOME Settings lists them; one it does not know last.
        choices.sort_by_key(|(name, _)| {
            USUAL_PROFILES
                .iter()
                .position(|usual| usual == name)
                .unwrap_or(usize::MAX)
        });
        let source = match &profile.version {
            Some(version) => fill(
                gettext("Set by {daemon} {version}"),
                &[("daemon", &profile.daemon), ("version", version)],
            ),
            None => fill(gettext("Set by {daemon}"), &[("daemon", &profile.daemon)]),
        };
        let holds = profile.holds.iter().map(|hold| Note {
            line: hold_line(hold),
            detail: Some(hold.reason.clone()).filter(|reason| !reason.is_empty()),
        });
        let degraded = profile.degraded.iter().map(|reason| Note {
            line: degraded_line(reason),
            detail: Some(daemon_said(reason)),
        });
        ProfileView {
            choices,
            offered: true,
            source,
            detail: None,
            notes: holds.chain(degraded).collect(),
        }
    }
}

/// What the driver row shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DriverView {
    /// What the driver's mode does, or that there is no frequency scaling, in one line.
    pub line: String,
    /// The kernel's driver, on hover.
    pub driver: Option<String>,
    /// The kernel's word for the mode, on hover over its choice.
    pub mode_token: Option<String>,
    /// The modes the driver can be switched to (empty: it has none).
    pub modes: Vec<DriverMode>,
}

impl DriverView {
    pub fn of(snapshot: &Snapshot) -> DriverView {
        let driver = &snapshot.driver;
        let Some(name) = &driver.name else {
            return DriverView {
                line: gettext("No CPU frequency scaling"),
                driver: None,
                mode_token: None,
                modes: Vec::new(),
            };
        };
        // A driver without modes is one a governor drives, unless it picks speeds itself.
        let mode = driver.mode.unwrap_or(if driver.is_setpolicy() {
            DriverMode::Active
        } else {
            DriverMode::Passive
        });
        let modes = match driver.mode {
            None => Vec::new(),
            Some(_) if name.starts_with("amd") => {
                vec![DriverMode::Active, DriverMode::Passive, DriverMode::Guided]
            }
            Some(_) => vec![DriverMode::Active, DriverMode::Passive],
        };
        DriverView {
            line: driver_mode_explanation(mode),
            driver: Some(fill(
                gettext("Kernel driver: {driver}"),
                &[("driver", name)],
            )),
            mode_token: driver.mode.map(|mode| with_token(&mode.to_string())),
            modes,
        }
    }
}

/// Energy Aware Scheduling in one line, and the kernel's account of why it is off, on hover.
pub fn eas_view(snapshot: &Snapshot) -> (String, Option<String>) {
    let eas = &snapshot.eas;
    let reasons = Some(eas.reasons_text()).filter(|text| !text.is_empty());
    (eas_line(eas), reasons)
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
        Shown::Bands => gettext("Each core type's median as a line, its range as a band"),
        Shown::EachCpu => gettext("Each CPU over the last minute, coloured by core type"),
    }
}

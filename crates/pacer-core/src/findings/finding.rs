// SPDX-License-Identifier: GPL-3.0-or-later
//! What a finding is: its kind, how severe, the one action that fixes it, and its words.

use serde::Serialize;

use crate::cpuset::CpuSet;
use crate::history::Event;
use crate::values::{Epp, Governor, Khz};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    EppMismatch,
    EppForcedByGovernor,
    GovernorMismatch,
    CompetingPowerManagers,
    MixedEpp,
    TurboDisabled,
    EasBlocked,
    /// A setting found changed when the machine woke from sleep (`crate::suspend`).
    ChangedAcrossSuspend,
    /// A thermal limit holds cores back (`limit_rules`).
    ThermalLimit,
    /// The package's long-term power limit is below its default (`limit_rules`).
    PowerLimitLowered,
    /// A maximum frequency that came back lower from sleep than it went (`crate::suspend`).
    ClampedAfterResume,
}

/// Most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Warning,
    Info,
}

/// The one action that fixes a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum FixAction {
    /// Switch to `away` and back to `back`: the daemon rewrites EPP only on a change.
    CycleProfile {
        away: String,
        back: String,
    },
    SetGovernor {
        governor: Governor,
        policies: Vec<u32>,
    },
    SetEpp {
        epp: Epp,
        policies: Vec<u32>,
    },
    /// Keep one power manager, stop the others.
    StopManagers {
        keep: String,
        stop: Vec<String>,
    },
    EnableTurbo,
    /// Use schedutil (in passive mode, for a driver that has modes).
    UseSchedutil {
        passive_mode: bool,
        policies: Vec<u32>,
    },
    EnableEas,
    /// Nothing Pacer can set: the description says what to do, and the command where
    /// there is one.
    Advice,
    /// Write `khz` as the maximum frequency of `policies` again.
    RestoreMaxFrequency {
        policies: Vec<u32>,
        khz: Khz,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    #[serde(flatten)]
    pub action: FixAction,
    /// What to do, in words only: a window shows it where there is no room for a command.
    pub description: String,
    /// The shell command that does it by hand, where one does (`null` in JSON where none).
    pub command: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub severity: Severity,
    pub policies: Vec<u32>,
    pub expected: Option<String>,
    pub actual: Option<String>,
    pub summary: String,
    pub detail: String,
    pub fix: Fix,
    /// The recorded changes behind it, newest first, each after the one it caused
    /// ([`crate::who::causes`]); empty where nothing recorded explains it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cause: Vec<Event>,
}

impl Finding {
    /// What makes two findings the same one (for telling a new finding from one still there).
    pub fn key(&self) -> String {
        format!(
            "{:?}|{}|{}|{}",
            self.kind,
            self.policies.iter().copied().collect::<CpuSet>(),
            self.expected.as_deref().unwrap_or(""),
            self.actual.as_deref().unwrap_or("")
        )
    }
}

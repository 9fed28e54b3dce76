// SPDX-License-Identifier: GPL-3.0-or-later
//! What Pacer's state on the session bus shows (`state_bus`), worked out from each new
//! reading as the tray's view is, and the calls it takes, checked against it so that a
//! refused call changes nothing. The types stay the kernel's until they become a D-Bus
//! value at the edge ([`SessionState::property`]).

use pacer_core::findings::{Finding, FixAction, Severity};
use pacer_core::limits::Limiter;
use pacer_core::machine::Snapshot;
use pacer_core::profile::daemon::Hold;
use pacer_core::profile::DaemonKind;
use pacer_core::status::Status;
use pacer_core::values::{CoreType, Epp, Governor};
use relm4::gtk::glib::{prelude::*, Variant};

use crate::data::change::{offered_fix, Change};
use crate::data::request::{Page, Request};
use crate::widgets::plot::TypeSummary;
use crate::words::finding::headline;
use crate::words::limits::limiter_line;
use crate::words::setting::{epp_label, governor_label};
use crate::words::why::{why, with_why};

/// The interface that shows it.
pub const INTERFACE: &str = "io.github.pacerapp.Pacer.State1";

/// What a core type's policies share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreTypeState {
    pub core_type: Option<CoreType>,
    /// `None` where its policies differ or have none.
    pub epp: Option<Epp>,
    pub governor: Option<Governor>,
}

/// An active finding as the bus shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingState {
    pub key: String,
    pub severity: Severity,
    /// The finding in one short line of plain words ([`headline`]), as much as a menu item
    /// has room for; the policies and the kernel's values are in Pacer's window.
    pub summary: String,
    /// Why it holds: the finding's explanation.
    pub detail: String,
    /// What the recording says caused it ([`why`]); the bus shows it after the detail.
    pub why: Option<String>,
    /// The fix Pacer can carry out now, if any.
    pub fix: Option<FixAction>,
}

/// What holds one core type's CPUs back, as the bus shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitState {
    pub core_type: Option<CoreType>,
    pub limiter: Limiter,
    /// The verdict in one line of plain words ([`limiter_line`]).
    pub line: String,
}

/// Everything `State1` shows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SessionState {
    pub profile: Option<String>,
    pub profiles: Vec<String>,
    pub daemon: Option<DaemonKind>,
    pub holds: Vec<Hold>,
    pub degraded: Option<String>,
    pub core_types: Vec<CoreTypeState>,
    /// Per core type, the latest median frequency.
    pub frequencies: Vec<(Option<CoreType>, Option<u32>)>,
    pub findings: Vec<FindingState>,
    /// Per core type, in the chain's order, what holds it back.
    pub limits: Vec<LimitState>,
    pub measuring: bool,
}

/// The key a finding has on the bus: its kind and its policies, stable while it lasts.
pub fn finding_key(finding: &Finding) -> String {
    // The kind as `pacerctl status --json` names it (its serde name), so both agree.
    let kind = serde_json::to_value(finding.kind)
        .ok()
        .and_then(|kind| kind.as_str().map(str::to_owned))
        .unwrap_or_default();
    let policies: Vec<String> = finding.policies.iter().map(u32::to_string).collect();
    format!("{kind}@{}", policies.join(","))
}

/// A core type as the bus names it: empty where all cores are alike.
fn core_type_name(core_type: Option<CoreType>) -> String {
    core_type
        .map(CoreType::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// What the policies of each core type share, fastest type first, untyped cores last.
fn core_type_states(snapshot: &Snapshot) -> Vec<CoreTypeState> {
    let mut states: Vec<CoreTypeState> = Vec::new();
    for cpu in snapshot.cpus.iter().filter(|cpu| cpu.online) {
        let Some(policy) = cpu.policy.and_then(|id| snapshot.policy(id)) else {
            continue;
        };
        match states
            .iter_mut()
            .find(|state| state.core_type == cpu.core_type)
        {
            Some(state) => {
                if state.epp != policy.epp {
                    state.epp = None;
                }
                if state.governor != policy.governor {
                    state.governor = None;
                }
            }
            None => states.push(CoreTypeState {
                core_type: cpu.core_type,
                epp: policy.epp,
                governor: policy.governor.clone(),
            }),
        }
    }
    states.sort_by_key(|state| (state.core_type.is_none(), state.core_type));
    states
}

impl SessionState {
    /// The state of `status`, keeping what the window knows besides: the frequencies and
    /// whether a measurement runs. Fixes that need pacer-helper count only when
    /// `helper_present`.
    pub fn of(status: &Status, helper_present: bool, previous: &SessionState) -> SessionState {
        let profile = status.profile.as_ref();
        let active = status.active_profile();
        SessionState {
            profile: profile.map(|p| p.active.clone()),
            profiles: profile
                .map(|p| {
                    p.available
                        .iter()
                        .map(|info| info.profile.clone())
                        .collect()
                })
                .unwrap_or_default(),
            daemon: profile.map(|p| p.daemon),
            holds: profile.map(|p| p.holds.clone()).unwrap_or_default(),
            degraded: profile.and_then(|p| p.degraded.clone()),
            core_types: core_type_states(&status.snapshot),
            frequencies: previous.frequencies.clone(),
            findings: status
                .findings
                .iter()
                .map(|finding| FindingState {
                    key: finding_key(finding),
                    severity: finding.severity,
                    summary: headline(finding, active),
                    detail: finding.detail.clone(),
                    why: why(finding),
                    fix: offered_fix(finding, helper_present).cloned(),
                })
                .collect(),
            limits: status
                .limits
                .iter()
                .map(|core| LimitState {
                    core_type: core.core_type,
                    limiter: core.limiter,
                    line: limiter_line(core),
                })
                .collect(),
            measuring: previous.measuring,
        }
    }

    /// The latest medians per core type, from the plot's summary.
    pub fn set_frequencies(&mut self, summary: &[TypeSummary]) {
        self.frequencies = summary
            .iter()
            .map(|line| (line.core_type, Some(line.median_khz)))
            .collect();
    }

    /// The property `name` as the bus carries it.
    pub fn property(&self, name: &str) -> Option<Variant> {
        let text = |value: Option<String>| value.unwrap_or_default();
        Some(match name {
            "Profile" => text(self.profile.clone()).to_variant(),
            "Profiles" => self.profiles.to_variant(),
            "ProfileDaemon" => text(self.daemon.map(|d| d.as_str().to_owned())).to_variant(),
            "Holds" => self
                .holds
                .iter()
                .map(|hold| {
                    (
                        hold.profile.clone(),
                        hold.application_id.clone(),
                        hold.reason.clone(),
                    )
                })
                .collect::<Vec<_>>()
                .to_variant(),
            "DegradedReason" => text(self.degraded.clone()).to_variant(),
            "CoreTypes" => self.core_type_values(|epp| epp.to_string(), Governor::to_string),
            "CoreTypeLabels" => self.core_type_values(epp_label, governor_label),
            "Frequencies" => self
                .frequencies
                .iter()
                .map(|&(kind, khz)| (core_type_name(kind), khz.unwrap_or(0)))
                .collect::<Vec<_>>()
                .to_variant(),
            "Limits" => self
                .limits
                .iter()
                .map(|limit| {
                    (
                        core_type_name(limit.core_type),
                        limit.limiter.as_str().to_owned(),
                        limit.line.clone(),
                    )
                })
                .collect::<Vec<_>>()
                .to_variant(),
            "Findings" => self
                .findings
                .iter()
                .map(|finding| {
                    let severity = match finding.severity {
                        Severity::Warning => "warning",
                        Severity::Info => "info",
                    };
                    (
                        finding.key.clone(),
                        severity.to_owned(),
                        finding.summary.clone(),
                        with_why(&finding.detail, finding.why.as_deref()),
                        finding.fix.is_some(),
                    )
                })
                .collect::<Vec<_>>()
                .to_variant(),
            "Measuring" => self.measuring.to_variant(),
            _ => return None,
        })
    }

    /// Per core type (as the bus names it), its EPP and its governor as `epp` and `governor`
    /// write them: the kernel's tokens (`CoreTypes`) or plain words (`CoreTypeLabels`), each
    /// empty where the core type's policies differ or have none.
    fn core_type_values(
        &self,
        epp: impl Fn(Epp) -> String,
        governor: impl Fn(&Governor) -> String,
    ) -> Variant {
        self.core_types
            .iter()
            .map(|state| {
                (
                    core_type_name(state.core_type),
                    state.epp.map(&epp).unwrap_or_default(),
                    state.governor.as_ref().map(&governor).unwrap_or_default(),
                )
            })
            .collect::<Vec<_>>()
            .to_variant()
    }

    /// What a call asks for, or why it is refused: (error name, message).
    pub fn request(&self, method: &str, parameters: &Variant) -> Result<Request, Refusal> {
        let text = || parameters.child_get::<String>(0);
        match method {
            "SetProfile" => {
                let profile = text();
                if self.daemon.is_none() {
                    return Err(Refusal::NoDaemon);
                }
                if !self.profiles.contains(&profile) {
                    return Err(Refusal::UnknownProfile(profile));
                }
                Ok(Request::Change(Change::Profile(profile)))
            }
            "Fix" => {
                let key = text();
                let finding = self
                    .findings
                    .iter()
                    .find(|finding| finding.key == key)
                    .ok_or_else(|| Refusal::UnknownFinding(key.clone()))?;
                let fix = finding.fix.clone().ok_or(Refusal::NotFixable(key))?;
                Ok(Request::Fix(fix))
            }
            "MeasureRamp" => Ok(Request::Measure),
            "ShowWindow" => match text() {
                page if page.is_empty() => Ok(Request::Show(None)),
                page => Page::named(&page)
                    .map(|page| Request::Show(Some(page)))
                    .ok_or(Refusal::UnknownPage(page)),
            },
            // GDBus refuses methods the interface does not list before they get here.
            other => Err(Refusal::UnknownMethod(other.to_owned())),
        }
    }

    /// The request `authorised` (validated, then allowed by polkit) if this state still gives
    /// it for the same call. The state may have moved while polkit decided: a finding gone
    /// (its fix done meanwhile) is refused as [`SessionState::request`] refuses it, and a
    /// finding whose fix changed (another value, other policies) is not fixable now, since
    /// polkit was asked about the old fix and the caller never asked for the new one.
    pub fn confirm(
        &self,
        method: &str,
        parameters: &Variant,
        authorised: Request,
    ) -> Result<Request, Refusal> {
        let now = self.request(method, parameters)?;
        if now == authorised {
            Ok(authorised)
        } else {
            Err(Refusal::NotFixable(parameters.child_get::<String>(0)))
        }
    }
}

/// Why a call changed nothing; the message names the value refused, in English (a caller's
/// user sees the caller's own words).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    NoDaemon,
    UnknownProfile(String),
    UnknownFinding(String),
    NotFixable(String),
    UnknownPage(String),
    UnknownMethod(String),
    /// polkit did not allow the caller (its process id, where the bus told it) `action`, or
    /// could not be asked (`error`): either way nothing is handed on.
    NotAuthorized {
        action: String,
        pid: Option<u32>,
        error: Option<String>,
    },
}

impl Refusal {
    pub fn name(&self) -> String {
        let kind = match self {
            Refusal::NoDaemon => "NoDaemon",
            Refusal::UnknownProfile(_) => "UnknownProfile",
            Refusal::UnknownFinding(_) => "UnknownFinding",
            Refusal::NotFixable(_) => "NotFixable",
            Refusal::UnknownPage(_) => "UnknownPage",
            Refusal::NotAuthorized { .. } => "NotAuthorized",
            Refusal::UnknownMethod(_) => return "org.freedesktop.DBus.Error.UnknownMethod".into(),
        };
        format!("{INTERFACE}.Error.{kind}")
    }

    pub fn message(&self) -> String {
        match self {
            Refusal::NoDaemon => "no power profile daemon answers".to_owned(),
            Refusal::UnknownProfile(profile) => {
                format!("the profile daemon offers no profile \"{profile}\"")
            }
            Refusal::UnknownFinding(key) => format!("no active finding has the key \"{key}\""),
            Refusal::NotFixable(key) => format!("Pacer cannot fix \"{key}\" now"),
            Refusal::UnknownPage(page) => {
                let pages: Vec<&str> = Page::ALL.into_iter().map(Page::name).collect();
                format!("no page \"{page}\": the pages are {}", pages.join(", "))
            }
            Refusal::UnknownMethod(method) => format!("no method \"{method}\""),
            Refusal::NotAuthorized { action, pid, error } => {
                let caller = match pid {
                    Some(pid) => format!("the caller (process {pid})"),
                    None => "the caller (process unknown)".to_owned(),
                };
                match error {
                    None => format!("polkit does not authorise {caller} for \"{action}\""),
                    Some(error) => {
                        format!(
                            "polkit could not be asked about {caller} for \"{action}\": {error}"
                        )
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;

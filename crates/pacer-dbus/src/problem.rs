// SPDX-License-Identifier: GPL-3.0-or-later
//! What the helper refuses or fails at, as a kind with its arguments. The helper sends a
//! [`Problem`] across the bus as data; each client words it here, in its user's language, so
//! that nothing reaches a person in the helper's locale.

use std::fmt;

use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::EasReason;
use pacer_core::values::Khz;
use pacer_core::CpuSet;
use serde::{Deserialize, Serialize};

/// The most characters of a caller's own string that the helper echoes back.
pub const ECHO_LIMIT: usize = 200;

/// The D-Bus error a [`Problem`] travels as (`io.github.pacerapp.Pacer.Helper1.Error.<Kind>`):
/// what a client branches on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// polkit said no (or could not be asked).
    NotAuthorized,
    /// The request names something the machine does not offer.
    InvalidArgument,
    /// The kernel or the helper refuses for now.
    Busy,
    /// The machine cannot do this at all.
    NotSupported,
    /// Anything else.
    Failed,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 5] = [
        ErrorKind::NotAuthorized,
        ErrorKind::InvalidArgument,
        ErrorKind::Busy,
        ErrorKind::NotSupported,
        ErrorKind::Failed,
    ];

    /// The last part of the D-Bus error name.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::NotAuthorized => "NotAuthorized",
            ErrorKind::InvalidArgument => "InvalidArgument",
            ErrorKind::Busy => "Busy",
            ErrorKind::NotSupported => "NotSupported",
            ErrorKind::Failed => "Failed",
        }
    }
}

/// A caller's string as the helper echoes it: at most [`ECHO_LIMIT`] characters.
pub fn echo(value: &str) -> String {
    match value.char_indices().nth(ECHO_LIMIT) {
        Some((end, _)) => format!("{}…", &value[..end]),
        None => value.to_owned(),
    }
}

/// Everything the helper can refuse or fail at. Serialised as `{"problem": "<kebab-name>",
/// …arguments}`; values a caller sent are echoed through [`echo`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "problem", rename_all = "kebab-case")]
pub enum Problem {
    /// polkit refused `action` for the caller.
    NotAuthorized {
        action: String,
    },
    /// polkit could not be asked.
    PolkitUnreachable {
        action: String,
        error: String,
    },
    NoPolicies,
    TooManyPolicies {
        count: usize,
    },
    NoSuchPolicy {
        policy: u32,
    },
    PolicyOffline {
        policy: u32,
    },
    NotAGovernor {
        value: String,
    },
    GovernorNotOffered {
        policy: u32,
        governor: String,
        offered: Vec<String>,
    },
    NotAnEpp {
        value: String,
    },
    NoEpp {
        policy: u32,
    },
    EppNotOffered {
        policy: u32,
        epp: String,
        offered: Vec<String>,
    },
    /// The performance governor of a setpolicy driver holds EPP on these policies (EBUSY).
    EppHeldByGovernor {
        policies: CpuSet,
    },
    /// amd-pstate's dynamic EPP is on: the kernel sets EPP itself and refuses any write
    /// (EBUSY, `docs/kernel.md` 9.1).
    EppSetByKernel,
    NoBoostSwitch,
    BoostOnlyForAll,
    /// The policy has no frequency limits the helper can set (`cpuinfo_min_freq`,
    /// `cpuinfo_max_freq` or `scaling_max_freq` missing or unreadable).
    NoFrequencyLimits {
        policy: u32,
    },
    /// A frequency (kHz) outside the policy's `cpuinfo_min_freq`..`cpuinfo_max_freq`.
    FrequencyOutOfRange {
        policy: u32,
        khz: u32,
        min: u32,
        max: u32,
    },
    /// Written, the maximum frequency of these policies reads back below `khz` (`held` at
    /// the lowest): another limit request (the firmware's, the kernel's) holds it, as the
    /// lowest of all requests is the one in force.
    MaxFrequencyHeld {
        policies: CpuSet,
        khz: u32,
        held: u32,
    },
    NoEasSupport,
    EasImpossible {
        reasons: Vec<EasReason>,
    },
    NoDriverModes,
    NotADriverMode {
        value: String,
        modes: Vec<String>,
    },
    NoProfileDaemon,
    /// The profile daemon's mapping to EPP is unknown (`why`: the daemon or driver).
    NoProfileMapping {
        daemon: String,
    },
    ProfileImpliesNoEpp,
    NoSavedSettings {
        id: u32,
    },
    /// The settings were saved by another caller.
    NotYourSettings {
        id: u32,
    },
    CpuCount {
        count: usize,
        max: usize,
    },
    TrialCount {
        trials: u32,
        max: u32,
    },
    NoOnlineCpu {
        cpu: u32,
    },
    /// The CPU is in the tree but the helper may not run on it (not this machine's).
    CpuUnavailable {
        cpu: u32,
    },
    MeasurementRunning,
    /// Only the caller that started the measurement may cancel it.
    NotYourMeasurement,
    /// The caller has no watch of changes with this handle.
    NoSuchWatch {
        handle: u32,
    },
    /// The helper is busy with as many calls as it takes at once.
    TooManyCalls,
    /// The kernel refused a write: the file, its errno (when there is one) and the value.
    WriteRefused {
        file: String,
        errno: Option<i32>,
        value: String,
    },
    /// The machine could not be read.
    MachineUnreadable {
        error: String,
    },
    /// The journal of settings to restore could not be written.
    Journal {
        error: String,
    },
    /// A measurement failed.
    MeasurementFailed {
        error: String,
    },
    /// Something inside the helper failed.
    Internal {
        error: String,
    },
    /// An error from a helper that sent no arguments (an older one): its own text.
    Other {
        kind: String,
        text: String,
    },
}

impl Problem {
    /// The D-Bus error this problem travels as.
    pub fn kind(&self) -> ErrorKind {
        use ErrorKind::*;
        match self {
            Problem::NotAuthorized { .. } | Problem::PolkitUnreachable { .. } => NotAuthorized,
            Problem::NoPolicies
            | Problem::TooManyPolicies { .. }
            | Problem::NoSuchPolicy { .. }
            | Problem::NotAGovernor { .. }
            | Problem::GovernorNotOffered { .. }
            | Problem::NotAnEpp { .. }
            | Problem::EppNotOffered { .. }
            | Problem::NotADriverMode { .. }
            | Problem::FrequencyOutOfRange { .. }
            | Problem::NoSavedSettings { .. }
            | Problem::CpuCount { .. }
            | Problem::TrialCount { .. }
            | Problem::NoOnlineCpu { .. }
            | Problem::CpuUnavailable { .. } => InvalidArgument,
            Problem::PolicyOffline { .. }
            | Problem::EppHeldByGovernor { .. }
            | Problem::EppSetByKernel
            | Problem::MaxFrequencyHeld { .. }
            | Problem::MeasurementRunning
            | Problem::TooManyCalls => Busy,
            Problem::NotYourSettings { .. }
            | Problem::NotYourMeasurement
            | Problem::NoSuchWatch { .. } => NotAuthorized,
            Problem::NoEpp { .. }
            | Problem::NoBoostSwitch
            | Problem::BoostOnlyForAll
            | Problem::NoFrequencyLimits { .. }
            | Problem::NoEasSupport
            | Problem::EasImpossible { .. }
            | Problem::NoDriverModes
            | Problem::NoProfileDaemon
            | Problem::NoProfileMapping { .. }
            | Problem::ProfileImpliesNoEpp => NotSupported,
            Problem::WriteRefused { errno, .. } => match errno {
                Some(EBUSY) => Busy,
                Some(EINVAL) => InvalidArgument,
                Some(ENOENT | EOPNOTSUPP) => NotSupported,
                _ => Failed,
            },
            Problem::MachineUnreadable { .. }
            | Problem::Journal { .. }
            | Problem::MeasurementFailed { .. }
            | Problem::Internal { .. } => Failed,
            Problem::Other { kind, .. } => ErrorKind::ALL
                .into_iter()
                .find(|known| known.as_str() == kind)
                .unwrap_or(Failed),
        }
    }
}

const ENOENT: i32 = 2;
const EBUSY: i32 = 16;
const EINVAL: i32 = 22;
const EOPNOTSUPP: i32 = 95;

/// The C name of an errno the kernel returns for sysfs writes, for the people who tune it.
fn errno_name(errno: i32) -> Option<&'static str> {
    Some(match errno {
        1 => "EPERM",
        ENOENT => "ENOENT",
        5 => "EIO",
        13 => "EACCES",
        EBUSY => "EBUSY",
        21 => "EISDIR",
        EINVAL => "EINVAL",
        28 => "ENOSPC",
        30 => "EROFS",
        40 => "ELOOP",
        EOPNOTSUPP => "EOPNOTSUPP",
        _ => return None,
    })
}

/// The system's words for an errno, with its C name: "Device or resource busy (EBUSY)".
fn errno_text(errno: i32) -> String {
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    let text = text.split(" (os error").next().unwrap_or(&text).to_owned();
    match errno_name(errno) {
        Some(name) => format!("{text} ({name})"),
        None => format!("{text} (errno {errno})"),
    }
}

fn list(items: &[String]) -> String {
    items.join(", ")
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Problem::NotAuthorized { action } => fill(
                gettext("not authorized for {action}"),
                &[("action", action)],
            ),
            Problem::PolkitUnreachable { action, error } => fill(
                gettext("polkit could not be asked about {action}: {error}"),
                &[("action", action), ("error", error)],
            ),
            Problem::NoPolicies => gettext("no policies given"),
            Problem::TooManyPolicies { count } => fill(
                gettext("{count} policies is more than any machine has"),
                &[("count", count)],
            ),
            Problem::NoSuchPolicy { policy } => fill(
                gettext("there is no policy {policy}"),
                &[("policy", policy)],
            ),
            Problem::PolicyOffline { policy } => fill(
                gettext("policy {policy} has no online CPU"),
                &[("policy", policy)],
            ),
            Problem::NotAGovernor { value } => fill(
                gettext("{governor} is not a governor name"),
                &[("governor", &format!("{value:?}"))],
            ),
            Problem::GovernorNotOffered {
                policy,
                governor,
                offered,
            } => fill(
                gettext("policy {policy} does not offer the {governor} governor (it offers: {offered})"),
                &[("policy", policy), ("governor", governor), ("offered", &list(offered))],
            ),
            Problem::NotAnEpp { value } => fill(
                gettext("{value} is not an energy-performance preference (a name such as balance_performance, or a number 0-255)"),
                &[("value", &format!("{value:?}"))],
            ),
            Problem::NoEpp { policy } => fill(
                gettext("policy {policy} has no energy-performance preference"),
                &[("policy", policy)],
            ),
            Problem::EppNotOffered { policy, epp, offered } => fill(
                gettext("policy {policy} does not take the EPP {epp} (it offers: {offered})"),
                &[("policy", policy), ("epp", epp), ("offered", &list(offered))],
            ),
            Problem::EppHeldByGovernor { policies } => fill(
                gettext("the performance governor on policy {policies} holds EPP at performance and the kernel refuses any other EPP; set the governor to powersave first"),
                &[("policies", policies)],
            ),
            Problem::EppSetByKernel => gettext("the kernel sets the energy-performance preference itself here (amd-pstate's dynamic EPP) and refuses any other; switch dynamic EPP off to choose it"),
            Problem::NoBoostSwitch => gettext("this machine has no turbo or boost switch"),
            Problem::BoostOnlyForAll => {
                gettext("turbo can only be switched for all policies at once on this machine")
            }
            Problem::NoFrequencyLimits { policy } => fill(
                gettext("policy {policy} has no frequency limits to set"),
                &[("policy", policy)],
            ),
            Problem::FrequencyOutOfRange {
                policy,
                khz,
                min,
                max,
            } => fill(
                gettext("{khz} kHz is outside the range of policy {policy}: {min}-{max} kHz"),
                &[("khz", khz), ("policy", policy), ("min", min), ("max", max)],
            ),
            Problem::MaxFrequencyHeld {
                policies,
                khz,
                held,
            } => fill(
                gettext("the firmware or the kernel holds the maximum frequency of policy {policies} at {held}, below the {asked} asked for: the lowest of all limits on a policy is the one in force, and Pacer cannot lift one it did not set"),
                &[
                    ("policies", policies),
                    ("held", &Khz(*held).words()),
                    ("asked", &Khz(*khz).words()),
                ],
            ),
            Problem::NoEasSupport => {
                gettext("the kernel was built without energy-aware scheduling")
            }
            Problem::EasImpossible { reasons } => {
                let reasons: Vec<String> = reasons.iter().map(ToString::to_string).collect();
                fill(
                    gettext("energy-aware scheduling is impossible now: {reasons}"),
                    &[("reasons", &reasons.join("; "))],
                )
            }
            Problem::NoDriverModes => {
                gettext("the frequency driver has no modes to switch between")
            }
            Problem::NotADriverMode { value, modes } => fill(
                gettext("{mode} is not a mode of this driver (it has: {modes})"),
                &[("mode", &format!("{value:?}")), ("modes", &list(modes))],
            ),
            Problem::NoProfileDaemon => gettext("no power-profile daemon is running"),
            Problem::NoProfileMapping { daemon } => fill(
                gettext("{daemon} sets no fixed EPP for its profiles, so there is none to re-apply"),
                &[("daemon", daemon)],
            ),
            Problem::ProfileImpliesNoEpp => gettext("the profile implies no EPP"),
            Problem::NoSavedSettings { id } => fill(
                gettext("there are no saved settings {id}"),
                &[("id", id)],
            ),
            Problem::NotYourSettings { id } => fill(
                gettext("the saved settings {id} belong to another program"),
                &[("id", id)],
            ),
            Problem::CpuCount { max, .. } => fill(
                gettext("give between 1 and {max} CPUs"),
                &[("max", max)],
            ),
            Problem::TrialCount { max, .. } => fill(
                gettext("give between 1 and {max} trials"),
                &[("max", max)],
            ),
            Problem::NoOnlineCpu { cpu } => fill(
                gettext("there is no online CPU {cpu}"),
                &[("cpu", cpu)],
            ),
            Problem::CpuUnavailable { cpu } => fill(
                gettext("CPU {cpu} is not one this machine lets Pacer run on"),
                &[("cpu", cpu)],
            ),
            Problem::MeasurementRunning => gettext("a measurement is already running"),
            Problem::NotYourMeasurement => {
                gettext("the running measurement was started by another program")
            }
            Problem::NoSuchWatch { handle } => fill(
                gettext("this program has no watch of changes {handle}"),
                &[("handle", handle)],
            ),
            Problem::TooManyCalls => {
                gettext("pacer-helper is answering too many calls at once; try again")
            }
            Problem::WriteRefused { file, errno, value } => {
                let error = errno.map_or_else(|| gettext("the write failed"), errno_text);
                fill(
                    gettext("{file}: writing {value} failed: {error}"),
                    &[("file", file), ("value", &format!("{value:?}")), ("error", &error)],
                )
            }
            Problem::MachineUnreadable { error } => fill(
                gettext("the machine cannot be read: {error}"),
                &[("error", error)],
            ),
            Problem::Journal { error } => fill(
                gettext("cannot record the settings in the journal: {error}"),
                &[("error", error)],
            ),
            Problem::MeasurementFailed { error } => fill(
                gettext("the measurement failed: {error}"),
                &[("error", error)],
            ),
            Problem::Internal { error } => fill(
                gettext("pacer-helper failed: {error}"),
                &[("error", error)],
            ),
            Problem::Other { text, .. } => text.clone(),
        };
        f.write_str(&text)
    }
}

#[cfg(test)]
mod tests;

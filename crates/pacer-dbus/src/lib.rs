// SPDX-License-Identifier: GPL-3.0-or-later
//! The wire contract between `pacer-helper` and its clients (`pacerctl`, the window): the
//! bus name, object path and interface, the polkit actions, the proxy, and one error type
//! whose D-Bus names both sides share (`io.github.pacerapp.Pacer.Helper1.Error.<Variant>`);
//! in [`measurement`], the documents a measurement answers with and its progress; and, in
//! [`client`], the calls both clients make.

pub mod client;
pub mod history;
pub mod measurement;
mod problem;

pub use problem::{echo, ErrorKind, Problem, ECHO_LIMIT};

use pacer_core::values::{DriverMode, Epp, Governor};

/// The helper's well-known name on the system bus, and its interface.
pub const BUS_NAME: &str = "io.github.pacerapp.Pacer.Helper1";
pub const INTERFACE: &str = "io.github.pacerapp.Pacer.Helper1";
pub const OBJECT_PATH: &str = "/io/github/pacerapp/Pacer/Helper1";
/// The interface of who changed the power state, on the same name and object.
pub const HISTORY_INTERFACE: &str = "io.github.pacerapp.Pacer.History1";

/// What a request of the helper's is about, by one name: polkit is told it as the details'
/// `setting`, for rules and for its messages, and the `Changed` signal announces it as `what`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    Governor,
    Epp,
    Boost,
    /// The maximum frequency (`scaling_max_freq`).
    MaxFrequency,
    Eas,
    Mode,
    /// Settings saved for later, or given back.
    SavedSettings,
    /// Settings given back after their caller left, or at the next start after a crash.
    Restore,
    Measurement,
    /// The record of who changed what.
    History,
}

/// What a change is, for polkit's rules and its dialog (the policy file's messages use them):
/// `setting`, `value`, `policies`. The helper tells polkit these, and the window tells it the
/// same when it asks about the caller of its own session service (State1).
pub type Details = [(&'static str, String); 3];

/// Which policies a change is for, in polkit's details.
#[derive(Debug, Clone, Copy)]
pub enum Policies<'a> {
    All,
    These(&'a [u32]),
}

/// The details of `setting` set to `value` on `policies`.
pub fn details(setting: Topic, value: impl ToString, policies: Policies<'_>) -> Details {
    let policies = match policies {
        Policies::All => "all".to_owned(),
        Policies::These(ids) => ids
            .iter()
            .copied()
            .collect::<pacer_core::CpuSet>()
            .to_string(),
    };
    [
        ("setting", setting.name().to_owned()),
        ("value", value.to_string()),
        ("policies", policies),
    ]
}

impl Topic {
    pub const fn name(self) -> &'static str {
        match self {
            Topic::Governor => "governor",
            Topic::Epp => "epp",
            Topic::Boost => "boost",
            Topic::MaxFrequency => "maximum frequency",
            Topic::Eas => "eas",
            Topic::Mode => "mode",
            Topic::SavedSettings => "saved settings",
            Topic::Restore => "restore",
            Topic::Measurement => "measurement",
            Topic::History => "history",
        }
    }
}

/// polkit actions, one per kind of change.
pub mod actions {
    /// Governor, EPP, boost and the maximum frequency: allowed for active local sessions.
    pub const SET_CPU_POWER: &str = "io.github.pacerapp.Pacer.set-cpu-power";
    /// Energy Aware Scheduling: administrator authentication.
    pub const SET_SCHEDULER: &str = "io.github.pacerapp.Pacer.set-scheduler";
    /// intel_pstate / amd-pstate mode: administrator authentication.
    pub const SET_DRIVER_MODE: &str = "io.github.pacerapp.Pacer.set-driver-mode";
    /// Temporary changes for a measurement, restored afterwards.
    pub const RUN_MEASUREMENT: &str = "io.github.pacerapp.Pacer.run-measurement";
    /// Reading who changed the power state: allowed for active local sessions.
    pub const READ_HISTORY: &str = "io.github.pacerapp.Pacer.read-history";

    pub const ALL: [&str; 5] = [
        SET_CPU_POWER,
        SET_SCHEDULER,
        SET_DRIVER_MODE,
        RUN_MEASUREMENT,
        READ_HISTORY,
    ];
}

/// The prefix of the helper's D-Bus error names; the last part is the [`ErrorKind`].
pub const ERROR_PREFIX: &str = "io.github.pacerapp.Pacer.Helper1.Error";

/// Every error a helper call ends in: the bus's own, or the helper's [`Problem`]. On the wire
/// a problem is the error `<ERROR_PREFIX>.<Kind>` with two strings: a description for people
/// reading the bus (`busctl`, logs) and the problem as JSON, which clients word themselves.
#[derive(Debug)]
pub enum HelperError {
    /// A D-Bus failure (no helper on the bus, a broken connection).
    ZBus(zbus::Error),
    /// The helper refused or failed.
    Helper(Problem),
}

impl From<Problem> for HelperError {
    fn from(problem: Problem) -> Self {
        HelperError::Helper(problem)
    }
}

impl From<zbus::Error> for HelperError {
    fn from(error: zbus::Error) -> Self {
        HelperError::from_call(error)
    }
}

impl std::fmt::Display for HelperError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HelperError::ZBus(error) => error.fmt(f),
            HelperError::Helper(problem) => problem.fmt(f),
        }
    }
}

impl std::error::Error for HelperError {}

impl zbus::DBusError for HelperError {
    fn create_reply(&self, call: &zbus::message::Header<'_>) -> zbus::Result<zbus::Message> {
        match self {
            HelperError::ZBus(error) => {
                zbus::fdo::Error::Failed(error.to_string()).create_reply(call)
            }
            HelperError::Helper(problem) => {
                let detail = serde_json::to_string(problem)
                    .map_err(|error| zbus::Error::Failure(error.to_string()))?;
                zbus::Message::error(call, self.name())?.build(&(problem.to_string(), detail))
            }
        }
    }

    fn name(&self) -> zbus::names::ErrorName<'_> {
        match self {
            HelperError::ZBus(_) => zbus::names::ErrorName::from_static_str_unchecked(
                "org.freedesktop.DBus.Error.Failed",
            ),
            HelperError::Helper(problem) => zbus::names::ErrorName::from_string_unchecked(format!(
                "{ERROR_PREFIX}.{}",
                problem.kind().as_str()
            )),
        }
    }

    fn description(&self) -> Option<&str> {
        match self {
            // Worded on demand, in `create_reply`.
            HelperError::ZBus(_) | HelperError::Helper(_) => None,
        }
    }
}

/// One policy's setting as the kernel reads it back after a write.
pub type PolicyValue = (u32, String);

/// The helper's interface, for clients.
#[zbus::proxy(
    interface = "io.github.pacerapp.Pacer.Helper1",
    default_service = "io.github.pacerapp.Pacer.Helper1",
    default_path = "/io/github/pacerapp/Pacer/Helper1"
)]
pub trait Helper1 {
    /// Sets the governor of `policies`; returns each policy's governor read back.
    #[zbus(allow_interactive_auth)]
    fn set_governor(&self, policies: &[u32], governor: &Governor)
        -> zbus::Result<Vec<PolicyValue>>;

    /// Sets the EPP of `policies` (a name, or a number 0–255 where the driver takes one);
    /// returns each policy's EPP read back.
    #[zbus(allow_interactive_auth)]
    fn set_epp(&self, policies: &[u32], epp: &Epp) -> zbus::Result<Vec<PolicyValue>>;

    /// Allows or forbids turbo/boost on `policies`: the machine-wide switch when they are
    /// all of them (`intel_pstate/no_turbo`, `cpufreq/boost`), else each policy's `boost`;
    /// returns per policy `1` (allowed) or `0` as read back.
    #[zbus(allow_interactive_auth)]
    fn set_boost(&self, policies: &[u32], enabled: bool) -> zbus::Result<Vec<PolicyValue>>;

    /// Sets the maximum frequency of `policies` (`scaling_max_freq`, in kHz, within each
    /// one's `cpuinfo_min_freq`..`cpuinfo_max_freq`); returns each policy's maximum read back.
    /// Fails with [`Problem::MaxFrequencyHeld`] where it reads back lower: another limit holds it.
    #[zbus(allow_interactive_auth)]
    fn set_max_frequency(&self, policies: &[u32], khz: u32) -> zbus::Result<Vec<PolicyValue>>;

    /// Switches Energy Aware Scheduling on or off; returns the sysctl read back.
    #[zbus(allow_interactive_auth)]
    fn set_eas(&self, enabled: bool) -> zbus::Result<String>;

    /// Switches the driver's mode (`active`, `passive`, `guided`); returns the mode read back.
    #[zbus(allow_interactive_auth)]
    fn set_driver_mode(&self, mode: &DriverMode) -> zbus::Result<String>;

    /// Writes the EPP the active power profile implies to every policy; returns each
    /// policy's EPP read back.
    #[zbus(allow_interactive_auth)]
    fn reapply_profile_epp(&self) -> zbus::Result<Vec<PolicyValue>>;

    /// The full state as `pacerctl status --json` prints it, read as root (energy model,
    /// RAPL counters).
    fn snapshot(&self) -> zbus::Result<String>;

    /// Records the current governor, EPP, boost, EAS and mode settings in the journal before
    /// temporary changes; returns the journal's id. They come back with `RestoreSettings`, when
    /// the caller leaves the bus, or when the helper next starts after a crash.
    #[zbus(allow_interactive_auth)]
    fn save_settings(&self) -> zbus::Result<u32>;

    /// Restores the settings saved under `id`.
    #[zbus(allow_interactive_auth)]
    fn restore_settings(&self, id: u32) -> zbus::Result<()>;

    /// Measures the ramp on `cpus` as root (highest priority, energy where RAPL counts it);
    /// returns the schema-1 report as JSON.
    #[zbus(allow_interactive_auth)]
    fn measure_ramp(&self, cpus: &[u32], trials: u32) -> zbus::Result<String>;

    /// Stops the running measurement.
    #[zbus(allow_interactive_auth)]
    fn cancel_measurement(&self) -> zbus::Result<()>;

    /// A measurement's progress: trial `trial` of `trials` on `cpu`, its stage (0 waiting
    /// for the CPU to go idle, 1 running, 2 done), the whole measurement's time left, the
    /// trial's curve so far and the CPU's frequency ([`measurement::progress`]).
    #[allow(clippy::too_many_arguments)]
    #[zbus(signal)]
    fn measure_progress(
        &self,
        cpu: u32,
        trial: u32,
        trials: u32,
        stage: u8,
        left_ms: u32,
        curve: Vec<(f64, f64)>,
        mhz: Vec<(f64, f64)>,
    ) -> zbus::Result<()>;

    /// A setting changed: `what` (`governor`, `epp`, `boost`, `maximum frequency`, `eas`,
    /// `mode`, `restore`) on `policies` (empty for machine-wide settings).
    #[zbus(signal)]
    fn changed(&self, what: &str, policies: Vec<u32>) -> zbus::Result<()>;
}

impl HelperError {
    /// The error a client sees, from the proxy's `zbus::Error`: the helper's own errors come
    /// back as their [`Problem`]; one without arguments (an older helper) keeps its kind and
    /// its text.
    pub fn from_call(error: zbus::Error) -> HelperError {
        if let zbus::Error::MethodError(name, text, message) = &error {
            if let Some(kind) = name
                .as_str()
                .strip_prefix(ERROR_PREFIX)
                .and_then(|rest| rest.strip_prefix('.'))
            {
                let detail = message.body().deserialize::<(String, String)>().ok();
                let problem = detail
                    .and_then(|(_, json)| serde_json::from_str(&json).ok())
                    .unwrap_or_else(|| Problem::Other {
                        kind: kind.to_owned(),
                        text: text.clone().unwrap_or_default(),
                    });
                return HelperError::Helper(problem);
            }
        }
        HelperError::ZBus(error)
    }

    /// The helper's problem, where it is one.
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            HelperError::Helper(problem) => Some(problem),
            HelperError::ZBus(_) => None,
        }
    }

    /// The kind of the helper's refusal, to branch on.
    pub fn kind(&self) -> Option<ErrorKind> {
        self.problem().map(Problem::kind)
    }
}

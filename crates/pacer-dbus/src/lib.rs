//! The wire contract between `pacer-helper` and its clients (`pacerctl`, the window): the
//! bus name, object path and interface, the polkit actions, the proxy, and one error type
//! whose D-Bus names both sides share (`io.github.pacerapp.Pacer.Helper1.Error.<Variant>`);
//! and, in [`client`], the calls both clients make.

use zbus::DBusError;

pub mod client;

/// The helper's well-known name on the system bus, and its interface.
pub const BUS_NAME: &str = "io.github.pacerapp.Pacer.Helper1";
pub const INTERFACE: &str = "io.github.pacerapp.Pacer.Helper1";
pub const OBJECT_PATH: &str = "/io/github/pacerapp/Pacer/Helper1";

/// polkit actions, one per kind of change.
pub mod actions {
    /// Governor, EPP and boost: allowed for active local sessions.
    pub const SET_CPU_POWER: &str = "io.github.pacerapp.Pacer.set-cpu-power";
    /// Energy Aware Scheduling: administrator authentication.
    pub const SET_SCHEDULER: &str = "io.github.pacerapp.Pacer.set-scheduler";
    /// intel_pstate / amd-pstate mode: administrator authentication.
    pub const SET_DRIVER_MODE: &str = "io.github.pacerapp.Pacer.set-driver-mode";
    /// Temporary changes for a measurement, restored afterwards.
    pub const RUN_MEASUREMENT: &str = "io.github.pacerapp.Pacer.run-measurement";

    pub const ALL: [&str; 4] = [
        SET_CPU_POWER,
        SET_SCHEDULER,
        SET_DRIVER_MODE,
        RUN_MEASUREMENT,
    ];
}

/// Every error the helper returns. The message names the file and the kernel's errno where
/// there is one.
#[derive(Debug, DBusError)]
#[zbus(prefix = "io.github.pacerapp.Pacer.Helper1.Error")]
pub enum HelperError {
    /// A D-Bus failure (no helper on the bus, a broken connection).
    #[zbus(error)]
    ZBus(zbus::Error),
    /// polkit said no.
    NotAuthorized(String),
    /// The request names something the machine does not offer.
    InvalidArgument(String),
    /// The kernel refused for now (EBUSY), with the reason.
    Busy(String),
    /// The machine cannot do this at all.
    NotSupported(String),
    /// Anything else, with the file and errno.
    Failed(String),
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
    fn set_governor(&self, policies: &[u32], governor: &str) -> zbus::Result<Vec<PolicyValue>>;

    /// Sets the EPP of `policies` (a name, or a number 0–255 where the driver takes one);
    /// returns each policy's EPP read back.
    fn set_epp(&self, policies: &[u32], epp: &str) -> zbus::Result<Vec<PolicyValue>>;

    /// Allows or forbids turbo/boost on `policies`: the machine-wide switch when they are
    /// all of them (`intel_pstate/no_turbo`, `cpufreq/boost`), else each policy's `boost`;
    /// returns per policy `1` (allowed) or `0` as read back.
    fn set_boost(&self, policies: &[u32], enabled: bool) -> zbus::Result<Vec<PolicyValue>>;

    /// Switches Energy Aware Scheduling on or off; returns the sysctl read back.
    fn set_eas(&self, enabled: bool) -> zbus::Result<String>;

    /// Switches the driver's mode (`active`, `passive`, `guided`); returns the mode read back.
    fn set_driver_mode(&self, mode: &str) -> zbus::Result<String>;

    /// Writes the EPP the active power profile implies to every policy; returns each
    /// policy's EPP read back.
    fn reapply_profile_epp(&self) -> zbus::Result<Vec<PolicyValue>>;

    /// The full state as `pacerctl status --json` prints it, read as root (energy model,
    /// RAPL counters).
    fn snapshot(&self) -> zbus::Result<String>;

    /// Records the current governor, EPP, boost, EAS and mode settings in the journal before
    /// temporary changes; returns the journal's id. They come back with `RestoreSettings`, when
    /// the caller leaves the bus, or when the helper next starts after a crash.
    fn save_settings(&self) -> zbus::Result<u32>;

    /// Restores the settings saved under `id`.
    fn restore_settings(&self, id: u32) -> zbus::Result<()>;

    /// Measures the ramp on `cpus` as root (highest priority, energy where RAPL counts it);
    /// returns the schema-1 report as JSON.
    fn measure_ramp(&self, cpus: &[u32], trials: u32) -> zbus::Result<String>;

    /// Stops the running measurement.
    fn cancel_measurement(&self) -> zbus::Result<()>;

    /// A measurement's progress: trial `trial` of `trials` on `cpu`.
    #[zbus(signal)]
    fn measure_progress(&self, cpu: u32, trial: u32, trials: u32) -> zbus::Result<()>;

    /// A setting changed: `what` (`governor`, `epp`, `boost`, `eas`, `mode`, `restore`) on
    /// `policies` (empty for machine-wide settings).
    #[zbus(signal)]
    fn changed(&self, what: &str, policies: Vec<u32>) -> zbus::Result<()>;
}

impl HelperError {
    /// The error a client sees, from the proxy's `zbus::Error`: the helper's own names map
    /// back to their variant.
    pub fn from_call(error: zbus::Error) -> HelperError {
        if let zbus::Error::MethodError(name, message, _) = &error {
            let message = message.clone().unwrap_or_default();
            let prefix = "io.github.pacerapp.Pacer.Helper1.Error.";
            if let Some(variant) = name.as_str().strip_prefix(prefix) {
                return match variant {
                    "NotAuthorized" => HelperError::NotAuthorized(message),
                    "InvalidArgument" => HelperError::InvalidArgument(message),
                    "Busy" => HelperError::Busy(message),
                    "NotSupported" => HelperError::NotSupported(message),
                    _ => HelperError::Failed(message),
                };
            }
        }
        HelperError::ZBus(error)
    }

    /// The message alone, without the error's name.
    pub fn message(&self) -> String {
        match self {
            HelperError::ZBus(error) => error.to_string(),
            HelperError::NotAuthorized(m)
            | HelperError::InvalidArgument(m)
            | HelperError::Busy(m)
            | HelperError::NotSupported(m)
            | HelperError::Failed(m) => m.clone(),
        }
    }
}

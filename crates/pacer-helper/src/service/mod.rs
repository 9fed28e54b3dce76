// SPDX-License-Identifier: GPL-3.0-or-later
//! The helper's D-Bus interface. Every method that changes something goes: parse → validate
//! the whole request against what the machine offers ([`crate::validate`]) → ask polkit
//! about the *caller* → write → read back → report (and announce by signal).
//!
//! zbus takes an interface's methods from one `impl` block, so that block is here, and each
//! method in it only hands its request on to the `impl` block of its concern, one file each:
//! `settings` (governor, EPP, turbo, the maximum frequency, EAS, the driver's mode, the
//! profile's EPP, and the writes they share), `saved` (settings saved for later and given
//! back, also when their owner leaves or the helper stops) and `measurement` (the ramp
//! measurement and its cancelling). This file holds the type, what every method shares (counting the call,
//! reading the machine, the path of a change and its announcement), and the helper's own
//! comings and goings.

// zbus::interface gives MeasureProgress's emitter eight arguments (the signal's seven and
// the emitter), beyond the reach of an attribute on the signal itself.
#![allow(clippy::too_many_arguments)]

mod measurement;
mod saved;
mod settings;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use pacer_core::history::Writer;
use pacer_core::machine::Snapshot;
use pacer_core::status_json::StatusDocument;
use pacer_dbus::{HelperError, PolicyValue, Problem, Topic};
use zbus::message::Header;
use zbus::object_server::SignalEmitter;
use zbus_polkit::policykit1::AuthorityProxy;

use crate::activity::{Activity, Call};
use crate::authority::{Authority, Change};
use crate::followers::caller_process;
use crate::journal::Journal;
use crate::kernel::Kernel;
use crate::recorded::Log;
use crate::status_cache::StatusCache;

/// A measurement under way: who started it, and its stop switch.
#[derive(Debug)]
struct Running {
    owner: String,
    cancel: Arc<AtomicBool>,
}

#[derive(Debug)]
pub struct Helper {
    kernel: Arc<Kernel>,
    authority: Authority,
    /// One write at a time: a request's writes never interleave with another's.
    writes: tokio::sync::Mutex<()>,
    journal: Journal,
    activity: Activity,
    status: StatusCache,
    /// One measurement at a time.
    measurement: Mutex<Option<Running>>,
    /// Where its writes are recorded, as Pacer's for the caller.
    log: Log,
}

/// The caller's unique name on the bus.
fn caller(header: &Header<'_>) -> String {
    header.sender().map(ToString::to_string).unwrap_or_default()
}

impl Helper {
    pub fn new(
        kernel: Arc<Kernel>,
        polkit: Option<AuthorityProxy<'static>>,
        profile_bus: Option<zbus::Connection>,
        journal: Journal,
        activity: Activity,
        log: Log,
    ) -> Helper {
        Helper {
            status: StatusCache::new(Arc::clone(&kernel), profile_bus),
            kernel,
            authority: Authority::new(polkit),
            writes: tokio::sync::Mutex::new(()),
            journal,
            activity,
            measurement: Mutex::new(None),
            log,
        }
    }

    fn call(&self) -> Result<Call, Problem> {
        self.activity.call()
    }

    fn read_machine(&self) -> Result<Snapshot, Problem> {
        self.kernel
            .snapshot()
            .map_err(|error| Problem::MachineUnreadable {
                error: error.to_string(),
            })
    }

    /// The path of every method that changes a setting: count the call, read the machine,
    /// validate the whole request against it (`plan`: the change, and what to write), ask
    /// polkit about the caller, write for the caller's process and read back (`apply`),
    /// announce.
    async fn change<P, R>(
        &self,
        header: &Header<'_>,
        emitter: &SignalEmitter<'_>,
        plan: impl FnOnce(&Snapshot) -> Result<(Change, P), Problem>,
        apply: impl AsyncFnOnce(Option<Writer>, P) -> Result<R, Problem>,
    ) -> Result<R, HelperError> {
        let _call = self.call()?;
        let snapshot = self.read_machine()?;
        let (change, planned) = plan(&snapshot)?;
        self.authority
            .check(header, change.action, &change.details)
            .await?;
        let by = caller_process(emitter.connection(), header).await;
        let result = apply(by, planned).await?;
        let (what, policies) = change.announce;
        self.changed_now(emitter, what, policies).await;
        Ok(result)
    }

    /// Announces a change and forgets the cached state it made stale.
    async fn changed_now(&self, emitter: &SignalEmitter<'_>, what: Topic, policies: Vec<u32>) {
        self.status.forget().await;
        if let Err(error) = Self::changed(emitter, what.name(), policies).await {
            eprintln!(
                "pacer-helper: announcing a change of {}: {error}",
                what.name()
            );
        }
    }

    /// `name` left the bus: its measurement stops and the settings it saved come back.
    pub async fn departed(&self, name: &str) {
        self.stop_measurement_where(|owner| owner == name);
        self.restore_where(|owner| owner == name).await;
    }

    /// The helper is stopping: the measurement stops, and every saved setting comes back.
    pub async fn stopping(&self) {
        self.stop_measurement_where(|_| true);
        self.restore_where(|_| true).await;
    }
}

#[zbus::interface(name = "io.github.pacerapp.Pacer.Helper1")]
impl Helper {
    async fn set_governor(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        policies: Vec<u32>,
        governor: String,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.change_governor(&header, &emitter, &policies, &governor)
            .await
    }

    async fn set_epp(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        policies: Vec<u32>,
        epp: String,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.change_epp(&header, &emitter, &policies, &epp).await
    }

    async fn set_boost(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        policies: Vec<u32>,
        enabled: bool,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.change_boost(&header, &emitter, &policies, enabled)
            .await
    }

    async fn set_max_frequency(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        policies: Vec<u32>,
        khz: u32,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.change_max_frequency(&header, &emitter, &policies, khz)
            .await
    }

    async fn set_eas(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        enabled: bool,
    ) -> Result<String, HelperError> {
        self.change_eas(&header, &emitter, enabled).await
    }

    async fn set_driver_mode(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        mode: String,
    ) -> Result<String, HelperError> {
        self.change_driver_mode(&header, &emitter, &mode).await
    }

    /// Writes the EPP the active power profile implies to every policy whose EPP it does
    /// not imply.
    async fn reapply_profile_epp(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.reapply_epp_of_profile(&header, &emitter).await
    }

    /// The state as `pacerctl status` prints it in JSON, from a reading no older than a
    /// second: a flood of calls costs one reading a second.
    async fn snapshot(&self) -> Result<String, HelperError> {
        let _call = self.call()?;
        let status = self.status.recent().await?;
        serde_json::to_string(&StatusDocument::new(&status)).map_err(|error| {
            Problem::Internal {
                error: error.to_string(),
            }
            .into()
        })
    }

    async fn save_settings(&self, #[zbus(header)] header: Header<'_>) -> Result<u32, HelperError> {
        self.save_callers_settings(&header).await
    }

    /// Restores the settings saved under `id`: only the caller that saved them may.
    async fn restore_settings(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        id: u32,
    ) -> Result<(), HelperError> {
        self.restore_callers_settings(&header, &emitter, id).await
    }

    /// Measures the ramp on `cpus` (`trials` each) as root: at the highest priority, with
    /// energy where RAPL counts it. Returns the schema-1 report as JSON; progress comes as
    /// `MeasureProgress`, and `CancelMeasurement` (from the same caller) stops it, as does
    /// the caller leaving the bus or the helper being stopped.
    async fn measure_ramp(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        cpus: Vec<u32>,
        trials: u32,
    ) -> Result<String, HelperError> {
        self.run_ramp_measurement(&header, &emitter, cpus, trials)
            .await
    }

    /// Stops the running measurement (it returns what it has). Only its caller may.
    async fn cancel_measurement(
        &self,
        #[zbus(header)] header: Header<'_>,
    ) -> Result<(), HelperError> {
        self.cancel_callers_measurement(&header).await
    }

    #[zbus(signal)]
    async fn measure_progress(
        emitter: &SignalEmitter<'_>,
        cpu: u32,
        trial: u32,
        trials: u32,
        stage: u8,
        left_ms: u32,
        curve: Vec<(f64, f64)>,
        mhz: Vec<(f64, f64)>,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    async fn changed(
        emitter: &SignalEmitter<'_>,
        what: &str,
        policies: Vec<u32>,
    ) -> zbus::Result<()>;
}

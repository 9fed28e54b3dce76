// SPDX-License-Identifier: GPL-3.0-or-later
//! The helper's D-Bus interface. Every method that changes something goes: parse → validate
//! the whole request against what the machine offers ([`crate::validate`]) → ask polkit
//! about the *caller* → write → read back → report (and announce by signal).
//!
//! Longer than most files: zbus takes an interface's methods from one `impl` block, and
//! these are the helper's methods; the pieces they share live in `authority`, `validate`,
//! `journal` and `kernel`.

// zbus::interface gives MeasureProgress's emitter eight arguments (the signal's seven and
// the emitter), beyond the reach of an attribute on the signal itself.
#![allow(clippy::too_many_arguments)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pacer_core::history::Writer;
use pacer_core::machine::Snapshot;
use pacer_core::profile::expectation;
use pacer_core::status_json::StatusDocument;
use pacer_core::SysRoot;
use pacer_dbus::measurement::progress::Progress;
use pacer_dbus::{actions, details, HelperError, Policies, PolicyValue, Problem, Topic};
use pacer_measure::report::RampOptions;
use pacer_measure::source::ramp_of;
use zbus::message::Header;
use zbus::object_server::SignalEmitter;
use zbus_polkit::policykit1::AuthorityProxy;

use crate::activity::{Activity, Call};
use crate::authority::{Authority, Change};
use crate::followers::caller_process;
use crate::journal::{Journal, SaveError, Settings};
use crate::kernel::{Kernel, Target};
use crate::recorded::Log;
use crate::status_cache::StatusCache;
use crate::validate;

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

/// Where a turbo switch is written: one machine-wide file (and the value meaning the wanted
/// state), or each policy's `boost` file.
#[derive(Debug, Clone, Copy)]
enum BoostSwitch {
    Global(Target, &'static str),
    PerPolicy(&'static str),
}

fn on_off(enabled: bool) -> &'static str {
    if enabled {
        "on"
    } else {
        "off"
    }
}

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

    /// The measurement under way, if any (a poisoned lock still holds the truth: the
    /// measurement's state is set and cleared whole).
    fn running(&self) -> std::sync::MutexGuard<'_, Option<Running>> {
        self.measurement
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
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

    /// Saving and restoring settings: the same question to polkit either way.
    async fn authorize_saved_settings(&self, header: &Header<'_>) -> Result<(), Problem> {
        let details = details(Topic::SavedSettings, "", Policies::All);
        self.authority
            .check(header, actions::RUN_MEASUREMENT, &details)
            .await
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
        self.change(
            &header,
            &emitter,
            |snapshot| {
                let (ids, governor) = validate::governor(snapshot, &policies, &governor)?;
                let change = Change::new(
                    actions::SET_CPU_POWER,
                    Topic::Governor,
                    &governor,
                    Some(&ids),
                );
                Ok((change, (ids, governor)))
            },
            async |by, (ids, governor)| {
                self.write_each(by, &ids, Target::Governor, governor.as_str())
                    .await
            },
        )
        .await
    }

    async fn set_epp(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        policies: Vec<u32>,
        epp: String,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.change(
            &header,
            &emitter,
            |snapshot| {
                let (ids, epp) = validate::epp(snapshot, &policies, &epp)?;
                Ok((
                    Change::new(actions::SET_CPU_POWER, Topic::Epp, epp, Some(&ids)),
                    (ids, epp),
                ))
            },
            async |by, (ids, epp)| {
                self.write_each(by, &ids, Target::Epp, &epp.to_string())
                    .await
            },
        )
        .await
    }

    async fn set_boost(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        policies: Vec<u32>,
        enabled: bool,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.change(
            &header,
            &emitter,
            |snapshot| {
                let ids: Vec<u32> = validate::policies(snapshot, &policies)?
                    .iter()
                    .map(|policy| policy.id)
                    .collect();
                let switch = self.boost_switch(snapshot, &ids, enabled)?;
                let change = Change::new(
                    actions::SET_CPU_POWER,
                    Topic::Boost,
                    on_off(enabled),
                    Some(&ids),
                );
                Ok((change, (ids, switch)))
            },
            async |by, (ids, switch)| match switch {
                BoostSwitch::Global(target, value) => {
                    let now = self.write_one(by, target, value).await?;
                    let allowed = if target == Target::NoTurbo {
                        now == "0"
                    } else {
                        now == "1"
                    };
                    let value = if allowed { "1" } else { "0" };
                    Ok(ids.iter().map(|&id| (id, value.to_owned())).collect())
                }
                BoostSwitch::PerPolicy(flag) => {
                    self.write_each(by, &ids, Target::PolicyBoost, flag).await
                }
            },
        )
        .await
    }

    async fn set_eas(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        enabled: bool,
    ) -> Result<String, HelperError> {
        self.change(
            &header,
            &emitter,
            |snapshot| {
                validate::eas(snapshot)?;
                Ok((
                    Change::new(actions::SET_SCHEDULER, Topic::Eas, on_off(enabled), None),
                    (),
                ))
            },
            async |by, ()| {
                if let Some(current) = self.kernel.read(Target::EasSysctl) {
                    self.journal
                        .note_eas_before_change(&current)
                        .map_err(|error| Problem::Journal {
                            error: error.to_string(),
                        })?;
                }
                self.write_one(by, Target::EasSysctl, if enabled { "1" } else { "0" })
                    .await
            },
        )
        .await
    }

    async fn set_driver_mode(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        mode: String,
    ) -> Result<String, HelperError> {
        self.change(
            &header,
            &emitter,
            |snapshot| {
                let (target, mode) = validate::driver_mode(snapshot, &mode)?;
                Ok((
                    Change::new(actions::SET_DRIVER_MODE, Topic::Mode, mode, None),
                    (target, mode),
                ))
            },
            async |by, (target, mode)| self.write_one(by, target, &mode.to_string()).await,
        )
        .await
    }

    /// Authorised first: finding out what to write reads the machine and the bus, which is
    /// work an unauthorised caller does not get to cause.
    async fn reapply_profile_epp(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        let _call = self.call()?;
        let details = details(Topic::Epp, "the active profile's", Policies::All);
        self.authority
            .check(&header, actions::SET_CPU_POWER, &details)
            .await?;
        let status = self.status.fresh().await?;
        let Some(profile) = &status.profile else {
            return Err(Problem::NoProfileDaemon.into());
        };
        let expected = expectation(profile, &status.snapshot.driver).map_err(|_| {
            Problem::NoProfileMapping {
                daemon: profile.daemon.to_string(),
            }
        })?;
        let Some(&epp) = expected.epp.first() else {
            return Err(Problem::ProfileImpliesNoEpp.into());
        };
        let ids: Vec<u32> = status
            .snapshot
            .policies
            .iter()
            .filter(|p| {
                p.is_active()
                    && p.epp
                        .is_some_and(|current| !expected.epp.contains(&current))
            })
            .map(|p| p.id)
            .collect();
        let by = caller_process(emitter.connection(), &header).await;
        let read_back = self
            .write_each(by, &ids, Target::Epp, &epp.to_string())
            .await?;
        self.changed_now(&emitter, Topic::Epp, ids).await;
        Ok(read_back)
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
        let _call = self.call()?;
        self.authorize_saved_settings(&header).await?;
        let _one_at_a_time = self.writes.lock().await;
        self.journal
            .save(&caller(&header), Settings::read(&self.kernel))
            .map_err(|error: SaveError| {
                Problem::Journal {
                    error: error.to_string(),
                }
                .into()
            })
    }

    /// Restores the settings saved under `id`: only the caller that saved them may.
    async fn restore_settings(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        id: u32,
    ) -> Result<(), HelperError> {
        let _call = self.call()?;
        let Some(entry) = self.journal.get(id) else {
            return Err(Problem::NoSavedSettings { id }.into());
        };
        if entry.owner != caller(&header) {
            return Err(Problem::NotYourSettings { id }.into());
        }
        self.authorize_saved_settings(&header).await?;
        {
            let _one_at_a_time = self.writes.lock().await;
            self.journal.restore(&self.kernel, &entry)?;
        }
        self.changed_now(&emitter, Topic::Restore, Vec::new()).await;
        Ok(())
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
        let _call = self.call()?;
        let snapshot = self.read_machine()?;
        validate::measurement(&snapshot, &cpus, trials, validate::usable_cpus().as_ref())?;
        let list: Vec<u32> = cpus.clone();
        self.authority
            .check(
                &header,
                actions::RUN_MEASUREMENT,
                &details(Topic::Measurement, trials, Policies::These(&list)),
            )
            .await?;
        let cancel = Arc::new(AtomicBool::new(false));
        {
            let mut running = self.running();
            if running.is_some() {
                return Err(Problem::MeasurementRunning.into());
            }
            *running = Some(Running {
                owner: caller(&header),
                cancel: Arc::clone(&cancel),
            });
        }
        let root = self.kernel.root().to_owned();
        let (progress_tx, mut progress_rx) = tokio::sync::mpsc::unbounded_channel();
        let measuring = tokio::task::spawn_blocking(move || {
            let options = RampOptions {
                trials: trials as usize,
                raise_priority: true,
                ..Default::default()
            };
            let mut progress = |p: Progress| {
                let _ = progress_tx.send(p);
            };
            let root = SysRoot::new(root);
            ramp_of(
                &root,
                &snapshot,
                &cpus,
                options,
                None,
                &mut progress,
                &cancel,
            )
            .map_err(|error| error.to_string())
        });
        tokio::pin!(measuring);
        let emit = |p: Progress| {
            let (cpu, trial, trials, stage, left_ms, curve, mhz) =
                pacer_dbus::measurement::progress::to_args(&p);
            Self::measure_progress(&emitter, cpu, trial, trials, stage, left_ms, curve, mhz)
        };
        let result = loop {
            tokio::select! {
                Some(p) = progress_rx.recv() => {
                    self.activity.touch();
                    let _ = emit(p).await;
                }
                done = &mut measuring => break done,
            }
        };
        // What the measurement reported last (its last trial's end) may still wait in the
        // channel when the select sees it finish.
        while let Ok(p) = progress_rx.try_recv() {
            let _ = emit(p).await;
        }
        *self.running() = None;
        let report = result
            .map_err(|error| Problem::Internal {
                error: error.to_string(),
            })?
            .map_err(|error| Problem::MeasurementFailed { error })?;
        serde_json::to_string(&report).map_err(|error| {
            Problem::Internal {
                error: error.to_string(),
            }
            .into()
        })
    }

    /// Stops the running measurement (it returns what it has). Only its caller may.
    async fn cancel_measurement(
        &self,
        #[zbus(header)] header: Header<'_>,
    ) -> Result<(), HelperError> {
        let _call = self.call()?;
        self.authority
            .check(
                &header,
                actions::RUN_MEASUREMENT,
                &details(Topic::Measurement, "cancelled", Policies::All),
            )
            .await?;
        let running = self.running();
        match running.as_ref() {
            Some(running) if running.owner != caller(&header) => {
                Err(Problem::NotYourMeasurement.into())
            }
            Some(running) => {
                running.cancel.store(true, Ordering::Relaxed);
                Ok(())
            }
            None => Ok(()),
        }
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

impl Helper {
    /// Writes `value` to `target(id)` for each policy, one request at a time, and returns
    /// what each reads back. EBUSY on an EPP is the performance governor holding it.
    async fn write_each(
        &self,
        by: Option<Writer>,
        ids: &[u32],
        target: fn(u32) -> Target,
        value: &str,
    ) -> Result<Vec<PolicyValue>, Problem> {
        let _one_at_a_time = self.writes.lock().await;
        for &id in ids {
            self.log
                .writing(by.as_ref(), || self.kernel.write(target(id), value))
                .map_err(|problem| match problem {
                    Problem::WriteRefused {
                        errno: Some(16), ..
                    } if target(id) == Target::Epp(id) => Problem::EppHeldByGovernor {
                        policies: [id].into_iter().collect(),
                    },
                    other => other,
                })?;
        }
        Ok(ids
            .iter()
            .map(|&id| (id, self.kernel.read(target(id)).unwrap_or_default()))
            .collect())
    }

    /// Which switch turns turbo on or off for `ids`: the machine-wide one when every policy
    /// is meant (intel_pstate has only that), else the policies' own `boost` files
    /// (amd-pstate, cpufreq-dt).
    fn boost_switch(
        &self,
        snapshot: &Snapshot,
        ids: &[u32],
        enabled: bool,
    ) -> Result<BoostSwitch, Problem> {
        let every_policy = snapshot.policies.iter().filter(|p| p.is_active()).count() == ids.len();
        let flag = if enabled { "1" } else { "0" };
        if every_policy && self.kernel.read(Target::NoTurbo).is_some() {
            return Ok(BoostSwitch::Global(
                Target::NoTurbo,
                if enabled { "0" } else { "1" },
            ));
        }
        if every_policy && self.kernel.read(Target::Boost).is_some() {
            return Ok(BoostSwitch::Global(Target::Boost, flag));
        }
        if ids
            .iter()
            .all(|&id| self.kernel.read(Target::PolicyBoost(id)).is_some())
        {
            return Ok(BoostSwitch::PerPolicy(flag));
        }
        Err(if every_policy {
            Problem::NoBoostSwitch
        } else {
            Problem::BoostOnlyForAll
        })
    }

    /// Writes one machine-wide file and returns what it reads back.
    async fn write_one(
        &self,
        by: Option<Writer>,
        target: Target,
        value: &str,
    ) -> Result<String, Problem> {
        let _one_at_a_time = self.writes.lock().await;
        self.log
            .writing(by.as_ref(), || self.kernel.write(target, value))?;
        Ok(self.kernel.read(target).unwrap_or_default())
    }

    /// `name` left the bus: its measurement stops and the settings it saved come back.
    pub async fn departed(&self, name: &str) {
        if let Some(running) = self
            .running()
            .as_ref()
            .filter(|running| running.owner == name)
        {
            running.cancel.store(true, Ordering::Relaxed);
        }
        self.restore_where(|owner| owner == name).await;
    }

    /// The helper is stopping: the measurement stops, and every saved setting comes back.
    pub async fn stopping(&self) {
        if let Some(running) = self.running().as_ref() {
            running.cancel.store(true, Ordering::Relaxed);
        }
        self.restore_where(|_| true).await;
    }

    /// Whether a measurement runs (the helper does not idle out under it).
    pub fn measuring(&self) -> bool {
        self.running().is_some()
    }

    async fn restore_where(&self, owned: impl Fn(&str) -> bool) {
        let _one_at_a_time = self.writes.lock().await;
        for entry in self
            .journal
            .entries()
            .iter()
            .rev()
            .filter(|entry| owned(&entry.owner))
        {
            let restored = self
                .log
                .writing(None, || self.journal.restore(&self.kernel, entry));
            match restored {
                Ok(()) => eprintln!(
                    "pacer-helper: restored the settings saved by {} ({})",
                    entry.owner, entry.id
                ),
                Err(problem) => {
                    eprintln!("pacer-helper: restoring settings {}: {problem}", entry.id)
                }
            }
        }
        self.status.forget().await;
    }
}

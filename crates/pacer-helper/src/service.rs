//! The helper's D-Bus interface. Every method that changes something goes: parse → validate
//! the whole request against what the machine offers → ask polkit about the *caller* → write
//! → read back → report (and announce by signal).

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::{Policy, Snapshot};
use pacer_core::profile::expectation;
use pacer_core::status::Status;
use pacer_core::status_json::StatusDocument;
use pacer_core::values::{DriverMode, Epp, Governor};
use pacer_core::SysRoot;
use pacer_dbus::{actions, HelperError, PolicyValue};
use zbus::message::Header;
use zbus::object_server::SignalEmitter;
use zbus_polkit::policykit1::{AuthorityProxy, CheckAuthorizationFlags, Subject};

use crate::journal::{Journal, Settings};
use crate::kernel::{Kernel, Refused, Target};

/// The most policies one request may name: more than Linux has CPUs is not a request.
const MAX_POLICIES: usize = pacer_core::cpuset::MAX_CPUS as usize;

#[derive(Debug)]
pub struct Helper {
    kernel: Kernel,
    polkit: Option<AuthorityProxy<'static>>,
    /// One write at a time: a request's writes never interleave with another's.
    writes: tokio::sync::Mutex<()>,
    journal: Journal,
    activity: Arc<Mutex<Instant>>,
    /// The running measurement's stop switch; one measurement at a time.
    measurement: Mutex<Option<Arc<AtomicBool>>>,
}

impl Helper {
    pub fn new(
        kernel: Kernel,
        polkit: Option<AuthorityProxy<'static>>,
        journal: Journal,
        activity: Arc<Mutex<Instant>>,
    ) -> Helper {
        Helper {
            kernel,
            polkit,
            writes: tokio::sync::Mutex::new(()),
            journal,
            activity,
            measurement: Mutex::new(None),
        }
    }

    fn touch(&self) {
        if let Ok(mut last) = self.activity.lock() {
            *last = Instant::now();
        }
    }

    fn read_machine(&self) -> Result<Snapshot, HelperError> {
        self.kernel
            .snapshot()
            .map_err(|error| HelperError::Failed(error.to_string()))
    }

    /// polkit's verdict for the caller of this message (its unique bus name, never the
    /// helper's own process), allowing it to ask the user for a password.
    async fn authorize(&self, header: &Header<'_>, action: &str) -> Result<(), HelperError> {
        let Some(polkit) = &self.polkit else {
            return Ok(());
        };
        let subject = Subject::new_for_message_header(header)
            .map_err(|error| HelperError::Failed(error.to_string()))?;
        let result = polkit
            .check_authorization(
                &subject,
                action,
                &HashMap::new(),
                CheckAuthorizationFlags::AllowUserInteraction.into(),
                "",
            )
            .await
            .map_err(|error| {
                HelperError::NotAuthorized(fill(
                    gettext("polkit could not be asked about {action}: {error}"),
                    &[("action", &action), ("error", &error)],
                ))
            })?;
        if result.is_authorized {
            Ok(())
        } else {
            Err(HelperError::NotAuthorized(fill(
                gettext("not authorized for {action}"),
                &[("action", &action)],
            )))
        }
    }
}

/// Checks the policy list: not empty, not absurd, each one there and active.
fn validate_policies<'s>(
    snapshot: &'s Snapshot,
    ids: &[u32],
) -> Result<Vec<&'s Policy>, HelperError> {
    if ids.is_empty() {
        return Err(HelperError::InvalidArgument(gettext("no policies given")));
    }
    if ids.len() > MAX_POLICIES {
        return Err(HelperError::InvalidArgument(fill(
            gettext("{count} policies is more than any machine has"),
            &[("count", &ids.len())],
        )));
    }
    let unique: BTreeSet<u32> = ids.iter().copied().collect();
    unique
        .into_iter()
        .map(|id| match snapshot.policy(id) {
            Some(policy) if policy.is_active() => Ok(policy),
            Some(_) => Err(HelperError::Busy(fill(
                gettext("policy {policy} has no online CPU"),
                &[("policy", &id)],
            ))),
            None => Err(HelperError::InvalidArgument(fill(
                gettext("there is no policy {policy}"),
                &[("policy", &id)],
            ))),
        })
        .collect()
}

/// The error for a write the kernel refused, with the reason in words where Pacer knows it.
fn refused(refused: Refused, why_busy: Option<String>) -> HelperError {
    let text = refused.to_string();
    match refused.errno {
        Some(16) => HelperError::Busy(match why_busy {
            Some(why) => format!("{text}: {why}"),
            None => text,
        }),
        Some(22) => HelperError::InvalidArgument(text),
        Some(2) | Some(95) => HelperError::NotSupported(text),
        _ => HelperError::Failed(text),
    }
}

fn performance_governor_reason(policies: &[u32]) -> String {
    fill(
        gettext("the performance governor on policy {policies} holds EPP at performance and the kernel refuses any other EPP; set the governor to powersave first"),
        &[("policies", &policies.iter().copied().collect::<pacer_core::CpuSet>())],
    )
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
        self.touch();
        let governor: Governor = governor.parse().map_err(|_| {
            HelperError::InvalidArgument(fill(
                gettext("{governor} is not a governor name"),
                &[("governor", &format!("{governor:?}"))],
            ))
        })?;
        let snapshot = self.read_machine()?;
        let targets = validate_policies(&snapshot, &policies)?;
        for policy in &targets {
            let offered = policy.available_governors.as_deref().unwrap_or_default();
            if !offered.contains(&governor) {
                return Err(HelperError::InvalidArgument(fill(
                    gettext("policy {policy} does not offer the {governor} governor (it offers: {offered})"),
                    &[
                        ("policy", &policy.id),
                        ("governor", &governor),
                        ("offered", &offered.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")),
                    ],
                )));
            }
        }
        self.authorize(&header, actions::SET_CPU_POWER).await?;
        let ids: Vec<u32> = targets.iter().map(|policy| policy.id).collect();
        let read_back = self
            .write_each(&ids, Target::Governor, governor.as_str(), None)
            .await?;
        let _ = Self::changed(&emitter, "governor", ids).await;
        Ok(read_back)
    }

    async fn set_epp(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        policies: Vec<u32>,
        epp: String,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.touch();
        let value: Epp = epp.parse().map_err(|error: pacer_core::values::EppError| {
            HelperError::InvalidArgument(error.to_string())
        })?;
        let snapshot = self.read_machine()?;
        let targets = validate_policies(&snapshot, &policies)?;
        // The performance governor of a setpolicy driver refuses any EPP but 0 (EBUSY).
        let pins = matches!(value, Epp::Performance | Epp::Raw(0));
        if !pins {
            let pinned: Vec<u32> = snapshot
                .epp_pinned()
                .into_iter()
                .filter(|id| targets.iter().any(|p| p.id == *id))
                .collect();
            if !pinned.is_empty() {
                return Err(HelperError::Busy(performance_governor_reason(&pinned)));
            }
        }
        let raw_allowed = snapshot
            .driver
            .name
            .as_deref()
            .is_some_and(|d| d.starts_with("intel_"));
        for policy in &targets {
            let Some(offered) = &policy.available_epp else {
                return Err(HelperError::NotSupported(fill(
                    gettext("policy {policy} has no energy-performance preference"),
                    &[("policy", &policy.id)],
                )));
            };
            let ok = match value {
                Epp::Raw(_) => raw_allowed,
                named => offered.contains(&named),
            };
            if !ok {
                return Err(HelperError::InvalidArgument(fill(
                    gettext("policy {policy} does not take the EPP {epp} (it offers: {offered})"),
                    &[
                        ("policy", &policy.id),
                        ("epp", &value),
                        (
                            "offered",
                            &offered
                                .iter()
                                .map(ToString::to_string)
                                .collect::<Vec<_>>()
                                .join(", "),
                        ),
                    ],
                )));
            }
        }
        self.authorize(&header, actions::SET_CPU_POWER).await?;
        let ids: Vec<u32> = targets.iter().map(|policy| policy.id).collect();
        let read_back = self
            .write_each(
                &ids,
                Target::Epp,
                &value.to_string(),
                Some(performance_governor_reason),
            )
            .await?;
        let _ = Self::changed(&emitter, "epp", ids).await;
        Ok(read_back)
    }

    async fn set_boost(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        policies: Vec<u32>,
        enabled: bool,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.touch();
        let snapshot = self.read_machine()?;
        let ids: Vec<u32> = validate_policies(&snapshot, &policies)?
            .iter()
            .map(|policy| policy.id)
            .collect();
        let every_policy = snapshot.policies.iter().filter(|p| p.is_active()).count() == ids.len();
        let flag = if enabled { "1" } else { "0" };
        // The machine-wide switch when every policy is meant (intel_pstate has only that),
        // else the policies' own `boost` files (amd-pstate, cpufreq-dt).
        let global = if !every_policy {
            None
        } else if self.kernel.read(Target::NoTurbo).is_some() {
            Some((Target::NoTurbo, if enabled { "0" } else { "1" }))
        } else if self.kernel.read(Target::Boost).is_some() {
            Some((Target::Boost, flag))
        } else {
            None
        };
        let per_policy = ids
            .iter()
            .all(|&id| self.kernel.read(Target::PolicyBoost(id)).is_some());
        if global.is_none() && !per_policy {
            return Err(HelperError::NotSupported(if every_policy {
                gettext("this machine has no turbo or boost switch")
            } else {
                gettext("turbo can only be switched for all policies at once on this machine")
            }));
        }
        self.authorize(&header, actions::SET_CPU_POWER).await?;
        let read_back = match global {
            Some((target, value)) => {
                let now = self.write_one(target, value).await?;
                let allowed = if target == Target::NoTurbo {
                    now == "0"
                } else {
                    now == "1"
                };
                let value = if allowed { "1" } else { "0" };
                ids.iter().map(|&id| (id, value.to_owned())).collect()
            }
            None => {
                self.write_each(&ids, Target::PolicyBoost, flag, None)
                    .await?
            }
        };
        let _ = Self::changed(&emitter, "boost", ids).await;
        Ok(read_back)
    }

    async fn set_eas(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        enabled: bool,
    ) -> Result<String, HelperError> {
        self.touch();
        let snapshot = self.read_machine()?;
        match snapshot.eas.sysctl {
            None => {
                return Err(HelperError::NotSupported(gettext(
                    "the kernel was built without energy-aware scheduling",
                )))
            }
            Some(pacer_core::values::EasSysctl::Impossible) => {
                return Err(HelperError::NotSupported(fill(
                    gettext("energy-aware scheduling is impossible now: {reasons}"),
                    &[("reasons", &snapshot.eas.reasons_text())],
                )));
            }
            Some(_) => {}
        }
        self.authorize(&header, actions::SET_SCHEDULER).await?;
        if let Some(current) = self.kernel.read(Target::EasSysctl) {
            self.journal
                .note_eas_before_change(&current)
                .map_err(|error| {
                    HelperError::Failed(fill(
                        gettext("cannot record the settings in the journal: {error}"),
                        &[("error", &error)],
                    ))
                })?;
        }
        let now = self
            .write_one(Target::EasSysctl, if enabled { "1" } else { "0" })
            .await?;
        let _ = Self::changed(&emitter, "eas", Vec::new()).await;
        Ok(now)
    }

    async fn set_driver_mode(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        mode: String,
    ) -> Result<String, HelperError> {
        self.touch();
        let snapshot = self.read_machine()?;
        let (target, modes): (Target, &[DriverMode]) = match snapshot.driver.name.as_deref() {
            Some("intel_pstate" | "intel_cpufreq") => (
                Target::IntelStatus,
                &[DriverMode::Active, DriverMode::Passive],
            ),
            Some("amd-pstate-epp" | "amd-pstate") => (
                Target::AmdStatus,
                &[DriverMode::Active, DriverMode::Passive, DriverMode::Guided],
            ),
            _ => {
                return Err(HelperError::NotSupported(gettext(
                    "the frequency driver has no modes to switch between",
                )))
            }
        };
        let Some(wanted) = modes.iter().find(|m| m.to_string() == mode) else {
            return Err(HelperError::InvalidArgument(fill(
                gettext("{mode} is not a mode of this driver (it has: {modes})"),
                &[
                    ("mode", &format!("{mode:?}")),
                    (
                        "modes",
                        &modes
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                ],
            )));
        };
        self.authorize(&header, actions::SET_DRIVER_MODE).await?;
        let now = self.write_one(target, &wanted.to_string()).await?;
        let _ = Self::changed(&emitter, "mode", Vec::new()).await;
        Ok(now)
    }

    async fn reapply_profile_epp(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.touch();
        let status = Status::gather(&SysRoot::new(self.kernel.root()))
            .await
            .map_err(|error| HelperError::Failed(error.to_string()))?;
        let Some(profile) = &status.profile else {
            return Err(HelperError::NotSupported(gettext(
                "no power-profile daemon is running",
            )));
        };
        let expected = expectation(profile, &status.snapshot.driver)
            .map_err(|why| HelperError::NotSupported(why.to_string()))?;
        let Some(&epp) = expected.epp.first() else {
            return Err(HelperError::NotSupported(gettext(
                "the profile implies no EPP",
            )));
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
        self.authorize(&header, actions::SET_CPU_POWER).await?;
        let read_back = self
            .write_each(
                &ids,
                Target::Epp,
                &epp.to_string(),
                Some(performance_governor_reason),
            )
            .await?;
        let _ = Self::changed(&emitter, "epp", ids).await;
        Ok(read_back)
    }

    async fn snapshot(&self) -> Result<String, HelperError> {
        self.touch();
        let status = Status::gather(&SysRoot::new(self.kernel.root()))
            .await
            .map_err(|error| HelperError::Failed(error.to_string()))?;
        serde_json::to_string(&StatusDocument::new(&status))
            .map_err(|error| HelperError::Failed(error.to_string()))
    }

    async fn save_settings(&self, #[zbus(header)] header: Header<'_>) -> Result<u32, HelperError> {
        self.touch();
        self.authorize(&header, actions::RUN_MEASUREMENT).await?;
        let owner = header.sender().map(ToString::to_string).unwrap_or_default();
        let _one_at_a_time = self.writes.lock().await;
        self.journal
            .save(&owner, Settings::read(&self.kernel))
            .map_err(|error| {
                HelperError::Failed(fill(
                    gettext("cannot record the settings in the journal: {error}"),
                    &[("error", &error)],
                ))
            })
    }

    async fn restore_settings(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        id: u32,
    ) -> Result<(), HelperError> {
        self.touch();
        let Some(entry) = self.journal.get(id) else {
            return Err(HelperError::InvalidArgument(fill(
                gettext("there are no saved settings {id}"),
                &[("id", &id)],
            )));
        };
        self.authorize(&header, actions::RUN_MEASUREMENT).await?;
        let _one_at_a_time = self.writes.lock().await;
        self.journal
            .restore(&self.kernel, &entry)
            .map_err(|error| refused(error, None))?;
        let _ = Self::changed(&emitter, "restore", Vec::new()).await;
        Ok(())
    }

    /// Measures the ramp on `cpus` (`trials` each) as root: at the highest priority, with
    /// energy where RAPL counts it. Returns the schema-1 report as JSON; progress comes as
    /// `MeasureProgress`, and `CancelMeasurement` stops it.
    async fn measure_ramp(
        &self,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
        cpus: Vec<u32>,
        trials: u32,
    ) -> Result<String, HelperError> {
        self.touch();
        let snapshot = self.read_machine()?;
        if cpus.is_empty() || cpus.len() > 64 {
            return Err(HelperError::InvalidArgument(gettext(
                "give between 1 and 64 CPUs",
            )));
        }
        if !(1..=20).contains(&trials) {
            return Err(HelperError::InvalidArgument(gettext(
                "give between 1 and 20 trials",
            )));
        }
        if let Some(cpu) = cpus
            .iter()
            .find(|&&cpu| !snapshot.cpus.iter().any(|c| c.id == cpu && c.online))
        {
            return Err(HelperError::InvalidArgument(fill(
                gettext("there is no online CPU {cpu}"),
                &[("cpu", cpu)],
            )));
        }
        self.authorize(&header, actions::RUN_MEASUREMENT).await?;
        let cancel = Arc::new(AtomicBool::new(false));
        {
            let mut running = self
                .measurement
                .lock()
                .map_err(|_| HelperError::Failed("poisoned".into()))?;
            if running.is_some() {
                return Err(HelperError::Busy(gettext(
                    "a measurement is already running",
                )));
            }
            *running = Some(Arc::clone(&cancel));
        }
        let root = self.kernel.root().to_owned();
        let (progress_tx, mut progress_rx) = tokio::sync::mpsc::unbounded_channel();
        let measuring = tokio::task::spawn_blocking(move || {
            let root = SysRoot::new(root);
            if snapshot.simulated {
                let machine = pacer_core::sim::SimMachine::load(root.root())
                    .map_err(|e| e.to_string())?
                    .ok_or_else(|| gettext("the simulated machine's state is missing"))?;
                return Ok(pacer_bench::report::simulated_ramp(
                    &machine, &snapshot, &cpus, None,
                ));
            }
            let options = pacer_bench::report::RampOptions {
                trials: trials as usize,
                raise_priority: true,
                ..Default::default()
            };
            let mut progress = |p: pacer_bench::report::Progress| {
                let _ = progress_tx.send(p);
            };
            pacer_bench::report::measure_ramp(
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
        let result = loop {
            tokio::select! {
                Some(p) = progress_rx.recv() => {
                    self.touch();
                    let _ = Self::measure_progress(&emitter, p.cpu, p.trial as u32, p.trials as u32).await;
                }
                done = &mut measuring => break done,
            }
        };
        if let Ok(mut running) = self.measurement.lock() {
            *running = None;
        }
        self.touch();
        let report = result
            .map_err(|error| HelperError::Failed(error.to_string()))?
            .map_err(HelperError::Failed)?;
        serde_json::to_string(&report).map_err(|error| HelperError::Failed(error.to_string()))
    }

    /// Stops the running measurement (it returns what it has).
    async fn cancel_measurement(
        &self,
        #[zbus(header)] header: Header<'_>,
    ) -> Result<(), HelperError> {
        self.authorize(&header, actions::RUN_MEASUREMENT).await?;
        if let Ok(running) = self.measurement.lock() {
            if let Some(cancel) = running.as_ref() {
                cancel.store(true, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    #[zbus(signal)]
    async fn measure_progress(
        emitter: &SignalEmitter<'_>,
        cpu: u32,
        trial: u32,
        trials: u32,
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
    /// what each reads back. `why_busy` explains an EBUSY for a policy.
    async fn write_each(
        &self,
        ids: &[u32],
        target: fn(u32) -> Target,
        value: &str,
        why_busy: Option<fn(&[u32]) -> String>,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        let _one_at_a_time = self.writes.lock().await;
        for &id in ids {
            self.kernel
                .write(target(id), value)
                .map_err(|error| refused(error, why_busy.map(|why| why(&[id]))))?;
        }
        Ok(ids
            .iter()
            .map(|&id| (id, self.kernel.read(target(id)).unwrap_or_default()))
            .collect())
    }

    /// Writes one machine-wide file and returns what it reads back.
    async fn write_one(&self, target: Target, value: &str) -> Result<String, HelperError> {
        let _one_at_a_time = self.writes.lock().await;
        self.kernel
            .write(target, value)
            .map_err(|error| refused(error, None))?;
        Ok(self.kernel.read(target).unwrap_or_default())
    }

    /// Restores what `owner` saved and did not restore (it left the bus).
    pub async fn restore_for(&self, owner: &str) {
        let _one_at_a_time = self.writes.lock().await;
        for entry in self
            .journal
            .entries()
            .iter()
            .rev()
            .filter(|e| e.owner == owner)
        {
            if let Err(error) = self.journal.restore(&self.kernel, entry) {
                eprintln!("pacer-helper: restoring settings {}: {error}", entry.id);
            }
        }
    }
}

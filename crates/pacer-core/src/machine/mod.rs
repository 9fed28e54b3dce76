// SPDX-License-Identifier: GPL-3.0-or-later
//! The machine model: one consistent reading of the CPU power state under a root.

mod cpus;
pub mod eas;
mod groups;
mod policy;
mod rapl;
mod sampler;

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

pub use cpus::Cpu;
pub use eas::{Eas, EasReason};
pub use groups::{cores_heading, group_policies, PolicyGroup};
pub use policy::Policy;
pub use rapl::RaplZone;
pub use sampler::FrequencySampler;

use crate::cpuset::CpuSet;
use crate::i18n::{fill, gettext};
use crate::sysfs::{Expected, Need, Probe, Problem, ReadError, SysRoot};
use crate::values::{DriverMode, DriverStatus, Flag, Governor};

const CPU_DIR: &str = "sys/devices/system/cpu";
const CPUFREQ_DIR: &str = "sys/devices/system/cpu/cpufreq";

/// The CPU frequency driver as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Driver {
    /// `scaling_driver`: `intel_pstate`, `intel_cpufreq`, `amd-pstate-epp`, `cpufreq-dt`, …
    pub name: Option<String>,
    pub mode: Option<DriverMode>,
    /// Turbo/boost allowed: `!intel_pstate/no_turbo`, or `cpufreq/boost`.
    pub boost: Option<bool>,
    /// amd-pstate's dynamic EPP (`amd_pstate/dynamic_epp`, 7.1): the kernel sets each
    /// policy's EPP itself and refuses others' writes (`docs/kernel.md` 9.1). `None` where
    /// the file does not exist.
    pub dynamic_epp: Option<bool>,
}

impl Driver {
    /// Whether the kernel sets EPP itself here (amd-pstate's dynamic EPP), so that nobody
    /// else can.
    pub fn kernel_sets_epp(&self) -> bool {
        self.dynamic_epp == Some(true)
    }

    /// Drivers that choose frequencies themselves and offer only the `performance` and
    /// `powersave` "governors" (`setpolicy` drivers).
    pub fn is_setpolicy(&self) -> bool {
        matches!(
            self.name.as_deref(),
            Some("intel_pstate" | "amd-pstate-epp")
        )
    }
}

/// Everything Pacer knows about the machine's CPU power state at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub root: PathBuf,
    /// Whether the root is a simulated machine rather than real hardware.
    pub simulated: bool,
    /// In id order, as `present` lists them.
    pub cpus: Vec<Cpu>,
    /// In id order.
    pub policies: Vec<Policy>,
    pub driver: Driver,
    /// `smt/active`; `None` on kernels without SMT support.
    pub smt_active: Option<bool>,
    pub eas: Eas,
    pub rapl: Vec<RaplZone>,
    /// Everything that could not be read as the kernel prints it.
    pub problems: Vec<Problem>,
}

/// Why there is no snapshot at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    RootMissing(PathBuf),
    NotAMachine(PathBuf),
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&match self {
            SnapshotError::RootMissing(root) => fill(
                gettext("the root directory {root} does not exist"),
                &[("root", &root.display())],
            ),
            SnapshotError::NotAMachine(root) => fill(
                gettext("{root} holds no sys/devices/system/cpu, so it is not the root of a Linux system"),
                &[("root", &root.display())],
            ),
        })
    }
}

impl Snapshot {
    /// Reads the machine under `root`, each file at most once.
    pub fn read(root: &SysRoot) -> Result<Snapshot, SnapshotError> {
        if !root.root().is_dir() {
            return Err(SnapshotError::RootMissing(root.root().to_owned()));
        }
        if !root.path(CPU_DIR).is_dir() {
            return Err(SnapshotError::NotAMachine(root.root().to_owned()));
        }
        let mut probe = Probe::new(root);

        let mut cpus = cpus::read(&mut probe);
        let online: CpuSet = cpus
            .iter()
            .filter(|cpu| cpu.online)
            .map(|cpu| cpu.id)
            .collect();
        let smt_active = probe
            .value::<Flag>(
                &format!("{CPU_DIR}/smt/active"),
                Need::Optional,
                Expected::Flag,
            )
            .map(|flag| flag.0);
        let mut policies = read_policies(&mut probe, &online);
        cpus::label_core_types(&mut probe, &mut cpus);
        link_cpus_and_policies(&mut cpus, &mut policies);
        let driver = read_driver(&mut probe, &policies);
        let sysctl = eas::read_sysctl(&mut probe);
        let energy_model = eas::read_energy_model(&mut probe);
        let eas = eas::evaluate(&eas::EasInputs {
            sysctl,
            smt_active,
            online_cpus: &online,
            capacities: cpus
                .iter()
                .filter(|cpu| cpu.online)
                .filter_map(|cpu| cpu.capacity)
                .collect(),
            governors: policies
                .iter()
                .filter(|policy| policy.is_active())
                .map(|policy| (policy.id, policy.governor.as_ref()))
                .collect(),
            energy_model: &energy_model,
        });
        let rapl = rapl::read(&mut probe);

        Ok(Snapshot {
            root: root.root().to_owned(),
            simulated: root.exists(crate::sim::STATE_FILE),
            cpus,
            policies,
            driver,
            smt_active,
            eas,
            rapl,
            problems: probe.problems,
        })
    }

    /// Re-reads only what changes behind everyone's back (each active policy's governor and
    /// EPP): cheap enough to poll. Says whether anything changed; a file that cannot be
    /// read keeps its last value.
    pub fn refresh_settings(&mut self, root: &SysRoot) -> bool {
        let mut probe = Probe::new(root);
        let mut changed = false;
        for policy in self.policies.iter_mut().filter(|policy| policy.is_active()) {
            let dir = format!("{CPUFREQ_DIR}/policy{}", policy.id);
            let governor = probe.value(
                &format!("{dir}/scaling_governor"),
                Need::Required,
                Expected::Governor,
            );
            if governor.is_some() && governor != policy.governor {
                policy.governor = governor;
                changed = true;
            }
            if policy.epp.is_some() || policy.available_epp.is_some() {
                let epp = probe.value(
                    &format!("{dir}/energy_performance_preference"),
                    Need::Required,
                    Expected::Epp,
                );
                if epp.is_some() && epp != policy.epp {
                    policy.epp = epp;
                    changed = true;
                }
            }
        }
        changed
    }

    /// The active policies whose EPP the performance governor pins at 0: a setpolicy driver
    /// refuses any other EPP there with EBUSY (intel_pstate.c
    /// `intel_pstate_set_energy_pref_index()`, amd-pstate.c
    /// `store_energy_performance_preference()`; `docs/kernel.md` 2.3, 3).
    pub fn epp_pinned(&self) -> Vec<u32> {
        if !self.driver.is_setpolicy() {
            return Vec::new();
        }
        self.policies
            .iter()
            .filter(|p| p.is_active())
            .filter(|p| {
                p.governor
                    .as_ref()
                    .is_some_and(|g| g.is(Governor::PERFORMANCE))
            })
            .map(|p| p.id)
            .collect()
    }

    /// Found by halving, not by reading the list: callers look up each policy of a request
    /// or a change, which read whole is quadratic on a machine with hundreds.
    pub fn policy(&self, id: u32) -> Option<&Policy> {
        let index = self.policies.binary_search_by_key(&id, |policy| policy.id);
        index.ok().map(|index| &self.policies[index])
    }

    /// Found by halving, as [`Snapshot::policy`] is.
    pub fn cpu(&self, id: u32) -> Option<&Cpu> {
        let index = self.cpus.binary_search_by_key(&id, |cpu| cpu.id);
        index.ok().map(|index| &self.cpus[index])
    }

    /// Whether the kernel offers CPU frequency control here at all.
    pub fn has_cpufreq(&self) -> bool {
        self.policies.iter().any(Policy::is_active)
    }
}

/// Reads every policy: the first alone, to learn which driver attributes exist and what
/// all policies print alike, then the rest spread over threads.
fn read_policies(probe: &mut Probe<'_>, online: &CpuSet) -> Vec<Policy> {
    let names = match probe.root().list_dir(CPUFREQ_DIR) {
        Ok(names) => names,
        // A kernel without CONFIG_CPU_FREQ: nothing to read, nothing wrong.
        Err(ReadError::Missing) => return Vec::new(),
        Err(ReadError::Io(error)) => {
            probe.report_io(CPUFREQ_DIR, &error);
            return Vec::new();
        }
    };
    let mut ids: Vec<u32> = names
        .iter()
        .filter_map(|name| name.strip_prefix("policy")?.parse().ok())
        .collect();
    ids.sort_unstable();

    let mut policies = Vec::with_capacity(ids.len());
    let epp_lists = policy::EppLists::default();
    let mut attributes = None;
    let mut rest = ids.as_slice();
    while let Some((&id, tail)) = rest.split_first() {
        rest = tail;
        let (policy, found) = Policy::read(probe, id, online, None, &epp_lists);
        let active = policy.is_active();
        policies.push(policy);
        if active {
            attributes = Some(found);
            break;
        }
    }
    let Some(attributes) = attributes else {
        return policies;
    };
    policies.extend(probe.map_parallel(rest, |probe, &id| {
        Policy::read(probe, id, online, Some(attributes), &epp_lists).0
    }));
    let active: Vec<u32> = policies
        .iter()
        .filter(|policy| policy.is_active())
        .map(|policy| policy.id)
        .collect();
    let shared = policy::PolicyShared::read(probe, &active);
    for policy in &mut policies {
        shared.apply(policy);
    }
    policies
}

/// Fills each CPU's policy and current frequency, and each policy's EPB, ranking and core
/// type from its CPUs.
fn link_cpus_and_policies(cpus: &mut [Cpu], policies: &mut [Policy]) {
    for policy in policies.iter_mut() {
        // Each member found by its id (the CPUs are in id order), not by going through
        // every CPU for every policy.
        let members: Vec<usize> = policy
            .cpus
            .iter()
            .filter_map(|id| cpus.binary_search_by_key(&id, |cpu| cpu.id).ok())
            .collect();
        let member_cpus = || members.iter().map(|&index| &cpus[index]);
        policy.epb = agreed(member_cpus().filter(|cpu| cpu.online).map(|cpu| cpu.epb));
        policy.core_type = agreed(member_cpus().map(|cpu| cpu.core_type));
        for &index in &members {
            let cpu = &mut cpus[index];
            cpu.policy = Some(policy.id);
            cpu.prefcore_ranking = policy.prefcore_ranking;
            if cpu.online {
                cpu.cur_khz = policy.cur_khz;
            }
        }
    }
}

/// The value all items share, or `None` if they differ, are unknown, or there are none.
fn agreed<T: PartialEq + Copy>(mut items: impl Iterator<Item = Option<T>>) -> Option<T> {
    let first = items.next()??;
    items.all(|item| item == Some(first)).then_some(first)
}

fn read_driver(probe: &mut Probe<'_>, policies: &[Policy]) -> Driver {
    let name = policies.iter().find_map(|policy| policy.driver.clone());

    let status_file = match name.as_deref() {
        Some("intel_pstate" | "intel_cpufreq") => Some(format!("{CPU_DIR}/intel_pstate/status")),
        Some("amd-pstate-epp" | "amd-pstate") => Some(format!("{CPU_DIR}/amd_pstate/status")),
        _ => None,
    };
    let mode = status_file.and_then(|file| {
        match probe.value::<DriverStatus>(&file, Need::Required, Expected::DriverStatus)? {
            DriverStatus::Mode(mode) => Some(mode),
            DriverStatus::Off => None,
        }
    });

    let no_turbo = format!("{CPU_DIR}/intel_pstate/no_turbo");
    let boost = if name
        .as_deref()
        .is_some_and(|name| name.starts_with("intel_"))
    {
        probe
            .value::<Flag>(&no_turbo, Need::Required, Expected::Flag)
            .map(|no_turbo| !no_turbo.0)
    } else {
        probe
            .value::<Flag>(
                &format!("{CPUFREQ_DIR}/boost"),
                Need::Optional,
                Expected::Flag,
            )
            .map(|flag| flag.0)
    };
    let dynamic_epp = name
        .as_deref()
        .is_some_and(|name| name.starts_with("amd-pstate"))
        .then(|| {
            let file = format!("{CPU_DIR}/amd_pstate/dynamic_epp");
            match probe.text(&file, Need::Optional)?.as_str() {
                "enabled" => Some(true),
                "disabled" => Some(false),
                other => {
                    probe.garbled(&file, other, Expected::Switch);
                    None
                }
            }
        })
        .flatten();
    Driver {
        name,
        mode,
        boost,
        dynamic_epp,
    }
}

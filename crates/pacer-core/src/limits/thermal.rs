// SPDX-License-Identifier: GPL-3.0-or-later
//! The thermal link: cooling devices that lower the CPUs' maximum frequency, and Intel's
//! throttle counters, which count the times the hardware slowed a core or the package down
//! because it ran hot (`docs/kernel.md` 8.4).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::machine::Snapshot;
use crate::sysfs::{Expected, KeptFiles, Need, Probe};
use crate::values::{Decimal, Khz};

const THERMAL_DIR: &str = "sys/class/thermal";
const CPU_DIR: &str = "sys/devices/system/cpu";

/// The ACPI processor's cooling (`Processor`) lowers the maximum by this share of
/// `cpuinfo_max_freq` per state, for its first [`PROCESSOR_FREQUENCY_STEPS`] states; the
/// states above throttle the clock instead (`processor_thermal.c`, `docs/kernel.md` 8.4).
const PROCESSOR_STEP_PERCENT: u32 = 20;
const PROCESSOR_FREQUENCY_STEPS: u32 = 3;

/// What kind of cooling device, by its `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoolingKind {
    /// `Processor`: ACPI's, one per CPU; a step applies to the CPU's whole package, and every
    /// CPU's device shows it.
    Processor,
    /// `cpufreq-cpuN`: the cpufreq cooling of the policy of CPU N; state k is the k-th
    /// frequency down from the top.
    Cpufreq,
}

/// A cooling device found once: which CPUs it holds, and how far it can go.
#[derive(Debug, Clone)]
pub(super) struct CoolingFiles {
    /// `cooling_deviceN`.
    pub name: String,
    pub kind: CoolingKind,
    /// The policy whose maximum it lowers (its CPU's).
    pub policy: u32,
    pub max_state: u32,
    /// `cur_state`, the one file read at each refresh (a `Processor` device per CPU: a
    /// large machine has hundreds).
    state_file: String,
}

/// A cooling device in use, as the chain shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CoolingDevice {
    pub device: String,
    pub kind: CoolingKind,
    pub cur_state: u32,
    pub max_state: u32,
    /// The maximum frequency its state allows the policy, where the state says one.
    pub ceiling_khz: Option<Khz>,
}

/// The thermal link of one core type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ThermalLink {
    /// The cooling devices in use over these policies (those at state 0 are left out).
    pub cooling: Vec<CoolingDevice>,
    /// How many cooling devices hold these policies at all (in use or not).
    pub cooling_devices: usize,
    /// The core and package throttle events counted over the last seconds, where the
    /// counters exist (`None` elsewhere: only Intel has them).
    pub throttle_events: Option<u64>,
    pub ceiling_khz: Option<Khz>,
}

impl CoolingFiles {
    /// The cooling devices that act on CPU frequency, each with the policy it holds.
    pub(super) fn find(probe: &mut Probe<'_>, snapshot: &Snapshot) -> Vec<CoolingFiles> {
        let Ok(names) = probe.root().list_dir(THERMAL_DIR) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for name in names
            .into_iter()
            .filter(|n| n.starts_with("cooling_device"))
        {
            let dir = format!("{THERMAL_DIR}/{name}");
            let Some(kind) = probe.text(&format!("{dir}/type"), Need::Required) else {
                continue;
            };
            let (kind, policy) = if kind == "Processor" {
                // The device's state is its package's step plus its own CPU's T-state, so
                // each CPU's own device says what holds it (`docs/kernel.md` 8.4).
                let Some(policy) =
                    processor_cpu(probe, &dir).and_then(|cpu| snapshot.cpu(cpu)?.policy)
                else {
                    continue;
                };
                (CoolingKind::Processor, policy)
            } else if let Some(cpu) = kind.strip_prefix("cpufreq-cpu") {
                let Some(policy) = cpu.parse().ok().and_then(|cpu| snapshot.cpu(cpu)?.policy)
                else {
                    continue;
                };
                (CoolingKind::Cpufreq, policy)
            } else {
                continue;
            };
            let max_state = probe
                .value::<Decimal<u32>>(
                    &format!("{dir}/max_state"),
                    Need::Required,
                    Expected::Number,
                )
                .map_or(0, |state| state.0);
            found.push(CoolingFiles {
                state_file: format!("{dir}/cur_state"),
                name,
                kind,
                policy,
                max_state,
            });
        }
        found
    }

    pub(super) fn read_state(&self, probe: &mut Probe<'_>, kept: &mut KeptFiles) -> Option<u32> {
        probe
            .value_kept::<Decimal<u32>>(kept, &self.state_file, Need::Required, Expected::Number)
            .map(|state| state.0)
    }

    /// The maximum frequency state `state` allows a policy whose highest is `cpuinfo_max`
    /// and whose driver lists `frequencies` (highest first).
    pub(super) fn ceiling(
        &self,
        state: u32,
        cpuinfo_max: Option<Khz>,
        frequencies: &[Khz],
    ) -> Option<Khz> {
        if state == 0 {
            return None;
        }
        match self.kind {
            CoolingKind::Processor => {
                let steps = state.min(PROCESSOR_FREQUENCY_STEPS);
                let max = u64::from(cpuinfo_max?.0);
                let percent = u64::from(100 - steps * PROCESSOR_STEP_PERCENT);
                u32::try_from(max * percent / 100).ok().map(Khz)
            }
            CoolingKind::Cpufreq => frequencies.get(state as usize).copied(),
        }
    }
}

/// The CPU of an ACPI processor's cooling device: its `device` is the ACPI processor, whose
/// `physical_node` is the CPU's directory (`cpuN`).
fn processor_cpu(probe: &mut Probe<'_>, dir: &str) -> Option<u32> {
    let link = probe.root().path(&format!("{dir}/device/physical_node"));
    let target = std::fs::read_link(link).ok()?;
    target
        .file_name()?
        .to_str()?
        .strip_prefix("cpu")?
        .parse()
        .ok()
}

/// Each online CPU's package (`topology/physical_package_id`).
fn package_ids(probe: &mut Probe<'_>, snapshot: &Snapshot) -> BTreeMap<u32, u32> {
    snapshot
        .cpus
        .iter()
        .filter(|cpu| cpu.online)
        .filter_map(|cpu| {
            let file = format!("{CPU_DIR}/cpu{}/topology/physical_package_id", cpu.id);
            let package = probe.value::<Decimal<u32>>(&file, Need::Required, Expected::Number)?;
            Some((cpu.id, package.0))
        })
        .collect()
}

/// Intel's throttle counters: each CPU's core count, and the package count of one CPU per
/// package (every CPU of a package shows the same).
#[derive(Debug, Clone, Default)]
pub(super) struct ThrottleFiles {
    /// The CPUs with a `thermal_throttle` directory: each with its policy and the index of
    /// its package in `packages`.
    cpus: Vec<(u32, Option<u32>, usize)>,
    /// One CPU for each package, whose package count is read.
    packages: Vec<u32>,
}

/// The counters at one refresh: per CPU, its core events plus those of its package.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThrottleReading {
    /// The events of each CPU read, in the order [`ThrottleFiles::policies`] gives.
    pub counts: Vec<u64>,
}

impl ThrottleFiles {
    pub(super) fn find(probe: &mut Probe<'_>, snapshot: &Snapshot) -> ThrottleFiles {
        let online: Vec<u32> = snapshot
            .cpus
            .iter()
            .filter(|c| c.online)
            .map(|c| c.id)
            .collect();
        let dir = |cpu: u32| format!("{CPU_DIR}/cpu{cpu}/thermal_throttle");
        if !online
            .first()
            .is_some_and(|&cpu| probe.root().exists(&dir(cpu)))
        {
            return ThrottleFiles::default();
        }
        let package_of = package_ids(probe, snapshot);
        let mut seen: Vec<Option<u32>> = Vec::new();
        let mut packages = Vec::new();
        let cpus = online
            .iter()
            .map(|&cpu| {
                let package = package_of.get(&cpu).copied();
                let index = match seen.iter().position(|known| *known == package) {
                    Some(index) => index,
                    None => {
                        seen.push(package);
                        packages.push(cpu);
                        seen.len() - 1
                    }
                };
                (cpu, snapshot.cpu(cpu).and_then(|c| c.policy), index)
            })
            .collect();
        ThrottleFiles { cpus, packages }
    }

    /// The policy of each CPU whose counters are read, in the order of the readings.
    pub(super) fn policies(&self) -> impl Iterator<Item = Option<u32>> + '_ {
        self.cpus.iter().map(|&(_, policy, _)| policy)
    }

    /// Each CPU's core count plus its package's, each file read once.
    pub(super) fn read(&self, probe: &mut Probe<'_>) -> ThrottleReading {
        let count = |probe: &mut Probe<'_>, cpu: u32, name: &str| {
            let file = format!("{CPU_DIR}/cpu{cpu}/thermal_throttle/{name}");
            probe
                .value::<Decimal<u64>>(&file, Need::Required, Expected::Number)
                .map_or(0, |count| count.0)
        };
        let packages: Vec<u64> = self
            .packages
            .iter()
            .map(|&cpu| count(probe, cpu, "package_throttle_count"))
            .collect();
        let counts = self
            .cpus
            .iter()
            .map(|&(cpu, _, package)| {
                let core = count(probe, cpu, "core_throttle_count");
                core + packages.get(package).copied().unwrap_or(0)
            })
            .collect();
        ThrottleReading { counts }
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! Logical CPUs: which exist and are online, their capacity, EPB and core type
//! (`docs/kernel.md` 4.5 for the labelling rule).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::cpuset::CpuSet;
use crate::sysfs::{Expected, Need, Probe};
use crate::values::{CoreType, Decimal, Epb, Khz};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cpu {
    pub id: u32,
    pub online: bool,
    /// The policy that covers this CPU; `None` without cpufreq.
    pub policy: Option<u32>,
    /// `None` when all cores are alike, or when it cannot be told.
    pub core_type: Option<CoreType>,
    /// `cpu_capacity`: 1024 for the biggest cores.
    pub capacity: Option<u32>,
    pub cur_khz: Option<Khz>,
    /// Intel's energy-performance bias; `None` elsewhere.
    #[serde(skip)]
    pub epb: Option<Epb>,
    /// amd-pstate's preferred-core ranking: higher is a better core.
    pub prefcore_ranking: Option<u32>,
}

const CPU_DIR: &str = "sys/devices/system/cpu";

/// The perf PMUs of Intel hybrid CPUs, each listing the CPUs of one core type.
const HYBRID_PMUS: [(&str, CoreType); 3] = [
    ("sys/devices/cpu_core/cpus", CoreType::Performance),
    ("sys/devices/cpu_atom/cpus", CoreType::Efficiency),
    ("sys/devices/cpu_lowpower/cpus", CoreType::LowPower),
];

/// Reads `present` and `online` and each present CPU's own files.
pub(crate) fn read(probe: &mut Probe<'_>) -> Vec<Cpu> {
    let present = probe
        .value::<CpuSet>(
            &format!("{CPU_DIR}/present"),
            Need::Required,
            Expected::CpuList,
        )
        .unwrap_or_else(|| cpus_from_dir_names(probe));
    let online: CpuSet = probe
        .value(
            &format!("{CPU_DIR}/online"),
            Need::Required,
            Expected::CpuList,
        )
        .unwrap_or_else(|| present.clone());

    // EPB is a CPU feature (X86_FEATURE_EPB): where the first CPU lacks the file, all do.
    let ids: Vec<u32> = present.iter().collect();
    let has_epb = ids.first().is_some_and(|first| {
        probe
            .root()
            .exists(&format!("{CPU_DIR}/cpu{first}/power/energy_perf_bias"))
    });
    probe.map_parallel(&ids, |probe, &id| {
        let dir = format!("{CPU_DIR}/cpu{id}");
        Cpu {
            id,
            online: online.contains(id),
            policy: None,
            core_type: None,
            capacity: probe
                .value::<Decimal<u32>>(
                    &format!("{dir}/cpu_capacity"),
                    Need::Optional,
                    Expected::Number,
                )
                .map(|capacity| capacity.0),
            cur_khz: None,
            epb: has_epb
                .then(|| {
                    probe.value(
                        &format!("{dir}/power/energy_perf_bias"),
                        Need::Required,
                        Expected::Epb,
                    )
                })
                .flatten(),
            prefcore_ranking: None,
        }
    })
}

/// Falls back on the `cpuN` directories when `present` cannot be read.
fn cpus_from_dir_names(probe: &Probe<'_>) -> CpuSet {
    probe
        .root()
        .list_dir(CPU_DIR)
        .unwrap_or_default()
        .iter()
        .filter_map(|name| name.strip_prefix("cpu")?.parse::<u32>().ok())
        .filter(|&id| id < crate::cpuset::MAX_CPUS)
        .collect()
}

/// Labels core types: Intel's hybrid PMUs when they exist, else differing `cpu_capacity`
/// (the largest is the performance type, smaller ones efficiency), else nothing.
pub(crate) fn label_core_types(probe: &mut Probe<'_>, cpus: &mut [Cpu]) {
    let mut hybrid: BTreeMap<u32, CoreType> = BTreeMap::new();
    for (file, core_type) in HYBRID_PMUS {
        if let Some(set) = probe.value::<CpuSet>(file, Need::Optional, Expected::CpuList) {
            for cpu in set.iter() {
                hybrid.insert(cpu, core_type);
            }
        }
    }
    if !hybrid.is_empty() {
        for cpu in cpus.iter_mut() {
            cpu.core_type = hybrid.get(&cpu.id).copied();
        }
        return;
    }

    let capacities: Vec<u32> = cpus.iter().filter_map(|cpu| cpu.capacity).collect();
    let (Some(&lowest), Some(&highest)) = (capacities.iter().min(), capacities.iter().max()) else {
        return;
    };
    if lowest == highest {
        return;
    }
    for cpu in cpus.iter_mut() {
        cpu.core_type = cpu.capacity.map(|capacity| {
            if capacity == highest {
                CoreType::Performance
            } else {
                CoreType::Efficiency
            }
        });
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! The machines behind the models, as they boot: processors, policies and platform, modelled
//! on the reference fixture trees (`docs/kernel.md` 7).

use super::power::{amd_power, intel_power};
use super::{Opp, SimCooling, SimCoreKind, SimCpu, SimDriver, SimMachine, SimPolicy, SimRapl};

/// `scaling_cur_freq` samples of an idle-ish laptop, per logical CPU.
const INTEL_CUR_KHZ: [u32; 16] = [
    1398712, 1402231, 2911024, 2906671, 1187503, 1191220, 998417, 1003389, 1199867, 801554,
    1397215, 900233, 1600412, 799981, 1100734, 1301902,
];

/// Core i7-1260P (Alder Lake-L): P-cores up to 4.7 GHz (base 2.1), E-cores up to 3.4 GHz
/// (base 1.5), EPP balance_performance = 102 on this model. With SMT possible, intel_pstate
/// sets no asymmetric capacity and registers no energy model (intel_pstate.c
/// `hybrid_init_cpu_capacity_scaling()`, `docs/kernel.md` 4.2).
pub(super) fn intel_hybrid(smt: bool) -> SimMachine {
    let p_threads = if smt { 8 } else { 4 };
    let count = p_threads + 8;
    let cpus = (0..count)
        .map(|id| {
            let p_core = id < p_threads;
            let core_cpus = if smt && p_core {
                let first = id - id % 2;
                vec![first, first + 1]
            } else {
                vec![id]
            };
            SimCpu {
                id,
                kind: if p_core {
                    SimCoreKind::IntelP
                } else {
                    SimCoreKind::IntelE
                },
                online: true,
                capacity: if smt || p_core { 1024 } else { 580 },
                core_cpus,
                epb: Some(6),
                prefcore_ranking: None,
                t_state: 0,
            }
        })
        .collect();
    let policies = (0..count)
        .map(|id| {
            let p_core = id < p_threads;
            let (max, base) = if p_core {
                (4_700_000, 2_100_000)
            } else {
                (3_400_000, 1_500_000)
            };
            SimPolicy {
                cur_khz: INTEL_CUR_KHZ[id as usize],
                ..per_cpu_policy(id, (400_000, max), Some(base), 102)
            }
        })
        .collect();
    SimMachine {
        model: if smt {
            "intel-hybrid"
        } else {
            "intel-hybrid-nosmt"
        }
        .into(),
        cpus,
        policies,
        driver: SimDriver::IntelPstate {
            passive: false,
            no_turbo: false,
            epp_values: [0, 102, 0xC0, 0xFF],
        },
        smt_possible: smt,
        eas_support: true,
        eas_knob: true,
        energy_model: !smt,
        rapl: SimRapl::Intel,
        // A laptop's processors have eight ACPI T-states (max_state 3 + 7 = 10).
        cooling: SimCooling::AcpiProcessor {
            step: 0,
            t_states: 8,
        },
        throttle: Some(Default::default()),
        // i7-1260P: 28 W base power, 64 W maximum turbo power, PL4 on Alder Lake.
        power: Some(intel_power(28, 64, Some(123))),
        platform_profile: None,
        resume_quirk: None,
    }
}

/// Ryzen 7 7840U-class (Phoenix): 8 cores with SMT (siblings N and N+8), 0.4–4.9 GHz,
/// preferred-core rankings per physical core.
pub(super) fn amd_zen4() -> SimMachine {
    const RANKING: [u32; 8] = [236, 231, 226, 216, 221, 211, 206, 201];
    const CUR_KHZ: [u32; 16] = [
        1742110, 401223, 2988004, 399875, 1103562, 400117, 400891, 3877261, 402334, 1400781,
        399102, 400450, 2203117, 401662, 399990, 400037,
    ];
    let cpus = (0..16)
        .map(|id| SimCpu {
            id,
            kind: SimCoreKind::Zen4,
            online: true,
            capacity: 1024,
            core_cpus: smt_pair(id, 8),
            epb: None,
            prefcore_ranking: Some(RANKING[(id % 8) as usize]),
            t_state: 0,
        })
        .collect();
    let policies = (0..16)
        .map(|id| SimPolicy {
            cur_khz: CUR_KHZ[id as usize],
            boost: Some(true),
            ..per_cpu_policy(id, (400_000, 4_900_000), None, 0x80)
        })
        .collect();
    amd_pstate_epp("amd-zen4", cpus, policies, 28)
}

/// A machine of `cpus` and `policies` under amd-pstate-epp in active mode, boost on: SMT
/// possible, no energy model (all cores alike), AMD's RAPL, a package of `tdp_w` watts.
fn amd_pstate_epp(
    model: &str,
    cpus: Vec<SimCpu>,
    policies: Vec<SimPolicy>,
    tdp_w: u64,
) -> SimMachine {
    SimMachine {
        model: model.into(),
        cpus,
        policies,
        driver: SimDriver::AmdPstate {
            status: "active".into(),
            boost: true,
            dynamic_epp: None,
        },
        smt_possible: true,
        eas_support: true,
        eas_knob: true,
        energy_model: false,
        rapl: SimRapl::Amd,
        // AMD's processor objects have no ACPI throttling.
        cooling: SimCooling::AcpiProcessor {
            step: 0,
            t_states: 0,
        },
        throttle: None,
        power: Some(amd_power(tdp_w)),
        platform_profile: None,
        resume_quirk: None,
    }
}

/// RK3588 with the mainline device tree: A55 cluster cpu0-3 up to 1.8 GHz (capacity 397),
/// two A76 clusters cpu4-5 and cpu6-7 up to 2.4 GHz.
pub(super) fn arm_rk3588() -> SimMachine {
    let little: Vec<Opp> = [
        (1_008_000, 675_000),
        (1_200_000, 712_500),
        (1_416_000, 762_500),
        (1_608_000, 850_000),
        (1_800_000, 950_000),
    ]
    .map(|(khz, microvolts)| Opp { khz, microvolts })
    .to_vec();
    let big: Vec<Opp> = [
        (1_200_000, 675_000),
        (1_416_000, 725_000),
        (1_608_000, 762_500),
        (1_800_000, 850_000),
        (2_016_000, 925_000),
        (2_208_000, 987_500),
        (2_400_000, 1_000_000),
    ]
    .map(|(khz, microvolts)| Opp { khz, microvolts })
    .to_vec();
    let clusters = [
        (
            0u32,
            0..4u32,
            little,
            228u32,
            1_008_000u32,
            SimCoreKind::CortexA55,
            397u32,
        ),
        (
            4,
            4..6,
            big.clone(),
            416,
            1_200_000,
            SimCoreKind::CortexA76,
            1024,
        ),
        (6, 6..8, big, 416, 2_400_000, SimCoreKind::CortexA76, 1024),
    ];
    let mut cpus = Vec::new();
    let mut policies = Vec::new();
    for (id, range, opps, coefficient, cur_khz, kind, capacity) in clusters {
        cpus.extend(range.clone().map(|cpu| SimCpu {
            id: cpu,
            kind,
            online: true,
            capacity,
            core_cpus: vec![cpu],
            epb: None,
            prefcore_ranking: None,
            t_state: 0,
        }));
        let (min, max) = (opps[0].khz, opps[opps.len() - 1].khz);
        policies.push(SimPolicy {
            id,
            cpus: range.collect(),
            governor: "schedutil".into(),
            min_khz: min,
            max_khz: max,
            hw_min_khz: min,
            hw_max_khz: max,
            base_khz: None,
            cur_khz,
            epp_raw: None,
            epp_saved: None,
            opps: Some(opps),
            dynamic_power_coefficient: Some(coefficient),
            boost: Some(false),
            cooling_state: 0,
            epp_written_raw: false,
        });
    }
    SimMachine {
        model: "arm-rk3588".into(),
        cpus,
        policies,
        driver: SimDriver::CpufreqDt { boost: false },
        smt_possible: false,
        eas_support: true,
        eas_knob: true,
        energy_model: true,
        rapl: SimRapl::None,
        // The device tree gives each CPU node `#cooling-cells`.
        cooling: SimCooling::Cpufreq,
        throttle: None,
        power: None,
        platform_profile: None,
        resume_quirk: None,
    }
}

/// A plausible idle-to-busy spread of `scaling_cur_freq` over `count` CPUs between `low`
/// and `high` kHz (a fixed scramble, so that the rendered tree is the same every time).
fn spread_khz(id: u32, low: u32, high: u32) -> u32 {
    let step = (high - low) / 16;
    low + (id.wrapping_mul(7) + id / 5) % 17 * step
}

/// SMT siblings `id` and `id ± half` of a machine with `half` physical cores.
fn smt_pair(id: u32, half: u32) -> Vec<u32> {
    let core = id % half;
    vec![core, core + half]
}

/// One policy per CPU, as intel_pstate and amd-pstate register them.
fn per_cpu_policy(id: u32, (min, max): (u32, u32), base: Option<u32>, epp_raw: u8) -> SimPolicy {
    SimPolicy {
        id,
        cpus: vec![id],
        governor: "powersave".into(),
        min_khz: min,
        max_khz: max,
        hw_min_khz: min,
        hw_max_khz: max,
        base_khz: base,
        cur_khz: spread_khz(id, min, max),
        epp_raw: Some(epp_raw),
        epp_saved: None,
        opps: None,
        dynamic_power_coefficient: None,
        boost: None,
        cooling_state: 0,
        epp_written_raw: false,
    }
}

/// Xeon w9-3475X-class workstation cut to 32 cores (Sapphire Rapids): SMT siblings N and
/// N+32, 0.8–4.8 GHz with a 2.2 GHz base.
pub(super) fn workstation_64() -> SimMachine {
    SimMachine {
        // 300 W processor base power, 420 W maximum turbo power; no PL4 on a Xeon.
        power: Some(intel_power(300, 420, None)),
        ..intel_cores_alike("workstation-64", 64, 32, (800_000, 4_800_000), 2_200_000)
    }
}

/// Celeron N4020-class netbook (Gemini Lake Refresh): two cores without SMT, 0.8–2.8 GHz
/// with a 1.1 GHz base.
pub(super) fn netbook_2() -> SimMachine {
    SimMachine {
        // A laptop's processors have eight ACPI T-states.
        cooling: SimCooling::AcpiProcessor {
            step: 0,
            t_states: 8,
        },
        // 6 W TDP, 15 W burst; Gemini Lake has no PL4.
        power: Some(intel_power(6, 15, None)),
        ..intel_cores_alike("netbook-2", 2, 2, (800_000, 2_800_000), 1_100_000)
    }
}

/// An Intel machine of `cpus` logical CPUs on `cores` cores all alike (SMT siblings N and
/// N+`cores`), intel_pstate active. Without hybrid cores intel_pstate uses the generic EPP
/// values (balance_performance = 128, `docs/kernel.md` 2.2), and there is no asymmetric
/// capacity, so no energy model and no EAS.
fn intel_cores_alike(
    model: &str,
    cpus: u32,
    cores: u32,
    range_khz: (u32, u32),
    base_khz: u32,
) -> SimMachine {
    let smt = cpus > cores;
    let cpu_list = (0..cpus)
        .map(|id| SimCpu {
            id,
            kind: SimCoreKind::IntelCore,
            online: true,
            capacity: 1024,
            core_cpus: if smt { smt_pair(id, cores) } else { vec![id] },
            epb: Some(6),
            prefcore_ranking: None,
            t_state: 0,
        })
        .collect();
    let policies = (0..cpus)
        .map(|id| per_cpu_policy(id, range_khz, Some(base_khz), 0x80))
        .collect();
    SimMachine {
        model: model.into(),
        cpus: cpu_list,
        policies,
        driver: SimDriver::IntelPstate {
            passive: false,
            no_turbo: false,
            epp_values: [0, 0x80, 0xC0, 0xFF],
        },
        smt_possible: smt,
        eas_support: true,
        eas_knob: true,
        energy_model: false,
        rapl: SimRapl::Intel,
        cooling: SimCooling::AcpiProcessor {
            step: 0,
            t_states: 0,
        },
        throttle: Some(Default::default()),
        power: None,
        platform_profile: None,
        resume_quirk: None,
    }
}

/// EPYC 9754-class server (Bergamo, Zen 4c): 128 cores with SMT (siblings N and N+128),
/// 1.5–3.1 GHz, amd-pstate-epp in active mode, no preferred-core rankings (server parts
/// report none).
pub(super) fn server_256() -> SimMachine {
    let cpus = (0..256)
        .map(|id| SimCpu {
            id,
            kind: SimCoreKind::Zen4,
            online: true,
            capacity: 1024,
            core_cpus: smt_pair(id, 128),
            epb: None,
            prefcore_ranking: None,
            t_state: 0,
        })
        .collect();
    let policies = (0..256)
        .map(|id| SimPolicy {
            boost: Some(true),
            ..per_cpu_policy(id, (1_500_000, 3_100_000), None, 0x80)
        })
        .collect();
    amd_pstate_epp("server-256", cpus, policies, 360)
}

/// A cloud VM: four vCPUs, no cpufreq driver, a kernel without energy-model support.
pub(super) fn vm() -> SimMachine {
    SimMachine {
        model: "vm".into(),
        cpus: (0..4)
            .map(|id| SimCpu {
                id,
                kind: SimCoreKind::Virtual,
                online: true,
                capacity: 1024,
                core_cpus: vec![id],
                epb: None,
                prefcore_ranking: None,
                t_state: 0,
            })
            .collect(),
        policies: Vec::new(),
        driver: SimDriver::None,
        smt_possible: false,
        eas_support: false,
        eas_knob: true,
        energy_model: false,
        rapl: SimRapl::None,
        cooling: SimCooling::None,
        throttle: None,
        power: None,
        platform_profile: None,
        resume_quirk: None,
    }
}

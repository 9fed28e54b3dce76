// SPDX-License-Identifier: GPL-3.0-or-later
//! The models that show why a CPU runs slower than asked, one link of the limit chain each
//! (`docs/kernel.md` 8): a laptop model changed into one whose maximum comes back clamped
//! after resume, one the kernel's dynamic EPP drives, one held by its cooling devices, one
//! held by a low power limit.

use super::{ResumeQuirk, SimCooling, SimDriver, SimMachine, SimPlatformProfile, SimThrottle};

/// The platform profile of a laptop's firmware handler (thinkpad_acpi, ideapad, amd-pmf
/// offer these three), at its default.
fn laptop_profile() -> Option<SimPlatformProfile> {
    Some(SimPlatformProfile {
        profile: "balanced".into(),
        choices: ["low-power", "balanced", "performance"]
            .map(str::to_owned)
            .to_vec(),
    })
}

/// The Ryzen laptop whose resume brings `scaling_max_freq` of policies 4-7 and their SMT
/// siblings 12-15 back at 400 MHz, as amd-pstate did on some kernels: the maximum stays
/// there until written again.
pub(super) fn amd_resume_clamp(base: SimMachine) -> SimMachine {
    SimMachine {
        model: "amd-resume-clamp".into(),
        platform_profile: laptop_profile(),
        resume_quirk: Some(ResumeQuirk::MaxFreqClamp {
            policies: (4..8).chain(12..16).collect(),
            khz: 400_000,
        }),
        ..base
    }
}

/// The Ryzen laptop on Linux 7.1 or later, booted with `amd_dynamic_epp=enable` and on AC
/// power: the driver picks EPP from the platform profile (balanced on AC is `performance`)
/// and refuses writes to `energy_performance_preference` (amd-pstate.c
/// `amd_pstate_set_dynamic_epp()`, `docs/kernel.md` 3).
pub(super) fn amd_dynamic_epp(base: SimMachine) -> SimMachine {
    let mut machine = SimMachine {
        model: "amd-dynamic-epp".into(),
        platform_profile: laptop_profile(),
        ..base
    };
    if let SimDriver::AmdPstate { dynamic_epp, .. } = &mut machine.driver {
        *dynamic_epp = Some(true);
    }
    machine.apply_dynamic_epp();
    machine
}

/// The Alder Lake-P laptop running hot: the ACPI thermal zone holds the package's
/// `Processor` cooling devices at state 3 of 10 (every core at 40 % of its maximum: 1.88 GHz
/// on the P-cores, 1.36 GHz on the E-cores), and the E-cores (CPUs 8-15) are at their
/// thermal limit, their throttle counters rising.
pub(super) fn intel_hybrid_thermal(base: SimMachine) -> SimMachine {
    let t_states = match base.cooling {
        SimCooling::AcpiProcessor { t_states, .. } => t_states,
        _ => 0,
    };
    held(SimMachine {
        model: "intel-hybrid-thermal".into(),
        cooling: SimCooling::AcpiProcessor { step: 3, t_states },
        throttle: Some(SimThrottle {
            hot_cpus: (8..16).collect(),
            package_hot: false,
        }),
        platform_profile: laptop_profile(),
        ..base
    })
}

/// The Alder Lake-P laptop whose package long-term limit (PL1) was set to 8 W, far below its
/// default of 28 W (by firmware or another tool): the package draws 8 W and every core runs
/// slow.
pub(super) fn intel_power_limit(base: SimMachine) -> SimMachine {
    let mut machine = SimMachine {
        model: "intel-power-limit".into(),
        platform_profile: laptop_profile(),
        ..base
    };
    machine.set_long_term_limit(8_000_000);
    held(machine)
}

/// The machine with its current frequencies within what holds them: the files show the
/// CPUs running under their limits from the start, before the ticker moves them.
fn held(mut machine: SimMachine) -> SimMachine {
    let ceilings: Vec<u32> = machine
        .policies
        .iter()
        .map(|policy| {
            let max = machine.qos_max_khz(policy);
            machine
                .power_cap_khz(policy)
                .map_or(max, |cap| cap.min(max))
        })
        .collect();
    for (policy, ceiling) in machine.policies.iter_mut().zip(ceilings) {
        policy.cur_khz = policy.cur_khz.min(ceiling);
    }
    machine
}

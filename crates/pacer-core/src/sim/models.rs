// SPDX-License-Identifier: GPL-3.0-or-later
//! The machine kinds Pacer simulates, by name and description as `pacerctl simulate list`
//! shows them (`docs/kernel.md` 7); the machines themselves are built in `machines`.

use crate::i18n::gettext_noop;

use super::machines::{
    amd_zen4, arm_rk3588, intel_hybrid, netbook_2, server_256, vm, workstation_64,
};
use super::scenarios;
use super::SimMachine;

/// A machine kind Pacer can simulate.
#[derive(Debug, Clone, Copy)]
pub struct Model {
    pub name: &'static str,
    /// One line for `pacerctl simulate list`.
    pub description: &'static str,
    pub build: fn() -> SimMachine,
}

/// Every model.
pub const MODELS: [Model; 12] = [
    Model {
        name: "intel-hybrid",
        description: gettext_noop("Alder Lake-P laptop: 4 P-cores with SMT + 8 E-cores, intel_pstate in active mode"),
        build: || intel_hybrid(true),
    },
    Model {
        name: "intel-hybrid-nosmt",
        description: gettext_noop("the same laptop with SMT impossible: 4 P-cores + 8 E-cores, EAS-capable in passive mode"),
        build: || intel_hybrid(false),
    },
    Model {
        name: "amd-zen4",
        description: gettext_noop("Ryzen 7 7840U-class laptop: 8 cores, 16 threads, amd-pstate-epp, preferred cores"),
        build: amd_zen4,
    },
    Model {
        name: "arm-rk3588",
        description: gettext_noop("RK3588 board: 4 Cortex-A55 + 2x2 Cortex-A76, cpufreq-dt, schedutil, EAS running"),
        build: arm_rk3588,
    },
    Model {
        name: "workstation-64",
        description: gettext_noop("Xeon W workstation: 32 cores, 64 threads, all alike, intel_pstate in active mode"),
        build: workstation_64,
    },
    Model {
        name: "server-256",
        description: gettext_noop("EPYC 9754-class server: 128 cores, 256 threads, amd-pstate-epp"),
        build: server_256,
    },
    Model {
        name: "netbook-2",
        description: gettext_noop("Celeron N4020-class netbook: 2 cores, no SMT, intel_pstate in active mode"),
        build: netbook_2,
    },
    Model {
        name: "vm",
        description: gettext_noop("virtual machine with 4 CPUs and no CPU frequency control"),
        build: vm,
    },
    Model {
        name: "amd-resume-clamp",
        description: gettext_noop("the Ryzen laptop whose resume brings the maximum frequency of CPUs 4-7 and 12-15 back at 400 MHz"),
        build: || scenarios::amd_resume_clamp(amd_zen4()),
    },
    Model {
        name: "amd-dynamic-epp",
        description: gettext_noop("the Ryzen laptop on Linux 7.1 with dynamic EPP on: the kernel sets EPP and refuses writes to it"),
        build: || scenarios::amd_dynamic_epp(amd_zen4()),
    },
    Model {
        name: "intel-hybrid-thermal",
        description: gettext_noop("the Alder Lake-P laptop running hot: cooling state 3 of 10 holds every core to 40 %, the E-cores throttling"),
        build: || scenarios::intel_hybrid_thermal(intel_hybrid(true)),
    },
    Model {
        name: "intel-power-limit",
        description: gettext_noop("the Alder Lake-P laptop with its long-term power limit at 8 W instead of 28 W"),
        build: || scenarios::intel_power_limit(intel_hybrid(true)),
    },
];

/// The model called `name`.
pub fn model(name: &str) -> Option<SimMachine> {
    MODELS
        .iter()
        .find(|model| model.name == name)
        .map(|model| (model.build)())
}

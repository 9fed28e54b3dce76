// SPDX-License-Identifier: GPL-3.0-or-later
//! Energy Aware Scheduling: whether it runs, and why not (`docs/kernel.md` 4).
//!
//! EAS runs when the kernel supports it, the sysctl allows it, capacities are asymmetric, SMT
//! is off, every policy runs schedutil, and an energy model covers every CPU. From 6.7 the
//! sysctl reads empty when any of the middle conditions fails; before 6.7 it reads `1`
//! regardless, which is why the conditions are checked here as well instead of trusting `1`.

use std::fmt;

use serde::{Deserialize, Serialize, Serializer};

use crate::cpuset::CpuSet;
use crate::i18n::{fill, gettext};
use crate::sysfs::{Expected, Need, Probe, ReadError};
use crate::values::{EasSysctl, Governor};

pub const SYSCTL: &str = "proc/sys/kernel/sched_energy_aware";
const ENERGY_MODEL_DIR: &str = "sys/kernel/debug/energy_model";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Eas {
    /// Whether EAS runs; `None` when that cannot be told (energy model unreadable).
    pub active: Option<bool>,
    /// What the sysctl reads; `None` when it is missing or unreadable.
    #[serde(serialize_with = "sysctl_as_kernel_str")]
    pub sysctl: Option<EasSysctl>,
    pub reasons: Vec<EasReason>,
}

impl Eas {
    /// The reasons in words, one after the other.
    pub fn reasons_text(&self) -> String {
        let reasons: Vec<String> = self.reasons.iter().map(ToString::to_string).collect();
        reasons.join("; ")
    }
}

fn sysctl_as_kernel_str<S: Serializer>(
    sysctl: &Option<EasSysctl>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    sysctl.map(EasSysctl::as_kernel_str).serialize(serializer)
}

/// Why EAS is not running (or why that cannot be told).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "kebab-case")]
pub enum EasReason {
    /// No `sched_energy_aware`: the kernel lacks energy-model or schedutil support.
    NoKernelSupport,
    /// The sysctl reads `0`.
    DisabledBySysctl,
    /// SMT is active; EAS does not handle SMT.
    SmtActive,
    /// Every CPU has the same capacity, so there is nothing to choose between.
    SymmetricCapacity,
    /// These policies do not run schedutil (a driver in active mode has no governor at all).
    GovernorNotSchedutil { policies: Vec<u32> },
    /// The machine has no cpufreq policies.
    NoCpufreq,
    /// The energy model does not cover these online CPUs.
    NoEnergyModel { cpus: CpuSet },
    /// The kernel reports EAS impossible for a reason Pacer cannot see.
    KernelSaysImpossible,
    /// The energy model (debugfs, root only) could not be read, so whether EAS runs is unknown.
    EnergyModelUnknown,
}

impl fmt::Display for EasReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            EasReason::NoKernelSupport => {
                gettext("the kernel was built without energy-aware scheduling")
            }
            EasReason::DisabledBySysctl => {
                gettext("switched off in /proc/sys/kernel/sched_energy_aware")
            }
            EasReason::SmtActive => gettext("SMT (hyper-threading) is active"),
            EasReason::SymmetricCapacity => gettext("all cores have the same capacity"),
            EasReason::GovernorNotSchedutil { policies } => fill(
                gettext("the governor is not schedutil on policy {policies}"),
                &[("policies", &policies.iter().copied().collect::<CpuSet>())],
            ),
            EasReason::NoCpufreq => gettext("there is no CPU frequency scaling"),
            EasReason::NoEnergyModel { cpus } => {
                fill(gettext("no energy model for CPU {cpus}"), &[("cpus", cpus)])
            }
            EasReason::KernelSaysImpossible => {
                gettext("the kernel reports it impossible on this machine")
            }
            EasReason::EnergyModelUnknown => gettext("the energy model can only be read as root"),
        };
        f.write_str(&text)
    }
}

/// What the sysctl file gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SysctlRead {
    Missing,
    /// Unreadable or garbled (already reported as a problem).
    Unknown,
    Value(EasSysctl),
}

/// The energy model's coverage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnergyModel {
    /// debugfs is not readable or not mounted.
    Unknown,
    /// The CPUs covered by some performance domain.
    Covers(CpuSet),
}

/// Everything EAS depends on, gathered from the snapshot.
#[derive(Debug, Clone)]
pub struct EasInputs<'a> {
    pub sysctl: SysctlRead,
    pub smt_active: Option<bool>,
    pub online_cpus: &'a CpuSet,
    /// The capacities of the online CPUs that report one.
    pub capacities: Vec<u32>,
    /// Each active policy's id and governor.
    pub governors: Vec<(u32, Option<&'a Governor>)>,
    pub energy_model: &'a EnergyModel,
}

/// Decides whether EAS runs and lists every reason it does not.
pub fn evaluate(inputs: &EasInputs<'_>) -> Eas {
    let sysctl = match inputs.sysctl {
        SysctlRead::Value(value) => Some(value),
        _ => None,
    };
    if inputs.sysctl == SysctlRead::Missing {
        return Eas {
            active: Some(false),
            sysctl,
            reasons: vec![EasReason::NoKernelSupport],
        };
    }

    let mut reasons = Vec::new();
    if sysctl == Some(EasSysctl::Disabled) {
        reasons.push(EasReason::DisabledBySysctl);
    }
    if inputs.smt_active == Some(true) {
        reasons.push(EasReason::SmtActive);
    }
    let symmetric = inputs.capacities.len() == inputs.online_cpus.len()
        && inputs.capacities.windows(2).all(|pair| pair[0] == pair[1]);
    if symmetric {
        reasons.push(EasReason::SymmetricCapacity);
    }
    if inputs.governors.is_empty() {
        reasons.push(EasReason::NoCpufreq);
    }
    let not_schedutil: Vec<u32> = inputs
        .governors
        .iter()
        .filter(|(_, governor)| !governor.is_some_and(|g| g.is(Governor::SCHEDUTIL)))
        .map(|(id, _)| *id)
        .collect();
    if !not_schedutil.is_empty() {
        reasons.push(EasReason::GovernorNotSchedutil {
            policies: not_schedutil,
        });
    }
    let em_known = match inputs.energy_model {
        EnergyModel::Covers(covered) => {
            let uncovered: CpuSet = inputs
                .online_cpus
                .iter()
                .filter(|&cpu| !covered.contains(cpu))
                .collect();
            if !uncovered.is_empty() {
                reasons.push(EasReason::NoEnergyModel { cpus: uncovered });
            }
            true
        }
        EnergyModel::Unknown => false,
    };

    let active = if !reasons.is_empty() {
        Some(false)
    } else if sysctl == Some(EasSysctl::Impossible) {
        reasons.push(EasReason::KernelSaysImpossible);
        Some(false)
    } else if !em_known {
        reasons.push(EasReason::EnergyModelUnknown);
        None
    } else if sysctl == Some(EasSysctl::Enabled) {
        Some(true)
    } else {
        None
    };
    Eas {
        active,
        sysctl,
        reasons,
    }
}

pub(crate) fn read_sysctl(probe: &mut Probe<'_>) -> SysctlRead {
    if !probe.root().exists(SYSCTL) {
        return SysctlRead::Missing;
    }
    match probe.value::<EasSysctl>(SYSCTL, Need::Required, Expected::EasSysctl) {
        Some(value) => SysctlRead::Value(value),
        None => SysctlRead::Unknown,
    }
}

/// Reads which CPUs the energy model covers, from debugfs. Unreadable debugfs is normal for
/// a user; only root (the helper) sees it.
pub(crate) fn read_energy_model(probe: &mut Probe<'_>) -> EnergyModel {
    let root = probe.root();
    match root.list_dir(ENERGY_MODEL_DIR) {
        Ok(domains) => {
            let mut covered = CpuSet::new();
            for domain in domains {
                let file = format!("{ENERGY_MODEL_DIR}/{domain}/cpus");
                if let Some(cpus) = probe.value::<CpuSet>(&file, Need::Required, Expected::CpuList)
                {
                    covered.extend(&cpus);
                }
            }
            EnergyModel::Covers(covered)
        }
        // debugfs mounted and readable, but no energy model directory: no EM at all.
        Err(ReadError::Missing)
            if root
                .list_dir("sys/kernel/debug")
                .is_ok_and(|entries| !entries.is_empty()) =>
        {
            EnergyModel::Covers(CpuSet::new())
        }
        Err(_) => EnergyModel::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedutil() -> Governor {
        "schedutil".parse().unwrap()
    }

    fn powersave() -> Governor {
        "powersave".parse().unwrap()
    }

    /// An RK3588-like machine where every condition holds.
    struct Case {
        sysctl: SysctlRead,
        smt: Option<bool>,
        capacities: Vec<u32>,
        governors: Vec<Governor>,
        em: EnergyModel,
    }

    impl Case {
        fn eas_capable() -> Case {
            Case {
                sysctl: SysctlRead::Value(EasSysctl::Enabled),
                smt: Some(false),
                capacities: vec![397, 397, 1024, 1024],
                governors: vec![schedutil(), schedutil()],
                em: EnergyModel::Covers(CpuSet::parse("0-3").unwrap()),
            }
        }

        fn evaluate(&self) -> Eas {
            let online = CpuSet::parse("0-3").unwrap();
            evaluate(&EasInputs {
                sysctl: self.sysctl,
                smt_active: self.smt,
                online_cpus: &online,
                capacities: self.capacities.clone(),
                governors: self
                    .governors
                    .iter()
                    .enumerate()
                    .map(|(i, g)| (i as u32 * 2, Some(g)))
                    .collect(),
                energy_model: &self.em,
            })
        }
    }

    #[test]
    fn running_when_every_condition_holds() {
        let eas = Case::eas_capable().evaluate();
        assert_eq!(eas.active, Some(true));
        assert!(eas.reasons.is_empty());
    }

    #[test]
    fn each_missing_condition_is_named() {
        type Change = fn(&mut Case);
        let table: Vec<(Change, EasReason)> = vec![
            (
                |c| c.sysctl = SysctlRead::Value(EasSysctl::Disabled),
                EasReason::DisabledBySysctl,
            ),
            (|c| c.smt = Some(true), EasReason::SmtActive),
            (
                |c| c.capacities = vec![1024; 4],
                EasReason::SymmetricCapacity,
            ),
            (
                |c| c.governors[1] = powersave(),
                EasReason::GovernorNotSchedutil { policies: vec![2] },
            ),
            (|c| c.governors.clear(), EasReason::NoCpufreq),
            (
                |c| c.em = EnergyModel::Covers(CpuSet::parse("0-1").unwrap()),
                EasReason::NoEnergyModel {
                    cpus: CpuSet::parse("2-3").unwrap(),
                },
            ),
        ];
        for (change, reason) in table {
            let mut case = Case::eas_capable();
            change(&mut case);
            let eas = case.evaluate();
            assert_eq!(eas.active, Some(false), "{reason:?}");
            assert_eq!(eas.reasons, vec![reason]);
        }
    }

    #[test]
    fn pre_6_7_kernels_read_1_even_when_impossible() {
        let mut case = Case::eas_capable();
        case.smt = Some(true);
        case.capacities = vec![1024; 4];
        let eas = case.evaluate();
        assert_eq!(eas.active, Some(false));
        assert_eq!(
            eas.reasons,
            vec![EasReason::SmtActive, EasReason::SymmetricCapacity]
        );
    }

    #[test]
    fn missing_sysctl_means_no_kernel_support() {
        let mut case = Case::eas_capable();
        case.sysctl = SysctlRead::Missing;
        let eas = case.evaluate();
        assert_eq!(eas.active, Some(false));
        assert_eq!(eas.sysctl, None);
        assert_eq!(eas.reasons, vec![EasReason::NoKernelSupport]);
    }

    #[test]
    fn empty_sysctl_without_visible_cause() {
        let mut case = Case::eas_capable();
        case.sysctl = SysctlRead::Value(EasSysctl::Impossible);
        let eas = case.evaluate();
        assert_eq!(eas.active, Some(false));
        assert_eq!(eas.reasons, vec![EasReason::KernelSaysImpossible]);
    }

    #[test]
    fn unreadable_energy_model_leaves_it_unknown() {
        let mut case = Case::eas_capable();
        case.em = EnergyModel::Unknown;
        let eas = case.evaluate();
        assert_eq!(eas.active, None);
        assert_eq!(eas.reasons, vec![EasReason::EnergyModelUnknown]);

        case.sysctl = SysctlRead::Unknown;
        assert_eq!(case.evaluate().active, None);
        case.smt = Some(true);
        assert_eq!(
            case.evaluate().active,
            Some(false),
            "a known blocker decides"
        );
    }
}

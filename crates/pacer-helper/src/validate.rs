// SPDX-License-Identifier: GPL-3.0-or-later
//! Checking a request against what the machine offers, before polkit is asked and before
//! anything is written. Pure: a snapshot and the caller's arguments in, the validated values
//! (or the [`Problem`] with its arguments) out. Fuzzed through [`Request`].

use std::collections::BTreeSet;

use pacer_core::machine::{Policy, Snapshot};
use pacer_core::values::{DriverMode, EasSysctl, Epp, Governor, Khz};
use pacer_core::CpuSet;
use pacer_dbus::{echo, Problem};

use crate::kernel::Target;

/// The most policies one request may name: more than Linux has CPUs is not a request.
pub const MAX_POLICIES: usize = pacer_core::cpuset::MAX_CPUS as usize;
/// The most trials on one CPU.
pub const MAX_TRIALS: u32 = 20;
/// The most CPUs one measurement may name.
pub const MAX_MEASURED_CPUS: usize = 64;
/// The most trials of one measurement over all its CPUs: each takes 1.6 s, so a measurement
/// ends within two minutes.
pub const MAX_TRIAL_RUNS: usize = 64;

/// A request as the caller sent it, before any of it is believed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    SetGovernor {
        policies: Vec<u32>,
        governor: String,
    },
    SetEpp {
        policies: Vec<u32>,
        epp: String,
    },
    SetBoost {
        policies: Vec<u32>,
    },
    SetMaxFrequency {
        policies: Vec<u32>,
        khz: u32,
    },
    SetEas,
    SetDriverMode {
        mode: String,
    },
    MeasureRamp {
        cpus: Vec<u32>,
        trials: u32,
    },
}

/// Checks any request; what each method does before it asks polkit.
pub fn check(snapshot: &Snapshot, request: &Request) -> Result<(), Problem> {
    match request {
        Request::SetGovernor { policies, governor } => {
            self::governor(snapshot, policies, governor).map(drop)
        }
        Request::SetEpp { policies, epp } => self::epp(snapshot, policies, epp).map(drop),
        Request::SetBoost { policies } => self::policies(snapshot, policies).map(drop),
        Request::SetMaxFrequency { policies, khz } => {
            max_frequency(snapshot, policies, *khz).map(drop)
        }
        Request::SetEas => eas(snapshot),
        Request::SetDriverMode { mode } => driver_mode(snapshot, mode).map(drop),
        Request::MeasureRamp { cpus, trials } => measurement(snapshot, cpus, *trials, None),
    }
}

/// The policy list: not empty, not absurd, each one there and with an online CPU. Returns
/// the policies once each, in id order.
pub fn policies<'s>(snapshot: &'s Snapshot, ids: &[u32]) -> Result<Vec<&'s Policy>, Problem> {
    if ids.is_empty() {
        return Err(Problem::NoPolicies);
    }
    if ids.len() > MAX_POLICIES {
        return Err(Problem::TooManyPolicies { count: ids.len() });
    }
    let unique: BTreeSet<u32> = ids.iter().copied().collect();
    unique
        .into_iter()
        .map(|id| match snapshot.policy(id) {
            Some(policy) if policy.is_active() => Ok(policy),
            Some(_) => Err(Problem::PolicyOffline { policy: id }),
            None => Err(Problem::NoSuchPolicy { policy: id }),
        })
        .collect()
}

fn ids(policies: &[&Policy]) -> Vec<u32> {
    policies.iter().map(|policy| policy.id).collect()
}

fn names<T: ToString>(values: &[T]) -> Vec<String> {
    values.iter().map(ToString::to_string).collect()
}

/// A governor every named policy offers.
pub fn governor(
    snapshot: &Snapshot,
    ids: &[u32],
    value: &str,
) -> Result<(Vec<u32>, Governor), Problem> {
    let governor: Governor = value
        .parse()
        .map_err(|_| Problem::NotAGovernor { value: echo(value) })?;
    let targets = policies(snapshot, ids)?;
    for policy in &targets {
        let offered = policy.available_governors.as_deref().unwrap_or_default();
        if !offered.contains(&governor) {
            return Err(Problem::GovernorNotOffered {
                policy: policy.id,
                governor: governor.to_string(),
                offered: names(offered),
            });
        }
    }
    Ok((self::ids(&targets), governor))
}

/// An EPP every named policy takes: a name it lists, or a raw number where the driver
/// takes one (intel_pstate); refused up front where the performance governor holds it.
pub fn epp(snapshot: &Snapshot, ids: &[u32], value: &str) -> Result<(Vec<u32>, Epp), Problem> {
    let epp: Epp = value
        .parse()
        .map_err(|_| Problem::NotAnEpp { value: echo(value) })?;
    let targets = policies(snapshot, ids)?;
    // With dynamic EPP on, amd-pstate refuses every EPP write (EBUSY) before reading it.
    if snapshot.driver.kernel_sets_epp() {
        return Err(Problem::EppSetByKernel);
    }
    // The performance governor of a setpolicy driver refuses any EPP but 0 (EBUSY).
    if !matches!(epp, Epp::Performance | Epp::Raw(0)) {
        // `targets` is in id order: each pinned policy is looked up, not searched for.
        let pinned: CpuSet = snapshot
            .epp_pinned()
            .into_iter()
            .filter(|id| targets.binary_search_by_key(id, |p| p.id).is_ok())
            .collect();
        if !pinned.is_empty() {
            return Err(Problem::EppHeldByGovernor { policies: pinned });
        }
    }
    let raw_allowed = snapshot
        .driver
        .name
        .as_deref()
        .is_some_and(|d| d.starts_with("intel_"));
    for policy in &targets {
        let Some(offered) = &policy.available_epp else {
            return Err(Problem::NoEpp { policy: policy.id });
        };
        let taken = match epp {
            Epp::Raw(_) => raw_allowed,
            named => offered.contains(&named),
        };
        if !taken {
            return Err(Problem::EppNotOffered {
                policy: policy.id,
                epp: epp.to_string(),
                offered: names(offered),
            });
        }
    }
    Ok((self::ids(&targets), epp))
}

/// A maximum frequency every named policy can take: within its `cpuinfo_min_freq` ..
/// `cpuinfo_max_freq`, on a policy whose limits read as frequencies.
pub fn max_frequency(
    snapshot: &Snapshot,
    ids: &[u32],
    khz: u32,
) -> Result<(Vec<u32>, Khz), Problem> {
    let targets = policies(snapshot, ids)?;
    for policy in &targets {
        let (Some(min), Some(max), Some(_)) =
            (policy.hw_min_khz, policy.hw_max_khz, policy.max_khz)
        else {
            return Err(Problem::NoFrequencyLimits { policy: policy.id });
        };
        if !(min.0..=max.0).contains(&khz) {
            return Err(Problem::FrequencyOutOfRange {
                policy: policy.id,
                khz,
                min: min.0,
                max: max.0,
            });
        }
    }
    Ok((self::ids(&targets), Khz(khz)))
}

/// Whether EAS can be switched at all.
pub fn eas(snapshot: &Snapshot) -> Result<(), Problem> {
    match snapshot.eas.sysctl {
        None => Err(Problem::NoEasSupport),
        Some(EasSysctl::Impossible) => Err(Problem::EasImpossible {
            reasons: snapshot.eas.reasons.clone(),
        }),
        Some(_) => Ok(()),
    }
}

/// The driver's mode file and the mode asked for, where the driver has modes.
pub fn driver_mode(snapshot: &Snapshot, value: &str) -> Result<(Target, DriverMode), Problem> {
    let (target, modes): (Target, &[DriverMode]) = match snapshot.driver.name.as_deref() {
        Some("intel_pstate" | "intel_cpufreq") => (
            Target::IntelStatus,
            &[DriverMode::Active, DriverMode::Passive],
        ),
        Some("amd-pstate-epp" | "amd-pstate") => (
            Target::AmdStatus,
            &[DriverMode::Active, DriverMode::Passive, DriverMode::Guided],
        ),
        _ => return Err(Problem::NoDriverModes),
    };
    match modes.iter().find(|mode| mode.to_string() == value) {
        Some(&mode) => Ok((target, mode)),
        None => Err(Problem::NotADriverMode {
            value: echo(value),
            modes: names(modes),
        }),
    }
}

/// A measurement's CPUs and trials: online CPUs, and no more work than ends in two minutes.
/// On a real machine each CPU must also be one the measuring thread may run on (`usable`:
/// the helper's affinity), or pinning would fail half-way.
pub fn measurement(
    snapshot: &Snapshot,
    cpus: &[u32],
    trials: u32,
    usable: Option<&CpuSet>,
) -> Result<(), Problem> {
    let max = MAX_MEASURED_CPUS.min(snapshot.cpus.len().max(1));
    if cpus.is_empty() || cpus.len() > max {
        return Err(Problem::CpuCount {
            count: cpus.len(),
            max,
        });
    }
    let max_trials = MAX_TRIALS.min((MAX_TRIAL_RUNS / cpus.len()) as u32).max(1);
    if !(1..=max_trials).contains(&trials) {
        return Err(Problem::TrialCount {
            trials,
            max: max_trials,
        });
    }
    if let Some(&cpu) = cpus
        .iter()
        .find(|&&cpu| !snapshot.cpu(cpu).is_some_and(|c| c.online))
    {
        return Err(Problem::NoOnlineCpu { cpu });
    }
    match (snapshot.simulated, usable) {
        (false, Some(usable)) => match cpus.iter().find(|&&cpu| !usable.contains(cpu)) {
            Some(&cpu) => Err(Problem::CpuUnavailable { cpu }),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// The CPUs this process may run on.
pub fn usable_cpus() -> Option<CpuSet> {
    let set = rustix::thread::sched_getaffinity(None).ok()?;
    Some(
        (0..rustix::thread::CpuSet::MAX_CPU)
            .filter(|&cpu| set.is_set(cpu))
            .filter_map(|cpu| u32::try_from(cpu).ok())
            .collect(),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pacer_core::SysRoot;

    fn snapshot(model: &str) -> Snapshot {
        let dir = tempfile::tempdir().unwrap();
        pacer_core::sim::model(model)
            .unwrap()
            .render(dir.path())
            .unwrap();
        Snapshot::read(&SysRoot::new(dir.path())).unwrap()
    }

    #[test]
    fn every_refusal_names_what_is_wrong() {
        let laptop = snapshot("intel-hybrid");
        let cases: Vec<(Request, Problem)> = vec![
            (
                Request::SetGovernor {
                    policies: vec![],
                    governor: "powersave".into(),
                },
                Problem::NoPolicies,
            ),
            (
                Request::SetGovernor {
                    policies: vec![999],
                    governor: "powersave".into(),
                },
                Problem::NoSuchPolicy { policy: 999 },
            ),
            (
                Request::SetGovernor {
                    policies: vec![0],
                    governor: "Bad Name".into(),
                },
                Problem::NotAGovernor {
                    value: "Bad Name".into(),
                },
            ),
            (
                Request::SetEpp {
                    policies: vec![0],
                    epp: "x".repeat(1 << 20),
                },
                Problem::NotAnEpp {
                    value: format!("{}…", "x".repeat(200)),
                },
            ),
            (
                Request::SetEpp {
                    policies: vec![0],
                    epp: "power\n".into(),
                },
                Problem::NotAnEpp {
                    value: "power\n".into(),
                },
            ),
            (
                Request::SetMaxFrequency {
                    policies: vec![2, 9],
                    khz: 4_700_000,
                },
                Problem::FrequencyOutOfRange {
                    policy: 9,
                    khz: 4_700_000,
                    min: 400_000,
                    max: 3_400_000,
                },
            ),
            (
                Request::SetMaxFrequency {
                    policies: vec![2],
                    khz: 399_999,
                },
                Problem::FrequencyOutOfRange {
                    policy: 2,
                    khz: 399_999,
                    min: 400_000,
                    max: 4_700_000,
                },
            ),
            (
                Request::SetMaxFrequency {
                    policies: vec![16],
                    khz: 400_000,
                },
                Problem::NoSuchPolicy { policy: 16 },
            ),
            (
                Request::SetDriverMode {
                    mode: "guided".into(),
                },
                Problem::NotADriverMode {
                    value: "guided".into(),
                    modes: vec!["active".into(), "passive".into()],
                },
            ),
            (
                Request::MeasureRamp {
                    cpus: vec![],
                    trials: 1,
                },
                Problem::CpuCount { count: 0, max: 16 },
            ),
            (
                Request::MeasureRamp {
                    cpus: vec![0],
                    trials: 0,
                },
                Problem::TrialCount { trials: 0, max: 20 },
            ),
            (
                Request::MeasureRamp {
                    cpus: (0..16).collect(),
                    trials: 5,
                },
                Problem::TrialCount { trials: 5, max: 4 },
            ),
            (
                Request::MeasureRamp {
                    cpus: vec![4000],
                    trials: 1,
                },
                Problem::NoOnlineCpu { cpu: 4000 },
            ),
        ];
        for (request, problem) in cases {
            assert_eq!(check(&laptop, &request), Err(problem), "{request:?}");
        }
        assert_eq!(
            check(&snapshot("vm"), &Request::SetEas),
            Err(Problem::NoEasSupport)
        );
        // The kernel owns EPP under dynamic EPP: refused before the kernel is asked.
        assert_eq!(
            check(
                &snapshot("amd-dynamic-epp"),
                &Request::SetEpp {
                    policies: vec![0],
                    epp: "power".into(),
                }
            ),
            Err(Problem::EppSetByKernel)
        );
        assert_eq!(
            check(
                &laptop,
                &Request::SetGovernor {
                    policies: vec![0, 0],
                    governor: "powersave".into()
                }
            ),
            Ok(())
        );
    }
}

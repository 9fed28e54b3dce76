// SPDX-License-Identifier: GPL-3.0-or-later
//! One cpufreq policy: `/sys/devices/system/cpu/cpufreq/policyN/` (`docs/kernel.md` 1.2).
//!
//! Reading sysfs costs a few system calls per file, and a large machine has thousands, so
//! what the kernel prints alike in every policy is read once ([`PolicyShared`]), and the
//! optional attributes a driver adds are looked for only where the first policy has them
//! (a driver adds its attribute group to every policy or to none).

use std::sync::Mutex;

use serde::Serialize;

use crate::cpuset::CpuSet;
use crate::sysfs::{Expected, Need, Probe, ProblemKind, ReadError};
use crate::values::{CoreType, Decimal, Epb, Epp, Governor, Khz};

/// One policy as read. Policies whose CPUs are all offline are "inactive": the kernel answers
/// every read of their files with EBUSY, so only the id (and perhaps the CPUs) is known.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Policy {
    pub id: u32,
    /// Every CPU the policy covers, online or not (`related_cpus`).
    pub cpus: CpuSet,
    /// The online ones (what `affected_cpus` prints); empty for an inactive policy.
    #[serde(skip)]
    pub online_cpus: CpuSet,
    pub driver: Option<String>,
    pub governor: Option<Governor>,
    pub available_governors: Option<Vec<Governor>>,
    pub epp: Option<Epp>,
    pub available_epp: Option<Vec<Epp>>,
    /// The energy-performance bias of the policy's CPUs, when they agree (Intel only).
    pub epb: Option<Epb>,
    pub min_khz: Option<Khz>,
    pub max_khz: Option<Khz>,
    pub hw_min_khz: Option<Khz>,
    pub hw_max_khz: Option<Khz>,
    pub base_khz: Option<Khz>,
    pub cur_khz: Option<Khz>,
    /// amd-pstate's preferred-core ranking: higher is a better core.
    #[serde(skip)]
    pub prefcore_ranking: Option<u32>,
    /// The core type of the policy's CPUs, when they agree.
    pub core_type: Option<CoreType>,
}

/// Which optional, driver-added attributes the policies have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DriverAttributes {
    /// `base_frequency` (intel_pstate with HWP).
    pub base_frequency: bool,
    /// `energy_performance_preference` and its list (HWP EPP, amd-pstate-epp).
    pub epp: bool,
    /// `amd_pstate_prefcore_ranking`.
    pub prefcore_ranking: bool,
}

impl Policy {
    pub fn is_active(&self) -> bool {
        !self.online_cpus.is_empty()
    }

    fn dir(id: u32) -> String {
        format!("sys/devices/system/cpu/cpufreq/policy{id}")
    }

    /// Reads `cpufreq/policy<id>` and says which optional attributes it has. With `expect`
    /// `None` (the first policy) it looks for all of them; otherwise for exactly those, and
    /// reports one that is missing. `online` is the machine's online CPUs: the policy's are
    /// its `related_cpus` that are online, exactly what `affected_cpus` prints.
    pub(crate) fn read(
        probe: &mut Probe<'_>,
        id: u32,
        online: &CpuSet,
        expect: Option<DriverAttributes>,
        epp_lists: &EppLists,
    ) -> (Policy, DriverAttributes) {
        let look_for = expect.unwrap_or(DriverAttributes {
            base_frequency: true,
            epp: true,
            prefcore_ranking: true,
        });
        let need = if expect.is_some() {
            Need::Required
        } else {
            Need::Optional
        };
        let dir = Policy::dir(id);
        let file = |name: &str| format!("{dir}/{name}");
        let mut found = DriverAttributes {
            base_frequency: false,
            epp: false,
            prefcore_ranking: false,
        };

        // An inactive policy answers EBUSY. It still covers at least its own CPU.
        let related = file("related_cpus");
        let cpus = match probe.read(&related) {
            Ok(text) => probe.parse(&related, text.trim_end(), Expected::CpuList),
            Err(ReadError::Io(error)) if error.raw_os_error() == Some(EBUSY) => None,
            Err(ReadError::Missing) => {
                probe.report(&related, ProblemKind::Missing);
                None
            }
            Err(ReadError::Io(error)) => {
                probe.report_io(&related, &error);
                None
            }
        }
        .unwrap_or_else(|| [id].into_iter().collect());
        let mut policy = Policy::inactive(id, cpus);
        policy.online_cpus = policy
            .cpus
            .iter()
            .filter(|&cpu| online.contains(cpu))
            .collect();
        if !policy.is_active() {
            return (policy, found);
        }

        let required = Need::Required;
        policy.governor = probe.value(&file("scaling_governor"), required, Expected::Governor);
        policy.min_khz = probe.value(&file("scaling_min_freq"), required, Expected::Frequency);
        policy.max_khz = probe.value(&file("scaling_max_freq"), required, Expected::Frequency);
        policy.hw_min_khz = probe.value(&file("cpuinfo_min_freq"), required, Expected::Frequency);
        policy.hw_max_khz = probe.value(&file("cpuinfo_max_freq"), required, Expected::Frequency);
        policy.cur_khz = probe.value(&file("scaling_cur_freq"), required, Expected::Frequency);

        if look_for.base_frequency {
            if let Some(text) = optional(
                probe,
                &file("base_frequency"),
                need,
                &mut found.base_frequency,
            ) {
                policy.base_khz = probe.parse(&file("base_frequency"), &text, Expected::Frequency);
            }
        }
        if look_for.epp {
            // EPP comes as a pair: where the driver offers a list, the current value exists.
            let known = policy
                .governor
                .as_ref()
                .and_then(|governor| epp_lists.get(governor));
            if let Some(known) = known {
                policy.available_epp = Some(known);
                found.epp = true;
            } else {
                let list = file("energy_performance_available_preferences");
                if let Some(text) = optional(probe, &list, need, &mut found.epp) {
                    // amd-pstate 7.1 lists `custom` to say that numbers are taken; it is
                    // not a preference one can set (`docs/kernel.md` 9.2).
                    let names = text
                        .split_ascii_whitespace()
                        .filter(|name| *name != "custom")
                        .collect::<Vec<_>>()
                        .join(" ");
                    policy.available_epp = probe.parse_list(&list, &names, Expected::EppList);
                    if let (Some(governor), Some(available)) =
                        (&policy.governor, &policy.available_epp)
                    {
                        epp_lists.insert(governor, available);
                    }
                }
            }
            let epp_need = if found.epp { Need::Required } else { need };
            policy.epp = probe.value(
                &file("energy_performance_preference"),
                epp_need,
                Expected::Epp,
            );
        }
        if look_for.prefcore_ranking {
            let ranking = file("amd_pstate_prefcore_ranking");
            if let Some(text) = optional(probe, &ranking, need, &mut found.prefcore_ranking) {
                policy.prefcore_ranking = probe
                    .parse::<Decimal<u32>>(&ranking, &text, Expected::Number)
                    .map(|rank| rank.0);
            }
        }
        (policy, found)
    }

    fn inactive(id: u32, cpus: CpuSet) -> Policy {
        Policy {
            id,
            cpus,
            online_cpus: CpuSet::new(),
            driver: None,
            governor: None,
            available_governors: None,
            epp: None,
            available_epp: None,
            epb: None,
            min_khz: None,
            max_khz: None,
            hw_min_khz: None,
            hw_max_khz: None,
            base_khz: None,
            cur_khz: None,
            prefcore_ranking: None,
            core_type: None,
        }
    }
}

/// The EPP lists read so far, by governor. A driver prints the same list for every policy
/// under the same governor (intel_pstate one list for all; amd-pstate only `performance`
/// under the performance governor: `show_energy_performance_available_preferences()` in
/// both, `docs/kernel.md` 2.2, 3), so a large machine reads it once per governor, not once
/// per policy. Shared by the threads that read the policies.
#[derive(Debug, Default)]
pub(crate) struct EppLists(Mutex<Vec<(Governor, Vec<Epp>)>>);

impl EppLists {
    fn get(&self, governor: &Governor) -> Option<Vec<Epp>> {
        let lists = self.0.lock().ok()?;
        lists
            .iter()
            .find(|(known, _)| known == governor)
            .map(|(_, list)| list.clone())
    }

    fn insert(&self, governor: &Governor, list: &[Epp]) {
        if let Ok(mut lists) = self.0.lock() {
            if !lists.iter().any(|(known, _)| known == governor) {
                lists.push((governor.clone(), list.to_vec()));
            }
        }
    }
}

/// A driver attribute's text (without the newline); sets `exists` unless it is missing.
fn optional(probe: &mut Probe<'_>, rel: &str, need: Need, exists: &mut bool) -> Option<String> {
    let (text, present) = probe.text_if_present(rel, need);
    *exists |= present;
    text
}

/// The errno cpufreq's `show()` returns for every attribute of an inactive policy.
const EBUSY: i32 = 16;

/// What every policy prints alike, read once from the first active policy: the driver's
/// name (there is one cpufreq driver at a time) and the governors on offer (the global list,
/// or `performance powersave` for a setpolicy driver).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PolicyShared {
    pub driver: Option<String>,
    pub available_governors: Option<Vec<Governor>>,
}

impl PolicyShared {
    /// Reads from the first of `active` policies, falling back on the next where a file
    /// cannot be read (each prints the same), so one damaged file does not hide the driver.
    pub(crate) fn read(probe: &mut Probe<'_>, active: &[u32]) -> PolicyShared {
        let dir = |id: &u32| Policy::dir(*id);
        let driver = active.iter().find_map(|id| {
            probe
                .text(&format!("{}/scaling_driver", dir(id)), Need::Required)
                .filter(|name| !name.is_empty())
        });
        let available_governors = active.iter().find_map(|id| {
            probe.list(
                &format!("{}/scaling_available_governors", dir(id)),
                Need::Required,
                Expected::GovernorList,
            )
        });
        PolicyShared {
            driver,
            available_governors,
        }
    }

    pub(crate) fn apply(&self, policy: &mut Policy) {
        if policy.is_active() {
            policy.driver.clone_from(&self.driver);
            policy
                .available_governors
                .clone_from(&self.available_governors);
        }
    }
}

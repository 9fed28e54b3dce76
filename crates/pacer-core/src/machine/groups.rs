// SPDX-License-Identifier: GPL-3.0-or-later
//! Policies that share their settings, grouped by core type: what a person reads first.

use crate::cpuset::CpuSet;
use crate::i18n::gettext;
use crate::values::{CoreType, Epp, Governor, Khz};

use super::{Policy, Snapshot};

/// Active policies of one core type with the same governor, EPP and limits.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyGroup {
    pub core_type: Option<CoreType>,
    pub policies: Vec<u32>,
    /// The online CPUs of these policies.
    pub cpus: CpuSet,
    pub governor: Option<Governor>,
    pub epp: Option<Epp>,
    pub min_khz: Option<Khz>,
    pub max_khz: Option<Khz>,
    /// The lowest and highest current frequency among the group's policies.
    pub cur_khz: Option<(Khz, Khz)>,
}

impl PolicyGroup {
    fn matches(&self, policy: &Policy) -> bool {
        self.core_type == policy.core_type
            && self.governor == policy.governor
            && self.epp == policy.epp
            && self.min_khz == policy.min_khz
            && self.max_khz == policy.max_khz
    }
}

/// How a group of cores of `core_type` is headed: "Performance cores", or "Cores" where all
/// are alike.
pub fn cores_heading(core_type: Option<CoreType>) -> String {
    match core_type {
        Some(CoreType::Performance) => gettext("Performance cores"),
        Some(CoreType::Efficiency) => gettext("Efficiency cores"),
        Some(CoreType::LowPower) => gettext("Low-power cores"),
        None => gettext("Cores"),
    }
}

/// Groups the active policies: performance cores first, then efficiency, low-power, and
/// cores of no particular type; within a type, in the order of their first policy.
pub fn group_policies(snapshot: &Snapshot) -> Vec<PolicyGroup> {
    let mut groups: Vec<PolicyGroup> = Vec::new();
    for policy in snapshot.policies.iter().filter(|policy| policy.is_active()) {
        let index = match groups.iter().position(|group| group.matches(policy)) {
            Some(index) => index,
            None => {
                groups.push(PolicyGroup {
                    core_type: policy.core_type,
                    policies: Vec::new(),
                    cpus: CpuSet::new(),
                    governor: policy.governor.clone(),
                    epp: policy.epp,
                    min_khz: policy.min_khz,
                    max_khz: policy.max_khz,
                    cur_khz: None,
                });
                groups.len() - 1
            }
        };
        let group = &mut groups[index];
        group.policies.push(policy.id);
        group.cpus.extend(&policy.online_cpus);
        if let Some(cur) = policy.cur_khz {
            group.cur_khz = Some(match group.cur_khz {
                Some((low, high)) => (low.min(cur), high.max(cur)),
                None => (cur, cur),
            });
        }
    }
    // `None` sorts first for Option; people expect typed cores first.
    groups.sort_by_key(|group| (group.core_type.is_none(), group.core_type));
    groups
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! The machine's policies as the History page names them: a change on every policy of one
//! core type is a change on "P-cores", one on every policy is on "all cores", and only a
//! change on some of them is named by its CPUs. The filters read each policy's core type.

use std::collections::BTreeMap;

use pacer_core::cpuset::CpuSet;
use pacer_core::status::Status;
use pacer_core::values::CoreType;

/// Each policy's core type (where the machine has several) and CPUs, from the latest reading.
#[derive(Debug, Default, PartialEq)]
pub struct Cores {
    policies: BTreeMap<u32, (Option<CoreType>, CpuSet)>,
}

/// Which cores a change covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Covered {
    /// A machine-wide setting: no policy.
    Machine,
    /// Every policy.
    All,
    /// Every policy of this core type, and no other.
    Type(CoreType),
    /// Some policies: their CPUs.
    Cpus(CpuSet),
}

impl Cores {
    pub fn of(status: &Status) -> Cores {
        Cores {
            policies: status
                .snapshot
                .policies
                .iter()
                .map(|policy| (policy.id, (policy.core_type, policy.cpus.clone())))
                .collect(),
        }
    }

    /// Whether the machine has cores of more than one kind to filter by.
    pub fn typed(&self) -> bool {
        self.policies.values().any(|(kind, _)| kind.is_some())
    }

    pub fn core_type(&self, policy: u32) -> Option<CoreType> {
        self.policies.get(&policy).and_then(|(kind, _)| *kind)
    }

    /// What `policies` (sorted, without duplicates, as `grouped` leaves them) cover.
    pub fn covered(&self, policies: &[u32]) -> Covered {
        if policies.is_empty() {
            return Covered::Machine;
        }
        let ids = |kind: Option<CoreType>| -> Vec<u32> {
            self.policies
                .iter()
                .filter(|(_, (of, _))| kind.is_none() || *of == kind)
                .map(|(id, _)| *id)
                .collect()
        };
        if policies == ids(None) {
            return Covered::All;
        }
        if let Some(kind) = CoreType::ALL
            .into_iter()
            .find(|kind| policies == ids(Some(*kind)))
        {
            return Covered::Type(kind);
        }
        // A policy not in the latest reading is named by its number, which is its first CPU.
        let mut cpus = CpuSet::new();
        for policy in policies {
            match self.policies.get(policy) {
                Some((_, of)) => cpus.extend(of),
                None => cpus.insert(*policy),
            }
        }
        Covered::Cpus(cpus)
    }
}

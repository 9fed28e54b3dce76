// SPDX-License-Identifier: GPL-3.0-or-later
//! What the CPUs page shows, as data: the selectors of every core, of each core type and of
//! each policy, offering only what the kernel offers for all the policies they cover; each
//! value in words, with a line on what the current one does and the kernel's word on hover.

use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::{cores_heading, Policy, Snapshot};
use pacer_core::values::{CoreType, Epp, Governor};
use pacer_core::CpuSet;

use crate::words::setting::{
    epp_explanation, epp_label, governor_explanation, governor_label, with_token,
};

/// A selector's options (kernel values: governors, EPP) and what the policies it covers
/// have now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice<T> {
    /// What every covered policy offers.
    pub options: Vec<T>,
    /// The value all covered policies share; `None` when they differ or it is unknown.
    pub current: Option<T>,
}

impl<T: Clone + PartialEq> Choice<T> {
    fn of(
        policies: &[&Policy],
        options: impl Fn(&Policy) -> Option<&Vec<T>>,
        value: impl Fn(&Policy) -> Option<T>,
    ) -> Option<Choice<T>> {
        let mut lists = policies.iter().map(|p| options(p));
        let first = lists.next()??.clone();
        // Only what every policy takes: one write must succeed on all of them.
        let offered: Vec<T> = lists.try_fold(first, |common, list| {
            let list = list?;
            Some(common.into_iter().filter(|o| list.contains(o)).collect())
        })?;
        let mut values = policies.iter().map(|p| value(p));
        let first_value = values.next().flatten();
        let current = first_value.filter(|first| values.all(|v| v.as_ref() == Some(first)));
        Some(Choice {
            options: offered,
            current,
        })
    }
}

impl<T> Choice<T> {
    /// The line under a selector: what its current value does (`explain`), the kernel's word
    /// (`token`) on hover; or that its policies differ.
    fn said(&self, explain: impl Fn(&T) -> String, token: impl Fn(&T) -> String) -> RowWords {
        match &self.current {
            Some(value) => RowWords {
                line: explain(value),
                tooltip: Some(with_token(&token(value))),
            },
            None => RowWords {
                line: gettext("Differs between policies"),
                tooltip: None,
            },
        }
    }
}

impl Choice<Governor> {
    fn governor(policies: &[&Policy]) -> Option<Choice<Governor>> {
        Choice::of(
            policies,
            |p| p.available_governors.as_ref(),
            |p| p.governor.clone(),
        )
    }

    /// The options in words, in their order.
    pub fn labels(&self) -> Vec<String> {
        self.options.iter().map(governor_label).collect()
    }
}

impl Choice<Epp> {
    fn epp(policies: &[&Policy]) -> Option<Choice<Epp>> {
        Choice::of(policies, |p| p.available_epp.as_ref(), |p| p.epp)
    }

    /// The options in words, in their order.
    pub fn labels(&self) -> Vec<String> {
        self.options.iter().copied().map(epp_label).collect()
    }
}

/// What a selector's row says under its title, and on hover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowWords {
    pub line: String,
    pub tooltip: Option<String>,
}

/// One set of selectors: a core type, every core, or one policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selectors {
    pub title: String,
    pub policies: Vec<u32>,
    pub governor: Option<Choice<Governor>>,
    pub epp: Option<Choice<Epp>>,
    /// Why EPP cannot be chosen now, when the kernel would refuse it.
    pub epp_locked: Option<String>,
    /// Whether the driver picks speeds itself (intel_pstate, amd-pstate-epp), guided by the
    /// EPP: what the performance and powersave governors mean depends on it.
    pub hardware_managed: bool,
}

/// What the machine decides for every set of selectors alike.
struct Driving {
    /// The policies whose EPP the performance governor holds.
    pinned: Vec<u32>,
    hardware_managed: bool,
    /// amd-pstate's dynamic EPP: the kernel sets every policy's EPP itself.
    kernel_sets_epp: bool,
}

impl Selectors {
    fn of(title: String, policies: &[&Policy], driving: &Driving) -> Selectors {
        let ids: Vec<u32> = policies.iter().map(|p| p.id).collect();
        let epp_locked = if driving.kernel_sets_epp {
            Some(gettext(
                "Set by the kernel itself (dynamic EPP); switch that off to choose it",
            ))
        } else {
            let pinned = ids.iter().any(|id| driving.pinned.contains(id));
            pinned.then(epp_held_by_governor)
        };
        Selectors {
            title,
            governor: Choice::governor(policies),
            epp: Choice::epp(policies),
            epp_locked,
            hardware_managed: driving.hardware_managed,
            policies: ids,
        }
    }

    /// The governor's row: what the current governor does, its kernel name on hover.
    pub fn governor_words(&self) -> Option<RowWords> {
        let hardware_managed = self.hardware_managed;
        let choice = self.governor.as_ref()?;
        Some(choice.said(
            |governor| governor_explanation(governor, hardware_managed),
            |governor| governor.as_str().to_owned(),
        ))
    }

    /// The EPP's row: why it cannot be chosen now, or what the current preference does; its
    /// kernel name on hover.
    pub fn epp_words(&self) -> Option<RowWords> {
        let mut words = self
            .epp
            .as_ref()?
            .said(|epp| epp_explanation(*epp), ToString::to_string);
        if let Some(locked) = &self.epp_locked {
            words.line.clone_from(locked);
        }
        Some(words)
    }

    /// What decides the widgets' layout (not their current values).
    fn shape(&self) -> Shape {
        Shape {
            title: self.title.clone(),
            policies: self.policies.clone(),
            governors: self.governor.as_ref().map(|c| c.options.clone()),
            epps: self.epp.as_ref().map(|c| c.options.clone()),
        }
    }
}

/// Why EPP cannot be chosen while the performance governor runs, in one line: the kernel
/// holds it at performance and refuses any other (EBUSY).
pub fn epp_held_by_governor() -> String {
    gettext("Set by the Performance governor; choose the Power saving governor first to change it")
}

/// The layout of one set of selectors: when it changes, the widgets are built anew.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Shape {
    title: String,
    policies: Vec<u32>,
    governors: Option<Vec<Governor>>,
    epps: Option<Vec<Epp>>,
}

/// A core type's group: its selectors, and each of its policies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeGroup {
    pub core_type: Option<CoreType>,
    pub cpus: CpuSet,
    pub all: Selectors,
    pub each: Vec<Selectors>,
}

/// What the page shows: a group for every core and one per core type (only the per-type
/// groups where all cores are alike).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpusView {
    pub every_core: Option<Selectors>,
    pub groups: Vec<TypeGroup>,
}

impl CpusView {
    pub fn of(snapshot: &Snapshot) -> CpusView {
        let driving = Driving {
            pinned: snapshot.epp_pinned(),
            hardware_managed: snapshot.driver.is_setpolicy(),
            kernel_sets_epp: snapshot.driver.kernel_sets_epp(),
        };
        let active: Vec<&Policy> = snapshot.policies.iter().filter(|p| p.is_active()).collect();
        let mut types: Vec<Option<CoreType>> = active.iter().map(|p| p.core_type).collect();
        types.sort();
        types.dedup();
        // Performance cores first; cores of no single type last.
        types.sort_by_key(|t| t.is_none());
        let groups: Vec<TypeGroup> = types
            .iter()
            .map(|&core_type| {
                let members: Vec<&Policy> = active
                    .iter()
                    .copied()
                    .filter(|p| p.core_type == core_type)
                    .collect();
                let each = members
                    .iter()
                    .map(|p| {
                        let title = fill(
                            gettext("Policy {policy} (CPU {cpus})"),
                            &[("policy", &p.id), ("cpus", &p.online_cpus)],
                        );
                        Selectors::of(title, &[p], &driving)
                    })
                    .collect();
                TypeGroup {
                    core_type,
                    cpus: members.iter().flat_map(|p| p.online_cpus.iter()).collect(),
                    all: Selectors::of(cores_heading(core_type), &members, &driving),
                    each,
                }
            })
            .collect();
        let every_core =
            (groups.len() > 1).then(|| Selectors::of(gettext("Every core"), &active, &driving));
        CpusView { every_core, groups }
    }

    /// What decides the page's layout: each set of selectors' shape.
    pub(super) fn shape(&self) -> Vec<Shape> {
        self.every_core
            .iter()
            .chain(
                self.groups
                    .iter()
                    .flat_map(|g| std::iter::once(&g.all).chain(&g.each)),
            )
            .map(Selectors::shape)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::testing::simulated_status;

    fn snapshot_of(model: &str, writes: &[(&str, &str)]) -> Snapshot {
        simulated_status(model, writes).snapshot
    }

    #[test]
    fn a_hybrid_laptop_has_a_group_per_core_type_and_one_for_every_core() {
        let view = CpusView::of(&snapshot_of("intel-hybrid", &[]));
        let every = view.every_core.as_ref().unwrap();
        assert_eq!(every.policies.len(), 16);
        assert_eq!(view.groups.len(), 2);
        assert_eq!(view.groups[0].core_type, Some(CoreType::Performance));
        assert_eq!(view.groups[0].each.len(), 8);
        let governor = view.groups[0].all.governor.as_ref().unwrap();
        assert_eq!(
            governor.options,
            [Governor::performance(), Governor::powersave()]
        );
        assert_eq!(governor.current, Some(Governor::powersave()));
        assert!(view.groups[0].all.epp_locked.is_none());
    }

    #[test]
    fn the_performance_governor_locks_epp_and_differing_values_show_as_mixed() {
        let path = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor";
        let view = CpusView::of(&snapshot_of("intel-hybrid", &[(path, "performance")]));
        let p_cores = &view.groups[0];
        assert!(p_cores.all.epp_locked.is_some());
        assert_eq!(p_cores.all.governor.as_ref().unwrap().current, None);
        assert!(p_cores.each[0].epp_locked.is_some());
        assert!(p_cores.each[1].epp_locked.is_none());
        assert!(view.groups[1].all.epp_locked.is_none());
    }

    #[test]
    fn dynamic_epp_locks_every_epp_and_says_the_kernel_sets_it() {
        let view = CpusView::of(&snapshot_of("amd-dynamic-epp", &[]));
        let all = &view.groups[0].all;
        let locked = all.epp_locked.as_deref().unwrap();
        assert!(locked.starts_with("Set by the kernel itself"), "{locked}");
        assert!(view.groups[0].each.iter().all(|s| s.epp_locked.is_some()));
        assert_eq!(all.epp_words().unwrap().line, locked);
    }

    #[test]
    fn each_selector_speaks_words_and_keeps_the_kernel_s_for_hover() {
        let view = CpusView::of(&snapshot_of("intel-hybrid", &[]));
        let p_cores = &view.groups[0].all;
        assert_eq!(
            p_cores.governor.as_ref().unwrap().labels(),
            ["Performance governor", "Power saving governor"]
        );
        let governor = p_cores.governor_words().unwrap();
        assert_eq!(
            governor.line,
            "The hardware picks the speed, guided by the EPP"
        );
        assert_eq!(governor.tooltip.as_deref(), Some("Kernel value: powersave"));
        let epp = p_cores.epp_words().unwrap();
        assert_eq!(epp.line, "The hardware leans towards speed");
        assert_eq!(
            epp.tooltip.as_deref(),
            Some("Kernel value: balance_performance")
        );
        let labels = p_cores.epp.as_ref().unwrap().labels();
        assert!(
            labels.contains(&"Balanced performance".to_owned()),
            "{labels:?}"
        );
        assert!(labels.iter().all(|l| !l.contains('_')), "{labels:?}");
    }

    #[test]
    fn a_held_epp_says_so_in_plain_words_and_mixed_values_say_they_differ() {
        let path = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor";
        let view = CpusView::of(&snapshot_of("intel-hybrid", &[(path, "performance")]));
        let policy0 = &view.groups[0].each[0];
        let epp = policy0.epp_words().unwrap();
        assert_eq!(
            epp.line,
            "Set by the Performance governor; choose the Power saving governor first to change it"
        );
        assert_eq!(
            policy0.governor_words().unwrap().line,
            "The hardware runs fast, whatever the EPP says"
        );
        let p_cores = view.groups[0].all.governor_words().unwrap();
        assert_eq!(p_cores.line, "Differs between policies");
        assert_eq!(p_cores.tooltip, None);
        // A driver that takes a governor's word: the same governor does something else.
        let arm = CpusView::of(&snapshot_of("arm-rk3588", &[]));
        let words = arm.groups[0].all.governor_words().unwrap();
        assert!(!words.line.contains("EPP"), "{}", words.line);
    }

    #[test]
    fn a_board_without_core_types_or_a_vm_without_cpufreq() {
        let arm = CpusView::of(&snapshot_of("arm-rk3588", &[]));
        assert!(arm.every_core.is_some());
        // Only what the kernel offers: cpufreq-dt has no EPP.
        assert!(arm.groups.iter().all(|g| g.all.epp.is_none()));
        let vm = CpusView::of(&snapshot_of("vm", &[]));
        assert!(vm.groups.is_empty() && vm.every_core.is_none());
    }
}

//! The CPUs page: policies grouped by core type, each group with a governor and an EPP
//! selector offering only what the kernel offers, one action for a whole core type (or for
//! every core), and each policy on its own where wanted. The kernel's refusals are
//! explained where the control is.
//!
//! Over 500 lines with its unit tests.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::{cores_heading, Policy, Snapshot};
use pacer_core::status::Status;
use pacer_core::values::{CoreType, Epp, Governor};
use pacer_core::CpuSet;
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::change::Change;

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

impl Choice<Governor> {
    fn governor(policies: &[&Policy]) -> Option<Choice<Governor>> {
        Choice::of(
            policies,
            |p| p.available_governors.as_ref(),
            |p| p.governor.clone(),
        )
    }
}

impl Choice<Epp> {
    fn epp(policies: &[&Policy]) -> Option<Choice<Epp>> {
        Choice::of(policies, |p| p.available_epp.as_ref(), |p| p.epp)
    }
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
}

impl Selectors {
    fn of(title: String, policies: &[&Policy], pinned: &[u32]) -> Selectors {
        let ids: Vec<u32> = policies.iter().map(|p| p.id).collect();
        let locked = ids.iter().any(|id| pinned.contains(id));
        Selectors {
            title,
            governor: Choice::governor(policies),
            epp: Choice::epp(policies),
            epp_locked: locked.then(|| {
                gettext("The performance governor holds EPP at performance: the kernel refuses other values (EBUSY) until the governor is powersave.")
            }),
            policies: ids,
        }
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

/// The layout of one set of selectors: when it changes, the widgets are built anew.
#[derive(Debug, PartialEq, Eq)]
struct Shape {
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
        let pinned = snapshot.epp_pinned();
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
                        Selectors::of(title, &[p], &pinned)
                    })
                    .collect();
                TypeGroup {
                    core_type,
                    cpus: members.iter().flat_map(|p| p.online_cpus.iter()).collect(),
                    all: Selectors::of(cores_heading(core_type), &members, &pinned),
                    each,
                }
            })
            .collect();
        let every_core =
            (groups.len() > 1).then(|| Selectors::of(gettext("Every core"), &active, &pinned));
        CpusView { every_core, groups }
    }

    fn shape(&self) -> Vec<Shape> {
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

/// The widgets of one set of selectors.
#[derive(Debug)]
struct SelectorRows {
    policies: Vec<u32>,
    governor: Option<(adw::ComboRow, Vec<Governor>)>,
    epp: Option<(adw::ComboRow, Vec<Epp>)>,
}

#[derive(Debug)]
pub struct CpusPage {
    content: gtk::Box,
    updating: Rc<Cell<bool>>,
    view: Option<CpusView>,
    rows: Vec<SelectorRows>,
    /// One message row per group, for the kernel's refusals.
    refusals: Vec<(Vec<u32>, gtk::Label)>,
    editable: bool,
}

#[derive(Debug)]
pub enum CpusMsg {
    Status(Arc<Status>),
    Editable(bool),
    /// A change to these policies was refused, with the reason.
    Refused {
        policies: Vec<u32>,
        message: String,
    },
    /// From the page's own selectors.
    Chose(Change),
}

#[relm4::component(pub)]
impl SimpleComponent for CpusPage {
    type Init = ();
    type Input = CpusMsg;
    type Output = Change;

    view! {
        gtk::Box {
            set_orientation: gtk::Orientation::Vertical,
            set_spacing: 24,
            set_margin_all: 12,
        }
    }

    fn init(_: (), root: Self::Root, _sender: ComponentSender<Self>) -> ComponentParts<Self> {
        let model = CpusPage {
            content: root.clone(),
            updating: Rc::new(Cell::new(false)),
            view: None,
            rows: Vec::new(),
            refusals: Vec::new(),
            editable: false,
        };
        let widgets = view_output!();
        ComponentParts { model, widgets }
    }

    fn update(&mut self, message: CpusMsg, sender: ComponentSender<Self>) {
        match message {
            CpusMsg::Status(status) => {
                let view = CpusView::of(&status.snapshot);
                if self.view.as_ref() == Some(&view) {
                    return;
                }
                let same_shape = self
                    .view
                    .as_ref()
                    .is_some_and(|old| old.shape() == view.shape());
                if !same_shape {
                    self.build(&view, &sender);
                }
                self.select(&view);
                self.view = Some(view);
            }
            CpusMsg::Editable(editable) => {
                self.editable = editable;
                for rows in &self.rows {
                    let governor = rows.governor.iter().map(|(row, _)| row);
                    for row in governor.chain(rows.epp.iter().map(|(row, _)| row)) {
                        row.set_sensitive(editable);
                    }
                }
                if let Some(view) = self.view.clone() {
                    self.select(&view);
                }
            }
            CpusMsg::Refused { policies, message } => {
                for (members, label) in &self.refusals {
                    let here = policies.iter().any(|p| members.contains(p));
                    label.set_visible(here);
                    if here {
                        label.set_text(&message);
                    }
                }
            }
            CpusMsg::Chose(change) => {
                for (_, label) in &self.refusals {
                    label.set_visible(false);
                }
                let _ = sender.output(change);
            }
        }
    }
}

impl CpusPage {
    fn build(&mut self, view: &CpusView, sender: &ComponentSender<Self>) {
        while let Some(child) = self.content.first_child() {
            self.content.remove(&child);
        }
        self.rows.clear();
        self.refusals.clear();
        if view.groups.is_empty() {
            let status = adw::StatusPage::builder()
                .icon_name("computer-symbolic")
                .title(gettext("No CPU frequency control"))
                .description(gettext("This machine's kernel offers no cpufreq policies: there are no governors or EPP to choose."))
                .build();
            self.content.append(&status);
            return;
        }
        if let Some(every) = &view.every_core {
            let group = adw::PreferencesGroup::builder()
                .title(every.title.as_str())
                .description(gettext("One setting for all cores at once"))
                .build();
            self.add_selectors(&group, None, every, sender);
            self.add_refusal(&group, &every.policies);
            self.content.append(&group);
        }
        for type_group in &view.groups {
            let group = adw::PreferencesGroup::builder()
                .title(type_group.all.title.as_str())
                .description(fill(gettext("CPUs {cpus}"), &[("cpus", &type_group.cpus)]))
                .build();
            self.add_selectors(&group, None, &type_group.all, sender);
            if type_group.each.len() > 1 {
                let each = adw::ExpanderRow::builder()
                    .title(gettext("Each policy"))
                    .subtitle(gettext("Set policies one by one"))
                    .build();
                for selectors in &type_group.each {
                    self.add_selectors(&group, Some(&each), selectors, sender);
                }
                group.add(&each);
            }
            self.add_refusal(&group, &type_group.all.policies);
            self.content.append(&group);
        }
    }

    fn add_refusal(&mut self, group: &adw::PreferencesGroup, policies: &[u32]) {
        let label = gtk::Label::builder()
            .wrap(true)
            .xalign(0.0)
            .margin_top(6)
            .visible(false)
            .build();
        label.add_css_class("error");
        group.add(&label);
        self.refusals.push((policies.to_vec(), label));
    }

    fn add_selectors(
        &mut self,
        group: &adw::PreferencesGroup,
        expander: Option<&adw::ExpanderRow>,
        selectors: &Selectors,
        sender: &ComponentSender<Self>,
    ) {
        let place = |row: &adw::ComboRow| match expander {
            Some(expander) => expander.add_row(row),
            None => group.add(row),
        };
        let combo = |title: String, choice_names: Vec<String>, choose: Box<dyn Fn(usize)>| {
            let names: Vec<&str> = choice_names.iter().map(String::as_str).collect();
            let row = adw::ComboRow::builder()
                .title(title.as_str())
                .model(&gtk::StringList::new(&names))
                .build();
            let guard = Rc::clone(&self.updating);
            row.connect_selected_notify(move |row| {
                if !guard.get() {
                    choose(row.selected() as usize);
                }
            });
            place(&row);
            row
        };
        let in_expander = expander.is_some();
        let title = |what: String| {
            if in_expander {
                fill(
                    gettext("{what} of {policy}"),
                    &[("what", &what), ("policy", &selectors.title)],
                )
            } else {
                what
            }
        };
        // The change that choosing option `index` of `options` asks for.
        fn chooser<T: Clone + 'static>(
            options: &[T],
            policies: &[u32],
            sender: &ComponentSender<CpusPage>,
            make: fn(Vec<u32>, T) -> Change,
        ) -> Box<dyn Fn(usize)> {
            let options = options.to_vec();
            let policies = policies.to_vec();
            let input = sender.input_sender().clone();
            Box::new(move |index| {
                if let Some(value) = options.get(index) {
                    input.emit(CpusMsg::Chose(make(policies.clone(), value.clone())));
                }
            })
        }
        fn names<T: ToString>(options: &[T]) -> Vec<String> {
            options.iter().map(ToString::to_string).collect()
        }
        let governor = selectors.governor.as_ref().map(|choice| {
            let make: fn(Vec<u32>, Governor) -> Change =
                |policies, governor| Change::Governor { policies, governor };
            let row = combo(
                title(gettext("Governor")),
                names(&choice.options),
                chooser(&choice.options, &selectors.policies, sender, make),
            );
            (row, choice.options.clone())
        });
        let epp = selectors.epp.as_ref().map(|choice| {
            let make: fn(Vec<u32>, Epp) -> Change = |policies, epp| Change::Epp { policies, epp };
            let row = combo(
                title(gettext("Energy-performance preference")),
                names(&choice.options),
                chooser(&choice.options, &selectors.policies, sender, make),
            );
            (row, choice.options.clone())
        });
        self.rows.push(SelectorRows {
            policies: selectors.policies.clone(),
            governor,
            epp,
        });
    }

    /// Moves the selectors to the values the policies have now.
    fn select(&self, view: &CpusView) {
        self.updating.set(true);
        let all: Vec<&Selectors> = view
            .every_core
            .iter()
            .chain(
                view.groups
                    .iter()
                    .flat_map(|g| std::iter::once(&g.all).chain(&g.each)),
            )
            .collect();
        for (rows, selectors) in self.rows.iter().zip(all) {
            debug_assert_eq!(rows.policies, selectors.policies);
            fn show<T: PartialEq>(row: &adw::ComboRow, options: &[T], choice: &Choice<T>) {
                match choice
                    .current
                    .as_ref()
                    .and_then(|c| options.iter().position(|o| o == c))
                {
                    Some(index) => {
                        row.set_selected(index as u32);
                        row.set_subtitle("");
                    }
                    None => {
                        row.set_selected(gtk::INVALID_LIST_POSITION);
                        row.set_subtitle(&gettext("Differs between policies"));
                    }
                }
            }
            if let (Some((row, options)), Some(choice)) = (&rows.governor, &selectors.governor) {
                show(row, options, choice);
                row.set_sensitive(self.editable);
            }
            if let (Some((row, options)), Some(choice)) = (&rows.epp, &selectors.epp) {
                show(row, options, choice);
                row.set_sensitive(self.editable && selectors.epp_locked.is_none());
                if let Some(why) = &selectors.epp_locked {
                    row.set_subtitle(why);
                }
            }
        }
        self.updating.set(false);
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
    fn a_board_without_core_types_or_a_vm_without_cpufreq() {
        let arm = CpusView::of(&snapshot_of("arm-rk3588", &[]));
        assert!(arm.every_core.is_some());
        // Only what the kernel offers: cpufreq-dt has no EPP.
        assert!(arm.groups.iter().all(|g| g.all.epp.is_none()));
        let vm = CpusView::of(&snapshot_of("vm", &[]));
        assert!(vm.groups.is_empty() && vm.every_core.is_none());
    }
}

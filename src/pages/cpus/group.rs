// SPDX-License-Identifier: GPL-3.0-or-later
//! One group of the CPUs page, as a factory item: the governor and EPP selectors for a core
//! type (or for every core), their values in words with a line on what the current one does
//! (the kernel's word on hover), each of its policies under "Each policy", and the kernel's
//! refusal of the last change, shown where the controls are.
//!
//! Each policy's rows are made when "Each policy" is first opened: a laptop's dozens of combo
//! rows, each with its popover and list, were a third of the window's memory, for controls
//! most people never open.

use std::cell::Cell;
use std::rc::Rc;

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::{Epp, Governor};
use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender};
use relm4::{adw, gtk};

use adw::prelude::*;

use super::view::{Choice, RowWords, Selectors};
use crate::data::change::Change;
use crate::widgets::icons;

/// What a group starts with: its selectors, and each policy's when it has several.
#[derive(Debug, Clone)]
pub struct GroupInit {
    pub description: String,
    pub all: Selectors,
    pub each: Vec<Selectors>,
}

#[derive(Debug, Clone)]
pub enum GroupMsg {
    /// The values the policies have now, and whether changes can be asked for.
    Show {
        all: Selectors,
        each: Vec<Selectors>,
        editable: bool,
    },
    /// A change to these policies was refused: said here when they are this group's, in a
    /// line, with the technical detail on hover.
    Refused {
        policies: Vec<u32>,
        message: String,
        detail: Option<String>,
    },
    /// A new choice was made somewhere: an earlier refusal no longer applies.
    ClearRefusal,
    /// "Each policy" was opened.
    EachOpened,
}

/// Where a set of selectors goes: the group's own, or a policy's under "Each policy".
#[derive(Debug, Clone, Copy)]
enum Place<'a> {
    Group(&'a adw::PreferencesGroup),
    Each(&'a adw::ExpanderRow),
}

/// The combo rows of one set of selectors, with the options they list.
#[derive(Debug)]
struct SelectorRows {
    governor: Option<(adw::ComboRow, Vec<Governor>)>,
    epp: Option<(adw::ComboRow, Vec<Epp>)>,
}

#[derive(Debug)]
pub struct CoreGroup {
    init: GroupInit,
    /// Set while the group itself moves a selector, so the move is not taken as a request.
    updating: Rc<Cell<bool>>,
    /// The group's own selectors first, then each policy's once "Each policy" was opened.
    rows: Vec<SelectorRows>,
    /// "Each policy", where the group has several.
    each: Option<adw::ExpanderRow>,
    /// What the selectors show now (the latest `Show`), for rows made later.
    shown: Option<(Selectors, Vec<Selectors>, bool)>,
    refusal: gtk::Label,
}

#[relm4::factory(pub)]
impl FactoryComponent for CoreGroup {
    type Init = GroupInit;
    type Input = GroupMsg;
    type Output = Change;
    type CommandOutput = ();
    type ParentWidget = gtk::Box;

    view! {
        #[root]
        adw::PreferencesGroup {
            set_title: &self.init.all.title,
            set_description: Some(&self.init.description),
        }
    }

    fn init_model(init: GroupInit, _index: &DynamicIndex, _sender: FactorySender<Self>) -> Self {
        let refusal = gtk::Label::builder()
            .wrap(true)
            .xalign(0.0)
            .margin_top(6)
            .visible(false)
            .build();
        refusal.add_css_class("error");
        CoreGroup {
            init,
            updating: Rc::new(Cell::new(false)),
            rows: Vec::new(),
            each: None,
            shown: None,
            refusal,
        }
    }

    fn init_widgets(
        &mut self,
        _index: &DynamicIndex,
        root: Self::Root,
        _returned_widget: &gtk::Widget,
        sender: FactorySender<Self>,
    ) -> Self::Widgets {
        let widgets = view_output!();
        let all = self.init.all.clone();
        let rows = self.selector_rows(Place::Group(&root), &all, &sender);
        self.rows.push(rows);
        if !self.init.each.is_empty() {
            let each = adw::ExpanderRow::builder()
                .title(gettext("Each policy"))
                .subtitle(gettext("Set policies one by one"))
                .build();
            let opened = sender.input_sender().clone();
            each.connect_expanded_notify(move |each| {
                if each.is_expanded() {
                    opened.emit(GroupMsg::EachOpened);
                }
            });
            root.add(&each);
            self.each = Some(each);
        }
        root.add(&self.refusal);
        widgets
    }

    fn update(&mut self, message: GroupMsg, sender: FactorySender<Self>) {
        match message {
            GroupMsg::Show {
                all,
                each,
                editable,
            } => {
                self.shown = Some((all, each, editable));
                self.show();
            }
            GroupMsg::EachOpened => self.make_each_policys_rows(&sender),
            GroupMsg::Refused {
                policies,
                message,
                detail,
            } => {
                let here = policies.iter().any(|p| self.init.all.policies.contains(p));
                self.refusal.set_visible(here);
                if here {
                    self.refusal.set_text(&message);
                    self.refusal.set_tooltip_text(detail.as_deref());
                }
            }
            GroupMsg::ClearRefusal => self.refusal.set_visible(false),
        }
    }
}

impl CoreGroup {
    /// Makes each policy's rows under "Each policy", once, showing the latest values.
    fn make_each_policys_rows(&mut self, sender: &FactorySender<Self>) {
        let Some(each) = self.each.clone() else {
            return;
        };
        if self.rows.len() > 1 {
            return;
        }
        for selectors in self.init.each.clone() {
            let rows = self.selector_rows(Place::Each(&each), &selectors, sender);
            self.rows.push(rows);
        }
        self.show();
    }

    /// The governor and EPP rows of `selectors`, at `place`.
    fn selector_rows(
        &self,
        place: Place<'_>,
        selectors: &Selectors,
        sender: &FactorySender<Self>,
    ) -> SelectorRows {
        let combo = |title: String, choice_names: Vec<String>, choose: Box<dyn Fn(usize)>| {
            let names: Vec<&str> = choice_names.iter().map(String::as_str).collect();
            let row = adw::ComboRow::builder()
                .title(title.as_str())
                .model(&gtk::StringList::new(&names))
                .build();
            whole_labels(&row);
            let guard = Rc::clone(&self.updating);
            row.connect_selected_notify(move |row| {
                if !guard.get() {
                    choose(row.selected() as usize);
                }
            });
            match place {
                Place::Each(expander) => expander.add_row(&row),
                Place::Group(group) => group.add(&row),
            }
            row
        };
        let title = |what: String| match place {
            Place::Each(_) => fill(
                gettext("{what} of {policy}"),
                &[("what", &what), ("policy", &selectors.title)],
            ),
            Place::Group(_) => what,
        };
        // The change that choosing option `index` of `options` asks for.
        fn chooser<T: Clone + 'static>(
            options: &[T],
            policies: &[u32],
            sender: &FactorySender<CoreGroup>,
            make: fn(Vec<u32>, T) -> Change,
        ) -> Box<dyn Fn(usize)> {
            let options = options.to_vec();
            let policies = policies.to_vec();
            let sender = sender.clone();
            Box::new(move |index| {
                if let Some(value) = options.get(index) {
                    let _ = sender.output(make(policies.clone(), value.clone()));
                }
            })
        }
        let governor = selectors.governor.as_ref().map(|choice| {
            let make: fn(Vec<u32>, Governor) -> Change =
                |policies, governor| Change::Governor { policies, governor };
            let row = combo(
                title(gettext("Governor")),
                choice.labels(),
                chooser(&choice.options, &selectors.policies, sender, make),
            );
            (row, choice.options.clone())
        });
        let epp = selectors.epp.as_ref().map(|choice| {
            let make: fn(Vec<u32>, Epp) -> Change = |policies, epp| Change::Epp { policies, epp };
            let row = combo(
                title(gettext("Energy-performance preference")),
                choice.labels(),
                chooser(&choice.options, &selectors.policies, sender, make),
            );
            (row, choice.options.clone())
        });
        SelectorRows { governor, epp }
    }

    /// Moves the selectors to the values of the latest `Show`.
    fn show(&self) {
        let Some((all, each, editable)) = &self.shown else {
            return;
        };
        let editable = *editable;
        self.updating.set(true);
        for (rows, selectors) in self.rows.iter().zip(std::iter::once(all).chain(each)) {
            fn select<T: PartialEq>(
                row: &adw::ComboRow,
                options: &[T],
                choice: &Choice<T>,
                words: Option<RowWords>,
            ) {
                let index = choice
                    .current
                    .as_ref()
                    .and_then(|c| options.iter().position(|o| o == c));
                row.set_selected(index.map_or(gtk::INVALID_LIST_POSITION, |i| i as u32));
                let words = words.unwrap_or_else(|| RowWords {
                    line: String::new(),
                    tooltip: None,
                });
                row.set_subtitle(&words.line);
                row.set_tooltip_text(words.tooltip.as_deref());
            }
            if let (Some((row, options)), Some(choice)) = (&rows.governor, &selectors.governor) {
                select(row, options, choice, selectors.governor_words());
                row.set_sensitive(editable);
            }
            if let (Some((row, options)), Some(choice)) = (&rows.epp, &selectors.epp) {
                select(row, options, choice, selectors.epp_words());
                row.set_sensitive(editable && selectors.epp_locked.is_none());
            }
        }
        self.updating.set(false);
    }
}

/// Gives `row` labels that take the room their words need: a combo row's own stop at 20
/// characters ("Scheduler-guided gov…"), and translations are often longer. In its list,
/// the chosen option is checked, as libadwaita's own list does.
fn whole_labels(row: &adw::ComboRow) {
    row.set_factory(Some(&label_factory(false)));
    row.set_list_factory(Some(&label_factory(true)));
}

/// Each option as a label, and with `checked` a check mark after the selected one.
fn label_factory(checked: bool) -> gtk::SignalListItemFactory {
    let factory = gtk::SignalListItemFactory::new();
    factory.connect_setup(move |_, item| {
        let Some(item) = item.downcast_ref::<gtk::ListItem>() else {
            return;
        };
        let option = gtk::Box::new(gtk::Orientation::Horizontal, 0);
        let label = gtk::Label::builder()
            .xalign(0.0)
            .ellipsize(gtk::pango::EllipsizeMode::End)
            .build();
        option.append(&label);
        if checked {
            let check = gtk::Image::from_icon_name(icons::CHOSEN);
            item.property_expression("selected")
                .bind(&check, "visible", gtk::Widget::NONE);
            option.append(&check);
        }
        item.set_child(Some(&option));
    });
    factory.connect_bind(|_, item| {
        let Some(item) = item.downcast_ref::<gtk::ListItem>() else {
            return;
        };
        let label = item
            .child()
            .and_then(|option| option.first_child())
            .and_downcast::<gtk::Label>();
        let text = item.item().and_downcast::<gtk::StringObject>();
        if let (Some(label), Some(text)) = (label, text) {
            label.set_label(&text.string());
        }
    });
    factory
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use relm4::factory::FactoryVecDeque;

    use super::*;
    use crate::pages::cpus::view::CpusView;
    use crate::testing::{on_gtk_thread, run_main_context_until, simulated_status};

    #[test]
    #[ignore = "needs a display: build-aux/test.sh --lane gui runs it"]
    fn each_policys_rows_are_made_when_opened_and_show_the_latest_values() {
        on_gtk_thread(|| {
            let path = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor";
            let view =
                CpusView::of(&simulated_status("intel-hybrid", &[(path, "performance")]).snapshot);
            let p_cores = view.groups[0].clone();
            let mut groups = FactoryVecDeque::<CoreGroup>::builder()
                .launch(gtk::Box::default())
                .detach();
            groups.guard().push_back(GroupInit {
                description: String::new(),
                all: p_cores.all.clone(),
                each: p_cores.each.clone(),
            });
            groups.send(
                0,
                GroupMsg::Show {
                    all: p_cores.all.clone(),
                    each: p_cores.each.clone(),
                    editable: true,
                },
            );
            run_main_context_until(|| groups.get(0).unwrap().shown.is_some());
            let group = groups.get(0).unwrap();
            assert_eq!(group.rows.len(), 1, "no policy's rows before opening");
            group.each.as_ref().unwrap().set_expanded(true);
            let wanted = 1 + p_cores.each.len();
            run_main_context_until(|| groups.get(0).unwrap().rows.len() == wanted);
            let group = groups.get(0).unwrap();
            assert_eq!(group.rows.len(), wanted);
            // Policy 0 shows the performance governor it has; policy 1 powersave.
            let selected = |rows: &SelectorRows| {
                let (row, options) = rows.governor.as_ref().unwrap();
                options[row.selected() as usize].to_string()
            };
            assert_eq!(selected(&group.rows[1]), "performance");
            assert_eq!(selected(&group.rows[2]), "powersave");
            // Opened again: nothing made twice.
            let each = group.each.clone().unwrap();
            each.set_expanded(false);
            each.set_expanded(true);
            let context = gtk::glib::MainContext::default();
            while context.iteration(false) {}
            assert_eq!(groups.get(0).unwrap().rows.len(), wanted);
        });
    }
}

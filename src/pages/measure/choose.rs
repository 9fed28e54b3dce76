// SPDX-License-Identifier: GPL-3.0-or-later
//! Choosing what a comparison compares: a popover with a governor and an EPP for each of up
//! to four settings (A and B, and C and D when ticked), offering what the kernel offers, in
//! words.

use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::Snapshot;
use pacer_core::values::{Epp, Governor};
use pacer_dbus::measurement::compare::setting_letter;
use relm4::gtk;
use relm4::gtk::prelude::*;
use relm4::ComponentSender;

use super::{CompareRow, MeasureMsg, MeasurePage};
use crate::widgets::a11y::labelled;
use crate::words::setting::{epp_label, governor_label};

/// How many settings a comparison can hold: A and B, and C and D when ticked.
pub(super) const COMPARED_SETTINGS: usize = 4;

impl MeasurePage {
    pub(super) fn update_compare_options(&mut self, snapshot: &Snapshot) {
        let policy = snapshot.policies.iter().find(|p| p.is_active());
        let governors: Vec<Governor> = policy
            .and_then(|p| p.available_governors.clone())
            .unwrap_or_default();
        let epps: Vec<Epp> = policy
            .and_then(|p| p.available_epp.clone())
            .unwrap_or_default();
        if (&governors, &epps) == (&self.compare_options.0, &self.compare_options.1) {
            return;
        }
        let as_now = gettext("as now");
        let names = |options: Vec<String>| -> Vec<String> {
            std::iter::once(as_now.clone()).chain(options).collect()
        };
        // In words: the kernel's are in the result's tooltip, `pacerctl` and the JSON.
        let governor_names = names(governors.iter().map(governor_label).collect());
        let epp_names = names(epps.iter().copied().map(epp_label).collect());
        for row in &self.compare_rows {
            for (choice, names) in [(&row.governor, &governor_names), (&row.epp, &epp_names)] {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                choice.set_model(Some(&gtk::StringList::new(&names)));
                // "as now" alone: nothing to choose.
                choice.set_sensitive(names.len() > 1);
            }
        }
        self.compare_options = (governors, epps);
    }

    /// The popover choosing two settings to compare.
    pub(super) fn compare_popover(&mut self, sender: &ComponentSender<Self>) -> gtk::Popover {
        let grid = gtk::Grid::builder()
            .row_spacing(6)
            .column_spacing(12)
            .margin_top(6)
            .margin_bottom(6)
            .margin_start(6)
            .margin_end(6)
            .build();
        grid.attach(&heading(&gettext("Governor")), 1, 0, 1, 1);
        grid.attach(&heading(&gettext("EPP")), 2, 0, 1, 1);
        // A and B always; C and D when ticked.
        for index in 0..COMPARED_SETTINGS {
            let row = index as i32 + 1;
            let name = fill(
                gettext("Setting {letter}"),
                &[("letter", &setting_letter(index))],
            );
            let governor: gtk::DropDown = labelled(&fill(
                gettext("Governor for {setting}"),
                &[("setting", &name)],
            ));
            let epp: gtk::DropDown =
                labelled(&fill(gettext("EPP for {setting}"), &[("setting", &name)]));
            let used = (index >= 2).then(|| {
                let used = gtk::CheckButton::with_label(&name);
                for choice in [&governor, &epp] {
                    used.bind_property("active", choice, "visible")
                        .sync_create()
                        .build();
                }
                grid.attach(&used, 0, row, 1, 1);
                used
            });
            if used.is_none() {
                grid.attach(&gtk::Label::new(Some(&name)), 0, row, 1, 1);
            }
            grid.attach(&governor, 1, row, 1, 1);
            grid.attach(&epp, 2, row, 1, 1);
            self.compare_rows.push(CompareRow {
                used,
                governor,
                epp,
            });
        }
        let run = gtk::Button::with_label(&gettext("Run Comparison"));
        run.add_css_class("suggested-action");
        grid.attach(&run, 0, COMPARED_SETTINGS as i32 + 1, 3, 1);
        let popover = gtk::Popover::builder().child(&grid).build();
        let input = sender.input_sender().clone();
        let closing = popover.clone();
        run.connect_clicked(move |_| {
            closing.popdown();
            input.emit(MeasureMsg::Compare);
        });
        popover
    }
}

fn heading(text: &str) -> gtk::Label {
    let label = gtk::Label::new(Some(text));
    label.add_css_class("heading");
    label
}

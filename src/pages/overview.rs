// SPDX-License-Identifier: GPL-3.0-or-later
//! The overview page: the live frequency plot, the power profile as a switcher bound to the
//! profile daemon, and the processor's driver, boost and Energy Aware Scheduling.
//! What it shows in words is worked out in `view`, its unit tests are in `tests`.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use pacer_core::i18n::gettext;
use pacer_core::status::Status;
use pacer_core::values::{DriverMode, EasSysctl};
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::data::change::Change;
use crate::widgets::a11y::labelled;
use crate::widgets::icons;
use crate::widgets::plot::{FrequencyPlot, Shown, TypeSummary};
use crate::words::profile::profile_label;

mod view;

use self::view::{driver_view, eas_view, plot_description, summary_lines, ProfileView};

/// The "Each CPU" toggle in the plot's header: each CPU's own line instead of the bands.
fn each_cpu_toggle(group: &adw::PreferencesGroup, plot: &FrequencyPlot) {
    // The mnemonic on a label of its own: GTK 4.8 speaks a button's own label with its
    // underscore ("_Each CPU Each CPU").
    let toggle = gtk::ToggleButton::new();
    let label = gtk::Label::with_mnemonic(&gettext("_Each CPU"));
    label.set_mnemonic_widget(Some(&toggle));
    toggle.set_child(Some(&label));
    toggle.add_css_class("flat");
    toggle.set_valign(gtk::Align::Center);
    toggle.set_tooltip_text(Some(&gettext(
        "Draw each CPU's own line instead of each core type's band and median",
    )));
    group.set_header_suffix(Some(&toggle));
    let plot = plot.clone();
    let group = group.downgrade();
    toggle.connect_toggled(move |toggle| {
        let shown = if toggle.is_active() {
            Shown::EachCpu
        } else {
            Shown::Bands
        };
        plot.set_shown(shown);
        if let Some(group) = group.upgrade() {
            group.set_description(Some(&plot_description(shown)));
        }
    });
}

#[derive(Debug)]
pub struct OverviewPage {
    /// Set while the page itself moves a control, so the move is not taken as a request.
    updating: Rc<Cell<bool>>,
    profile: Option<ProfileView>,
    profile_buttons: gtk::Box,
    profile_row: adw::ActionRow,
    /// Why no daemon answers, technically: behind "Details", under the row's words.
    profile_detail: gtk::Expander,
    profile_detail_text: gtk::Label,
    notes: gtk::ListBox,
    driver_row: adw::ActionRow,
    mode_choice: gtk::DropDown,
    modes: Vec<DriverMode>,
    boost: gtk::Switch,
    eas_row: adw::ActionRow,
    eas: gtk::Switch,
    summary: gtk::Label,
    editable: bool,
}

#[derive(Debug)]
pub enum OverviewMsg {
    Status(Arc<Status>),
    /// The latest summary of the frequency plot.
    Summary(Vec<TypeSummary>),
    /// Whether settings can be changed (a helper is there).
    Editable(bool),
    /// From the page's own controls.
    ProfileChosen(String),
    ModeChosen(u32),
    BoostSet(bool),
    EasSet(bool),
}

pub struct OverviewInit {
    pub plot: FrequencyPlot,
}

#[relm4::component(pub)]
impl SimpleComponent for OverviewPage {
    type Init = OverviewInit;
    type Input = OverviewMsg;
    type Output = Change;

    view! {
        gtk::Box {
            set_orientation: gtk::Orientation::Vertical,
            set_spacing: 24,
            set_margin_all: 12,

            #[name = "frequency_group"]
            adw::PreferencesGroup {
                set_title: &gettext("Frequency"),
                set_description: Some(&plot_description(Shown::Bands)),

                gtk::Frame {
                    add_css_class: "view",
                    // A frame clips its child to its rounded corners, and a rounded clip makes
                    // every frame of the plot composite through a mask (a third of the
                    // window's drawing at 10 Hz). The plot leaves its corners empty anyway.
                    set_overflow: gtk::Overflow::Visible,
                    #[local_ref]
                    plot_widget -> gtk::DrawingArea {},
                },
                #[local_ref]
                plot_readout -> gtk::Label {
                    set_margin_top: 6,
                },
                #[local_ref]
                summary -> gtk::Label {
                    set_xalign: 0.0,
                    set_wrap: true,
                    set_margin_top: 6,
                    add_css_class: "caption",
                    add_css_class: "numeric",
                },
            },

            adw::PreferencesGroup {
                set_title: &gettext("Power Profile"),

                #[local_ref]
                profile_row -> adw::ActionRow {
                    set_title: &gettext("Profile"),
                },
                #[local_ref]
                profile_detail -> gtk::Expander {
                    set_visible: false,
                    set_margin_all: 12,
                },
                gtk::ListBoxRow {
                    set_activatable: false,
                    #[local_ref]
                    profile_buttons -> gtk::Box {
                        add_css_class: "linked",
                        set_homogeneous: true,
                        set_margin_all: 12,
                    },
                },
                #[local_ref]
                notes -> gtk::ListBox {
                    add_css_class: "boxed-list",
                    set_selection_mode: gtk::SelectionMode::None,
                    set_margin_top: 12,
                },
            },

            adw::PreferencesGroup {
                set_title: &gettext("Processor"),

                #[local_ref]
                driver_row -> adw::ActionRow {
                    set_title: &gettext("Frequency driver"),
                },
                #[local_ref]
                boost_row -> adw::ActionRow {
                    set_title: &gettext("Turbo boost"),
                    set_subtitle: &gettext("Frequencies above the base frequency"),
                },
                #[local_ref]
                eas_row -> adw::ActionRow {
                    set_title: &gettext("Energy Aware Scheduling"),
                },
            },
        }
    }

    fn init(
        init: OverviewInit,
        root: Self::Root,
        sender: ComponentSender<Self>,
    ) -> ComponentParts<Self> {
        let updating = Rc::new(Cell::new(false));
        let model = OverviewPage {
            updating: Rc::clone(&updating),
            profile: None,
            profile_buttons: gtk::Box::new(gtk::Orientation::Horizontal, 0),
            profile_row: adw::ActionRow::new(),
            profile_detail: {
                let details: gtk::Expander = labelled(&gettext("Details"));
                details.set_label(Some(&gettext("Details")));
                details
            },
            profile_detail_text: gtk::Label::builder()
                .wrap(true)
                .selectable(true)
                .xalign(0.0)
                .build(),
            notes: gtk::ListBox::new(),
            driver_row: adw::ActionRow::new(),
            mode_choice: labelled(&gettext("Driver mode")),
            modes: Vec::new(),
            boost: labelled(&gettext("Turbo boost")),
            eas_row: adw::ActionRow::new(),
            eas: labelled(&gettext("Energy Aware Scheduling")),
            summary: gtk::Label::new(None),
            editable: false,
        };
        let summary = &model.summary;
        let profile_row = &model.profile_row;
        let profile_detail = &model.profile_detail;
        let profile_buttons = &model.profile_buttons;
        let notes = &model.notes;
        let driver_row = &model.driver_row;
        let eas_row = &model.eas_row;
        let plot_widget = init.plot.widget();
        let plot_readout = init.plot.readout();
        let boost_row = &adw::ActionRow::new();
        let widgets = view_output!();

        model
            .profile_detail
            .set_child(Some(&model.profile_detail_text));
        model.mode_choice.set_valign(gtk::Align::Center);
        model.driver_row.add_suffix(&model.mode_choice);
        for (row, switch) in [(boost_row, &model.boost), (eas_row, &model.eas)] {
            switch.set_valign(gtk::Align::Center);
            row.add_suffix(switch);
            row.set_activatable_widget(Some(switch));
        }

        model.notes.set_visible(false);
        let guard = Rc::clone(&updating);
        let input = sender.input_sender().clone();
        model.boost.connect_state_set(move |_, on| {
            if !guard.get() {
                input.emit(OverviewMsg::BoostSet(on));
            }
            gtk::glib::Propagation::Proceed
        });
        let guard = Rc::clone(&updating);
        let input = sender.input_sender().clone();
        model.eas.connect_state_set(move |_, on| {
            if !guard.get() {
                input.emit(OverviewMsg::EasSet(on));
            }
            gtk::glib::Propagation::Proceed
        });
        let guard = updating;
        let input = sender.input_sender().clone();
        model.mode_choice.connect_selected_notify(move |choice| {
            if !guard.get() {
                input.emit(OverviewMsg::ModeChosen(choice.selected()));
            }
        });
        each_cpu_toggle(&widgets.frequency_group, &init.plot);
        ComponentParts { model, widgets }
    }

    fn update(&mut self, message: OverviewMsg, sender: ComponentSender<Self>) {
        match message {
            OverviewMsg::Status(status) => self.show(&status, &sender),
            OverviewMsg::Summary(summary) => {
                let text = summary_lines(&summary).join("\n");
                if self.summary.text() != text {
                    self.summary.set_text(&text);
                }
            }
            OverviewMsg::Editable(editable) => {
                self.editable = editable;
                for widget in [
                    self.boost.upcast_ref::<gtk::Widget>(),
                    self.eas.upcast_ref(),
                    self.mode_choice.upcast_ref(),
                ] {
                    widget.set_sensitive(editable);
                }
            }
            OverviewMsg::ProfileChosen(profile) => {
                let _ = sender.output(Change::Profile(profile));
            }
            OverviewMsg::ModeChosen(index) => {
                if let Some(mode) = self.modes.get(index as usize) {
                    let _ = sender.output(Change::DriverMode(*mode));
                }
            }
            OverviewMsg::BoostSet(enabled) => {
                let _ = sender.output(Change::Boost {
                    policies: Vec::new(),
                    enabled,
                });
            }
            OverviewMsg::EasSet(enabled) => {
                let _ = sender.output(Change::Eas(enabled));
            }
        }
    }
}

impl OverviewPage {
    fn show(&mut self, status: &Status, sender: &ComponentSender<Self>) {
        self.updating.set(true);
        self.show_profile(ProfileView::of(status), sender);
        let snapshot = &status.snapshot;
        let (driver, modes) = driver_view(snapshot);
        self.driver_row.set_subtitle(&driver);
        if modes != self.modes {
            let names: Vec<String> = modes.iter().map(ToString::to_string).collect();
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            self.mode_choice
                .set_model(Some(&gtk::StringList::new(&names)));
            self.modes = modes;
        }
        self.mode_choice.set_visible(!self.modes.is_empty());
        if let Some(index) = snapshot
            .driver
            .mode
            .and_then(|mode| self.modes.iter().position(|m| *m == mode))
        {
            self.mode_choice.set_selected(index as u32);
        }
        match snapshot.driver.boost {
            Some(on) => {
                self.boost.set_visible(true);
                self.boost.set_active(on);
                self.boost.set_state(on);
            }
            None => self.boost.set_visible(false),
        }
        self.eas_row.set_subtitle(&eas_view(snapshot));
        // The switch is the administrator's sysctl: it exists only where EAS can run.
        match snapshot.eas.sysctl {
            Some(EasSysctl::Enabled) => {
                self.eas.set_visible(true);
                self.eas.set_active(true);
                self.eas.set_state(true);
            }
            Some(EasSysctl::Disabled) => {
                self.eas.set_visible(true);
                self.eas.set_active(false);
                self.eas.set_state(false);
            }
            Some(EasSysctl::Impossible) | None => self.eas.set_visible(false),
        }
        self.updating.set(false);
    }

    fn show_profile(&mut self, view: ProfileView, sender: &ComponentSender<Self>) {
        if self.profile.as_ref() == Some(&view) {
            return;
        }
        self.profile_row.set_subtitle(&view.source);
        self.profile_detail_text
            .set_label(view.detail.as_deref().unwrap_or_default());
        self.profile_detail.set_visible(view.detail.is_some());
        let same_choices = self.profile.as_ref().is_some_and(|old| {
            old.choices
                .iter()
                .map(|c| &c.0)
                .eq(view.choices.iter().map(|c| &c.0))
        });
        if !same_choices {
            while let Some(child) = self.profile_buttons.first_child() {
                self.profile_buttons.remove(&child);
            }
            let mut group: Option<gtk::ToggleButton> = None;
            for (name, _) in &view.choices {
                // Labels give way on narrow screens rather than widen the window.
                let label = gtk::Label::builder()
                    .label(profile_label(name))
                    .ellipsize(gtk::pango::EllipsizeMode::End)
                    .build();
                let button = gtk::ToggleButton::builder().child(&label).build();
                button.set_group(group.as_ref());
                group.get_or_insert_with(|| button.clone());
                let guard = Rc::clone(&self.updating);
                let input = sender.input_sender().clone();
                let name = name.clone();
                button.connect_toggled(move |button| {
                    if button.is_active() && !guard.get() {
                        input.emit(OverviewMsg::ProfileChosen(name.clone()));
                    }
                });
                self.profile_buttons.append(&button);
            }
        }
        let mut child = self.profile_buttons.first_child();
        for (_, active) in &view.choices {
            if let Some(button) = child
                .as_ref()
                .and_then(|c| c.downcast_ref::<gtk::ToggleButton>())
            {
                button.set_active(*active);
            }
            child = child.and_then(|c| c.next_sibling());
        }
        if let Some(row) = self.profile_buttons.parent() {
            row.set_visible(!view.choices.is_empty());
        }
        while let Some(row) = self.notes.first_child() {
            self.notes.remove(&row);
        }
        for note in &view.notes {
            let row = adw::ActionRow::builder().title(note).build();
            row.add_prefix(&gtk::Image::from_icon_name(icons::INFORMATION));
            self.notes.append(&row);
        }
        self.notes.set_visible(!view.notes.is_empty());
        self.profile = Some(view);
    }
}

#[cfg(test)]
mod tests;

// SPDX-License-Identifier: GPL-3.0-or-later
//! The overview page: Power Mode first, the profile daemon's profiles as a choice shaped
//! like GNOME Settings' (`power_mode`); then the live frequency plot; then "Why not
//! faster?", what holds each core type back (`limits`); then the processor's driver mode,
//! boost and Energy Aware Scheduling, each in words with a line on what it does and the
//! kernel's own word on hover. What it shows in words is worked out in `view`;
//! its unit tests are in `tests`.

use std::sync::Arc;

use pacer_core::i18n::gettext;
use pacer_core::status::Status;
use pacer_core::values::{DriverMode, EasSysctl};
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::data::change::Change;
use crate::widgets::a11y::labelled;
use crate::widgets::plot::{FrequencyPlot, Shown, TypeSummary};

mod limits;
mod power_mode;
mod view;

use self::limits::{WhyNotFaster, WhyNotFasterMsg};

use self::power_mode::PowerMode;
use self::view::{eas_view, plot_description, summary_lines, DriverView, ProfileView};
use crate::words::setting::driver_mode_label;

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
    /// The profiles, who serves them and the notes, as last shown.
    profile: Option<ProfileView>,
    power_mode: PowerMode,
    /// What holds each core type back.
    limits: Controller<WhyNotFaster>,
    /// The driver and its mode, in words.
    driver: DriverView,
    /// The modes the driver offers, in the order of the choice's list.
    modes: Vec<DriverMode>,
    /// The offered modes changed with the last reading: the choice's list is made anew.
    modes_changed: bool,
    /// The driver's mode, as its place in `modes`.
    mode: Option<u32>,
    /// Turbo boost's switch; `None` where the driver has none.
    boost: Option<bool>,
    /// Energy Aware Scheduling in words, and the kernel's reasons on hover.
    eas_text: (String, Option<String>),
    /// The administrator's EAS switch; `None` where EAS cannot run.
    eas: Option<bool>,
    /// The plot's summary per core type, a line each.
    summary: String,
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

            adw::PreferencesGroup {
                set_title: &gettext("Power Mode"),
                #[watch]
                set_description: model.profile.as_ref().map(|p| p.source.as_str()),
                // Why no daemon answers, technically: on hover, under the one line.
                #[watch]
                set_tooltip_text: model.profile.as_ref().and_then(|p| p.detail.as_deref()),
                #[local_ref]
                power_mode -> gtk::Box {},
            },

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
                gtk::Label {
                    set_xalign: 0.0,
                    set_wrap: true,
                    set_margin_top: 6,
                    add_css_class: "caption",
                    add_css_class: "numeric",
                    #[watch]
                    set_label: &model.summary,
                },
            },

            #[local_ref]
            limits -> gtk::Box {},

            adw::PreferencesGroup {
                set_title: &gettext("Processor"),

                adw::ActionRow {
                    set_title: &gettext("Frequency control"),
                    #[watch]
                    set_subtitle: &model.driver.line,
                    #[watch]
                    set_tooltip_text: model.driver.driver.as_deref(),
                    #[local_ref]
                    add_suffix = mode_choice -> gtk::DropDown {
                        set_valign: gtk::Align::Center,
                        #[watch]
                        set_tooltip_text: model.driver.mode_token.as_deref(),
                        #[watch]
                        set_visible: !model.modes.is_empty(),
                        #[watch]
                        set_sensitive: model.editable,
                        #[track(model.modes_changed)]
                        #[block_signal(mode_chosen)]
                        set_model: Some(&mode_list(&model.modes)),
                        #[watch]
                        #[block_signal(mode_chosen)]
                        set_selected: model.mode.unwrap_or(gtk::INVALID_LIST_POSITION),
                        connect_selected_notify[sender] => move |choice| {
                            sender.input(OverviewMsg::ModeChosen(choice.selected()));
                        } @mode_chosen,
                    },
                },
                adw::ActionRow {
                    set_title: &gettext("Turbo boost"),
                    #[watch]
                    set_subtitle: &if model.boost.is_some() {
                        gettext("Lets the cores run above their base frequency for a while")
                    } else {
                        gettext("This processor's driver has no turbo switch")
                    },
                    set_activatable_widget: Some(boost),
                    #[local_ref]
                    add_suffix = boost -> gtk::Switch {
                        set_valign: gtk::Align::Center,
                        #[watch]
                        set_visible: model.boost.is_some(),
                        #[watch]
                        set_sensitive: model.editable,
                        #[watch]
                        #[block_signal(boost_set)]
                        set_active: model.boost == Some(true),
                        #[watch]
                        #[block_signal(boost_set)]
                        set_state: model.boost == Some(true),
                        connect_state_set[sender] => move |_, on| {
                            sender.input(OverviewMsg::BoostSet(on));
                            gtk::glib::Propagation::Proceed
                        } @boost_set,
                    },
                },
                adw::ActionRow {
                    set_title: &gettext("Energy Aware Scheduling"),
                    #[watch]
                    set_subtitle: &model.eas_text.0,
                    #[watch]
                    set_tooltip_text: model.eas_text.1.as_deref(),
                    set_activatable_widget: Some(eas),
                    // The switch is the administrator's sysctl: it exists only where EAS can
                    // run.
                    #[local_ref]
                    add_suffix = eas -> gtk::Switch {
                        set_valign: gtk::Align::Center,
                        #[watch]
                        set_visible: model.eas.is_some(),
                        #[watch]
                        set_sensitive: model.editable,
                        #[watch]
                        #[block_signal(eas_set)]
                        set_active: model.eas == Some(true),
                        #[watch]
                        #[block_signal(eas_set)]
                        set_state: model.eas == Some(true),
                        connect_state_set[sender] => move |_, on| {
                            sender.input(OverviewMsg::EasSet(on));
                            gtk::glib::Propagation::Proceed
                        } @eas_set,
                    },
                },
            },
        }
    }

    fn init(
        init: OverviewInit,
        root: Self::Root,
        sender: ComponentSender<Self>,
    ) -> ComponentParts<Self> {
        let model = OverviewPage {
            profile: None,
            power_mode: PowerMode::new(sender.input_sender(), OverviewMsg::ProfileChosen),
            limits: WhyNotFaster::builder().launch(()).detach(),
            driver: DriverView::default(),
            modes: Vec::new(),
            modes_changed: false,
            mode: None,
            boost: None,
            eas_text: (String::new(), None),
            eas: None,
            summary: String::new(),
            editable: false,
        };
        let power_mode = model.power_mode.widget();
        let limits = model.limits.widget();
        let mode_choice: &gtk::DropDown = &labelled(&gettext("Driver mode"));
        let boost: &gtk::Switch = &labelled(&gettext("Turbo boost"));
        let eas: &gtk::Switch = &labelled(&gettext("Energy Aware Scheduling"));
        let plot_widget = init.plot.widget();
        let plot_readout = init.plot.readout();
        let widgets = view_output!();
        each_cpu_toggle(&widgets.frequency_group, &init.plot);
        ComponentParts { model, widgets }
    }

    fn update(&mut self, message: OverviewMsg, sender: ComponentSender<Self>) {
        self.modes_changed = false;
        match message {
            OverviewMsg::Status(status) => self.show(&status),
            OverviewMsg::Summary(summary) => self.summary = summary_lines(&summary).join("\n"),
            OverviewMsg::Editable(editable) => self.editable = editable,
            // What the user chose shows at once; the next reading shows what came of it.
            OverviewMsg::ProfileChosen(profile) => {
                let _ = sender.output(Change::Profile(profile));
            }
            OverviewMsg::ModeChosen(index) => {
                if let Some(mode) = self.modes.get(index as usize) {
                    self.mode = Some(index);
                    let _ = sender.output(Change::DriverMode(*mode));
                }
            }
            OverviewMsg::BoostSet(enabled) => {
                self.boost = Some(enabled);
                let _ = sender.output(Change::Boost {
                    policies: Vec::new(),
                    enabled,
                });
            }
            OverviewMsg::EasSet(enabled) => {
                self.eas = Some(enabled);
                let _ = sender.output(Change::Eas(enabled));
            }
        }
    }
}

impl OverviewPage {
    fn show(&mut self, status: &Status) {
        self.show_profile(ProfileView::of(status));
        self.limits
            .emit(WhyNotFasterMsg::Show(status.limits.clone()));
        let snapshot = &status.snapshot;
        let driver = DriverView::of(snapshot);
        if driver.modes != self.modes {
            self.modes.clone_from(&driver.modes);
            self.modes_changed = true;
        }
        self.driver = driver;
        self.mode = snapshot
            .driver
            .mode
            .and_then(|mode| self.modes.iter().position(|m| *m == mode))
            .and_then(|index| u32::try_from(index).ok());
        self.boost = snapshot.driver.boost;
        self.eas_text = eas_view(snapshot);
        self.eas = match snapshot.eas.sysctl {
            Some(EasSysctl::Enabled) => Some(true),
            Some(EasSysctl::Disabled) => Some(false),
            Some(EasSysctl::Impossible) | None => None,
        };
    }

    fn show_profile(&mut self, view: ProfileView) {
        if self.profile.as_ref() == Some(&view) {
            return;
        }
        self.power_mode.show(&view);
        self.profile = Some(view);
    }
}

/// The driver's modes in words, in the order of the choice's list.
fn mode_names(modes: &[DriverMode]) -> Vec<String> {
    modes.iter().copied().map(driver_mode_label).collect()
}

/// The driver's modes as the choice lists them.
fn mode_list(modes: &[DriverMode]) -> gtk::StringList {
    let names = mode_names(modes);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    gtk::StringList::new(&names)
}

#[cfg(test)]
mod tests;

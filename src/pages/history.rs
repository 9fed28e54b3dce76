// SPDX-License-Identifier: GPL-3.0-or-later
//! The History page: who changed the power state, a timeline newest first, from the helper's
//! recording as the window follows it (`data::history`): each change is a row (`row`) — what
//! changed, from what to what, who made it, with an icon per kind of source — under a heading
//! per minute (or second), writes that changed nothing folded, filtered by setting or core
//! type.

use std::collections::VecDeque;
use std::sync::Arc;

use pacer_core::history::{Event, Setting};
use pacer_core::i18n::gettext;
use pacer_core::status::Status;
use pacer_core::values::CoreType;
use pacer_core::who::{by_whom, what_changed};
use pacer_measure::table::cores_of_type;
use relm4::factory::FactoryVecDeque;
use relm4::gtk::glib;
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::data::history::{grouped, timeline, Cores, HistoryUnavailable};
use crate::widgets::a11y::labelled;
use crate::widgets::icons;
use crate::words::history::{filter_name, row_words, unavailable};

mod row;

use row::{moment_heading, ChangeRow};

/// The most changes kept (the helper's own ring is larger: the page shows the recent past).
const KEPT: usize = 2000;
/// The most rows in the list at once: more is memory few scroll to.
const SHOWN: usize = 300;

/// The settings one can filter by, in the order the list offers them (after "All").
const SETTINGS: [Setting; 7] = [
    Setting::Governor,
    Setting::Epp,
    Setting::Profile,
    Setting::Boost,
    Setting::MaxFreq,
    Setting::DriverMode,
    Setting::Eas,
];
#[derive(Debug)]
pub struct HistoryPage {
    /// Oldest first.
    events: VecDeque<Event>,
    cores: Cores,
    setting: Option<Setting>,
    core_type: Option<CoreType>,
    /// The rows shown: the kept changes that pass the filters, newest first, grouped.
    rows: FactoryVecDeque<ChangeRow>,
    /// Why there is no history to show (`None`: there is, or none came yet).
    unavailable: Option<HistoryUnavailable>,
}

#[derive(Debug)]
pub enum HistoryMsg {
    /// Changes the helper recorded, oldest first, each once (the window's `Recent` sees to it).
    Recorded(Vec<Event>),
    /// The recording cannot be followed.
    Unavailable(HistoryUnavailable),
    Status(Arc<Status>),
    /// The filters' choices (0: all).
    Setting(u32),
    CoreType(u32),
}

#[relm4::component(pub)]
impl SimpleComponent for HistoryPage {
    type Init = ();
    type Input = HistoryMsg;
    type Output = ();

    view! {
        gtk::Box {
            set_orientation: gtk::Orientation::Vertical,
            set_spacing: 12,
            set_margin_all: 12,

            gtk::Box {
                set_spacing: 6,
                #[local_ref]
                setting_filter -> gtk::DropDown {
                    connect_selected_notify[sender] => move |dropdown| {
                        sender.input(HistoryMsg::Setting(dropdown.selected()));
                    },
                },
                #[local_ref]
                core_filter -> gtk::DropDown {
                    #[watch]
                    set_visible: model.cores.typed(),
                    connect_selected_notify[sender] => move |dropdown| {
                        sender.input(HistoryMsg::CoreType(dropdown.selected()));
                    },
                },
            },

            adw::StatusPage {
                #[watch]
                set_visible: model.events.is_empty() || model.unavailable.is_some(),
                // Its icon at 96 pixels, which Adwaita has pre-rendered (see `icons`).
                add_css_class: "compact",
                set_icon_name: Some(icons::HISTORY),
                #[watch]
                set_title: &match &model.unavailable {
                    Some(_) => gettext("No history to show"),
                    None => gettext("No changes yet"),
                },
                #[watch]
                set_description: Some(&match &model.unavailable {
                    Some(why) => unavailable(why),
                    None => gettext("While Pacer runs, every change of the power state is recorded here with who made it: programs and services, the profile daemon, the kernel, and Pacer."),
                }),
            },

            #[local_ref]
            list -> gtk::ListBox {
                add_css_class: "boxed-list",
                set_selection_mode: gtk::SelectionMode::None,
                #[watch]
                set_visible: !model.events.is_empty(),
            },
        }
    }

    fn init((): (), root: Self::Root, sender: ComponentSender<Self>) -> ComponentParts<Self> {
        let rows: FactoryVecDeque<ChangeRow> = FactoryVecDeque::builder()
            .launch(gtk::ListBox::new())
            .detach();
        rows.widget().set_header_func(moment_heading);
        let model = HistoryPage {
            events: VecDeque::new(),
            cores: Cores::default(),
            setting: None,
            core_type: None,
            rows,
            unavailable: None,
        };
        let setting_filter: gtk::DropDown = labelled(&gettext("Setting"));
        let settings: Vec<String> = std::iter::once(gettext("All settings"))
            .chain(SETTINGS.iter().map(|s| filter_name(*s)))
            .collect();
        setting_filter.set_model(Some(&strings(&settings)));
        let core_filter: gtk::DropDown = labelled(&gettext("Core type"));
        let cores: Vec<String> = std::iter::once(gettext("All cores"))
            .chain(CoreType::ALL.iter().map(|kind| cores_of_type(Some(*kind))))
            .collect();
        core_filter.set_model(Some(&strings(&cores)));
        let list = model.rows.widget();
        let widgets = view_output!();
        ComponentParts { model, widgets }
    }

    fn update(&mut self, message: HistoryMsg, _sender: ComponentSender<Self>) {
        match message {
            HistoryMsg::Recorded(events) => {
                for event in events {
                    glib::g_debug!(
                        "pacer",
                        "history shows: {} {}",
                        what_changed(&event),
                        by_whom(&event)
                    );
                    self.events.push_back(event);
                }
                while self.events.len() > KEPT {
                    self.events.pop_front();
                }
                self.unavailable = None;
                self.fill();
            }
            HistoryMsg::Unavailable(why) => {
                glib::g_debug!("pacer", "history unavailable: {why}");
                self.unavailable = Some(why);
            }
            HistoryMsg::Status(status) => {
                let cores = Cores::of(&status);
                if cores != self.cores {
                    self.cores = cores;
                    self.fill();
                }
            }
            HistoryMsg::Setting(index) => {
                self.setting = index
                    .checked_sub(1)
                    .and_then(|i| SETTINGS.get(i as usize).copied());
                self.fill();
            }
            HistoryMsg::CoreType(index) => {
                self.core_type = index
                    .checked_sub(1)
                    .and_then(|i| CoreType::ALL.get(i as usize).copied());
                self.fill();
            }
        }
    }
}

impl HistoryPage {
    /// Whether `event` passes the filters. The recording's own events always do: they say
    /// where the record has gaps.
    fn shows(&self, event: &Event) -> bool {
        // The recording's gaps and the sleeps bound what any filter shows.
        if matches!(event.setting, Setting::Recording | Setting::Sleep) {
            return true;
        }
        let setting = match event.setting {
            // One entry for both limits, the switches of turbo, the profile and its holds.
            Setting::MinFreq => Setting::MaxFreq,
            Setting::NoTurbo => Setting::Boost,
            Setting::ProfileHold => Setting::Profile,
            other => other,
        };
        let of_setting = self.setting.is_none_or(|wanted| wanted == setting);
        let of_core_type = self.core_type.is_none_or(|wanted| {
            event.policies.is_empty()
                || event
                    .policies
                    .iter()
                    .any(|policy| self.cores.core_type(*policy) == Some(wanted))
        });
        of_setting && of_core_type
    }

    /// Shows the kept changes that pass the filters as a timeline, newest first.
    fn fill(&mut self) {
        let shown = timeline(grouped(self.events.iter().rev().filter(|e| self.shows(e))));
        let shown: Vec<_> = shown
            .into_iter()
            .take(SHOWN)
            .map(|entry| {
                let cause = entry.event.cause.and_then(|id| self.event(id));
                let words = row_words(&entry, &self.cores, cause);
                (entry.event, words)
            })
            .collect();
        let mut rows = self.rows.guard();
        rows.clear();
        for row in shown {
            rows.push_back(row);
        }
        drop(rows);
        // A row is in the list before it is named by its moment: head them once all are.
        self.rows.widget().invalidate_headers();
    }

    /// The kept change numbered `id`.
    fn event(&self, id: u64) -> Option<&Event> {
        // Kept in the order they were recorded, and numbered in it.
        let at = self
            .events
            .binary_search_by_key(&id, |event| event.id)
            .ok()?;
        self.events.get(at)
    }
}

fn strings(items: &[String]) -> gtk::StringList {
    let refs: Vec<&str> = items.iter().map(String::as_str).collect();
    gtk::StringList::new(&refs)
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! The History page: who changed the power state, newest first, from the helper's recording
//! (`io.github.pacerapp.Pacer.History1`). The page keeps a watch open while the window runs,
//! so the helper records the whole session; each change is a row — what changed, from what
//! to what, who made it, with an icon per kind of source — under a heading per minute,
//! filtered by setting or core type. The window hands the changes on (the banner's "Why?").

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use futures_util::StreamExt;
use pacer_core::history::{Event, Setting, Source};
use pacer_core::i18n::gettext;
use pacer_core::status::Status;
use pacer_core::values::CoreType;
use pacer_core::who::{by_whom, setting_label, what_changed};
use pacer_dbus::client::call;
use pacer_dbus::history::History1Proxy;
use pacer_dbus::Helper1Proxy;
use pacer_measure::table::cores_of_type;
use relm4::gtk::glib;
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::widgets::a11y::labelled;
use crate::widgets::icons;
use crate::words::time::local_time;

/// The most changes kept (the helper's own ring is larger: the page shows the recent past).
const KEPT: usize = 2000;
/// The most rows in the list at once: more is memory few scroll to.
const SHOWN: usize = 300;

/// How long the list waits for the rest of a burst of changes before it is laid out again.
const REFILL_AFTER: std::time::Duration = std::time::Duration::from_millis(150);
/// Changes further apart than this are not one request's.
const GROUP_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);
/// How many groups back a change may join.
const GROUP_LOOKBACK: usize = 4;

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
/// The core types one can filter by (after "All cores").
const CORE_TYPES: [CoreType; 3] = [
    CoreType::Performance,
    CoreType::Efficiency,
    CoreType::LowPower,
];

#[derive(Debug)]
pub struct HistoryPage {
    /// Oldest first.
    events: VecDeque<Event>,
    core_types: BTreeMap<u32, CoreType>,
    setting: Option<Setting>,
    core_type: Option<CoreType>,
    list: gtk::ListBox,
    /// Why there is no history to show (`None`: there is, or none came yet).
    unavailable: Option<String>,
    watching: bool,
    /// A refill of the list is on its way (changes come in bursts: one refill for each).
    refilling: bool,
    /// The changes since the last refill, handed to the window with it: one batch a burst.
    unannounced: Vec<Event>,
}

#[derive(Debug)]
pub enum HistoryMsg {
    /// The helper, found: open a watch.
    Helper(Helper1Proxy<'static>),
    Status(Arc<Status>),
    /// The filters' choices (0: all).
    Setting(u32),
    CoreType(u32),
}

#[derive(Debug)]
pub enum HistoryCmd {
    Recorded(Vec<Event>),
    Unavailable(String),
    /// Lay the list out again with what came.
    Refill,
}

#[relm4::component(pub)]
impl Component for HistoryPage {
    type Init = ();
    type Input = HistoryMsg;
    /// The changes as they come, for the rest of the window.
    type Output = Vec<Event>;
    type CommandOutput = HistoryCmd;

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
                    set_visible: !model.core_types.is_empty(),
                    connect_selected_notify[sender] => move |dropdown| {
                        sender.input(HistoryMsg::CoreType(dropdown.selected()));
                    },
                },
            },

            adw::StatusPage {
                #[watch]
                set_visible: model.events.is_empty() || model.unavailable.is_some(),
                set_icon_name: Some(icons::HISTORY),
                #[watch]
                set_title: &match &model.unavailable {
                    Some(_) => gettext("No history to show"),
                    None => gettext("No changes yet"),
                },
                #[watch]
                set_description: Some(&match &model.unavailable {
                    Some(why) => why.clone(),
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
        let model = HistoryPage {
            events: VecDeque::new(),
            core_types: BTreeMap::new(),
            setting: None,
            core_type: None,
            list: gtk::ListBox::new(),
            unavailable: None,
            watching: false,
            refilling: false,
            unannounced: Vec::new(),
        };
        model.list.set_header_func(minute_heading);
        let setting_filter: gtk::DropDown = labelled(&gettext("Setting"));
        let settings: Vec<String> = std::iter::once(gettext("All settings"))
            .chain(SETTINGS.iter().map(|s| capitalised(&setting_label(*s))))
            .collect();
        setting_filter.set_model(Some(&strings(&settings)));
        let core_filter: gtk::DropDown = labelled(&gettext("Core type"));
        let cores: Vec<String> = std::iter::once(gettext("All cores"))
            .chain(CORE_TYPES.iter().map(|kind| cores_of_type(Some(*kind))))
            .collect();
        core_filter.set_model(Some(&strings(&cores)));
        let list = &model.list;
        let widgets = view_output!();
        ComponentParts { model, widgets }
    }

    fn update(&mut self, message: HistoryMsg, sender: ComponentSender<Self>, _root: &Self::Root) {
        match message {
            HistoryMsg::Helper(helper) => {
                if !std::mem::replace(&mut self.watching, true) {
                    sender.command(move |out, shutdown| {
                        shutdown.register(follow(helper, out)).drop_on_shutdown()
                    });
                }
            }
            HistoryMsg::Status(status) => {
                let core_types: BTreeMap<u32, CoreType> = status
                    .snapshot
                    .policies
                    .iter()
                    .filter_map(|policy| Some((policy.id, policy.core_type?)))
                    .collect();
                if core_types != self.core_types {
                    self.core_types = core_types;
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
                    .and_then(|i| CORE_TYPES.get(i as usize).copied());
                self.fill();
            }
        }
    }

    fn update_cmd(&mut self, command: HistoryCmd, sender: ComponentSender<Self>, _: &Self::Root) {
        match command {
            HistoryCmd::Recorded(events) => {
                let newest = self.events.back().map_or(0, |e| e.id);
                // A change can come both in the history read and as a signal.
                let new: Vec<Event> = events.into_iter().filter(|e| e.id > newest).collect();
                for event in &new {
                    glib::g_debug!(
                        "pacer",
                        "history shows: {} {}",
                        what_changed(event),
                        by_whom(event)
                    );
                }
                self.events.extend(new.iter().cloned());
                self.unannounced.extend(new);
                while self.events.len() > KEPT {
                    self.events.pop_front();
                }
                self.unavailable = None;
                if !std::mem::replace(&mut self.refilling, true) {
                    sender.oneshot_command(async {
                        tokio::time::sleep(REFILL_AFTER).await;
                        HistoryCmd::Refill
                    });
                }
            }
            HistoryCmd::Refill => {
                self.refilling = false;
                self.fill();
                let _ = sender.output(std::mem::take(&mut self.unannounced));
            }
            HistoryCmd::Unavailable(why) => {
                glib::g_debug!("pacer", "history unavailable: {why}");
                self.unavailable = Some(why);
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
                    .any(|policy| self.core_types.get(policy) == Some(&wanted))
        });
        of_setting && of_core_type
    }

    /// Lays the list out again from the kept changes, newest first, grouped.
    fn fill(&mut self) {
        while let Some(child) = self.list.first_child() {
            self.list.remove(&child);
        }
        let shown = self.events.iter().rev().filter(|e| self.shows(e));
        for event in grouped(shown).iter().take(SHOWN) {
            self.list.append(&row(event));
        }
    }
}

/// One request's changes as one: `events` (newest first) that change the same setting the
/// same way by the same hand within [`GROUP_WITHIN`] become one event for all their
/// policies (a governor set on sixteen policies is one row, and so is the kernel's answer
/// on each). The newest stands for the group.
pub fn grouped<'a>(events: impl Iterator<Item = &'a Event>) -> Vec<Event> {
    let mut groups: Vec<Event> = Vec::new();
    for event in events {
        let same = |group: &Event| {
            group.setting == event.setting
                && group.setting != Setting::Recording
                && group.old == event.old
                && group.new == event.new
                && group.source == event.source
                && group.process.as_ref().map(|p| p.pid) == event.process.as_ref().map(|p| p.pid)
                && group.cause.is_some() == event.cause.is_some()
                && group
                    .time
                    .duration_since(event.time)
                    .is_ok_and(|apart| apart <= GROUP_WITHIN)
        };
        // The kernel's answers interleave with the writes they answer: look a few back.
        let recent = groups.len().saturating_sub(GROUP_LOOKBACK);
        match groups[recent..].iter_mut().find(|group| same(group)) {
            Some(group) => {
                group.policies.extend(&event.policies);
                group.policies.sort_unstable();
                group.policies.dedup();
            }
            None => groups.push(event.clone()),
        }
    }
    groups
}

/// Keeps a watch open on the helper, and sends what it recorded, then each change.
async fn follow(helper: Helper1Proxy<'static>, out: relm4::Sender<HistoryCmd>) {
    let connection = helper.inner().connection().clone();
    let unavailable = |why: String| {
        let _ = out.send(HistoryCmd::Unavailable(why));
    };
    let history = match History1Proxy::new(&connection).await {
        Ok(history) => history,
        Err(error) => return unavailable(error.to_string()),
    };
    // Listening before the watch opens: nothing between the two goes unseen.
    let mut changes = match history.receive_changed().await {
        Ok(changes) => changes,
        Err(error) => return unavailable(error.to_string()),
    };
    if let Err(error) = call(history.watch_changes()).await {
        return unavailable(error.to_string());
    }
    match call(history.history(0)).await {
        Ok(json) => match serde_json::from_str::<Vec<Event>>(&json) {
            Ok(events) => {
                let _ = out.send(HistoryCmd::Recorded(events));
            }
            Err(error) => return unavailable(error.to_string()),
        },
        Err(error) => return unavailable(error.to_string()),
    }
    while let Some(change) = changes.next().await {
        let Ok(args) = change.args() else { continue };
        match serde_json::from_str::<Event>(args.event()) {
            Ok(event) => {
                let _ = out.send(HistoryCmd::Recorded(vec![event]));
            }
            Err(error) => glib::g_warning!("pacer", "a change the helper sent: {error}"),
        }
    }
}

/// One change: what, and who (with when), an icon saying what kind of source.
fn row(event: &Event) -> adw::ActionRow {
    let time = local_time(event);
    let who = by_whom(event);
    let subtitle = if who.is_empty() {
        time.clone()
    } else {
        format!("{time} · {who}")
    };
    let row = adw::ActionRow::builder()
        .title(glib::markup_escape_text(&capitalised(&what_changed(event))).as_str())
        .subtitle(glib::markup_escape_text(&subtitle).as_str())
        .build();
    let (icon, kind) = source_icon(event);
    let image: gtk::Image = labelled(&kind);
    image.set_icon_name(Some(icon));
    image.set_tooltip_text(Some(&kind));
    row.add_prefix(&image);
    // The heading a row goes under: its minute.
    row.set_widget_name(&time[..time.len().min(5)]);
    row
}

/// The icon of a change's source, and the source in words.
fn source_icon(event: &Event) -> (&'static str, String) {
    if event.setting == Setting::Recording {
        return (icons::RECORDING, gettext("Recording"));
    }
    match event.source {
        Source::Process => (icons::PROCESS, gettext("A program or service")),
        Source::Kernel => (icons::KERNEL, gettext("The kernel")),
        Source::Daemon => (icons::DAEMON, gettext("The profile daemon")),
        Source::Pacer => (icons::PACER, gettext("Pacer")),
        Source::Unknown => (icons::UNKNOWN, gettext("Not seen as a write")),
    }
}

/// A heading above the first row of each minute.
fn minute_heading(row: &gtk::ListBoxRow, before: Option<&gtk::ListBoxRow>) {
    let minute = row.widget_name();
    if before.is_some_and(|before| before.widget_name() == minute) {
        row.set_header(None::<&gtk::Widget>);
        return;
    }
    let heading = gtk::Label::builder()
        .label(minute.as_str())
        .xalign(0.0)
        .margin_start(12)
        .margin_top(6)
        .margin_bottom(6)
        .css_classes(["heading", "dim-label"])
        .build();
    row.set_header(Some(&heading));
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn strings(items: &[String]) -> gtk::StringList {
    let refs: Vec<&str> = items.iter().map(String::as_str).collect();
    gtk::StringList::new(&refs)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use pacer_core::history::Writer;

    use super::*;

    fn event(id: u64, setting: Setting, policy: u32, source: Source, at_ms: u64) -> Event {
        Event {
            id,
            time: UNIX_EPOCH + Duration::from_millis(1_796_355_607_000 + at_ms),
            monotonic_ms: at_ms,
            setting,
            policies: vec![policy],
            old: Some("performance".into()),
            new: "powersave".into(),
            source,
            process: (source == Source::Pacer).then(|| Writer {
                pid: 7,
                comm: Some("pacerctl".into()),
                exe: None,
                unit: None,
                uid: Some(1000),
            }),
            cause: (source == Source::Kernel).then_some(id - 1),
            hold: None,
        }
    }

    #[test]
    fn one_requests_writes_and_the_kernels_answers_are_one_row_each() {
        // A governor written on four policies, the kernel answering each with an EPP.
        let mut events = Vec::new();
        for policy in 0..4 {
            let id = u64::from(policy) * 2 + 1;
            events.push(event(id, Setting::Governor, policy, Source::Pacer, id));
            events.push(event(id + 1, Setting::Epp, policy, Source::Kernel, id + 1));
        }
        // The same write again three seconds on is another request.
        events.push(event(9, Setting::Governor, 0, Source::Pacer, 3_000));
        let groups = grouped(events.iter().rev());
        let seen: Vec<(Setting, Vec<u32>)> = groups
            .iter()
            .map(|g| (g.setting, g.policies.clone()))
            .collect();
        assert_eq!(
            seen,
            [
                (Setting::Governor, vec![0]),
                (Setting::Epp, vec![0, 1, 2, 3]),
                (Setting::Governor, vec![0, 1, 2, 3]),
            ]
        );
    }
}

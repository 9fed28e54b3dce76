// SPDX-License-Identifier: GPL-3.0-or-later
//! The main window: the banner, and the Overview, CPUs, Measure and History pages under a view
//! switcher that moves to the bottom on narrow screens. It owns the background loops that
//! read the machine, finds the helper, and carries out the changes the pages ask for.
//!
//! Longer than most files: it is the one component that wires every page, the tray, the
//! helper and the two loops together; its frame (shortcuts, visibility) is in `chrome`.

use std::sync::Arc;
use std::time::Duration;

use pacer_core::history::{Event, Setting};
use pacer_core::i18n::gettext;
use pacer_core::machine::Snapshot;
use pacer_core::status::Status;
use relm4::gtk::{gio, glib};
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::app::application;
use crate::app::machine::{Machine, OFFERED_MODEL};
use crate::app::settings;
use crate::data::change::{self, Change, ChangeError};
use crate::data::feed::{self, FeedControl, FeedEvent};
use crate::data::helper::{self, HelperLink, OwnHelper, Wanted};
use crate::data::request::{Page, Request};
use crate::desktop::background::{Background, BackgroundEvent, BackgroundPart};
use crate::desktop::session_state::SessionState;
use crate::desktop::state_bus::StateBus;
use crate::pages::cpus::{CpusMsg, CpusPage};
use crate::pages::history::{grouped, HistoryMsg, HistoryPage};
use crate::pages::measure::{MeasureEvent, MeasureMsg, MeasurePage};
use crate::pages::overview::{OverviewInit, OverviewMsg, OverviewPage};
use crate::widgets::a11y::labelled;
use crate::widgets::banner::{notices, Banner, BannerFacts, BannerMsg, NoticeAction};
use crate::widgets::icons;
use crate::widgets::plot::{FrequencyMarks, FrequencyPlot, PlotChange, TracedCpu};
use crate::words;
use crate::words::said::Said;
use crate::words::why::said;

mod chrome;

use chrome::{add_shortcuts, log_first_frame, scrolled, watch_visibility};

/// Sixty seconds of history at the fastest rate offered.
const HISTORY_SECONDS: u32 = 60;
/// How often the per-core-type summary beside the plot is rewritten.
const SUMMARY_PERIOD: Duration = Duration::from_secs(1);

/// How many recent changes the banner looks through for a finding's cause.
const RECORDED_KEPT: usize = 500;

/// How long a toast shows (libadwaita's own default).
const TOAST_SECONDS: u32 = 5;
/// How long a toast that explains a refusal or a missing part shows: a sentence to read.
const PROBLEM_TOAST_SECONDS: u32 = 8;

#[derive(Debug)]
pub struct WindowInit {
    pub machine: Machine,
    /// The frequency plot's sampling period.
    pub period: Duration,
    /// Started with `--background`: the tray only, and closing the window keeps Pacer.
    pub background: bool,
    /// `None` where the schema is not installed (said once at start).
    pub settings: Option<gio::Settings>,
}

#[derive(Debug)]
pub struct Window {
    machine: Machine,
    period: Duration,
    control: Arc<FeedControl>,
    status: Option<Arc<Status>>,
    /// `None` while the helper is being looked for.
    helper: Option<HelperLink>,
    _own_helper: Option<OwnHelper>,
    plot: FrequencyPlot,
    plotted: Arc<[u32]>,
    /// When the summary beside the plot was last written (sampling time).
    summarised: Duration,
    banner: Controller<Banner>,
    overview: Controller<OverviewPage>,
    cpus: Controller<CpusPage>,
    measure: Controller<MeasurePage>,
    history: Controller<HistoryPage>,
    /// The changes recorded lately, oldest first: the findings' causes, and the findings
    /// only a recording shows (`Status::explain`).
    recorded: Vec<Event>,
    toasts: adw::ToastOverlay,
    stack: adw::ViewStack,
    tray_and_notifications: Background,
    /// What the tray and the session bus show.
    session: SessionState,
    /// Pacer's state on the session bus, where there is one.
    state_bus: Option<StateBus>,
    settings: Option<gio::Settings>,
}

#[derive(Debug)]
pub enum WindowMsg {
    Change(Change),
    Notice(NoticeAction),
    /// Whether anyone can see the window (mapped and not minimised).
    Watched(bool),
    /// Something to say in passing (from the Measure page).
    Toast(Said),
    /// Measure the ramp-up (the keyboard shortcut).
    Measure,
    /// Show the window (Pacer started again, the tray, a notification).
    Present,
    /// From the tray item and the notification server.
    Background(BackgroundEvent),
    /// The user turned on a part that works while the window is closed.
    BackgroundWanted(BackgroundPart),
    /// A measurement started or ended.
    Measuring(bool),
    /// Changes the History page received.
    Recorded(Vec<Event>),
}

#[derive(Debug)]
pub enum WindowCmd {
    Feed(FeedEvent),
    Helper(HelperLink, Option<OwnHelper>),
    /// The changes asked for were carried out, up to the first that failed.
    Changed(Vec<Change>, Result<(), (Change, ChangeError)>),
}

impl From<FeedEvent> for WindowCmd {
    fn from(event: FeedEvent) -> Self {
        WindowCmd::Feed(event)
    }
}

#[relm4::component(pub)]
impl Component for Window {
    type Init = WindowInit;
    type Input = WindowMsg;
    type Output = ();
    type CommandOutput = WindowCmd;

    view! {
        adw::ApplicationWindow {
            set_title: Some(&gettext("Pacer")),
            set_default_size: (900, 760),
            set_size_request: (360, 300),

            gtk::Box {
                set_orientation: gtk::Orientation::Vertical,

                #[name = "header"]
                adw::HeaderBar {
                    #[wrap(Some)]
                    #[name = "switcher_title"]
                    set_title_widget = &adw::ViewSwitcherTitle {
                        set_stack: Some(&stack),
                        set_title: &gettext("Pacer"),
                    },
                },

                #[local_ref]
                banner_widget -> gtk::Box {},

                #[local_ref]
                toasts -> adw::ToastOverlay {
                    set_vexpand: true,

                    #[name = "stack"]
                    adw::ViewStack {},
                },

                #[name = "switcher_bar"]
                adw::ViewSwitcherBar {
                    set_stack: Some(&stack),
                },
            },
        }
    }

    fn init(
        init: WindowInit,
        root: Self::Root,
        sender: ComponentSender<Self>,
    ) -> ComponentParts<Self> {
        let capacity = (HISTORY_SECONDS * 1_000_000 / init.period.as_micros().max(1) as u32).max(2);
        let plot = FrequencyPlot::new(Vec::new(), capacity as usize);
        let banner = Banner::builder()
            .launch(())
            .forward(sender.input_sender(), WindowMsg::Notice);
        let overview = OverviewPage::builder()
            .launch(OverviewInit { plot: plot.clone() })
            .forward(sender.input_sender(), WindowMsg::Change);
        let cpus = CpusPage::builder()
            .launch(())
            .forward(sender.input_sender(), WindowMsg::Change);
        let measure = MeasurePage::builder()
            .launch(init.machine.root().to_owned())
            .forward(sender.input_sender(), |event| match event {
                MeasureEvent::Say(said) => WindowMsg::Toast(said),
                MeasureEvent::Running(running) => WindowMsg::Measuring(running),
            });
        let history = HistoryPage::builder()
            .launch(())
            .forward(sender.input_sender(), WindowMsg::Recorded);
        let control = FeedControl::new(init.machine.root().to_owned(), init.period);
        // Nobody sees anything until the window is mapped (never, in the background).
        init.machine.set_pace(false, init.period);
        let settings = init.settings;
        let keep_running = init.background
            || settings
                .as_ref()
                .is_some_and(|s| s.boolean(settings::RUN_IN_BACKGROUND));
        // The state is followed while hidden only when something shows it: the tray (or
        // notifications).
        control.set_background(keep_running);
        let (events, received) = relm4::channel::<BackgroundEvent>();
        let input = sender.input_sender().clone();
        relm4::spawn_local(async move {
            while let Some(event) = received.recv().await {
                input.emit(WindowMsg::Background(event));
            }
        });
        let tray_and_notifications = Background::start(init.machine.root(), events);
        // Callers on the session bus ask what the tray can.
        let state_bus = application::state_bus();
        if let Some(bus) = &state_bus {
            bus.connect(tray_and_notifications.requests());
        }
        let model = Window {
            period: init.period,
            control: Arc::clone(&control),
            status: None,
            helper: None,
            _own_helper: None,
            plot,
            plotted: Arc::from([]),
            summarised: Duration::ZERO,
            banner,
            overview,
            cpus,
            measure,
            history,
            recorded: Vec::new(),
            toasts: adw::ToastOverlay::new(),
            stack: adw::ViewStack::new(),
            tray_and_notifications,
            session: SessionState::default(),
            state_bus,
            settings,
            machine: init.machine,
        };
        let toasts = &model.toasts;
        let banner_widget = model.banner.widget();
        let widgets = view_output!();

        let stack = &widgets.stack;
        let pages = [
            (
                model.overview.widget().clone().upcast::<gtk::Widget>(),
                Page::Overview,
                gettext("Overview"),
                icons::OVERVIEW,
            ),
            (
                model.cpus.widget().clone().upcast(),
                Page::Cpus,
                gettext("CPUs"),
                icons::CPUS,
            ),
            (
                model.measure.widget().clone().upcast(),
                Page::Measure,
                gettext("Measure"),
                icons::MEASURE,
            ),
            (
                model.history.widget().clone().upcast(),
                Page::History,
                gettext("History"),
                icons::HISTORY,
            ),
        ];
        for (widget, page, title, icon) in pages {
            stack
                .add_titled(&scrolled(&widget), Some(page.name()), &title)
                .set_icon_name(Some(icon));
        }
        // The window opens on the page it showed last.
        if let Some(settings) = &model.settings {
            settings
                .bind(settings::LAST_PAGE, stack, "visible-child-name")
                .build();
        }
        // Narrow windows: the switcher moves from the header bar to the bottom.
        widgets
            .switcher_title
            .bind_property("title-visible", &widgets.switcher_bar, "reveal")
            .sync_create()
            .build();

        let input = sender.input_sender().clone();
        add_shortcuts(&root, stack, move || input.emit(WindowMsg::Measure));
        let mut model = model;
        model.stack = stack.clone();
        model.add_menu(&widgets.header, &sender);
        model.keep_in_background(&root, init.background);
        // Activated again when Pacer is started while it runs: show the window then. The
        // first activation is this start, shown (or not) above.
        let input = sender.input_sender().clone();
        let started = std::cell::Cell::new(false);
        relm4::main_application().connect_activate(move |_| {
            if started.replace(true) {
                input.emit(WindowMsg::Present);
            }
        });
        let input = sender.input_sender().clone();
        watch_visibility(&root, move |seen| input.emit(WindowMsg::Watched(seen)));
        log_first_frame(&root);

        // Both loops end with the window: relm4 drops them when the component shuts down.
        let looping = Arc::clone(&control);
        sender.command(move |out, shutdown| {
            shutdown
                .register(feed::status_loop(looping, out))
                .drop_on_shutdown()
        });
        sender.command(move |out, shutdown| {
            shutdown
                .register(feed::frequency_loop(control, out))
                .drop_on_shutdown()
        });
        model.find_helper(&sender);
        // Last: showing realizes the window, and the handlers above must see that.
        if !init.background {
            root.present();
        }

        ComponentParts { model, widgets }
    }

    fn update(&mut self, message: WindowMsg, sender: ComponentSender<Self>, root: &Self::Root) {
        match message {
            WindowMsg::Change(change) => self.carry_out(vec![change], &sender),
            WindowMsg::Notice(NoticeAction::Fix(action)) => {
                self.carry_out(Change::steps_of(&action), &sender);
            }
            WindowMsg::Notice(NoticeAction::Simulate) => self.simulate(&sender),
            WindowMsg::Watched(watched) => {
                if self.control.set_watched(watched) {
                    self.pace_the_machine();
                    let what = if watched {
                        "sampling started"
                    } else {
                        "sampling stopped"
                    };
                    glib::g_debug!("pacer", "{what}");
                }
            }
            WindowMsg::Toast(said) => self.show_toast(&said, TOAST_SECONDS, root),
            WindowMsg::Measuring(measuring) => {
                self.show_on_bus(|state| state.measuring = measuring)
            }
            WindowMsg::Measure => self.measure.emit(MeasureMsg::Measure),
            WindowMsg::Recorded(events) => {
                self.recorded.extend(events);
                let excess = self.recorded.len().saturating_sub(RECORDED_KEPT);
                self.recorded.drain(..excess);
                self.plot.set_changes(plot_changes(&self.recorded));
                self.show_banner();
            }
            WindowMsg::Present => root.present(),
            WindowMsg::Background(event) => self.background_event(event, root, &sender),
            WindowMsg::BackgroundWanted(part) => {
                // Said where it is turned on: a closed window would otherwise seem to
                // vanish, or warnings to go unannounced, without a word.
                if let Some(said) = self.tray_and_notifications.problem(part) {
                    self.show_toast(&said, PROBLEM_TOAST_SECONDS, root);
                }
            }
        }
    }

    fn update_cmd(&mut self, command: WindowCmd, sender: ComponentSender<Self>, root: &Self::Root) {
        match command {
            WindowCmd::Feed(FeedEvent::Status(Ok(status))) => self.show_status(status),
            WindowCmd::Feed(FeedEvent::Status(Err(error))) => {
                let said = Said {
                    text: gettext("Cannot read the CPU state; the last reading stays shown"),
                    detail: Some(error.to_string()),
                };
                self.show_toast(&said, TOAST_SECONDS, root);
            }
            WindowCmd::Feed(FeedEvent::Frequencies { at, cpus, khz }) => {
                if cpus != self.plotted {
                    self.plot.reset(self.traced(&cpus));
                    self.plotted = cpus;
                }
                self.plot.push(at, &khz);
                // Text that changes ten times a second cannot be read, and relaying it out
                // costs: once a second.
                if at.saturating_sub(self.summarised) >= SUMMARY_PERIOD {
                    self.summarised = at;
                    let summary = self.plot.summary();
                    self.show_on_bus(|state| state.set_frequencies(&summary));
                    self.overview.emit(OverviewMsg::Summary(summary));
                }
            }
            WindowCmd::Helper(link, own) => {
                let editable = matches!(link, HelperLink::Ready(_));
                self.overview.emit(OverviewMsg::Editable(editable));
                self.cpus.emit(CpusMsg::Editable(editable));
                if let HelperLink::Ready(proxy) = &link {
                    self.measure.emit(MeasureMsg::Helper(Some(proxy.clone())));
                    self.history.emit(HistoryMsg::Helper(proxy.clone()));
                }
                self.helper = Some(link);
                self._own_helper = own;
                self.show_banner();
            }
            WindowCmd::Changed(changes, result) => {
                self.control.refresh();
                match result {
                    Ok(()) => {
                        if changes.iter().any(Change::needs_helper) || changes.len() > 1 {
                            self.toasts.add_toast(adw::Toast::new(&gettext("Done")));
                        }
                    }
                    Err((change, error)) => {
                        if let Change::Governor { policies, .. } | Change::Epp { policies, .. } =
                            &change
                        {
                            let mut message = error.said.text.clone();
                            if error.kernel_busy && matches!(change, Change::Epp { .. }) {
                                message.push('\n');
                                message.push_str(&gettext("The performance governor holds EPP at performance: choose the powersave governor for these cores first."));
                            }
                            self.cpus.emit(CpusMsg::Refused {
                                policies: policies.clone(),
                                message,
                            });
                        }
                        // A refusal stays a little longer than other news.
                        self.show_toast(&error.said, PROBLEM_TOAST_SECONDS, root);
                    }
                }
                let _ = sender;
            }
        }
    }
}

impl Window {
    /// What the window says in passing, the one way it says it: a toast in words for
    /// `seconds`, with the technical detail (when there is one) behind its "Details" button,
    /// which gets time to be pressed.
    fn show_toast(&self, said: &Said, seconds: u32, root: &adw::ApplicationWindow) {
        glib::g_debug!("pacer", "toast: {}", said.text);
        let toast = adw::Toast::new(&said.text);
        toast.set_timeout(seconds);
        if let Some(detail) = &said.detail {
            toast.set_timeout(seconds.max(8));
            toast.set_button_label(Some(&gettext("Details")));
            let (text, detail, window) = (said.text.clone(), detail.clone(), root.clone());
            toast.connect_button_clicked(move |_| {
                let dialog = adw::MessageDialog::new(Some(&window), Some(&text), Some(&detail));
                dialog.add_response("close", &gettext("Close"));
                dialog.present();
            });
        }
        self.toasts.add_toast(toast);
    }

    fn find_helper(&self, sender: &ComponentSender<Self>) {
        let wanted = Wanted {
            simulated: self.machine.is_simulated(),
            root: self.machine.root().to_owned(),
            model: self.machine.model().map(str::to_owned),
        };
        sender.oneshot_command(async move {
            let (link, own) = helper::find(&wanted).await;
            WindowCmd::Helper(link, own)
        });
    }

    /// The CPUs to plot, with their core types from the latest state.
    fn traced(&self, cpus: &[u32]) -> Vec<TracedCpu> {
        cpus.iter()
            .map(|&id| TracedCpu {
                id,
                core_type: self
                    .status
                    .as_ref()
                    .and_then(|status| status.snapshot.cpu(id)?.core_type),
            })
            .collect()
    }

    fn show_status(&mut self, status: Arc<Status>) {
        // What only the recording shows, and each finding's cause.
        let status = if self.recorded.is_empty() {
            status
        } else {
            let mut explained = Arc::unwrap_or_clone(status);
            explained.explain(&self.recorded);
            Arc::new(explained)
        };
        let notify = self
            .settings
            .as_ref()
            .is_none_or(|s| s.boolean(settings::NOTIFY_FINDINGS));
        let helper_present = !matches!(self.helper, Some(HelperLink::Missing(_)));
        let session = SessionState::of(&status, helper_present, &self.session);
        self.tray_and_notifications
            .show(&session, &status, helper_present, notify);
        self.show_on_bus(|state| *state = session);
        let types_known = self.status.as_ref().map(|s| core_types(&s.snapshot));
        if types_known != Some(core_types(&status.snapshot)) {
            self.plot.set_marks(marks(&status.snapshot));
        }
        self.overview.emit(OverviewMsg::Status(Arc::clone(&status)));
        self.cpus.emit(CpusMsg::Status(Arc::clone(&status)));
        self.measure.emit(MeasureMsg::Status(Arc::clone(&status)));
        self.history.emit(HistoryMsg::Status(Arc::clone(&status)));
        let first = self.status.is_none();
        self.status = Some(status);
        if first {
            // Core types arrived after the first samples: colour the lines.
            let plotted = Arc::clone(&self.plotted);
            self.plot.reset(self.traced(&plotted));
        }
        self.show_banner();
    }

    /// Changes the session's state by `change`, and shows it on the bus.
    fn show_on_bus(&mut self, change: impl FnOnce(&mut SessionState)) {
        change(&mut self.session);
        if let Some(bus) = &self.state_bus {
            bus.show(self.session.clone());
        }
    }

    fn show_banner(&self) {
        let read_only = match &self.helper {
            Some(HelperLink::Missing(why)) => Some(words::helper::read_only(why)),
            _ => None,
        };
        // A tree read with --sysfs-root alone may hold a simulated machine too.
        let simulated = self.machine.model_description().or_else(|| {
            self.status
                .as_ref()
                .filter(|status| status.snapshot.simulated)
                .map(|_| gettext("A simulated machine"))
        });
        let facts = BannerFacts {
            status: self.status.as_deref(),
            read_only: read_only.as_deref(),
            simulated: simulated.as_deref(),
        };
        self.banner.emit(BannerMsg::Show(notices(&facts)));
    }

    fn carry_out(&self, changes: Vec<Change>, sender: &ComponentSender<Self>) {
        if changes.is_empty() {
            return;
        }
        let helper = match &self.helper {
            Some(HelperLink::Ready(proxy)) => Some(proxy.clone()),
            _ => None,
        };
        let profile = self.status.as_ref().and_then(|s| s.profile.clone());
        let all: Vec<u32> = self
            .status
            .as_ref()
            .map(|s| {
                s.snapshot
                    .policies
                    .iter()
                    .filter(|p| p.is_active())
                    .map(|p| p.id)
                    .collect()
            })
            .unwrap_or_default();
        sender.oneshot_command(async move {
            for step in &changes {
                if let Err(error) =
                    change::apply(step, helper.as_ref(), profile.as_ref(), &all).await
                {
                    let failed = step.clone();
                    return WindowCmd::Changed(changes, Err((failed, error)));
                }
            }
            WindowCmd::Changed(changes, Ok(()))
        });
    }

    /// Hands what the tray item or the notification server said to the background part,
    /// and does what they ask.
    fn background_event(
        &mut self,
        event: BackgroundEvent,
        root: &adw::ApplicationWindow,
        sender: &ComponentSender<Self>,
    ) {
        let background = &mut self.tray_and_notifications;
        match event {
            BackgroundEvent::Request(request) => self.follow(request, root, sender),
            BackgroundEvent::TrayStarted(started) => background.tray_started(started),
            BackgroundEvent::NotificationsReady(ready) => background.notifications_ready(ready),
            BackgroundEvent::Notified(sent, fix) => background.notified(sent, fix),
            BackgroundEvent::NotificationAction(id, key) => {
                if let Some(request) = background.action(id, &key) {
                    self.follow(request, root, sender);
                }
            }
        }
    }

    /// Does what the tray (or a notification) asks.
    fn follow(
        &mut self,
        request: Request,
        root: &adw::ApplicationWindow,
        sender: &ComponentSender<Self>,
    ) {
        match request {
            Request::Change(change) => self.carry_out(vec![change], sender),
            Request::Fix(action) => self.carry_out(Change::steps_of(&action), sender),
            Request::Show(page) => {
                if let Some(page) = page {
                    self.stack.set_visible_child_name(page.name());
                }
                root.present();
            }
            Request::Measure => {
                root.present();
                self.stack.set_visible_child_name(Page::Measure.name());
                self.measure.emit(MeasureMsg::Measure);
            }
            Request::FollowFrequencies(listened) => {
                if self.control.set_listened(listened) {
                    let what = if listened {
                        "frequencies followed on the session bus"
                    } else {
                        "frequencies no longer followed on the session bus"
                    };
                    glib::g_debug!("pacer", "{what}");
                    self.pace_the_machine();
                }
            }
            Request::Quit => relm4::main_application().quit(),
        }
    }

    /// A simulated machine moves only while someone sees its frequencies, at their pace.
    fn pace_the_machine(&self) {
        self.machine
            .set_pace(self.control.sampled(), self.control.sampling_period());
    }

    /// The primary menu: the background settings (when the settings schema is installed).
    fn add_menu(&self, header: &adw::HeaderBar, sender: &ComponentSender<Self>) {
        let Some(settings) = &self.settings else {
            return;
        };
        for (key, part) in [
            (settings::RUN_IN_BACKGROUND, BackgroundPart::Tray),
            (settings::NOTIFY_FINDINGS, BackgroundPart::Notifications),
        ] {
            let input = sender.input_sender().clone();
            settings.connect_changed(Some(key), move |settings, key| {
                if settings.boolean(key) {
                    input.emit(WindowMsg::BackgroundWanted(part));
                }
            });
        }
        let actions = gio::SimpleActionGroup::new();
        actions.add_action(&settings.create_action(settings::RUN_IN_BACKGROUND));
        actions.add_action(&settings.create_action(settings::NOTIFY_FINDINGS));
        if let Some(window) = header.root() {
            window.insert_action_group("settings", Some(&actions));
        }
        let menu = gio::Menu::new();
        menu.append(
            Some(&gettext("Run in _Background")),
            Some(&format!("settings.{}", settings::RUN_IN_BACKGROUND)),
        );
        menu.append(
            Some(&gettext("_Notify About Warnings")),
            Some(&format!("settings.{}", settings::NOTIFY_FINDINGS)),
        );
        // GTK 4.8 gives an icon's menu button no name a screen reader could speak.
        let button: gtk::MenuButton = labelled(&gettext("Main Menu"));
        button.set_icon_name(icons::MAIN_MENU);
        button.set_menu_model(Some(&menu));
        button.set_tooltip_text(Some(&gettext("Main Menu")));
        button.set_primary(true);
        header.pack_end(&button);
    }

    /// Closing the window hides it while Pacer is to run in the background (started so, or
    /// the setting on): the tray and notifications go on.
    fn keep_in_background(&self, root: &adw::ApplicationWindow, started_in_background: bool) {
        let settings = self.settings.clone();
        let control = Arc::clone(&self.control);
        root.connect_close_request(move |window| {
            let keep = started_in_background
                || settings
                    .as_ref()
                    .is_some_and(|s| s.boolean(settings::RUN_IN_BACKGROUND));
            control.set_background(keep);
            if keep {
                window.set_visible(false);
                glib::Propagation::Stop
            } else {
                glib::Propagation::Proceed
            }
        });
    }

    /// Switches to the simulated laptop (offered where this computer has no cpufreq).
    fn simulate(&mut self, sender: &ComponentSender<Self>) {
        match Machine::choose(None, Some(OFFERED_MODEL), self.period) {
            Ok(machine) => {
                self.machine = machine;
                self.status = None;
                self.helper = None;
                self._own_helper = None;
                self.control.switch_root(self.machine.root().to_owned());
                self.measure
                    .emit(MeasureMsg::Root(self.machine.root().to_owned()));
                self.find_helper(sender);
            }
            Err(error) => self.toasts.add_toast(adw::Toast::new(&error.to_string())),
        }
    }
}

/// The changes of `recorded` (oldest first) that the live plot's minute may show, one per
/// request as the History page groups them; the recording's own start and stop are no change.
fn plot_changes(recorded: &[Event]) -> Vec<PlotChange> {
    let shown_since = std::time::SystemTime::now() - Duration::from_secs(HISTORY_SECONDS.into());
    let recent = recorded
        .iter()
        .rev()
        .take_while(|event| event.time >= shown_since)
        .filter(|event| event.setting != Setting::Recording);
    grouped(recent)
        .iter()
        .map(|event| PlotChange {
            time: event.time,
            text: said(event),
        })
        .collect()
}

fn core_types(snapshot: &Snapshot) -> Vec<(u32, Option<pacer_core::values::CoreType>)> {
    snapshot.cpus.iter().map(|c| (c.id, c.core_type)).collect()
}

/// The lowest, base and highest frequency of each core type, for the plot.
fn marks(snapshot: &Snapshot) -> Vec<FrequencyMarks> {
    let mut marks: Vec<FrequencyMarks> = Vec::new();
    for policy in snapshot.policies.iter().filter(|p| p.is_active()) {
        if marks.iter().any(|m| m.core_type == policy.core_type) {
            continue;
        }
        marks.push(FrequencyMarks {
            core_type: policy.core_type,
            min_khz: policy.hw_min_khz.map(|k| k.0),
            base_khz: policy.base_khz.map(|k| k.0),
            max_khz: policy.hw_max_khz.map(|k| k.0),
        });
    }
    marks
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! The main window, a frame: the banner, a "Simulated" tag in the header bar where the
//! machine is a model, and the Overview, CPUs, Measure and History pages under a view
//! switcher that moves to the bottom on narrow screens. It starts the loops
//! that read the machine and follow the helper's recording, and routes what they bring and
//! what the pages ask between them. By concern, in the files beside this one: the pages
//! (`pages`), what it shows of the machine as it changes (`live`), the changes it carries
//! out (`changes`), what reaches it from the tray and the session bus (`outside`), its
//! menu (`menu`), its toasts (`toast`), its view switcher (`switcher`), its "Simulated" tag
//! (`tag`) and its frame (`chrome`); what reaches it, as messages (`messages`).

use std::sync::Arc;
use std::time::Duration;

use pacer_core::i18n::gettext;
use pacer_core::status::Status;
use relm4::gtk::gio;
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::app::application;
use crate::app::machine::Machine;
use crate::app::settings;
use crate::data::change::Change;
use crate::data::feed::{self, FeedControl, FeedEvent};
use crate::data::helper::{HelperLink, OwnHelper};
use crate::data::history::{HistoryEvent, Recent};
use crate::desktop::background::{Background, BackgroundEvent};
use crate::desktop::session_state::SessionState;
use crate::desktop::state_bus::StateBus;
use crate::pages::history::HistoryMsg;
use crate::pages::measure::MeasureMsg;
use crate::widgets::banner::{Banner, NoticeAction};
use crate::widgets::plot::FrequencyPlot;
use crate::words::said::Said;

mod changes;
mod chrome;
mod live;
mod menu;
mod messages;
mod outside;
mod pages;
mod switcher;
mod tag;
mod toast;

use chrome::{add_shortcuts, follow_the_frame};
pub use messages::{WindowCmd, WindowMsg};
use pages::Pages;
use switcher::add_switchers;
use tag::new_simulated_tag;

/// Sixty seconds of history at the fastest rate offered.
const HISTORY_SECONDS: u32 = 60;

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
    /// The helper's recording is followed (from the first helper found on).
    following_history: bool,
    /// The changes recorded lately: the findings' causes and the plot's marks.
    recent: Recent,
    plot: FrequencyPlot,
    plotted: Arc<[u32]>,
    /// When the summary beside the plot was last written (sampling time).
    summarised: Duration,
    banner: Controller<Banner>,
    /// The header bar's "Simulated" tag.
    simulated_tag: gtk::Button,
    pages: Pages,
    toasts: adw::ToastOverlay,
    stack: adw::ViewStack,
    tray_and_notifications: Background,
    /// What the tray and the session bus show.
    session: SessionState,
    /// Pacer's state on the session bus, where there is one.
    state_bus: Option<StateBus>,
    settings: Option<gio::Settings>,
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
                adw::HeaderBar {},

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
        let pages = Pages::launch(&plot, init.machine.root().to_owned(), sender.input_sender());
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
        let mut model = Window {
            period: init.period,
            control: Arc::clone(&control),
            status: None,
            helper: None,
            _own_helper: None,
            following_history: false,
            recent: Recent::default(),
            plot,
            plotted: Arc::from([]),
            summarised: Duration::ZERO,
            banner,
            simulated_tag: new_simulated_tag(),
            pages,
            toasts: adw::ToastOverlay::new(),
            stack: adw::ViewStack::new(),
            tray_and_notifications,
            session: SessionState::default(),
            state_bus,
            settings,
            machine: init.machine,
        };
        let toasts = &model.toasts.clone();
        let banner_widget = &model.banner.widget().clone();
        let widgets = view_output!();

        model.stack = widgets.stack.clone();
        model.pages.add_to(&model.stack);
        // The window opens on the page it showed last.
        if let Some(settings) = &model.settings {
            settings
                .bind(settings::LAST_PAGE, &model.stack, "visible-child-name")
                .build();
        }
        add_switchers(&root, &widgets.header, &widgets.switcher_bar, &model.stack);
        widgets.header.pack_start(&model.simulated_tag);
        let input = sender.input_sender().clone();
        add_shortcuts(&root, &model.stack, move || input.emit(WindowMsg::Measure));
        model.add_menu(&widgets.header, &sender);
        model.keep_in_background(&root, init.background);
        follow_the_frame(&root, sender.input_sender());

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
            WindowMsg::Notice(NoticeAction::Simulate) => self.simulate(&sender, root),
            WindowMsg::Watched(watched) => self.watched(watched),
            WindowMsg::Toast(said) => self.show_toast(&said, TOAST_SECONDS, root),
            WindowMsg::Measuring(measuring) => {
                self.show_on_bus(|state| state.measuring = measuring)
            }
            WindowMsg::Measure => self.pages.measure.emit(MeasureMsg::Measure),
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
                self.show_frequencies(at, cpus, &khz);
            }
            WindowCmd::Helper(link, own) => self.helper_found(link, own, &sender),
            WindowCmd::History(HistoryEvent::Recorded(events)) => {
                let new = self.record(events);
                self.pages.history.emit(HistoryMsg::Recorded(new));
            }
            WindowCmd::History(HistoryEvent::Unavailable(why)) => {
                self.pages.history.emit(HistoryMsg::Unavailable(why));
            }
            WindowCmd::Changed(changes, result) => self.changed(&changes, result, root),
        }
    }
}

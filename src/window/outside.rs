// SPDX-License-Identifier: GPL-3.0-or-later
//! What reaches the window from outside it: the tray item, the notification server and
//! callers on the session bus; what the window shows them back (its state on the bus); and
//! the pace of a simulated machine, which moves only while someone follows it.

use relm4::adw;
use relm4::gtk::glib;
use relm4::prelude::*;

use adw::prelude::*;

use super::Window;
use crate::data::change::Change;
use crate::data::request::{Page, Request};
use crate::desktop::background::BackgroundEvent;
use crate::desktop::session_state::SessionState;
use crate::pages::measure::MeasureMsg;

impl Window {
    /// Hands what the tray item or the notification server said to the background part,
    /// and does what they ask.
    pub(super) fn background_event(
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

    /// Does what the tray (or a notification, or a caller on the session bus) asks.
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
                self.pages.measure.emit(MeasureMsg::Measure);
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

    /// Whether anyone can see the window (mapped and not minimised).
    pub(super) fn watched(&mut self, watched: bool) {
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

    /// A simulated machine moves only while someone sees its frequencies, at their pace.
    fn pace_the_machine(&self) {
        self.machine
            .set_pace(self.control.sampled(), self.control.sampling_period());
    }

    /// Changes the session's state by `change`, and shows it on the bus.
    pub(super) fn show_on_bus(&mut self, change: impl FnOnce(&mut SessionState)) {
        change(&mut self.session);
        if let Some(bus) = &self.state_bus {
            bus.show(self.session.clone());
        }
    }
}

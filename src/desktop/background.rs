// SPDX-License-Identifier: GPL-3.0-or-later
//! What keeps Pacer useful without its window: the tray item and desktop notifications of
//! new warnings. Both are optional: without a StatusNotifierWatcher, a session bus or a
//! notification server there is one log line, the rest goes on, and the window says so when
//! the user turns on what cannot work ([`Background::problem`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use ksni::TrayMethods;
use pacer_core::findings::FixAction;
use pacer_core::i18n::gettext;
use pacer_core::status::Status;
use relm4::gtk::glib;
use relm4::Sender;

use crate::data::request::Request;
use crate::desktop::notify::{self, Announcements, NotificationsProxy, DEFAULT_ACTION, FIX_ACTION};
use crate::desktop::session_state::SessionState;
use crate::desktop::tray::{PacerTray, TrayHandle, TrayView};
use crate::words::said::Said;

/// What the tray item and the notification server tell the window (through the channel
/// given to [`Background::start`]; the window hands each back to [`Background`] or acts).
#[derive(Debug)]
pub enum BackgroundEvent {
    /// The tray item (or a notification's action) asks for something.
    Request(Request),
    /// The tray item, and whether no watcher has it yet.
    TrayStarted(Result<(TrayHandle, bool), ksni::Error>),
    /// The notification server, or why there is none (`None`: nothing on the session bus
    /// serves notifications).
    NotificationsReady(Result<NotificationsProxy<'static>, Option<zbus::Error>>),
    /// A notification was sent (its id), with the fix its action offers.
    Notified(Result<u32, zbus::Error>, Option<FixAction>),
    /// A notification's action was invoked: its id and action key.
    NotificationAction(u32, String),
}

/// The two parts that work while the window is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackgroundPart {
    /// The tray item, which brings the window back ("Run in Background").
    Tray,
    /// Desktop notifications of new warnings ("Notify About Warnings").
    Notifications,
}

/// How far a part got: not yet known, working (through `T`), or not there (with the
/// reason, where a library gave one).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part<T> {
    Starting,
    Ready(T),
    Missing(Option<String>),
}

impl<T> Part<T> {
    fn ready(&self) -> Option<&T> {
        match self {
            Part::Ready(working) => Some(working),
            Part::Starting | Part::Missing(_) => None,
        }
    }
}

/// How long the tray item waits for the first reading's view before it registers anyway.
const FIRST_VIEW_WAIT: Duration = Duration::from_secs(3);

#[derive(Debug)]
pub struct Background {
    events: Sender<BackgroundEvent>,
    /// Where the tray's requests go, to the window as events.
    requests: Sender<Request>,
    tray: Part<TrayHandle>,
    /// Where the first view goes, to the tray item waiting to register with it.
    first_view: Option<Sender<TrayView>>,
    /// Set while no StatusNotifierWatcher shows the item (the tray's own flag).
    tray_unseen: Arc<AtomicBool>,
    shown: TrayView,
    announcements: Announcements,
    notifications: Part<NotificationsProxy<'static>>,
    /// The fix each sent notification offers, by its id.
    fixes: BTreeMap<u32, FixAction>,
}

impl Background {
    /// Starts the tray item for the machine under `root`, and connects to the notification
    /// server; what they say comes back through `events`.
    pub fn start(root: &Path, events: Sender<BackgroundEvent>) -> Background {
        let (requests, received) = relm4::channel::<Request>();
        let forward = events.clone();
        relm4::spawn_local(async move {
            while let Some(request) = received.recv().await {
                forward.emit(BackgroundEvent::Request(request));
            }
        });
        let mut tray = PacerTray::new(root, requests.clone());
        let tray_unseen = tray.unseen_flag();
        let (first_view, first_view_received) = relm4::channel::<TrayView>();
        let answer = events.clone();
        relm4::spawn(async move {
            // Registered once it knows what it shows, the first reading's view (or Pacer's
            // gauge alone after FIRST_VIEW_WAIT without one): an item whose menu changed
            // its layout just after it registered (its profiles added) was shown with an
            // empty menu in 2 of 9 starts by GNOME Shell 48's AppIndicator extension (59),
            // which went on asking for the entries of the first layout.
            let first = tokio::time::timeout(FIRST_VIEW_WAIT, first_view_received.recv()).await;
            if let Ok(Some(view)) = first {
                tray.view = view;
            }
            // Served even while no watcher takes it: a panel may start after Pacer. Registered
            // by the connection's unique name, not a well-known name of its own: for such a
            // name GNOME's AppIndicator extension (46, Debian 12) races a watch on it against
            // its first reading of the item, and dropped the item in 3 of 10 starts ("Argument
            // two may not be null"). A Flatpak sandbox refuses that name anyway.
            let started = match tray
                .disable_dbus_name(true)
                .assume_sni_available(true)
                .spawn()
                .await
            {
                Ok(handle) => {
                    let unseen = handle.update(|tray| tray.unseen()).await.unwrap_or(true);
                    Ok((TrayHandle(Arc::new(handle)), unseen))
                }
                Err(error) => Err(error),
            };
            answer.emit(BackgroundEvent::TrayStarted(started));
        });
        let answer = events.clone();
        relm4::spawn(async move {
            let connected = async {
                let connection = zbus::Connection::session().await?;
                // A server may be running or be started on demand; with neither, say so once
                // rather than at every warning.
                let bus = zbus::fdo::DBusProxy::new(&connection).await?;
                let name = zbus::names::BusName::try_from(notify::SERVER)?;
                let running = bus.name_has_owner(name).await?;
                let startable = bus
                    .list_activatable_names()
                    .await?
                    .iter()
                    .any(|n| n.as_str() == notify::SERVER);
                if !running && !startable {
                    return Ok(None);
                }
                NotificationsProxy::new(&connection).await.map(Some)
            };
            let ready: zbus::Result<Option<NotificationsProxy<'static>>> = connected.await;
            answer.emit(BackgroundEvent::NotificationsReady(match ready {
                Ok(Some(proxy)) => Ok(proxy),
                Ok(None) => Err(None),
                Err(error) => Err(Some(error)),
            }));
        });
        Background {
            events,
            requests,
            tray: Part::Starting,
            first_view: Some(first_view),
            tray_unseen,
            shown: TrayView::default(),
            announcements: Announcements::default(),
            notifications: Part::Starting,
            fixes: BTreeMap::new(),
        }
    }

    /// Where others who ask what the tray can (callers on the session bus) send it, so that
    /// it reaches the window as the tray's requests do.
    pub fn requests(&self) -> Sender<Request> {
        self.requests.clone()
    }

    pub fn tray_started(&mut self, started: Result<(TrayHandle, bool), ksni::Error>) {
        match started {
            Ok((handle, unseen)) => {
                if !unseen {
                    glib::g_info!("pacer", "tray registered");
                }
                self.tray = Part::Ready(handle);
                self.update_tray();
            }
            Err(error) => {
                glib::g_message!("pacer", "no tray item: {}", error);
                self.tray = Part::Missing(Some(error.to_string()));
            }
        }
    }

    /// Why `part` cannot do its job on this desktop, in words for the user; `None` while it
    /// works or is still starting.
    pub fn problem(&self, part: BackgroundPart) -> Option<Said> {
        match part {
            BackgroundPart::Tray => {
                tray_problem(&self.tray, self.tray_unseen.load(Ordering::Relaxed))
            }
            BackgroundPart::Notifications => notifications_problem(&self.notifications),
        }
    }

    /// Follows the notification server's action signals (a fix, or a click). `Err(None)`:
    /// the session bus has no notification server, running or startable.
    pub fn notifications_ready(
        &mut self,
        ready: Result<NotificationsProxy<'static>, Option<zbus::Error>>,
    ) {
        let proxy = match ready {
            Ok(proxy) => proxy,
            Err(error) => {
                let detail = error.map(|error| error.to_string());
                glib::g_message!(
                    "pacer",
                    "no desktop notifications: {}",
                    detail
                        .as_deref()
                        .unwrap_or("no notification server on the session bus")
                );
                self.notifications = Part::Missing(detail);
                return;
            }
        };
        let listening = proxy.clone();
        let events = self.events.clone();
        relm4::spawn(async move {
            let Ok(mut actions) = listening.receive_action_invoked().await else {
                return;
            };
            while let Some(signal) = actions.next().await {
                if let Ok(args) = signal.args() {
                    events.emit(BackgroundEvent::NotificationAction(
                        args.id,
                        args.action_key.to_owned(),
                    ));
                }
            }
        });
        self.notifications = Part::Ready(proxy);
    }

    /// Shows the session's new `state`, from `status`, in the tray, and notifies about new
    /// warnings when `notify`.
    pub fn show(
        &mut self,
        state: &SessionState,
        status: &Status,
        helper_present: bool,
        notify: bool,
    ) {
        let view = TrayView::of(state, &status.snapshot);
        if view != self.shown {
            self.shown = view;
            match self.first_view.take() {
                // Past the wait, the item registers without it and takes the view shown
                // once it has started (`tray_started`).
                Some(first) => {
                    let _ = first.send(self.shown.clone());
                }
                None => self.update_tray(),
            }
        }
        let new = self.announcements.update(&status.findings);
        let Some(proxy) = self.notifications.ready().filter(|_| notify).cloned() else {
            return;
        };
        let profile = status.active_profile();
        for finding in new {
            let (summary, body, fix) = notify::message(finding, profile, helper_present);
            let proxy = proxy.clone();
            let events = self.events.clone();
            relm4::spawn(async move {
                let sent = notify::send(&proxy, &summary, &body, fix.is_some()).await;
                events.emit(BackgroundEvent::Notified(sent, fix));
            });
        }
    }

    pub fn notified(&mut self, sent: Result<u32, zbus::Error>, fix: Option<FixAction>) {
        match sent {
            Ok(id) => {
                glib::g_info!("pacer", "notification {} sent", id);
                if let Some(fix) = fix {
                    self.fixes.insert(id, fix);
                }
            }
            Err(error) => glib::g_message!("pacer", "notification not sent: {}", error),
        }
    }

    /// What a notification's action asks for: its fix, or the window.
    pub fn action(&self, id: u32, key: &str) -> Option<Request> {
        match key {
            FIX_ACTION => self.fixes.get(&id).cloned().map(Request::Fix),
            DEFAULT_ACTION => Some(Request::Show(None)),
            _ => None,
        }
    }

    fn update_tray(&self) {
        if let Some(handle) = self.tray.ready().cloned() {
            let view = self.shown.clone();
            relm4::spawn(async move {
                handle.0.update(move |tray| tray.view = view).await;
            });
        }
    }
}

/// What the user is told when the tray cannot bring the window back.
fn tray_problem<T>(state: &Part<T>, unseen: bool) -> Option<Said> {
    let words = || {
        gettext("Nothing on this desktop shows tray icons: with its window closed, Pacer runs on without an icon to open it again. Start Pacer again to open it.")
    };
    match state {
        Part::Starting => None,
        Part::Ready(_) => unseen.then(|| Said::plain(words())),
        Part::Missing(detail) => Some(Said {
            text: words(),
            detail: detail.clone(),
        }),
    }
}

/// What the user is told when warnings cannot be shown as notifications.
fn notifications_problem<T>(state: &Part<T>) -> Option<Said> {
    match state {
        Part::Starting | Part::Ready(_) => None,
        Part::Missing(detail) => Some(Said {
            text: gettext("Nothing on this desktop shows notifications: warnings are shown in the window and the tray only."),
            detail: detail.clone(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tray_nobody_shows_is_said_once_known() {
        assert_eq!(tray_problem(&Part::<()>::Starting, true), None);
        assert_eq!(tray_problem(&Part::Ready(()), false), None);
        let unseen = tray_problem(&Part::Ready(()), true).expect("said");
        assert!(unseen.text.contains("tray icons"), "{unseen:?}");
        assert_eq!(unseen.detail, None);
        let failed =
            tray_problem(&Part::<()>::Missing(Some("no session bus".into())), false).expect("said");
        // The library's message is the detail, never the words.
        assert!(!failed.text.contains("session bus"), "{failed:?}");
        assert_eq!(failed.detail.as_deref(), Some("no session bus"));
    }

    #[test]
    fn missing_notifications_are_said_with_the_reason_behind() {
        assert_eq!(notifications_problem(&Part::<()>::Starting), None);
        assert_eq!(notifications_problem(&Part::Ready(())), None);
        let none = notifications_problem(&Part::<()>::Missing(None)).expect("said");
        assert!(none.text.contains("notifications"), "{none:?}");
        assert_eq!(none.detail, None);
        let failed = notifications_problem(&Part::<()>::Missing(Some(
            "org.freedesktop.DBus.Error".into(),
        )))
        .expect("said");
        assert_eq!(failed.detail.as_deref(), Some("org.freedesktop.DBus.Error"));
    }
}

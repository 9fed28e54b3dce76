// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's state on the session bus (`io.github.pacerapp.Pacer.State1`, described in
//! `data/io.github.pacerapp.Pacer.State1.xml`), for the GNOME Shell extension and any other
//! view: exported on the application's own connection, so under its name, by whichever Pacer
//! runs (window or background). It shows a [`SessionState`]; what callers ask for goes back
//! to the window as its requests, once polkit has allowed the caller what would change
//! ([`caller`]).

mod caller;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use relm4::gtk::gio::{self, prelude::*};
use relm4::gtk::glib::{self, Variant};
use relm4::Sender;

use crate::data::request::Request;
use crate::desktop::session_state::{SessionState, INTERFACE};

pub const OBJECT_PATH: &str = "/io/github/pacerapp/Pacer";
const INTROSPECTION: &str = include_str!("../../data/io.github.pacerapp.Pacer.State1.xml");

/// The exported object: it answers from the state last shown, and hands what callers ask
/// for to the window once it is connected (until then, they wait). Clones share it.
#[derive(Debug, Clone)]
pub struct StateBus {
    connection: gio::DBusConnection,
    state: Rc<RefCell<SessionState>>,
    requests: Rc<RefCell<Requests>>,
    watchers: Rc<RefCell<Watchers>>,
    registration: Rc<RefCell<Option<gio::RegistrationId>>>,
}

/// The callers that watch the frequencies, each while it stays on the bus.
#[derive(Debug, Default)]
struct Watchers(HashMap<String, NameWatch>);

/// Watching a caller's name on the bus, until unwatched.
struct NameWatch(Box<dyn FnOnce()>);

impl NameWatch {
    fn unwatch(self) {
        (self.0)();
    }
}

impl std::fmt::Debug for NameWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NameWatch")
    }
}

/// Where callers' requests go.
#[derive(Debug)]
enum Requests {
    /// To no one yet: the window is not made (a call that started Pacer arrives first).
    Waiting(Vec<Request>),
    To(Sender<Request>),
}

impl Requests {
    fn hand_on(&mut self, request: Request) {
        match self {
            Requests::Waiting(waiting) => waiting.push(request),
            Requests::To(window) => window.emit(request),
        }
    }
}

impl StateBus {
    /// Exports an empty state on `connection`.
    pub fn register(connection: gio::DBusConnection) -> Result<StateBus, glib::Error> {
        let node = gio::DBusNodeInfo::for_xml(INTROSPECTION)?;
        let interface = node.lookup_interface(INTERFACE).ok_or_else(|| {
            glib::Error::new(
                gio::IOErrorEnum::InvalidData,
                "the interface XML lacks State1",
            )
        })?;
        let state: Rc<RefCell<SessionState>> = Rc::default();
        let requests = Rc::new(RefCell::new(Requests::Waiting(Vec::new())));
        let watchers: Rc<RefCell<Watchers>> = Rc::default();
        let (answers, asked, handed) = (Rc::clone(&state), Rc::clone(&state), Rc::clone(&requests));
        let watching = Rc::clone(&watchers);
        let registration = connection
            .register_object(OBJECT_PATH, &interface)
            .method_call(
                move |connection, sender, _, _, method, parameters, invocation| {
                    // Following the frequencies changes no setting: Pacer samples them for
                    // the caller while it stays on the bus. No polkit question.
                    if method == "WatchFrequencies" {
                        let watch = parameters.child_get::<bool>(0);
                        watch_frequencies(&connection, &watching, &handed, sender, watch);
                        invocation.return_value(None);
                        return;
                    }
                    // Validated first, as the helper does: a value the state does not offer
                    // is refused before polkit is asked.
                    match asked.borrow().request(method, &parameters) {
                        Ok(request) => {
                            let questions = caller::questions(&request);
                            if questions.is_empty() {
                                // Showing the window or measuring changes no setting
                                // (`caller::questions` says why each needs no polkit).
                                handed.borrow_mut().hand_on(request);
                                invocation.return_value(None);
                            } else {
                                // Answered once polkit has decided, from the main loop.
                                let call = Authorising {
                                    invocation,
                                    request,
                                    questions,
                                };
                                let (state, requests) = (Rc::clone(&asked), Rc::clone(&handed));
                                relm4::spawn_local(call.then_hand_on(state, requests));
                            }
                        }
                        Err(refusal) => {
                            invocation.return_dbus_error(&refusal.name(), &refusal.message());
                        }
                    }
                },
            )
            .property(move |_, _, _, _, name| {
                answers
                    .borrow()
                    .property(name)
                    .unwrap_or_else(|| false.to_variant())
            })
            .build()?;
        Ok(StateBus {
            connection,
            state,
            requests,
            watchers,
            registration: Rc::new(RefCell::new(Some(registration))),
        })
    }

    /// Sends callers' requests to `window` from now on, with those that waited for it.
    pub fn connect(&self, window: Sender<Request>) {
        let before = self.requests.replace(Requests::To(window.clone()));
        if let Requests::Waiting(waiting) = before {
            for request in waiting {
                window.emit(request);
            }
        }
    }

    /// Takes the object off the bus (the application leaves it).
    pub fn unexport(&self) {
        for (_, watch) in self.watchers.borrow_mut().0.drain() {
            watch.unwatch();
        }
        if let Some(registration) = self.registration.take() {
            if let Err(error) = self.connection.unregister_object(registration) {
                glib::g_warning!("pacer", "cannot take Pacer's state off the bus: {}", error);
            }
        }
    }

    /// Shows `new`, announcing each property that changed.
    pub fn show(&self, new: SessionState) {
        let old = self.state.replace(new);
        let state = self.state.borrow();
        let changed = glib::VariantDict::new(None);
        let mut any = false;
        for name in PROPERTIES {
            if let (Some(value), previous) = (state.property(name), old.property(name)) {
                if previous.as_ref() != Some(&value) {
                    changed.insert_value(name, &value);
                    any = true;
                }
            }
        }
        if !any {
            return;
        }
        let invalidated: Vec<String> = Vec::new();
        // (sa{sv}as): a tuple of Rust values would box the dictionary as a variant, which
        // clients such as GDBusProxy drop.
        let body = Variant::tuple_from_iter([
            INTERFACE.to_variant(),
            changed.end(),
            invalidated.to_variant(),
        ]);
        if let Err(error) = self.connection.emit_signal(
            None,
            OBJECT_PATH,
            "org.freedesktop.DBus.Properties",
            "PropertiesChanged",
            Some(&body),
        ) {
            glib::g_warning!("pacer", "cannot announce Pacer's new state: {}", error);
        }
    }
}

/// A call that changes a setting, waiting for polkit's verdict on its caller.
struct Authorising {
    invocation: gio::DBusMethodInvocation,
    /// What the call asked for, validated against the state when it came.
    request: Request,
    questions: Vec<caller::Question>,
}

impl Authorising {
    /// Asks polkit about the caller, then hands the request on and answers the call, or
    /// answers why not; nothing is handed on without polkit's yes.
    async fn then_hand_on(self, state: Rc<RefCell<SessionState>>, requests: Rc<RefCell<Requests>>) {
        let Authorising {
            invocation,
            request,
            questions,
        } = self;
        let interactive = invocation
            .message()
            .flags()
            .contains(gio::DBusMessageFlags::ALLOW_INTERACTIVE_AUTHORIZATION);
        let sender = invocation.sender();
        let verdict = caller::authorise(
            &invocation.connection(),
            sender.as_deref(),
            questions,
            interactive,
        )
        .await;
        // The state may have moved while polkit decided. The request polkit was asked about
        // goes on only if the state still gives it, so what is carried out is both allowed
        // (never a newer fix polkit was not asked about) and still due (not a fix done
        // meanwhile).
        let answer = verdict.and_then(|()| {
            state
                .borrow()
                .confirm(&invocation.method_name(), &invocation.parameters(), request)
        });
        match answer {
            Ok(request) => {
                requests.borrow_mut().hand_on(request);
                invocation.return_value(None);
            }
            Err(refusal) => {
                glib::g_debug!("pacer", "State1 refused: {}", refusal.message());
                invocation.return_dbus_error(&refusal.name(), &refusal.message());
            }
        }
    }
}

/// Counts `sender` among the frequencies' watchers while `watch` and it stays on the bus,
/// telling the window when the first comes or the last goes.
fn watch_frequencies(
    connection: &gio::DBusConnection,
    watchers: &Rc<RefCell<Watchers>>,
    requests: &Rc<RefCell<Requests>>,
    sender: Option<&str>,
    watch: bool,
) {
    // A peer-to-peer caller has no name to watch; the bus always gives one.
    let Some(sender) = sender else {
        return;
    };
    let before = !watchers.borrow().0.is_empty();
    if watch {
        if watchers.borrow().0.contains_key(sender) {
            return;
        }
        let (gone, told) = (Rc::clone(watchers), Rc::clone(requests));
        let watcher = gio::bus_watch_name_on_connection(
            connection,
            sender,
            gio::BusNameWatcherFlags::NONE,
            |_, _, _| {},
            move |_, name| {
                let watch = gone.borrow_mut().0.remove(name);
                if let Some(watch) = watch {
                    watch.unwatch();
                    if gone.borrow().0.is_empty() {
                        told.borrow_mut().hand_on(Request::FollowFrequencies(false));
                    }
                }
            },
        );
        // (Its type is gio's second WatcherId, which gio does not export by name.)
        let watch = NameWatch(Box::new(move || gio::bus_unwatch_name(watcher)));
        watchers.borrow_mut().0.insert(sender.to_owned(), watch);
    } else {
        let watch = watchers.borrow_mut().0.remove(sender);
        if let Some(watch) = watch {
            watch.unwatch();
        }
    }
    let after = !watchers.borrow().0.is_empty();
    if before != after {
        requests
            .borrow_mut()
            .hand_on(Request::FollowFrequencies(after));
    }
}

/// Every property of the interface, in its order.
const PROPERTIES: [&str; 11] = [
    "Profile",
    "Profiles",
    "ProfileDaemon",
    "Holds",
    "DegradedReason",
    "CoreTypes",
    "CoreTypeLabels",
    "Frequencies",
    "Limits",
    "Findings",
    "Measuring",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interface_xml_lists_every_property_with_the_type_it_is_sent_as() {
        let node = gio::DBusNodeInfo::for_xml(INTROSPECTION).unwrap();
        let interface = node.lookup_interface(INTERFACE).unwrap();
        // `<property type="…" name="…"`, as the file writes each.
        let declared: Vec<(&str, &str)> = INTROSPECTION
            .split("<property type=\"")
            .skip(1)
            .filter_map(|rest| {
                let (signature, rest) = rest.split_once('"')?;
                let name = rest.strip_prefix(" name=\"")?.split('"').next()?;
                Some((name, signature))
            })
            .collect();
        assert_eq!(
            declared.iter().map(|(name, _)| *name).collect::<Vec<_>>(),
            PROPERTIES
        );
        let state = SessionState::default();
        for (name, signature) in declared {
            assert!(interface.lookup_property(name).is_some(), "{name}");
            let value = state.property(name).unwrap();
            assert_eq!(value.type_().as_str(), signature, "{name}");
        }
        assert!(state.property("Nonsense").is_none());
    }
}

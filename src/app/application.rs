// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's application: libadwaita's, with Pacer's state exported on the session bus as the
//! application registers there (`dbus_register`), before it owns its name. A client that
//! starts Pacer by calling `State1` (D-Bus activation) has its call delivered once the name
//! is owned, and then the object must already be there to answer it.

use relm4::adw::{self, subclass::prelude::*};
use relm4::gtk::{self, gio, glib};

use crate::desktop::state_bus::StateBus;

mod imp {
    use std::cell::RefCell;

    use super::*;

    #[derive(Debug, Default)]
    pub struct PacerApplication {
        pub state_bus: RefCell<Option<StateBus>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for PacerApplication {
        const NAME: &'static str = "PacerApplication";
        type Type = super::PacerApplication;
        type ParentType = adw::Application;
    }

    impl ObjectImpl for PacerApplication {}

    impl ApplicationImpl for PacerApplication {
        fn dbus_register(
            &self,
            connection: &gio::DBusConnection,
            object_path: &str,
        ) -> Result<(), glib::Error> {
            self.parent_dbus_register(connection, object_path)?;
            match StateBus::register(connection.clone()) {
                Ok(exported) => {
                    glib::g_debug!("pacer", "state exported on the session bus");
                    self.state_bus.replace(Some(exported));
                }
                // Pacer works without it: the tray and the window do not need it.
                Err(error) => {
                    glib::g_warning!("pacer", "cannot export Pacer's state on the bus: {}", error);
                }
            }
            Ok(())
        }

        fn dbus_unregister(&self, connection: &gio::DBusConnection, object_path: &str) {
            if let Some(exported) = self.state_bus.take() {
                exported.unexport();
            }
            self.parent_dbus_unregister(connection, object_path);
        }
    }

    impl GtkApplicationImpl for PacerApplication {}
    impl AdwApplicationImpl for PacerApplication {}
}

glib::wrapper! {
    pub struct PacerApplication(ObjectSubclass<imp::PacerApplication>)
        @extends adw::Application, gtk::Application, gio::Application,
        @implements gio::ActionGroup, gio::ActionMap;
}

impl PacerApplication {
    pub fn new(application_id: &str) -> Self {
        glib::Object::builder()
            .property("application-id", application_id)
            .build()
    }

    /// The state exported on the session bus, where the application has one.
    pub fn state_bus(&self) -> Option<StateBus> {
        self.imp().state_bus.borrow().clone()
    }
}

/// The state that the running application exported on the session bus: none without a
/// session bus, or where the application is not Pacer's own (in unit tests).
pub fn state_bus() -> Option<StateBus> {
    use gtk::prelude::Cast;
    let bus = relm4::main_application()
        .downcast::<PacerApplication>()
        .ok()
        .and_then(|app| app.state_bus());
    if bus.is_none() {
        glib::g_message!("pacer", "Pacer's state is not on the session bus");
    }
    bus
}

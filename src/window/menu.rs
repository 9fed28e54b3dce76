// SPDX-License-Identifier: GPL-3.0-or-later
//! The primary menu and what it turns on: running in the background (closing the window
//! then hides it, and the tray goes on) and notifications about warnings.

use std::sync::Arc;

use pacer_core::i18n::gettext;
use relm4::gtk::{gio, glib};
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

use super::{Window, WindowMsg};
use crate::app::settings;
use crate::desktop::background::BackgroundPart;
use crate::widgets::a11y::labelled;
use crate::widgets::icons;

impl Window {
    /// The primary menu: the background settings (when the settings schema is installed).
    pub(super) fn add_menu(&self, header: &adw::HeaderBar, sender: &ComponentSender<Self>) {
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
    pub(super) fn keep_in_background(
        &self,
        root: &adw::ApplicationWindow,
        started_in_background: bool,
    ) {
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
}

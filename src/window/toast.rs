// SPDX-License-Identifier: GPL-3.0-or-later
//! The window's toasts: what it says in passing, in one line, with the detail on demand.

use pacer_core::i18n::gettext;
use relm4::adw;
use relm4::gtk::glib;

use super::Window;
use crate::widgets::alert::{self, Answer};
use crate::words::said::Said;

impl Window {
    /// What the window says in passing, the one way it says it: a toast in words for
    /// `seconds`, with the technical detail (when there is one) behind its "Details" button,
    /// which gets time to be pressed.
    pub(super) fn show_toast(&self, said: &Said, seconds: u32, root: &adw::ApplicationWindow) {
        glib::g_debug!("pacer", "toast: {}", said.text);
        let toast = adw::Toast::new(&said.text);
        toast.set_timeout(seconds);
        if let Some(detail) = &said.detail {
            toast.set_timeout(seconds.max(8));
            toast.set_button_label(Some(&gettext("Details")));
            let (text, detail, window) = (said.text.clone(), detail.clone(), root.clone());
            toast.connect_button_clicked(move |_| {
                let close = Answer {
                    id: alert::CLOSE,
                    label: gettext("Close"),
                    suggested: false,
                };
                alert::ask(&window, &text, &detail, None, &[close], |_| {});
            });
        }
        self.toasts.add_toast(toast);
    }
}

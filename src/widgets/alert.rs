// SPDX-License-Identifier: GPL-3.0-or-later
//! A message that waits for an answer: a heading, the text under it, and the answers
//! offered. libadwaita 1.2 has AdwMessageDialog, a window of its own; the gnome_48 build
//! shows an AdwAlertDialog (libadwaita 1.5 on) over the window that asks, as GNOME
//! applications do there (AdwMessageDialog is deprecated from 1.6).

use relm4::{adw, gtk};

use adw::prelude::*;

/// One answer a message offers.
#[derive(Debug, Clone)]
pub struct Answer {
    /// What `ask`'s callback is told.
    pub id: &'static str,
    /// Its label, a mnemonic (`_Fix`).
    pub label: String,
    /// The answer the message suggests: it stands out, and Enter gives it.
    pub suggested: bool,
}

/// The id of the answer that closes a message without doing anything; Escape gives it.
pub const CLOSE: &str = "close";

/// Asks `heading` with `body` under it (and `extra`, where given, under that) over the
/// window of `parent`, offering `answers` (one of them `CLOSE`), and tells `answered` the id
/// of the answer chosen.
pub fn ask(
    parent: &impl IsA<gtk::Widget>,
    heading: &str,
    body: &str,
    extra: Option<&gtk::Widget>,
    answers: &[Answer],
    answered: impl Fn(&str) + 'static,
) {
    // The two dialogs name the same methods (in traits of their own).
    #[cfg(not(feature = "gnome_48"))]
    let dialog = {
        let window = parent.root().and_downcast::<gtk::Window>();
        adw::MessageDialog::new(window.as_ref(), Some(heading), Some(body))
    };
    #[cfg(feature = "gnome_48")]
    let dialog = adw::AlertDialog::new(Some(heading), Some(body));
    dialog.set_extra_child(extra);
    for answer in answers {
        dialog.add_response(answer.id, &answer.label);
        if answer.suggested {
            dialog.set_response_appearance(answer.id, adw::ResponseAppearance::Suggested);
            dialog.set_default_response(Some(answer.id));
        }
    }
    dialog.set_close_response(CLOSE);
    dialog.connect_response(None, move |_, id| answered(id));
    #[cfg(not(feature = "gnome_48"))]
    dialog.present();
    #[cfg(feature = "gnome_48")]
    dialog.present(Some(parent));
}

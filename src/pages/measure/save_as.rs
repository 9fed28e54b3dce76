// SPDX-License-Identifier: GPL-3.0-or-later
//! Where an export goes: the file the user names in the desktop's file chooser (a portal's
//! where there is one). GTK 4.8 asks through GtkFileChooserNative; the gnome_48 build through
//! GtkFileDialog (GTK 4.10 on, where the former is deprecated).

use std::path::PathBuf;

use pacer_core::i18n::gettext;
use relm4::gtk;

use gtk::prelude::*;

/// Asks over the window of `parent` where to save a file suggested as `name`, and tells
/// `chosen` the path the user picked (nothing when they cancel).
#[cfg(not(feature = "gnome_48"))]
pub fn ask_where(parent: &impl IsA<gtk::Widget>, name: &str, chosen: impl Fn(PathBuf) + 'static) {
    let window = parent.root().and_downcast::<gtk::Window>();
    let dialog = gtk::FileChooserNative::new(
        Some(&gettext("Export Result")),
        window.as_ref(),
        gtk::FileChooserAction::Save,
        Some(&gettext("Export")),
        Some(&gettext("Cancel")),
    );
    dialog.set_current_name(name);
    dialog.connect_response(move |dialog, response| {
        if response == gtk::ResponseType::Accept {
            if let Some(path) = dialog.file().and_then(|file| file.path()) {
                chosen(path);
            }
        }
        dialog.destroy();
    });
    dialog.show();
}

/// Asks over the window of `parent` where to save a file suggested as `name`, and tells
/// `chosen` the path the user picked (nothing when they cancel).
#[cfg(feature = "gnome_48")]
pub fn ask_where(parent: &impl IsA<gtk::Widget>, name: &str, chosen: impl Fn(PathBuf) + 'static) {
    let window = parent.root().and_downcast::<gtk::Window>();
    let dialog = gtk::FileDialog::builder()
        .title(gettext("Export Result"))
        .accept_label(gettext("Export"))
        .initial_name(name)
        .modal(true)
        .build();
    dialog.save(window.as_ref(), gtk::gio::Cancellable::NONE, move |file| {
        if let Some(path) = file.ok().and_then(|file| file.path()) {
            chosen(path);
        }
    });
}

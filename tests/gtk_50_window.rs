// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer built against GTK 4.24 and libadwaita 1.10 (its `gnome_50` feature, which
//! `build-aux/gtk-build.sh 50` builds in Debian testing's root, that of GNOME Shell 50), run
//! in that root on the test's X server (GNOME 50 has no X11 session, but its GTK keeps the
//! X11 backend): the checks of tests/gtk_window/, its screenshot the README's
//! `docs/screenshots/gnome-50-window.png`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod gtk_window;

use pacer_testrig::gnome_shell::Shell;

#[test]
#[ignore = "needs Pacer built against GTK 4.24: build-aux/test.sh --lane shell-50 runs it"]
fn the_gtk_4_24_window_shows_libadwaita_1_10s_widgets() {
    // gnome_50 asks for GTK 4.22 or newer (its development series, 4.21, on).
    gtk_window::the_window_shows_libadwaita_s_widgets(Shell::Root50, 22);
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer built against GTK 4.18 and libadwaita 1.7 (its `gnome_48` feature, which
//! `build-aux/gtk-build.sh 48` builds in Debian 13's root), run in that root: the checks of
//! tests/gtk_window/, its screenshot the README's `docs/screenshots/gnome-48-window.png`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod gtk_window;

use pacer_testrig::gnome_shell::Shell;

#[test]
#[ignore = "needs Pacer built against GTK 4.18: build-aux/test.sh --lane shell-48 runs it"]
fn the_gtk_4_18_window_shows_libadwaita_1_7s_widgets() {
    gtk_window::the_window_shows_libadwaita_s_widgets(Shell::Root48, 18);
}

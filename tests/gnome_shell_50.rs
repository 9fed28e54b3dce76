// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer in Debian testing's GNOME Shell 50, run in the Debian testing root that
//! `build-aux/shell-root.sh 50` lays out (only the shell runs there, headless: 50 has no X11
//! session; its buses, the daemon and Pacer, on an Xvfb, are this machine's): its extension
//! as `shell-extension/build.py --api esm` builds it, and its tray item through the root's
//! AppIndicator extension. The checks are those of every shell (tests/shell_desktop/).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod shell_desktop;

use pacer_testrig::gnome_shell::Shell;
use shell_desktop::checks;

#[test]
#[ignore = "needs GNOME Shell 50: build-aux/test.sh --lane shell-50 runs it"]
fn the_toggle_follows_the_daemon_switches_it_and_fixes_the_mismatch() {
    checks::the_toggle_follows_the_daemon_switches_it_and_fixes_the_mismatch(Shell::Root50);
}

#[test]
#[ignore = "needs GNOME Shell 50: build-aux/test.sh --lane shell-50 runs it"]
fn the_toggle_starts_pacer_and_says_when_it_is_gone() {
    checks::the_toggle_starts_pacer_and_says_when_it_is_gone(Shell::Root50);
}

#[test]
#[ignore = "needs GNOME Shell 50: build-aux/test.sh --lane shell-50 runs it"]
fn the_tray_item_appears_in_the_top_bar_on_every_start() {
    checks::the_tray_item_appears_in_the_top_bar_on_every_start(Shell::Root50);
}

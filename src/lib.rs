// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's window, tray and notifications: the views of the CPU's power state, over
//! `pacer-core` (the model), `pacer-measure` (measurements) and `pacer-dbus` (the helper).
//! A library so that the program (`main.rs`) and the benchmarks link the same code.
//!
//! The folders say what lives where (`docs/architecture.md` draws the map): `app` starts
//! Pacer and holds what it is built and run with, `data` the models with no widgets (the
//! machine's readings, the changes asked for, the helper), `pages` the window's pages,
//! `widgets` what pages share (plots, the banner), `desktop` what Pacer shows outside its
//! window (tray, notifications, its state on the session bus), `words` the sentences built
//! from typed values, and `window` the frame that holds the pages.

use std::sync::OnceLock;
use std::time::Instant;

pub mod app;
mod data;
mod desktop;
mod pages;
#[cfg(test)]
mod testing;
pub mod widgets;
pub mod window;
mod words;

/// When the program started, for the log line saying how long the first frame took.
pub static STARTED: OnceLock<Instant> = OnceLock::new();

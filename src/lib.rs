// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's window, tray and notifications: the views of the CPU's power state, over
//! `pacer-core` (the model), `pacer-measure` (measurements) and `pacer-dbus` (the helper).
//! A library so that the program (`main.rs`) and the benchmarks link the same code.

use std::sync::OnceLock;
use std::time::Instant;

mod a11y;
pub mod application;
mod background;
mod banner;
mod change;
pub mod config;
mod cpus;
mod feed;
mod helper;
mod history_page;
mod icons;
mod install;
pub mod machine;
mod measure;
mod memory;
mod notify;
mod overview;
pub mod plot;
mod request;
mod said;
mod session_state;
pub mod settings;
mod state_bus;
#[cfg(test)]
mod testing;
mod tray;
mod why;
pub mod window;

/// When the program started, for the log line saying how long the first frame took.
pub static STARTED: OnceLock<Instant> = OnceLock::new();

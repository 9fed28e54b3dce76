// SPDX-License-Identifier: GPL-3.0-or-later
//! The async runtime that the commands talking to the bus run on, and the bus they talk on.

use anyhow::Context;
use pacer_dbus::client::Bus;

/// One thread is plenty for a command-line tool waiting on the bus.
pub fn new() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// The bus `--session` asks for.
pub fn bus(session: bool) -> Bus {
    if session {
        Bus::Session
    } else {
        Bus::System
    }
}

//! The async runtime that the commands talking to the bus run on.

use anyhow::Context;

/// One thread is plenty for a command-line tool waiting on the bus.
pub fn new() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! Who changed the power state: the helper's `io.github.pacerapp.Pacer.History1`, for
//! clients (its own module, as its `Changed` signal shares a name with `Helper1`'s).

/// Who changed the power state, for clients (`docs/contracts.md` 4).
#[zbus::proxy(
    interface = "io.github.pacerapp.Pacer.History1",
    default_service = "io.github.pacerapp.Pacer.Helper1",
    default_path = "/io/github/pacerapp/Pacer/Helper1"
)]
pub trait History1 {
    /// Records changes until this connection leaves the bus or stops the watch; returns the
    /// watch's handle.
    fn watch_changes(&self) -> zbus::Result<u32>;

    /// Ends this connection's watch `handle`.
    fn stop_watching(&self, handle: u32) -> zbus::Result<()>;

    /// The events after id `since` (0: all kept), as a JSON array (schema 1).
    fn history(&self, since: u64) -> zbus::Result<String>;

    /// A change: one event as a JSON object (schema 1).
    #[zbus(signal)]
    fn changed(&self, event: &str) -> zbus::Result<()>;
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! The full state (machine, profile daemon, findings) as the helper last read it, kept for a
//! second: `Snapshot` calls share one reading, so a flood of them costs the machine nothing
//! more, and the profile daemon is asked over the helper's own system-bus connection.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pacer_core::profile::client as profile_client;
use pacer_core::status::Status;
use pacer_core::SysRoot;
use pacer_dbus::Problem;

use crate::kernel::Kernel;

/// How old a reading `Snapshot` may answer from.
pub const MAX_AGE: Duration = Duration::from_secs(1);

#[derive(Debug)]
struct Cached {
    read_at: Instant,
    status: Arc<Status>,
}

#[derive(Debug)]
pub struct StatusCache {
    kernel: Arc<Kernel>,
    /// The system bus, for the profile daemon: the helper's own connection when it serves
    /// there, else one made on first use (a helper on the session bus).
    profile_bus: tokio::sync::Mutex<Option<zbus::Connection>>,
    /// Held while reading, so that callers arriving meanwhile wait for that reading rather
    /// than making their own.
    cached: tokio::sync::Mutex<Option<Cached>>,
}

impl StatusCache {
    pub fn new(kernel: Arc<Kernel>, profile_bus: Option<zbus::Connection>) -> StatusCache {
        StatusCache {
            kernel,
            profile_bus: tokio::sync::Mutex::new(profile_bus),
            cached: tokio::sync::Mutex::new(None),
        }
    }

    /// A reading no older than [`MAX_AGE`].
    pub async fn recent(&self) -> Result<Arc<Status>, Problem> {
        let mut cached = self.cached.lock().await;
        if let Some(kept) = cached.as_ref().filter(|c| c.read_at.elapsed() < MAX_AGE) {
            return Ok(Arc::clone(&kept.status));
        }
        let status = Arc::new(self.read().await?);
        *cached = Some(Cached {
            read_at: Instant::now(),
            status: Arc::clone(&status),
        });
        Ok(status)
    }

    /// A reading made now (before a change that depends on it).
    pub async fn fresh(&self) -> Result<Arc<Status>, Problem> {
        self.forget().await;
        self.recent().await
    }

    /// Forgets the reading: a change made it stale.
    pub async fn forget(&self) {
        *self.cached.lock().await = None;
    }

    async fn read(&self) -> Result<Status, Problem> {
        // Reading sysfs blocks: off the thread that answers calls.
        let kernel = Arc::clone(&self.kernel);
        let snapshot = tokio::task::spawn_blocking(move || kernel.snapshot())
            .await
            .map_err(|error| Problem::Internal {
                error: error.to_string(),
            })?
            .map_err(|error| Problem::MachineUnreadable {
                error: error.to_string(),
            })?;
        let reading = self.profile_reading().await;
        let root = SysRoot::new(self.kernel.root());
        Ok(Status::assemble(&root, snapshot, reading))
    }

    /// The profile daemon's state, over the kept connection (made on first use).
    async fn profile_reading(&self) -> profile_client::ProfileReading {
        let mut bus = self.profile_bus.lock().await;
        if bus.is_none() {
            match profile_client::connect().await {
                Ok(connection) => *bus = Some(connection),
                Err(problem) => {
                    return profile_client::ProfileReading {
                        problems: vec![problem],
                        ..Default::default()
                    }
                }
            }
        }
        match bus.as_ref() {
            Some(connection) => profile_client::read(connection).await,
            None => profile_client::ProfileReading::default(),
        }
    }
}

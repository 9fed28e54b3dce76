// SPDX-License-Identifier: GPL-3.0-or-later
//! Finding the pacer-helper that changes the machine the window shows.
//!
//! On a real machine that is the helper on the system bus (D-Bus activated). A simulated
//! machine must never be changed through a helper that writes the real `/sys`, so there the
//! system bus helper is used only when it says it runs on a simulated machine too (the
//! shared `--sysfs-root` set-up); otherwise the window starts its own helper on the session
//! bus, on the same directory, without polkit (nothing real can change), and checks that
//! the name it talks to belongs to that very process.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use pacer_dbus::{Helper1Proxy, BUS_NAME};
use zbus::fdo::DBusProxy;
use zbus::names::BusName;
use zbus::Connection;

use crate::app::config;
use crate::app::install::InstallKind;

/// How long the helper may take to appear or answer before the window gives up on it.
const ANSWER_LIMIT: Duration = Duration::from_secs(3);

/// What the window knows about the machine it must find a helper for.
#[derive(Debug, Clone)]
pub struct Wanted {
    pub simulated: bool,
    pub root: PathBuf,
    pub model: Option<String>,
}

/// The helper the window writes through, or why there is none.
#[derive(Debug, Clone)]
pub enum HelperLink {
    Ready(Helper1Proxy<'static>),
    Missing(HelperMissing),
}

/// Why the window has no helper, and so is read-only (`words::helper` says it).
#[derive(Debug, Clone)]
pub enum HelperMissing {
    /// The system bus cannot be reached.
    SystemBus(zbus::Error),
    /// The system bus has no helper: it is not installed, and how to install it depends on
    /// how this Pacer was.
    NotInstalled(InstallKind),
    /// The helper the window starts for a simulated machine did not start.
    OwnNotStarted(OwnHelperError),
}

/// Why the simulated machine's own helper did not start.
#[derive(Debug, Clone)]
pub enum OwnHelperError {
    /// No pacer-helper beside this program nor where it is installed.
    NotFound,
    /// The session bus, or the helper's name on it.
    Bus(zbus::Error),
    /// Its state folder could not be made.
    StateFolder(Arc<io::Error>),
    /// The program could not be started.
    Spawn(Arc<io::Error>),
    /// It started, but its name did not appear on the session bus in time.
    NameNeverAppeared,
}

/// A helper the window started for a simulated machine; stopped with the window.
#[derive(Debug)]
pub struct OwnHelper {
    child: Child,
    _state: tempfile::TempDir,
}

impl Drop for OwnHelper {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn bounded<T, E>(future: impl std::future::Future<Output = Result<T, E>>) -> Option<T> {
    tokio::time::timeout(ANSWER_LIMIT, future).await.ok()?.ok()
}

/// The helper on `connection`, when its name is owned or can be activated.
async fn helper_on(connection: &Connection) -> Option<Helper1Proxy<'static>> {
    let bus = bounded(DBusProxy::new(connection)).await?;
    let name = BusName::try_from(BUS_NAME).ok()?;
    let owned = bounded(bus.name_has_owner(name)).await.unwrap_or(false);
    let activatable = owned
        || bounded(bus.list_activatable_names())
            .await
            .is_some_and(|names| names.iter().any(|n| n.as_str() == BUS_NAME));
    if !activatable {
        return None;
    }
    bounded(Helper1Proxy::new(connection)).await
}

/// Whether the helper says it runs on a simulated machine (its snapshot's `simulated`).
async fn runs_simulated(helper: &Helper1Proxy<'static>) -> bool {
    let Some(json) = bounded(helper.snapshot()).await else {
        return false;
    };
    serde_json::from_str::<serde_json::Value>(&json)
        .ok()
        .and_then(|value| value.get("simulated")?.as_bool())
        .unwrap_or(false)
}

/// The helper for `wanted`, and the one the window started, if it did.
pub async fn find(wanted: &Wanted) -> (HelperLink, Option<OwnHelper>) {
    let system = Connection::system().await;
    if let Ok(connection) = &system {
        if let Some(helper) = helper_on(connection).await {
            if !wanted.simulated || runs_simulated(&helper).await {
                return (HelperLink::Ready(helper), None);
            }
        }
    }
    if wanted.simulated {
        return match start_own(wanted).await {
            Ok((helper, own)) => (HelperLink::Ready(helper), Some(own)),
            Err(why) => (HelperLink::Missing(HelperMissing::OwnNotStarted(why)), None),
        };
    }
    let why = match system {
        Err(error) => HelperMissing::SystemBus(error),
        Ok(_) => HelperMissing::NotInstalled(InstallKind::of_this_process()),
    };
    (HelperLink::Missing(why), None)
}

/// `pacer-helper` next to this program (a build tree), else where it is installed.
fn helper_program() -> Option<PathBuf> {
    let beside = std::env::current_exe()
        .ok()?
        .parent()
        .map(|dir| dir.join("pacer-helper"));
    beside
        .filter(|path| path.is_file())
        .or_else(|| Some(Path::new(config::LIBEXECDIR).join("pacer-helper")))
        .filter(|path| path.is_file())
}

/// Starts a helper for the simulated machine on the session bus and waits for its name.
async fn start_own(wanted: &Wanted) -> Result<(Helper1Proxy<'static>, OwnHelper), OwnHelperError> {
    let program = helper_program().ok_or(OwnHelperError::NotFound)?;
    let connection = Connection::session().await.map_err(OwnHelperError::Bus)?;
    let state = tempfile::Builder::new()
        .prefix("pacer-helper-state-")
        .tempdir()
        .map_err(|e| OwnHelperError::StateFolder(Arc::new(e)))?;
    let mut command = Command::new(&program);
    // It lives as long as this connection: a window that is killed leaves no helper behind.
    if let Some(name) = connection.unique_name() {
        command.arg("--exit-with").arg(name.as_str());
    }
    command
        .arg("--session")
        .arg("--no-polkit")
        .arg("--idle-timeout=0")
        .arg("--sysfs-root")
        .arg(&wanted.root)
        .arg("--state-dir")
        .arg(state.path())
        .stdin(Stdio::null());
    if let Some(model) = &wanted.model {
        command.arg("--simulate").arg(model);
    }
    let child = command
        .spawn()
        .map_err(|e| OwnHelperError::Spawn(Arc::new(e)))?;
    let own = OwnHelper {
        child,
        _state: state,
    };
    let pid = own.child.id();
    let bus = DBusProxy::new(&connection)
        .await
        .map_err(OwnHelperError::Bus)?;
    let name = BusName::try_from(BUS_NAME).map_err(|e| OwnHelperError::Bus(e.into()))?;
    let deadline = tokio::time::Instant::now() + ANSWER_LIMIT;
    loop {
        // Another program's helper may hold the name: only ours will do.
        if let Ok(owner_pid) = bus.get_connection_unix_process_id(name.clone()).await {
            if owner_pid == pid {
                let helper = Helper1Proxy::new(&connection)
                    .await
                    .map_err(OwnHelperError::Bus)?;
                return Ok((helper, own));
            }
        }
        if tokio::time::Instant::now() > deadline {
            return Err(OwnHelperError::NameNeverAppeared);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! What a recording follows besides the files: the profile daemon's profile and holds, and
//! logind's word that the machine sleeps and wakes; and who a bus name is, as a writer.

use futures_util::StreamExt;
use pacer_core::history::Writer;
use pacer_core::profile::client as profile_client;
use pacer_core::profile::daemon::Hold;
use zbus::message::Header;

use crate::recorded::Log;

/// Records each change of the profile daemon's active profile and of its holds, for as long
/// as it runs (the recording aborts it). The daemon says what it changed, not who asked it
/// to: the event names the daemon (and a hold, the application that asked for it).
pub async fn follow_profile(bus: zbus::Connection, log: Log) {
    let Ok(mut changes) = profile_client::changes(&bus).await else {
        return;
    };
    let first = profile_client::read(&bus).await.state;
    let mut active = first.as_ref().map(|s| s.active.clone());
    let mut holds = first.map(|s| s.holds).unwrap_or_default();
    while changes.next().await.is_some() {
        let Some(state) = profile_client::read(&bus).await.state else {
            continue;
        };
        let taken = state.holds.iter().filter(|h| !holds.contains(h));
        let let_go = holds.iter().filter(|h| !state.holds.contains(h));
        let held: Vec<(Hold, bool)> = taken
            .map(|h| (h.clone(), true))
            .chain(let_go.map(|h| (h.clone(), false)))
            .collect();
        let switched = active.as_ref() != Some(&state.active);
        if held.is_empty() && !switched {
            continue;
        }
        let daemon = process_of(&bus, &state.bus_name).await;
        holds.clone_from(&state.holds);
        // A hold first: it is why the daemon switches.
        if !held.is_empty() {
            log.daemon_held(held, daemon.clone());
        }
        if switched {
            log.daemon_changed(active.replace(state.active.clone()), state.active, daemon);
        }
    }
}

/// logind's manager, for its word that the machine goes to sleep and wakes.
#[zbus::proxy(
    interface = "org.freedesktop.login1.Manager",
    default_service = "org.freedesktop.login1",
    default_path = "/org/freedesktop/login1"
)]
trait Login1 {
    #[zbus(signal)]
    fn prepare_for_sleep(&self, start: bool) -> zbus::Result<()>;
}

/// Records each sleep and waking logind announces, and what changed across it.
pub async fn follow_sleep(bus: zbus::Connection, log: Log) {
    let Ok(login) = Login1Proxy::new(&bus).await else {
        return;
    };
    let Ok(mut sleeps) = login.receive_prepare_for_sleep().await else {
        return;
    };
    while let Some(signal) = sleeps.next().await {
        if let Ok(args) = signal.args() {
            log.sleep(*args.start());
        }
    }
}

/// The process that owns `name` on the bus.
async fn process_of(bus: &zbus::Connection, name: &str) -> Option<Writer> {
    let proxy = zbus::fdo::DBusProxy::new(bus).await.ok()?;
    let name = zbus::names::BusName::try_from(name).ok()?;
    let pid = proxy.get_connection_unix_process_id(name).await.ok()?;
    Some(crate::writers::describe(pid))
}

/// The process behind the caller of a call, as the bus knows it (`None` when the bus cannot
/// say: the caller left).
pub async fn caller_process(bus: &zbus::Connection, header: &Header<'_>) -> Option<Writer> {
    process_of(bus, header.sender()?.as_str()).await
}

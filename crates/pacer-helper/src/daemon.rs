// SPDX-License-Identifier: GPL-3.0-or-later
//! The helper's life: choose the machine, open this boot's journal (restoring what a crash
//! left), serve on the bus, follow callers' departures as the bus reports them, and stop —
//! when idle, on SIGTERM, or with the program it serves — restoring every saved setting
//! and answering every call in flight first.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Parser;
use futures_util::StreamExt;
use pacer_core::sim::{MachineRoot, SimDir, SimMachine};
use zbus::fdo::DBusProxy;

use crate::activity::Activity;
use crate::announcements::Announcements;
use crate::authority::Authority;
use crate::history_service::{HistoryService, Setup};
use crate::journal::{self, Journal};
use crate::kernel::Kernel;
use crate::privileged::Privileged;
use crate::service::Helper;

#[derive(Debug, Parser)]
#[command(
    name = "pacer-helper",
    version,
    about = "Pacer's privileged helper (D-Bus activated)"
)]
pub struct Options {
    /// Change the machine under DIR instead of / (a simulated machine, for development).
    /// Running as root, DIR must be root's and writable by no one else. PACER_SYSFS_ROOT is
    /// not read: the helper's machine is chosen by its command line alone
    #[arg(long, value_name = "DIR")]
    pub sysfs_root: Option<PathBuf>,

    /// Run on a simulated machine: writes follow the model's kernel rules. In --sysfs-root
    /// DIR when given (laid out when empty, reused when it holds one), else a temporary one
    #[arg(long, value_name = "NAME")]
    pub simulate: Option<String>,

    /// Serve on the session bus instead of the system bus (development, the simulated demo);
    /// only on a simulated machine or another root than /
    #[arg(long)]
    pub session: bool,

    /// Do not ask polkit: everyone may change everything. Refused on the system bus
    #[arg(long)]
    pub no_polkit: bool,

    /// Exit when the bus name NAME leaves the bus (the program that started this helper for
    /// itself, such as the window on a simulated machine)
    #[arg(long, value_name = "NAME")]
    pub exit_with: Option<String>,

    /// Exit after this many seconds without a call (0: never)
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub idle_timeout: u64,

    /// Where the journal of settings to restore is kept
    #[arg(long, value_name = "DIR", default_value = "/var/lib/pacer-helper")]
    pub state_dir: PathBuf,

    /// Where the history of changes is kept for the boot, between one helper and the next
    /// (the unit's RuntimeDirectory=, /run/pacer-helper, which systemd names in
    /// RUNTIME_DIRECTORY); without one the history lasts as long as the helper
    #[arg(long, value_name = "DIR", env = "RUNTIME_DIRECTORY")]
    pub runtime_dir: Option<PathBuf>,

    /// Ask the privileged step listening on SOCKET for what needs CAP_SYS_ADMIN (a fanotify
    /// group, the EAS sysctl written), so that this process needs no such capability (the
    /// unit's way); without it, the helper does these itself
    #[arg(long, value_name = "SOCKET")]
    pub privileged_socket: Option<PathBuf>,

    /// Be the privileged step: answer the one request on standard input (a connection that
    /// systemd accepted on pacer-helper-privileged.socket), then exit
    #[arg(long, exclusive = true)]
    pub privileged_step: bool,
}

/// How long calls in flight may take to be answered once the helper has decided to stop.
const DRAIN_LIMIT: Duration = Duration::from_secs(30);

/// Who does what needs CAP_SYS_ADMIN.
fn privileged(options: &Options) -> Privileged {
    match &options.privileged_socket {
        Some(socket) => Privileged::Step(socket.clone()),
        None => Privileged::Itself,
    }
}

/// The machine to change: a simulated one when asked for or when the root holds one.
fn kernel(options: &Options, privileged: Privileged) -> anyhow::Result<(Kernel, MachineRoot)> {
    let machine = MachineRoot::choose(options.sysfs_root.as_deref(), options.simulate.as_deref())?;
    let root = machine.root().to_owned();
    let simulated = match machine.simulated() {
        Some(dir) => Some(dir.clone()),
        None if SimMachine::load(&root).ok().flatten().is_some() => Some(SimDir::open(&root)?),
        None => None,
    };
    let kernel = Kernel::open(root, simulated)?.with_privileged(privileged);
    Ok((kernel, machine))
}

/// Refuses combinations that would let anyone change the real machine.
fn check(options: &Options) -> anyhow::Result<()> {
    if options.no_polkit && !options.session {
        bail!("--no-polkit would let anyone change the CPU's settings: it is only allowed with --session");
    }
    let real_root = options
        .sysfs_root
        .as_deref()
        .is_none_or(|root| root == std::path::Path::new("/"));
    if options.session && options.simulate.is_none() && real_root {
        bail!("--session serves anyone on the session bus: it needs --simulate or a --sysfs-root other than /");
    }
    Ok(())
}

/// Opens this boot's journal and restores what an earlier run of this boot left (a crash);
/// entries of another boot are set aside unapplied.
fn open_journal(options: &Options, kernel: &Kernel) -> anyhow::Result<Journal> {
    let (journal, found) = Journal::open(&options.state_dir, journal::boot_id())
        .with_context(|| format!("cannot use {} for the journal", options.state_dir.display()))?;
    for id in &found.other_boot {
        eprintln!("pacer-helper: discarded saved settings {id}: they are from another boot");
    }
    for (path, why) in &found.unreadable {
        eprintln!(
            "pacer-helper: discarded {}: not a journal entry ({why})",
            path.display()
        );
    }
    for entry in journal.entries().iter().rev() {
        match journal.restore(kernel, entry) {
            Ok(()) => eprintln!(
                "pacer-helper: restored the settings saved before a crash ({})",
                entry.id
            ),
            Err(problem) => eprintln!("pacer-helper: restoring settings {}: {problem}", entry.id),
        }
    }
    Ok(journal)
}

pub async fn run(options: Options) -> anyhow::Result<()> {
    check(&options)?;
    let privileged = privileged(&options);
    let (kernel, _machine) = kernel(&options, privileged.clone())?;
    let journal = open_journal(&options, &kernel)?;

    let connection = if options.session {
        zbus::Connection::session().await
    } else {
        zbus::Connection::system().await
    }
    .context("cannot connect to the bus")?;
    let polkit = if options.no_polkit {
        None
    } else {
        Some(
            zbus_polkit::policykit1::AuthorityProxy::new(&connection)
                .await
                .context("cannot reach polkit")?,
        )
    };
    let profile_bus = (!options.session).then(|| connection.clone());
    let activity = Activity::default();
    let announcements = Announcements::default();
    if let Some(dir) = &options.runtime_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    }
    let history = HistoryService::new(
        Setup {
            root: kernel.root().to_owned(),
            runtime_dir: options.runtime_dir.clone(),
            profile_bus: profile_bus.clone(),
            authority: Authority::new(polkit.clone()),
            activity: activity.clone(),
            privileged,
        },
        announcements.clone(),
    );
    let helper = Helper::new(
        Arc::new(kernel),
        polkit,
        profile_bus,
        journal.clone(),
        activity.clone(),
        history.log(),
    );
    connection
        .object_server()
        .at(pacer_dbus::OBJECT_PATH, helper)
        .await
        .context("cannot serve the helper's object")?;
    let served = connection
        .object_server()
        .interface::<_, Helper>(pacer_dbus::OBJECT_PATH)
        .await
        .context("cannot reach the helper's object")?;
    connection
        .object_server()
        .at(pacer_dbus::OBJECT_PATH, history)
        .await
        .context("cannot serve the history")?;
    let history = connection
        .object_server()
        .interface::<_, HistoryService>(pacer_dbus::OBJECT_PATH)
        .await
        .context("cannot reach the history")?;
    connection
        .request_name(pacer_dbus::BUS_NAME)
        .await
        .with_context(|| format!("cannot own {}", pacer_dbus::BUS_NAME))?;

    let bus = DBusProxy::new(&connection).await?;
    let mut departures = bus.receive_name_owner_changed().await?;
    if let Some(name) = &options.exit_with {
        let name = zbus::names::BusName::try_from(name.as_str())
            .with_context(|| format!("--exit-with {name}"))?;
        // Gone before the subscription began: nothing would announce it.
        if !bus.name_has_owner(name).await? {
            return Ok(());
        }
    }
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut interrupt = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    let idle = Duration::from_secs(options.idle_timeout);
    // Checked a few times within the idle time (an idle helper, as one kept by a watch,
    // wakes for nothing else); never when it never idles out.
    let mut tick = tokio::time::interval(if options.idle_timeout == 0 {
        Duration::from_secs(3600)
    } else {
        (idle / 4).clamp(Duration::from_millis(500), Duration::from_secs(5))
    });
    loop {
        tokio::select! {
            change = departures.next() => {
                // The stream ends with the connection: without a bus there is nobody to serve.
                let Some(change) = change else { break };
                // Only the bus itself says who left: a peer can send a NameOwnerChanged of
                // its own making to the helper, and it must not restore anyone's settings.
                let from_bus = change
                    .message()
                    .header()
                    .sender()
                    .is_some_and(|sender| sender.as_str() == "org.freedesktop.DBus");
                let Ok(args) = change.args() else { continue };
                if !from_bus || args.new_owner().is_some() {
                    continue;
                }
                let name = args.name().as_str();
                if name.starts_with(':') {
                    served.get().await.departed(name).await;
                    history.get().await.departed(name);
                }
                if options.exit_with.as_deref() == Some(name) {
                    break;
                }
            }
            _ = tick.tick() => {
                let quiet = activity.idle_for();
                let helper = served.get().await;
                if options.idle_timeout > 0
                    && quiet.is_some_and(|quiet| quiet >= idle)
                    && !helper.measuring()
                    && !journal.has_waiting_owner()
                {
                    break;
                }
            }
            batch = announcements.next() => {
                if batch.dropped > 0 {
                    eprintln!(
                        "pacer-helper: {} changes were not signalled, the bus being behind; \
                         History has them",
                        batch.dropped
                    );
                }
                // To the watchers alone: a change names processes, units and users, which
                // only those polkit let read the history may see.
                let watchers = history.get().await.watchers();
                for watcher in &watchers {
                    let Ok(name) = zbus::names::BusName::try_from(watcher.as_str()) else {
                        continue;
                    };
                    let to = history.signal_emitter().clone().set_destination(name);
                    for event in &batch.events {
                        let _ = HistoryService::changed(&to, event).await;
                    }
                }
            }
            _ = terminate.recv() => break,
            _ = interrupt.recv() => break,
        }
    }
    // Stop taking new calls (the bus starts a new helper for the next one), answer those in
    // flight, and put back whatever is still saved.
    if let Err(error) = connection.release_name(pacer_dbus::BUS_NAME).await {
        eprintln!("pacer-helper: releasing {}: {error}", pacer_dbus::BUS_NAME);
    }
    served.get().await.stopping().await;
    history.get().await.stopping();
    let started = Instant::now();
    while !activity.calls_answered() && started.elapsed() < DRAIN_LIMIT {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn options(args: &[&str]) -> Options {
        Options::try_parse_from(std::iter::once("pacer-helper").chain(args.iter().copied()))
            .unwrap()
    }

    #[test]
    fn the_session_bus_is_only_for_a_machine_that_is_not_this_one() {
        assert!(check(&options(&["--session"])).is_err());
        assert!(check(&options(&["--session", "--sysfs-root", "/"])).is_err());
        assert!(check(&options(&["--session", "--simulate", "amd-zen4"])).is_ok());
        assert!(check(&options(&["--session", "--sysfs-root", "/tmp/tree"])).is_ok());
        assert!(check(&options(&["--no-polkit", "--sysfs-root", "/tmp/tree"])).is_err());
    }

    #[test]
    fn pacer_sysfs_root_is_not_read() {
        std::env::set_var("PACER_SYSFS_ROOT", "/tmp/elsewhere");
        assert_eq!(options(&[]).sysfs_root, None);
    }
}

//! `pacer-helper`: Pacer's privileged helper on the system bus. It validates every request
//! against what the machine offers, asks polkit about the caller, writes, reads back and
//! reports. D-Bus activated; it exits when idle.

mod journal;
mod kernel;
mod service;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Parser;
use futures_util::StreamExt;
use pacer_core::i18n;
use pacer_core::sim::{MachineRoot, SimDir, SimMachine};
use zbus::fdo::DBusProxy;

use journal::Journal;
use kernel::Kernel;
use service::Helper;

const LOCALEDIR: &str = match option_env!("PACER_LOCALEDIR") {
    Some(dir) => dir,
    None => "/usr/share/locale",
};

#[derive(Debug, Parser)]
#[command(
    name = "pacer-helper",
    version,
    about = "Pacer's privileged helper (D-Bus activated)"
)]
struct Options {
    /// Change the machine under DIR instead of / (a simulated machine, for development)
    #[arg(long, value_name = "DIR", env = "PACER_SYSFS_ROOT")]
    sysfs_root: Option<PathBuf>,

    /// Run on a simulated machine: writes follow the model's kernel rules. In --sysfs-root
    /// DIR when given (laid out when empty, reused when it holds one), else a temporary one
    #[arg(long, value_name = "NAME")]
    simulate: Option<String>,

    /// Serve on the session bus instead of the system bus (development, the simulated demo)
    #[arg(long)]
    session: bool,

    /// Do not ask polkit: everyone may change everything. Refused on the system bus
    #[arg(long)]
    no_polkit: bool,

    /// Exit when the bus name NAME leaves the bus (the program that started this helper for
    /// itself, such as the window on a simulated machine)
    #[arg(long, value_name = "NAME")]
    exit_with: Option<String>,

    /// Exit after this many seconds without a call (0: never)
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    idle_timeout: u64,

    /// Where the journal of settings to restore is kept
    #[arg(long, value_name = "DIR", default_value = "/var/lib/pacer-helper")]
    state_dir: PathBuf,
}

fn main() -> ExitCode {
    i18n::init(LOCALEDIR);
    let options = Options::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("pacer-helper: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("pacer-helper: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// The machine to change: a simulated one when asked for or when the root holds one.
fn kernel(options: &Options) -> anyhow::Result<(Kernel, MachineRoot)> {
    let machine = MachineRoot::choose(options.sysfs_root.as_deref(), options.simulate.as_deref())?;
    let root = machine.root().to_owned();
    let simulated = match machine.simulated() {
        Some(dir) => Some(dir.clone()),
        None if SimMachine::load(&root).ok().flatten().is_some() => Some(SimDir::open(&root)?),
        None => None,
    };
    Ok((Kernel::new(root, simulated), machine))
}

async fn run(options: Options) -> anyhow::Result<()> {
    if options.no_polkit && !options.session {
        bail!("--no-polkit would let anyone change the CPU's settings: it is only allowed with --session");
    }
    let (kernel, _machine) = kernel(&options)?;
    let journal = Journal::new(&options.state_dir)
        .with_context(|| format!("cannot use {} for the journal", options.state_dir.display()))?;
    // Settings left behind by a crash come back before anything else happens.
    for entry in journal.entries().iter().rev() {
        match journal.restore(&kernel, entry) {
            Ok(()) => eprintln!(
                "pacer-helper: restored the settings saved before a crash ({})",
                entry.id
            ),
            Err(error) => eprintln!("pacer-helper: restoring settings {}: {error}", entry.id),
        }
    }

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
    let activity = Arc::new(Mutex::new(Instant::now()));
    let helper = Helper::new(kernel, polkit, journal.clone(), Arc::clone(&activity));
    connection
        .object_server()
        .at(pacer_dbus::OBJECT_PATH, helper)
        .await
        .context("cannot serve the helper's object")?;
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
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    let idle = Duration::from_secs(options.idle_timeout);
    loop {
        tokio::select! {
            change = departures.next() => {
                // The stream ends with the connection: without a bus there is nobody to serve.
                let Some(change) = change else { break };
                // A caller that saved settings and left gets them restored.
                if let Ok(args) = change.args() {
                    let vanished = args.new_owner().is_none();
                    let gone = vanished && args.name().starts_with(':');
                    if gone && journal.entries().iter().any(|e| e.owner == args.name().as_str()) {
                        let server = connection.object_server();
                        if let Ok(helper) = server.interface::<_, Helper>(pacer_dbus::OBJECT_PATH).await {
                            helper.get().await.restore_for(args.name().as_str()).await;
                        }
                    }
                    if vanished && options.exit_with.as_deref() == Some(args.name().as_str()) {
                        break;
                    }
                }
            }
            _ = tick.tick() => {
                let quiet = activity.lock().map(|last| last.elapsed()).unwrap_or_default();
                if options.idle_timeout > 0 && quiet >= idle && journal.is_empty() {
                    break;
                }
            }
            _ = terminate.recv() => break,
            _ = interrupt.recv() => break,
        }
    }
    Ok(())
}

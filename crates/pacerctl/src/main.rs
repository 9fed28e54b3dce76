// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl`: read (and, through the helper, control) the CPU's power state.
//!
//! Exit status: 0 on success, 2 for usage errors (clap's own), 1 for anything else, with a
//! one-line message that names the cause.

mod cli;
mod history;
mod limits;
mod measure;
mod openmetrics;
mod runtime;
mod sections;
mod set;
mod simulate;
mod status;
mod style;
mod watch;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use pacer_core::i18n::{self, gettext};

use cli::{Cli, Command, MeasureKind, SimulateAction};

fn main() -> ExitCode {
    i18n::init();
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // A closed pipe (`pacerctl status | head`) is not worth a message.
            if let Some(io) = error.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS;
                }
            }
            // The words first; a terminal shows the bus's own message too (a window keeps it
            // behind "Details").
            let mut line = format!("{error:#}");
            let detail = error
                .chain()
                .find_map(|cause| cause.downcast_ref::<pacer_dbus::client::ClientError>())
                .and_then(pacer_dbus::client::ClientError::detail);
            if let Some(detail) = detail.filter(|detail| !line.contains(detail.as_str())) {
                line = format!("{line} ({detail})");
            }
            eprintln!("pacerctl: {line}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<()> {
    if let Command::Simulate { action } = &cli.command {
        return match action {
            SimulateAction::List => simulate::list(),
            SimulateAction::Write { path, value } => {
                simulate::write(cli.sysfs_root.as_deref(), path, value)
            }
            SimulateAction::Run { model, seed } => {
                simulate::run(cli.sysfs_root.as_deref(), model, *seed)
            }
            SimulateAction::Resume => simulate::resume(cli.sysfs_root.as_deref()),
            SimulateAction::Daemon { daemon, session } => {
                simulate::daemon(cli.sysfs_root.as_deref(), *daemon, *session)
            }
        };
    }
    let machine =
        pacer_core::sim::MachineRoot::choose(cli.sysfs_root.as_deref(), cli.simulate.as_deref())?;
    let root = pacer_core::SysRoot::new(machine.root());
    match &cli.command {
        Command::Status {
            json,
            openmetrics,
            prometheus,
            interval,
        } => {
            let status = status_with_limits(&root, interval.duration)?;
            let mut out = std::io::stdout().lock();
            if *json {
                let document = pacer_core::status_json::StatusDocument::with_limits(&status);
                let text = serde_json::to_string_pretty(&document)?;
                writeln!(out, "{text}")?;
            } else if *openmetrics || *prometheus {
                let format = if *openmetrics {
                    openmetrics::Format::OpenMetrics
                } else {
                    openmetrics::Format::Prometheus
                };
                out.write_all(openmetrics::render(&status, format).as_bytes())?;
            } else {
                let style = style::Style::for_stdout();
                out.write_all(status::render(&status, &style).as_bytes())?;
            }
            out.flush()?;
            Ok(())
        }
        Command::Limits { json, interval } => {
            let status = status_with_limits(&root, interval.duration)?;
            limits::print(&status, interval.duration, *json)
        }
        Command::Watch { json } => {
            // A simulated machine started here keeps moving while it is watched.
            let _ticker = simulate::ticker(&machine);
            runtime::new()?.block_on(watch::run(&root, *json))
        }
        Command::Set {
            setting,
            target,
            session,
        } => runtime::new()?.block_on(set::set(&root, setting, target, *session)),
        Command::History {
            since,
            follow,
            json,
            session,
        } => runtime::new()?.block_on(history::run(history::Request {
            since: *since,
            follow: *follow,
            json: *json,
            session: *session,
        })),
        Command::Fix { dry_run, session } => {
            runtime::new()?.block_on(set::fix(&root, *dry_run, *session))
        }
        Command::Measure { kind } => match kind {
            MeasureKind::Ramp {
                cpus,
                trials,
                format,
            } => measure::run_ramp(&root, cpus, *trials, format),
            MeasureKind::Wakeup { cpus, trials, json } => {
                measure::run_wakeup(&root, cpus, *trials, *json)
            }
            MeasureKind::Compare {
                settings,
                cpus,
                trials,
                format,
                session,
            } => runtime::new()?.block_on(measure::run_compare(
                &root, settings, cpus, *trials, format, *session,
            )),
        },
        Command::Simulate { .. } => unreachable!("handled above"),
    }
}

/// The machine, the profile daemon and the findings, with each core type's limit chain
/// from readings `interval` apart.
fn status_with_limits(
    root: &pacer_core::SysRoot,
    interval: std::time::Duration,
) -> anyhow::Result<pacer_core::status::Status> {
    let mut status = runtime::new()?
        .block_on(pacer_core::status::Status::gather(root))
        .with_context(|| gettext("cannot read the machine's CPU state"))?;
    limits::read(root, &mut status, interval);
    Ok(status)
}

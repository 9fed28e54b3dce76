// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl measure`: ramp-up, wake-up, and the ramp under several settings.

use std::sync::atomic::AtomicBool;

use anyhow::{bail, Context};
use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::Snapshot;
use pacer_core::values::CoreType;
use pacer_core::SysRoot;
use pacer_dbus::client::{self as helper_client, active_profile, Bus};
use pacer_dbus::measurement::compare::{parse_setting, Comparison, Setting};
use pacer_dbus::measurement::progress::{Progress, Stage};
use pacer_dbus::measurement::report::RampReport;
use pacer_measure::report::{self, RampOptions};
use pacer_measure::same::same_as;
use pacer_measure::table::{number, RampTable};
use pacer_measure::verdict;

use crate::cli::{MeasuredCpus, RampFormat};

/// The CPUs to measure: the one asked for, or the last online CPU of each core type.
fn cpus(snapshot: &Snapshot, wanted: &MeasuredCpus) -> anyhow::Result<Vec<u32>> {
    if let Some(cpu) = wanted.cpu {
        if !snapshot.cpus.iter().any(|c| c.id == cpu && c.online) {
            bail!(fill(
                gettext("there is no online CPU {cpu}"),
                &[("cpu", &cpu)]
            ));
        }
        return Ok(vec![cpu]);
    }
    let chosen = report::default_cpus(snapshot, wanted.core_type.map(CoreType::from));
    if chosen.is_empty() {
        bail!(gettext("no online CPU of that core type"));
    }
    Ok(chosen)
}

/// "measuring CPU 7: trial 2 of 5 (about 8 s left)" on stderr as each trial begins.
fn say_progress(progress: Progress) {
    if progress.stage != Stage::Waiting {
        return;
    }
    eprintln!(
        "{}",
        fill(
            gettext("measuring CPU {cpu}: trial {trial} of {trials} (about {seconds} s left)"),
            &[
                ("cpu", &progress.cpu),
                ("trial", &progress.trial),
                ("trials", &progress.trials),
                ("seconds", &progress.left.as_secs_f64().ceil()),
            ]
        )
    );
}

/// The ramp on the machine under `root`: from the model on a simulated machine, measured
/// otherwise.
fn ramp(
    root: &SysRoot,
    snapshot: &Snapshot,
    cpus: &[u32],
    trials: usize,
    profile: Option<String>,
    cancel: &AtomicBool,
) -> anyhow::Result<RampReport> {
    let options = RampOptions {
        trials,
        ..RampOptions::default()
    };
    Ok(pacer_measure::source::ramp_of(
        root,
        snapshot,
        cpus,
        options,
        profile,
        &mut say_progress,
        cancel,
    )?)
}

/// The ramp measured by pacer-helper (as root: highest priority, energy), with its progress
/// on stderr; `None` when there is no helper to ask.
async fn ramp_through_helper(cpus: &[u32], trials: usize) -> anyhow::Result<Option<RampReport>> {
    let Ok(helper) = helper_client::connect(Bus::System).await else {
        return Ok(None);
    };
    let trials = u32::try_from(trials).unwrap_or(u32::MAX);
    Ok(helper_client::measure_ramp(&helper, cpus, trials, say_progress).await?)
}

fn notes(snapshot: &Snapshot, report: &RampReport) {
    if report.simulated {
        return;
    }
    if report.runs.iter().all(|run| run.power_w.is_none()) {
        eprintln!(
            "{}",
            if snapshot.rapl.is_empty() {
                gettext("energy not measured: this machine has no RAPL energy counters")
            } else {
                gettext("energy not measured: the RAPL counters can only be read as root")
            }
        );
    }
    if !snapshot.has_cpufreq() {
        eprintln!(
            "{}",
            gettext("this machine has no CPU frequency scaling: a flat ramp is expected")
        );
    }
}

pub fn run_ramp(
    root: &SysRoot,
    wanted: &MeasuredCpus,
    trials: usize,
    format: &RampFormat,
) -> anyhow::Result<()> {
    let snapshot = Snapshot::read(root)?;
    let cpus = cpus(&snapshot, wanted)?;
    let cancel = AtomicBool::new(false);
    let runtime = crate::runtime::new()?;
    let profile = runtime.block_on(active_profile());
    let mut report = match runtime.block_on(ramp_through_helper(&cpus, trials))? {
        Some(mut report) => {
            report.settings.profile = profile;
            report
        }
        None => {
            if !snapshot.simulated {
                eprintln!(
                    "{}",
                    gettext("pacer-helper is not running: measuring here, at normal priority, where other tasks may take the CPU")
                );
            }
            ramp(root, &snapshot, &cpus, trials, profile, &cancel)?
        }
    };
    report.set_clock(format.clock());
    if format.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        notes(&snapshot, &report);
        print!("{}", ramp_text(&report));
    }
    Ok(())
}

/// A verdict line per run of `report` (`docs/measurement.md` 5), after `setting` where
/// given.
fn verdicts(report: &RampReport, setting: Option<&str>) -> String {
    verdict::lines(report, setting)
        .into_iter()
        .map(|line| line + "\n")
        .collect()
}

/// A ramp as text: the table, then a verdict per run.
fn ramp_text(report: &RampReport) -> String {
    RampTable::new(&[(None, report)]).to_text() + &verdicts(report, None)
}

/// A comparison as text, its columns labelled as the user typed the settings: the table,
/// the settings that ran the same as one before them, then a verdict per run of each
/// setting once.
fn comparison_text(comparison: &Comparison, labels: &[String]) -> String {
    let reports: Vec<(Option<&str>, &RampReport)> = comparison
        .columns
        .iter()
        .zip(labels)
        .map(|(column, label)| (Some(label.as_str()), &column.result))
        .collect();
    let mut text = RampTable::new(&reports).to_text();
    for ((index, (label, report)), same) in reports.iter().enumerate().zip(same_as(comparison)) {
        let label = label.unwrap_or_default();
        match same {
            Some(first) => {
                text += &fill(
                    gettext("Setting {n} ({setting}) ran under the same settings as setting {first} ({other})."),
                    &[
                        ("n", &(index + 1)),
                        ("setting", &label),
                        ("first", &(first + 1)),
                        ("other", &labels[first]),
                    ],
                );
                text.push('\n');
            }
            None => text += &verdicts(report, Some(label)),
        }
    }
    text
}

fn parse_pair(text: &str) -> anyhow::Result<[u32; 2]> {
    let parts: Vec<&str> = text.split(',').collect();
    match parts.as_slice() {
        [a, b] => Ok([a.trim().parse()?, b.trim().parse()?]),
        _ => bail!(fill(
            gettext("--cpus takes two CPUs, A,B, not {text}"),
            &[("text", &text)]
        )),
    }
}

pub fn run_wakeup(root: &SysRoot, cpus: &str, trials: usize, json: bool) -> anyhow::Result<()> {
    let snapshot = Snapshot::read(root)?;
    let pair = parse_pair(cpus).with_context(|| format!("--cpus {cpus}"))?;
    if snapshot.simulated {
        bail!(gettext("the simulated machines have no model of wake-up latency: measure it on this computer's CPUs"));
    }
    let available = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    if let Some(cpu) = pair.iter().find(|&&cpu| cpu >= available) {
        bail!(fill(gettext("there is no CPU {cpu} here"), &[("cpu", cpu)]));
    }
    let cancel = AtomicBool::new(false);
    let profile = crate::runtime::new()?.block_on(active_profile());
    let report = pacer_measure::wakeup::measure_wakeup(
        &snapshot,
        pair,
        trials.max(1),
        std::time::Duration::from_secs(1),
        profile,
        &cancel,
    )?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!(
        "{}",
        fill(
            gettext("Wake-up ping-pong between CPU {a} and CPU {b}"),
            &[("a", &pair[0]), ("b", &pair[1])]
        )
    );
    println!(
        "  {:32} {}",
        gettext("Round trip, first 10 ms (µs)"),
        number(report.round_trip_us.cold.as_ref(), 2)
    );
    println!(
        "  {:32} {}",
        gettext("Round trip, steady (µs)"),
        number(report.round_trip_us.steady.as_ref(), 2)
    );
    println!(
        "  {:32} {}",
        gettext("Round trips per second"),
        report
            .round_trips_per_s
            .map_or_else(|| "—".to_owned(), |s| format!("{:.0}", s.mean))
    );
    if report.same_cpu_control_us.is_some() {
        println!(
            "  {:32} {}",
            gettext("Same-CPU control (µs)"),
            number(report.same_cpu_control_us.as_ref(), 2)
        );
    }
    Ok(())
}

pub async fn run_compare(
    root: &SysRoot,
    settings: &[String],
    wanted: &MeasuredCpus,
    trials: usize,
    format: &RampFormat,
    session: bool,
) -> anyhow::Result<()> {
    let parsed: Vec<Setting> = settings
        .iter()
        .map(|s| parse_setting(s))
        .collect::<Result<_, _>>()?;
    let snapshot = Snapshot::read(root)?;
    let cpus = cpus(&snapshot, wanted)?;
    let helper = helper_client::connect(crate::runtime::bus(session)).await?;
    // Ctrl+C stops the measurement; the settings come back either way.
    let interrupted = async {
        if tokio::signal::ctrl_c().await.is_err() {
            // No signal handler: nothing can interrupt, so never resolve.
            std::future::pending::<()>().await;
        }
    };
    let mut comparison = helper_client::compare(
        &helper,
        root,
        parsed,
        &cpus,
        u32::try_from(trials).unwrap_or(u32::MAX),
        |_, progress| say_progress(progress),
        interrupted,
    )
    .await?;
    for column in &mut comparison.columns {
        column.result.set_clock(format.clock());
    }
    if format.json {
        println!("{}", serde_json::to_string_pretty(&comparison)?);
    } else {
        print!("{}", comparison_text(&comparison, settings));
        println!(
            "{}",
            gettext("The settings from before the comparison are restored.")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests;

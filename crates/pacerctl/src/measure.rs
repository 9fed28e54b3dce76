//! `pacerctl measure`: ramp-up, wake-up, and the ramp under several settings.

use std::fmt::Write as _;
use std::sync::atomic::AtomicBool;

use anyhow::{bail, Context};
use pacer_bench::report::{self, Progress, RampOptions, RampReport, RampRun, Settings};
use pacer_bench::stats::Statistic;
use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::Snapshot;
use pacer_core::sim::SimMachine;
use pacer_core::values::CoreType;
use pacer_core::SysRoot;
use serde::Serialize;

use crate::cli::MeasuredCpus;
use crate::set::{call, helper};
use pacer_core::profile::client;

/// The CPUs to measure: the one asked for, or the last online CPU of each core type (the
/// last: CPU 0 takes more interrupts).
fn cpus(snapshot: &Snapshot, wanted: &MeasuredCpus) -> anyhow::Result<Vec<u32>> {
    let online = snapshot.cpus.iter().filter(|cpu| cpu.online);
    if let Some(cpu) = wanted.cpu {
        if !snapshot.cpus.iter().any(|c| c.id == cpu && c.online) {
            bail!(fill(
                gettext("there is no online CPU {cpu}"),
                &[("cpu", &cpu)]
            ));
        }
        return Ok(vec![cpu]);
    }
    let kinds: Vec<Option<CoreType>> = match wanted.core_type {
        Some(kind) => vec![Some(CoreType::from(kind))],
        None => {
            let mut kinds: Vec<Option<CoreType>> =
                online.clone().map(|cpu| cpu.core_type).collect();
            kinds.sort();
            kinds.dedup();
            kinds
        }
    };
    let chosen: Vec<u32> = kinds
        .iter()
        .filter_map(|kind| {
            online
                .clone()
                .filter(|cpu| cpu.core_type == *kind)
                .map(|cpu| cpu.id)
                .max()
        })
        .collect();
    if chosen.is_empty() {
        bail!(gettext("no online CPU of that core type"));
    }
    Ok(chosen)
}

fn progress_line(total_trials: usize) -> impl FnMut(Progress) {
    move |p: Progress| {
        // Runs longer than a second say how far they are.
        if total_trials > 0 {
            eprintln!(
                "{}",
                fill(
                    gettext("measuring CPU {cpu}: trial {trial} of {trials}"),
                    &[("cpu", &p.cpu), ("trial", &p.trial), ("trials", &p.trials)]
                )
            );
        }
    }
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
    if snapshot.simulated {
        let machine = SimMachine::load(root.root())?
            .context(gettext("the simulated machine's state is missing"))?;
        return Ok(report::simulated_ramp(&machine, snapshot, cpus, profile));
    }
    let options = RampOptions {
        trials,
        ..RampOptions::default()
    };
    let mut progress = progress_line(trials * cpus.len());
    Ok(report::measure_ramp(
        root,
        snapshot,
        cpus,
        options,
        profile,
        &mut progress,
        cancel,
    )?)
}

/// The ramp measured by pacer-helper (as root: highest priority, energy), with its progress
/// on stderr; `None` when there is no helper to ask.
async fn ramp_through_helper(cpus: &[u32], trials: usize) -> anyhow::Result<Option<RampReport>> {
    use futures_util::StreamExt;
    let Ok(helper) = helper(false).await else {
        return Ok(None);
    };
    let Ok(mut progress) = helper.receive_measure_progress().await else {
        return Ok(None);
    };
    let printing = async {
        while let Some(signal) = progress.next().await {
            if let Ok(args) = signal.args() {
                eprintln!(
                    "{}",
                    fill(
                        gettext("measuring CPU {cpu}: trial {trial} of {trials}"),
                        &[
                            ("cpu", &args.cpu),
                            ("trial", &args.trial),
                            ("trials", &args.trials)
                        ]
                    )
                );
            }
        }
    };
    let measuring = helper.measure_ramp(cpus, trials as u32);
    let answer = tokio::select! {
        answer = measuring => answer,
        () = printing => return Ok(None),
    };
    match answer {
        Ok(json) => Ok(Some(serde_json::from_str(&json)?)),
        // No helper on the bus, or none that can be activated: measure here.
        Err(zbus::Error::MethodError(name, _, _))
            if name.as_str() == "org.freedesktop.DBus.Error.ServiceUnknown" =>
        {
            Ok(None)
        }
        Err(error) => Err(crate::set::explain(error)),
    }
}

/// The power profile in force, for the record of what a measurement ran under (bounded to
/// a second like every exchange with the bus; `None` without a daemon).
async fn active_profile() -> Option<String> {
    let connection = client::connect().await.ok()?;
    client::read(&connection)
        .await
        .state
        .map(|state| state.active)
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
    json: bool,
) -> anyhow::Result<()> {
    let snapshot = Snapshot::read(root)?;
    let cpus = cpus(&snapshot, wanted)?;
    let cancel = AtomicBool::new(false);
    let runtime = crate::runtime()?;
    let profile = runtime.block_on(active_profile());
    let report = match runtime.block_on(ramp_through_helper(&cpus, trials))? {
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
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        notes(&snapshot, &report);
        print!("{}", table(&[(None, &report)]));
    }
    Ok(())
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
    let profile = crate::runtime()?.block_on(active_profile());
    let report = report::measure_wakeup(
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
        number(&report.round_trip_us.cold, 2)
    );
    println!(
        "  {:32} {}",
        gettext("Round trip, steady (µs)"),
        number(&report.round_trip_us.steady, 2)
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
            number(&report.same_cpu_control_us, 2)
        );
    }
    Ok(())
}

fn core_label(run: &RampRun) -> String {
    let kind = match run.core_type {
        Some(CoreType::Performance) => gettext("P-core"),
        Some(CoreType::Efficiency) => gettext("E-core"),
        Some(CoreType::LowPower) => gettext("LP E-core"),
        None => gettext("core"),
    };
    fill(
        gettext("{kind} (CPU {cpu})"),
        &[("kind", &kind), ("cpu", &run.cpu)],
    )
}

fn number(statistic: &Option<Statistic>, digits: usize) -> String {
    match statistic {
        Some(s) if s.sd > 0.0 => format!("{:.digits$} ± {:.digits$}", s.mean, s.sd),
        Some(s) => format!("{:.digits$}", s.mean),
        None => "—".to_owned(),
    }
}

/// The seed's table: a row per window and figure, a column per (setting, CPU).
fn table(reports: &[(Option<&str>, &RampReport)]) -> String {
    let mut columns: Vec<(String, &RampRun)> = Vec::new();
    for (setting, report) in reports {
        for run in &report.runs {
            let label = match setting {
                Some(setting) => format!("{setting} {}", core_label(run)),
                None => core_label(run),
            };
            columns.push((label, run));
        }
    }
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let mut section = |title: String| rows.push((title, Vec::new()));
    section(gettext("Ramp-up (average throughput in window / steady):"));
    for (index, end) in pacer_bench::trace::WINDOWS_MS.iter().enumerate() {
        rows.push((
            fill(gettext("  0-{end} ms (%)"), &[("end", end)]),
            columns
                .iter()
                .map(|(_, run)| number(&run.windows.get(index).and_then(|w| w.pct), 1))
                .collect(),
        ));
    }
    rows.push((
        gettext("Convergence to 95% (ms)"),
        columns.iter().map(|(_, r)| number(&r.t95_ms, 0)).collect(),
    ));
    rows.push((gettext("Steady-state:"), Vec::new()));
    rows.push((
        gettext("  Throughput (Mops/s)"),
        columns
            .iter()
            .map(|(_, r)| number(&r.steady_mops, 1))
            .collect(),
    ));
    rows.push((gettext("Energy:"), Vec::new()));
    rows.push((
        gettext("  Average power (W)"),
        columns.iter().map(|(_, r)| number(&r.power_w, 2)).collect(),
    ));
    rows.push((
        gettext("  Efficiency (J/Gop)"),
        columns
            .iter()
            .map(|(_, r)| number(&r.j_per_gop, 3))
            .collect(),
    ));

    let label_width = rows
        .iter()
        .map(|(label, _)| label.chars().count())
        .max()
        .unwrap_or(0)
        + 2;
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(index, (label, _))| {
            rows.iter()
                .filter_map(|(_, cells)| cells.get(index))
                .map(|cell| cell.chars().count())
                .chain([label.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let mut header = " ".repeat(label_width);
    for ((label, _), width) in columns.iter().zip(&widths) {
        let _ = write!(header, "{label:>width$}  ");
    }
    let _ = writeln!(out, "{}", header.trim_end());
    for (label, cells) in &rows {
        let mut line = format!("{label:label_width$}");
        for (cell, width) in cells.iter().zip(&widths) {
            let _ = write!(line, "{cell:>width$}  ");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    if let Some((_, report)) = reports.first() {
        let _ = writeln!(out, "{}", settings_line(&report.settings, report.simulated));
    }
    out
}

fn settings_line(settings: &Settings, simulated: bool) -> String {
    if settings.driver.is_none() {
        return gettext("Settings: no CPU frequency scaling");
    }
    let unknown = || "?".to_owned();
    let mut text = fill(
        gettext(
            "Settings: {driver} {mode}, governor {governor}, EPP {epp}, EAS {eas}, turbo {turbo}",
        ),
        &[
            ("driver", &settings.driver.clone().unwrap_or_else(unknown)),
            ("mode", &settings.mode.clone().unwrap_or_default()),
            (
                "governor",
                &settings.governor.clone().unwrap_or_else(unknown),
            ),
            (
                "epp",
                &settings.epp.clone().unwrap_or_else(|| "—".to_owned()),
            ),
            (
                "eas",
                &settings.eas.map_or_else(
                    unknown,
                    |on| if on { gettext("on") } else { gettext("off") },
                ),
            ),
            (
                "turbo",
                &settings.boost.map_or_else(unknown, |on| {
                    if on {
                        gettext("on")
                    } else {
                        gettext("off")
                    }
                }),
            ),
        ],
    );
    if simulated {
        text += &gettext(" (simulated machine: figures from its model)");
    }
    text
}

/// One column of a comparison.
#[derive(Debug, Serialize)]
struct Column {
    setting: std::collections::BTreeMap<String, String>,
    result: RampReport,
}

#[derive(Debug, Serialize)]
struct Comparison {
    schema: u32,
    kind: &'static str,
    columns: Vec<Column>,
    restored: bool,
}

const SETTING_KEYS: [&str; 5] = ["mode", "governor", "epp", "eas", "boost"];

fn parse_setting(text: &str) -> anyhow::Result<std::collections::BTreeMap<String, String>> {
    let mut setting = std::collections::BTreeMap::new();
    for part in text.split(',').filter(|p| !p.trim().is_empty()) {
        let Some((key, value)) = part.split_once('=') else {
            bail!(fill(gettext("{part} is not key=value"), &[("part", &part)]));
        };
        let key = key.trim();
        if !SETTING_KEYS.contains(&key) {
            bail!(fill(
                gettext("{key} is not a setting (governor, epp, mode, eas, boost)"),
                &[("key", &key)]
            ));
        }
        setting.insert(key.to_owned(), value.trim().to_owned());
    }
    if setting.is_empty() {
        bail!(gettext("an empty --setting"));
    }
    Ok(setting)
}

async fn apply(
    helper: &pacer_dbus::Helper1Proxy<'static>,
    root: &SysRoot,
    setting: &std::collections::BTreeMap<String, String>,
) -> anyhow::Result<()> {
    let on = |value: &str| matches!(value, "on" | "1" | "true" | "yes");
    // The mode first: switching it resets the governors.
    for key in SETTING_KEYS {
        let Some(value) = setting.get(key) else {
            continue;
        };
        let snapshot = Snapshot::read(root)?;
        let all: Vec<u32> = snapshot
            .policies
            .iter()
            .filter(|p| p.is_active())
            .map(|p| p.id)
            .collect();
        match key {
            "mode" => drop(call(helper.set_driver_mode(value)).await?),
            "governor" => drop(call(helper.set_governor(&all, value)).await?),
            "epp" => {
                let with_epp: Vec<u32> = snapshot
                    .policies
                    .iter()
                    .filter(|p| p.is_active() && p.epp.is_some())
                    .map(|p| p.id)
                    .collect();
                drop(call(helper.set_epp(&with_epp, value)).await?);
            }
            "eas" => drop(call(helper.set_eas(on(value))).await?),
            _ => drop(call(helper.set_boost(&all, on(value))).await?),
        }
    }
    Ok(())
}

pub async fn run_compare(
    root: &SysRoot,
    settings: &[String],
    wanted: &MeasuredCpus,
    trials: usize,
    json: bool,
    session: bool,
) -> anyhow::Result<()> {
    let parsed: Vec<_> = settings
        .iter()
        .map(|s| parse_setting(s))
        .collect::<anyhow::Result<_>>()?;
    let snapshot = Snapshot::read(root)?;
    let cpus = cpus(&snapshot, wanted)?;
    let helper = helper(session).await?;
    let saved = call(helper.save_settings()).await?;
    let measured = {
        let root = SysRoot::new(root.root());
        let helper = helper.clone();
        async move {
            let mut columns = Vec::new();
            for setting in parsed {
                apply(&helper, &root, &setting).await?;
                // The helper measures (as root: highest priority, energy).
                let json = call(helper.measure_ramp(&cpus, trials as u32)).await?;
                let mut result: RampReport = serde_json::from_str(&json)?;
                result.settings.profile = active_profile().await;
                columns.push(Column { setting, result });
            }
            anyhow::Ok(columns)
        }
    };
    // Ctrl+C stops the measurement; the settings come back either way.
    let outcome = tokio::select! {
        outcome = measured => outcome,
        _ = tokio::signal::ctrl_c() => {
            let _ = helper.cancel_measurement().await;
            Err(anyhow::anyhow!(gettext("interrupted")))
        }
    };
    let restored = call(helper.restore_settings(saved)).await;
    let columns = outcome?;
    restored?;
    let comparison = Comparison {
        schema: report::SCHEMA,
        kind: "compare",
        columns,
        restored: true,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&comparison)?);
    } else {
        let labels: Vec<String> = settings.to_vec();
        let reports: Vec<(Option<&str>, &RampReport)> = comparison
            .columns
            .iter()
            .zip(&labels)
            .map(|(column, label)| (Some(label.as_str()), &column.result))
            .collect();
        print!("{}", table(&reports));
        println!(
            "{}",
            gettext("The settings from before the comparison are restored.")
        );
    }
    Ok(())
}

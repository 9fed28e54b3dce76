// SPDX-License-Identifier: GPL-3.0-or-later
//! The table of a ramp measurement (`docs/measurement.md` 2) as a model: column labels (setting and core) and
//! rows of formatted figures (a row per window and figure), laid out as text by `pacerctl`,
//! in a grid by the window, and written as CSV for export.
//!
//! Over 500 lines with its unit tests.

use std::fmt::Write as _;

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::CoreType;

use crate::report::{Clock, RampReport, RampRun, Settings};
use crate::sched::Quiet;
use crate::stats::Statistic;
use crate::trace::WINDOWS_MS;

/// What a missing figure shows.
const MISSING: &str = "—";

/// One row: a section heading (no cells), or a figure with one cell per column.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRow {
    /// Translated, without layout.
    pub label: String,
    /// Formatted figures, one per column (`—` where there is none); empty for a heading.
    pub cells: Vec<String>,
    /// A heading (`Energy:`), followed by its figures.
    pub section: bool,
    /// A figure under a heading, set in by two spaces in text.
    pub indented: bool,
    /// The mean behind each cell, where the row is a measured figure (empty otherwise).
    pub means: Vec<Option<f64>>,
    /// Which way the figure is better, for the rows a comparison is about (time to 95 %,
    /// the first window): the window marks the best setting of each core type.
    pub better: Option<Better>,
}

/// Which way a figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Lower,
    Higher,
}

/// The table of one or more ramp reports: a column per (setting, CPU).
#[derive(Debug, Clone, PartialEq)]
pub struct RampTable {
    /// `P-core (CPU 7)`, or `epp=power P-core (CPU 7)` in a comparison.
    pub columns: Vec<String>,
    pub rows: Vec<TableRow>,
    /// The settings of the first report (`Settings: intel_pstate active, …`); empty without
    /// reports.
    pub settings_line: String,
}

/// `P-core (CPU 7)`.
pub fn core_label(run: &RampRun) -> String {
    fill(
        gettext("{kind} (CPU {cpu})"),
        &[("kind", &core_kind(run.core_type)), ("cpu", &run.cpu)],
    )
}

/// What a legend or sentence calls the cores of a type: `P-cores`, `E-cores`.
pub fn cores_of_type(core_type: Option<CoreType>) -> String {
    match core_type {
        Some(CoreType::Performance) => gettext("P-cores"),
        Some(CoreType::Efficiency) => gettext("E-cores"),
        Some(CoreType::LowPower) => gettext("Low-power cores"),
        None => gettext("Cores"),
    }
}

/// `P-core`, `E-core`, `LP E-core`; `core` where cores are all alike.
pub fn core_kind(core_type: Option<CoreType>) -> String {
    match core_type {
        Some(CoreType::Performance) => gettext("P-core"),
        Some(CoreType::Efficiency) => gettext("E-core"),
        Some(CoreType::LowPower) => gettext("LP E-core"),
        None => gettext("core"),
    }
}

/// `12.3 ± 0.4` with `digits` decimals; the mean alone without spread; `—` without a value.
pub fn number(statistic: Option<&Statistic>, digits: usize) -> String {
    match statistic {
        Some(s) if s.sd > 0.0 => format!("{:.digits$} ± {:.digits$}", s.mean, s.sd),
        Some(s) => format!("{:.digits$}", s.mean),
        None => MISSING.to_owned(),
    }
}

/// `Settings: intel_pstate active, governor powersave, EPP balance_performance, EAS off,
/// turbo on`, and whether the figures come from a simulated machine's model.
pub fn settings_line(settings: &Settings, simulated: bool) -> String {
    if settings.driver.is_none() {
        return gettext("Settings: no CPU frequency scaling");
    }
    let unknown = || "?".to_owned();
    let on_off = |on: Option<bool>| {
        on.map_or_else(
            unknown,
            |on| if on { gettext("on") } else { gettext("off") },
        )
    };
    let mut text = fill(
        gettext(
            "Settings: {driver} {mode}, governor {governor}, EPP {epp}, EAS {eas}, turbo {turbo}",
        ),
        &[
            ("driver", &settings.driver.clone().unwrap_or_else(unknown)),
            (
                "mode",
                &settings.mode.map(|m| m.to_string()).unwrap_or_default(),
            ),
            (
                "governor",
                &settings
                    .governor
                    .as_ref()
                    .map_or_else(unknown, ToString::to_string),
            ),
            (
                "epp",
                &settings
                    .epp
                    .map_or_else(|| MISSING.to_owned(), |epp| epp.to_string()),
            ),
            ("eas", &on_off(settings.eas)),
            ("turbo", &on_off(settings.boost)),
        ],
    );
    if simulated {
        text += &gettext(" (simulated machine: figures from its model)");
    }
    text
}

impl RampTable {
    /// The table of `reports`, each with the label of the setting it ran under (`None` for
    /// a single measurement).
    pub fn new(reports: &[(Option<&str>, &RampReport)]) -> RampTable {
        let mut columns = Vec::new();
        let mut runs: Vec<&RampRun> = Vec::new();
        for (setting, report) in reports {
            for run in &report.runs {
                columns.push(match setting {
                    Some(setting) => format!("{setting} {}", core_label(run)),
                    None => core_label(run),
                });
                runs.push(run);
            }
        }
        let mut rows = Vec::new();
        let heading = |label: String| TableRow {
            label,
            cells: Vec::new(),
            section: true,
            indented: false,
            means: Vec::new(),
            better: None,
        };
        let figure = |label: String, indented: bool, cell: &dyn Fn(&RampRun) -> String| TableRow {
            label,
            cells: runs.iter().map(|run| cell(run)).collect(),
            section: false,
            indented,
            means: Vec::new(),
            better: None,
        };
        // A measured figure: its cells and the means behind them.
        let measured =
            |label: String,
             digits: usize,
             better: Option<Better>,
             statistic: &dyn Fn(&RampRun) -> Option<&Statistic>| TableRow {
                cells: runs
                    .iter()
                    .map(|run| number(statistic(run), digits))
                    .collect(),
                means: runs
                    .iter()
                    .map(|run| statistic(run).map(|s| s.mean))
                    .collect(),
                better,
                ..figure(label, true, &|_| String::new())
            };
        rows.push(heading(gettext(
            "Ramp-up (average throughput in window / steady):",
        )));
        for (index, end) in WINDOWS_MS.iter().enumerate() {
            // A report from an older helper may have fewer windows: a dash, not a panic.
            rows.push(measured(
                fill(gettext("0-{end} ms (%)"), &[("end", end)]),
                1,
                (index == 0).then_some(Better::Higher),
                &|run| run.windows.get(index).and_then(|w| w.pct.as_ref()),
            ));
        }
        rows.push(TableRow {
            indented: false,
            ..measured(
                gettext("Convergence to 95% (ms)"),
                0,
                Some(Better::Lower),
                &|run| run.t95_ms.as_ref(),
            )
        });
        rows.push(heading(gettext("Steady-state:")));
        rows.push(measured(gettext("Throughput (Mops/s)"), 1, None, &|run| {
            run.steady_mops.as_ref()
        }));
        // The RAPL domain the figures come from, where one could be read.
        let energy_domain = runs.iter().find_map(|run| run.energy_domain.as_deref());
        rows.push(heading(match energy_domain {
            Some(domain) => fill(gettext("Energy ({domain}):"), &[("domain", &domain)]),
            None => gettext("Energy:"),
        }));
        rows.push(measured(gettext("Average power (W)"), 2, None, &|run| {
            run.power_w.as_ref()
        }));
        rows.push(measured(gettext("Efficiency (J/Gop)"), 3, None, &|run| {
            run.j_per_gop.as_ref()
        }));
        let clock = reports
            .first()
            .map_or(Clock::OnCpu, |(_, report)| report.clock);
        rows.push(heading(match clock {
            Clock::OnCpu => gettext("Scheduler (its time left out above):"),
            Clock::Wall => gettext("Scheduler (its time counted above):"),
        }));
        rows.push(figure(gettext("Off the CPU (ms)"), true, &|run| {
            number(run.off_cpu_ms.as_ref(), 1)
        }));
        rows.push(figure(gettext("Interruptions"), true, &|run| {
            number(run.interruptions.as_ref(), 0)
        }));
        rows.push(figure(gettext("Disturbed trials"), true, &|run| {
            if run.per_trial.is_empty() {
                return number(None, 0);
            }
            fill(
                gettext("{disturbed} of {trials}"),
                &[
                    ("disturbed", &run.disturbed_trials),
                    ("trials", &run.per_trial.len()),
                ],
            )
        }));
        rows.push(figure(gettext("Trials repeated"), true, &|run| {
            if run.per_trial.is_empty() {
                number(None, 0)
            } else {
                run.repeated_trials.to_string()
            }
        }));
        rows.push(figure(gettext("CPU busy before (%)"), true, &|run| {
            number(
                run.quiet
                    .as_ref()
                    .and_then(|quiet| quiet.busy_pct)
                    .map(Statistic::exact)
                    .as_ref(),
                0,
            )
        }));
        rows.push(figure(
            gettext("Tasks runnable on it before"),
            true,
            &|run| match run.quiet.as_ref() {
                Some(Quiet {
                    runnable_on_cpu: Some(runnable),
                    all_tasks_seen,
                    ..
                }) => {
                    if *all_tasks_seen == Some(false) {
                        // Some tasks were hidden: the count is of those seen.
                        fill(gettext("{count} seen"), &[("count", runnable)])
                    } else {
                        runnable.to_string()
                    }
                }
                _ => number(None, 0),
            },
        ));
        rows.push(figure(
            gettext("Pinned (nice level)"),
            false,
            &|run| match (run.pinned, run.nice) {
                (Some(pinned), Some(nice)) => fill(
                    if pinned {
                        gettext("yes ({nice})")
                    } else {
                        gettext("no ({nice})")
                    },
                    &[("nice", &nice)],
                ),
                _ => number(None, 0),
            },
        ));
        let settings_line = reports
            .first()
            .map(|(_, report)| settings_line(&report.settings, report.simulated))
            .unwrap_or_default();
        RampTable {
            columns,
            rows,
            settings_line,
        }
    }

    /// The table as the mailing-list post prints it (`docs/measurement.md` 2): labels on the left, figures right-aligned under
    /// their column's label, the settings below.
    pub fn to_text(&self) -> String {
        let labels: Vec<String> = self
            .rows
            .iter()
            .map(|row| {
                if row.indented {
                    format!("  {}", row.label)
                } else {
                    row.label.clone()
                }
            })
            .collect();
        let label_width = labels
            .iter()
            .map(|label| label.chars().count())
            .max()
            .unwrap_or(0)
            + 2;
        let widths: Vec<usize> = self
            .columns
            .iter()
            .enumerate()
            .map(|(index, label)| {
                self.rows
                    .iter()
                    .filter_map(|row| row.cells.get(index))
                    .map(|cell| cell.chars().count())
                    .chain([label.chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        let mut header = " ".repeat(label_width);
        for (label, width) in self.columns.iter().zip(&widths) {
            let _ = write!(header, "{label:>width$}  ");
        }
        let _ = writeln!(out, "{}", header.trim_end());
        for (label, row) in labels.iter().zip(&self.rows) {
            let mut line = format!("{label:label_width$}");
            for (cell, width) in row.cells.iter().zip(&widths) {
                let _ = write!(line, "{cell:>width$}  ");
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
        if !self.settings_line.is_empty() {
            let _ = writeln!(out, "{}", self.settings_line);
        }
        out
    }

    /// The table as CSV (RFC 4180: CRLF line ends, fields quoted where they hold a comma, a
    /// quote or a line break): a header of an empty field and the column labels, then a
    /// line per row, headings with empty cells so every line has as many fields.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let mut line = |label: &str, cells: &mut dyn Iterator<Item = &str>| {
            out += &csv_field(label);
            for cell in cells {
                out.push(',');
                out += &csv_field(cell);
            }
            out += "\r\n";
        };
        line("", &mut self.columns.iter().map(String::as_str));
        for row in &self.rows {
            let mut cells = row
                .cells
                .iter()
                .map(String::as_str)
                .chain(std::iter::repeat(""))
                .take(self.columns.len());
            line(&row.label, &mut cells);
        }
        out
    }
}

/// One CSV field, quoted (and its quotes doubled) only where it has to be.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::Window;
    use pacer_core::values::{DriverMode, Governor};

    fn exact(mean: f64, sd: f64) -> Option<Statistic> {
        Some(Statistic {
            sd,
            ..Statistic::exact(mean)
        })
    }

    /// A P-core run with figures and spread, and an E-core run missing its energy and all
    /// but two windows.
    pub(crate) fn report() -> RampReport {
        let run = |cpu, core_type, windows: usize| RampRun {
            cpu,
            core_type: Some(core_type),
            trials: 3,
            idle_wait_ms: 300.0,
            sample_period_us: Some(2.0),
            sampling_overhead_pct: Some(1.0),
            windows: WINDOWS_MS
                .iter()
                .take(windows)
                .map(|&end_ms| Window {
                    end_ms,
                    pct: exact(50.0 + end_ms as f64 / 10.0, 0.5),
                })
                .collect(),
            t95_ms: exact(5.0, 0.0),
            steady_mops: exact(587.5, 0.0),
            pinned: Some(true),
            nice: Some(-20),
            ..RampRun::default()
        };
        let mut p_core = run(3, CoreType::Performance, WINDOWS_MS.len());
        p_core.power_w = exact(12.5, 0.25);
        p_core.j_per_gop = exact(0.021, 0.0);
        p_core.off_cpu_ms = exact(1.5, 0.5);
        p_core.interruptions = exact(3.0, 1.0);
        p_core.per_trial = (0..5)
            .map(|trial| crate::report::TrialRecord {
                t95_ms: Some(5.0),
                off_cpu_ms: 1.5,
                run_delay_ms: Some(1.4),
                gaps_ms: 1.9,
                interruptions: 3,
                disturbed: trial == 4,
            })
            .collect();
        p_core.disturbed_trials = 1;
        p_core.repeated_trials = 2;
        p_core.energy_domain = Some("package-0".into());
        p_core.quiet = Some(Quiet {
            load_1m: Some(0.5),
            busy_pct: Some(3.2),
            runnable_on_cpu: Some(0),
            bound_to_cpu: Some(1),
            all_tasks_seen: Some(false),
        });
        RampReport {
            schema: crate::report::SCHEMA,
            kind: "ramp".into(),
            simulated: false,
            settings: Settings {
                driver: Some("intel_pstate".into()),
                mode: Some(DriverMode::Active),
                governor: Some(Governor::powersave()),
                epp: None,
                eas: Some(false),
                boost: None,
                profile: None,
            },
            clock: Clock::OnCpu,
            runs: vec![p_core, run(15, CoreType::Efficiency, 2)],
        }
    }

    #[test]
    fn a_column_per_setting_and_cpu_and_a_row_per_figure() {
        let report = report();
        let table = RampTable::new(&[(None, &report), (Some("epp=power"), &report)]);
        assert_eq!(
            table.columns,
            [
                "P-core (CPU 3)",
                "E-core (CPU 15)",
                "epp=power P-core (CPU 3)",
                "epp=power E-core (CPU 15)"
            ]
        );
        // A heading, 7 windows and the convergence; a heading and throughput; a heading,
        // power and efficiency; a heading, off-CPU time, interruptions, disturbed trials and
        // repeats, the CPU's busy share and runnable tasks; how the thread ran.
        assert_eq!(table.rows.len(), 22);
        let headings: Vec<&str> = table
            .rows
            .iter()
            .filter(|row| row.section)
            .map(|row| row.label.as_str())
            .collect();
        assert_eq!(
            headings,
            [
                "Ramp-up (average throughput in window / steady):",
                "Steady-state:",
                "Energy (package-0):",
                "Scheduler (its time left out above):"
            ]
        );
        for row in &table.rows {
            assert_eq!(row.cells.len(), if row.section { 0 } else { 4 }, "{row:?}");
        }
        assert_eq!(table.rows[1].label, "0-5 ms (%)");
        assert_eq!(table.rows[1].cells[0], "50.5 ± 0.5");
        assert_eq!(table.rows[8].cells[0], "5");
        assert_eq!(table.rows[15].label, "Off the CPU (ms)");
        assert_eq!(table.rows[15].cells[0], "1.5 ± 0.5");
        assert_eq!(table.rows[17].cells[0], "1 of 5");
        assert_eq!(table.rows[18].cells[0], "2");
        assert_eq!(table.rows[19].label, "CPU busy before (%)");
        assert_eq!(table.rows[19].cells[0], "3");
        assert_eq!(table.rows[19].cells[1], "—");
        assert_eq!(table.rows[20].cells[0], "0 seen");
        assert_eq!(table.rows[21].label, "Pinned (nice level)");
        assert_eq!(table.rows[21].cells[0], "yes (-20)");
        assert_eq!(
            table.settings_line,
            "Settings: intel_pstate active, governor powersave, EPP —, EAS off, turbo ?"
        );
    }

    #[test]
    fn missing_figures_are_dashes() {
        let report = report();
        let table = RampTable::new(&[(None, &report)]);
        let cells = |label: &str| {
            table
                .rows
                .iter()
                .find(|row| row.label == label)
                .map(|row| row.cells.clone())
                .unwrap()
        };
        assert_eq!(cells("0-10 ms (%)")[1], "51.0 ± 0.5");
        assert_eq!(cells("0-20 ms (%)"), ["52.0 ± 0.5", "—"]);
        assert_eq!(cells("Average power (W)"), ["12.50 ± 0.25", "—"]);
        assert_eq!(cells("Efficiency (J/Gop)"), ["0.021", "—"]);
    }

    #[test]
    fn text_sets_figures_in_and_aligns_them_right() {
        let report = report();
        let text = RampTable::new(&[(None, &report)]).to_text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 24);
        assert_eq!(
            lines[0],
            "                                                  P-core (CPU 3)  E-core (CPU 15)"
        );
        assert_eq!(lines[1], "Ramp-up (average throughput in window / steady):");
        assert_eq!(
            lines[2],
            "  0-5 ms (%)                                          50.5 ± 0.5       50.5 ± 0.5"
        );
        assert_eq!(
            lines[9],
            "Convergence to 95% (ms)                                        5                5"
        );
        assert!(lines[23].starts_with("Settings: intel_pstate"));
        // Without reports: an empty header line and no settings.
        let empty = RampTable::new(&[]).to_text();
        assert!(empty.starts_with("\nRamp-up"));
        assert!(empty.ends_with("Pinned (nice level)\n"));
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        let report = report();
        let table = RampTable::new(&[(Some("governor=schedutil,epp=\"power\""), &report)]);
        let csv = table.to_csv();
        let lines: Vec<&str> = csv.split_terminator("\r\n").collect();
        assert_eq!(lines.len(), 1 + 22);
        assert_eq!(
            lines[0],
            ",\"governor=schedutil,epp=\"\"power\"\" P-core (CPU 3)\",\
             \"governor=schedutil,epp=\"\"power\"\" E-core (CPU 15)\""
        );
        assert_eq!(
            lines[1],
            "Ramp-up (average throughput in window / steady):,,"
        );
        assert_eq!(lines[2], "0-5 ms (%),50.5 ± 0.5,50.5 ± 0.5");
        assert_eq!(lines[4], "0-20 ms (%),52.0 ± 0.5,—");
        assert!(csv.ends_with(
            "Efficiency (J/Gop),0.021,—\r\n\
             Scheduler (its time left out above):,,\r\n\
             Off the CPU (ms),1.5 ± 0.5,—\r\n\
             Interruptions,3 ± 1,—\r\n\
             Disturbed trials,1 of 5,—\r\n\
             Trials repeated,2,—\r\n\
             CPU busy before (%),3,—\r\n\
             Tasks runnable on it before,0 seen,—\r\n\
             Pinned (nice level),yes (-20),yes (-20)\r\n"
        ));
        assert_eq!(csv_field("a\nb"), "\"a\nb\"");
        assert_eq!(csv_field("plain"), "plain");
    }
}

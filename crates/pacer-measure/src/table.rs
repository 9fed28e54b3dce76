// SPDX-License-Identifier: GPL-3.0-or-later
//! The table of a ramp measurement (`docs/measurement.md` 2) as a model: column labels (setting and core) and
//! rows of formatted figures (a row per window and figure), laid out as text by `pacerctl`,
//! in a grid by the window, and written as CSV for export.
//!
//! Over 500 lines with its unit tests.

use std::fmt::Write as _;

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::CoreType;

use pacer_dbus::measurement::compare::Comparison;
use pacer_dbus::measurement::report::{Clock, Quiet, RampReport, RampRun, Settings};
use pacer_dbus::measurement::statistic::Statistic;

use crate::convergence::Convergence;
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
    /// The same figures as numbers, where the cells say more than a number (`< 1` below the
    /// resolution): CSV keeps the numbers.
    pub numbers: Option<Vec<String>>,
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
    /// The table of a comparison's columns, each labelled with its setting.
    pub fn of_comparison(comparison: &Comparison) -> RampTable {
        let labels: Vec<String> = comparison
            .columns
            .iter()
            .map(|c| c.setting.label())
            .collect();
        let reports: Vec<(Option<&str>, &RampReport)> = comparison
            .columns
            .iter()
            .zip(&labels)
            .map(|(column, label)| (Some(label.as_str()), &column.result))
            .collect();
        RampTable::new(&reports)
    }

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
            numbers: None,
            section: true,
            indented: false,
            means: Vec::new(),
            better: None,
        };
        let figure = |label: String, indented: bool, cell: &dyn Fn(&RampRun) -> String| TableRow {
            label,
            cells: runs.iter().map(|run| cell(run)).collect(),
            numbers: None,
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
        // Below the resolution it says `< 1`, not 0, and ranks as level with the others
        // there; CSV keeps the number.
        let convergence: Vec<Convergence> = runs.iter().map(|run| Convergence::of(run)).collect();
        let t95 = measured(
            gettext("Convergence to 95% (ms)"),
            0,
            Some(Better::Lower),
            &|run| run.t95_ms.as_ref(),
        );
        rows.push(TableRow {
            indented: false,
            cells: convergence
                .iter()
                .zip(&t95.cells)
                .map(|(convergence, number)| {
                    convergence.below_cell().unwrap_or_else(|| number.clone())
                })
                .collect(),
            means: convergence.iter().map(|c| c.rank_ms()).collect(),
            numbers: Some(t95.cells.clone()),
            ..t95
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
    /// quote or a line break), figures as numbers (`docs/measurement.md` 3): a header of an empty field and the column labels, then a
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
                .numbers
                .as_ref()
                .unwrap_or(&row.cells)
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
pub(crate) mod tests;

// SPDX-License-Identifier: GPL-3.0-or-later
//! The result table of the Measure page: in a comparison each setting is named once, by a
//! letter with a legend (`legend`), the columns are headed by the setting's letter over the
//! CPU, and the best setting of each core type is marked in the rows a comparison is about
//! (time to 95 %, the first window).

use pacer_core::i18n::gettext;
use pacer_core::values::CoreType;
use pacer_dbus::measurement::compare::setting_letter;
use pacer_measure::table::{core_label, Better, TableRow};
use relm4::gtk::prelude::*;
use relm4::{adw, gtk};

use super::state::Outcome;

/// What heads one column of figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnHeading {
    /// The setting's place in a comparison (its letter); `None` for a plain measurement.
    pub setting: Option<usize>,
    pub core_type: Option<CoreType>,
    /// `P-core (CPU 7)`.
    pub cpu: String,
}

impl Outcome {
    /// The heading of each column, in the table's order.
    pub fn headings(&self) -> Vec<ColumnHeading> {
        let heading = |setting: Option<usize>| {
            move |run: &pacer_dbus::measurement::report::RampRun| ColumnHeading {
                setting,
                core_type: run.core_type,
                cpu: core_label(run),
            }
        };
        match self {
            Outcome::Ramp(report) => report.runs.iter().map(heading(None)).collect(),
            Outcome::Compare(comparison) => comparison
                .columns
                .iter()
                .enumerate()
                .flat_map(|(index, column)| column.result.runs.iter().map(heading(Some(index))))
                .collect(),
        }
    }
}

/// The columns holding the best figure of their core type in `row`, where the row says
/// which way is better and more than one setting has a figure for that type; none where
/// those figures are all equal.
pub fn best_columns(row: &TableRow, headings: &[ColumnHeading]) -> Vec<usize> {
    let Some(better) = row.better else {
        return Vec::new();
    };
    let mut best = Vec::new();
    let mut types: Vec<Option<CoreType>> = Vec::new();
    for heading in headings {
        if !types.contains(&heading.core_type) {
            types.push(heading.core_type);
        }
    }
    for core_type in types {
        let figures: Vec<(usize, f64)> = headings
            .iter()
            .enumerate()
            .filter(|(_, h)| h.core_type == core_type && h.setting.is_some())
            .filter_map(|(column, _)| Some((column, row.means.get(column).copied().flatten()?)))
            .collect();
        if figures.len() < 2 {
            continue;
        }
        let better_of = |a: f64, b: f64| match better {
            Better::Lower => a.min(b),
            Better::Higher => a.max(b),
        };
        let top = figures
            .iter()
            .map(|&(_, mean)| mean)
            .reduce(better_of)
            .unwrap_or(f64::NAN);
        if figures.iter().all(|&(_, mean)| mean == top) {
            continue;
        }
        best.extend(
            figures
                .iter()
                .filter(|&&(_, mean)| mean == top)
                .map(|&(column, _)| column),
        );
    }
    best.sort_unstable();
    best
}

/// The result's table in two forms, the first that fits shown: side by side (each CPU
/// once over its settings' columns), and stacked for narrow windows (each CPU's figures
/// under its name, the spread beneath each mean).
///
/// AdwSqueezer picks the form: it is deprecated from libadwaita 1.4 (the gnome_48 build),
/// and what replaces it there, a breakpoint, decides on a width fixed beforehand, where the
/// side-by-side form's width depends on the result (how many settings, how many core
/// types). It stays until the table measures its forms itself.
#[allow(deprecated)]
#[derive(Debug, Clone)]
pub struct ResultTable {
    squeezer: adw::Squeezer,
    wide: gtk::Grid,
    stacked: gtk::Box,
}

#[allow(deprecated)]
impl ResultTable {
    pub fn new() -> ResultTable {
        let wide = gtk::Grid::builder()
            .column_spacing(18)
            .row_spacing(4)
            .margin_start(6)
            .margin_end(6)
            .margin_top(6)
            .margin_bottom(6)
            .build();
        let stacked = gtk::Box::new(gtk::Orientation::Vertical, 12);
        stacked.set_margin_start(6);
        stacked.set_margin_end(6);
        let squeezer = adw::Squeezer::builder()
            // The wide form while its wrapped labels fit, not only its natural width.
            .switch_threshold_policy(adw::FoldThresholdPolicy::Minimum)
            .homogeneous(false)
            .transition_type(adw::SqueezerTransitionType::None)
            .build();
        squeezer.add(&wide);
        squeezer.add(&stacked);
        squeezer.connect_visible_child_notify(|squeezer| {
            if let Some(child) = squeezer.visible_child() {
                let form = if child.is::<gtk::Grid>() {
                    "side by side"
                } else {
                    "stacked"
                };
                gtk::glib::g_debug!("pacer", "result table shown {form}");
            }
        });
        ResultTable {
            squeezer,
            wide,
            stacked,
        }
    }

    pub fn widget(&self) -> &gtk::Widget {
        self.squeezer.upcast_ref()
    }

    /// Shows the table of `outcome`, or nothing.
    pub fn show(&self, outcome: Option<&Outcome>) {
        clear(&self.wide);
        while let Some(child) = self.stacked.first_child() {
            self.stacked.remove(&child);
        }
        let Some(outcome) = outcome else {
            return;
        };
        let table = outcome.table();
        let headings = outcome.headings();
        let comparing = headings.iter().any(|h| h.setting.is_some());
        let order = column_order(&headings);
        let groups: Vec<&[usize]> = order
            .chunk_by(|&a, &b| headings[a].cpu == headings[b].cpu)
            .collect();
        // Side by side: each CPU once over its settings' columns, the letters beneath.
        let mut x = 1;
        for group in &groups {
            let width = if comparing { group.len() as i32 } else { 1 };
            let cpu = header(&headings[group[0]].cpu);
            if comparing {
                cpu.set_xalign(0.5);
            }
            self.wide.attach(&cpu, x, 0, width, 1);
            attach_letters(&self.wide, group, &headings, x);
            x += group.len() as i32;
        }
        attach_rows(&self.wide, &table.rows, &order, &headings, comparing, false);
        // Stacked: each CPU's own small table.
        for group in &groups {
            let cpu = header(&headings[group[0]].cpu);
            cpu.set_xalign(0.0);
            self.stacked.append(&cpu);
            let grid = gtk::Grid::builder()
                .column_spacing(12)
                .row_spacing(2)
                .build();
            attach_letters(&grid, group, &headings, 1);
            attach_rows(&grid, &table.rows, group, &headings, comparing, true);
            self.stacked.append(&grid);
        }
        log_fit(&self.wide, "side by side");
        log_fit(&self.stacked, "stacked");
    }
}

fn clear(grid: &gtk::Grid) {
    while let Some(child) = grid.first_child() {
        grid.remove(&child);
    }
}

/// The settings' letters over `columns`, from `x` on row 1 (nothing for a plain measurement).
fn attach_letters(grid: &gtk::Grid, columns: &[usize], headings: &[ColumnHeading], x: i32) {
    for (place, &column) in columns.iter().enumerate() {
        if let Some(setting) = headings[column].setting {
            grid.attach(&header(&setting_letter(setting)), x + place as i32, 1, 1, 1);
        }
    }
}

/// A row per figure, below the headings: its label, then the cells of `columns`, the best
/// setting of each core type marked; `stacked` puts each spread under its mean.
fn attach_rows(
    grid: &gtk::Grid,
    rows: &[TableRow],
    columns: &[usize],
    headings: &[ColumnHeading],
    comparing: bool,
    stacked: bool,
) {
    let first_row = if comparing { 2 } else { 1 };
    for (index, row) in rows.iter().enumerate() {
        let line = first_row + index as i32;
        let label = gtk::Label::builder()
            .label(row.label.trim())
            .xalign(0.0)
            .wrap(true)
            .hexpand(stacked)
            .build();
        if row.section {
            label.add_css_class("heading");
            label.set_margin_top(6);
        }
        if row.indented {
            label.set_margin_start(12);
        }
        grid.attach(&label, 0, line, 1, 1);
        let best = if comparing {
            best_columns(row, headings)
        } else {
            Vec::new()
        };
        for (place, &column) in columns.iter().enumerate() {
            let Some(cell) = row.cells.get(column) else {
                continue;
            };
            let value = cell_label(cell, stacked);
            if best.contains(&column) {
                // The best of its core type: bold and coloured, and said in words too.
                value.add_css_class("heading");
                value.add_css_class("success");
                value.set_tooltip_text(Some(&gettext("The best of this core type")));
            }
            grid.attach(&value, place as i32 + 1, line, 1, 1);
        }
    }
}

/// A figure, its spread in small type (so that four settings fit side by side), beneath it
/// when `stacked`.
fn cell_label(cell: &str, stacked: bool) -> gtk::Label {
    let value = gtk::Label::builder()
        .label(cell)
        .xalign(1.0)
        .justify(gtk::Justification::Right)
        .selectable(true)
        .build();
    if let Some((mean, spread)) = cell.split_once(" ± ") {
        let between = if stacked { "\n" } else { " " };
        value.set_markup(&format!(
            "{}<small>{between}±{}</small>",
            gtk::glib::markup_escape_text(mean),
            gtk::glib::markup_escape_text(spread)
        ));
    }
    value.add_css_class("numeric");
    value
}

/// The order the columns are shown in: by CPU (the table's own order of its first setting),
/// each CPU's settings side by side, so that the settings of a core type compare at a
/// glance.
fn column_order(headings: &[ColumnHeading]) -> Vec<usize> {
    let mut cpus: Vec<&str> = Vec::new();
    for heading in headings {
        if !cpus.contains(&heading.cpu.as_str()) {
            cpus.push(&heading.cpu);
        }
    }
    cpus.iter()
        .flat_map(|cpu| {
            headings
                .iter()
                .enumerate()
                .filter(move |(_, heading)| heading.cpu == *cpu)
                .map(|(column, _)| column)
        })
        .collect()
}

/// Logs, once `form` of the table is laid out (when it is shown), how wide it must be (its
/// labels wrapped) against the room the page gives it: whether everything is in view without
/// scrolling (the window tests read it).
fn log_fit(table: &impl IsA<gtk::Widget>, form: &'static str) {
    table.add_tick_callback(move |table, _| {
        let (minimum, _, _, _) = table.measure(gtk::Orientation::Horizontal, -1);
        let room = table
            .ancestor(gtk::ScrolledWindow::static_type())
            .map_or(0, |scrolled| scrolled.width());
        if room > 0 {
            gtk::glib::g_debug!(
                "pacer",
                "result table {form}: {minimum} px wide in {room} px"
            );
            gtk::glib::ControlFlow::Break
        } else {
            gtk::glib::ControlFlow::Continue
        }
    });
}

fn header(text: &str) -> gtk::Label {
    let label = gtk::Label::new(Some(text));
    label.add_css_class("heading");
    label.set_xalign(1.0);
    label
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn heading(setting: usize, core_type: CoreType) -> ColumnHeading {
        ColumnHeading {
            setting: Some(setting),
            core_type: Some(core_type),
            cpu: String::new(),
        }
    }

    fn row(better: Option<Better>, means: &[Option<f64>]) -> TableRow {
        TableRow {
            label: String::new(),
            cells: means.iter().map(|_| String::new()).collect(),
            numbers: None,
            section: false,
            indented: true,
            means: means.to_vec(),
            better,
        }
    }

    #[test]
    fn marks_the_best_setting_of_each_core_type_only_where_it_differs() {
        use CoreType::{Efficiency, Performance};
        // A and B, each with a P-core and an E-core column.
        let headings = [
            heading(0, Performance),
            heading(0, Efficiency),
            heading(1, Performance),
            heading(1, Efficiency),
        ];
        let times = row(
            Some(Better::Lower),
            &[Some(5.0), Some(8.0), Some(12.0), Some(8.0)],
        );
        // P-cores: A is faster; E-cores: a tie, nothing marked.
        assert_eq!(best_columns(&times, &headings), [0]);
        let early = row(
            Some(Better::Higher),
            &[Some(40.0), Some(10.0), Some(90.0), None],
        );
        // E-cores: only one setting has a figure.
        assert_eq!(best_columns(&early, &headings), [2]);
        assert!(best_columns(&row(None, &[Some(1.0); 4]), &headings).is_empty());
    }
}

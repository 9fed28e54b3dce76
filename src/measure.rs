//! The Measure page: one button measures how fast a core of each type reaches full speed
//! when work arrives (through pacer-helper when it is there: as root, at the highest
//! priority, with energy), with progress and cancel; the result as the seed's table and a
//! ramp chart. A comparison runs it under chosen settings, side by side, and puts the
//! settings back. Results stay in a history for the session, exportable as JSON, CSV, PNG.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use pacer_bench::compare::{Comparison, Setting};
use pacer_bench::report::{self, Progress, RampOptions, RampReport};
use pacer_bench::table::{core_label, RampTable};
use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::Snapshot;
use pacer_core::sim::SimMachine;
use pacer_core::status::Status;
use pacer_core::SysRoot;
use pacer_dbus::client::{self, ClientError};
use pacer_dbus::Helper1Proxy;
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::a11y::labelled;
use crate::plot::{ramp_png, Palette, RampPlot, RampSeries};

/// Trials per CPU: enough for a spread, short enough to wait for (about 2 s each).
const TRIALS: u32 = 5;
/// The size of an exported chart.
const PNG_SIZE: (u32, u32) = (960, 540);

/// A finished measurement.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Ramp(RampReport),
    Compare(Comparison),
}

impl Outcome {
    pub fn table(&self) -> RampTable {
        match self {
            Outcome::Ramp(report) => RampTable::new(&[(None, report)]),
            Outcome::Compare(comparison) => comparison.table(),
        }
    }

    /// One line per measured CPU (and setting), for the chart.
    pub fn series(&self) -> Vec<RampSeries> {
        let reports: Vec<(Option<String>, &RampReport)> = match self {
            Outcome::Ramp(report) => vec![(None, report)],
            Outcome::Compare(comparison) => comparison
                .columns
                .iter()
                .map(|c| (Some(setting_label(&c.setting)), &c.result))
                .collect(),
        };
        reports
            .into_iter()
            .flat_map(|(setting, report)| {
                report.runs.iter().map(move |run| RampSeries {
                    label: match &setting {
                        Some(setting) => format!("{setting} {}", core_label(run)),
                        None => core_label(run),
                    },
                    core_type: run.core_type,
                    points: run
                        .windows
                        .iter()
                        .filter_map(|w| Some((w.end_ms as f64, w.pct?.mean)))
                        .collect(),
                })
            })
            .collect()
    }

    pub fn to_json(&self) -> serde_json::Result<String> {
        match self {
            Outcome::Ramp(report) => serde_json::to_string_pretty(report),
            Outcome::Compare(comparison) => serde_json::to_string_pretty(comparison),
        }
    }
}

fn setting_label(setting: &Setting) -> String {
    if setting.is_empty() {
        gettext("as now")
    } else {
        setting.label()
    }
}

/// One entry of the session's history.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub title: String,
    pub outcome: Outcome,
}

/// What runs now.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    Idle,
    Running {
        comparing: bool,
        /// Trials done of all to do.
        done: u32,
        total: u32,
        text: String,
    },
}

/// The page's state, apart from its widgets.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasureState {
    pub phase: Phase,
    pub history: Vec<Entry>,
    /// The entry shown.
    pub shown: Option<usize>,
    /// How many measurements the session has run, for their titles.
    runs: u32,
}

impl MeasureState {
    pub fn new() -> MeasureState {
        MeasureState {
            phase: Phase::Idle,
            history: Vec::new(),
            shown: None,
            runs: 0,
        }
    }

    /// Starts a measurement of `cpus` under `columns` settings (1 for a plain one); `false`
    /// when one is already running.
    pub fn start(&mut self, cpus: usize, columns: usize) -> bool {
        if self.phase != Phase::Idle {
            return false;
        }
        let total = u32::try_from(cpus * columns)
            .unwrap_or(u32::MAX)
            .saturating_mul(TRIALS);
        self.phase = Phase::Running {
            comparing: columns > 1,
            done: 0,
            total: total.max(1),
            text: gettext("Waiting for the CPUs to go idle…"),
        };
        true
    }

    /// A trial began: `trial` of `trials` on `cpu`, in `column` of a comparison.
    pub fn progress(&mut self, column: usize, cpu: u32, trial: u32, trials: u32) {
        if let Phase::Running {
            done,
            total,
            text,
            comparing,
        } = &mut self.phase
        {
            *done = (*done + 1).min(*total);
            *text = if *comparing {
                fill(
                    gettext("Setting {column}: CPU {cpu}, trial {trial} of {trials}"),
                    &[
                        ("column", &(column + 1)),
                        ("cpu", &cpu),
                        ("trial", &trial),
                        ("trials", &trials),
                    ],
                )
            } else {
                fill(
                    gettext("CPU {cpu}: trial {trial} of {trials}"),
                    &[("cpu", &cpu), ("trial", &trial), ("trials", &trials)],
                )
            };
        }
    }

    /// The fraction done, for the progress bar.
    pub fn fraction(&self) -> f64 {
        match &self.phase {
            Phase::Running { done, total, .. } => f64::from(*done) / f64::from(*total),
            Phase::Idle => 0.0,
        }
    }

    /// The measurement ended: a result joins the history and is shown.
    pub fn finished(&mut self, outcome: Option<Outcome>) {
        self.phase = Phase::Idle;
        if let Some(outcome) = outcome {
            self.runs += 1;
            let title = match &outcome {
                Outcome::Ramp(_) => fill(gettext("Ramp-up #{n}"), &[("n", &self.runs)]),
                Outcome::Compare(_) => fill(gettext("Comparison #{n}"), &[("n", &self.runs)]),
            };
            self.history.push(Entry { title, outcome });
            self.shown = Some(self.history.len() - 1);
        }
    }

    pub fn shown_entry(&self) -> Option<&Entry> {
        self.history.get(self.shown?)
    }
}

/// The format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Export {
    Json,
    Csv,
    Png,
}

impl Export {
    fn extension(self) -> &'static str {
        match self {
            Export::Json => "json",
            Export::Csv => "csv",
            Export::Png => "png",
        }
    }
}

/// Writes `entry` to `path` in `format`.
pub fn export(entry: &Entry, format: Export, path: &Path) -> Result<(), String> {
    let write = |text: String| std::fs::write(path, text).map_err(|e| e.to_string());
    match format {
        Export::Json => write(entry.outcome.to_json().map_err(|e| e.to_string())?),
        Export::Csv => write(entry.outcome.table().to_csv()),
        Export::Png => ramp_png(
            path,
            PNG_SIZE.0,
            PNG_SIZE.1,
            &entry.outcome.series(),
            &Palette::for_dark(false),
        )
        .map_err(|e| e.to_string()),
    }
    .map_err(|error| {
        fill(
            gettext("Cannot write {file}: {error}"),
            &[("file", &path.display()), ("error", &error)],
        )
    })
}

#[derive(Debug)]
pub struct MeasurePage {
    state: MeasureState,
    root: PathBuf,
    /// The machine's last reading (shared with the window).
    status: Option<Arc<Status>>,
    helper: Option<Helper1Proxy<'static>>,
    /// Stops a measurement made here (without the helper).
    cancel_local: Arc<AtomicBool>,
    /// Stops a comparison (the helper's measurements are cancelled by a call).
    cancel_compare: Option<tokio::sync::oneshot::Sender<()>>,
    ramp_plot: RampPlot,
    table: gtk::Grid,
    history: gtk::DropDown,
    compare_rows: Vec<(gtk::DropDown, gtk::DropDown)>,
    compare_options: (Vec<String>, Vec<String>),
}

#[derive(Debug)]
pub enum MeasureMsg {
    Status(Arc<Status>),
    Helper(Option<Helper1Proxy<'static>>),
    Root(PathBuf),
    Measure,
    Compare,
    Cancel,
    Progress {
        column: usize,
        cpu: u32,
        trial: u32,
        trials: u32,
    },
    Finished(Result<Outcome, String>),
    Show(u32),
    Export(Export),
    ExportTo(Export, PathBuf),
}

#[relm4::component(pub)]
impl SimpleComponent for MeasurePage {
    type Init = PathBuf;
    type Input = MeasureMsg;
    /// A message for a toast.
    type Output = String;

    view! {
        gtk::Box {
            set_orientation: gtk::Orientation::Vertical,
            set_spacing: 24,
            set_margin_all: 12,

            adw::PreferencesGroup {
                set_title: &gettext("Ramp-Up"),
                set_description: Some(&gettext("How fast a core reaches full speed when work arrives: a serial floating-point loop on one CPU of each core type, starting from idle.")),

                // The buttons wrap under each other on narrow screens.
                gtk::FlowBox {
                    set_selection_mode: gtk::SelectionMode::None,
                    set_max_children_per_line: 2,
                    set_column_spacing: 12,
                    set_row_spacing: 6,
                    set_margin_top: 6,
                    set_homogeneous: false,

                    gtk::Button {
                        set_label: &gettext("Measure ramp-up"),
                        set_tooltip_text: Some(&gettext("Measure ramp-up (Ctrl+M)")),
                        add_css_class: "suggested-action",
                        add_css_class: "pill",
                        #[watch]
                        set_sensitive: model.state.phase == Phase::Idle && model.status.is_some(),
                        connect_clicked => MeasureMsg::Measure,
                    },
                    #[name = "compare_button"]
                    gtk::MenuButton {
                        set_label: &gettext("_Compare settings…"),
                        set_use_underline: true,
                        add_css_class: "pill",
                        #[watch]
                        set_sensitive: model.state.phase == Phase::Idle && model.helper.is_some(),
                        #[watch]
                        set_tooltip_text: Some(&if model.helper.is_some() {
                            gettext("Measure under two settings, side by side; the settings from before come back afterwards")
                        } else {
                            gettext("Comparing changes settings, which needs pacer-helper")
                        }),
                    },
                },

                gtk::Box {
                    set_spacing: 12,
                    set_margin_top: 12,
                    #[watch]
                    set_visible: model.state.phase != Phase::Idle,

                    gtk::ProgressBar {
                        set_hexpand: true,
                        set_valign: gtk::Align::Center,
                        set_show_text: true,
                        #[watch]
                        set_fraction: model.state.fraction(),
                        #[watch]
                        set_text: Some(match &model.state.phase {
                            Phase::Running { text, .. } => text.as_str(),
                            Phase::Idle => "",
                        }),
                    },
                    gtk::Button {
                        set_label: &gettext("Cancel"),
                        connect_clicked => MeasureMsg::Cancel,
                    },
                },
            },

            adw::PreferencesGroup {
                #[watch]
                set_title: &model.state.shown_entry().map(|e| e.title.clone()).unwrap_or_else(|| gettext("No results yet")),
                #[watch]
                set_description: model.state.shown_entry().map(|e| e.outcome.table().settings_line).as_deref(),
                #[watch]
                set_visible: true,

                #[wrap(Some)]
                set_header_suffix = &gtk::Box {
                    set_spacing: 6,
                    #[watch]
                    set_visible: !model.state.history.is_empty(),

                    #[local_ref]
                    history -> gtk::DropDown {
                        set_valign: gtk::Align::Center,
                        set_tooltip_text: Some(&gettext("Results of this session")),
                        connect_selected_notify[sender] => move |choice| {
                            sender.input(MeasureMsg::Show(choice.selected()));
                        },
                    },
                    #[name = "export_button"]
                    gtk::MenuButton {
                        set_icon_name: "document-save-symbolic",
                        set_valign: gtk::Align::Center,
                        set_tooltip_text: Some(&gettext("Export")),
                    },
                },

                gtk::ScrolledWindow {
                    set_vscrollbar_policy: gtk::PolicyType::Never,
                    set_propagate_natural_height: true,
                    #[watch]
                    set_visible: model.state.shown_entry().is_some(),

                    #[local_ref]
                    table -> gtk::Grid {
                        set_column_spacing: 18,
                        set_row_spacing: 4,
                        set_margin_all: 6,
                    },
                },
                gtk::Frame {
                    add_css_class: "view",
                    set_margin_top: 12,
                    #[watch]
                    set_visible: model.state.shown_entry().is_some(),
                    #[local_ref]
                    ramp_widget -> gtk::DrawingArea {},
                },
            },
        }
    }

    fn init(
        root_dir: PathBuf,
        root: Self::Root,
        sender: ComponentSender<Self>,
    ) -> ComponentParts<Self> {
        let model = MeasurePage {
            state: MeasureState::new(),
            root: root_dir,
            status: None,
            helper: None,
            cancel_local: Arc::new(AtomicBool::new(false)),
            cancel_compare: None,
            ramp_plot: RampPlot::new(),
            table: gtk::Grid::new(),
            history: labelled(&gettext("Results of this session")),
            compare_rows: Vec::new(),
            compare_options: (Vec::new(), Vec::new()),
        };
        let table = &model.table;
        let history = &model.history;
        let ramp_widget = model.ramp_plot.widget();
        let widgets = view_output!();

        widgets
            .export_button
            .set_popover(Some(&export_menu(&sender)));
        let mut model = model;
        widgets
            .compare_button
            .set_popover(Some(&model.compare_popover(&sender)));
        ComponentParts { model, widgets }
    }

    fn update(&mut self, message: MeasureMsg, sender: ComponentSender<Self>) {
        match message {
            MeasureMsg::Status(status) => {
                self.update_compare_options(&status.snapshot);
                self.status = Some(status);
            }
            MeasureMsg::Helper(helper) => self.helper = helper,
            MeasureMsg::Root(root) => {
                self.root = root;
                self.status = None;
                self.helper = None;
            }
            MeasureMsg::Measure => self.measure(&sender),
            MeasureMsg::Compare => self.compare(&sender),
            MeasureMsg::Cancel => {
                self.cancel_local.store(true, Ordering::Relaxed);
                if let Some(cancel) = self.cancel_compare.take() {
                    let _ = cancel.send(());
                } else if let Some(helper) = self.helper.clone() {
                    relm4::spawn(async move {
                        let _ = helper.cancel_measurement().await;
                    });
                }
            }
            MeasureMsg::Progress {
                column,
                cpu,
                trial,
                trials,
            } => {
                self.state.progress(column, cpu, trial, trials);
            }
            MeasureMsg::Finished(result) => {
                self.cancel_compare = None;
                match result {
                    Ok(outcome) => {
                        self.state.finished(Some(outcome));
                        if let Some(entry) = self.state.shown_entry() {
                            relm4::gtk::glib::g_info!("pacer", "measured: {}", entry.title);
                        }
                        self.show_history();
                    }
                    Err(error) => {
                        self.state.finished(None);
                        let _ = sender.output(error);
                    }
                }
            }
            MeasureMsg::Show(index) => {
                if (index as usize) < self.state.history.len()
                    && self.state.shown != Some(index as usize)
                {
                    self.state.shown = Some(index as usize);
                    self.show_entry();
                }
            }
            MeasureMsg::Export(format) => self.choose_file(format, &sender),
            MeasureMsg::ExportTo(format, path) => {
                if let Some(entry) = self.state.shown_entry() {
                    let message = match export(entry, format, &path) {
                        Ok(()) => fill(gettext("Saved {file}"), &[("file", &path.display())]),
                        Err(error) => error,
                    };
                    let _ = sender.output(message);
                }
            }
        }
    }
}

impl MeasurePage {
    fn cpus(&self) -> Vec<u32> {
        self.status
            .as_ref()
            .map(|status| report::default_cpus(&status.snapshot, None))
            .unwrap_or_default()
    }

    fn measure(&mut self, sender: &ComponentSender<Self>) {
        let Some(status) = self.status.clone() else {
            return;
        };
        let cpus = self.cpus();
        if cpus.is_empty() || !self.state.start(cpus.len(), 1) {
            return;
        }
        self.cancel_local.store(false, Ordering::Relaxed);
        let helper = self.helper.clone();
        let root = self.root.clone();
        let cancel = Arc::clone(&self.cancel_local);
        let input = sender.input_sender().clone();
        relm4::spawn(async move {
            let progress = input.clone();
            let on_progress = move |cpu, trial, trials| {
                progress.emit(MeasureMsg::Progress {
                    column: 0,
                    cpu,
                    trial,
                    trials,
                });
            };
            let through_helper = match &helper {
                Some(helper) => client::measure_ramp(helper, &cpus, TRIALS, on_progress).await,
                None => Ok(None),
            };
            let result = match through_helper {
                Ok(Some(mut report)) => {
                    report.settings.profile = client::active_profile().await;
                    Ok(report)
                }
                Ok(None) => {
                    let profile = client::active_profile().await;
                    let progress = input.clone();
                    tokio::task::spawn_blocking(move || {
                        measure_here(&root, &status.snapshot, &cpus, profile, &cancel, &progress)
                    })
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|result| result)
                }
                Err(error) => Err(error.to_string()),
            };
            input.emit(MeasureMsg::Finished(result.map(Outcome::Ramp)));
        });
    }

    fn compare(&mut self, sender: &ComponentSender<Self>) {
        let Some(helper) = self.helper.clone() else {
            return;
        };
        let settings: Vec<Setting> = self
            .compare_rows
            .iter()
            .map(|(governor, epp)| {
                let mut setting = Setting::default();
                let pick = |choice: &gtk::DropDown, options: &[String]| {
                    // The first entry is "as now".
                    (choice.selected() as usize)
                        .checked_sub(1)
                        .and_then(|index| options.get(index).cloned())
                };
                if let Some(value) = pick(governor, &self.compare_options.0) {
                    let _ = setting.insert("governor", &value);
                }
                if let Some(value) = pick(epp, &self.compare_options.1) {
                    let _ = setting.insert("epp", &value);
                }
                setting
            })
            .collect();
        let cpus = self.cpus();
        if cpus.is_empty() || !self.state.start(cpus.len(), settings.len()) {
            return;
        }
        let (cancel, cancelled) = tokio::sync::oneshot::channel::<()>();
        self.cancel_compare = Some(cancel);
        let root = SysRoot::new(&self.root);
        let input = sender.input_sender().clone();
        // On the main loop's context: the comparison only waits on the bus, and its state
        // (which step to stop at) is not shared across threads.
        relm4::spawn_local(async move {
            let progress = input.clone();
            let on_progress = move |column, cpu, trial, trials| {
                progress.emit(MeasureMsg::Progress {
                    column,
                    cpu,
                    trial,
                    trials,
                });
            };
            let cancel = async {
                // A dropped sender (the page gone) is no cancel.
                if cancelled.await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            let result =
                client::compare(&helper, &root, settings, &cpus, TRIALS, on_progress, cancel).await;
            let result = match result {
                Ok(comparison) => Ok(Outcome::Compare(comparison)),
                Err(ClientError::Cancelled) => Err(gettext(
                    "Comparison cancelled; the settings from before are back",
                )),
                Err(error) => Err(error.to_string()),
            };
            input.emit(MeasureMsg::Finished(result));
        });
    }

    fn update_compare_options(&mut self, snapshot: &Snapshot) {
        let policy = snapshot.policies.iter().find(|p| p.is_active());
        let governors: Vec<String> = policy
            .and_then(|p| p.available_governors.as_ref())
            .map(|list| list.iter().map(ToString::to_string).collect())
            .unwrap_or_default();
        let epps: Vec<String> = policy
            .and_then(|p| p.available_epp.as_ref())
            .map(|list| list.iter().map(ToString::to_string).collect())
            .unwrap_or_default();
        if (governors.clone(), epps.clone()) == self.compare_options {
            return;
        }
        let as_now = gettext("as now");
        for (governor, epp) in &self.compare_rows {
            for (choice, options) in [(governor, &governors), (epp, &epps)] {
                let names: Vec<&str> = std::iter::once(as_now.as_str())
                    .chain(options.iter().map(String::as_str))
                    .collect();
                choice.set_model(Some(&gtk::StringList::new(&names)));
                choice.set_sensitive(!options.is_empty());
            }
        }
        self.compare_options = (governors, epps);
    }

    /// The popover choosing two settings to compare.
    fn compare_popover(&mut self, sender: &ComponentSender<Self>) -> gtk::Popover {
        let grid = gtk::Grid::builder()
            .row_spacing(6)
            .column_spacing(12)
            .margin_top(6)
            .margin_bottom(6)
            .margin_start(6)
            .margin_end(6)
            .build();
        grid.attach(&heading(&gettext("Governor")), 1, 0, 1, 1);
        grid.attach(&heading(&gettext("EPP")), 2, 0, 1, 1);
        for (row, name) in [gettext("Setting A"), gettext("Setting B")]
            .iter()
            .enumerate()
        {
            let row = row as i32 + 1;
            grid.attach(&gtk::Label::new(Some(name)), 0, row, 1, 1);
            let governor: gtk::DropDown = labelled(&fill(
                gettext("Governor for {setting}"),
                &[("setting", name)],
            ));
            let epp: gtk::DropDown =
                labelled(&fill(gettext("EPP for {setting}"), &[("setting", name)]));
            grid.attach(&governor, 1, row, 1, 1);
            grid.attach(&epp, 2, row, 1, 1);
            self.compare_rows.push((governor, epp));
        }
        let run = gtk::Button::with_label(&gettext("Run Comparison"));
        run.add_css_class("suggested-action");
        grid.attach(&run, 0, 3, 3, 1);
        let popover = gtk::Popover::builder().child(&grid).build();
        let input = sender.input_sender().clone();
        let closing = popover.clone();
        run.connect_clicked(move |_| {
            closing.popdown();
            input.emit(MeasureMsg::Compare);
        });
        popover
    }

    fn show_history(&self) {
        let titles: Vec<&str> = self
            .state
            .history
            .iter()
            .map(|e| e.title.as_str())
            .collect();
        self.history.set_model(Some(&gtk::StringList::new(&titles)));
        if let Some(shown) = self.state.shown {
            self.history.set_selected(shown as u32);
        }
        self.show_entry();
    }

    fn show_entry(&self) {
        while let Some(child) = self.table.first_child() {
            self.table.remove(&child);
        }
        let Some(entry) = self.state.shown_entry() else {
            return;
        };
        let table = entry.outcome.table();
        for (column, label) in table.columns.iter().enumerate() {
            let header = heading(label);
            header.set_xalign(1.0);
            self.table.attach(&header, column as i32 + 1, 0, 1, 1);
        }
        for (index, row) in table.rows.iter().enumerate() {
            let line = index as i32 + 1;
            let label = gtk::Label::builder()
                .label(row.label.trim())
                .xalign(0.0)
                .build();
            if row.section {
                label.add_css_class("heading");
                label.set_margin_top(6);
            }
            if row.indented {
                label.set_margin_start(12);
            }
            self.table.attach(&label, 0, line, 1, 1);
            for (column, cell) in row.cells.iter().enumerate() {
                let value = gtk::Label::builder()
                    .label(cell.as_str())
                    .xalign(1.0)
                    .selectable(true)
                    .build();
                value.add_css_class("numeric");
                self.table.attach(&value, column as i32 + 1, line, 1, 1);
            }
        }
        self.ramp_plot.set_series(entry.outcome.series());
    }

    fn choose_file(&self, format: Export, sender: &ComponentSender<Self>) {
        if self.state.shown_entry().is_none() {
            return;
        }
        let window = self
            .table
            .root()
            .and_then(|root| root.downcast::<gtk::Window>().ok());
        let dialog = gtk::FileChooserNative::new(
            Some(&gettext("Export Result")),
            window.as_ref(),
            gtk::FileChooserAction::Save,
            Some(&gettext("Export")),
            Some(&gettext("Cancel")),
        );
        dialog.set_current_name(&format!("pacer-ramp-up.{}", format.extension()));
        let input = sender.input_sender().clone();
        dialog.connect_response(move |dialog, response| {
            if response == gtk::ResponseType::Accept {
                if let Some(path) = dialog.file().and_then(|file| file.path()) {
                    input.emit(MeasureMsg::ExportTo(format, path));
                }
            }
            dialog.destroy();
        });
        dialog.show();
    }
}

fn heading(text: &str) -> gtk::Label {
    let label = gtk::Label::new(Some(text));
    label.add_css_class("heading");
    label
}

fn export_menu(sender: &ComponentSender<MeasurePage>) -> gtk::Popover {
    let list = gtk::Box::new(gtk::Orientation::Vertical, 0);
    let popover = gtk::Popover::builder().child(&list).build();
    for (label, format) in [
        (gettext("Figures as JSON"), Export::Json),
        (gettext("Table as CSV"), Export::Csv),
        (gettext("Chart as PNG"), Export::Png),
    ] {
        let button = gtk::Button::with_label(&label);
        button.add_css_class("flat");
        let input = sender.input_sender().clone();
        let closing = popover.clone();
        button.connect_clicked(move |_| {
            closing.popdown();
            input.emit(MeasureMsg::Export(format));
        });
        list.append(&button);
    }
    popover
}

/// Measures in this process: the model's ramp on a simulated machine, else a real one at
/// normal priority (without the helper there is no raised priority).
fn measure_here(
    root: &Path,
    snapshot: &Snapshot,
    cpus: &[u32],
    profile: Option<String>,
    cancel: &AtomicBool,
    progress: &relm4::Sender<MeasureMsg>,
) -> Result<RampReport, String> {
    if snapshot.simulated {
        let machine = SimMachine::load(root)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| gettext("the simulated machine's state is missing"))?;
        return Ok(report::simulated_ramp(&machine, snapshot, cpus, profile));
    }
    let options = RampOptions {
        trials: TRIALS as usize,
        ..RampOptions::default()
    };
    let mut on_progress = |p: Progress| {
        progress.emit(MeasureMsg::Progress {
            column: 0,
            cpu: p.cpu,
            trial: p.trial as u32,
            trials: p.trials as u32,
        });
    };
    report::measure_ramp(
        &SysRoot::new(root),
        snapshot,
        cpus,
        options,
        profile,
        &mut on_progress,
        cancel,
    )
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use pacer_core::sim::SimDir;

    fn simulated_report() -> RampReport {
        let dir = tempfile::tempdir().unwrap();
        SimDir::open_or_create(dir.path(), "intel-hybrid").unwrap();
        let snapshot = Snapshot::read(&SysRoot::new(dir.path())).unwrap();
        let cpus = report::default_cpus(&snapshot, None);
        let machine = SimMachine::load(dir.path()).unwrap().unwrap();
        report::simulated_ramp(&machine, &snapshot, &cpus, None)
    }

    #[test]
    fn one_measurement_at_a_time_with_progress_and_a_history() {
        let mut state = MeasureState::new();
        assert!(state.start(2, 1));
        assert!(!state.start(2, 1), "a second one waits");
        state.progress(0, 7, 1, 5);
        assert!((state.fraction() - 0.1).abs() < 1e-9);
        assert!(
            matches!(&state.phase, Phase::Running { text, .. } if text == "CPU 7: trial 1 of 5")
        );
        state.finished(Some(Outcome::Ramp(simulated_report())));
        assert_eq!(state.phase, Phase::Idle);
        assert_eq!(state.shown, Some(0));
        assert_eq!(state.shown_entry().unwrap().title, "Ramp-up #1");
        // Cancelled or failed: nothing joins the history.
        assert!(state.start(2, 2));
        state.finished(None);
        assert_eq!(state.history.len(), 1);
    }

    #[test]
    fn a_result_gives_a_series_per_core_type_and_exports_in_three_formats() {
        let outcome = Outcome::Ramp(simulated_report());
        let series = outcome.series();
        assert_eq!(series.len(), 2);
        assert_eq!(series[0].points.len(), 7);
        let entry = Entry {
            title: "t".into(),
            outcome,
        };
        let dir = tempfile::tempdir().unwrap();
        for format in [Export::Json, Export::Csv, Export::Png] {
            let path = dir.path().join(format!("out.{}", format.extension()));
            export(&entry, format, &path).unwrap();
            assert!(std::fs::metadata(&path).unwrap().len() > 100, "{format:?}");
        }
        let json: RampReport =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("out.json")).unwrap())
                .unwrap();
        assert_eq!(json.runs.len(), 2);
        assert!(
            export(&entry, Export::Csv, Path::new("/nonexistent/dir/x.csv"))
                .unwrap_err()
                .contains("/nonexistent/dir/x.csv")
        );
    }
}

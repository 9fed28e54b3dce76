// SPDX-License-Identifier: GPL-3.0-or-later
//! The Measure page: one button measures how fast a core of each type reaches full speed
//! when work arrives (through pacer-helper when it is there: as root, at the highest
//! priority, with energy), with progress and cancel; the result as the table of
//! `docs/measurement.md` and a ramp chart. A comparison runs it under chosen settings, side
//! by side, and puts the settings back. Results stay in a history for the session,
//! exportable as JSON, CSV, PNG.

mod choose;
mod export;
#[cfg(test)]
mod fixtures;
mod legend;
mod live;
mod run;
mod save_as;
mod state;
mod summary;
mod table;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use pacer_core::i18n::{fill, gettext};
use pacer_core::status::Status;
use pacer_core::values::{Epp, Governor};
use pacer_dbus::measurement::progress::Progress;
use pacer_dbus::Helper1Proxy;
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::widgets::a11y::labelled;
use crate::widgets::icons;
use crate::widgets::plot::RampPlot;
use crate::words::said::Said;

use export::{export, Export};
use live::Live;
pub use state::MeasureEvent;
use state::{MeasureState, Outcome, Phase};
use table::ResultTable;

/// One setting's row in the comparison's popover.
#[derive(Debug)]
struct CompareRow {
    /// Ticked when the setting is compared; `None` for the two always compared.
    used: Option<gtk::CheckButton>,
    governor: gtk::DropDown,
    epp: gtk::DropDown,
}

impl CompareRow {
    fn is_used(&self) -> bool {
        self.used.as_ref().is_none_or(CheckButtonExt::is_active)
    }
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
    table: ResultTable,
    history: gtk::DropDown,
    compare_rows: Vec<CompareRow>,
    /// What the comparison's choices offer: the governors and the EPP values.
    compare_options: (Vec<Governor>, Vec<Epp>),
}

#[derive(Debug)]
pub enum MeasureMsg {
    Status(Arc<Status>),
    Helper(Option<Helper1Proxy<'static>>),
    Root(PathBuf),
    Measure,
    Compare,
    Cancel,
    Progress { column: usize, progress: Progress },
    Finished(Result<Outcome, Said>),
    Show(u32),
    Export(Export),
    ExportTo(Export, PathBuf),
}

#[relm4::component(pub)]
impl SimpleComponent for MeasurePage {
    type Init = PathBuf;
    type Input = MeasureMsg;
    type Output = MeasureEvent;

    view! {
        gtk::Box {
            set_orientation: gtk::Orientation::Vertical,
            set_spacing: 24,
            set_margin_all: 12,

            adw::PreferencesGroup {
                set_title: &gettext("Ramp-Up"),
                set_description: Some(&gettext("How fast each core type reaches full speed when work arrives")),
                // How, for who wants to know, out of the way of who does not.
                set_tooltip_text: Some(&gettext("A serial floating-point loop runs on one idle CPU of each core type while Pacer times how its throughput grows")),

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
                    #[local_ref]
                    compare_button -> gtk::MenuButton {
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
                        // Long lines shorten rather than widen the window.
                        set_ellipsize: gtk::pango::EllipsizeMode::Middle,
                        #[watch]
                        set_fraction: model.state.live().map_or(0.0, |live| live.fraction(Instant::now())),
                        #[watch]
                        set_text: model.state.live().map(Live::text).as_deref(),
                    },
                    gtk::Button {
                        set_label: &gettext("Cancel"),
                        connect_clicked => MeasureMsg::Cancel,
                    },
                },
            },

            adw::PreferencesGroup {
                #[watch]
                set_title: &if model.state.running() {
                    gettext("Measuring")
                } else {
                    model.state.shown_entry().map(|e| e.title.clone()).unwrap_or_else(|| gettext("No results yet"))
                },
                #[watch]
                set_description: model.state.shown_entry().filter(|_| !model.state.running()).map(|e| e.outcome.description()).as_deref(),

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
                    #[local_ref]
                    export_button -> gtk::MenuButton {
                        set_icon_name: icons::EXPORT,
                        set_valign: gtk::Align::Center,
                        set_tooltip_text: Some(&gettext("Export")),
                    },
                },

                // What the result means, before its table.
                gtk::Label {
                    set_wrap: true,
                    set_xalign: 0.0,
                    set_margin_bottom: 6,
                    add_css_class: "heading",
                    // Worked out once a run is over (here and in the verdicts below): hidden
                    // while it runs, they would be made again at each step of its progress.
                    #[watch]
                    set_label: &model.state.shown_entry().filter(|_| !model.state.running()).map(|e| summary::sentence(&e.outcome)).unwrap_or_default(),
                    // The kernel's own words for the settings, for those who want them.
                    #[watch]
                    set_tooltip_text: model.state.shown_entry().filter(|_| !model.state.running()).map(|e| e.outcome.kernel_values()).as_deref(),
                    #[watch]
                    set_visible: model.state.shown_entry().is_some() && !model.state.running(),
                },
                // A verdict per run against published figures.
                gtk::Label {
                    set_wrap: true,
                    set_xalign: 0.0,
                    set_margin_bottom: 6,
                    #[watch]
                    set_label: &model.state.shown_entry().filter(|_| !model.state.running()).map(|e| summary::verdicts(&e.outcome).join("\n")).unwrap_or_default(),
                    #[watch]
                    set_visible: model.state.shown_entry().is_some() && !model.state.running(),
                },
                gtk::ScrolledWindow {
                    set_vscrollbar_policy: gtk::PolicyType::Never,
                    set_propagate_natural_height: true,
                    #[watch]
                    set_visible: model.state.shown_entry().is_some() && !model.state.running(),

                    #[local_ref]
                    table -> gtk::Widget {},
                },
                gtk::Frame {
                    add_css_class: "view",
                    set_margin_top: 12,
                    #[watch]
                    set_visible: model.state.shown_entry().is_some() || model.state.running(),
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
            table: ResultTable::new(),
            history: labelled(&gettext("Results of this session")),
            compare_rows: Vec::new(),
            compare_options: (Vec::new(), Vec::new()),
        };
        let table = model.table.widget();
        let history = &model.history;
        let ramp_widget = model.ramp_plot.widget();
        // GTK 4.8 gives a menu button no name a screen reader could speak, even with a label.
        let compare_button: &gtk::MenuButton = &labelled(&gettext("Compare settings…"));
        let export_button: &gtk::MenuButton = &labelled(&gettext("Export"));
        let widgets = view_output!();

        export_button.set_popover(Some(&export_menu(&sender)));
        let mut model = model;
        compare_button.set_popover(Some(&model.compare_popover(&sender)));
        ComponentParts { model, widgets }
    }

    fn update(&mut self, message: MeasureMsg, sender: ComponentSender<Self>) {
        let was_running = self.state.running();
        self.follow(message, &sender);
        if self.state.running() != was_running {
            let _ = sender.output(MeasureEvent::Running(self.state.running()));
        }
    }
}

impl MeasurePage {
    /// Does what `message` asks.
    fn follow(&mut self, message: MeasureMsg, sender: &ComponentSender<Self>) {
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
            MeasureMsg::Measure => self.measure(sender),
            MeasureMsg::Compare => self.compare(sender),
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
            MeasureMsg::Progress { column, progress } => {
                let core_type = self
                    .status
                    .as_ref()
                    .and_then(|status| status.snapshot.cpu(progress.cpu))
                    .and_then(|cpu| cpu.core_type);
                self.state
                    .progress(column, core_type, progress, Instant::now());
                if let Some(live) = self.state.live() {
                    relm4::gtk::glib::g_debug!("pacer", "measure progress: {}", live.text());
                }
                self.ramp_plot.set_chart(self.state.chart());
            }
            MeasureMsg::Finished(result) => {
                self.cancel_compare = None;
                match result {
                    Ok(outcome) => {
                        self.state.finished(Some(outcome));
                        if let Some(entry) = self.state.shown_entry() {
                            relm4::gtk::glib::g_info!(
                                "pacer",
                                "measured: {} {:?}",
                                entry.title,
                                entry.outcome.legend()
                            );
                            relm4::gtk::glib::g_info!(
                                "pacer",
                                "result says: {} {:?}",
                                summary::sentence(&entry.outcome),
                                summary::verdicts(&entry.outcome)
                            );
                        }
                        self.show_history();
                    }
                    Err(error) => {
                        self.state.finished(None);
                        self.ramp_plot.set_chart(self.state.chart());
                        relm4::gtk::glib::g_info!("pacer", "measurement ended: {:?}", error);
                        let _ = sender.output(MeasureEvent::Say(error));
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
            MeasureMsg::Export(format) => self.choose_file(format, sender),
            MeasureMsg::ExportTo(format, path) => {
                // Drawn and written off the main loop (a PNG takes a while).
                if let Some(entry) = self.state.shown_entry().cloned() {
                    let output = sender.output_sender().clone();
                    relm4::spawn_blocking(move || {
                        output.emit(MeasureEvent::Say(match export(&entry, format, &path) {
                            Ok(()) => Said::plain(fill(
                                gettext("Saved {file}"),
                                &[("file", &path.display())],
                            )),
                            Err(said) => said,
                        }));
                    });
                }
            }
        }
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
        let entry = self.state.shown_entry();
        self.table.show(entry.map(|entry| &entry.outcome));
        self.ramp_plot.set_chart(self.state.chart());
    }

    fn choose_file(&self, format: Export, sender: &ComponentSender<Self>) {
        if self.state.shown_entry().is_none() {
            return;
        }
        let input = sender.input_sender().clone();
        let name = format!("pacer-ramp-up.{}", format.extension());
        save_as::ask_where(self.table.widget(), &name, move |path| {
            input.emit(MeasureMsg::ExportTo(format, path));
        });
    }
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

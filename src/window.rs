//! The main window. For now it shows the machine's state read once; the live pages come with
//! their own components.

use std::path::PathBuf;

use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::{cores_heading, group_policies};
use pacer_core::status::Status;
use pacer_core::SysRoot;
use relm4::prelude::*;
use relm4::RelmRemoveAllExt;
use relm4::{adw, gtk};

use adw::prelude::*;

#[derive(Debug)]
pub struct Window {
    rows: gtk::ListBox,
}

#[derive(Debug)]
pub enum WindowCommand {
    /// The snapshot, read off the main loop, or why it could not be read.
    Read(Result<Status, String>),
}

#[relm4::component(pub)]
impl Component for Window {
    type Init = PathBuf;
    type Input = ();
    type Output = ();
    type CommandOutput = WindowCommand;

    view! {
        adw::ApplicationWindow {
            set_title: Some(&gettext("Pacer")),
            set_default_size: (520, 640),

            gtk::Box {
                set_orientation: gtk::Orientation::Vertical,

                adw::HeaderBar {},

                gtk::ScrolledWindow {
                    set_vexpand: true,
                    set_hscrollbar_policy: gtk::PolicyType::Never,

                    adw::Clamp {
                        set_maximum_size: 720,
                        set_margin_all: 12,

                        #[local_ref]
                        rows -> gtk::ListBox {
                            add_css_class: "boxed-list",
                            set_selection_mode: gtk::SelectionMode::None,
                            set_valign: gtk::Align::Start,
                        },
                    },
                },
            },
        }
    }

    fn init(
        root_dir: PathBuf,
        root: Self::Root,
        sender: ComponentSender<Self>,
    ) -> ComponentParts<Self> {
        let rows = gtk::ListBox::new();
        rows.append(&row(&gettext("Reading the machine…"), ""));
        // Reading sysfs and asking the bus happen off the main loop (relm4's runtime; every
        // exchange with the bus is bounded to a second).
        sender.oneshot_command(async move {
            let root = SysRoot::new(root_dir);
            WindowCommand::Read(Status::gather(&root).await.map_err(|e| e.to_string()))
        });
        let model = Window { rows: rows.clone() };
        let widgets = view_output!();
        ComponentParts { model, widgets }
    }

    fn update_cmd(
        &mut self,
        command: WindowCommand,
        _sender: ComponentSender<Self>,
        _root: &Self::Root,
    ) {
        let WindowCommand::Read(result) = command;
        self.rows.remove_all();
        match result {
            Ok(status) => {
                for (title, subtitle) in summary(&status) {
                    self.rows.append(&row(&title, &subtitle));
                }
            }
            Err(error) => self
                .rows
                .append(&row(&gettext("Cannot read the CPU state"), &error)),
        }
    }
}

fn row(title: &str, subtitle: &str) -> adw::ActionRow {
    let row = adw::ActionRow::builder().title(title).build();
    if !subtitle.is_empty() {
        row.set_subtitle(subtitle);
    }
    row
}

/// Title and subtitle for each row: findings first, then profile, driver, EAS, and each
/// group of policies.
fn summary(status: &Status) -> Vec<(String, String)> {
    let snapshot = &status.snapshot;
    let mut rows = Vec::new();
    if snapshot.simulated {
        rows.push((
            gettext("Simulated machine"),
            gettext("Not this computer's hardware: a model that follows the kernel's rules"),
        ));
    }
    for finding in &status.findings {
        let fix = fill(gettext("Fix: {fix}"), &[("fix", &finding.fix.description)]);
        rows.push((
            finding.summary.clone(),
            format!("{}\n{fix}", finding.detail),
        ));
    }
    let profile = match (&status.profile, status.profile_problems.first()) {
        (Some(profile), _) => fill(
            gettext("{profile}, set by {daemon}"),
            &[("profile", &profile.active), ("daemon", &profile.daemon)],
        ),
        (None, Some(problem)) => problem.to_string(),
        (None, None) => gettext("Unknown"),
    };
    rows.push((gettext("Power profile"), profile));
    let driver = match (&snapshot.driver.name, snapshot.driver.mode) {
        (Some(name), Some(mode)) => fill(
            gettext("{driver}, {mode} mode"),
            &[("driver", name), ("mode", &mode)],
        ),
        (Some(name), None) => name.clone(),
        (None, _) => gettext("No CPU frequency scaling"),
    };
    rows.push((gettext("Frequency driver"), driver));
    let eas = match snapshot.eas.active {
        Some(true) => gettext("Running"),
        Some(false) => gettext("Not running"),
        None => gettext("Unknown"),
    };
    let eas = if snapshot.eas.reasons.is_empty() {
        eas
    } else {
        format!("{eas}: {}", snapshot.eas.reasons_text())
    };
    rows.push((gettext("Energy-aware scheduling"), eas));
    for group in group_policies(snapshot) {
        let kind = cores_heading(group.core_type);
        let title = fill(
            gettext("{kind}: CPU {cpus}"),
            &[("kind", &kind), ("cpus", &group.cpus)],
        );
        let mut parts = Vec::new();
        if let Some(governor) = &group.governor {
            parts.push(governor.to_string());
        }
        if let Some(epp) = group.epp {
            parts.push(epp.to_string());
        }
        if let (Some(min), Some(max)) = (group.min_khz, group.max_khz) {
            parts.push(fill(
                gettext("{min}–{max} MHz"),
                &[("min", &min.mhz()), ("max", &max.mhz())],
            ));
        }
        rows.push((title, parts.join(" · ")));
    }
    rows
}

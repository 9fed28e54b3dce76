// SPDX-License-Identifier: GPL-3.0-or-later
//! The tray item (a StatusNotifierItem through `ksni`, shown by KDE, Xfce, Cinnamon, Budgie,
//! and GNOME with the AppIndicator extension): the profile as its icon, with a warning
//! variant while a finding is active; a tooltip with the profile, EPP and current frequency
//! per core type, and what holds a core type back where the user did not choose it (the
//! firmware, the platform, cooling, a power limit); a menu to switch profile, fix findings, measure, open the window or quit.
//! A finding is one short line in plain words there (`words::finding::headline`); its
//! details are in the window, which a finding that Pacer cannot fix opens.
//!
//! The tray runs in ksni's task on relm4's runtime; what it shows is a [`TrayView`] the
//! window computes from each new state, and what the user picks goes back to the window as
//! its messages. Frequencies are read when the tooltip is asked for, not polled.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pacer_core::findings::{FixAction, Severity};
use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::{cores_heading, FrequencySampler, Snapshot};
use pacer_core::values::{CoreType, Epp};
use pacer_core::SysRoot;
use relm4::gtk::glib;
use relm4::Sender;

use crate::app::config;
use crate::data::change::Change;
use crate::data::request::Request;
use crate::desktop::session_state::SessionState;
use crate::widgets::icons;
use crate::words::profile::profile_label;
use crate::words::setting::epp_label;

/// One core type's line of the tooltip: its name, its EPP, and which sampled CPUs it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreTypeLine {
    pub core_type: Option<CoreType>,
    /// The EPP its policies share, or `None` when they differ or have none.
    pub epp: Option<Epp>,
    /// Indexes into the sampled CPUs.
    pub cpus: Vec<usize>,
}

/// An active finding: its one line of plain words, what the recording says caused it, and
/// the fix Pacer can carry out, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrayFinding {
    pub summary: String,
    pub why: Option<String>,
    pub fix: Option<FixAction>,
}

/// Everything the tray shows, from one reading of the machine.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TrayView {
    pub icon: String,
    pub title: String,
    /// The profiles offered (name, label) and which is active.
    pub profiles: Vec<(String, String)>,
    pub active: Option<usize>,
    pub findings: Vec<TrayFinding>,
    pub core_types: Vec<CoreTypeLine>,
    /// One line per core type held back by a limit outside its settings
    /// ([`Limiter::is_outside_settings`](pacer_core::limits::Limiter::is_outside_settings)).
    pub limits: Vec<String>,
    /// The online CPUs whose frequency the tooltip shows.
    pub cpus: Vec<u32>,
}

/// The icon for `profile`, in its warning variant while `warning`.
pub fn icon_name(profile: Option<&str>, warning: bool) -> String {
    // No daemon, or a profile of its own: the middle gauge says nothing wrong.
    let profile = profile
        .filter(|name| matches!(*name, "power-saver" | "balanced" | "performance"))
        .unwrap_or("balanced");
    let variant = if warning { "-warning" } else { "" };
    format!("io.github.pacerapp.Pacer-{profile}{variant}-symbolic")
}

impl TrayView {
    /// What the tray shows from its registration to the first reading of the machine:
    /// Pacer's gauge and name. A host draws the item as soon as it registers, and an item
    /// with no icon is drawn as an empty slot, or not at all.
    pub fn before_first_reading() -> TrayView {
        TrayView {
            icon: icon_name(None, false),
            // The application's name, which is not translated.
            title: "Pacer".to_owned(),
            ..TrayView::default()
        }
    }

    /// The tray's view of the session's `state`, the CPUs as `snapshot` has them.
    pub fn of(state: &SessionState, snapshot: &Snapshot) -> TrayView {
        let warning = state
            .findings
            .iter()
            .any(|finding| finding.severity == Severity::Warning);
        let profiles: Vec<(String, String)> = state
            .profiles
            .iter()
            .map(|name| (name.clone(), profile_label(name)))
            .collect();
        let active = state
            .profile
            .as_ref()
            .and_then(|active| profiles.iter().position(|(name, _)| name == active));
        let title = match &state.profile {
            Some(profile) => fill(
                gettext("Pacer: {profile} profile"),
                &[("profile", &profile_label(profile))],
            ),
            None => gettext("Pacer: no power profile daemon"),
        };
        let online: Vec<_> = snapshot.cpus.iter().filter(|cpu| cpu.online).collect();
        let core_types = state
            .core_types
            .iter()
            .map(|shared| CoreTypeLine {
                core_type: shared.core_type,
                epp: shared.epp,
                cpus: (0..online.len())
                    .filter(|&index| online[index].core_type == shared.core_type)
                    .collect(),
            })
            .collect();
        TrayView {
            icon: icon_name(state.profile.as_deref(), warning),
            title,
            profiles,
            active,
            findings: state
                .findings
                .iter()
                .map(|finding| TrayFinding {
                    summary: finding.summary.clone(),
                    why: finding.why.clone(),
                    fix: finding.fix.clone(),
                })
                .collect(),
            core_types,
            limits: state
                .limits
                .iter()
                .filter(|limit| limit.limiter.is_outside_settings())
                .map(|limit| limit.line.clone())
                .collect(),
            cpus: online.iter().map(|cpu| cpu.id).collect(),
        }
    }

    /// The tooltip's lines: per core type its EPP and the median frequency of `khz` (each
    /// sampled CPU's, in the order of [`TrayView::cpus`]), what holds a core type back where
    /// the user did not choose it, then the findings, each with what caused it where the
    /// recording says.
    pub fn tooltip_lines(&self, khz: &[Option<u32>]) -> Vec<String> {
        let mut lines: Vec<String> = self
            .core_types
            .iter()
            .map(|line| {
                let mut values: Vec<u32> = line
                    .cpus
                    .iter()
                    .filter_map(|&index| khz.get(index).copied().flatten())
                    .collect();
                values.sort_unstable();
                let frequency = values.get(values.len() / 2).map_or_else(
                    || "—".to_owned(),
                    |median| format!("{:.2}", f64::from(*median) / 1e6),
                );
                fill(
                    gettext("{cores}: EPP {epp}, {frequency} GHz"),
                    &[
                        ("cores", &cores_heading(line.core_type)),
                        ("epp", &line.epp.map_or_else(|| "—".to_owned(), epp_label)),
                        ("frequency", &frequency),
                    ],
                )
            })
            .collect();
        lines.extend(self.limits.iter().cloned());
        for finding in &self.findings {
            lines.push(format!("⚠ {}", finding.summary));
            lines.extend(finding.why.clone());
        }
        lines
    }
}

/// The tray item: the view to show, where to send requests, and the sampler the tooltip
/// reads frequencies with.
#[derive(Debug)]
pub struct PacerTray {
    pub view: TrayView,
    requests: Sender<Request>,
    root: SysRoot,
    /// Built for the CPUs of the current view, on the first tooltip after it changed.
    sampler: Mutex<Option<(Vec<u32>, FrequencySampler)>>,
    /// No StatusNotifierWatcher took the item (yet): a panel that starts later will. Shared
    /// with the window, which tells the user when nothing shows the tray.
    unseen: Arc<AtomicBool>,
}

impl PacerTray {
    pub fn new(root: &Path, requests: Sender<Request>) -> PacerTray {
        PacerTray {
            view: TrayView::before_first_reading(),
            requests,
            root: SysRoot::new(root),
            sampler: Mutex::new(None),
            unseen: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Whether no StatusNotifierWatcher has the item.
    pub fn unseen(&self) -> bool {
        self.unseen.load(Ordering::Relaxed)
    }

    /// The flag behind [`PacerTray::unseen`], to read once the tray has moved to its thread.
    pub fn unseen_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.unseen)
    }

    fn frequencies(&self) -> Vec<Option<u32>> {
        let Ok(mut kept) = self.sampler.lock() else {
            return Vec::new();
        };
        if kept
            .as_ref()
            .is_none_or(|(cpus, _)| *cpus != self.view.cpus)
        {
            // The snapshot maps CPUs to policies; read only when the CPUs changed.
            let Ok(snapshot) = Snapshot::read(&self.root) else {
                return Vec::new();
            };
            let sampler = FrequencySampler::new(&self.root, &snapshot, &self.view.cpus);
            *kept = Some((self.view.cpus.clone(), sampler));
        }
        kept.as_mut()
            .map(|(_, sampler)| sampler.sample())
            .unwrap_or_default()
    }

    fn request(&self, request: Request) {
        self.requests.emit(request);
    }
}

impl ksni::Tray for PacerTray {
    fn id(&self) -> String {
        config::APP_ID.to_owned()
    }

    fn title(&self) -> String {
        self.view.title.clone()
    }

    fn icon_name(&self) -> String {
        self.view.icon.clone()
    }

    fn icon_theme_path(&self) -> String {
        // A build tree's icons; installed ones are in the icon theme. The folder that holds
        // the files themselves: a tray host adds the path to its icon theme's search path,
        // where a theme needs an index.theme to be looked into, and plain files are found
        // as they are (GNOME's AppIndicator extension drew its "•••" placeholder otherwise).
        let dev = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/icons/hicolor/symbolic/apps"
        );
        if Path::new(dev).is_dir() {
            dev.to_owned()
        } else {
            String::new()
        }
    }

    fn tool_tip(&self) -> ksni::ToolTip {
        ksni::ToolTip {
            icon_name: self.view.icon.clone(),
            icon_pixmap: Vec::new(),
            title: self.view.title.clone(),
            description: self.view.tooltip_lines(&self.frequencies()).join("\n"),
        }
    }

    fn watcher_online(&self) {
        self.unseen.store(false, Ordering::Relaxed);
        glib::g_info!("pacer", "tray registered");
    }

    fn watcher_offline(&self, reason: ksni::OfflineReason) -> bool {
        self.unseen.store(true, Ordering::Relaxed);
        glib::g_message!(
            "pacer",
            "tray item not shown ({:?}): it appears when a StatusNotifierWatcher starts",
            reason
        );
        // Keep serving: a panel may start later.
        true
    }

    fn activate(&mut self, _x: i32, _y: i32) {
        self.request(Request::Show(None));
    }

    fn menu(&self) -> Vec<ksni::MenuItem<Self>> {
        use ksni::menu::{RadioGroup, RadioItem, StandardItem};
        let mut items: Vec<ksni::MenuItem<Self>> = Vec::new();
        if !self.view.profiles.is_empty() {
            let names: Vec<String> = self.view.profiles.iter().map(|(n, _)| n.clone()).collect();
            items.push(
                RadioGroup {
                    selected: self.view.active.unwrap_or(usize::MAX),
                    select: Box::new(move |tray: &mut Self, index| {
                        if let Some(name) = names.get(index) {
                            tray.request(Request::Change(Change::Profile(name.clone())));
                        }
                    }),
                    options: self
                        .view
                        .profiles
                        .iter()
                        .map(|(_, label)| RadioItem {
                            label: label.clone(),
                            ..Default::default()
                        })
                        .collect(),
                }
                .into(),
            );
            items.push(ksni::MenuItem::Separator);
        }
        for TrayFinding { summary, fix, .. } in &self.view.findings {
            let item = match fix {
                Some(action) => {
                    let action = action.clone();
                    StandardItem {
                        label: fill(gettext("Fix: {finding}"), &[("finding", summary)]),
                        icon_name: icons::WARNING.into(),
                        activate: Box::new(move |tray: &mut Self| {
                            tray.request(Request::Fix(action.clone()));
                        }),
                        ..Default::default()
                    }
                }
                // What Pacer cannot fix is explained in the window.
                None => StandardItem {
                    label: summary.clone(),
                    icon_name: icons::WARNING.into(),
                    activate: Box::new(|tray: &mut Self| tray.request(Request::Show(None))),
                    ..Default::default()
                },
            };
            items.push(item.into());
        }
        if !self.view.findings.is_empty() {
            items.push(ksni::MenuItem::Separator);
        }
        for (label, request) in [
            (gettext("Measure Ramp-Up"), Request::Measure),
            (gettext("Open Pacer"), Request::Show(None)),
            (gettext("Quit"), Request::Quit),
        ] {
            items.push(
                StandardItem {
                    label,
                    activate: Box::new(move |tray: &mut Self| tray.request(request.clone())),
                    ..Default::default()
                }
                .into(),
            );
        }
        items
    }
}

/// The running tray item, to update what it shows.
#[derive(Clone)]
pub struct TrayHandle(pub Arc<ksni::Handle<PacerTray>>);

impl std::fmt::Debug for TrayHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TrayHandle")
    }
}

#[cfg(test)]
mod tests;

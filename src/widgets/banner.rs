// SPDX-License-Identifier: GPL-3.0-or-later
//! The banner at the top of the window: what is wrong (the findings, most severe first, each
//! with its explanation on demand and a button for its fix), and what the window cannot do
//! (no helper: read-only; a simulated machine; no CPU frequency control here).

use pacer_core::findings::{FixAction, Severity};
use pacer_core::i18n::{fill, gettext};
use pacer_core::status::Status;
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::data::change::offered_fix;
use crate::widgets::a11y::labelled;
use crate::widgets::icons;
use crate::words::why::{why, with_why};

/// What a notice's button does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticeAction {
    Fix(FixAction),
    /// Switch the window to the simulated laptop.
    Simulate,
}

/// One line of the banner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// Tells a notice still shown from a new one (a finding's key).
    pub key: String,
    pub severity: Severity,
    pub title: String,
    /// Shown on demand.
    pub detail: Option<String>,
    /// The button's label and what it does; `None`: nothing to press.
    pub action: Option<(String, NoticeAction)>,
}

/// What the window knows that the banner reports.
#[derive(Debug, Default)]
pub struct BannerFacts<'a> {
    pub status: Option<&'a Status>,
    /// Why settings cannot be changed, when they cannot.
    pub read_only: Option<&'a str>,
    /// The simulated model, in words, when the machine is simulated.
    pub simulated: Option<&'a str>,
}

/// The banner's notices: findings (warnings, then information), then the machine's limits.
pub fn notices(facts: &BannerFacts<'_>) -> Vec<Notice> {
    let mut notices = Vec::new();
    if let Some(status) = facts.status {
        let mut findings: Vec<_> = status.findings.iter().collect();
        findings.sort_by_key(|finding| finding.severity);
        let mut fix_offered = false;
        for finding in findings {
            let fix = offered_fix(finding, facts.read_only.is_none());
            let detail = with_why(&finding.detail, why(finding).as_deref());
            let detail = fill(
                gettext("{why}\nFix: {fix}"),
                &[("why", &detail), ("fix", &finding.fix.description)],
            );
            notices.push(Notice {
                key: finding.key(),
                severity: finding.severity,
                title: finding.summary.clone(),
                detail: Some(detail),
                action: fix.map(|fix| {
                    // Alt+F fixes the most severe finding.
                    let label = if fix_offered {
                        gettext("Fix")
                    } else {
                        gettext("_Fix")
                    };
                    fix_offered = true;
                    (label, NoticeAction::Fix(fix.clone()))
                }),
            });
        }
        if !status.snapshot.has_cpufreq() && facts.simulated.is_none() {
            notices.push(Notice {
                key: "no-cpufreq".to_owned(),
                severity: Severity::Info,
                title: gettext("This computer has no CPU frequency control"),
                detail: Some(gettext("Its kernel offers no cpufreq policies (a virtual machine, most likely): there is nothing to show or change. A simulated laptop shows what Pacer does; it follows the kernel's rules and changes nothing real.")),
                // Alt+S presses it.
                action: Some((gettext("Use a _Simulated Laptop"), NoticeAction::Simulate)),
            });
        }
    }
    if let Some(model) = facts.simulated {
        notices.push(Notice {
            key: "simulated".to_owned(),
            severity: Severity::Info,
            title: gettext("Simulated machine: not this computer's hardware"),
            detail: Some(fill(
                gettext("{model}. It follows the kernel's rules; changes apply to the model only."),
                &[("model", &model)],
            )),
            action: None,
        });
    }
    if let Some(why) = facts.read_only {
        notices.push(Notice {
            key: "read-only".to_owned(),
            severity: Severity::Info,
            title: why.to_owned(),
            detail: None,
            action: None,
        });
    }
    notices
}

#[derive(Debug)]
pub struct Banner {
    shown: Vec<Notice>,
    list: gtk::Box,
}

#[derive(Debug)]
pub enum BannerMsg {
    Show(Vec<Notice>),
    Act(NoticeAction),
}

#[relm4::component(pub)]
impl SimpleComponent for Banner {
    type Init = ();
    type Input = BannerMsg;
    type Output = NoticeAction;

    view! {
        gtk::Box {
            set_orientation: gtk::Orientation::Vertical,
            set_visible: false,
        }
    }

    fn init(_: (), root: Self::Root, _sender: ComponentSender<Self>) -> ComponentParts<Self> {
        let model = Banner {
            shown: Vec::new(),
            list: root.clone(),
        };
        let widgets = view_output!();
        ComponentParts { model, widgets }
    }

    fn update(&mut self, message: BannerMsg, sender: ComponentSender<Self>) {
        match message {
            BannerMsg::Show(notices) => {
                if notices == self.shown {
                    return;
                }
                for notice in notices.iter().filter(|n| !self.shown.contains(n)) {
                    // For people and tests reading the log: what the banner now says.
                    relm4::gtk::glib::g_info!(
                        "pacer",
                        "banner shows {}: {}",
                        notice.key,
                        notice.title
                    );
                    let why = notice.detail.iter().flat_map(|d| d.lines());
                    for line in why.filter(|line| line.starts_with(&gettext("Why: "))) {
                        relm4::gtk::glib::g_info!("pacer", "banner explains {}", line);
                    }
                }
                for notice in self.shown.iter().filter(|n| !notices.contains(n)) {
                    relm4::gtk::glib::g_info!("pacer", "banner clears {}", notice.key);
                }
                while let Some(child) = self.list.first_child() {
                    self.list.remove(&child);
                }
                for (index, notice) in notices.iter().enumerate() {
                    // Alt+W explains the first notice, the most severe.
                    self.list
                        .append(&notice_widget(notice, index == 0, &sender));
                }
                self.list.set_visible(!notices.is_empty());
                self.shown = notices;
            }
            BannerMsg::Act(action) => {
                let _ = sender.output(action);
            }
        }
    }
}

fn notice_widget(notice: &Notice, first: bool, sender: &ComponentSender<Banner>) -> gtk::Widget {
    let outer = gtk::Box::new(gtk::Orientation::Vertical, 6);
    outer.add_css_class("pacer-banner");
    outer.add_css_class(match notice.severity {
        Severity::Warning => "warning",
        Severity::Info => "info",
    });
    let line = gtk::Box::new(gtk::Orientation::Horizontal, 12);
    // Its severity in words for a screen reader, as its icon says it on screen.
    let (icon_name, severity) = match notice.severity {
        Severity::Warning => (icons::WARNING, gettext("Warning")),
        Severity::Info => (icons::INFORMATION, gettext("Information")),
    };
    let icon: gtk::Image = labelled(&severity);
    icon.set_icon_name(Some(icon_name));
    icon.set_valign(gtk::Align::Center);
    line.append(&icon);
    let title = gtk::Label::builder()
        .label(notice.title.as_str())
        .wrap(true)
        .xalign(0.0)
        .hexpand(true)
        .build();
    title.add_css_class("heading");
    line.append(&title);
    let buttons = gtk::Box::new(gtk::Orientation::Horizontal, 6);
    buttons.set_valign(gtk::Align::Center);
    if let Some(detail) = &notice.detail {
        let label = gtk::Label::builder()
            .label(detail.as_str())
            .wrap(true)
            .xalign(0.0)
            .selectable(true)
            .build();
        let revealer = gtk::Revealer::builder().child(&label).build();
        let toggle: gtk::ToggleButton = labelled(&fill(
            gettext("Explain: {title}"),
            &[("title", &notice.title)],
        ));
        if first {
            toggle.set_label(&gettext("_Why?"));
            toggle.set_use_underline(true);
        } else {
            toggle.set_label(&gettext("Why?"));
        }
        toggle.set_tooltip_text(Some(&gettext("Explain this")));
        toggle
            .bind_property("active", &revealer, "reveal-child")
            .sync_create()
            .build();
        buttons.append(&toggle);
        outer.append(&line);
        outer.append(&revealer);
    } else {
        outer.append(&line);
    }
    if let Some((label, action)) = &notice.action {
        let button: gtk::Button = labelled(&fill(
            gettext("{action}: {title}"),
            &[("action", label), ("title", &notice.title)],
        ));
        button.set_label(label);
        button.set_use_underline(true);
        button.add_css_class("suggested-action");
        let action = action.clone();
        let input = sender.input_sender().clone();
        button.connect_clicked(move |_| input.emit(BannerMsg::Act(action.clone())));
        buttons.append(&button);
    }
    line.append(&buttons);
    outer.upcast()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::testing::simulated_status as status;

    #[test]
    fn findings_come_first_most_severe_first_and_fixes_need_the_helper() {
        let no_turbo = "sys/devices/system/cpu/intel_pstate/no_turbo";
        let epp = "sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference";
        let status = status("intel-hybrid", &[(no_turbo, "1"), (epp, "power")]);
        let facts = BannerFacts {
            status: Some(&status),
            read_only: None,
            simulated: Some("a laptop"),
        };
        let shown = notices(&facts);
        assert!(shown.len() >= 3, "{shown:#?}");
        let severities: Vec<Severity> = shown.iter().map(|n| n.severity).collect();
        let mut sorted = severities.clone();
        sorted.sort();
        assert_eq!(severities, sorted, "most severe first");
        assert_eq!(shown.last().unwrap().key, "simulated");
        assert!(shown.iter().any(|n| matches!(
            n.action,
            Some((_, NoticeAction::Fix(FixAction::EnableTurbo)))
        )));

        let read_only = BannerFacts {
            read_only: Some("Read-only"),
            ..facts
        };
        let shown = notices(&read_only);
        assert_eq!(shown.last().unwrap().key, "read-only");
        // Without the helper nothing but a profile switch can be fixed from here.
        assert!(shown.iter().all(|n| n.action.is_none()));
    }

    #[test]
    fn a_machine_without_cpufreq_is_offered_the_simulated_laptop() {
        let status = status("vm", &[]);
        let shown = notices(&BannerFacts {
            status: Some(&status),
            ..BannerFacts::default()
        });
        assert!(shown
            .iter()
            .any(|n| matches!(n.action, Some((_, NoticeAction::Simulate)))));
    }

    #[test]
    fn a_finding_says_why_when_the_history_knows() {
        let turbo = |status: &Status| {
            notices(&BannerFacts {
                status: Some(status),
                ..BannerFacts::default()
            })
            .into_iter()
            .find(|n| n.key.starts_with("TurboDisabled"))
            .and_then(|n| n.detail)
            .unwrap()
        };
        let mut status = crate::testing::turbo_switched_off_by_tlp();
        let detail = turbo(&status);
        assert!(
            detail.contains("Why: at ")
                && detail.contains("intel_pstate no_turbo: 0 → 1, by tlp (pid 812, tlp.service)"),
            "{detail}"
        );
        status.explain(&[]);
        assert!(!turbo(&status).contains("Why:"));
    }

    #[test]
    fn what_changed_across_suspend_is_a_warning_caused_by_the_waking() {
        use pacer_core::history::{sleep, Event, Setting, Source};

        let epp = "sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference";
        let mut status = status("intel-hybrid", &[(epp, "performance")]);
        let event = |id, setting, new: &str, cause| Event {
            id,
            time: std::time::SystemTime::now(),
            monotonic_ms: 0,
            setting,
            policies: if setting == Setting::Epp {
                vec![0]
            } else {
                Vec::new()
            },
            old: (setting == Setting::Epp).then(|| "balance_performance".to_owned()),
            new: new.to_owned(),
            source: Source::Kernel,
            process: None,
            cause,
            hold: None,
        };
        status.explain(&[
            event(1, Setting::Sleep, sleep::SUSPENDING, None),
            event(2, Setting::Sleep, sleep::RESUMED, None),
            event(3, Setting::Epp, "performance", Some(2)),
        ]);
        let shown = notices(&BannerFacts {
            status: Some(&status),
            ..BannerFacts::default()
        });
        let suspend = shown
            .iter()
            .find(|n| n.key.starts_with("ChangedAcrossSuspend"))
            .expect("the finding is shown");
        assert_eq!(suspend.severity, Severity::Warning);
        assert_eq!(
            suspend.title,
            "EPP on policy 0 changed across suspend: balance_performance → performance"
        );
        let detail = suspend.detail.as_deref().unwrap();
        assert!(
            detail.contains("by the kernel, after change #2; before that, at ")
                && detail.contains("the system woke from sleep"),
            "{detail}"
        );
        assert!(matches!(
            suspend.action,
            Some((_, NoticeAction::Fix(FixAction::SetEpp { .. })))
        ));
    }
}

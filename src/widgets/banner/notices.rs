// SPDX-License-Identifier: GPL-3.0-or-later
//! Which notices the banner shows, decided from typed facts: the findings (warnings, then
//! information), then the machine's limits (no CPU frequency control, a simulated machine,
//! no helper). Only then are they put into words (`words::banner`).

use pacer_core::findings::{FixAction, Severity};
use pacer_core::status::Status;

use crate::data::change::offered_fix;
use crate::data::helper::HelperMissing;
use crate::words::banner::{self, NoticeWords, Simulated};
use crate::words::helper::read_only;
use crate::words::why::why;

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
    /// What the recording says caused it ("Why: …"), also in the detail.
    pub why: Option<String>,
    /// The button's label and what it does; `None`: nothing to press.
    pub action: Option<(String, NoticeAction)>,
}

impl Notice {
    fn of(key: &str, severity: Severity, words: NoticeWords) -> Notice {
        Notice {
            key: key.to_owned(),
            severity,
            title: words.title,
            detail: words.detail,
            why: None,
            action: None,
        }
    }
}

/// What the window knows that the banner reports.
#[derive(Debug, Default)]
pub struct BannerFacts<'a> {
    pub status: Option<&'a Status>,
    /// Why settings cannot be changed, when they cannot.
    pub helper_missing: Option<&'a HelperMissing>,
    /// The simulated machine, when it is one.
    pub simulated: Option<Simulated>,
}

/// The banner's notices: findings (warnings, then information), then the machine's limits.
pub fn notices(facts: &BannerFacts<'_>) -> Vec<Notice> {
    let mut notices = Vec::new();
    if let Some(status) = facts.status {
        let mut findings: Vec<_> = status.findings.iter().collect();
        findings.sort_by_key(|finding| finding.severity);
        let mut fix_offered = false;
        for finding in findings {
            let why = why(finding);
            let action = offered_fix(finding, facts.helper_missing.is_none()).map(|fix| {
                // Alt+F fixes the most severe finding.
                let label = banner::fix_label(!fix_offered);
                fix_offered = true;
                (label, NoticeAction::Fix(fix.clone()))
            });
            notices.push(Notice {
                key: finding.key(),
                severity: finding.severity,
                title: finding.summary.clone(),
                detail: Some(banner::finding_detail(finding, why.as_deref())),
                why,
                action,
            });
        }
        if !status.snapshot.has_cpufreq() && facts.simulated.is_none() {
            let mut notice = Notice::of("no-cpufreq", Severity::Info, banner::no_cpufreq());
            notice.action = Some((banner::simulate_label(), NoticeAction::Simulate));
            notices.push(notice);
        }
    }
    if let Some(machine) = facts.simulated {
        notices.push(Notice::of(
            "simulated",
            Severity::Info,
            banner::simulated(machine),
        ));
    }
    if let Some(missing) = facts.helper_missing {
        let words = NoticeWords {
            title: read_only(missing),
            detail: None,
        };
        notices.push(Notice::of("read-only", Severity::Info, words));
    }
    notices
}

#[cfg(test)]
mod tests;

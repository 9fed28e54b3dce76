// SPDX-License-Identifier: GPL-3.0-or-later
//! Which notices the banner shows, decided from typed facts: the findings (warnings, then
//! information), then the machine's limits (no CPU frequency control, no helper). Only then
//! are they put into words (`words::banner`): one line each, the rest in its details.

use pacer_core::findings::{FixAction, Severity};
use pacer_core::status::Status;

use crate::data::change::offered_fix;
use crate::data::helper::HelperMissing;
use crate::words::banner::{self, Details, NoticeWords};
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
    /// What is wrong, in one line of plain words.
    pub title: String,
    /// What its Details dialog says.
    pub details: Details,
    /// The button's label and what it does; `None`: nothing to press.
    pub action: Option<(String, NoticeAction)>,
}

impl Notice {
    fn of(key: &str, severity: Severity, words: NoticeWords) -> Notice {
        Notice {
            key: key.to_owned(),
            severity,
            title: words.title,
            details: words.details,
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
    /// The machine is simulated (the header bar says so; it needs no simulation offered).
    pub simulated: bool,
}

/// The banner's notices: findings (warnings, then information), then the machine's limits.
pub fn notices(facts: &BannerFacts<'_>) -> Vec<Notice> {
    let mut notices = Vec::new();
    if let Some(status) = facts.status {
        let profile = status.active_profile();
        let mut findings: Vec<_> = status.findings.iter().collect();
        findings.sort_by_key(|finding| finding.severity);
        let mut fix_offered = false;
        for finding in findings {
            let mut notice = Notice::of(
                &finding.key(),
                finding.severity,
                banner::finding(finding, profile, why(finding)),
            );
            notice.action = offered_fix(finding, facts.helper_missing.is_none()).map(|fix| {
                // Alt+F fixes the most severe finding.
                let label = banner::fix_label(!fix_offered);
                fix_offered = true;
                (label, NoticeAction::Fix(fix.clone()))
            });
            notices.push(notice);
        }
        if !status.snapshot.has_cpufreq() && !facts.simulated {
            let mut notice = Notice::of("no-cpufreq", Severity::Info, banner::no_cpufreq());
            notice.action = Some((banner::simulate_label(), NoticeAction::Simulate));
            notices.push(notice);
        }
    }
    if let Some(missing) = facts.helper_missing {
        notices.push(Notice::of("read-only", Severity::Info, read_only(missing)));
    }
    notices
}

#[cfg(test)]
mod tests;

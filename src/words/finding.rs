// SPDX-License-Identifier: GPL-3.0-or-later
//! A finding in one short line for a user, wherever there is room for one line only: the
//! window's banner, the tray's menu and tooltip, the shell's Quick Settings and a
//! notification's title. It names the setting and the profile in plain words; the kernel's
//! tokens, the policies and the figures stay in the finding's details and in `pacerctl`.

use pacer_core::findings::{Finding, FindingKind};
use pacer_core::i18n::{fill, gettext};

use crate::words::profile::profile_label;

/// "EPP is not what Performance sets": what is wrong, in one line of a few words. `profile`
/// is the active power profile, where a daemon serves one.
pub fn headline(finding: &Finding, profile: Option<&str>) -> String {
    let profile = profile.map(profile_label);
    match (finding.kind, profile) {
        (FindingKind::EppMismatch, Some(profile)) => fill(
            gettext("EPP is not what {profile} sets"),
            &[("profile", &profile)],
        ),
        (FindingKind::EppMismatch, None) => gettext("EPP is not what the profile sets"),
        (FindingKind::GovernorMismatch, Some(profile)) => fill(
            gettext("Governor is not what {profile} sets"),
            &[("profile", &profile)],
        ),
        (FindingKind::GovernorMismatch, None) => gettext("Governor is not what the profile sets"),
        (FindingKind::EppForcedByGovernor, _) => gettext("The governor holds EPP at full speed"),
        (FindingKind::CompetingPowerManagers, _) => {
            gettext("Several power managers change the same settings")
        }
        (FindingKind::MixedEpp, _) => gettext("Cores of one kind have different EPP"),
        (FindingKind::TurboDisabled, _) => gettext("Turbo boost is off"),
        (FindingKind::EasBlocked, _) => gettext("Energy Aware Scheduling is off"),
        (FindingKind::ChangedAcrossSuspend, _) => {
            gettext("A setting changed while the computer slept")
        }
        (FindingKind::ThermalLimit, _) => gettext("The processor is slowed down by heat"),
        (FindingKind::PowerLimitLowered, _) => gettext("The power limit is below its default"),
        (FindingKind::ClampedAfterResume, _) => {
            gettext("Highest frequency came back lower after sleep")
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use pacer_core::findings::{Fix, FixAction, Severity};

    use super::*;

    fn finding(kind: FindingKind) -> Finding {
        Finding {
            kind,
            severity: Severity::Warning,
            policies: vec![0, 1],
            expected: Some("performance".into()),
            actual: Some("balance_performance".into()),
            summary: "EPP is balance_performance on policy 0-1, but …".into(),
            detail: String::new(),
            fix: Fix {
                action: FixAction::EnableTurbo,
                description: String::new(),
                command: None,
            },
            cause: Vec::new(),
        }
    }

    #[test]
    fn a_headline_names_the_profile_in_words_and_no_kernel_token() {
        let line = headline(&finding(FindingKind::EppMismatch), Some("performance"));
        assert_eq!(line, "EPP is not what Performance sets");
        let line = headline(&finding(FindingKind::GovernorMismatch), Some("power-saver"));
        assert_eq!(line, "Governor is not what Power Saver sets");
    }

    #[test]
    fn every_headline_is_one_short_line() {
        let kinds = [
            FindingKind::EppMismatch,
            FindingKind::EppForcedByGovernor,
            FindingKind::GovernorMismatch,
            FindingKind::CompetingPowerManagers,
            FindingKind::MixedEpp,
            FindingKind::TurboDisabled,
            FindingKind::EasBlocked,
            FindingKind::ChangedAcrossSuspend,
            FindingKind::ThermalLimit,
            FindingKind::PowerLimitLowered,
            FindingKind::ClampedAfterResume,
        ];
        for kind in kinds {
            for profile in [None, Some("balanced")] {
                let line = headline(&finding(kind), profile);
                assert!(line.split_whitespace().count() < 10, "{kind:?}: {line}");
                for token in ["_", "policy", "/", "balance_performance"] {
                    assert!(!line.contains(token), "{kind:?}: {line}");
                }
            }
        }
    }
}

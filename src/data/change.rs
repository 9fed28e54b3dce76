// SPDX-License-Identifier: GPL-3.0-or-later
//! A change the user asks for, and carrying it out: settings through pacer-helper, the power
//! profile through the profile daemon (which asks polkit itself).

use pacer_core::findings::{Finding, FixAction};
use pacer_core::i18n::gettext;
use pacer_core::profile::{client, ProfileState};
use pacer_core::values::{DriverMode, Epp, Governor, Khz};
use pacer_dbus::client::{call, ClientError};
use pacer_dbus::{ErrorKind, Helper1Proxy, HelperError};

use crate::words::said::Said;

/// One change, as the pages ask for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Profile(String),
    Governor {
        policies: Vec<u32>,
        governor: Governor,
    },
    Epp {
        policies: Vec<u32>,
        epp: Epp,
    },
    /// Turbo/boost on every active policy.
    Boost {
        policies: Vec<u32>,
        enabled: bool,
    },
    /// The maximum frequency of these policies.
    MaxFrequency {
        policies: Vec<u32>,
        khz: Khz,
    },
    Eas(bool),
    DriverMode(DriverMode),
}

/// Why a change did not happen: in words, the technical detail apart (for "Details"), and
/// whether the kernel refused it for now (so the page can explain the refusal where the
/// control is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeError {
    pub said: Said,
    pub kernel_busy: bool,
}

impl ChangeError {
    fn said(text: String) -> ChangeError {
        ChangeError {
            said: Said::plain(text),
            kernel_busy: false,
        }
    }
}

impl Change {
    /// The changes that carry out a finding's fix, in order; empty when Pacer does not do it
    /// itself (stopping another power manager is left to the user).
    pub fn steps_of(fix: &FixAction) -> Vec<Change> {
        match fix {
            FixAction::CycleProfile { away, back } => {
                vec![Change::Profile(away.clone()), Change::Profile(back.clone())]
            }
            FixAction::SetGovernor { governor, policies } => vec![Change::Governor {
                policies: policies.clone(),
                governor: governor.clone(),
            }],
            FixAction::SetEpp { epp, policies } => vec![Change::Epp {
                policies: policies.clone(),
                epp: *epp,
            }],
            FixAction::EnableTurbo => vec![Change::Boost {
                policies: Vec::new(),
                enabled: true,
            }],
            FixAction::UseSchedutil {
                passive_mode,
                policies,
            } => {
                let mut steps = Vec::new();
                if *passive_mode {
                    steps.push(Change::DriverMode(DriverMode::Passive));
                }
                steps.push(Change::Governor {
                    policies: policies.clone(),
                    governor: Governor::schedutil(),
                });
                steps
            }
            FixAction::EnableEas => vec![Change::Eas(true)],
            FixAction::RestoreMaxFrequency { policies, khz } => vec![Change::MaxFrequency {
                policies: policies.clone(),
                khz: *khz,
            }],
            FixAction::StopManagers { .. } | FixAction::Advice => Vec::new(),
        }
    }

    /// Whether the change needs pacer-helper (all but the profile).
    pub fn needs_helper(&self) -> bool {
        !matches!(self, Change::Profile(_))
    }
}

/// The fix Pacer offers for `finding`: one it carries out itself (not stopping another
/// service), and whose steps it can take (those that need pacer-helper only while it is
/// there). The one rule for the banner, the tray and notifications.
pub fn offered_fix(finding: &Finding, helper_present: bool) -> Option<&FixAction> {
    let steps = Change::steps_of(&finding.fix.action);
    let possible = !steps.is_empty() && (helper_present || !steps.iter().any(Change::needs_helper));
    possible.then_some(&finding.fix.action)
}

impl From<ClientError> for ChangeError {
    fn from(error: ClientError) -> Self {
        ChangeError {
            kernel_busy: error.helper_error().and_then(HelperError::kind) == Some(ErrorKind::Busy),
            said: Said::from(error),
        }
    }
}

/// Carries out `change`. `all_policies` stands in for an empty policy list (the machine-wide
/// boost switch).
pub async fn apply(
    change: &Change,
    helper: Option<&Helper1Proxy<'static>>,
    profile: Option<&ProfileState>,
    all_policies: &[u32],
) -> Result<(), ChangeError> {
    if let Change::Profile(name) = change {
        let failed = |problem: pacer_core::profile::ProfileProblem| ChangeError {
            said: Said {
                text: problem.summary(),
                detail: problem.detail(),
            },
            kernel_busy: false,
        };
        let Some(profile) = profile else {
            return Err(ChangeError::said(gettext(
                "No power profile daemon is running.",
            )));
        };
        let connection = client::connect().await.map_err(failed)?;
        return client::set_active_profile(&connection, profile, name)
            .await
            .map_err(failed);
    }
    let Some(helper) = helper else {
        return Err(ChangeError::said(gettext(
            "Changes need pacer-helper, which is not available.",
        )));
    };
    let or_all = |policies: &[u32]| {
        if policies.is_empty() {
            all_policies.to_vec()
        } else {
            policies.to_vec()
        }
    };
    // Bounded like every call to the helper: polkit may ask for a password first.
    match change {
        Change::Governor { policies, governor } => {
            call(helper.set_governor(&or_all(policies), governor)).await?;
        }
        Change::Epp { policies, epp } => {
            call(helper.set_epp(&or_all(policies), epp)).await?;
        }
        Change::Boost { policies, enabled } => {
            call(helper.set_boost(&or_all(policies), *enabled)).await?;
        }
        Change::MaxFrequency { policies, khz } => {
            call(helper.set_max_frequency(&or_all(policies), khz.0)).await?;
        }
        Change::Eas(enabled) => drop(call(helper.set_eas(*enabled)).await?),
        Change::DriverMode(mode) => {
            call(helper.set_driver_mode(mode)).await?;
        }
        Change::Profile(_) => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_cycle_is_two_profile_changes_and_schedutil_may_need_passive_mode() {
        let cycle = FixAction::CycleProfile {
            away: "balanced".into(),
            back: "performance".into(),
        };
        assert_eq!(
            Change::steps_of(&cycle),
            [
                Change::Profile("balanced".into()),
                Change::Profile("performance".into())
            ]
        );
        let schedutil = FixAction::UseSchedutil {
            passive_mode: true,
            policies: vec![0, 1],
        };
        let steps = Change::steps_of(&schedutil);
        assert_eq!(steps[0], Change::DriverMode(DriverMode::Passive));
        assert_eq!(
            steps[1],
            Change::Governor {
                policies: vec![0, 1],
                governor: Governor::schedutil()
            }
        );
        assert!(steps.iter().all(Change::needs_helper));
        let stop = FixAction::StopManagers {
            keep: "power-profiles-daemon".into(),
            stop: vec!["tlp".into()],
        };
        assert!(Change::steps_of(&stop).is_empty());
    }

    #[test]
    fn a_maximum_frequency_is_restored_through_the_helper() {
        let restore = FixAction::RestoreMaxFrequency {
            policies: vec![2, 3],
            khz: Khz(4_700_000),
        };
        assert_eq!(
            Change::steps_of(&restore),
            [Change::MaxFrequency {
                policies: vec![2, 3],
                khz: Khz(4_700_000)
            }]
        );
        assert!(Change::steps_of(&restore).iter().all(Change::needs_helper));
    }

    fn finding(action: FixAction) -> Finding {
        Finding {
            kind: pacer_core::findings::FindingKind::TurboDisabled,
            severity: pacer_core::findings::Severity::Warning,
            policies: Vec::new(),
            expected: None,
            actual: None,
            summary: "s".into(),
            detail: "d".into(),
            fix: pacer_core::findings::Fix {
                action,
                description: "f".into(),
                command: None,
            },
            cause: Vec::new(),
        }
    }

    #[test]
    fn a_fix_is_offered_when_pacer_can_take_every_step() {
        let turbo = finding(FixAction::EnableTurbo);
        assert_eq!(offered_fix(&turbo, true), Some(&FixAction::EnableTurbo));
        // Turbo is the helper's to switch.
        assert_eq!(offered_fix(&turbo, false), None);
        // The profile is the daemon's: no helper needed.
        let cycle = finding(FixAction::CycleProfile {
            away: "balanced".into(),
            back: "performance".into(),
        });
        assert!(offered_fix(&cycle, false).is_some());
        // Stopping another service is left to the user.
        let stop = finding(FixAction::StopManagers {
            keep: "power-profiles-daemon".into(),
            stop: vec!["tlp".into()],
        });
        assert_eq!(offered_fix(&stop, true), None);
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! Desktop notifications for new warnings (`org.freedesktop.Notifications`): one per distinct
//! finding, with its fix as an action, and none for the same finding again until it has
//! cleared. Its title is the finding's one line of plain words; its body the facts and what
//! the recording says caused them, and no shell command: the fix is the notification's
//! button, the rest in Pacer's window, which a click on the notification opens.

use std::collections::{BTreeSet, HashMap};

use pacer_core::findings::{Finding, FixAction, Severity};
use pacer_core::i18n::gettext;
use zbus::zvariant::Value;

use crate::app::config;
use crate::data::change::offered_fix;
use crate::words::finding::headline;
use crate::words::why::{why, with_why};

/// The notification server's bus name.
pub const SERVER: &str = "org.freedesktop.Notifications";

/// The notification server's interface, as far as Pacer uses it.
#[zbus::proxy(
    interface = "org.freedesktop.Notifications",
    default_service = "org.freedesktop.Notifications",
    default_path = "/org/freedesktop/Notifications"
)]
pub trait Notifications {
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &self,
        app_name: &str,
        replaces_id: u32,
        app_icon: &str,
        summary: &str,
        body: &str,
        actions: &[&str],
        hints: HashMap<&str, Value<'_>>,
        expire_timeout: i32,
    ) -> zbus::Result<u32>;

    #[zbus(signal)]
    fn action_invoked(&self, id: u32, action_key: &str) -> zbus::Result<()>;
}

/// The action key of a notification's fix.
pub const FIX_ACTION: &str = "fix";
/// The key of a click on the notification itself.
pub const DEFAULT_ACTION: &str = "default";

/// Which warnings have been announced, so that each is announced once until it clears.
#[derive(Debug, Default)]
pub struct Announcements {
    announced: BTreeSet<String>,
}

impl Announcements {
    /// The warnings among `findings` not announced yet (now counted as announced); warnings
    /// no longer there are forgotten, so they are announced again if they come back.
    pub fn update<'a>(&mut self, findings: &'a [Finding]) -> Vec<&'a Finding> {
        let warnings: Vec<&Finding> = findings
            .iter()
            .filter(|finding| finding.severity == Severity::Warning)
            .collect();
        let current: BTreeSet<String> = warnings.iter().map(|finding| finding.key()).collect();
        self.announced.retain(|key| current.contains(key));
        warnings
            .into_iter()
            .filter(|finding| self.announced.insert(finding.key()))
            .collect()
    }
}

/// What a notification about `finding` says, its title and its body, while the daemon has
/// `profile` active, and the fix it offers (when Pacer can carry it out: see
/// [`offered_fix`]).
pub fn message(
    finding: &Finding,
    profile: Option<&str>,
    helper_present: bool,
) -> (String, String, Option<FixAction>) {
    (
        headline(finding, profile),
        with_why(&finding.summary, why(finding).as_deref()),
        offered_fix(finding, helper_present).cloned(),
    )
}

/// Sends one notification; returns its id.
pub async fn send(
    proxy: &NotificationsProxy<'static>,
    summary: &str,
    body: &str,
    with_fix: bool,
) -> zbus::Result<u32> {
    let fix_label = gettext("Fix");
    let open_label = gettext("Open Pacer");
    let mut actions = vec![DEFAULT_ACTION, open_label.as_str()];
    if with_fix {
        actions.extend([FIX_ACTION, fix_label.as_str()]);
    }
    let mut hints = HashMap::new();
    hints.insert("desktop-entry", Value::from(config::APP_ID));
    hints.insert("urgency", Value::from(1u8));
    proxy
        .notify(
            &gettext("Pacer"),
            0,
            "io.github.pacerapp.Pacer-balanced-warning-symbolic",
            summary,
            body,
            &actions,
            hints,
            -1,
        )
        .await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use pacer_core::findings::{FindingKind, Fix};

    fn warning(kind: FindingKind, policies: Vec<u32>) -> Finding {
        Finding {
            kind,
            severity: Severity::Warning,
            policies,
            expected: None,
            actual: None,
            summary: "s".into(),
            detail: "d".into(),
            fix: Fix {
                action: FixAction::EnableTurbo,
                description: "f".into(),
                command: None,
            },
            cause: Vec::new(),
        }
    }

    #[test]
    fn each_warning_is_announced_once_until_it_clears() {
        let mut announced = Announcements::default();
        let turbo = warning(FindingKind::TurboDisabled, vec![]);
        let epp = warning(FindingKind::EppMismatch, vec![1]);
        assert_eq!(announced.update(std::slice::from_ref(&turbo)).len(), 1);
        assert!(announced.update(std::slice::from_ref(&turbo)).is_empty());
        let both = [turbo.clone(), epp.clone()];
        let new = announced.update(&both);
        assert_eq!(new.len(), 1);
        assert_eq!(new[0].kind, FindingKind::EppMismatch);
        // Cleared, then back: announced again.
        assert!(announced.update(&[]).is_empty());
        assert_eq!(announced.update(&both).len(), 2);
        // Information is never announced.
        let mut info = warning(FindingKind::MixedEpp, vec![]);
        info.severity = Severity::Info;
        assert!(Announcements::default().update(&[info]).is_empty());
    }

    #[test]
    fn a_notification_is_titled_in_one_line_and_names_the_cause_but_no_command() {
        let status = crate::testing::turbo_switched_off_by_tlp();
        let turbo = status
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::TurboDisabled)
            .unwrap();
        // The fix the finding offers has a command ("echo 0 | sudo tee …").
        let command = turbo.fix.command.as_deref().unwrap_or_default();
        assert!(command.contains("sudo"), "{:?}", turbo.fix);
        let (title, body, _) = message(turbo, Some("balanced"), true);
        assert_eq!(title, "Turbo boost is off");
        assert!(body.starts_with(&turbo.summary), "{body}");
        assert!(body.contains("Why: at "), "the cause is said: {body}");
        assert!(body.contains("by tlp (pid 812, tlp.service)"), "{body}");
        for command in ["sudo", "echo ", "/sys/"] {
            assert!(!body.contains(command), "{body}");
        }
    }
}

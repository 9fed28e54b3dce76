// SPDX-License-Identifier: GPL-3.0-or-later
//! Asking polkit about the caller of a State1 call that changes a setting, before its request
//! goes to the window. The window carries requests out under its own name: pacer-helper and
//! the profile daemon ask polkit about the window, a process of the active local session,
//! which is typically allowed at once. Unasked, any process on the session bus (an SSH login
//! sharing the user's bus, a sandboxed app allowed to talk to Pacer) would get changes polkit
//! refuses it. So State1 keeps the helper's order: parse, validate, authorise, act.

use std::collections::HashMap;
use std::path::Path;

use pacer_dbus::client::CALL_LIMIT;
use pacer_dbus::{actions, details, Policies, Topic};
use relm4::gtk::gio::{self, prelude::*};
use relm4::gtk::glib::{self, Variant};
use zbus_polkit::policykit1::{AuthorityProxy, CheckAuthorizationFlags, Subject};

use crate::data::change::Change;
use crate::data::request::Request;
use crate::desktop::session_state::Refusal;

/// power-profiles-daemon's action for switching the profile from 0.20 on, then its name up to
/// 0.13 (docs/power-profiles.md 1): polkit knows the one the installed daemon registers.
const SWITCH_PROFILE: &[&str] = &[
    "org.freedesktop.UPower.PowerProfiles.switch-profile",
    "net.hadess.PowerProfiles.switch-profile",
];
const SET_CPU_POWER: &[&str] = &[actions::SET_CPU_POWER];
const SET_SCHEDULER: &[&str] = &[actions::SET_SCHEDULER];
const SET_DRIVER_MODE: &[&str] = &[actions::SET_DRIVER_MODE];

/// One question for polkit: its action (the first of these that polkit knows) and the details
/// pacer-helper gives it for the same change, so that rules and the authentication dialog
/// (the policy file's messages) see what would change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    actions: &'static [&'static str],
    details: Vec<(&'static str, String)>,
}

impl Question {
    /// What the profile daemon or pacer-helper asks polkit before it carries out `change`.
    fn of(change: &Change) -> Question {
        let helper = |actions, setting: Topic, value: String, policies: &[u32]| {
            // The window sends every policy for an empty list; "all" says as much.
            let policies = if policies.is_empty() {
                Policies::All
            } else {
                Policies::These(policies)
            };
            Question {
                actions,
                details: details(setting, value, policies).to_vec(),
            }
        };
        let on_off = |enabled: bool| if enabled { "on" } else { "off" }.to_owned();
        match change {
            // The daemon passes no details.
            Change::Profile(_) => Question {
                actions: SWITCH_PROFILE,
                details: Vec::new(),
            },
            Change::Governor { policies, governor } => helper(
                SET_CPU_POWER,
                Topic::Governor,
                governor.to_string(),
                policies,
            ),
            Change::Epp { policies, epp } => {
                helper(SET_CPU_POWER, Topic::Epp, epp.to_string(), policies)
            }
            Change::Boost { policies, enabled } => {
                helper(SET_CPU_POWER, Topic::Boost, on_off(*enabled), policies)
            }
            Change::MaxFrequency { policies, khz } => helper(
                SET_CPU_POWER,
                Topic::MaxFrequency,
                khz.0.to_string(),
                policies,
            ),
            Change::Eas(enabled) => helper(SET_SCHEDULER, Topic::Eas, on_off(*enabled), &[]),
            Change::DriverMode(mode) => helper(SET_DRIVER_MODE, Topic::Mode, mode.to_string(), &[]),
        }
    }

    /// The action named when polkit refuses or cannot be asked.
    fn action(&self) -> &'static str {
        self.actions.first().copied().unwrap_or_default()
    }
}

/// What polkit must allow the caller before `request` goes to the window: one question for
/// each different step (a fix may take several, under other actions: all must be allowed).
/// None for showing the window, measuring or following the frequencies: they change no
/// setting, and what they show the user sees (a measurement runs in the window, where it can
/// be cancelled, and pacer-helper still asks polkit for it).
pub fn questions(request: &Request) -> Vec<Question> {
    let steps = match request {
        Request::Change(change) => vec![change.clone()],
        Request::Fix(fix) => Change::steps_of(fix),
        Request::Show(_) | Request::Measure | Request::FollowFrequencies(_) | Request::Quit => {
            Vec::new()
        }
    };
    let mut questions: Vec<Question> = Vec::new();
    for question in steps.iter().map(Question::of) {
        if !questions.contains(&question) {
            questions.push(question);
        }
    }
    questions
}

/// Asks polkit whether the caller `sender` (a unique name on `connection`, the session bus
/// the call came on) may have `questions` answered yes. polkit may ask its user for a
/// password only when the call said it can wait for one (`interactive`: the message's
/// allow-interactive-authorization flag). Anything short of a yes is a refusal: no caller,
/// no polkit, no answer in time.
pub async fn authorise(
    connection: &gio::DBusConnection,
    sender: Option<&str>,
    questions: Vec<Question>,
    interactive: bool,
) -> Result<(), Refusal> {
    let Some(first) = questions.first().map(Question::action) else {
        return Ok(());
    };
    let refused = |pid, error| Refusal::NotAuthorized {
        action: first.to_owned(),
        pid,
        error: Some(error),
    };
    let Some(sender) = sender else {
        return Err(refused(
            None,
            "the call came from no name on the bus".to_owned(),
        ));
    };
    let (pid, subject) = identify(connection, sender)
        .await
        .map_err(|(pid, error)| refused(pid, error))?;
    // zbus runs on relm4's tokio runtime; the answer comes back here, to the main loop.
    match relm4::spawn(ask(subject, questions, interactive)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err((action, error))) => Err(Refusal::NotAuthorized {
            action: action.to_owned(),
            pid: Some(pid),
            error,
        }),
        Err(error) => Err(refused(Some(pid), error.to_string())),
    }
}

/// The caller's process as polkit names it (`unix-process`: pid, start time, uid), with its
/// pid (known even where the rest is not). The session bus vouches for the pid and uid of the
/// connection; the start time comes from /proc. A pid may be reused once its process has
/// gone, so the caller must still hold its unique name after the start time is read: a name
/// is never given again, and a connection ends with its process (short of one handing its
/// socket to another), so the start time read was of the caller's own process.
async fn identify(
    connection: &gio::DBusConnection,
    sender: &str,
) -> Result<(u32, Subject), (Option<u32>, String)> {
    let credentials = bus_call(connection, "GetConnectionCredentials", sender)
        .await
        .map_err(|error| (None, error.to_string()))?
        .get::<(HashMap<String, Variant>,)>()
        .map(|(credentials,)| credentials)
        .unwrap_or_default();
    let number = |key: &str| credentials.get(key).and_then(Variant::get::<u32>);
    let (Some(pid), Some(uid)) = (number("ProcessID"), number("UnixUserID")) else {
        return Err((None, "the session bus gave no process and user".to_owned()));
    };
    let start_time = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => start_time(&stat)
            .ok_or_else(|| (Some(pid), format!("/proc/{pid}/stat gives no start time")))?,
        // In a Flatpak the caller's process, on the host, is not in the sandbox's /proc:
        // polkitd, on the host, looks its start time up itself when it is given as 0.
        Err(_) if Path::new("/.flatpak-info").exists() => 0,
        Err(error) => return Err((Some(pid), format!("/proc/{pid}/stat: {error}"))),
    };
    let still_there = bus_call(connection, "NameHasOwner", sender)
        .await
        .ok()
        .and_then(|reply| reply.get::<(bool,)>())
        .is_some_and(|(owned,)| owned);
    if !still_there {
        return Err((Some(pid), "it left the bus".to_owned()));
    }
    Subject::new_for_owner(pid, Some(start_time), Some(uid))
        .map(|subject| (pid, subject))
        .map_err(|error| (Some(pid), error.to_string()))
}

/// `method` of the bus itself, about the name `sender`.
async fn bus_call(
    connection: &gio::DBusConnection,
    method: &str,
    sender: &str,
) -> Result<Variant, glib::Error> {
    connection
        .call_future(
            Some("org.freedesktop.DBus"),
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            method,
            Some(&(sender,).to_variant()),
            None,
            gio::DBusCallFlags::NONE,
            -1,
        )
        .await
}

/// When a process started (field 22 of `/proc/PID/stat`, in clock ticks after boot), which
/// polkit checks against the pid. The command name (field 2) is in parentheses and may itself
/// hold spaces and ')', so the fields are counted after the last ')'.
fn start_time(stat: &str) -> Option<u64> {
    let (_, after_name) = stat.rsplit_once(')')?;
    // Field 3 (the state) comes first.
    after_name.split_whitespace().nth(22 - 3)?.parse().ok()
}

/// polkit's verdict on each question in turn, on the system bus polkit serves; at the first
/// that is not a yes, its action and why (`None`: polkit said no). Bounded like every call to
/// the helper: polkit may ask for a password first.
async fn ask(
    subject: Subject,
    questions: Vec<Question>,
    interactive: bool,
) -> Result<(), (&'static str, Option<String>)> {
    let first = questions.first().map_or("", Question::action);
    let asking = async {
        let unreachable = |error: zbus::Error| (first, Some(error.to_string()));
        let connection = zbus::Connection::system().await.map_err(unreachable)?;
        let polkit = AuthorityProxy::new(&connection)
            .await
            .map_err(unreachable)?;
        let flags = if interactive {
            CheckAuthorizationFlags::AllowUserInteraction.into()
        } else {
            Default::default()
        };
        for question in &questions {
            let details: HashMap<&str, &str> = question
                .details
                .iter()
                .map(|(key, value)| (*key, value.as_str()))
                .collect();
            // The first action polkit answers for decides; one it does not know (the other
            // name of the profile daemon's) gives an error, and the next is asked.
            let mut error = None;
            let mut verdict = None;
            for action in question.actions {
                match polkit
                    .check_authorization(&subject, action, &details, flags, "")
                    .await
                {
                    Ok(result) => {
                        verdict = Some((*action, result.is_authorized));
                        break;
                    }
                    Err(failed) => {
                        error.get_or_insert(failed.to_string());
                    }
                }
            }
            match verdict {
                Some((_, true)) => {}
                Some((action, false)) => return Err((action, None)),
                None => return Err((question.action(), error)),
            }
        }
        Ok(())
    };
    tokio::time::timeout(CALL_LIMIT, asking)
        .await
        .unwrap_or_else(|_| {
            let seconds = CALL_LIMIT.as_secs();
            Err((first, Some(format!("polkit gave no answer in {seconds} s"))))
        })
}

#[cfg(test)]
mod tests {
    use pacer_core::findings::FixAction;
    use pacer_core::values::{DriverMode, Epp, Governor, Khz};

    use super::*;

    #[test]
    fn the_start_time_is_field_22_whatever_the_command_name_holds() {
        let rest = "S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 424242 19 20";
        assert_eq!(start_time(&format!("1234 (bash) {rest}")), Some(424_242));
        assert_eq!(
            start_time(&format!("1234 (a) b) c (d) {rest}\n")),
            Some(424_242)
        );
        assert_eq!(start_time("1234 (cut short) S 1 2"), None);
        assert_eq!(start_time("no name at all"), None);
    }

    #[test]
    fn each_change_is_asked_about_as_the_daemon_or_the_helper_asks() {
        let profile = questions(&Request::Change(Change::Profile("performance".into())));
        assert_eq!(profile.len(), 1);
        assert_eq!(profile[0].actions, SWITCH_PROFILE);
        assert!(profile[0].details.is_empty());

        let epp = questions(&Request::Fix(FixAction::SetEpp {
            epp: Epp::Performance,
            policies: vec![4, 5, 6, 7],
        }));
        assert_eq!(
            epp,
            vec![Question {
                actions: &[actions::SET_CPU_POWER],
                details: vec![
                    ("setting", "epp".to_owned()),
                    ("value", "performance".to_owned()),
                    ("policies", "4-7".to_owned()),
                ],
            }]
        );

        // Two actions, each asked about; cycling the profile asks once.
        let schedutil = questions(&Request::Fix(FixAction::UseSchedutil {
            passive_mode: true,
            policies: vec![0],
        }));
        let asked: Vec<&str> = schedutil.iter().map(Question::action).collect();
        assert_eq!(asked, [actions::SET_DRIVER_MODE, actions::SET_CPU_POWER]);
        assert_eq!(
            schedutil[0].details[1],
            ("value", DriverMode::Passive.to_string())
        );
        assert_eq!(
            schedutil[1].details[1],
            ("value", Governor::schedutil().to_string())
        );
        let cycle = questions(&Request::Fix(FixAction::CycleProfile {
            away: "power-saver".into(),
            back: "balanced".into(),
        }));
        assert_eq!(cycle.len(), 1);
        let boost = questions(&Request::Fix(FixAction::EnableTurbo));
        assert_eq!(boost[0].details[2], ("policies", "all".to_owned()));
        let max = questions(&Request::Fix(FixAction::RestoreMaxFrequency {
            policies: vec![2, 3],
            khz: Khz(4_700_000),
        }));
        assert_eq!(
            max,
            vec![Question {
                actions: &[actions::SET_CPU_POWER],
                details: vec![
                    ("setting", "maximum frequency".to_owned()),
                    ("value", "4700000".to_owned()),
                    ("policies", "2-3".to_owned()),
                ],
            }]
        );

        // What changes no setting is not asked about.
        for request in [
            Request::Show(None),
            Request::Measure,
            Request::FollowFrequencies(true),
        ] {
            assert!(questions(&request).is_empty(), "{request:?}");
        }
    }
}

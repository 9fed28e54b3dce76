// SPDX-License-Identifier: GPL-3.0-or-later
//! Asking polkit about the caller of a request, and what it is told: the action and the
//! details of the change (the policy file's messages show them).

use std::collections::HashMap;

use pacer_dbus::{details, Details, Policies, Problem, Topic};
use zbus::message::{Flags, Header};
use zbus_polkit::policykit1::{AuthorityProxy, CheckAuthorizationFlags, Subject};

/// polkit, or nobody to ask (`--no-polkit`, for a simulated machine on a session bus).
#[derive(Debug)]
pub struct Authority {
    polkit: Option<AuthorityProxy<'static>>,
}

impl Authority {
    pub fn new(polkit: Option<AuthorityProxy<'static>>) -> Authority {
        Authority { polkit }
    }

    /// polkit's verdict for the caller of this message (its unique bus name, never the
    /// helper's own process), with what would change as details. polkit may ask the user for
    /// a password only when the caller said it can wait for one (the message's
    /// allow-interactive-authorization flag).
    pub async fn check(
        &self,
        header: &Header<'_>,
        action: &str,
        details: &Details,
    ) -> Result<(), Problem> {
        let Some(polkit) = &self.polkit else {
            return Ok(());
        };
        let subject = Subject::new_for_message_header(header).map_err(|error| {
            Problem::PolkitUnreachable {
                action: action.to_owned(),
                error: error.to_string(),
            }
        })?;
        let flags = if header
            .primary()
            .flags()
            .contains(Flags::AllowInteractiveAuth)
        {
            CheckAuthorizationFlags::AllowUserInteraction.into()
        } else {
            Default::default()
        };
        let details: HashMap<&str, &str> = details
            .iter()
            .map(|(key, value)| (*key, value.as_str()))
            .collect();
        let result = polkit
            .check_authorization(&subject, action, &details, flags, "")
            .await
            .map_err(|error| Problem::PolkitUnreachable {
                action: action.to_owned(),
                error: error.to_string(),
            })?;
        if result.is_authorized {
            Ok(())
        } else {
            Err(Problem::NotAuthorized {
                action: action.to_owned(),
            })
        }
    }
}

/// What a validated request changes: the polkit action and the details polkit is told, and
/// what the `Changed` signal announces once it is done.
pub struct Change {
    pub action: &'static str,
    pub details: Details,
    /// The signal's `what`, and the policies it names (none: machine-wide).
    pub announce: (Topic, Vec<u32>),
}

impl Change {
    /// `setting` set to `value` on the policies `ids` (`None`: machine-wide), announced
    /// under the same name.
    pub fn new(
        action: &'static str,
        setting: Topic,
        value: impl ToString,
        ids: Option<&[u32]>,
    ) -> Change {
        let policies = match ids {
            Some(ids) => Policies::These(ids),
            None => Policies::All,
        };
        Change {
            action,
            details: details(setting, value, policies),
            announce: (setting, ids.map(<[u32]>::to_vec).unwrap_or_default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polkit_and_the_changed_signal_name_a_change_alike() {
        let change = Change::new(
            pacer_dbus::actions::SET_CPU_POWER,
            Topic::Boost,
            "on",
            Some(&[0, 1]),
        );
        let setting = change
            .details
            .iter()
            .find(|(key, _)| *key == "setting")
            .map(|(_, value)| value.as_str());
        assert_eq!(setting, Some("boost"));
        assert_eq!(change.announce, (Topic::Boost, vec![0, 1]));
        assert_eq!(change.announce.0.name(), "boost");
    }
}

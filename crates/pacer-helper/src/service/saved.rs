// SPDX-License-Identifier: GPL-3.0-or-later
//! Settings saved for later and given back: a caller saves the settings before a
//! measurement's temporary changes and restores them after it; the helper gives them back
//! itself when their owner leaves the bus or the helper stops. The journal keeps them
//! ([`crate::journal`]), so that they come back after a crash too.

use pacer_dbus::{actions, details, HelperError, Policies, Problem, Topic};
use zbus::message::Header;
use zbus::object_server::SignalEmitter;

use super::{caller, Helper};
use crate::journal::{SaveError, Settings};

impl Helper {
    /// Saving and restoring settings: the same question to polkit either way.
    async fn authorize_saved_settings(&self, header: &Header<'_>) -> Result<(), Problem> {
        let details = details(Topic::SavedSettings, "", Policies::All);
        self.authority
            .check(header, actions::RUN_MEASUREMENT, &details)
            .await
    }

    /// `SaveSettings`: the settings now, in the journal under a new id, the caller's.
    pub(super) async fn save_callers_settings(
        &self,
        header: &Header<'_>,
    ) -> Result<u32, HelperError> {
        let _call = self.call()?;
        self.authorize_saved_settings(header).await?;
        let _one_at_a_time = self.writes.lock().await;
        self.journal
            .save(&caller(header), Settings::read(&self.kernel))
            .map_err(|error: SaveError| {
                Problem::Journal {
                    error: error.to_string(),
                }
                .into()
            })
    }

    /// `RestoreSettings`: the entry is validated (there, and the caller's) before polkit is
    /// asked.
    pub(super) async fn restore_callers_settings(
        &self,
        header: &Header<'_>,
        emitter: &SignalEmitter<'_>,
        id: u32,
    ) -> Result<(), HelperError> {
        let _call = self.call()?;
        let Some(entry) = self.journal.get(id) else {
            return Err(Problem::NoSavedSettings { id }.into());
        };
        if entry.owner != caller(header) {
            return Err(Problem::NotYourSettings { id }.into());
        }
        self.authorize_saved_settings(header).await?;
        {
            let _one_at_a_time = self.writes.lock().await;
            self.journal.restore(&self.kernel, &entry)?;
        }
        self.changed_now(emitter, Topic::Restore, Vec::new()).await;
        Ok(())
    }

    /// Gives back the settings saved by the owners `owned` picks, the latest first.
    pub(super) async fn restore_where(&self, owned: impl Fn(&str) -> bool) {
        let _one_at_a_time = self.writes.lock().await;
        for entry in self
            .journal
            .entries()
            .iter()
            .rev()
            .filter(|entry| owned(&entry.owner))
        {
            let restored = self
                .log
                .writing(None, || self.journal.restore(&self.kernel, entry));
            match restored {
                Ok(()) => eprintln!(
                    "pacer-helper: restored the settings saved by {} ({})",
                    entry.owner, entry.id
                ),
                Err(problem) => {
                    eprintln!("pacer-helper: restoring settings {}: {problem}", entry.id)
                }
            }
        }
        self.status.forget().await;
    }
}

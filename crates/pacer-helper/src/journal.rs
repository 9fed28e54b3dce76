// SPDX-License-Identifier: GPL-3.0-or-later
//! The safety journal: the settings as they were before temporary changes, on disk, so they
//! come back on completion, on cancel, when the caller leaves the bus, and on the helper's
//! next start after a crash.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use pacer_dbus::Problem;

use crate::kernel::{Kernel, Target};

/// One policy's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicySettings {
    pub id: u32,
    pub governor: Option<String>,
    pub epp: Option<String>,
}

/// Everything a temporary change may touch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub intel_status: Option<String>,
    pub amd_status: Option<String>,
    pub policies: Vec<PolicySettings>,
    pub no_turbo: Option<String>,
    pub boost: Option<String>,
    pub eas: Option<String>,
    /// The EAS switch as it was before a temporary change wrote it, when it could not be
    /// read at the start (the kernel hides it while EAS is impossible, yet keeps it).
    #[serde(default)]
    pub eas_hidden: Option<String>,
}

/// A journal entry: the settings, who asked for them to be kept, and in which boot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub id: u32,
    /// The caller's unique bus name: when it leaves, its settings are restored.
    pub owner: String,
    /// The boot the settings were saved in (`/proc/sys/kernel/random/boot_id`): after a
    /// reboot the kernel starts from its own defaults and old settings are never applied.
    pub boot_id: String,
    pub settings: Settings,
    /// Why the last restore failed; the entry stays to be tried again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restore_error: Option<String>,
}

impl Settings {
    /// Reads what is in force now.
    pub fn read(kernel: &Kernel) -> Settings {
        let policies = kernel
            .snapshot()
            .map(|snapshot| {
                snapshot
                    .policies
                    .iter()
                    .filter(|policy| policy.is_active())
                    .map(|policy| PolicySettings {
                        id: policy.id,
                        governor: kernel.read(Target::Governor(policy.id)),
                        epp: kernel.read(Target::Epp(policy.id)),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Settings {
            intel_status: kernel.read(Target::IntelStatus),
            amd_status: kernel.read(Target::AmdStatus),
            policies,
            no_turbo: kernel.read(Target::NoTurbo),
            boost: kernel.read(Target::Boost),
            eas: kernel
                .read(Target::EasSysctl)
                .filter(|value| !value.is_empty()),
            eas_hidden: None,
        }
    }

    /// Writes the settings back, in the order the kernel needs: the driver's mode first (a
    /// switch resets the governors), then governors (leaving performance before EPP, which
    /// it would refuse), EPP, turbo, and EAS last (it depends on the governors). Every write
    /// is tried; the first refusal is returned.
    pub fn restore(&self, kernel: &Kernel) -> Result<(), Problem> {
        let mut first_error = None;
        let mut put = |target: Target, value: &Option<String>| {
            if let Some(value) = value {
                if kernel.read(target).as_ref() != Some(value) {
                    if let Err(refused) = kernel.write(target, value) {
                        first_error.get_or_insert(refused);
                    }
                }
            }
        };
        // The hidden EAS switch goes back while it is writable, before the mode changes.
        put(Target::EasSysctl, &self.eas_hidden);
        put(Target::IntelStatus, &self.intel_status);
        put(Target::AmdStatus, &self.amd_status);
        for policy in &self.policies {
            put(Target::Governor(policy.id), &policy.governor);
        }
        for policy in &self.policies {
            put(Target::Epp(policy.id), &policy.epp);
        }
        put(Target::NoTurbo, &self.no_turbo);
        put(Target::Boost, &self.boost);
        put(Target::EasSysctl, &self.eas);
        first_error.map_or(Ok(()), Err)
    }
}

/// The most entries at once: one per caller, and no caller needs more.
pub const MAX_ENTRIES: usize = 16;

/// Where the kernel says which boot this is.
const BOOT_ID: &str = "/proc/sys/kernel/random/boot_id";

/// The current boot's id, or `unknown` where it cannot be read (then entries of an unknown
/// boot are never taken for this one's).
pub fn boot_id() -> String {
    fs::read_to_string(BOOT_ID)
        .map(|id| id.trim().to_owned())
        .ok()
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// What [`Journal::open`] found of earlier runs.
#[derive(Debug, Default)]
pub struct Found {
    /// Entries of another boot, moved aside without being applied.
    pub other_boot: Vec<u32>,
    /// Files that are not entries (corrupt, truncated), moved aside.
    pub unreadable: Vec<(PathBuf, ReadError)>,
}

/// Why a journal file did not read as an entry.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    NotAnEntry(#[from] serde_json::Error),
}

/// Why an entry could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("the journal already holds {MAX_ENTRIES} entries")]
    Full,
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The journal's directory, for one boot.
#[derive(Debug, Clone)]
pub struct Journal {
    dir: PathBuf,
    boot_id: String,
}

impl Journal {
    /// Opens the journal in `dir` for the boot `boot_id`: entries of other boots and files
    /// that do not read as entries are moved aside (`discarded/`), never applied.
    pub fn open(dir: &Path, boot_id: String) -> std::io::Result<(Journal, Found)> {
        fs::create_dir_all(dir)?;
        let journal = Journal {
            dir: dir.to_owned(),
            boot_id,
        };
        let mut found = Found::default();
        for path in journal.files() {
            match Journal::read(&path) {
                Ok(entry) if entry.boot_id == journal.boot_id => {}
                Ok(entry) => {
                    journal.move_aside(&path)?;
                    found.other_boot.push(entry.id);
                }
                Err(why) => {
                    journal.move_aside(&path)?;
                    found.unreadable.push((path, why));
                }
            }
        }
        Ok((journal, found))
    }

    fn move_aside(&self, path: &Path) -> std::io::Result<()> {
        let aside = self.dir.join("discarded");
        fs::create_dir_all(&aside)?;
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|t| t.as_secs())
            .unwrap_or_default();
        fs::rename(path, aside.join(format!("{stamp}-{name}")))
    }

    fn file(&self, id: u32) -> PathBuf {
        self.dir.join(format!("settings-{id}.json"))
    }

    fn files(&self) -> Vec<PathBuf> {
        fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                name.starts_with("settings-") && name.ends_with(".json")
            })
            .map(|entry| entry.path())
            .collect()
    }

    fn read(path: &Path) -> Result<Entry, ReadError> {
        let bytes = fs::read(path)?;
        Ok(serde_json::from_slice(&bytes)?)
    }

    /// Records `settings` for `owner` durably and returns the entry's id. A caller has one
    /// entry: saving again returns the one it has, which holds the settings from before
    /// its first change.
    pub fn save(&self, owner: &str, settings: Settings) -> Result<u32, SaveError> {
        let entries = self.entries();
        if let Some(mine) = entries.iter().find(|entry| entry.owner == owner) {
            return Ok(mine.id);
        }
        if entries.len() >= MAX_ENTRIES {
            return Err(SaveError::Full);
        }
        let id = (1..u32::MAX)
            .find(|id| !self.file(*id).exists())
            .unwrap_or(u32::MAX);
        self.write(&Entry {
            id,
            owner: owner.to_owned(),
            boot_id: self.boot_id.clone(),
            settings,
            restore_error: None,
        })?;
        Ok(id)
    }

    /// Writes an entry durably: written, synced, renamed into place.
    fn write(&self, entry: &Entry) -> std::io::Result<()> {
        let text = serde_json::to_vec_pretty(entry).map_err(std::io::Error::other)?;
        let temporary = self.dir.join(format!(".settings-{}.json.tmp", entry.id));
        {
            use std::io::Write;
            let mut handle = fs::File::create(&temporary)?;
            handle.write_all(&text)?;
            handle.sync_all()?;
        }
        fs::rename(&temporary, self.file(entry.id))
    }

    /// This boot's entries, oldest first.
    pub fn entries(&self) -> Vec<Entry> {
        let mut entries: Vec<Entry> = self
            .files()
            .iter()
            .filter_map(|path| Journal::read(path).ok())
            .filter(|entry| entry.boot_id == self.boot_id)
            .collect();
        entries.sort_by_key(|entry: &Entry| entry.id);
        entries
    }

    pub fn get(&self, id: u32) -> Option<Entry> {
        Journal::read(&self.file(id))
            .ok()
            .filter(|entry| entry.boot_id == self.boot_id)
    }

    pub fn remove(&self, id: u32) {
        let _ = fs::remove_file(self.file(id));
    }

    /// Restores an entry and forgets it; one whose restore fails stays, with the error, to
    /// be tried again. Newer entries first when several are restored: the oldest holds the
    /// settings from before everything.
    pub fn restore(&self, kernel: &Kernel, entry: &Entry) -> Result<(), Problem> {
        match entry.settings.restore(kernel) {
            Ok(()) => {
                self.remove(entry.id);
                Ok(())
            }
            Err(problem) => {
                let kept = Entry {
                    restore_error: Some(problem.to_string()),
                    ..entry.clone()
                };
                if let Err(error) = self.write(&kept) {
                    eprintln!("pacer-helper: keeping settings {}: {error}", entry.id);
                }
                Err(problem)
            }
        }
    }

    /// Before EAS is switched: entries that could not read the switch when they were saved
    /// keep its value from now, so that restoring puts it back.
    pub fn note_eas_before_change(&self, current: &str) -> std::io::Result<()> {
        for mut entry in self.entries() {
            if entry.settings.eas.is_none() && entry.settings.eas_hidden.is_none() {
                entry.settings.eas_hidden = Some(current.to_owned());
                self.write(&entry)?;
            }
        }
        Ok(())
    }

    /// Whether some entry still waits for its owner (one whose restore failed waits for the
    /// next start instead).
    pub fn has_waiting_owner(&self) -> bool {
        self.entries()
            .iter()
            .any(|entry| entry.restore_error.is_none())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            intel_status: None,
            amd_status: None,
            policies: vec![PolicySettings {
                id: 0,
                governor: Some("powersave".into()),
                epp: None,
            }],
            no_turbo: None,
            boost: None,
            eas: None,
            eas_hidden: None,
        }
    }

    #[test]
    fn one_entry_per_caller_and_a_cap() {
        let dir = tempfile::tempdir().unwrap();
        let (journal, _) = Journal::open(dir.path(), "boot-a".into()).unwrap();
        let first = journal.save(":1.5", settings()).unwrap();
        assert_eq!(journal.save(":1.5", settings()).unwrap(), first);
        for caller in 0..MAX_ENTRIES - 1 {
            journal.save(&format!(":2.{caller}"), settings()).unwrap();
        }
        assert!(matches!(
            journal.save(":3.0", settings()),
            Err(SaveError::Full)
        ));
        assert_eq!(journal.entries().len(), MAX_ENTRIES);
    }

    #[test]
    fn another_boots_entries_and_broken_files_are_moved_aside() {
        let dir = tempfile::tempdir().unwrap();
        let (before, _) = Journal::open(dir.path(), "boot-a".into()).unwrap();
        let old = before.save(":1.5", settings()).unwrap();
        fs::write(dir.path().join("settings-7.json"), b"{\"id\": 7, \"own").unwrap();
        fs::write(dir.path().join("settings-8.json"), b"").unwrap();

        let (after, found) = Journal::open(dir.path(), "boot-b".into()).unwrap();
        assert_eq!(found.other_boot, vec![old]);
        assert_eq!(found.unreadable.len(), 2);
        assert!(after.entries().is_empty());
        assert!(after.get(old).is_none());
        assert!(!after.has_waiting_owner());
        // Kept for a person to look at, out of the journal's way.
        assert_eq!(
            fs::read_dir(dir.path().join("discarded")).unwrap().count(),
            3
        );

        // The same boot keeps its entries.
        let id = after.save(":1.9", settings()).unwrap();
        let (again, found) = Journal::open(dir.path(), "boot-b".into()).unwrap();
        assert!(
            found.other_boot.is_empty() && found.unreadable.is_empty(),
            "{found:?}"
        );
        assert_eq!(again.get(id).unwrap().owner, ":1.9");
    }

    #[test]
    fn an_entry_whose_restore_fails_is_kept_with_the_error() {
        let tree = tempfile::tempdir().unwrap();
        let policy = tree.path().join("sys/devices/system/cpu/cpufreq/policy0");
        // A governor file that cannot be written: a directory where the file should be.
        fs::create_dir_all(policy.join("scaling_governor")).unwrap();
        let kernel = Kernel::open(tree.path().to_owned(), None).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (journal, _) = Journal::open(dir.path(), "boot-a".into()).unwrap();
        let id = journal.save(":1.5", settings()).unwrap();
        let entry = journal.get(id).unwrap();
        let problem = journal.restore(&kernel, &entry).unwrap_err();
        assert!(
            matches!(&problem, Problem::WriteRefused { file, errno: Some(21), .. } if file.ends_with("policy0/scaling_governor")),
            "{problem:?}"
        );
        let kept = journal.get(id).unwrap();
        assert_eq!(kept.restore_error, Some(problem.to_string()));
        // It no longer holds the helper up (its owner is gone); the next start tries again.
        assert!(!journal.has_waiting_owner());
        assert_eq!(journal.entries().len(), 1);
    }

    #[test]
    fn the_boot_id_is_the_kernels() {
        let id = boot_id();
        assert_eq!(id.len(), 36, "{id}");
    }
}

//! The safety journal: the settings as they were before temporary changes, on disk, so they
//! come back on completion, on cancel, when the caller leaves the bus, and on the helper's
//! next start after a crash.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::kernel::{Kernel, Refused, Target};

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

/// A journal entry: the settings and who asked for them to be kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub id: u32,
    /// The caller's unique bus name: when it leaves, its settings are restored.
    pub owner: String,
    pub settings: Settings,
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
    pub fn restore(&self, kernel: &Kernel) -> Result<(), Refused> {
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

/// The journal's directory.
#[derive(Debug, Clone)]
pub struct Journal {
    dir: PathBuf,
}

impl Journal {
    pub fn new(dir: &Path) -> std::io::Result<Journal> {
        fs::create_dir_all(dir)?;
        Ok(Journal {
            dir: dir.to_owned(),
        })
    }

    fn file(&self, id: u32) -> PathBuf {
        self.dir.join(format!("settings-{id}.json"))
    }

    /// Records `settings` for `owner` durably and returns the entry's id.
    pub fn save(&self, owner: &str, settings: Settings) -> std::io::Result<u32> {
        let id = (1..u32::MAX)
            .find(|id| !self.file(*id).exists())
            .unwrap_or(u32::MAX);
        self.write(&Entry {
            id,
            owner: owner.to_owned(),
            settings,
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

    pub fn entries(&self) -> Vec<Entry> {
        let mut entries: Vec<Entry> = fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                name.starts_with("settings-") && name.ends_with(".json")
            })
            .filter_map(|entry| serde_json::from_slice(&fs::read(entry.path()).ok()?).ok())
            .collect();
        entries.sort_by_key(|entry: &Entry| entry.id);
        entries
    }

    pub fn get(&self, id: u32) -> Option<Entry> {
        serde_json::from_slice(&fs::read(self.file(id)).ok()?).ok()
    }

    pub fn remove(&self, id: u32) {
        let _ = fs::remove_file(self.file(id));
    }

    /// Restores an entry and forgets it. Newer entries first when several are restored:
    /// the oldest holds the settings from before everything.
    pub fn restore(&self, kernel: &Kernel, entry: &Entry) -> Result<(), Refused> {
        let result = entry.settings.restore(kernel);
        self.remove(entry.id);
        result
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

    pub fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }
}

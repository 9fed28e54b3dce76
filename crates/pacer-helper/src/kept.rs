// SPDX-License-Identifier: GPL-3.0-or-later
//! The history kept for the boot (`/run/pacer-helper/history.json`), for the next helper to go
//! on from: written by root for root alone (mode 0600), never through a symlink, replaced
//! whole; a file that is not a history is set aside (`history.json.corrupt`) and said in the
//! journal, never silently overwritten.

use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use pacer_core::history::{Event, History};

/// The most bytes read of a kept history: a full ring of bounded events is far less.
const READ_LIMIT: u64 = 64 << 20;

/// The events kept in `path`, in a ring of [`History::CAPACITY`]; a new ring where there are
/// none or they cannot be read (said on stderr, the journal).
pub fn read(path: &Path) -> History {
    let events = match read_events(path) {
        Ok(events) => events,
        Err(Unreadable::Missing) => Vec::new(),
        Err(Unreadable::Io(error)) => {
            eprintln!(
                "pacer-helper: starting a new history: cannot read {}: {error}",
                path.display()
            );
            Vec::new()
        }
        Err(Unreadable::NotHistory(error)) => {
            let aside = set_aside(path);
            eprintln!(
                "pacer-helper: starting a new history: {} is not one ({error}); {}",
                path.display(),
                match aside {
                    Ok(aside) => format!("kept as {}", aside.display()),
                    Err(error) => format!("it could not be set aside either: {error}"),
                }
            );
            Vec::new()
        }
    };
    History::from_events(History::CAPACITY, events)
}

enum Unreadable {
    Missing,
    Io(std::io::Error),
    NotHistory(String),
}

fn read_events(path: &Path) -> Result<Vec<Event>, Unreadable> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => Unreadable::Missing,
            _ => Unreadable::Io(error),
        })?;
    if !file.metadata().map_err(Unreadable::Io)?.is_file() {
        return Err(Unreadable::NotHistory("not a plain file".into()));
    }
    let mut bytes = Vec::new();
    file.take(READ_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(Unreadable::Io)?;
    if bytes.len() as u64 > READ_LIMIT {
        return Err(Unreadable::NotHistory(format!(
            "larger than {READ_LIMIT} bytes"
        )));
    }
    serde_json::from_slice(&bytes).map_err(|error| Unreadable::NotHistory(error.to_string()))
}

/// Moves a file that is not a history to `….corrupt`, for whoever looks into it.
fn set_aside(path: &Path) -> std::io::Result<PathBuf> {
    let aside = path.with_extension("json.corrupt");
    std::fs::rename(path, &aside)?;
    Ok(aside)
}

/// Keeps `events` in `path`: written beside (0600, a symlink there refused) and renamed
/// over, so that a reader finds the old or the new whole.
pub fn write<'e>(path: &Path, events: impl Iterator<Item = &'e Event>) -> std::io::Result<()> {
    let beside = path.with_extension("json.new");
    match std::fs::remove_file(&beside) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => return Err(error),
        _ => {}
    }
    let events: Vec<&Event> = events.collect();
    let bytes = serde_json::to_vec(&events).map_err(std::io::Error::other)?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&beside)?;
    file.write_all(&bytes)?;
    file.sync_all()?;
    std::fs::rename(&beside, path)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use pacer_core::history::{Setting, Source};

    use super::*;

    fn event(new: &str) -> Event {
        Event {
            id: 0,
            time: std::time::SystemTime::UNIX_EPOCH,
            monotonic_ms: 0,
            setting: Setting::Governor,
            policies: vec![0],
            old: None,
            new: new.into(),
            source: Source::Unknown,
            process: None,
            cause: None,
            hold: None,
        }
    }

    #[test]
    fn a_kept_history_is_root_s_alone_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.json");
        let mut history = History::new(10);
        history.push(event("performance"));
        // A stale file beside, left by a helper that stopped half-way, is replaced.
        std::fs::write(path.with_extension("json.new"), "half").unwrap();
        write(&path, history.since(0)).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let read = read(&path);
        assert_eq!(
            read.since(0).map(|e| e.new.as_str()).collect::<Vec<_>>(),
            ["performance"]
        );
    }

    #[test]
    fn a_corrupt_history_is_set_aside_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.json");
        std::fs::write(&path, "{ not a history").unwrap();
        assert!(read(&path).is_empty());
        assert!(!path.exists());
        let aside = dir.path().join("history.json.corrupt");
        assert_eq!(std::fs::read_to_string(aside).unwrap(), "{ not a history");
    }

    #[test]
    fn a_symlink_is_neither_read_nor_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("history.json");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, "[]").unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        std::fs::write(&elsewhere, "[{\"not\": \"read\"}]").unwrap();
        // Read: the link is not followed (the file there is no history, and is not moved).
        assert!(read(&path).is_empty());
        assert!(std::fs::symlink_metadata(&path).unwrap().is_symlink());
        // Written: a link where the new file goes is replaced, not written through.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&elsewhere, "[]").unwrap();
        std::os::unix::fs::symlink(&elsewhere, path.with_extension("json.new")).unwrap();
        write(&path, History::new(1).since(0)).unwrap();
        assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "[]");
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! The only files the helper writes, and how: straight to sysfs on a real machine, through
//! the kernel's rules on a simulated one. Paths are built here from validated numbers and
//! fixed names; nothing a caller sends becomes a path, and no read or write follows a symlink.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use pacer_core::machine::Snapshot;
use pacer_core::sim::SimDir;
use pacer_core::{SnapshotError, SysRoot};
use pacer_dbus::{echo, Problem};

use crate::privileged::Privileged;
use rustix::fs::{Mode, OFlags};

/// A file the helper may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    Governor(u32),
    Epp(u32),
    MaxFreq(u32),
    IntelStatus,
    AmdStatus,
    NoTurbo,
    Boost,
    PolicyBoost(u32),
    EasSysctl,
}

impl Target {
    /// The file, relative to the root.
    pub fn path(self) -> String {
        const CPU: &str = "sys/devices/system/cpu";
        match self {
            Target::Governor(policy) => format!("{CPU}/cpufreq/policy{policy}/scaling_governor"),
            Target::Epp(policy) => {
                format!("{CPU}/cpufreq/policy{policy}/energy_performance_preference")
            }
            Target::MaxFreq(policy) => format!("{CPU}/cpufreq/policy{policy}/scaling_max_freq"),
            Target::IntelStatus => format!("{CPU}/intel_pstate/status"),
            Target::AmdStatus => format!("{CPU}/amd_pstate/status"),
            Target::NoTurbo => format!("{CPU}/intel_pstate/no_turbo"),
            Target::Boost => format!("{CPU}/cpufreq/boost"),
            Target::PolicyBoost(policy) => format!("{CPU}/cpufreq/policy{policy}/boost"),
            Target::EasSysctl => "proc/sys/kernel/sched_energy_aware".to_owned(),
        }
    }
}

/// The most bytes read back from a target: every one holds a word or a number.
const READ_LIMIT: u64 = 4096;

/// Why a root is not one the helper will change as root.
#[derive(Debug, thiserror::Error)]
pub enum RootError {
    #[error("cannot open {root}: {error}")]
    Open { root: PathBuf, error: io::Error },
    #[error("{root} is owned by user {uid}, not root: another user could swap the files the helper writes")]
    NotOwnedByRoot { root: PathBuf, uid: u32 },
    #[error("{root} is writable by other users (mode {mode:o}): they could swap the files the helper writes")]
    WritableByOthers { root: PathBuf, mode: u32 },
}

/// The machine the helper changes.
#[derive(Debug)]
pub struct Kernel {
    root: PathBuf,
    /// The root, opened once: every path is resolved beneath it.
    root_fd: OwnedFd,
    simulated: Option<SimDir>,
    /// Who writes the EAS sysctl of this machine (the kernel wants CAP_SYS_ADMIN for it).
    privileged: Privileged,
}

impl Kernel {
    /// Opens `root`. Running as root, a root that another user owns or may write to is
    /// refused: they could put a symlink or a file of theirs where the helper writes.
    pub fn open(root: PathBuf, simulated: Option<SimDir>) -> Result<Kernel, RootError> {
        let root_fd = rustix::fs::open(
            &root,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|error| RootError::Open {
            root: root.clone(),
            error: error.into(),
        })?;
        if rustix::process::geteuid().is_root() {
            let meta = std::fs::metadata(&root).map_err(|error| RootError::Open {
                root: root.clone(),
                error,
            })?;
            if meta.uid() != 0 {
                return Err(RootError::NotOwnedByRoot {
                    root,
                    uid: meta.uid(),
                });
            }
            if meta.mode() & 0o022 != 0 {
                return Err(RootError::WritableByOthers {
                    root,
                    mode: meta.mode() & 0o7777,
                });
            }
        }
        Ok(Kernel {
            root,
            root_fd,
            simulated,
            privileged: Privileged::Itself,
        })
    }

    /// The same machine, its EAS sysctl written by `privileged`.
    pub fn with_privileged(self, privileged: Privileged) -> Kernel {
        Kernel { privileged, ..self }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn snapshot(&self) -> Result<Snapshot, SnapshotError> {
        Snapshot::read(&SysRoot::new(&self.root))
    }

    /// Opens a target beneath the root, refusing every symlink on the way: one directory at
    /// a time with `O_NOFOLLOW`, the way `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`
    /// would, but with plain `openat` (systemd's `RestrictSUIDSGID=` filter answers `openat2`
    /// with ENOSYS, since it cannot read the mode inside its argument). The paths hold fixed
    /// names and numbers only, never `..`.
    fn open_target(&self, target: Target, flags: OFlags) -> io::Result<std::fs::File> {
        let path = target.path();
        let mut parts = path.split('/').filter(|part| !part.is_empty()).peekable();
        let mut dir: Option<OwnedFd> = None;
        while let Some(part) = parts.next() {
            let at = dir.as_ref().map_or(self.root_fd.as_fd(), AsFd::as_fd);
            if parts.peek().is_none() {
                let fd = rustix::fs::openat(
                    at,
                    part,
                    flags | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NOCTTY,
                    Mode::empty(),
                )?;
                return Ok(std::fs::File::from(fd));
            }
            dir = Some(rustix::fs::openat(
                at,
                part,
                OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )?);
        }
        Err(io::Error::from(io::ErrorKind::InvalidInput))
    }

    /// Reads a target back, as the kernel prints it.
    pub fn read(&self, target: Target) -> Option<String> {
        let mut text = String::new();
        self.open_target(target, OFlags::RDONLY)
            .ok()?
            .take(READ_LIMIT)
            .read_to_string(&mut text)
            .ok()?;
        Some(text.trim_end().to_owned())
    }

    /// Writes `value` to `target`: one `write(2)`, as `echo` would.
    pub fn write(&self, target: Target, value: &str) -> Result<(), Problem> {
        let rel = target.path();
        let refused = |errno: Option<i32>| Problem::WriteRefused {
            file: format!("/{rel}"),
            errno,
            value: echo(value),
        };
        if let Some(dir) = &self.simulated {
            return match dir.write(&rel, value) {
                Ok(Ok(())) => Ok(()),
                Ok(Err(kernel)) => Err(refused(Some(kernel.errno()))),
                Err(error) => Err(Problem::Internal {
                    error: error.to_string(),
                }),
            };
        }
        // This machine's EAS: only CAP_SYS_ADMIN may write it, at the time of the write.
        if target == Target::EasSysctl && self.root == Path::new("/") {
            let on = match value {
                "1" => true,
                "0" => false,
                _ => return Err(refused(Some(rustix::io::Errno::INVAL.raw_os_error()))),
            };
            return self
                .privileged
                .write_eas(on)
                .map_err(|errno| refused(Some(errno.raw_os_error())));
        }
        // O_TRUNC as `echo >` does: sysfs ignores it, a plain file (a test tree) needs it.
        self.open_target(target, OFlags::WRONLY | OFlags::TRUNC)
            .and_then(|mut handle| handle.write_all(value.as_bytes()))
            .map_err(|error| refused(error.raw_os_error()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::fs;

    fn tree() -> (tempfile::TempDir, Kernel) {
        let dir = tempfile::tempdir().unwrap();
        let policy = dir.path().join("sys/devices/system/cpu/cpufreq/policy0");
        fs::create_dir_all(&policy).unwrap();
        fs::write(policy.join("scaling_governor"), "powersave\n").unwrap();
        let kernel = Kernel::open(dir.path().to_owned(), None).unwrap();
        (dir, kernel)
    }

    #[test]
    fn a_symlinked_target_is_neither_written_nor_read() {
        let (dir, kernel) = tree();
        let outside = tempfile::NamedTempFile::new().unwrap();
        fs::write(outside.path(), "untouched").unwrap();
        let epp = dir
            .path()
            .join("sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference");
        std::os::unix::fs::symlink(outside.path(), &epp).unwrap();
        let refused = kernel.write(Target::Epp(0), "power").unwrap_err();
        assert!(
            matches!(&refused, Problem::WriteRefused { errno: Some(40), file, .. } if file.ends_with("policy0/energy_performance_preference")),
            "{refused:?}"
        );
        assert_eq!(fs::read_to_string(outside.path()).unwrap(), "untouched");
        assert_eq!(kernel.read(Target::Epp(0)), None);
    }

    #[test]
    fn a_symlinked_directory_on_the_way_is_refused() {
        let (dir, kernel) = tree();
        let elsewhere = tempfile::tempdir().unwrap();
        fs::write(elsewhere.path().join("scaling_governor"), "performance").unwrap();
        std::os::unix::fs::symlink(
            elsewhere.path(),
            dir.path().join("sys/devices/system/cpu/cpufreq/policy1"),
        )
        .unwrap();
        assert!(kernel.write(Target::Governor(1), "powersave").is_err());
        assert_eq!(
            fs::read_to_string(elsewhere.path().join("scaling_governor")).unwrap(),
            "performance"
        );
    }

    #[test]
    fn values_are_written_as_given_and_echoed_at_most_200_characters() {
        let (dir, kernel) = tree();
        let governor = dir
            .path()
            .join("sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
        // A shorter value after a longer one leaves no tail behind.
        for value in ["performance", "powersave", "schedutil\n", "power\0save"] {
            kernel.write(Target::Governor(0), value).unwrap();
            assert_eq!(fs::read_to_string(&governor).unwrap(), value);
        }
        let huge = "x".repeat(1 << 20);
        kernel.write(Target::Governor(0), &huge).unwrap();
        assert_eq!(fs::metadata(&governor).unwrap().len(), 1 << 20);
        // Read back no more than a target can hold.
        assert_eq!(kernel.read(Target::Governor(0)).unwrap().len(), 4096);
        let missing = kernel.write(Target::IntelStatus, &huge).unwrap_err();
        match missing {
            Problem::WriteRefused { errno, value, .. } => {
                assert_eq!(errno, Some(2));
                assert_eq!(value.chars().count(), 201);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn as_root_a_root_others_can_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777)).unwrap();
        if !rustix::process::geteuid().is_root() {
            // Without root the helper can write only what its user may anyway.
            assert!(Kernel::open(dir.path().to_owned(), None).is_ok());
            return;
        }
        assert!(matches!(
            Kernel::open(dir.path().to_owned(), None),
            Err(RootError::WritableByOthers { .. })
        ));
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        rustix::fs::chown(dir.path(), Some(rustix::fs::Uid::from_raw(65534)), None).unwrap();
        assert!(matches!(
            Kernel::open(dir.path().to_owned(), None),
            Err(RootError::NotOwnedByRoot { uid: 65534, .. })
        ));
    }
}

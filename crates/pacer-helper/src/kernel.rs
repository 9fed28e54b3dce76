//! The only files the helper writes, and how: straight to sysfs on a real machine, through
//! the kernel's rules on a simulated one. Paths are built here from validated numbers and
//! fixed names; nothing a caller sends becomes a path.

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use pacer_core::machine::Snapshot;
use pacer_core::sim::SimDir;
use pacer_core::{SnapshotError, SysRoot};

/// A file the helper may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    Governor(u32),
    Epp(u32),
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
            Target::IntelStatus => format!("{CPU}/intel_pstate/status"),
            Target::AmdStatus => format!("{CPU}/amd_pstate/status"),
            Target::NoTurbo => format!("{CPU}/intel_pstate/no_turbo"),
            Target::Boost => format!("{CPU}/cpufreq/boost"),
            Target::PolicyBoost(policy) => format!("{CPU}/cpufreq/policy{policy}/boost"),
            Target::EasSysctl => "proc/sys/kernel/sched_energy_aware".to_owned(),
        }
    }
}

/// A write the kernel refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The file, as the user knows it (`/sys/...`).
    pub file: String,
    pub errno: Option<i32>,
    /// The system's words for the error, with the errno's name.
    pub error: String,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.error)
    }
}

/// The machine the helper changes.
#[derive(Debug, Clone)]
pub struct Kernel {
    root: PathBuf,
    simulated: Option<SimDir>,
}

fn errno_name(errno: i32) -> &'static str {
    match errno {
        1 => "EPERM",
        2 => "ENOENT",
        13 => "EACCES",
        16 => "EBUSY",
        22 => "EINVAL",
        95 => "EOPNOTSUPP",
        _ => "",
    }
}

impl Kernel {
    pub fn new(root: PathBuf, simulated: Option<SimDir>) -> Kernel {
        Kernel { root, simulated }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn snapshot(&self) -> Result<Snapshot, SnapshotError> {
        Snapshot::read(&SysRoot::new(&self.root))
    }

    /// Reads a target back, as the kernel prints it.
    pub fn read(&self, target: Target) -> Option<String> {
        std::fs::read_to_string(self.root.join(target.path()))
            .ok()
            .map(|text| text.trim_end().to_owned())
    }

    /// Writes `value` to `target`: one `write(2)`, as `echo` would.
    pub fn write(&self, target: Target, value: &str) -> Result<(), Refused> {
        let rel = target.path();
        let file = format!("/{rel}");
        let refused = |errno: Option<i32>, error: String| Refused {
            file: file.clone(),
            errno,
            error,
        };
        if let Some(dir) = &self.simulated {
            return match dir.write(&rel, value) {
                Ok(Ok(())) => Ok(()),
                Ok(Err(kernel)) => Err(refused(Some(kernel.errno()), kernel.to_string())),
                Err(error) => Err(refused(None, error.to_string())),
            };
        }
        let result = std::fs::OpenOptions::new()
            .write(true)
            .open(self.root.join(&rel))
            .and_then(|mut handle| handle.write_all(value.as_bytes()));
        result.map_err(|error: io::Error| {
            let errno = error.raw_os_error();
            let text = error.to_string();
            let text = text.split(" (os error").next().unwrap_or(&text).to_owned();
            let name = errno.map(errno_name).unwrap_or_default();
            let error = if name.is_empty() {
                text
            } else {
                format!("{text} ({name})")
            };
            refused(errno, error)
        })
    }
}

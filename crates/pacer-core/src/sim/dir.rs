// SPDX-License-Identifier: GPL-3.0-or-later
//! A simulated machine in a directory, shared by several processes: laid out once, then each
//! write loads the state, takes in what others wrote to the files directly (the real
//! power-profiles-daemon writes plain files), applies the kernel's rules, and lays the tree
//! out again, all under a lock. A [`super::Ticker`] keeps the live files moving.

use std::fmt;
use std::fs;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, Mode, OFlags};

use crate::i18n::{fill, gettext};

use super::lists::{AMD_EPP_VALUES, EPP_NAMES};
use super::rules::WriteError;
use super::tree::RenderError;
use super::{SimDriver, SimMachine, PLATFORM_PROFILE};

const LOCK_FILE: &str = ".pacer-sim/lock";

/// Why a simulated machine could not be opened or written.
#[derive(Debug)]
pub enum SimError {
    Render(RenderError),
    UnknownModel(String),
    /// The directory holds another model than the one asked for.
    OtherModel {
        dir: PathBuf,
        holds: String,
    },
    /// The directory holds no simulated machine.
    NotSimulated(PathBuf),
    Lock(std::io::Error),
    Temporary(std::io::Error),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Render(error) => error.fmt(f),
            SimError::UnknownModel(name) => f.write_str(&fill(
                gettext("there is no simulated machine called {name} (pacerctl simulate list names them)"),
                &[("name", name)],
            )),
            SimError::OtherModel { dir, holds } => f.write_str(&fill(
                gettext("{dir} already holds the simulated {model}"),
                &[("dir", &dir.display()), ("model", holds)],
            )),
            SimError::NotSimulated(dir) => f.write_str(&fill(
                gettext("{dir} holds no simulated machine"),
                &[("dir", &dir.display())],
            )),
            SimError::Lock(error) => f.write_str(&fill(
                gettext("cannot lock the simulated machine: {error}"),
                &[("error", error)],
            )),
            SimError::Temporary(error) => f.write_str(&fill(
                gettext("cannot make a temporary directory: {error}"),
                &[("error", error)],
            )),
        }
    }
}

impl std::error::Error for SimError {}

impl From<RenderError> for SimError {
    fn from(error: RenderError) -> Self {
        SimError::Render(error)
    }
}

/// A directory holding a simulated machine.
#[derive(Debug, Clone)]
pub struct SimDir {
    root: PathBuf,
}

impl SimDir {
    /// Lays `model` out in `root` when it is empty (or missing); reuses it when it already
    /// holds that model.
    pub fn open_or_create(root: &Path, model: &str) -> Result<SimDir, SimError> {
        let dir = SimDir {
            root: root.to_owned(),
        };
        let _lock = dir.lock()?;
        match SimMachine::load(root)? {
            Some(machine) if machine.model == model => Ok(dir),
            Some(machine) => Err(SimError::OtherModel {
                dir: root.to_owned(),
                holds: machine.model,
            }),
            None => {
                let machine =
                    super::model(model).ok_or_else(|| SimError::UnknownModel(model.to_owned()))?;
                machine.render(root)?;
                Ok(dir)
            }
        }
    }

    /// Opens the machine `root` holds.
    pub fn open(root: &Path) -> Result<SimDir, SimError> {
        match SimMachine::load(root)? {
            Some(_) => Ok(SimDir {
                root: root.to_owned(),
            }),
            None => Err(SimError::NotSimulated(root.to_owned())),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The machine as it stands, with what others wrote to its files taken in.
    pub fn machine(&self) -> Result<SimMachine, SimError> {
        let mut machine = SimMachine::load(&self.root)?
            .ok_or_else(|| SimError::NotSimulated(self.root.clone()))?;
        absorb(&mut machine, &self.root);
        Ok(machine)
    }

    /// Writes `value` to `path` through the kernel's rules. The outer error is about the
    /// directory; the inner one is the kernel's answer.
    pub fn write(&self, path: &str, value: &str) -> Result<Result<(), WriteError>, SimError> {
        let _lock = self.lock()?;
        let mut machine = self.machine()?;
        if let Err(refused) = machine.write(path, value) {
            // The rules answer read-only for any path they do not take; the kernel answers
            // so for an attribute that is there, and ENOENT for one that is not.
            let missing = || {
                Path::new(path)
                    .components()
                    .any(|part| !matches!(part, std::path::Component::Normal(_)))
                    || fs::symlink_metadata(self.root.join(path)).is_err()
            };
            return Ok(Err(match refused {
                WriteError::ReadOnly if missing() => WriteError::NoFile,
                other => other,
            }));
        }
        machine.render_after(&self.root, Some(path.trim_start_matches('/')))?;
        Ok(Ok(()))
    }

    /// Puts the machine through a suspend and resume: its resume quirk applies, and the tree
    /// is laid out again (each file that changed is a new file, as after a write's side
    /// effects).
    pub fn resume(&self) -> Result<(), SimError> {
        let _lock = self.lock()?;
        let mut machine = self.machine()?;
        machine.resume();
        machine.render_after(&self.root, None)?;
        Ok(())
    }

    fn lock(&self) -> Result<OwnedFd, SimError> {
        let path = self.root.join(LOCK_FILE);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(SimError::Lock)?;
        }
        let fd = rustix::fs::open(
            &path,
            OFlags::CREATE | OFlags::RDWR | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        )
        .map_err(|e| SimError::Lock(e.into()))?;
        rustix::fs::flock(&fd, FlockOperation::LockExclusive)
            .map_err(|e| SimError::Lock(e.into()))?;
        Ok(fd)
    }
}

/// The root a program runs on, from `--sysfs-root` and `--simulate`: a simulated machine
/// in DIR or, without DIR, in a temporary directory removed with this value; else DIR; else
/// `/`.
#[derive(Debug)]
pub struct MachineRoot {
    root: PathBuf,
    simulated: Option<SimDir>,
    _temporary: Option<tempfile::TempDir>,
}

impl MachineRoot {
    pub fn choose(
        sysfs_root: Option<&Path>,
        simulate: Option<&str>,
    ) -> Result<MachineRoot, SimError> {
        let Some(model) = simulate else {
            return Ok(MachineRoot {
                root: sysfs_root.unwrap_or(Path::new("/")).to_owned(),
                simulated: None,
                _temporary: None,
            });
        };
        let (root, temporary) = match sysfs_root {
            Some(dir) => (dir.to_owned(), None),
            None => {
                let dir = temporary_machine_dir()?;
                (dir.path().to_owned(), Some(dir))
            }
        };
        let simulated = SimDir::open_or_create(&root, model)?;
        Ok(MachineRoot {
            root,
            simulated: Some(simulated),
            _temporary: temporary,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The simulated machine asked for with `--simulate`.
    pub fn simulated(&self) -> Option<&SimDir> {
        self.simulated.as_ref()
    }
}

/// A new directory for a temporary simulated machine: in memory like the real `/sys` where
/// there is a memory-backed directory to write (the user's runtime directory, else
/// `/dev/shm`), since its frequencies are rewritten many times a second; else the usual
/// temporary directory.
fn temporary_machine_dir() -> Result<tempfile::TempDir, SimError> {
    let builder = || {
        let mut builder = tempfile::Builder::new();
        builder.prefix("pacer-simulated-");
        builder
    };
    let in_memory = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .into_iter()
        .chain([PathBuf::from("/dev/shm")])
        .find_map(|dir| builder().tempdir_in(dir).ok());
    match in_memory {
        Some(dir) => Ok(dir),
        None => builder().tempdir().map_err(SimError::Temporary),
    }
}

/// Takes in values written straight to the files (by power-profiles-daemon, or a test) as
/// the hardware would now hold them. Unreadable or garbled files are left as the state has
/// them.
fn absorb(machine: &mut SimMachine, root: &Path) {
    let read = |rel: &str| -> Option<String> {
        fs::read_to_string(root.join(rel))
            .ok()
            .map(|text| text.trim_end().to_owned())
    };
    let epp_names: Vec<(&str, u8)> = match &machine.driver {
        SimDriver::IntelPstate { epp_values, .. } => {
            let mut names: Vec<(&str, u8)> = EPP_NAMES.iter().copied().zip(*epp_values).collect();
            names.push(("default", epp_values[1]));
            names
        }
        _ => EPP_NAMES.iter().copied().zip(AMD_EPP_VALUES).collect(),
    };
    // What the limit files show: the requests capped by cooling devices.
    let shown: Vec<(u32, u32)> = machine
        .policies
        .iter()
        .map(|policy| (machine.qos_min_khz(policy), machine.qos_max_khz(policy)))
        .collect();
    for (policy, shown) in machine.policies.iter_mut().zip(shown) {
        let dir = format!("sys/devices/system/cpu/cpufreq/policy{}", policy.id);
        if let Some(governor) = read(&format!("{dir}/scaling_governor")) {
            if governor.parse::<crate::values::Governor>().is_ok() {
                policy.governor = governor;
            }
        }
        if policy.epp_raw.is_some() {
            if let Some(text) = read(&format!("{dir}/energy_performance_preference")) {
                let raw = epp_names
                    .iter()
                    .find(|(name, _)| *name == text)
                    .map(|(_, value)| *value)
                    .or_else(|| text.parse().ok());
                if raw.is_some() {
                    policy.epp_raw = raw;
                }
            }
        }
        // A limit that reads as the machine shows it is unchanged: the request behind it
        // outlives a cooling device's cap.
        for (file, limit, shown) in [
            ("scaling_min_freq", &mut policy.min_khz, shown.0),
            ("scaling_max_freq", &mut policy.max_khz, shown.1),
        ] {
            if let Some(khz) = read(&format!("{dir}/{file}")).and_then(|t| t.parse().ok()) {
                if khz != shown {
                    *limit = khz;
                }
            }
        }
    }
    if let Some(profile) = read(PLATFORM_PROFILE) {
        machine.absorb_platform_profile(&profile);
    }
    for cpu in machine.cpus.iter_mut().filter(|cpu| cpu.epb.is_some()) {
        let file = format!(
            "sys/devices/system/cpu/cpu{}/power/energy_perf_bias",
            cpu.id
        );
        if let Some(epb) = read(&file)
            .and_then(|t| t.parse::<u8>().ok())
            .filter(|e| *e <= 15)
        {
            cpu.epb = Some(epb);
        }
    }
    if let SimDriver::IntelPstate { no_turbo, .. } = &mut machine.driver {
        if let Some(flag) = read("sys/devices/system/cpu/intel_pstate/no_turbo") {
            *no_turbo = flag == "1";
        }
    }
}

#[cfg(test)]
mod tests;

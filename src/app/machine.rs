// SPDX-License-Identifier: GPL-3.0-or-later
//! Which machine the window shows: the real one, a tree under `--sysfs-root`, or a simulated
//! machine kept moving while someone looks at it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pacer_core::sim::{MachineRoot, Model, SimError, Ticker, MODELS};

/// The simulated machine offered where this computer has no CPU frequency control.
pub const OFFERED_MODEL: &str = "intel-hybrid";

#[derive(Debug)]
pub struct Machine {
    // The ticker stops before the directory it writes goes away.
    ticker: Option<Ticker>,
    root: MachineRoot,
    model: Option<String>,
}

impl Machine {
    pub fn choose(
        sysfs_root: Option<PathBuf>,
        simulate: Option<&str>,
        period: Duration,
    ) -> Result<Machine, SimError> {
        let root = MachineRoot::choose(sysfs_root.as_deref(), simulate)?;
        let ticker = root
            .simulated()
            .cloned()
            .map(|dir| Ticker::start(dir, 1, period));
        let model = root
            .simulated()
            .and_then(|dir| dir.machine().ok())
            .map(|machine| machine.model);
        Ok(Machine {
            ticker,
            root,
            model,
        })
    }

    pub fn root(&self) -> &Path {
        self.root.root()
    }

    pub fn is_simulated(&self) -> bool {
        self.root.simulated().is_some()
    }

    /// The simulated model's name, as given to `--simulate`.
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// The simulated model, when the machine is one of the models.
    pub fn simulated_model(&self) -> Option<&'static Model> {
        let name = self.model.as_deref()?;
        MODELS.iter().find(|model| model.name == name)
    }

    /// A simulated machine moves only while it is watched, at the pace it is sampled.
    pub fn set_pace(&self, watched: bool, period: Duration) {
        if let Some(ticker) = &self.ticker {
            ticker.set_period(period);
            if watched {
                ticker.resume();
            } else {
                ticker.pause();
            }
        }
    }
}

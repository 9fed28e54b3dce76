//! Which machine the window shows: the real one, a tree under `--sysfs-root`, or a simulated
//! machine kept moving for as long as the window runs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pacer_core::sim::{MachineRoot, SimError, Ticker};

#[derive(Debug)]
pub struct Machine {
    // The ticker stops before the directory it writes goes away.
    _ticker: Option<Ticker>,
    root: MachineRoot,
}

impl Machine {
    pub fn choose(
        sysfs_root: Option<PathBuf>,
        simulate: Option<&str>,
    ) -> Result<Machine, SimError> {
        let root = MachineRoot::choose(sysfs_root.as_deref(), simulate)?;
        // The window samples at about 10 Hz; the simulated machine moves at the same pace.
        let ticker = root
            .simulated()
            .cloned()
            .map(|dir| Ticker::start(dir, 1, Duration::from_millis(100)));
        Ok(Machine {
            _ticker: ticker,
            root,
        })
    }

    pub fn root(&self) -> &Path {
        self.root.root()
    }
}

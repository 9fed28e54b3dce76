// SPDX-License-Identifier: GPL-3.0-or-later
//! `--simulate NAME` and `pacerctl simulate`: running on a simulated machine.

mod tuned_ppd;

use std::path::Path;
use std::time::Duration;

use anyhow::bail;
use pacer_core::i18n::{fill, gettext};
use pacer_core::sim::{self, MachineRoot, SimDir, Ticker};

use crate::cli::SimulatedDaemon;

/// How often a running simulated machine's frequencies move.
const TICK: Duration = Duration::from_millis(100);

/// Keeps the frequencies of a machine simulated for this command moving while the value
/// lives.
pub fn ticker(machine: &MachineRoot) -> Option<Ticker> {
    machine
        .simulated()
        .cloned()
        .map(|dir| Ticker::start(dir, 1, TICK))
}

pub fn list() -> anyhow::Result<()> {
    let width = sim::MODELS.iter().map(|m| m.name.len()).max().unwrap_or(0);
    for model in sim::MODELS {
        println!("{:width$}  {}", model.name, gettext(model.description));
    }
    Ok(())
}

fn simulated_dir(sysfs_root: Option<&Path>) -> anyhow::Result<SimDir> {
    let Some(root) = sysfs_root else {
        bail!(gettext("say which simulated machine with --sysfs-root DIR"));
    };
    Ok(SimDir::open(root)?)
}

pub fn write(sysfs_root: Option<&Path>, path: &str, value: &str) -> anyhow::Result<()> {
    let dir = simulated_dir(sysfs_root)?;
    match dir.write(path, value)? {
        Ok(()) => {
            println!("{}", fill(gettext("{path}: written"), &[("path", &path)]));
            Ok(())
        }
        Err(refused) => bail!(fill(
            gettext("{path}: the kernel refuses {value}: {error}"),
            &[("path", &path), ("value", &value), ("error", &refused)],
        )),
    }
}

pub fn resume(sysfs_root: Option<&Path>) -> anyhow::Result<()> {
    let dir = simulated_dir(sysfs_root)?;
    dir.resume()?;
    println!(
        "{}",
        fill(
            gettext("{dir}: suspended and resumed"),
            &[("dir", &dir.root().display())],
        )
    );
    Ok(())
}

pub fn run(sysfs_root: Option<&Path>, model: &str, seed: u64) -> anyhow::Result<()> {
    let Some(root) = sysfs_root else {
        bail!(gettext(
            "say where to keep the simulated machine with --sysfs-root DIR"
        ));
    };
    let dir = SimDir::open_or_create(root, model)?;
    eprintln!(
        "{}",
        fill(
            gettext("simulated {model} running in {dir}; Ctrl+C stops"),
            &[("model", &model), ("dir", &root.display())],
        )
    );
    let _ticker = Ticker::start(dir, seed, TICK);
    loop {
        std::thread::park();
    }
}

/// Serves `daemon`'s D-Bus API over the simulated machine in `sysfs_root` until interrupted.
pub fn daemon(
    sysfs_root: Option<&Path>,
    daemon: SimulatedDaemon,
    session: bool,
) -> anyhow::Result<()> {
    let dir = simulated_dir(sysfs_root)?;
    match daemon {
        SimulatedDaemon::TunedPpd => {
            crate::runtime::new()?.block_on(tuned_ppd::serve(dir, session))
        }
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! Where a ramp comes from: a simulated machine's model, or a measurement of the real CPUs.

use std::sync::atomic::AtomicBool;

use pacer_core::i18n::gettext;
use pacer_core::machine::Snapshot;
use pacer_core::sim::{RenderError, SimMachine};
use pacer_core::SysRoot;
use pacer_dbus::measurement::progress::Progress;
use pacer_dbus::measurement::report::RampReport;

use crate::model::played_ramp;
use crate::report::{measure_ramp, RampOptions};

/// Why a ramp could not be had.
#[derive(Debug, thiserror::Error)]
pub enum RampError {
    /// The root is marked simulated but holds no model state.
    #[error("{}", gettext("the simulated machine's state is missing"))]
    ModelMissing,
    #[error(transparent)]
    Model(#[from] RenderError),
    #[error(transparent)]
    Measurement(#[from] std::io::Error),
}

/// The ramp of `cpus` on the machine under `root`: from its model on a simulated machine
/// (played out in time, as a measurement would run), measured otherwise. What pacerctl, the window and the helper all do.
pub fn ramp_of(
    root: &SysRoot,
    snapshot: &Snapshot,
    cpus: &[u32],
    options: RampOptions,
    profile: Option<String>,
    progress: &mut dyn FnMut(Progress),
    cancel: &AtomicBool,
) -> Result<RampReport, RampError> {
    if snapshot.simulated {
        let machine = SimMachine::load(root.root())?.ok_or(RampError::ModelMissing)?;
        return Ok(played_ramp(
            &machine,
            snapshot,
            cpus,
            profile,
            options.duration,
            progress,
            cancel,
        ));
    }
    Ok(measure_ramp(
        root, snapshot, cpus, options, profile, progress, cancel,
    )?)
}

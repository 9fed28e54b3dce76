//! What the components' unit tests share: the state of a simulated machine, as the window
//! would receive it (without a profile daemon).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pacer_bench::report::{self, RampReport};
use pacer_core::profile::ProfileReading;
use pacer_core::sim::{SimDir, SimMachine};
use pacer_core::status::Status;
use pacer_core::{Snapshot, SysRoot};

/// The status of the simulated `model` after `writes` (path from `/`, value) went through
/// the kernel's rules.
pub fn simulated_status(model: &str, writes: &[(&str, &str)]) -> Status {
    let dir = tempfile::tempdir().unwrap();
    let sim = SimDir::open_or_create(dir.path(), model).unwrap();
    for (path, value) in writes {
        sim.write(path, value).unwrap().unwrap();
    }
    let root = SysRoot::new(dir.path());
    Status::assemble(
        &root,
        Snapshot::read(&root).unwrap(),
        ProfileReading::default(),
    )
}

/// The simulated laptop's ramp-up report, one run per core type.
pub fn simulated_ramp_report() -> RampReport {
    let dir = tempfile::tempdir().unwrap();
    SimDir::open_or_create(dir.path(), "intel-hybrid").unwrap();
    let snapshot = Snapshot::read(&SysRoot::new(dir.path())).unwrap();
    let cpus = report::default_cpus(&snapshot, None);
    let machine = SimMachine::load(dir.path()).unwrap().unwrap();
    pacer_bench::model::simulated_ramp(&machine, &snapshot, &cpus, None)
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! What the components' unit tests share: the state of a simulated machine, as the window
//! would receive it (without a profile daemon), and the one thread that may use GTK.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::OnceLock;

use pacer_core::history::{Event, Setting, Source, Writer};
use pacer_core::limits::LimitWatch;
use pacer_core::profile::ProfileReading;
use pacer_core::sim::{SimDir, SimMachine};
use pacer_core::status::Status;
use pacer_core::{Snapshot, SysRoot};
use pacer_dbus::measurement::report::RampReport;
use pacer_measure::report;
use relm4::gtk::{self, glib};

/// The status of the simulated `model` after `writes` (path from `/`, value) went through
/// the kernel's rules, with its limit chain from one reading.
pub fn simulated_status(model: &str, writes: &[(&str, &str)]) -> Status {
    let dir = tempfile::tempdir().unwrap();
    let sim = SimDir::open_or_create(dir.path(), model).unwrap();
    for (path, value) in writes {
        sim.write(path, value).unwrap().unwrap();
    }
    let root = SysRoot::new(dir.path());
    let mut status = Status::assemble(
        &root,
        Snapshot::read(&root).unwrap(),
        ProfileReading::default(),
    );
    let mut watch = LimitWatch::new(&root, &status.snapshot);
    watch.refresh(&root);
    status.read_limits(&mut watch);
    status
}

/// The simulated laptop with turbo switched off by tlp.service, as its recording has it:
/// its status, explained by that recording (its findings carry their causes).
pub fn turbo_switched_off_by_tlp() -> Status {
    let no_turbo = "sys/devices/system/cpu/intel_pstate/no_turbo";
    let mut status = simulated_status("intel-hybrid", &[(no_turbo, "1")]);
    status.explain(&[Event {
        id: 7,
        time: std::time::SystemTime::now(),
        monotonic_ms: 0,
        setting: Setting::NoTurbo,
        policies: Vec::new(),
        old: Some("0".into()),
        new: "1".into(),
        source: Source::Process,
        process: Some(Writer {
            pid: 812,
            comm: Some("tlp".into()),
            exe: None,
            unit: Some("tlp.service".into()),
            uid: Some(0),
        }),
        cause: None,
        hold: None,
    }]);
    status
}

/// The simulated laptop's ramp-up report, one run per core type.
pub fn simulated_ramp_report() -> RampReport {
    let dir = tempfile::tempdir().unwrap();
    SimDir::open_or_create(dir.path(), "intel-hybrid").unwrap();
    let snapshot = Snapshot::read(&SysRoot::new(dir.path())).unwrap();
    let cpus = report::default_cpus(&snapshot, None);
    let machine = SimMachine::load(dir.path()).unwrap().unwrap();
    pacer_measure::model::simulated_ramp(&machine, &snapshot, &cpus, None)
}

type GtkJob = Box<dyn FnOnce() + Send>;
/// A job for the GTK thread, and where to say how it went.
type GtkRequest = (GtkJob, mpsc::Sender<std::thread::Result<()>>);

/// Runs `test` on the one thread that initialised GTK, and fails as it fails: GTK may be used
/// from a single thread, and the test harness runs each test on a thread of its own.
pub fn on_gtk_thread(test: impl FnOnce() + Send + 'static) {
    static GTK_THREAD: OnceLock<mpsc::Sender<GtkRequest>> = OnceLock::new();
    let jobs = GTK_THREAD.get_or_init(|| {
        let (jobs, incoming) = mpsc::channel::<GtkRequest>();
        std::thread::spawn(move || {
            // The tests that come here are marked for the gui lane, which runs them under Xvfb;
            // without a display this fails, saying so.
            let ready = gtk::init();
            for (job, done) in incoming {
                let outcome = match &ready {
                    Ok(()) => catch_unwind(AssertUnwindSafe(job)),
                    Err(error) => Err(Box::new(format!(
                        "GTK needs a display: `build-aux/test.sh --lane gui` runs this test \
                         under Xvfb ({error})"
                    )) as Box<dyn std::any::Any + Send>),
                };
                let _ = done.send(outcome);
            }
        });
        jobs
    });
    let (done, outcome) = mpsc::channel();
    jobs.send((Box::new(test), done)).unwrap();
    if let Err(panic) = outcome.recv().unwrap() {
        resume_unwind(panic);
    }
}

/// Runs the GTK main context until `done` holds (at most two seconds), for messages that
/// components handle on it.
pub fn run_main_context_until(done: impl Fn() -> bool) {
    let context = glib::MainContext::default();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while !done() && std::time::Instant::now() < deadline {
        context.iteration(false);
    }
}

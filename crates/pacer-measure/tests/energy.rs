// SPDX-License-Identifier: GPL-3.0-or-later
//! Live, on this machine's CPU 1, with a package energy counter this machine lacks: a
//! simulated laptop's RAPL file advanced at 5 W by a thread on CPU 0, while another task takes
//! 2 ms in every 50 of CPU 1. The power must be the package's (5 W), and the work charged only
//! for the time its thread was on the CPU, not the competitor's share.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pacer_core::machine::Snapshot;
use pacer_core::SysRoot;
use pacer_measure::disturb::{Background, Competitor};
use pacer_measure::energy::EnergyCounter;
use pacer_measure::ramp::{self, RampSetup};
use pacer_measure::report::{measure_ramp, RampOptions};

const WATTS: u64 = 5;
/// The tests measure on CPU 1 one at a time: two at once would take it from each other.
static CPU_1: Mutex<()> = Mutex::new(());
const ZONE: &str = "sys/devices/virtual/powercap/intel-rapl/intel-rapl:0/energy_uj";

/// A package counter that rises at [`WATTS`] from a thread on CPU 0, each value written
/// whole (a new file renamed over the old), as a reader of sysfs sees it change.
fn power_source(file: PathBuf) -> Background {
    let start: u64 = std::fs::read_to_string(&file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    Background::spawn(move |stopped| {
        ramp::pin_to(0).unwrap();
        let begun = Instant::now();
        let next = file.with_extension("next");
        while !stopped.load(Ordering::Relaxed) {
            // µJ at WATTS W: W µJ per µs.
            let uj = start + begun.elapsed().as_micros() as u64 * WATTS;
            std::fs::write(&next, format!("{uj}\n")).unwrap();
            std::fs::rename(&next, &file).unwrap();
            std::thread::sleep(Duration::from_micros(500));
        }
    })
}

fn laptop(dir: &Path) -> (SysRoot, Snapshot) {
    pacer_core::sim::model("intel-hybrid")
        .unwrap()
        .render(dir)
        .unwrap();
    let root = SysRoot::new(dir);
    let snapshot = Snapshot::read(&root).unwrap();
    (root, snapshot)
}

#[test]
fn power_is_the_packages_and_the_work_is_charged_for_its_time_on_the_cpu() {
    let _cpu = CPU_1
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let (root, snapshot) = laptop(dir.path());
    let counter = EnergyCounter::find(&root, &snapshot.rapl).expect("the laptop's package zone");
    assert_eq!(counter.domain, "package-0");
    let _source = power_source(dir.path().join(ZONE));
    let _competitor = Competitor::periodic(1, Duration::from_millis(2), Duration::from_millis(50));
    let setup = RampSetup {
        cpu: 1,
        policy: None,
        duration: Duration::from_millis(1300),
        idle_wait: Duration::from_millis(50),
        energy: Some(counter),
        raise_priority: false,
    };
    let buffer = ramp::buffer_for(setup.duration);
    let trial = ramp::trial(&root, &setup, &buffer, &AtomicBool::new(false))
        .unwrap()
        .unwrap();
    let energy = trial.energy.expect("the counter was read around the run");
    // The writer's steps (0.5 ms, 2.5 mJ) against a 1.3 s run: well inside 3 %.
    let power = energy.power_w();
    assert!((power - WATTS as f64).abs() < 0.15, "{power} W, {energy:?}");
    // The time the thread was off its CPU is the gaps' (the competitor's 4 %, and the
    // interrupts' and the hypervisor's time on this VM), and is not the work's.
    let gaps = trial.off_cpu.gaps.total_ns();
    assert_eq!(energy.on_cpu_ns, energy.wall_ns - gaps);
    let off_share = gaps as f64 / energy.wall_ns as f64;
    // At least the competitor's share, so that the charge differs from the whole; more when
    // the host is busy too, which changes nothing below.
    assert!(
        (0.02..0.9).contains(&off_share),
        "off the CPU {:.1} % of the run",
        off_share * 100.0
    );
    let charged = energy.work_j();
    let whole = energy.used_uj as f64 / 1e6;
    assert!(
        (charged / whole - (1.0 - off_share)).abs() < 1e-3,
        "{charged} J of {whole} J"
    );
    let j_per_gop = energy.j_per_gop(trial.operations).unwrap();
    let whole_per_gop = whole / (trial.operations as f64 / 1e9);
    assert!(j_per_gop < whole_per_gop * 0.985, "{j_per_gop} J/Gop");
}

#[test]
fn the_report_names_the_domain_and_gives_power_and_efficiency() {
    let _cpu = CPU_1
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let (root, snapshot) = laptop(dir.path());
    let _source = power_source(dir.path().join(ZONE));
    let options = RampOptions {
        trials: 3,
        idle_wait: Duration::from_millis(50),
        ..RampOptions::default()
    };
    let report = measure_ramp(
        &root,
        &snapshot,
        &[1],
        options,
        None,
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    let run = &report.runs[0];
    assert_eq!(run.energy_domain.as_deref(), Some("package-0"));
    let power = run.power_w.unwrap();
    assert!((power.median - WATTS as f64).abs() < 0.15, "{power:?}");
    // A flat ramp (this machine's frequency is fixed): the work's energy per operation is
    // the power over the throughput.
    let expected = power.median * 1e3 / run.steady_mops.unwrap().median;
    let j_per_gop = run.j_per_gop.unwrap().median;
    assert!(
        (j_per_gop / expected - 1.0).abs() < 0.05,
        "{j_per_gop} J/Gop against {expected}"
    );
    // The table says where the energy comes from.
    let table = pacer_measure::table::RampTable::new(&[(None, &report)]).to_text();
    assert!(table.contains("Energy (package-0):"), "{table}");
}

#[test]
fn a_counter_that_cannot_be_read_gives_no_energy_rather_than_a_wrong_one() {
    let dir = tempfile::tempdir().unwrap();
    let (root, snapshot) = laptop(dir.path());
    // Replaced, as the counter's readers see it change (the file is root's alone to write).
    let zone = dir.path().join(ZONE);
    std::fs::remove_file(&zone).unwrap();
    std::fs::write(zone, "not a number\n").unwrap();
    assert_eq!(EnergyCounter::find(&root, &snapshot.rapl), None);
}

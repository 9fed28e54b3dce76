// SPDX-License-Identifier: GPL-3.0-or-later
//! Live, on this machine (whose frequency never changes, so the ramp must come out flat): the
//! ramp measured on CPU 1 while another task wakes every 50 ms to run 2 ms there, at the same
//! nice level. The figures must say what the core did (nothing: 100 % from the start), and
//! report apart what the scheduler did (about 4 % of the time off the CPU).

#![allow(clippy::unwrap_used)]

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use pacer_core::machine::Snapshot;
use pacer_core::SysRoot;
use pacer_dbus::measurement::report::Clock;
use pacer_measure::disturb::Competitor;
use pacer_measure::report::{measure_ramp, RampOptions};

/// One measurement with the competitor running; what in it does not hold, if anything.
fn measure_and_check() -> Result<(), String> {
    let root = SysRoot::new("/");
    let snapshot = Snapshot::read(&root).unwrap();
    let cpu = 1;
    let options = RampOptions {
        trials: 5,
        ..RampOptions::default()
    };
    let competitor = Competitor::periodic(cpu, Duration::from_millis(2), Duration::from_millis(50));
    let report = measure_ramp(
        &root,
        &snapshot,
        &[cpu],
        options,
        None,
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    drop(competitor);
    assert_eq!(report.clock, Clock::OnCpu);
    let run = &report.runs[0];
    assert_eq!(run.per_trial.len(), 5);
    let summary = serde_json::to_string_pretty(run).unwrap();
    let fail = |what: String| Err(format!("{what}\n{summary}"));
    for window in &run.windows {
        let pct = window.pct.map_or(f64::NAN, |pct| pct.median);
        // The 0-5 ms window holds some 300 samples: one interrupt there moves it by a
        // percent, so it gets more room than the others.
        let room = if window.end_ms == 5 { 5.0 } else { 3.0 };
        if !(100.0 - room..=100.0 + room).contains(&pct) {
            return fail(format!("0-{} ms: {pct:.1} %", window.end_ms));
        }
    }
    let t95 = run.t95_ms.map_or(f64::NAN, |t| t.median);
    if t95.is_nan() || t95 >= 2.0 {
        return fail(format!("t95 {t95} ms"));
    }
    // 2 ms in every 50: 4 % of a 1.3 s run, 52 ms.
    let off_cpu = run.off_cpu_ms.map_or(f64::NAN, |t| t.median);
    let share = off_cpu / options.duration.as_millis() as f64;
    if !(0.028..=0.052).contains(&share) {
        return fail(format!(
            "off the CPU {off_cpu:.1} ms ({:.1} %)",
            share * 100.0
        ));
    }
    if run.interruptions.map_or(0.0, |i| i.median) < 10.0 {
        return fail("fewer than 10 interruptions a trial".into());
    }
    // On the wall clock the same run is slower than its core.
    let wall = run.other_clock.as_ref().unwrap();
    assert_eq!(wall.clock, Clock::Wall);
    let wall_1000 = wall.windows[6].pct.map_or(f64::NAN, |p| p.median);
    let core_1000 = run.windows[6].pct.map_or(f64::NAN, |p| p.median);
    if wall_1000.is_nan() || wall_1000 >= core_1000 {
        return fail(format!(
            "wall clock 0-1000 ms {wall_1000:.1} % is not below the core's"
        ));
    }
    Ok(())
}

/// The host's own noise can put one measurement just outside the bounds; a second one is
/// taken then, and both must miss for the test to fail (a real fault misses every time).
#[test]
fn a_busy_cpu_gives_the_cores_own_flat_ramp_and_reports_the_interruptions() {
    if let Err(first) = measure_and_check() {
        eprintln!("first measurement missed, measuring again: {first}");
        if let Err(second) = measure_and_check() {
            panic!("{second}");
        }
    }
}

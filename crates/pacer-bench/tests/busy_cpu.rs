//! Live, on this machine (whose frequency never changes, so the ramp must come out flat): the
//! ramp measured on CPU 1 while another task wakes every 50 ms to run 2 ms there, at the same
//! nice level. The figures must say what the core did (nothing: 100 % from the start), and
//! report apart what the scheduler did (about 4 % of the time off the CPU).

#![allow(clippy::unwrap_used)]

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use pacer_bench::disturb::Competitor;
use pacer_bench::report::{measure_ramp, Clock, RampOptions};
use pacer_core::machine::Snapshot;
use pacer_core::SysRoot;

#[test]
fn a_busy_cpu_gives_the_cores_own_flat_ramp_and_reports_the_interruptions() {
    let root = SysRoot::new("/");
    let snapshot = Snapshot::read(&root).unwrap();
    let cpu = 1;
    let options = RampOptions {
        trials: 3,
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
    let summary = serde_json::to_string_pretty(run).unwrap();
    for window in &run.windows {
        let pct = window.pct.map_or(f64::NAN, |pct| pct.median);
        assert!(
            (97.0..=103.0).contains(&pct),
            "0-{} ms: {pct:.1} %\n{summary}",
            window.end_ms
        );
    }
    let t95 = run.t95_ms.unwrap().median;
    assert!(t95 < 2.0, "t95 {t95} ms\n{summary}");
    // 2 ms in every 50: 4 % of a 1.3 s run, 52 ms.
    let off_cpu = run.off_cpu_ms.unwrap().median;
    let share = off_cpu / options.duration.as_millis() as f64;
    assert!(
        (0.028..=0.052).contains(&share),
        "off the CPU {off_cpu:.1} ms ({:.1} %)\n{summary}",
        share * 100.0
    );
    assert!(run.interruptions.unwrap().median >= 10.0, "{summary}");
    assert_eq!(run.per_trial.len(), 3);
    // On the wall clock the same run is slower than its core.
    let wall = run.other_clock.as_ref().unwrap();
    assert_eq!(wall.clock, Clock::Wall);
    let wall_1000 = wall.windows[6].pct.unwrap().median;
    assert!(wall_1000 < run.windows[6].pct.unwrap().median, "{summary}");
}

//! The measurement's precision on this machine, whose frequency does not change, so every
//! ramp must come out flat: ten runs each of a quiet CPU, a CPU that another task takes for
//! 2 ms in every 50 (a busy desktop), and one that another task takes for the first 40 ms
//! (which the wall clock shows as a 40 ms ramp). Each run is one trial; the figures are on
//! the core's own time (the time off the CPU taken out), with the wall clock beside them.
//! Figures, not pass/fail tests: they depend on what else the machine (and its host) is
//! doing. Run with `cargo bench -p pacer-bench --bench precision`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use pacer_bench::disturb::Competitor;
use pacer_bench::ramp::{self, RampSetup, Trial};
use pacer_bench::stats::Statistic;
use pacer_bench::trace::WINDOWS_MS;
use pacer_core::SysRoot;

const RUNS: usize = 10;
const DURATION: Duration = Duration::from_millis(1300);

/// CPU 1: the one least busy with interrupts on a 2-CPU machine.
const CPU: u32 = 1;

fn check(what: &str, ok: bool) {
    println!("  {} {what}", if ok { "ok  " } else { "MISS" });
}

fn stat(values: impl Iterator<Item = f64>) -> Statistic {
    Statistic::of(&values.collect::<Vec<_>>()).unwrap_or(Statistic::exact(f64::NAN))
}

fn show(statistic: Statistic) -> String {
    format!(
        "median {:.1} (IQR {:.1}, {:.1}–{:.1})",
        statistic.median, statistic.iqr, statistic.min, statistic.max
    )
}

/// `RUNS` trials, each with a fresh `disturbance` running while it does.
fn trials(disturbance: impl Fn() -> Option<Competitor> + Sync) -> Vec<Trial> {
    let root = SysRoot::new("/");
    let cancel = AtomicBool::new(false);
    let setup = RampSetup {
        cpu: CPU,
        policy: None,
        duration: DURATION,
        idle_wait: Duration::from_millis(100),
        energy: None,
        raise_priority: false,
    };
    (0..RUNS)
        .map(|_| {
            std::thread::scope(|scope| {
                scope
                    .spawn(|| {
                        let mut buffer = ramp::buffer_for(setup.duration);
                        let _competitor = disturbance();
                        ramp::trial(&root, &setup, &mut buffer, &cancel)
                            .unwrap()
                            .unwrap()
                    })
                    .join()
                    .unwrap()
            })
        })
        .collect()
}

fn report(name: &str, trials: &[Trial], expect_off_cpu_ms: Option<f64>) {
    println!("{name}, {RUNS} runs on CPU {CPU}:");
    for (index, end) in WINDOWS_MS.iter().enumerate() {
        let on_cpu = stat(trials.iter().filter_map(|t| t.analysis.windows_pct[index]));
        let wall = stat(trials.iter().filter_map(|t| t.wall.windows_pct[index]));
        check(
            &format!(
                "0-{end} ms window: {} % on the core's time (97-103); wall clock {}",
                show(on_cpu),
                show(wall)
            ),
            (97.0..=103.0).contains(&on_cpu.median),
        );
    }
    let t95 = stat(trials.iter().map(|t| t.analysis.t95_ms.unwrap_or(f64::NAN)));
    let wall_t95 = stat(trials.iter().map(|t| t.wall.t95_ms.unwrap_or(f64::NAN)));
    check(
        &format!(
            "time to 95 %: {} ms on the core's time (under 2); wall clock {} ms",
            show(t95),
            show(wall_t95)
        ),
        t95.median < 2.0,
    );
    let off_cpu = stat(trials.iter().map(|t| t.off_cpu.ms()));
    let gaps = stat(trials.iter().map(|t| t.off_cpu.gaps_ms()));
    let interruptions = stat(trials.iter().map(|t| t.off_cpu.interruptions() as f64));
    let line = format!(
        "off the CPU for other tasks (the scheduler's run delay): {} ms; all gaps found in the samples {} ms; interruptions {}",
        show(off_cpu),
        show(gaps),
        show(interruptions)
    );
    match expect_off_cpu_ms {
        Some(expected) => check(
            &format!("{line} (expected {expected:.0} ± 30 %)"),
            (off_cpu.median - expected).abs() <= 0.3 * expected,
        ),
        None => println!("  info {line}"),
    }
    let overhead = stat(trials.iter().map(|t| t.sampling_overhead_pct));
    check(
        &format!(
            "steady against the plain recurrence run beside it: {} % slower (within 2)",
            show(overhead)
        ),
        overhead.median.abs() <= 2.0,
    );
}

fn main() {
    report("quiet CPU", &trials(|| None), None);
    report(
        "another task 2 ms in every 50 ms (same nice)",
        &trials(|| {
            Some(Competitor::periodic(
                CPU,
                Duration::from_millis(2),
                Duration::from_millis(50),
            ))
        }),
        Some(DURATION.as_millis() as f64 * 0.04),
    );
    // It starts as the trial's run does, after the trial's idle wait of 100 ms.
    let forty = trials(|| {
        Some(Competitor::once(
            CPU,
            Duration::from_millis(40),
            Duration::from_millis(100),
        ))
    });
    report("another task for the first 40 ms (same nice)", &forty, None);
    let wall_t95 = stat(forty.iter().map(|t| t.wall.t95_ms.unwrap_or(f64::NAN)));
    check(
        &format!(
            "the wall clock still shows that as a ramp of {} ms (40 ± 5)",
            show(wall_t95)
        ),
        (35.0..=45.0).contains(&wall_t95.median),
    );
}

//! The measurement's precision on this machine, whose frequency does not change, and on a
//! ramp of known shape (a competing thread on the same CPU for the first 40 ms, which gives
//! the measurement about half the CPU). Figures, not pass/fail tests: they depend on what
//! else the machine (and its host) is doing. Run with
//! `cargo bench -p pacer-bench --bench precision`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use pacer_bench::ramp::{self, RampSetup};
use pacer_bench::stats::median;
use pacer_bench::trace::{analyse, WINDOWS_MS};
use pacer_core::SysRoot;

const TRIALS: usize = 9;

/// The last CPU: the one least busy with interrupts.
fn cpu() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32) - 1
}

fn check(what: &str, ok: bool) {
    println!("  {} {what}", if ok { "ok  " } else { "MISS" });
}

fn flat() {
    let root = SysRoot::new("/");
    let cancel = AtomicBool::new(false);
    let setup = RampSetup {
        cpu: cpu(),
        policy: None,
        duration: Duration::from_millis(1200),
        idle_wait: Duration::from_millis(100),
        energy: None,
        raise_priority: false,
    };
    let trials: Vec<ramp::Trial> = (0..TRIALS)
        .map(|_| {
            std::thread::scope(|scope| {
                scope
                    .spawn(|| {
                        let mut buffer = ramp::buffer_for(setup.duration);
                        ramp::trial(&root, &setup, &mut buffer, &cancel)
                            .unwrap()
                            .unwrap()
                    })
                    .join()
                    .unwrap()
            })
        })
        .collect();
    println!("flat machine, {TRIALS} trials on CPU {}:", setup.cpu);
    for (index, end) in WINDOWS_MS.iter().enumerate() {
        let mut values: Vec<f64> = trials
            .iter()
            .map(|t| t.analysis.windows_pct[index].unwrap())
            .collect();
        let value = median(&mut values).unwrap();
        check(
            &format!("0-{end} ms window: median {value:.1} % (within 3 % of 100)"),
            (value - 100.0).abs() <= 3.0,
        );
    }
    let mut t95: Vec<f64> = trials.iter().filter_map(|t| t.analysis.t95_ms).collect();
    let t95 = median(&mut t95).unwrap_or(f64::NAN);
    check(
        &format!("time to 95 %: median {t95:.1} ms (under 1 ms)"),
        t95 < 1.0,
    );
    let mut periods: Vec<f64> = trials.iter().map(|t| t.analysis.sample_period_us).collect();
    let period = median(&mut periods).unwrap();
    check(
        &format!("sample period: median {period:.1} µs (at most 20)"),
        period <= 20.0,
    );
    let mut overhead: Vec<f64> = trials.iter().map(|t| t.sampling_overhead_pct).collect();
    let overhead = median(&mut overhead).unwrap();
    check(
        &format!("sampling cost against the plain loop: median {overhead:.2} % (at most 1)"),
        overhead <= 1.0,
    );
    check(
        &format!(
            "steady against the plain loop: {:.2} % (within 2)",
            -overhead
        ),
        overhead.abs() <= 2.0,
    );
}

fn competing() {
    let cpu = cpu();
    let cancel = AtomicBool::new(false);
    let duration = Duration::from_millis(1200);
    let mut fractions = Vec::new();
    let mut t95s = Vec::new();
    for _ in 0..TRIALS {
        std::thread::sleep(Duration::from_millis(100));
        let start = Arc::new(Barrier::new(2));
        let go = Arc::clone(&start);
        let competitor = std::thread::spawn(move || {
            ramp::pin_to(cpu).unwrap();
            go.wait();
            let begun = Instant::now();
            let mut x = 1.0f64;
            while begun.elapsed() < Duration::from_millis(40) {
                for _ in 0..1000 {
                    x = std::hint::black_box(x * 0.999_999 + 1e-6);
                }
            }
        });
        let samples = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    ramp::pin_to(cpu).unwrap();
                    let mut buffer = ramp::buffer_for(duration);
                    start.wait();
                    ramp::sampled_run(duration, &mut buffer, &cancel);
                    buffer
                })
                .join()
                .unwrap()
        });
        competitor.join().unwrap();
        let analysis = analyse(&samples).unwrap();
        fractions.push(analysis.windows_pct[2].unwrap());
        if let Some(t95) = analysis.t95_ms {
            t95s.push(t95);
        }
    }
    let fraction = median(&mut fractions).unwrap();
    let t95 = median(&mut t95s).unwrap_or(f64::NAN);
    println!("competing thread for the first 40 ms, {TRIALS} trials on CPU {cpu}:");
    check(
        &format!("0-20 ms window: median {fraction:.1} % (near 50)"),
        (40.0..=60.0).contains(&fraction),
    );
    check(
        &format!("time to 95 %: median {t95:.1} ms (40 ± 5; trials {t95s:?})"),
        (35.0..=45.0).contains(&t95),
    );
}

fn main() {
    flat();
    competing();
}

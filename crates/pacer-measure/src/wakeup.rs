// SPDX-License-Identifier: GPL-3.0-or-later
//! Wake-up ping-pong (`docs/measurement.md` 4, like `perf bench sched pipe`): two threads pinned
//! on two CPUs bounce a byte through two pipes; each round trip wakes each side once.

use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pacer_core::machine::Snapshot;
use pacer_dbus::measurement::report::{Settings, SCHEMA};
use pacer_dbus::measurement::wakeup::{RoundTrip, WakeupReport};

use crate::ramp::confine_to;
use crate::stats::{statistic_of, statistic_of_each};

/// The first stretch of a run, whose round trips count as "cold".
pub const COLD: Duration = Duration::from_millis(10);

/// One run's round trips.
#[derive(Debug, Clone, PartialEq)]
pub struct PingPong {
    /// Mean µs per round trip in the first 10 ms, and after.
    pub cold_us: f64,
    pub steady_us: f64,
    pub round_trips_per_s: f64,
    pub round_trips: usize,
}

fn one_byte(fd: &OwnedFd, byte: u8) -> std::io::Result<()> {
    rustix::io::write(fd, &[byte])?;
    Ok(())
}

fn read_byte(fd: &OwnedFd) -> std::io::Result<Option<u8>> {
    let mut buf = [0u8; 1];
    match rustix::io::read(fd, &mut buf)? {
        0 => Ok(None),
        _ => Ok(Some(buf[0])),
    }
}

/// Bounces a byte between CPU `a` (the measuring side) and CPU `b` for `duration`.
pub fn ping_pong(
    a: u32,
    b: u32,
    duration: Duration,
    cancel: &AtomicBool,
) -> std::io::Result<PingPong> {
    bounce(&[a], &[b], duration, cancel)
}

/// Both threads free to run anywhere in `cpus`, as `taskset` confines `perf bench sched pipe`.
pub fn ping_pong_within(
    cpus: &[u32],
    duration: Duration,
    cancel: &AtomicBool,
) -> std::io::Result<PingPong> {
    bounce(cpus, cpus, duration, cancel)
}

fn bounce(
    a: &[u32],
    b: &[u32],
    duration: Duration,
    cancel: &AtomicBool,
) -> std::io::Result<PingPong> {
    let (to_b_read, to_b_write) = rustix::pipe::pipe()?;
    let (to_a_read, to_a_write) = rustix::pipe::pipe()?;
    std::thread::scope(|scope| {
        let echo = scope.spawn(move || -> std::io::Result<()> {
            confine_to(b)?;
            // A 0 byte, or the other end closing, ends the game.
            while let Some(1) = read_byte(&to_b_read)? {
                one_byte(&to_a_write, 1)?;
            }
            Ok(())
        });
        let measured = (|| -> std::io::Result<PingPong> {
            confine_to(a)?;
            let mut trips: Vec<u64> = Vec::with_capacity(4_000_000);
            let mut cold_count = 0;
            let start = Instant::now();
            while trips.len() < trips.capacity() {
                let sent = Instant::now();
                one_byte(&to_b_write, 1)?;
                read_byte(&to_a_read)?;
                let done = sent.elapsed();
                trips.push(done.as_nanos() as u64);
                let elapsed = start.elapsed();
                if elapsed < COLD {
                    cold_count = trips.len();
                }
                if elapsed >= duration || cancel.load(Ordering::Relaxed) {
                    break;
                }
            }
            let total = start.elapsed();
            let mean_us = |part: &[u64]| {
                if part.is_empty() {
                    0.0
                } else {
                    part.iter().sum::<u64>() as f64 / part.len() as f64 / 1000.0
                }
            };
            Ok(PingPong {
                cold_us: mean_us(&trips[..cold_count]),
                steady_us: mean_us(&trips[cold_count..]),
                round_trips_per_s: trips.len() as f64 / total.as_secs_f64(),
                round_trips: trips.len(),
            })
        })();
        let _ = one_byte(&to_b_write, 0);
        let echoed = echo
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let result = measured?;
        echoed?;
        Ok(result)
    })
}

/// Wake-up ping-pong between `cpus` over `trials` runs of `duration`.
pub fn measure_wakeup(
    snapshot: &Snapshot,
    cpus: [u32; 2],
    trials: usize,
    duration: Duration,
    profile: Option<String>,
    cancel: &AtomicBool,
) -> std::io::Result<WakeupReport> {
    let mut runs = Vec::new();
    let mut control = Vec::new();
    for _ in 0..trials {
        runs.push(ping_pong(cpus[0], cpus[1], duration, cancel)?);
        if cpus[0] != cpus[1] {
            control.push(ping_pong(cpus[0], cpus[0], duration / 2, cancel)?.steady_us);
        }
        if cancel.load(Ordering::Relaxed) {
            break;
        }
    }
    Ok(WakeupReport {
        schema: SCHEMA,
        kind: "wakeup".to_owned(),
        simulated: false,
        settings: Settings::of(snapshot, cpus[0], profile),
        cpus,
        round_trip_us: RoundTrip {
            cold: statistic_of_each(runs.iter().map(|r| r.cold_us)),
            steady: statistic_of_each(runs.iter().map(|r| r.steady_us)),
        },
        round_trips_per_s: statistic_of_each(runs.iter().map(|r| r.round_trips_per_s)),
        same_cpu_control_us: statistic_of(&control),
    })
}

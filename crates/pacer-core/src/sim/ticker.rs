// SPDX-License-Identifier: GPL-3.0-or-later
//! The running simulation: a thread that keeps a simulated machine's current frequencies
//! moving as the kernel's do between writes.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use super::dir::SimDir;
use super::tree::{LiveFiles, RenderError};
use super::{Dynamics, SimDriver, SimMachine, STATE_FILE};

/// Keeps a simulated machine's current frequencies moving, on its own thread, until dropped.
/// It can be paused (nobody is looking: the machine need not move) and its period changed.
#[derive(Debug)]
pub struct Ticker {
    control: Arc<TickerControl>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Debug)]
struct TickerControl {
    stop: AtomicBool,
    paused: AtomicBool,
    period_us: AtomicU64,
}

/// The name of the thread that moves a simulated machine's frequencies.
pub const TICKER_THREAD: &str = "sim-kernel";

impl Ticker {
    /// Updates the frequencies every `period`, from a load pattern replayed from `seed`.
    pub fn start(dir: SimDir, seed: u64, period: Duration) -> Ticker {
        let control = Arc::new(TickerControl {
            stop: AtomicBool::new(false),
            paused: AtomicBool::new(false),
            period_us: AtomicU64::new(duration_us(period)),
        });
        let shared = Arc::clone(&control);
        // Named, so that a reader of /proc can tell the simulated kernel's work from the
        // program's own (the window bench does).
        let spawned = std::thread::Builder::new()
            .name(TICKER_THREAD.to_owned())
            .spawn(move || {
                let mut state_seen: Option<SystemTime> = None;
                let mut machine: Option<SimMachine> = None;
                let mut dynamics: Option<Dynamics> = None;
                let mut written: Vec<Option<u32>> = Vec::new();
                let mut files = LiveFiles::default();
                while !shared.stop.load(Ordering::Relaxed) {
                    if shared.paused.load(Ordering::Relaxed) {
                        // Woken by `resume` or `drop`.
                        std::thread::park();
                        continue;
                    }
                    let period = Duration::from_micros(shared.period_us.load(Ordering::Relaxed));
                    // Reload only when a write changed the state.
                    let modified = fs::metadata(dir.root().join(STATE_FILE))
                        .and_then(|m| m.modified())
                        .ok();
                    if modified != state_seen || machine.is_none() {
                        if let Ok(fresh) = dir.machine() {
                            if dynamics.is_none() {
                                dynamics = Some(Dynamics::new(&fresh, seed));
                            }
                            machine = Some(fresh);
                            state_seen = modified;
                            // A write may have laid the files out anew.
                            written.clear();
                            files.forget();
                        }
                    }
                    if let (Some(machine), Some(dynamics)) = (&machine, &mut dynamics) {
                        let frequencies = dynamics.step(machine, period.as_secs_f64() * 1000.0);
                        // A failed write (the directory going away) is retried next period.
                        let _ = write_frequencies(
                            dir.root(),
                            machine,
                            &frequencies,
                            (&mut written, &mut files),
                        );
                    }
                    std::thread::park_timeout(period);
                }
            });
        Ticker {
            control,
            // Where no thread can be started, the frequencies stand still.
            thread: spawned.ok(),
        }
    }

    /// Stops moving the frequencies until [`Ticker::resume`].
    pub fn pause(&self) {
        self.control.paused.store(true, Ordering::Relaxed);
    }

    pub fn resume(&self) {
        self.control.paused.store(false, Ordering::Relaxed);
        self.wake();
    }

    /// Moves the frequencies every `period` from now on.
    pub fn set_period(&self, period: Duration) {
        self.control
            .period_us
            .store(duration_us(period), Ordering::Relaxed);
        self.wake();
    }

    fn wake(&self) {
        if let Some(thread) = &self.thread {
            thread.thread().unpark();
        }
    }
}

fn duration_us(period: Duration) -> u64 {
    u64::try_from(period.as_micros())
        .unwrap_or(u64::MAX)
        .max(1000)
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.control.stop.store(true, Ordering::Relaxed);
        self.wake();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Writes each active policy's current frequency into `files`; `written` remembers what each
/// policy's files hold, so that an unchanged frequency is not written again.
fn write_frequencies(
    root: &Path,
    machine: &SimMachine,
    khz: &[u32],
    (written, files): (&mut Vec<Option<u32>>, &mut LiveFiles),
) -> Result<(), RenderError> {
    let active: Vec<u32> = machine.active_policies().map(|policy| policy.id).collect();
    written.resize(machine.policies.len(), None);
    for ((policy, &khz), written) in machine.policies.iter().zip(khz).zip(written.iter_mut()) {
        if !active.contains(&policy.id) || *written == Some(khz) {
            continue;
        }
        // Unknown until the writes below succeed.
        *written = None;
        let dir = format!("sys/devices/system/cpu/cpufreq/policy{}", policy.id);
        files.write(root, &format!("{dir}/scaling_cur_freq"), khz, 0o444)?;
        match machine.driver {
            SimDriver::IntelPstate { .. } | SimDriver::AmdPstate { .. } => {
                files.write(root, &format!("{dir}/cpuinfo_avg_freq"), khz, 0o444)?;
            }
            SimDriver::CpufreqDt { .. } => {
                files.write(root, &format!("{dir}/cpuinfo_cur_freq"), khz, 0o400)?;
            }
            SimDriver::None => {}
        }
        *written = Some(khz);
    }
    Ok(())
}

#[cfg(test)]
mod tests;

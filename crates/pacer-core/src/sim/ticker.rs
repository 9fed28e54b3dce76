// SPDX-License-Identifier: GPL-3.0-or-later
//! The running simulation: a thread that keeps a simulated machine's live files moving as
//! the kernel's do between writes: the current frequencies, Intel's throttle counters of
//! the CPUs at their thermal limit, and the RAPL energy counters.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use super::dir::SimDir;
use super::power::energy_files;
use super::thermal::{advance, throttle_dir, Counters, THROTTLE_FILES};
use super::tree::{LiveFiles, RenderError};
use super::{Dynamics, SimDriver, SimMachine, STATE_FILE};

/// Keeps a simulated machine's live files moving, on its own thread, until dropped. It can
/// be paused (nobody is looking: the machine need not move) and its period changed.
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
    /// Updates the live files every `period`, the frequencies from a load pattern replayed
    /// from `seed`.
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
            .spawn(move || run(&dir, seed, &shared));
        Ticker {
            control,
            // Where no thread can be started, the files stand still.
            thread: spawned.ok(),
        }
    }

    /// Stops moving the files until [`Ticker::resume`].
    pub fn pause(&self) {
        self.control.paused.store(true, Ordering::Relaxed);
    }

    pub fn resume(&self) {
        self.control.paused.store(false, Ordering::Relaxed);
        self.wake();
    }

    /// Moves the files every `period` from now on.
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

/// The ticker thread: reloads the machine when a write changed its state, and steps it.
fn run(dir: &SimDir, seed: u64, control: &TickerControl) {
    let mut state_seen: Option<SystemTime> = None;
    let mut live: Option<Live> = None;
    while !control.stop.load(Ordering::Relaxed) {
        if control.paused.load(Ordering::Relaxed) {
            // Woken by `resume` or `drop`.
            std::thread::park();
            continue;
        }
        let period = Duration::from_micros(control.period_us.load(Ordering::Relaxed));
        // Reload only when a write changed the state.
        let modified = fs::metadata(dir.root().join(STATE_FILE))
            .and_then(|m| m.modified())
            .ok();
        if modified != state_seen || live.is_none() {
            if let Ok(fresh) = dir.machine() {
                match &mut live {
                    Some(live) => live.reload(dir.root(), fresh),
                    None => live = Some(Live::new(dir.root(), fresh, seed)),
                }
                state_seen = modified;
            }
        }
        if let Some(live) = &mut live {
            // A failed write (the directory going away) is retried next period.
            let _ = live.step(dir.root(), period);
        }
        std::thread::park_timeout(period);
    }
}

/// What the ticker keeps between steps.
struct Live {
    machine: SimMachine,
    dynamics: Dynamics,
    /// What each policy's frequency files hold, so that an unchanged one is not written again.
    written: Vec<Option<u32>>,
    files: LiveFiles,
    /// Each online CPU's throttle counters, taken from its files when first seen.
    counters: Vec<(u32, Counters)>,
    /// Each energy counter: its file, where it wraps, and the µJ it holds.
    energy: Vec<(String, u64, f64)>,
    /// When energy was last counted: a late tick on a busy machine still counts the time
    /// that passed, so the power read from the counters stays what the machine draws.
    counted_at: std::time::Instant,
}

/// The number a live file of `root` holds; 0 when it is missing or garbled.
fn read_number(root: &Path, rel: &str) -> u64 {
    fs::read_to_string(root.join(rel))
        .ok()
        .and_then(|text| text.trim_end().parse().ok())
        .unwrap_or(0)
}

impl Live {
    fn new(root: &Path, machine: SimMachine, seed: u64) -> Live {
        let energy = energy_files(&machine)
            .into_iter()
            .map(|(rel, range)| {
                let uj = read_number(root, &rel) as f64;
                (rel, range, uj)
            })
            .collect();
        let mut live = Live {
            dynamics: Dynamics::new(&machine, seed),
            machine,
            written: Vec::new(),
            files: LiveFiles::default(),
            counters: Vec::new(),
            energy,
            counted_at: std::time::Instant::now(),
        };
        live.take_in_counters(root);
        live
    }

    /// Takes in the machine after a write: the load pattern and the counters go on.
    fn reload(&mut self, root: &Path, machine: SimMachine) {
        self.machine = machine;
        // A write may have laid the files out anew.
        self.written.clear();
        self.files.forget();
        self.take_in_counters(root);
    }

    /// Starts counting for the online CPUs not yet counted, from what their files hold
    /// (the kernel keeps a CPU's counts while it is offline).
    fn take_in_counters(&mut self, root: &Path) {
        if self.machine.throttle.is_none() {
            return;
        }
        for cpu in self.machine.cpus.iter().filter(|cpu| cpu.online) {
            if self.counters.iter().any(|(id, _)| *id == cpu.id) {
                continue;
            }
            let dir = throttle_dir(cpu.id);
            let counters = THROTTLE_FILES.map(|file| read_number(root, &format!("{dir}/{file}")));
            self.counters.push((cpu.id, counters));
        }
    }

    fn step(&mut self, root: &Path, period: Duration) -> Result<(), RenderError> {
        let khz = self
            .dynamics
            .step(&self.machine, period.as_secs_f64() * 1000.0);
        self.write_frequencies(root, &khz)?;
        self.write_counters(root, period)?;
        let draws = self.machine.zone_draws_uw(&khz);
        let now = std::time::Instant::now();
        let seconds = now.duration_since(self.counted_at).as_secs_f64();
        self.counted_at = now;
        for ((rel, range, uj), draw) in self.energy.iter_mut().zip(draws) {
            // The counter wraps past its range, as the 32-bit register does.
            *uj = (*uj + draw * seconds) % (*range as f64 + 1.0);
            self.files.write(root, rel, *uj as u64, 0o400)?;
        }
        Ok(())
    }

    /// Writes each active policy's current frequency that changed.
    fn write_frequencies(&mut self, root: &Path, khz: &[u32]) -> Result<(), RenderError> {
        let machine = &self.machine;
        let active: Vec<u32> = machine.active_policies().map(|policy| policy.id).collect();
        self.written.resize(machine.policies.len(), None);
        for ((policy, &khz), written) in machine.policies.iter().zip(khz).zip(&mut self.written) {
            if !active.contains(&policy.id) || *written == Some(khz) {
                continue;
            }
            // Unknown until the writes below succeed.
            *written = None;
            let dir = format!("sys/devices/system/cpu/cpufreq/policy{}", policy.id);
            self.files
                .write(root, &format!("{dir}/scaling_cur_freq"), khz, 0o444)?;
            match machine.driver {
                SimDriver::IntelPstate { .. } | SimDriver::AmdPstate { .. } => {
                    self.files
                        .write(root, &format!("{dir}/cpuinfo_avg_freq"), khz, 0o444)?;
                }
                SimDriver::CpufreqDt { .. } => {
                    self.files
                        .write(root, &format!("{dir}/cpuinfo_cur_freq"), khz, 0o400)?;
                }
                SimDriver::None => {}
            }
            *written = Some(khz);
        }
        Ok(())
    }

    /// Counts a tick of throttling on every online CPU at its limit.
    fn write_counters(&mut self, root: &Path, period: Duration) -> Result<(), RenderError> {
        let Some(throttle) = &self.machine.throttle else {
            return Ok(());
        };
        let ms = u64::try_from(period.as_millis()).unwrap_or(u64::MAX);
        for (cpu, counters) in &mut self.counters {
            let core = throttle.hot_cpus.contains(cpu);
            // An offline CPU has no `thermal_throttle/` and takes no interrupt.
            let online = self.machine.cpu(*cpu).is_some_and(|c| c.online);
            if !online || (!core && !throttle.package_hot) {
                continue;
            }
            advance(counters, core, throttle.package_hot, ms);
            let dir = throttle_dir(*cpu);
            for (file, value) in THROTTLE_FILES.iter().zip(counters.iter()) {
                self.files
                    .write(root, &format!("{dir}/{file}"), value, 0o444)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;

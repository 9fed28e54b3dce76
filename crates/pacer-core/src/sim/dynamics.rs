// SPDX-License-Identifier: GPL-3.0-or-later
//! How a simulated core's frequency follows load: a ramp shaped by driver, governor and EPP,
//! calibrated on the published ramp-up measurements in `docs/measurement.md` 2 (Alder Lake,
//! P- and E-cores): intel_pstate active with balance_performance reaches 95 % of steady throughput
//! in about 5 ms (P) and 8 ms (E), with EPP performance at once, schedutil in about 50 ms
//! (P) and 67 ms (E).
//!
//! A ramp is `start` (the fraction of steady speed the core runs at when work arrives) held
//! for `delay_ms` (schedutil waits for utilisation to build up), then an exponential approach
//! to steady speed with time constant `tau_ms`.

use serde::Serialize;

use super::{SimCoreKind, SimDriver, SimMachine, SimPolicy};

/// The shape of the frequency ramp when work arrives on an idle core.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ramp {
    pub start: f64,
    pub delay_ms: f64,
    pub tau_ms: f64,
}

impl Ramp {
    const INSTANT: Ramp = Ramp {
        start: 1.0,
        delay_ms: 0.0,
        tau_ms: 0.01,
    };

    /// The fraction of steady speed `t_ms` after work arrived.
    pub fn fraction_at(&self, t_ms: f64) -> f64 {
        if t_ms < self.delay_ms {
            return self.start;
        }
        let left = 1.0 - self.start;
        1.0 - left * (-(t_ms - self.delay_ms) / self.tau_ms).exp()
    }

    /// The average fraction over the first `t_ms` (what a throughput window measures).
    pub fn average_until(&self, t_ms: f64) -> f64 {
        if t_ms <= 0.0 {
            return self.start;
        }
        let held = t_ms.min(self.delay_ms);
        let ramping = (t_ms - self.delay_ms).max(0.0);
        let left = 1.0 - self.start;
        let ramp_area = ramping - left * self.tau_ms * (1.0 - (-ramping / self.tau_ms).exp());
        (self.start * held + ramp_area) / t_ms
    }

    /// When the speed reaches (and, rising, stays at) `fraction` of steady.
    pub fn time_to(&self, fraction: f64) -> f64 {
        if self.start >= fraction {
            return 0.0;
        }
        self.delay_ms + self.tau_ms * ((1.0 - self.start) / (1.0 - fraction)).ln()
    }
}

/// Calibrated on `docs/measurement.md` 2 (see the module documentation and the calibration
/// test).
const INTEL_ACTIVE_P: Ramp = Ramp {
    start: 0.11,
    delay_ms: 0.0,
    tau_ms: 1.75,
};
const INTEL_ACTIVE_E: Ramp = Ramp {
    start: 0.50,
    delay_ms: 0.0,
    tau_ms: 3.47,
};
const SCHEDUTIL_BIG: Ramp = Ramp {
    start: 0.60,
    delay_ms: 10.0,
    tau_ms: 20.2,
};
const SCHEDUTIL_LITTLE: Ramp = Ramp {
    start: 0.62,
    delay_ms: 10.0,
    tau_ms: 28.0,
};
/// ondemand samples every 10 ms and jumps to the top when busy.
const ONDEMAND: Ramp = Ramp {
    start: 0.30,
    delay_ms: 10.0,
    tau_ms: 2.0,
};
/// conservative steps up 5 % per sample.
const CONSERVATIVE: Ramp = Ramp {
    start: 0.30,
    delay_ms: 0.0,
    tau_ms: 60.0,
};

fn is_little(kind: SimCoreKind) -> bool {
    matches!(kind, SimCoreKind::IntelE | SimCoreKind::CortexA55)
}

/// The EPP as a fraction of its range (0 = performance, 1 = power).
fn epp_level(raw: u8) -> f64 {
    f64::from(raw) / 255.0
}

/// A hardware-managed ramp (HWP, CPPC autonomous) by EPP: immediate at 0, the calibrated
/// shape at balance_performance (about 0.4), slower toward power.
fn autonomous(base: Ramp, raw: u8) -> Ramp {
    const BALANCE_PERFORMANCE: f64 = 0.4;
    let level = epp_level(raw);
    if level <= BALANCE_PERFORMANCE {
        let k = level / BALANCE_PERFORMANCE;
        Ramp {
            start: 0.99 + (base.start - 0.99) * k,
            delay_ms: 0.0,
            tau_ms: 0.05 + (base.tau_ms - 0.05) * k,
        }
    } else {
        // Up to ten times slower at power.
        let k = (level - BALANCE_PERFORMANCE) / (1.0 - BALANCE_PERFORMANCE);
        Ramp {
            start: base.start,
            delay_ms: 0.0,
            tau_ms: base.tau_ms * (1.0 + 9.0 * k),
        }
    }
}

impl SimMachine {
    /// The ramp of `policy`'s cores (of `kind`) when work arrives.
    pub fn ramp(&self, policy: &SimPolicy, kind: SimCoreKind) -> Ramp {
        let little = is_little(kind);
        if !self.has_generic_governors() {
            // Setpolicy drivers: the performance policy pins the minimum to the maximum.
            if policy.governor == "performance" {
                return Ramp::INSTANT;
            }
            let base = if little {
                INTEL_ACTIVE_E
            } else {
                INTEL_ACTIVE_P
            };
            return autonomous(base, policy.epp_raw.unwrap_or(128));
        }
        match policy.governor.as_str() {
            "schedutil" if little => SCHEDUTIL_LITTLE,
            "schedutil" => SCHEDUTIL_BIG,
            "ondemand" => ONDEMAND,
            "conservative" => CONSERVATIVE,
            // performance, powersave and userspace hold one frequency.
            _ => Ramp::INSTANT,
        }
    }

    /// The frequency a busy core settles at: the top (turbo allowed) or the base frequency,
    /// within the policy's limits (a cooling device's among them); powersave (generic) and
    /// userspace hold theirs. A lowered power limit holds it lower still, below the minimum
    /// if need be (RAPL clamps the P-state below the requested range).
    pub fn steady_khz(&self, policy: &SimPolicy) -> u32 {
        let turbo_off = matches!(self.driver, SimDriver::IntelPstate { no_turbo: true, .. });
        let top = if turbo_off {
            policy.base_khz.unwrap_or(policy.hw_max_khz)
        } else {
            policy.hw_max_khz
        };
        let (min, max) = (self.qos_min_khz(policy), self.qos_max_khz(policy));
        let top = top.min(max).max(min);
        let steady = if self.has_generic_governors() {
            match policy.governor.as_str() {
                "powersave" => min,
                "userspace" => policy.cur_khz.clamp(min, top),
                _ => top,
            }
        } else {
            top
        };
        self.power_cap_khz(policy)
            .map_or(steady, |cap| steady.min(cap))
    }

    /// The frequency an idle core drops to: the minimum, except where a governor holds one.
    pub fn idle_khz(&self, policy: &SimPolicy) -> u32 {
        let pinned = policy.governor == "performance"
            || (self.has_generic_governors() && policy.governor == "userspace");
        if pinned {
            self.steady_khz(policy)
        } else {
            self.qos_min_khz(policy).min(self.steady_khz(policy))
        }
    }
}

/// A small deterministic generator (xorshift64*), so a seed replays the same load.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `low..high` milliseconds.
    fn between(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// What a core is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Load {
    Idle,
    Burst,
    Sustained,
}

#[derive(Debug, Clone)]
struct CoreState {
    rng: Rng,
    load: Load,
    /// Milliseconds left in the current phase, and since it began.
    left_ms: f64,
    elapsed_ms: f64,
    /// The speed (fraction of steady) when the phase began, and now.
    from: f64,
    fraction: f64,
}

/// Each policy's load (idle, bursts, sustained work) and the frequency that follows from it.
/// Deterministic: the same seed and steps give the same frequencies.
#[derive(Debug, Clone)]
pub struct Dynamics {
    cores: Vec<CoreState>,
}

/// How fast an idle core's speed decays toward its idle frequency.
const IDLE_DECAY_MS: f64 = 20.0;

impl Dynamics {
    pub fn new(machine: &SimMachine, seed: u64) -> Dynamics {
        let cores = machine
            .policies
            .iter()
            .map(|policy| {
                let mut rng = Rng::new(seed ^ (u64::from(policy.id) + 1).wrapping_mul(0x1000_0001));
                let left_ms = rng.between(100.0, 1500.0);
                CoreState {
                    rng,
                    load: Load::Idle,
                    left_ms,
                    elapsed_ms: 0.0,
                    from: 0.0,
                    fraction: 0.0,
                }
            })
            .collect();
        Dynamics { cores }
    }

    /// Advances by `dt_ms` and returns each policy's current frequency (kHz), in the order
    /// of `machine.policies`.
    pub fn step(&mut self, machine: &SimMachine, dt_ms: f64) -> Vec<u32> {
        machine
            .policies
            .iter()
            .zip(&mut self.cores)
            .map(|(policy, core)| {
                let kind = policy
                    .cpus
                    .first()
                    .and_then(|&id| machine.cpu(id))
                    .map_or(SimCoreKind::Virtual, |cpu| cpu.kind);
                let ramp = machine.ramp(policy, kind);
                let mut dt = dt_ms;
                while dt > 0.0 {
                    let slice = dt.min(core.left_ms);
                    core.elapsed_ms += slice;
                    core.left_ms -= slice;
                    dt -= slice;
                    core.fraction = match core.load {
                        Load::Idle => core.from * (-core.elapsed_ms / IDLE_DECAY_MS).exp(),
                        Load::Burst | Load::Sustained => {
                            // Resume the ramp from the speed the phase began at.
                            let offset = if core.from <= ramp.start {
                                0.0
                            } else {
                                ramp.time_to(core.from.min(0.999))
                            };
                            ramp.fraction_at(offset + core.elapsed_ms).max(core.from)
                        }
                    };
                    if core.left_ms <= 0.0 {
                        core.next_phase();
                    }
                }
                let idle = f64::from(machine.idle_khz(policy));
                let steady = f64::from(machine.steady_khz(policy));
                (idle + (steady - idle) * core.fraction.clamp(0.0, 1.0)).round() as u32
            })
            .collect()
    }
}

impl CoreState {
    /// Idle alternates with work: mostly short bursts, sometimes seconds of sustained load.
    fn next_phase(&mut self) {
        self.from = self.fraction;
        self.elapsed_ms = 0.0;
        (self.load, self.left_ms) = match self.load {
            Load::Idle => {
                if self.rng.next() % 5 == 0 {
                    (Load::Sustained, self.rng.between(1000.0, 5000.0))
                } else {
                    (Load::Burst, self.rng.between(10.0, 200.0))
                }
            }
            Load::Burst | Load::Sustained => (Load::Idle, self.rng.between(100.0, 2000.0)),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ramp_arithmetic() {
        let ramp = Ramp {
            start: 0.5,
            delay_ms: 10.0,
            tau_ms: 10.0,
        };
        assert_eq!(ramp.fraction_at(5.0), 0.5);
        assert!((ramp.fraction_at(20.0) - (1.0 - 0.5 * (-1f64).exp())).abs() < 1e-12);
        assert!((ramp.average_until(10.0) - 0.5).abs() < 1e-12);
        // The average is the integral of the fraction: check against a fine sum.
        let sum: f64 = (0..100_000)
            .map(|i| ramp.fraction_at(i as f64 * 0.001 + 0.0005))
            .sum();
        assert!((ramp.average_until(100.0) - sum / 100_000.0).abs() < 1e-6);
        assert!((ramp.fraction_at(ramp.time_to(0.95)) - 0.95).abs() < 1e-9);
        assert_eq!(Ramp::INSTANT.time_to(0.95), 0.0);
    }

    #[test]
    fn the_same_seed_replays_the_same_frequencies() {
        let machine = crate::sim::model("intel-hybrid").unwrap();
        let run = |seed| {
            let mut dynamics = Dynamics::new(&machine, seed);
            (0..200)
                .map(|_| dynamics.step(&machine, 100.0))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let all: Vec<u32> = run(7).into_iter().flatten().collect();
        assert!(all.iter().all(|&khz| (400_000..=4_700_000).contains(&khz)));
        assert!(
            all.iter().any(|&khz| khz > 3_000_000),
            "load reaches high frequencies"
        );
        assert!(
            all.iter().any(|&khz| khz < 600_000),
            "idle falls to the minimum"
        );
    }
}

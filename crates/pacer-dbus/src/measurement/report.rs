// SPDX-License-Identifier: GPL-3.0-or-later
//! A ramp measurement's report over trials, in the schema-1 JSON contract
//! (`docs/contracts.md` 3): the settings it ran under, each CPU's figures and trials, and the
//! clock they are on. The helper sends it as `MeasureRamp`'s answer and `pacerctl measure
//! --json` prints it; `pacer-measure` fills it in, from real CPUs or a simulated machine's
//! model.

use pacer_core::machine::Snapshot;
use pacer_core::values::{CoreType, DriverMode, Epp, Governor};
use serde::{Deserialize, Serialize};

use super::statistic::Statistic;

pub const SCHEMA: u32 = 1;

/// The settings a measurement ran under, as the kernel's values (written in a report as the
/// kernel prints them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// `scaling_driver`: an open set of names, kept as the kernel prints it.
    pub driver: Option<String>,
    pub mode: Option<DriverMode>,
    pub governor: Option<Governor>,
    pub epp: Option<Epp>,
    pub eas: Option<bool>,
    pub boost: Option<bool>,
    /// The profile daemon's name for its active profile (daemons name their own).
    pub profile: Option<String>,
}

impl Settings {
    /// The settings of `cpu`'s policy (and of the machine) in `snapshot`.
    pub fn of(snapshot: &Snapshot, cpu: u32, profile: Option<String>) -> Settings {
        let policy = snapshot
            .cpu(cpu)
            .and_then(|c| c.policy)
            .and_then(|id| snapshot.policy(id));
        Settings {
            driver: snapshot.driver.name.clone(),
            mode: snapshot.driver.mode,
            governor: policy.and_then(|p| p.governor.clone()),
            epp: policy.and_then(|p| p.epp),
            eas: snapshot.eas.active,
            boost: snapshot.driver.boost,
            profile,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Window {
    pub end_ms: u64,
    pub pct: Option<Statistic>,
}

/// One CPU's figures. Fields added after the first reports default when a report (from an
/// older helper) lacks them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RampRun {
    pub cpu: u32,
    pub core_type: Option<CoreType>,
    pub trials: usize,
    pub idle_wait_ms: f64,
    /// `None` on a simulated machine: nothing was sampled.
    pub sample_period_us: Option<f64>,
    pub sampling_overhead_pct: Option<f64>,
    pub windows: Vec<Window>,
    pub t95_ms: Option<Statistic>,
    /// The step convergence is found in (ms), on either clock: a `t95_ms` below it says 95 %
    /// was reached within the first step ("< 1 ms"), not at 0 (`None`: a report made before
    /// it was recorded).
    pub t95_resolution_ms: Option<f64>,
    pub steady_mops: Option<Statistic>,
    /// The package's average power over a trial (W), from the RAPL domain `energy_domain`.
    pub power_w: Option<Statistic>,
    /// Joules per billion operations, the work charged for the time it was on the CPU.
    pub j_per_gop: Option<Statistic>,
    /// Whether every trial's thread was pinned to the CPU alone (`None`: simulated).
    pub pinned: Option<bool>,
    /// The highest nice level a trial ran at (-20: the priority was raised; `None`: simulated).
    pub nice: Option<i32>,
    /// The highest nice level of the measuring process's autogroup in a trial, where the
    /// kernel groups tasks by session (`None`: it does not, or simulated).
    pub group_nice: Option<i32>,
    /// The windows and convergence on the other clock than the report's (`None`: simulated).
    pub other_clock: Option<ClockView>,
    /// Time the thread spent off its CPU in a trial (ms), and how often it was taken off
    /// (`None`: simulated).
    pub off_cpu_ms: Option<Statistic>,
    pub interruptions: Option<Statistic>,
    /// Each trial as it ran, the disturbed ones too.
    pub per_trial: Vec<TrialRecord>,
    /// Trials still disturbed after being repeated: they are left out of the figures unless
    /// every trial was disturbed.
    pub disturbed_trials: usize,
    /// Trials that were repeated because another task took too much of the CPU.
    pub repeated_trials: usize,
    /// How quiet the CPU was before measuring.
    pub quiet: Option<Quiet>,
    /// The RAPL domain the energy figures come from (`package-0`).
    pub energy_domain: Option<String>,
}

/// How quiet a CPU was just before measuring on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quiet {
    /// The one-minute load average of the whole machine.
    pub load_1m: Option<f64>,
    /// The share of the CPU's time that was not idle over a moment just before (%, over
    /// `pacer-measure`'s `BUSY_SAMPLE`):
    /// the kernel's own count, which sees every task, those hidden from this process too.
    #[serde(default)]
    pub busy_pct: Option<f64>,
    /// Other tasks runnable on the CPU then (not counting Pacer's own), of those seen.
    pub runnable_on_cpu: Option<usize>,
    /// Other tasks that may run on that CPU alone, of those seen: nothing can move them off
    /// it, so they will take it from the measurement whenever they wake.
    pub bound_to_cpu: Option<usize>,
    /// Whether every task of the machine could be seen to count those: not in a container,
    /// nor where `/proc` hides other users' processes (systemd's `ProtectProc=`).
    #[serde(default)]
    pub all_tasks_seen: Option<bool>,
}

/// The clock the windows and convergence are on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clock {
    /// The thread's own time on the CPU: what the core and its governor did.
    OnCpu,
    /// The wall clock: the scheduler's interruptions count as slowness (reports made
    /// before the clock was recorded were on it).
    #[default]
    Wall,
}

/// Windows and convergence on one clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockView {
    pub clock: Clock,
    pub windows: Vec<Window>,
    pub t95_ms: Option<Statistic>,
}

/// One trial as it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// Convergence on the report's clock.
    pub t95_ms: Option<f64>,
    /// Time other tasks had the CPU (the scheduler's run delay, else the gaps).
    pub off_cpu_ms: f64,
    /// The scheduler's own count of time waiting to run (ms), where it can be read.
    pub run_delay_ms: Option<f64>,
    /// Every gap found in the samples and taken out of the timeline (ms): other tasks'
    /// time, and interrupts' and the hypervisor's.
    #[serde(default)]
    pub gaps_ms: f64,
    pub interruptions: u64,
    /// Off the CPU for more of the run than the measurement allows (`pacer-measure`'s
    /// `DISTURBED_SHARE`).
    pub disturbed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RampReport {
    pub schema: u32,
    pub kind: String,
    pub simulated: bool,
    pub settings: Settings,
    /// The clock of the runs' windows and convergence.
    #[serde(default)]
    pub clock: Clock,
    pub runs: Vec<RampRun>,
}

impl RampReport {
    /// Puts the report's figures on `clock` (the other clock's become `other_clock`).
    pub fn set_clock(&mut self, clock: Clock) {
        if clock != self.clock {
            for run in &mut self.runs {
                if let Some(other) = run.other_clock.take() {
                    let here = ClockView {
                        clock: self.clock,
                        windows: std::mem::replace(&mut run.windows, other.windows),
                        t95_ms: std::mem::replace(&mut run.t95_ms, other.t95_ms),
                    };
                    run.other_clock = Some(here);
                }
            }
            self.clock = clock;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pacer_core::SysRoot;

    #[test]
    fn settings_are_the_kernels_values_and_read_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        pacer_core::sim::model("intel-hybrid")
            .unwrap()
            .render(dir.path())
            .unwrap();
        let hybrid = Snapshot::read(&SysRoot::new(dir.path())).unwrap();
        let settings = Settings::of(&hybrid, 0, Some("balanced".into()));
        assert_eq!(settings.mode, Some(DriverMode::Active));
        assert_eq!(settings.governor, Some(Governor::powersave()));
        assert_eq!(settings.epp, Some(Epp::BalancePerformance));
        let json = serde_json::to_value(&settings).unwrap();
        assert_eq!(json["mode"], "active");
        assert_eq!(json["governor"], "powersave");
        assert_eq!(json["epp"], "balance_performance");
        let back: Settings = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, settings);

        // A raw EPP number reads back as one; text the kernel could not print is refused,
        // named in the error.
        let mut raw = json.clone();
        raw["epp"] = "77".into();
        let back: Settings = serde_json::from_value(raw).unwrap();
        assert_eq!(back.epp, Some(Epp::Raw(77)));
        let mut garbled = json;
        garbled["governor"] = "Fast Please".into();
        let error = serde_json::from_value::<Settings>(garbled).unwrap_err();
        assert!(error.to_string().contains("\"Fast Please\""), "{error}");
    }

    #[test]
    fn a_report_moves_its_figures_to_the_other_clock_and_back() {
        let window = |pct| Window {
            end_ms: 10,
            pct: Some(Statistic::exact(pct)),
        };
        let mut report = RampReport {
            schema: SCHEMA,
            kind: "ramp".into(),
            simulated: false,
            settings: Settings {
                driver: None,
                mode: None,
                governor: None,
                epp: None,
                eas: None,
                boost: None,
                profile: None,
            },
            clock: Clock::OnCpu,
            runs: vec![RampRun {
                windows: vec![window(90.0)],
                other_clock: Some(ClockView {
                    clock: Clock::Wall,
                    windows: vec![window(80.0)],
                    t95_ms: None,
                }),
                ..RampRun::default()
            }],
        };
        let on_cpu = report.clone();
        report.set_clock(Clock::Wall);
        assert_eq!(report.clock, Clock::Wall);
        assert_eq!(report.runs[0].windows, [window(80.0)]);
        let other = report.runs[0].other_clock.as_ref().unwrap();
        assert_eq!(
            (other.clock, &other.windows),
            (Clock::OnCpu, &vec![window(90.0)])
        );
        report.set_clock(Clock::OnCpu);
        assert_eq!(report, on_cpu);
    }
}

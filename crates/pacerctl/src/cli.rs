// SPDX-License-Identifier: GPL-3.0-or-later
//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use pacer_core::values::{DriverMode, Epp, Governor};
use pacer_dbus::measurement::report::Clock;

#[derive(Debug, Parser)]
#[command(
    name = "pacerctl",
    version,
    about = "Show and control the CPU's power state: profile, EPP, governor, driver mode, EAS"
)]
pub struct Cli {
    /// Read the machine under DIR instead of / (a fixture tree or a simulated machine)
    #[arg(long, global = true, value_name = "DIR", env = "PACER_SYSFS_ROOT")]
    pub sysfs_root: Option<PathBuf>,

    /// Run on a simulated machine (see `pacerctl simulate list`): in a temporary directory,
    /// or in --sysfs-root DIR, laid out there when DIR is empty and reused when it holds it
    #[arg(long, global = true, value_name = "NAME")]
    pub simulate: Option<String>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the profile, driver, EAS, per-core-type settings and frequencies, what holds
    /// each core type back, and findings
    Status {
        /// Print the schema-2 JSON document instead of text
        #[arg(long)]
        json: bool,
        /// Print OpenMetrics text (for Prometheus and agents that read OpenMetrics)
        #[arg(long, conflicts_with = "json")]
        openmetrics: bool,
        /// Print the Prometheus text format (for node_exporter's textfile collector): the
        /// OpenMetrics families, state sets and infos as gauges
        #[arg(long, conflicts_with_all = ["json", "openmetrics"])]
        prometheus: bool,
        #[command(flatten)]
        interval: ReadingInterval,
    },
    /// Show the limit chain of each core type: the settings, firmware, platform, thermal and
    /// power limits between the frequency asked for and the one delivered, and which holds
    Limits {
        /// Print the limit chain as JSON (the `limits` of `status --json`)
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        interval: ReadingInterval,
    },
    /// Print one line per change (profile, EPP, governor, findings) until interrupted
    Watch {
        /// Print one JSON object per line
        #[arg(long)]
        json: bool,
    },
    /// Change a setting through pacer-helper (polkit decides whether you may)
    Set {
        #[command(subcommand)]
        setting: Setting,
        #[command(flatten)]
        target: PolicyTarget,
        /// Talk to a helper on the session bus (development, the simulated demo)
        #[arg(long, global = true)]
        session: bool,
    },
    /// Apply the fix of each current finding, after saying what it will do
    Fix {
        /// Only say what would be done
        #[arg(long)]
        dry_run: bool,
        /// Talk to a helper on the session bus (development, the simulated demo)
        #[arg(long)]
        session: bool,
    },
    /// Who changed the power state and when, as pacer-helper recorded it (while a watch is
    /// open: the window, the tray, or --follow)
    History {
        /// Only the changes of this last while (90s, 10m, 2h, 1h30m, 1d)
        #[arg(long, value_name = "DURATION", value_parser = crate::history::parse_duration)]
        since: Option<std::time::Duration>,
        /// Keep recording and print each change as it comes, until interrupted
        #[arg(long)]
        follow: bool,
        /// Print one JSON object (schema 1) per change, one a line
        #[arg(long)]
        json: bool,
        /// Talk to a helper on the session bus (development, the simulated demo)
        #[arg(long)]
        session: bool,
    },
    /// Measure frequency ramp-up or wake-up latency, or compare settings
    Measure {
        #[command(subcommand)]
        kind: MeasureKind,
    },
    /// Simulated machines: list them, write to one through the kernel's rules, run one
    Simulate {
        #[command(subcommand)]
        action: SimulateAction,
    },
}

/// How long the limit chain watches the machine: delivered frequency, throttle events and
/// power drawn are measured between two readings.
#[derive(Debug, Clone, Copy, Args)]
pub struct ReadingInterval {
    /// Seconds between the limit chain's two readings (0: one reading, which leaves throttle
    /// events and power drawn unknown)
    #[arg(
        long = "interval",
        value_name = "SECONDS",
        default_value = "1",
        env = "PACER_INTERVAL",
        allow_hyphen_values = true,
        value_parser = crate::limits::parse_interval
    )]
    pub duration: std::time::Duration,
}

#[derive(Debug, Subcommand)]
pub enum SimulateAction {
    /// Name the simulated machines, one line each
    List,
    /// Write VALUE to PATH (as from /) of the simulated machine in --sysfs-root DIR through
    /// the kernel's rules, and print the kernel's answer
    Write { path: String, value: String },
    /// Put the simulated machine in --sysfs-root DIR through a suspend and resume: what its
    /// model's resume does to it (amd-resume-clamp's clamped maximum) shows in its files
    Resume,
    /// Lay out MODEL in --sysfs-root DIR (or reuse it) and keep its frequencies moving
    /// until interrupted, for other programs to read
    Run {
        model: String,
        /// Seed of the load pattern: the same seed replays the same frequencies
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Serve the power-profiles D-Bus API as DAEMON does, changing the simulated machine in
    /// --sysfs-root DIR through the kernel's rules, until interrupted
    Daemon {
        daemon: SimulatedDaemon,
        /// Serve on the session bus instead of the system bus
        #[arg(long)]
        session: bool,
    },
}

/// A profile daemon `pacerctl simulate daemon` can stand in for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SimulatedDaemon {
    /// TuneD's power-profiles-daemon API (tuned-ppd)
    TunedPpd,
}

#[derive(Debug, Subcommand)]
pub enum Setting {
    /// The cpufreq governor (only the ones the kernel offers)
    Governor { value: Governor },
    /// The energy-performance preference: a name, or 0-255 where the driver takes numbers
    Epp { value: Epp },
    /// Turbo/boost: on or off
    Boost { value: OnOff },
    /// Energy Aware Scheduling: on or off
    Eas { value: OnOff },
    /// The driver's mode: active, passive or guided
    Mode { value: DriverMode },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

/// Which policies a governor or EPP change is for (all active ones by default).
#[derive(Debug, Clone, clap::Args)]
#[group(multiple = false)]
pub struct PolicyTarget {
    /// These policies (`0-3,8`)
    #[arg(long, global = true, value_name = "LIST")]
    pub policies: Option<String>,
    /// The policies of one core type
    #[arg(long, global = true, value_name = "TYPE")]
    pub core_type: Option<CoreTypeArg>,
    /// Every policy (the default)
    #[arg(long, global = true)]
    pub all: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CoreTypeArg {
    Performance,
    Efficiency,
    LowPower,
}

/// How a ramp is reported.
#[derive(Debug, Args)]
pub struct RampFormat {
    /// Print the schema-1 JSON document
    #[arg(long)]
    pub json: bool,
    /// Windows and convergence on the wall clock, the time the thread spent off the CPU
    /// counted as slowness (by default it is taken out: the figures are the core's own)
    #[arg(long)]
    pub wall_clock: bool,
}

impl RampFormat {
    pub fn clock(&self) -> Clock {
        if self.wall_clock {
            Clock::Wall
        } else {
            Clock::OnCpu
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum MeasureKind {
    /// How fast a core reaches full speed when work arrives (one CPU per core type by default)
    Ramp {
        #[command(flatten)]
        cpus: MeasuredCpus,
        /// Trials per CPU
        #[arg(long, default_value_t = 5)]
        trials: usize,
        #[command(flatten)]
        format: RampFormat,
    },
    /// What waking a task on another CPU costs: a byte bounced between two pinned threads
    Wakeup {
        /// The two CPUs (`A,B`; the same twice for the same-CPU control)
        #[arg(long, value_name = "A,B")]
        cpus: String,
        /// Trials (one second each)
        #[arg(long, default_value_t = 3)]
        trials: usize,
        /// Print the schema-1 JSON document
        #[arg(long)]
        json: bool,
    },
    /// The ramp measurement under several settings, through pacer-helper, which restores
    /// the settings afterwards
    Compare {
        /// One column: `governor=…,epp=…,mode=…,eas=on|off,boost=on|off` (repeat for more)
        #[arg(long = "setting", value_name = "SETTINGS", required = true)]
        settings: Vec<String>,
        #[command(flatten)]
        cpus: MeasuredCpus,
        /// Trials per CPU and setting
        #[arg(long, default_value_t = 3)]
        trials: usize,
        #[command(flatten)]
        format: RampFormat,
        /// Talk to a helper on the session bus (development, the simulated demo)
        #[arg(long)]
        session: bool,
    },
}

/// Which CPUs to measure: one per core type unless said.
#[derive(Debug, Clone, clap::Args)]
#[group(multiple = false)]
pub struct MeasuredCpus {
    /// This CPU
    #[arg(long, value_name = "N")]
    pub cpu: Option<u32>,
    /// One CPU of this core type
    #[arg(long, value_name = "TYPE")]
    pub core_type: Option<CoreTypeArg>,
}

impl From<CoreTypeArg> for pacer_core::values::CoreType {
    fn from(kind: CoreTypeArg) -> Self {
        match kind {
            CoreTypeArg::Performance => pacer_core::values::CoreType::Performance,
            CoreTypeArg::Efficiency => pacer_core::values::CoreType::Efficiency,
            CoreTypeArg::LowPower => pacer_core::values::CoreType::LowPower,
        }
    }
}

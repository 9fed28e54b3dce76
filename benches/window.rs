// SPDX-License-Identifier: GPL-3.0-or-later
//! What the Pacer window costs, measured against the issue's performance goals.
//!
//! Goals, on a simulated 16-CPU laptop (`pacer --simulate intel-hybrid`) under Xvfb with
//! `GSK_RENDERER=cairo`:
//!
//! - start to first frame at most 0.3 s (five fresh processes after one warm-up: median and max,
//!   from spawning to the `first frame drawn` debug line, or to the window's appearance where
//!   the binary does not log that line);
//! - plot live at 10 Hz: at most 1 % of one core, the median of five windows of 30 s (after 3 s
//!   to settle; a shared virtual machine's neighbours move a single window by a tenth),
//!   resident memory at most 45 MB (VmRSS at the end, VmHWM as the peak, 1 MB = 10⁶ bytes);
//! - window hidden: no sampling at all (a `sampling stopped` line after hiding, no `sampling
//!   started` line after it, and the CPU it still uses over 10 s);
//! - plot live at 10 Hz on a simulated 256-CPU server (`--simulate server-256`): at most 2 %
//!   of one core, the median of three windows of 30 s;
//! - for comparison, GTK's own share: a window of Pacer's size with a bare drawing area of the
//!   plot's size, framed as Pacer's, redrawn at 10 Hz (`floor.rs`), the median of three windows of 30 s, and its
//!   resident memory;
//! - plot at 1 Hz: no more CPU than Debian's `gnome-system-monitor -r` (Resources tab), both
//!   running at once in the same X server, 30 s after 5 s to settle.
//!
//! CPU is utime + stime from `/proc/PID/stat` (the kernel sums all threads there) over wall
//! time, as a percentage of one core. The simulated machine's frequencies are moved by a
//! thread of the window's process (`sim-kernel`), which stands in for the kernel: on a real
//! machine that work is not there, so it is read from its own `/proc/PID/task/TID/stat`,
//! taken off the window's figure and shown beside it. The X server's own CPU is shown beside it for
//! information: part of drawing happens there, and not in the same share for GTK 4 (client-side
//! cairo) and gnome-system-monitor's GTK 3.
//!
//! How: `cargo bench --bench window` runs this binary, which checks its tools and then re-runs
//! itself inside one `xvfb-run -a -s "-screen 0 1280x800x24 -noreset" dbus-run-session --`
//! (one X server, one session bus, so the windows share them as on a desktop); that child
//! starts the windows, measures, prints the table, and kills what it started on every way out.
//! Openbox runs as the window manager, as one does on every desktop: without one, GTK's X11
//! backend asks the X server on every frame whether a window manager has come (a round trip
//! that was a tenth of the window's main-thread time here, and that no user's desktop has),
//! and `xdotool windowminimize` could not minimise.
//!
//! The exit status is non-zero only when a figure could not be measured; a missed goal is
//! reported in the table, not failed: this is a bench, not a test.
//!
//! Longer than most files: the bench drives Xvfb, the window and gnome-system-monitor itself,
//! and kills all it started on every way out.

use std::collections::BTreeMap;
use std::env;
use std::ffi::OsStr;
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use pacer_core::sim::TICKER_THREAD;

#[path = "window/floor.rs"]
mod floor;

/// Set in the environment of the copy of this binary that runs inside Xvfb.
const CHILD_ENV: &str = "PACER_WINDOW_BENCH_CHILD";
/// Set in the environment of the copy of this binary that opens the floor window.
const FLOOR_ENV: &str = "PACER_WINDOW_BENCH_FLOOR";
/// Cargo builds the GUI binary for benches and tells where it is.
const PACER: &str = env!("CARGO_BIN_EXE_pacer");
/// `-noreset`: an X server resets when its last client leaves and refuses connections while it
/// does, so a window started just after the previous one was killed failed, now and then, with
/// "Failed to initialize GTK".
const XVFB: &str = "-screen 0 1280x800x24 -noreset";
/// Anchored: a window name that merely contains "Pacer" is not ours.
const TITLE: &str = "^Pacer$";
const MODEL: &str = "intel-hybrid";
/// The many-CPU machine the plot must stay cheap on.
const BIG_MODEL: &str = "server-256";

const FIRST_FRAME: &str = "first frame drawn";
const SAMPLING_STARTED: &str = "sampling started";
const SAMPLING_STOPPED: &str = "sampling stopped";

/// The commands the bench runs, and the Debian package each comes from.
const TOOLS: [(&str, &str); 7] = [
    ("xvfb-run", "xvfb"),
    ("xauth", "xauth"),
    ("xprop", "x11-utils"),
    ("openbox", "openbox"),
    ("dbus-run-session", "dbus"),
    ("xdotool", "xdotool"),
    ("gnome-system-monitor", "gnome-system-monitor"),
];

fn main() -> ExitCode {
    // `cargo test --benches` (and `--all-targets`) runs bench targets without `--bench`: a
    // minute and a half of windows has no place in a test run.
    if !env::args().any(|arg| arg == "--bench") {
        println!("window bench: skipped, run it with `cargo bench --bench window`");
        return ExitCode::SUCCESS;
    }
    if env::var_os(FLOOR_ENV).is_some() {
        return floor::run();
    }
    let outcome = if env::var_os(CHILD_ENV).is_some() {
        child()
    } else {
        parent()
    };
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("window bench: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Checks the tools, then runs the measurements in a copy of itself inside Xvfb.
fn parent() -> Result<ExitCode> {
    let missing: Vec<(&str, &str)> = TOOLS
        .iter()
        .copied()
        .filter(|(tool, _)| find_in_path(tool).is_none())
        .collect();
    if !missing.is_empty() {
        let tools: Vec<String> = missing
            .iter()
            .map(|(tool, package)| format!("{tool} (Debian package {package})"))
            .collect();
        let packages: Vec<&str> = missing.iter().map(|(_, package)| *package).collect();
        bail!(
            "missing {}; install with: apt-get install {}",
            tools.join(", "),
            packages.join(" ")
        );
    }
    let exe = env::current_exe().context("cannot find the bench binary itself")?;
    println!("window bench: about 420 s under Xvfb, with {PACER}");
    let mut child = Command::new("xvfb-run")
        .args(["-a", "-s", XVFB, "dbus-run-session", "--"])
        .arg(exe)
        .arg("--bench")
        .env(CHILD_ENV, "1")
        .env("GSK_RENDERER", "cairo")
        // Never the desktop the bench was started from: only the X server xvfb-run starts.
        .env("GDK_BACKEND", "x11")
        .env_remove("WAYLAND_DISPLAY")
        // Debug output costs CPU: only pacer's own lines are turned on, for pacer only.
        .env_remove("G_MESSAGES_DEBUG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run xvfb-run")?;
    let stdout = child
        .stdout
        .take()
        .map(|out| thread::spawn(|| pass_on(out, false)));
    if let Some(stderr) = child.stderr.take() {
        pass_on(stderr, true);
    }
    if let Some(stdout) = stdout {
        // An error would only mean a line was lost on the way to the terminal.
        let _ = stdout.join();
    }
    let status = child.wait().context("cannot wait for xvfb-run")?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => {
            eprintln!("window bench: the measuring process was killed ({status})");
            ExitCode::FAILURE
        }
    })
}

/// Copies the measuring process's output to ours, less the chatter of the session's services:
/// dbus-run-session hands the bus daemon its stdout and stderr, and the daemon hands them on to
/// each service it starts (the accessibility bus and registry, dconf).
fn pass_on(stream: impl Read, to_stderr: bool) {
    for line in BufReader::new(stream).split(b'\n').map_while(Result::ok) {
        let line = String::from_utf8_lossy(&line);
        if line.starts_with("dbus-daemon[") || line.starts_with("SpiRegistry daemon") {
            continue;
        }
        if to_stderr {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }
}

fn find_in_path(tool: &str) -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|candidate| {
            fs::metadata(candidate)
                .map(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
}

/// Inside Xvfb and the session bus: measures everything, prints the table.
fn child() -> Result<ExitCode> {
    let _window_manager = window_manager()?;
    let mut bench = Bench::new()?;
    let mut report = Report::default();

    match bench.start_times() {
        Ok(start) => start.report(&mut report),
        Err(error) => report.not_measured("start → first frame", &error),
    }
    match bench.plot_then_hidden() {
        Ok(live) => live.report(&mut report),
        Err(error) => report.not_measured("10 Hz plot, hidden window", &error),
    }
    bench.plot_on_many_cpus(&mut report);
    bench.floor(&mut report);
    bench.side_by_side(&mut report);

    report.print(&bench);
    Ok(if report.complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Starts openbox and waits until it manages the screen (it names its check window on the
/// root window, as EWMH window managers do).
fn window_manager() -> Result<Proc> {
    let mut openbox = Proc::spawn("openbox", Command::new("openbox"))?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let root = Command::new("xprop")
            .args(["-root", "_NET_SUPPORTING_WM_CHECK"])
            .output()
            .context("cannot run xprop")?;
        if String::from_utf8_lossy(&root.stdout).contains("window id") {
            return Ok(openbox);
        }
        openbox.alive()?;
        if Instant::now() > deadline {
            bail!("openbox did not take the screen within 10 s");
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// What every measurement shares.
struct Bench {
    /// Seconds per tick of utime and stime.
    tick: f64,
    /// Pacer's runtime directory and TMPDIR: the simulated machines that killed windows leave go away with it.
    tmp: tempfile::TempDir,
    runs: usize,
    refresh_hz: bool,
    /// The X server, whose CPU is shown for information.
    xvfb: Option<u32>,
    /// CPUs of the simulated machine, counted in the tree of the 10 Hz window.
    cpus: Option<usize>,
    notes: Vec<String>,
}

impl Bench {
    fn new() -> Result<Bench> {
        let tick = Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|out| {
                String::from_utf8_lossy(&out.stdout)
                    .trim()
                    .parse::<f64>()
                    .ok()
            })
            .filter(|hz| *hz > 0.0)
            .map_or(0.01, |hz| 1.0 / hz);
        let help = Command::new(PACER)
            .arg("--help")
            .output()
            .with_context(|| format!("cannot run {PACER}"))?;
        let refresh_hz = String::from_utf8_lossy(&help.stdout).contains("--refresh-hz");
        let mut notes = Vec::new();
        if !refresh_hz {
            notes.push("pacer has no --refresh-hz option: 10 Hz is its default rate".to_owned());
        }
        Ok(Bench {
            tick,
            // In memory where it can be, as the runtime directory it stands in for is.
            tmp: tempfile::tempdir_in("/dev/shm")
                .or_else(|_| tempfile::tempdir())
                .context("cannot make a temporary directory")?,
            runs: 0,
            refresh_hz,
            xvfb: xvfb_pid(),
            cpus: None,
            notes,
        })
    }

    /// Starts pacer on the simulated laptop, with its debug lines on.
    fn pacer(&mut self, extra: &[&str]) -> Result<Proc> {
        self.pacer_on(MODEL, extra)
    }

    /// Starts pacer on the simulated `model`, with its debug lines on.
    fn pacer_on(&mut self, model: &str, extra: &[&str]) -> Result<Proc> {
        self.runs += 1;
        // A directory per window, to count the CPUs of one simulated machine. Pacer lays a
        // simulated machine out in the runtime directory (memory, like /sys), else TMPDIR.
        let tmp = self.tmp.path().join(format!("run{}", self.runs));
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&tmp)
            .with_context(|| format!("cannot make {}", tmp.display()))?;
        let mut command = Command::new(PACER);
        command
            .args(["--simulate", model])
            .args(extra)
            .env("G_MESSAGES_DEBUG", "pacer")
            .env("XDG_RUNTIME_DIR", &tmp)
            .env("TMPDIR", &tmp);
        Proc::spawn("pacer", command)
    }

    /// The window's first frame: the log line where pacer writes it, else the window.
    fn first_frame(
        &self,
        pacer: &mut Proc,
        signal: FrameSignal,
        timeout: Duration,
    ) -> Result<Instant> {
        match signal {
            FrameSignal::LogLine => pacer
                .wait_line(0, FIRST_FRAME, timeout)?
                .with_context(|| format!("no \"{FIRST_FRAME}\" line within {timeout:?}")),
            FrameSignal::Window => Ok(wait_window(pacer, &["--name", TITLE], timeout)?.1),
        }
    }

    fn start_times(&mut self) -> Result<StartTimes> {
        // The warm-up fills the caches a desktop has warm anyway (fonts, icons, the shared
        // libraries), and tells whether this binary logs its first frame.
        let mut warm = self.pacer(&[])?;
        wait_window(&mut warm, &["--name", TITLE], Duration::from_secs(20))?;
        let signal = if warm
            .wait_line(0, FIRST_FRAME, Duration::from_secs(3))?
            .is_some()
        {
            FrameSignal::LogLine
        } else {
            FrameSignal::Window
        };
        drop(warm);
        let mut times = Vec::new();
        for _ in 0..5 {
            // The previous window's bus name must be gone, or the new process would hand
            // over to it and quit (GApplication's single instance).
            thread::sleep(Duration::from_millis(300));
            let spawned = Instant::now();
            let mut pacer = self.pacer(&[])?;
            let frame = self.first_frame(&mut pacer, signal, Duration::from_secs(10))?;
            times.push(frame.duration_since(spawned));
        }
        times.sort();
        Ok(StartTimes { signal, times })
    }

    fn plot_then_hidden(&mut self) -> Result<LiveAndHidden> {
        thread::sleep(Duration::from_millis(300));
        let extra: &[&str] = if self.refresh_hz {
            &["--refresh-hz", "10"]
        } else {
            &[]
        };
        let mut pacer = self.pacer(extra)?;
        let (window, _) = wait_window(&mut pacer, &["--name", TITLE], Duration::from_secs(20))?;
        self.cpus = count_cpus(&self.tmp.path().join(format!("run{}", self.runs)));
        let (plot, plot_kernel, plot_xvfb) = self.plot_cpu(&mut pacer, PLOT_WINDOWS)?;
        let memory = memory(pacer.pid())?;
        pacer.alive()?;

        pacer.pump();
        let mark = pacer.log.len();
        xdotool(&["windowminimize", &window])?;
        thread::sleep(Duration::from_millis(300));
        if visible(&window)? {
            bail!("the window is still visible after xdotool windowminimize");
        }
        thread::sleep(Duration::from_secs(2));
        let (hidden, _) = self.cpu_with_xvfb(&[pacer.pid()], Duration::from_secs(10))?;
        pacer.alive()?;
        pacer.pump();
        let after: Vec<&str> = pacer.log[mark..]
            .iter()
            .map(|(_, line)| line.as_str())
            .collect();
        let stopped = after
            .iter()
            .rposition(|line| line.contains(SAMPLING_STOPPED));
        let restarted = stopped.is_some_and(|at| {
            after[at..]
                .iter()
                .any(|line| line.contains(SAMPLING_STARTED))
        });
        Ok(LiveAndHidden {
            plot,
            plot_kernel,
            plot_xvfb,
            memory,
            hidden: hidden[0],
            stopped: stopped.is_some(),
            restarted,
        })
    }

    /// The CPU of a window plotting at 10 Hz, after 3 s to settle: the program's (the
    /// simulated kernel's thread, which stands in for the kernel's own work, counted apart)
    /// and the X server's, over `windows` windows of [`PLOT_WINDOW`].
    fn plot_cpu(
        &mut self,
        pacer: &mut Proc,
        windows: usize,
    ) -> Result<(Spread, Option<Spread>, Option<Spread>)> {
        thread::sleep(Duration::from_secs(3));
        pacer.alive()?;
        let mut tasks = vec![pacer.pid().to_string()];
        let simulated_kernel = thread_named(pacer.pid(), TICKER_THREAD);
        tasks.extend(simulated_kernel.clone());
        let mut program = Vec::new();
        let mut kernel = Vec::new();
        let mut xvfb = Vec::new();
        for _ in 0..windows {
            let (plot, plot_xvfb) = self.tasks_cpu_with_xvfb(tasks.clone(), PLOT_WINDOW)?;
            let plot_kernel = simulated_kernel.as_ref().map(|_| plot[1]);
            program.push(plot[0] - plot_kernel.unwrap_or(0.0));
            kernel.extend(plot_kernel);
            xvfb.extend(plot_xvfb);
        }
        pacer.alive()?;
        Ok((
            Spread::of(program).context("no 10 Hz window was measured")?,
            Spread::of(kernel),
            Spread::of(xvfb),
        ))
    }

    /// The 10 Hz plot on the 256-CPU machine: one band and line per core type, whatever
    /// the number of CPUs.
    fn plot_on_many_cpus(&mut self, report: &mut Report) {
        thread::sleep(Duration::from_millis(300));
        let measured = self
            .pacer_on(BIG_MODEL, &["--refresh-hz", "10"])
            .and_then(|mut pacer| {
                wait_window(&mut pacer, &["--name", TITLE], Duration::from_secs(30))?;
                self.plot_cpu(&mut pacer, BIG_WINDOWS)
            });
        let what = format!("10 Hz plot on {BIG_MODEL}, CPU, median of {BIG_WINDOWS} × 30 s");
        match measured {
            Ok((plot, kernel, _)) => {
                report.row(
                    &what,
                    format!("{plot} of one core"),
                    "≤ 2 %",
                    Verdict::of(plot.median <= 2.0),
                );
                if let Some(kernel) = kernel {
                    report.row(
                        "  the simulated kernel besides",
                        format!("{kernel} of one core"),
                        "",
                        Verdict::Info,
                    );
                }
            }
            Err(error) => report.not_measured(&what, &error),
        }
    }

    /// GTK's share of the 10 Hz plot: the floor window (`floor.rs`), its CPU and memory.
    fn floor(&mut self, report: &mut Report) {
        thread::sleep(Duration::from_millis(300));
        let measured = env::current_exe()
            .context("cannot find the bench binary itself")
            .and_then(|exe| {
                let mut command = Command::new(exe);
                // As Pacer's main does under the cairo renderer: no GL set up (the floor
                // would otherwise hold Mesa's driver, 45 MB, that Pacer does not).
                command
                    .arg("--bench")
                    .env(FLOOR_ENV, "1")
                    .env("GDK_DEBUG", "gl-disable");
                let mut floor = Proc::spawn("the floor window", command)?;
                let title = format!("^{}$", floor::TITLE);
                wait_window(&mut floor, &["--name", &title], Duration::from_secs(20))?;
                let (cpu, _, _) = self.plot_cpu(&mut floor, BIG_WINDOWS)?;
                Ok((cpu, memory(floor.pid())?))
            });
        let what = format!("GTK alone at 10 Hz, CPU, median of {BIG_WINDOWS} × 30 s");
        match measured {
            Ok((cpu, memory)) => {
                report.row(&what, format!("{cpu} of one core"), "", Verdict::Info);
                report.row(
                    "GTK alone, resident memory",
                    format!("{:.1} MB", memory.rss_mb),
                    "",
                    Verdict::Info,
                );
                report.note(
                    "GTK alone: a window of Pacer's size, a bare drawing area of the plot's size \
                     framed as Pacer's, a picture scrolled one column a frame \
                     (benches/window/floor.rs)"
                        .to_owned(),
                );
            }
            Err(error) => report.not_measured(&what, &error),
        }
    }

    /// pacer at 1 Hz and gnome-system-monitor's Resources tab, at once.
    fn side_by_side(&mut self, report: &mut Report) {
        thread::sleep(Duration::from_millis(300));
        match self.side_by_side_figures() {
            Ok(figures) => figures.report(report),
            Err(error) => report.not_measured("1 Hz plot beside g-s-m", &error),
        }
    }

    fn side_by_side_figures(&mut self) -> Result<SideBySide> {
        let mut command = Command::new("gnome-system-monitor");
        command.arg("-r");
        let mut monitor = Proc::spawn("gnome-system-monitor", command)?;
        let mut pacer = if self.refresh_hz {
            Some(self.pacer(&["--refresh-hz", "1"])?)
        } else {
            None
        };
        let monitor_pid = monitor.pid().to_string();
        wait_window(
            &mut monitor,
            &["--pid", &monitor_pid],
            Duration::from_secs(20),
        )?;
        if let Some(pacer) = pacer.as_mut() {
            wait_window(pacer, &["--name", TITLE], Duration::from_secs(20))?;
        }
        thread::sleep(Duration::from_secs(5));
        let mut pids = vec![monitor.pid()];
        pids.extend(pacer.as_ref().map(Proc::pid));
        monitor.alive()?;
        if let Some(pacer) = pacer.as_mut() {
            pacer.alive()?;
        }
        let (cpu, xvfb) = self.cpu_with_xvfb(&pids, Duration::from_secs(30))?;
        monitor.alive()?;
        let monitor_memory = memory(monitor.pid())?;
        let pacer_figures = match pacer.as_mut() {
            Some(pacer) => {
                pacer.alive()?;
                Some((cpu[1], memory(pacer.pid())?))
            }
            None => None,
        };
        Ok(SideBySide {
            monitor: cpu[0],
            monitor_memory,
            pacer: pacer_figures,
            xvfb,
        })
    }

    /// CPU of each process, and of the X server when found, over the same interval.
    fn cpu_with_xvfb(&self, pids: &[u32], period: Duration) -> Result<(Vec<f64>, Option<f64>)> {
        let tasks: Vec<String> = pids.iter().map(u32::to_string).collect();
        self.tasks_cpu_with_xvfb(tasks, period)
    }

    /// Like [`Bench::cpu_with_xvfb`], for tasks as [`cpu_ticks`] names them.
    fn tasks_cpu_with_xvfb(
        &self,
        mut all: Vec<String>,
        period: Duration,
    ) -> Result<(Vec<f64>, Option<f64>)> {
        all.extend(self.xvfb.map(|pid| pid.to_string()));
        let mut cpu = cpu_percent(&all, period, self.tick)?;
        let xvfb = self.xvfb.and_then(|_| cpu.pop());
        Ok((cpu, xvfb))
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum FrameSignal {
    LogLine,
    Window,
}

struct StartTimes {
    signal: FrameSignal,
    /// Sorted.
    times: Vec<Duration>,
}

impl StartTimes {
    fn report(&self, report: &mut Report) {
        let until = match self.signal {
            FrameSignal::LogLine => format!("its \"{FIRST_FRAME}\" line"),
            FrameSignal::Window => {
                format!("xdotool seeing its window (it logs no \"{FIRST_FRAME}\")")
            }
        };
        report.note(format!("first frame: from spawning pacer to {until}"));
        let goal = Duration::from_millis(300);
        let median = self.times[self.times.len() / 2];
        let max = self.times[self.times.len() - 1];
        report.row(
            "start → first frame, median",
            format!("{:.3} s", median.as_secs_f64()),
            "≤ 0.3 s",
            Verdict::of(median <= goal),
        );
        report.row(
            "start → first frame, max of 5",
            format!("{:.3} s", max.as_secs_f64()),
            "≤ 0.3 s",
            Verdict::of(max <= goal),
        );
    }
}

/// Windows of the 10 Hz plot's CPU, each so long; fewer on the 256-CPU machine.
const PLOT_WINDOWS: usize = 5;
const BIG_WINDOWS: usize = 3;
const PLOT_WINDOW: Duration = Duration::from_secs(30);

/// The median and range of some figures.
#[derive(Debug, Clone, Copy)]
struct Spread {
    median: f64,
    min: f64,
    max: f64,
}

impl Spread {
    fn of(mut figures: Vec<f64>) -> Option<Spread> {
        figures.sort_by(f64::total_cmp);
        Some(Spread {
            median: *figures.get(figures.len() / 2)?,
            min: *figures.first()?,
            max: *figures.last()?,
        })
    }
}

impl std::fmt::Display for Spread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.2} % ({:.2}–{:.2})", self.median, self.min, self.max)
    }
}

struct LiveAndHidden {
    /// Without the simulated kernel's thread.
    plot: Spread,
    plot_kernel: Option<Spread>,
    plot_xvfb: Option<Spread>,
    memory: Memory,
    hidden: f64,
    stopped: bool,
    restarted: bool,
}

impl LiveAndHidden {
    fn report(&self, report: &mut Report) {
        report.row(
            "10 Hz plot, CPU, median of 5 × 30 s",
            format!("{} of one core", self.plot),
            "≤ 1 %",
            Verdict::of(self.plot.median <= 1.0),
        );
        match self.plot_kernel {
            Some(kernel) => report.row(
                "  the simulated kernel besides",
                format!("{kernel} of one core"),
                "",
                Verdict::Info,
            ),
            None => report.note(format!(
                "no \"{TICKER_THREAD}\" thread found: the 10 Hz figure holds the simulated kernel's work too"
            )),
        }
        if let Some(xvfb) = self.plot_xvfb {
            report.row(
                "  the X server meanwhile",
                format!("{xvfb} of one core"),
                "",
                Verdict::Info,
            );
        }
        report.row(
            "10 Hz plot, resident memory",
            format!(
                "{:.1} MB (peak {:.1} MB)",
                self.memory.rss_mb, self.memory.peak_mb
            ),
            "≤ 45 MB",
            Verdict::of(self.memory.rss_mb <= 45.0),
        );
        report.note(format!(
            "memory: VmRSS after the 10 Hz windows, VmHWM its peak since start; 1 MB = 10^6 bytes; \
             {:.1} MB of it shared with the X server (cairo's image pool)",
            self.memory.shared_mb
        ));
        let sampling = match (self.stopped, self.restarted) {
            (true, false) => "stopped",
            (true, true) => "stopped, then started again",
            (false, _) => "no \"sampling stopped\" line",
        };
        report.note("hidden: minimised with xdotool windowminimize, under openbox".to_owned());
        report.row(
            "hidden, sampling",
            sampling.to_owned(),
            "stopped",
            Verdict::of(self.stopped && !self.restarted),
        );
        report.row(
            "hidden, CPU over 10 s",
            format!("{:.2} % of one core", self.hidden),
            "no sampling",
            Verdict::Info,
        );
    }
}

struct SideBySide {
    monitor: f64,
    monitor_memory: Memory,
    /// CPU and memory; none where pacer has no `--refresh-hz`.
    pacer: Option<(f64, Memory)>,
    xvfb: Option<f64>,
}

impl SideBySide {
    fn report(&self, report: &mut Report) {
        match &self.pacer {
            Some((cpu, memory)) => {
                report.row(
                    "1 Hz plot, CPU over 30 s",
                    format!("{cpu:.2} % of one core"),
                    format!("≤ {:.2} % (g-s-m)", self.monitor),
                    Verdict::of(*cpu <= self.monitor),
                );
                report.row(
                    "1 Hz plot, resident memory",
                    format!("{:.1} MB", memory.rss_mb),
                    "",
                    Verdict::Info,
                );
            }
            None => report.row(
                "1 Hz plot, CPU over 30 s",
                "pacer has no --refresh-hz option".to_owned(),
                format!("≤ {:.2} % (g-s-m)", self.monitor),
                Verdict::NotMeasured,
            ),
        }
        report.row(
            "gnome-system-monitor -r, CPU",
            format!("{:.2} % of one core", self.monitor),
            "(reference)",
            Verdict::Info,
        );
        report.row(
            "gnome-system-monitor -r, memory",
            format!("{:.1} MB", self.monitor_memory.rss_mb),
            "(reference)",
            Verdict::Info,
        );
        if let Some(xvfb) = self.xvfb {
            report.row(
                "  the X server meanwhile (both)",
                format!("{xvfb:.2} % of one core"),
                "",
                Verdict::Info,
            );
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Verdict {
    Met,
    Missed,
    NotMeasured,
    Info,
}

impl Verdict {
    fn of(met: bool) -> Verdict {
        if met {
            Verdict::Met
        } else {
            Verdict::Missed
        }
    }

    fn word(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::Missed => "MISSED",
            Verdict::NotMeasured => "NOT MEASURED",
            Verdict::Info => "",
        }
    }
}

#[derive(Default)]
struct Report {
    rows: Vec<(String, String, String, Verdict)>,
    notes: Vec<String>,
    errors: Vec<String>,
}

impl Report {
    fn row(&mut self, what: &str, figure: String, goal: impl Into<String>, verdict: Verdict) {
        self.rows
            .push((what.to_owned(), figure, goal.into(), verdict));
    }

    fn note(&mut self, note: String) {
        self.notes.push(note);
    }

    fn not_measured(&mut self, what: &str, error: &anyhow::Error) {
        self.row(
            what,
            "could not be measured".to_owned(),
            "",
            Verdict::NotMeasured,
        );
        self.errors.push(format!("{what}: {error:#}"));
    }

    fn complete(&self) -> bool {
        self.rows.iter().all(|row| row.3 != Verdict::NotMeasured)
    }

    fn print(&self, bench: &Bench) {
        let cpus = bench
            .cpus
            .map_or_else(|| "CPUs not counted".to_owned(), |n| format!("{n} CPUs"));
        println!();
        println!(
            "Pacer window: Xvfb 1280x800x24, GSK_RENDERER=cairo, simulated intel-hybrid ({cpus})"
        );
        let width = self
            .rows
            .iter()
            .map(|row| row.1.chars().count())
            .max()
            .unwrap_or(0);
        for (what, figure, goal, verdict) in &self.rows {
            let line = format!(
                "  {what:<32} {figure:<width$}   {goal:<20} {}",
                verdict.word()
            );
            println!("{}", line.trim_end());
        }
        for note in bench.notes.iter().chain(&self.notes) {
            println!("  note: {note}");
        }
        for error in &self.errors {
            println!("  not measured: {error}");
        }
    }
}

/// A process started by the bench; killed when dropped, so on every way out, errors and
/// panics included. Its stdout and stderr are read line by line, each line stamped when it
/// arrives.
struct Proc {
    name: &'static str,
    child: Child,
    lines: Receiver<(Instant, String)>,
    log: Vec<(Instant, String)>,
}

impl Proc {
    fn spawn(name: &'static str, mut command: Command) -> Result<Proc> {
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .with_context(|| format!("cannot start {name}"))?;
        let (sender, lines) = mpsc::channel();
        // GLib writes debug and info messages to stdout, warnings to stderr: read both.
        let stdout = child
            .stdout
            .take()
            .map(|out| Box::new(out) as Box<dyn Read + Send>);
        let stderr = child
            .stderr
            .take()
            .map(|err| Box::new(err) as Box<dyn Read + Send>);
        for stream in stdout.into_iter().chain(stderr) {
            let sender = sender.clone();
            thread::spawn(move || {
                for line in BufReader::new(stream).split(b'\n') {
                    let Ok(line) = line else { break };
                    let line = String::from_utf8_lossy(&line).into_owned();
                    if sender.send((Instant::now(), line)).is_err() {
                        break;
                    }
                }
            });
        }
        Ok(Proc {
            name,
            child,
            lines,
            log: Vec::new(),
        })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn pump(&mut self) {
        self.log.extend(self.lines.try_iter());
    }

    /// An error, with the last lines it wrote, when the process has exited.
    fn alive(&mut self) -> Result<()> {
        let Some(status) = self.child.try_wait()? else {
            return Ok(());
        };
        // What it wrote last arrives a moment after it exits.
        thread::sleep(Duration::from_millis(100));
        self.pump();
        let tail: Vec<&str> = self.log[self.log.len().saturating_sub(8)..]
            .iter()
            .map(|(_, line)| line.as_str())
            .collect();
        bail!(
            "{} exited ({status}); its last lines:\n{}",
            self.name,
            tail.join("\n")
        )
    }

    /// When a line containing `needle`, from the `from`th on, arrived; none within `timeout`.
    fn wait_line(
        &mut self,
        from: usize,
        needle: &str,
        timeout: Duration,
    ) -> Result<Option<Instant>> {
        let deadline = Instant::now() + timeout;
        loop {
            self.pump();
            if let Some((at, _)) = self
                .log
                .iter()
                .skip(from)
                .find(|(_, line)| line.contains(needle))
            {
                return Ok(Some(*at));
            }
            self.alive()?;
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            match self.lines.recv_timeout(left.min(Duration::from_millis(50))) {
                Ok(line) => self.log.push(line),
                Err(RecvTimeoutError::Timeout) => {}
                // Both streams closed: the process is exiting, which alive() reports next time.
                Err(RecvTimeoutError::Disconnected) => thread::sleep(Duration::from_millis(10)),
            }
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        // Errors here mean it is gone already.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `xdotool search --onlyvisible ARGS` until a window shows: its id and when.
fn wait_window(owner: &mut Proc, args: &[&str], timeout: Duration) -> Result<(String, Instant)> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(window) = windows(args)?.into_iter().next() {
            return Ok((window, Instant::now()));
        }
        owner.alive()?;
        if Instant::now() >= deadline {
            bail!(
                "no window of {} within {timeout:?} (xdotool search {})",
                owner.name,
                args.join(" ")
            );
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// Visible windows matching `xdotool search` arguments. GTK 4 keeps an unmapped window of the
/// same name besides the toplevel, hence `--onlyvisible`.
fn windows(args: &[&str]) -> Result<Vec<String>> {
    let out = Command::new("xdotool")
        .arg("search")
        .arg("--onlyvisible")
        .args(args)
        .output()
        .context("cannot run xdotool")?;
    // It exits 1 when nothing matches, which is an answer, not a failure.
    Ok(String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_owned)
        .collect())
}

fn visible(window: &str) -> Result<bool> {
    Ok(windows(&["--name", TITLE])?.iter().any(|id| id == window))
}

fn xdotool(args: &[&str]) -> Result<()> {
    let status = Command::new("xdotool")
        .args(args)
        .status()
        .context("cannot run xdotool")?;
    if !status.success() {
        bail!("xdotool {} failed ({status})", args.join(" "));
    }
    Ok(())
}

/// Average CPU of each process over `period`, in % of one core.
fn cpu_percent(tasks: &[String], period: Duration, tick: f64) -> Result<Vec<f64>> {
    let before = tasks
        .iter()
        .map(|task| cpu_ticks(task))
        .collect::<Result<Vec<_>>>()?;
    let start = Instant::now();
    thread::sleep(period);
    let after = tasks
        .iter()
        .map(|task| cpu_ticks(task))
        .collect::<Result<Vec<_>>>()?;
    let wall = start.elapsed().as_secs_f64();
    Ok(before
        .iter()
        .zip(&after)
        .map(|(before, after)| after.saturating_sub(*before) as f64 * tick / wall * 100.0)
        .collect())
}

/// The `PID/task/TID` of the thread of process `pid` named `name`, if there is one.
fn thread_named(pid: u32, name: &str) -> Option<String> {
    fs::read_dir(format!("/proc/{pid}/task"))
        .ok()?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .find(|tid| {
            fs::read_to_string(format!("/proc/{pid}/task/{tid}/comm"))
                .is_ok_and(|comm| comm.trim_end() == name)
        })
        .map(|tid| format!("{pid}/task/{tid}"))
}

/// utime + stime of a task under /proc (`PID`: a process, all its threads together;
/// `PID/task/TID`: one thread), in clock ticks.
fn cpu_ticks(task: &str) -> Result<u64> {
    let path = format!("/proc/{task}/stat");
    let stat = fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
    // The command name in parentheses may hold spaces: the fields start after the last ')'.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // Fields 14 and 15 of proc(5); the first after ')' is field 3.
    let field = |n: usize| -> Result<u64> {
        fields
            .get(n - 3)
            .and_then(|value| value.parse().ok())
            .with_context(|| format!("no field {n} in {path}"))
    };
    Ok(field(14)? + field(15)?)
}

struct Memory {
    rss_mb: f64,
    peak_mb: f64,
    /// The part of `rss_mb` in shared memory: cairo's pool of images for the X server.
    shared_mb: f64,
}

fn memory(pid: u32) -> Result<Memory> {
    let path = format!("/proc/{pid}/status");
    let status = fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
    let fields: BTreeMap<&str, &str> = status
        .lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| (key, value.trim()))
        .collect();
    let megabytes = |key: &str| -> Result<f64> {
        let kib: f64 = fields
            .get(key)
            .and_then(|value| value.strip_suffix(" kB"))
            .and_then(|value| value.trim().parse().ok())
            .with_context(|| format!("no {key} in {path}"))?;
        Ok(kib * 1024.0 / 1e6)
    };
    Ok(Memory {
        rss_mb: megabytes("VmRSS")?,
        peak_mb: megabytes("VmHWM")?,
        shared_mb: megabytes("RssShmem")?,
    })
}

/// The Xvfb serving this bench's DISPLAY, found by its command line.
fn xvfb_pid() -> Option<u32> {
    let display = env::var("DISPLAY").ok()?;
    fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
        let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
        let cmdline = fs::read(entry.path().join("cmdline")).ok()?;
        let mut args = cmdline
            .split(|byte| *byte == 0)
            .map(String::from_utf8_lossy);
        let program = args.next()?;
        let is_xvfb = Path::new(program.as_ref()).file_name() == Some(OsStr::new("Xvfb"));
        (is_xvfb && args.any(|arg| arg == display)).then_some(pid)
    })
}

/// CPUs in the simulated machine under `dir`: the `cpuN` entries of its devices/system/cpu.
fn count_cpus(dir: &Path) -> Option<usize> {
    let cpu_dir = find_dir(dir, Path::new("devices/system/cpu"), 6)?;
    let count = fs::read_dir(cpu_dir)
        .ok()?
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .and_then(|name| name.strip_prefix("cpu"))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .count();
    (count > 0).then_some(count)
}

fn find_dir(dir: &Path, suffix: &Path, depth: usize) -> Option<PathBuf> {
    if dir.ends_with(suffix) {
        return Some(dir.to_owned());
    }
    if depth == 0 {
        return None;
    }
    fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .find_map(|entry| find_dir(&entry.path(), suffix, depth - 1))
}

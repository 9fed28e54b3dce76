// SPDX-License-Identifier: GPL-3.0-or-later
//! What Pacer's GNOME Shell extension costs the shell while nothing happens: Debian's GNOME
//! Shell 43.9 on Xvfb (pacer-testrig's rig, as tests/gnome_shell.rs runs it) idles with
//! Pacer's extension enabled and without it, Pacer running in the background on a simulated
//! laptop (real power-profiles-daemon, pacer-helper and polkit's stand-in) in both.
//!
//! Goal: the shell's CPU with the extension stays within noise of the shell without it.
//! How: rounds of one shell with the extension and one without, one after the other (one
//! shell at a time, on the same two cores), each measured over 30 s after 5 s to settle;
//! the shell's CPU is utime + stime from /proc/PID/stat over wall time, in % of one core.
//! Noise is the spread of the rounds without the extension. `cargo bench --bench shell`.

// A bench that cannot set up its rig has nothing to report: it stops there, saying why.
#![allow(clippy::expect_used)]

use std::path::Path;
use std::process::{Command, ExitCode};
use std::thread::sleep;
use std::time::{Duration, Instant};

use pacer_testrig::gnome_shell::{
    build_extension, process_cpu_time, GnomeShell, ShellSetup, APPINDICATOR,
};
use pacer_testrig::SystemBus;

const PACER: &str = env!("CARGO_BIN_EXE_pacer");
const UUID: &str = "pacer@pacerapp.github.io";
const ROUNDS: usize = 3;
const SETTLE: Duration = Duration::from_secs(5);
const WINDOW: Duration = Duration::from_secs(30);

fn main() -> ExitCode {
    // `cargo bench` passes --bench; nothing else is taken.
    let bus = SystemBus::start();
    let mut allowed: Vec<&str> = pacer_dbus::actions::ALL.to_vec();
    allowed.extend(pacer_testrig::PPD_ACTIONS);
    let tree = pacer_testrig::model_tree("intel-hybrid");
    let state = tempfile::tempdir().expect("a state directory");
    let _services = [
        bus.polkit(&allowed),
        bus.power_profiles_daemon(tree.path()),
        bus.pacer_helper(tree.path(), state.path()),
    ];
    let extension = tempfile::tempdir().expect("a directory for the extension");
    let built = build_extension("legacy", pacer::app::config::APP_ID, extension.path());

    let mut with = Vec::new();
    let mut without = Vec::new();
    for round in 0..ROUNDS {
        for enabled in [true, false] {
            let percent = idle_cpu(&bus, tree.path(), enabled.then_some(built.as_path()));
            println!(
                "round {}: shell {} Pacer's extension: {percent:.2} % of a core",
                round + 1,
                if enabled { "with" } else { "without" }
            );
            if enabled {
                with.push(percent);
            } else {
                without.push(percent);
            }
        }
    }
    let median = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    let spread = without.iter().copied().fold(f64::MIN, f64::max)
        - without.iter().copied().fold(f64::MAX, f64::min);
    let (with_median, without_median) = (median(&mut with), median(&mut without));
    println!();
    println!("| shell idle, {ROUNDS} rounds of {WINDOW:?} | median | runs |");
    println!("|---|---|---|");
    println!("| with Pacer's extension | {with_median:.2} % | {with:.2?} |");
    println!("| without | {without_median:.2} % | {without:.2?} |");
    let difference = with_median - without_median;
    let verdict = if difference.abs() <= spread.max(0.1) {
        "within noise"
    } else {
        "NOT within noise"
    };
    println!(
        "difference {difference:+.2} points; noise (spread without) {spread:.2} points: {verdict}"
    );
    ExitCode::SUCCESS
}

/// The shell's CPU in % of one core while idle, with `extension` enabled when given.
fn idle_cpu(bus: &SystemBus, root: &Path, extension: Option<&Path>) -> f64 {
    let root = root.to_str().expect("a UTF-8 path");
    let pacer_env: Vec<(String, String)> = [
        ("PACER_SYSFS_ROOT", root),
        ("GSETTINGS_BACKEND", "memory"),
        ("GSK_RENDERER", "cairo"),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value.to_owned()))
    .collect();
    let mut pacer = Command::new(PACER);
    pacer.arg("--background").envs(pacer_env.iter().cloned());
    let mut setup = ShellSetup {
        enabled: vec![APPINDICATOR.to_owned()],
        system_bus: bus.address().to_owned(),
        first: Some((pacer, pacer::app::config::APP_ID.to_owned())),
        ..ShellSetup::default()
    };
    if let Some(extension) = extension {
        setup.extensions.push(extension.to_owned());
        setup.enabled.push(UUID.to_owned());
    }
    let shell = GnomeShell::start(setup);
    if extension.is_some() {
        shell.wait_for(
            "the toggle shows the profile",
            Duration::from_secs(20),
            &format!(
                "Main.extensionManager.lookup('{UUID}').stateObj._pacer.view.title === 'Balanced'"
            ),
        );
    }
    sleep(SETTLE);
    let pid = shell.pid();
    let (start, used) = (Instant::now(), process_cpu_time(pid));
    sleep(WINDOW);
    let used = process_cpu_time(pid) - used;
    let percent = used.as_secs_f64() / start.elapsed().as_secs_f64() * 100.0;
    drop(shell);
    percent
}

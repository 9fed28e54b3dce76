// SPDX-License-Identifier: GPL-3.0-or-later
//! What Pacer's GNOME Shell extension costs the shell while Pacer's state changes once a
//! second: a real GNOME Shell (Debian 12's 43 on Xvfb by default; Debian 13's 48 or Debian
//! testing's 50 in their roots, as the shell lanes run them) with Pacer's extension enabled
//! and without it, Pacer running in the background on a simulated laptop (the shell's own
//! distribution's power-profiles-daemon, pacer-helper and polkit's stand-in) in both, asked to
//! watch the frequencies (`WatchFrequencies`, as an open menu does) while the simulated
//! kernel keeps them moving (`pacerctl simulate run`): Pacer then announces new frequencies
//! every second, and the extension redraws what shows them.
//!
//! Goal: the shell's CPU with the extension within 0.5 % of a core of the shell without it.
//! How: rounds of one shell with the extension and one without, one after the other (one
//! shell at a time, on the same two cores), each measured over 30 s after 5 s to settle;
//! the shell's CPU is utime + stime from /proc/PID/stat over wall time, in % of one core, and
//! the changes are Pacer's PropertiesChanged signals counted on the session bus meanwhile.
//!
//!   cargo bench --bench shell                                     GNOME Shell 43
//!   PACER_SHELL_48_ROOT=$(build-aux/shell-root.sh 48) PACER_BENCH_SHELL=48 \
//!     cargo bench --bench shell                                   GNOME Shell 48

// A bench that cannot set up its rig has nothing to report: it stops there, saying why.
#![allow(clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::sleep;
use std::time::{Duration, Instant};

use pacer_testrig::gnome_shell::{
    build_extension, process_cpu_time, GnomeShell, Shell, ShellSetup, APPINDICATOR,
};
use pacer_testrig::SystemBus;
use relm4::gtk::gio;
use relm4::gtk::prelude::*;

const PACER: &str = env!("CARGO_BIN_EXE_pacer");
const UUID: &str = "pacer@pacerapp.github.io";
const ROUNDS: usize = 3;
const SETTLE: Duration = Duration::from_secs(5);
const WINDOW: Duration = Duration::from_secs(30);
/// The goal: at most this much more of a core with the extension.
const GOAL_POINTS: f64 = 0.5;

fn main() -> ExitCode {
    // `cargo bench` passes --bench; nothing else is taken.
    let which = match std::env::var("PACER_BENCH_SHELL").as_deref() {
        Err(_) | Ok("43") => Shell::Host43,
        Ok("48") => Shell::Root48,
        Ok("50") => Shell::Root50,
        Ok(other) => {
            eprintln!("PACER_BENCH_SHELL={other}: 43, 48 or 50");
            return ExitCode::FAILURE;
        }
    };
    let bus = SystemBus::start();
    let mut allowed: Vec<&str> = pacer_dbus::actions::ALL.to_vec();
    allowed.extend(pacer_testrig::PPD_ACTIONS);
    let tree = pacer_testrig::model_tree("intel-hybrid");
    let state = tempfile::tempdir().expect("a state directory");
    let mut kernel = Command::new(pacer_testrig::workspace_binary("pacerctl"));
    kernel
        .args(["simulate", "run", "intel-hybrid", "--sysfs-root"])
        .arg(tree.path());
    let _services = [
        bus.polkit(&allowed),
        which.profile_daemon(&bus, tree.path()),
        bus.pacer_helper(tree.path(), state.path()),
        // The simulated kernel's frequencies keep moving, as a real machine's do.
        pacer_testrig::Service::spawn_command("kernel", bus.dir(), &mut kernel),
    ];
    let extension = tempfile::tempdir().expect("a directory for the extension");
    let built = build_extension(which.api(), pacer::app::config::APP_ID, extension.path());

    let mut with = Vec::new();
    let mut without = Vec::new();
    let mut changes_seen = 0;
    for round in 0..ROUNDS {
        for enabled in [true, false] {
            let extension = enabled.then_some(built.as_path());
            let (percent, changes) = shell_cpu(which, &bus, tree.path(), extension);
            println!(
                "round {}: GNOME Shell {} {} Pacer's extension: {percent:.2} % of a core, \
                 {changes} changes of Pacer's state in {WINDOW:?}",
                round + 1,
                which.version(),
                if enabled { "with" } else { "without" }
            );
            changes_seen += changes;
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
    let version = which.version();
    // Pacer samples once a second and announces a change when a core type's median moved.
    let rate = changes_seen as f64 / (2 * ROUNDS) as f64 / WINDOW.as_secs_f64();
    println!(
        "| GNOME Shell {version}, Pacer sampling at 1 Hz ({rate:.2} changes a second), \
         {ROUNDS} rounds of {WINDOW:?} | median | runs |"
    );
    println!("|---|---|---|");
    println!("| with Pacer's extension | {with_median:.2} % | {with:.2?} |");
    println!("| without | {without_median:.2} % | {without:.2?} |");
    let difference = with_median - without_median;
    let verdict = if difference <= GOAL_POINTS {
        "within the goal"
    } else {
        "NOT within the goal"
    };
    println!(
        "difference {difference:+.2} points (goal: at most +{GOAL_POINTS:.1}); noise (spread \
         without) {spread:.2} points: {verdict}"
    );
    ExitCode::SUCCESS
}

/// The shell's CPU in % of one core while Pacer's state changes once a second, with
/// `extension` enabled when given; and how many changes Pacer announced meanwhile.
fn shell_cpu(which: Shell, bus: &SystemBus, root: &Path, extension: Option<&Path>) -> (f64, usize) {
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
        shell: which,
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
            "the extension shows Pacer's state",
            Duration::from_secs(20),
            &format!(
                "Main.extensionManager.lookup('{UUID}').stateObj._pacer.view.coreTypes.length > 0"
            ),
        );
    }
    // Pacer follows the frequencies for a watcher while it stays on the bus, as the shell
    // stays: this connection is kept until the round ends.
    let _watcher = watch_frequencies(shell.session().address());
    let changes = count_changes(shell.session().address());
    sleep(SETTLE);
    let pid = shell.pid();
    let (start, used, counted) = (
        Instant::now(),
        process_cpu_time(pid),
        changes.load(Ordering::Relaxed),
    );
    sleep(WINDOW);
    let used = process_cpu_time(pid) - used;
    let counted = changes.load(Ordering::Relaxed) - counted;
    let percent = used.as_secs_f64() / start.elapsed().as_secs_f64() * 100.0;
    drop(shell);
    (percent, counted)
}

/// A connection to the session bus at `address` that asked Pacer to follow the frequencies.
fn watch_frequencies(address: &str) -> gio::DBusConnection {
    let flags = gio::DBusConnectionFlags::AUTHENTICATION_CLIENT
        | gio::DBusConnectionFlags::MESSAGE_BUS_CONNECTION;
    let connection =
        gio::DBusConnection::for_address_sync(address, flags, None, None::<&gio::Cancellable>)
            .expect("a connection to the shell's session bus");
    connection
        .call_sync(
            Some(pacer::app::config::APP_ID),
            "/io/github/pacerapp/Pacer",
            "io.github.pacerapp.Pacer.State1",
            "WatchFrequencies",
            Some(&(true,).to_variant()),
            None,
            gio::DBusCallFlags::NONE,
            -1,
            None::<&gio::Cancellable>,
        )
        .expect("Pacer watches the frequencies");
    connection
}

/// Counts Pacer's PropertiesChanged signals on the session bus at `address`, as they come.
fn count_changes(address: &str) -> Arc<AtomicUsize> {
    // dbus-monitor writes through stdio, in blocks into a pipe: a line at a time here.
    let mut monitor = Command::new("stdbuf")
        .args(["-oL", "dbus-monitor", "--address", address, "--monitor"])
        .arg("type='signal',path='/io/github/pacerapp/Pacer',member='PropertiesChanged'")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("stdbuf and dbus-monitor (the test command installs them)");
    let count = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&count);
    let output = monitor.stdout.take().expect("dbus-monitor's output");
    // Ends with the bus, when the shell's session goes.
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines().map_while(Result::ok) {
            if line.starts_with("signal ") && line.contains("member=PropertiesChanged") {
                counted.fetch_add(1, Ordering::Relaxed);
            }
        }
        let _ = monitor.wait();
    });
    count
}

//! Pacer's window on a real (virtual) display: it opens on the simulated laptop and stays
//! up, each page can be reached from the keyboard and drawn (the screenshots of the README
//! come from here), and the seed's inconsistency makes the banner appear when the helper,
//! the window and Debian's power-profiles-daemon share one simulated machine.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use pacer_testrig::{Service, SystemBus, PPD_ACTIONS};

const PACER: &str = env!("CARGO_BIN_EXE_pacer");

/// Where screenshots go: `PACER_SCREENSHOTS` (the README's come from `docs/screenshots`),
/// else the target directory.
fn screenshot_dir() -> PathBuf {
    let dir = std::env::var_os("PACER_SCREENSHOTS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots"),
        PathBuf::from,
    );
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Pacer in its own X server (and session bus), with its log in a file.
struct Gui {
    xvfb: Child,
    dir: tempfile::TempDir,
    display: String,
    xauthority: String,
    pid: String,
    focused: std::cell::Cell<bool>,
}

impl Gui {
    fn start(args: &[&str], system_bus: Option<&str>) -> Gui {
        let dir = tempfile::tempdir().unwrap();
        // The display, its cookie and Pacer's pid are written out before Pacer starts.
        let script = r#"
            echo "$DISPLAY" > "$OUT/display"; echo "$XAUTHORITY" > "$OUT/xauthority"
            echo $$ > "$OUT/pid"; exec "$@" > "$OUT/log" 2>&1
        "#;
        let mut command = Command::new("xvfb-run");
        command
            .args(["-a", "-s", "-screen 0 900x760x24", "dbus-run-session", "--"])
            .args(["sh", "-c", script, "sh", PACER])
            .args(args)
            .env("OUT", dir.path())
            .env("GSK_RENDERER", "cairo")
            .env("G_MESSAGES_DEBUG", "pacer")
            .env("LC_ALL", "C.UTF-8")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        match system_bus {
            Some(address) => command.env("DBUS_SYSTEM_BUS_ADDRESS", address),
            // No system bus at all: the window must say so and go on.
            None => command.env("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/bus"),
        };
        let xvfb = command
            .spawn()
            .expect("xvfb-run runs (the test command installs xvfb)");
        let read = |name: &str| {
            let deadline = Instant::now() + Duration::from_secs(20);
            loop {
                if let Ok(text) = std::fs::read_to_string(dir.path().join(name)) {
                    if text.ends_with('\n') {
                        return text.trim().to_owned();
                    }
                }
                assert!(Instant::now() < deadline, "xvfb-run did not start Pacer");
                sleep(Duration::from_millis(50));
            }
        };
        let (display, xauthority, pid) = (read("display"), read("xauthority"), read("pid"));
        Gui {
            xvfb,
            dir,
            display,
            xauthority,
            pid,
            focused: std::cell::Cell::new(false),
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }

    fn wait_for_log(&self, text: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        while !self.log().contains(text) {
            assert!(self.alive(), "pacer died:\n{}", self.log());
            assert!(
                Instant::now() < deadline,
                "no {text:?} in Pacer's log within {limit:?}:\n{}",
                self.log()
            );
            sleep(Duration::from_millis(100));
        }
    }

    fn alive(&self) -> bool {
        Path::new(&format!("/proc/{}", self.pid)).exists()
    }

    fn x(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .env("DISPLAY", &self.display)
            .env("XAUTHORITY", &self.xauthority);
        command
    }

    /// `xdotool` acting on Pacer's window (`args` empty: printing its id).
    fn on_window(&self, args: &[&str]) -> Command {
        let mut command = self.x("xdotool");
        command.args(["search", "--onlyvisible", "--name", "^Pacer$"]);
        command.args(args);
        command
    }

    /// Presses `keys` (space-separated) in the window, focused first. Focus is not asked for
    /// again while a popover is open: that would close it.
    fn key(&self, keys: &str) {
        if !self.focused.replace(true) {
            let status = self
                .on_window(&["windowfocus", "--sync"])
                .status()
                .expect("xdotool runs (the test command installs it)");
            assert!(status.success(), "xdotool windowfocus");
        }
        let status = self
            .x("xdotool")
            .args(["key", "--delay", "150"])
            .args(keys.split_whitespace())
            .status()
            .unwrap();
        assert!(status.success(), "xdotool key {keys}");
        sleep(Duration::from_millis(700));
    }

    /// Resizes the window; returns the width it then has (GTK keeps it at least as wide
    /// as its content needs).
    fn resize(&self, width: u32, height: u32) -> u32 {
        let status = self
            .on_window(&[
                "windowsize",
                "--sync",
                &width.to_string(),
                &height.to_string(),
            ])
            .status()
            .unwrap();
        assert!(status.success());
        sleep(Duration::from_millis(1000));
        let geometry = self
            .on_window(&["getwindowgeometry", "--shell"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&geometry.stdout)
            .lines()
            .find_map(|line| line.strip_prefix("WIDTH=")?.parse().ok())
            .expect("xdotool reports the window's width")
    }

    /// Saves the screen as `name`.png and checks it holds a drawn window.
    fn screenshot(&self, name: &str) -> PathBuf {
        // What the log reports is drawn at the next frame.
        sleep(Duration::from_millis(500));
        let path = screenshot_dir().join(format!("{name}.png"));
        let window = self.on_window(&[]).output().unwrap();
        let id = String::from_utf8_lossy(&window.stdout)
            .lines()
            .next()
            .unwrap_or("root")
            .to_owned();
        let status = self
            .x("import")
            .args(["-window", &id])
            .arg(&path)
            .status()
            .expect("import runs (the test command installs imagemagick)");
        assert!(status.success(), "import {name}");
        let size = std::fs::metadata(&path).unwrap().len();
        assert!(
            size > 10_000,
            "{name}.png is only {size} bytes: nothing drawn?"
        );
        assert!(self.alive(), "pacer died:\n{}", self.log());
        path
    }
}

impl Drop for Gui {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(&self.pid).status();
        let _ = self.xvfb.wait();
    }
}

#[test]
fn the_window_shows_each_page_of_the_simulated_laptop() {
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().to_str().unwrap();
    let gui = Gui::start(&["--simulate", "intel-hybrid", "--sysfs-root", root], None);
    gui.wait_for_log("first frame drawn", Duration::from_secs(20));
    gui.wait_for_log("banner shows simulated", Duration::from_secs(10));
    // A few seconds of the live plot.
    sleep(Duration::from_secs(4));
    gui.screenshot("overview");
    gui.key("alt+2");
    gui.screenshot("cpus");
    gui.key("ctrl+m");
    gui.wait_for_log("measured: Ramp-up #1", Duration::from_secs(20));
    gui.screenshot("measure");
    // Compare from the keyboard: Alt+C opens the settings, setting A's governor becomes
    // performance, setting B stays as it is; then Run. The settings come back afterwards.
    gui.key("alt+c");
    gui.key("Return");
    gui.key("Down Return");
    gui.key("Tab Tab Tab Tab Return");
    gui.wait_for_log("measured: Comparison #2", Duration::from_secs(30));
    let governor = tree
        .path()
        .join("sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
    assert_eq!(std::fs::read_to_string(governor).unwrap(), "powersave\n");
    // The banner catches up with the restored settings at its next reading.
    sleep(Duration::from_secs(3));
    gui.screenshot("compare");
    // 360 px wide: the page switcher moves to the bottom, and nothing breaks.
    gui.key("alt+1");
    let width = gui.resize(360, 700);
    assert_eq!(width, 360, "some content is wider than 360 px");
    gui.screenshot("narrow");
    assert!(
        !gui.log().contains("CRITICAL"),
        "GTK complained:\n{}",
        gui.log()
    );
}

/// A tree of `model` that is not simulated: what a real machine's sysfs looks like.
fn plain_tree(model: &str) -> tempfile::TempDir {
    let tree = pacer_testrig::model_tree(model);
    std::fs::remove_dir_all(tree.path().join(".pacer-sim")).unwrap();
    tree
}

#[test]
fn without_the_helper_the_window_reads_and_says_why_it_cannot_change() {
    let bus = SystemBus::start();
    let tree = plain_tree("amd-zen4");
    let root = tree.path().to_str().unwrap();
    let gui = Gui::start(&["--sysfs-root", root], Some(bus.address()));
    gui.wait_for_log(
        "banner shows read-only: Read-only: pacer-helper is not installed",
        Duration::from_secs(20),
    );
    assert!(
        !gui.log().contains("banner shows simulated"),
        "{}",
        gui.log()
    );
    gui.key("alt+2");
    gui.screenshot("read-only");
}

#[test]
fn a_machine_without_cpufreq_is_offered_the_simulated_laptop() {
    let tree = plain_tree("vm");
    let root = tree.path().to_str().unwrap();
    let gui = Gui::start(&["--sysfs-root", root], None);
    gui.wait_for_log("banner shows no-cpufreq", Duration::from_secs(20));
    // The button's mnemonic.
    gui.key("alt+s");
    gui.wait_for_log("banner shows simulated", Duration::from_secs(20));
    gui.screenshot("offered-simulation");
}

/// The seed's three steps (`reference/seeds/`): the governor to performance through the
/// helper (intel_pstate saves the EPP), the profile to performance through the daemon (it
/// writes EPP performance... which the kernel refuses under that governor, or which it holds
/// anyway), then the governor back to powersave (intel_pstate restores the saved EPP behind
/// the daemon's back): the profile says performance, the EPP says otherwise.
#[test]
fn the_seeds_inconsistency_raises_the_banner() {
    let bus = SystemBus::start();
    let mut allowed: Vec<&str> = pacer_dbus::actions::ALL.to_vec();
    allowed.extend(PPD_ACTIONS);
    let tree = pacer_testrig::model_tree("intel-hybrid");
    let state = tempfile::tempdir().unwrap();
    let _services: Vec<Service> = vec![
        bus.polkit(&allowed),
        bus.power_profiles_daemon(tree.path()),
        bus.pacer_helper(tree.path(), state.path()),
    ];
    let root = tree.path().to_str().unwrap();
    let gui = Gui::start(
        &["--simulate", "intel-hybrid", "--sysfs-root", root],
        Some(bus.address()),
    );
    gui.wait_for_log("banner shows simulated", Duration::from_secs(20));
    assert!(!gui.log().contains("EppMismatch"), "{}", gui.log());

    let pacerctl = |args: &[&str]| {
        let output = bus
            .command(pacer_testrig::workspace_binary("pacerctl"))
            .args(args)
            .args(["--sysfs-root", root])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "pacerctl {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    pacerctl(&["set", "governor", "performance"]);
    bus.set_profile("performance").unwrap();
    pacerctl(&["set", "governor", "powersave"]);

    gui.wait_for_log("banner shows EppMismatch", Duration::from_secs(15));
    // The next reading, after every policy's governor is back, leaves the mismatch alone.
    sleep(Duration::from_secs(3));
    gui.screenshot("mismatch");

    // Alt+F presses the most severe finding's Fix: the profile goes away and back, and the
    // daemon writes the EPP again.
    gui.key("alt+f");
    gui.wait_for_log("banner clears EppMismatch", Duration::from_secs(15));
    let epp = tree
        .path()
        .join("sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference");
    assert_eq!(
        std::fs::read_to_string(epp).unwrap().trim_end(),
        "performance"
    );
    assert_eq!(bus.profile().unwrap(), "performance");
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's window on a real (virtual) display: it opens on the simulated laptop and stays
//! up, each page can be reached from the keyboard and drawn (the screenshots of the README
//! come from here), and the EPP lost behind the daemon's back (`docs/kernel.md` 2.4) makes
//! the banner appear when the helper, the window and Debian's power-profiles-daemon share
//! one simulated machine.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::thread::sleep;
use std::time::Duration;

use common::{Gui, Laptop};
use pacer_testrig::SystemBus;

/// The window on a simulated laptop in a directory of its own, up and saying so.
fn simulated_laptop() -> (tempfile::TempDir, Gui) {
    common::simulated_laptop_on(None)
}

/// The window on the simulated `model` in good health, as the documentation shows it.
fn healthy_machine(model: &str) -> (Laptop, Gui) {
    common::healthy_machine_on(model, None)
}

/// The simulated laptop in good health, as the README shows it.
fn healthy_laptop() -> (Laptop, Gui) {
    healthy_machine("intel-hybrid")
}

#[test]
#[ignore = "needs a display, and root for fanotify: build-aux/test.sh --lane gui runs it"]
fn the_window_shows_each_page_of_the_simulated_laptop() {
    let (laptop, gui) = healthy_laptop();
    // A fifth of the plot's minute drawn, for the README's picture.
    sleep(Duration::from_secs(12));
    gui.screenshot("overview");
    gui.key("alt+2");
    gui.screenshot("cpus");
    gui.key("ctrl+m");
    // The chart grows as it measures: the P-core's curve done, the E-core's on its way.
    gui.wait_for_log(
        "measure progress: CPU 15 (E-core), trial 1 of 1: measuring",
        Duration::from_secs(20),
    );
    gui.screenshot("measure-live");
    gui.wait_for_log("measured: Ramp-up #1", Duration::from_secs(20));
    gui.screenshot("measure");
    // Compare four settings from the keyboard: Alt+C opens them; A's governor becomes
    // performance, B stays as it is, C (ticked) takes the last EPP offered (power), D
    // (ticked) the performance governor; then Run. The settings come back afterwards.
    gui.key("alt+c");
    gui.key("Return");
    gui.key("Down Return");
    gui.key("Tab Tab Tab Tab space Tab Tab Return");
    gui.key("End Return");
    gui.key("Tab space Tab Return");
    gui.key("Down Return");
    gui.key("Tab Tab Return");
    gui.wait_for_log("measured: Comparison #2", Duration::from_secs(60));
    let governor = laptop.file("sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
    assert_eq!(std::fs::read_to_string(governor).unwrap(), "powersave\n");
    // The banner catches up with the restored settings at its next reading.
    sleep(Duration::from_secs(3));
    gui.screenshot("compare");
    // Four settings × two core types, every column in view at 900 px (the table's own
    // measure against the room it has).
    let in_view = |form: &str| {
        let log = gui.log();
        let fit = log
            .lines()
            .rev()
            .find_map(|line| line.split(&format!("result table {form}: ")).nth(1))
            .unwrap_or_else(|| panic!("the table {form} says how wide it is"))
            .to_owned();
        let numbers: Vec<i32> = fit
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect();
        assert!(
            numbers.len() == 2 && numbers[0] <= numbers[1],
            "{form}: {fit}"
        );
    };
    in_view("side by side");
    assert!(
        gui.log().contains("A: Performance governor")
            && gui
                .log()
                .contains("D: Performance governor — same settings as A"),
        "the legend names A in words, and D as the same settings"
    );
    // 360 px wide: the comparison stacks, each CPU's figures under its name, in view.
    let width = gui.resize(360, 700);
    assert_eq!(width, 360, "some content is wider than 360 px");
    gui.wait_for_log("result table stacked: ", Duration::from_secs(5));
    in_view("stacked");
    // Scrolled down to the table by the mouse wheel.
    gui.on_window(&["mousemove", "--window", "%1", "180", "400"])
        .status()
        .unwrap();
    for _ in 0..6 {
        gui.on_window(&["click", "5"]).status().unwrap();
    }
    sleep(Duration::from_millis(500));
    gui.screenshot("compare-narrow");
    // The page switcher moves to the bottom, and nothing breaks.
    gui.key("alt+1");
    gui.screenshot("narrow");
    // Every page has been drawn (the History page, empty, shows its status page): their
    // icons are Adwaita's pre-rendered ones, so no SVG renderer was loaded for them
    // (librsvg, with libxml2 and ICU: 8 MB resident; `widgets::icons`).
    gui.key("alt+4");
    sleep(Duration::from_millis(500));
    assert!(
        !gui.mapped_files().contains("librsvg"),
        "a page's icon was drawn from an SVG"
    );
    assert!(
        !gui.log().contains("CRITICAL"),
        "GTK complained:\n{}",
        gui.log()
    );
}

/// The plot reads at a glance: a band and a median per core type on 2, 16, 64 and 256 CPUs
/// (the documentation's screenshots, each machine in good health with its profile daemon),
/// a readout under the pointer and from the keyboard, and each CPU's own line on demand.
#[test]
#[ignore = "needs a display, and root for fanotify: build-aux/test.sh --lane gui runs it"]
fn the_plot_reads_at_a_glance_from_2_to_256_cpus() {
    for model in ["netbook-2", "workstation-64", "server-256"] {
        let (_laptop, gui) = healthy_machine(model);
        sleep(Duration::from_secs(5));
        gui.screenshot(&format!("overview-{model}"));
        assert!(gui.alive(), "{model}: {}", gui.log());
    }
    let (_laptop, gui) = healthy_laptop();
    sleep(Duration::from_secs(4));
    // The pointer over the plot (below Power Mode), about three seconds before now.
    let status = gui
        .on_window(&["mousemove", "--window", "%1", "800", "520"])
        .status()
        .unwrap();
    assert!(status.success(), "xdotool mousemove");
    gui.wait_for_log("readout shows", Duration::from_secs(5));
    let log = gui.log();
    let readout = log
        .lines()
        .rev()
        .find(|line| line.contains("readout shows"))
        .unwrap();
    assert!(
        readout.contains(" s ago · P-cores: median ")
            && readout.contains(" · E-cores: median ")
            && readout.contains(" · busiest: CPU "),
        "{readout}"
    );
    gui.screenshot("overview-readout");
    // A click puts the keyboard on the plot; End goes to the latest sample.
    gui.on_window(&["click", "1"]).status().unwrap();
    gui.key("End");
    gui.wait_for_log("readout shows Now · P-cores", Duration::from_secs(5));
    // Each CPU's own line, by its mnemonic.
    gui.key("alt+e");
    sleep(Duration::from_secs(1));
    gui.screenshot("overview-each-cpu");
    assert!(gui.alive());
}

/// The CPUs page changes what it says it changes: "Every core"'s governor chosen with the
/// mouse and the keyboard reaches every policy (through the window's own helper on the
/// simulated laptop), and choosing it back restores them.
#[test]
#[ignore = "needs a display: build-aux/test.sh --lane gui runs it"]
fn the_cpus_page_sets_every_cores_governor() {
    let (tree, gui) = simulated_laptop();
    let governors = || -> Vec<String> {
        (0..16)
            .map(|policy| {
                let file =
                    format!("sys/devices/system/cpu/cpufreq/policy{policy}/scaling_governor");
                std::fs::read_to_string(tree.path().join(file)).unwrap()
            })
            .collect()
    };
    // Within ten seconds, every policy's governor reads `wanted`.
    let every_policy_reaches = |wanted: &str| {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while governors().iter().any(|g| g != wanted) && std::time::Instant::now() < deadline {
            sleep(Duration::from_millis(200));
        }
        assert!(governors().iter().all(|g| g == wanted), "{:?}", governors());
    };
    gui.key("alt+2");
    // "Every core", "Governor": the first row of the page, under the header bar (the
    // simulated machine is a tag there, no banner above the page); its list opens on the
    // value it shows (powersave, after performance).
    let status = gui
        .on_window(&["mousemove", "--window", "%1", "440", "142", "click", "1"])
        .status()
        .unwrap();
    assert!(status.success(), "xdotool click");
    sleep(Duration::from_millis(800));
    gui.key("Up Return");
    every_policy_reaches("performance\n");
    gui.screenshot("cpus-performance");
    // The page follows the machine (a banner above it now, the EPP locked); the row keeps the
    // focus, and the keyboard opens its list again.
    sleep(Duration::from_secs(3));
    gui.key("Return");
    gui.key("Down Return");
    every_policy_reaches("powersave\n");
    assert!(gui.alive());
}

/// A tree of `model` that is not simulated: what a real machine's sysfs looks like.
fn plain_tree(model: &str) -> tempfile::TempDir {
    let tree = pacer_testrig::model_tree(model);
    std::fs::remove_dir_all(tree.path().join(".pacer-sim")).unwrap();
    tree
}

#[test]
#[ignore = "needs a display: build-aux/test.sh --lane gui runs it"]
fn without_the_helper_the_window_reads_and_says_why_it_cannot_change() {
    let bus = SystemBus::start();
    let tree = plain_tree("amd-zen4");
    let root = tree.path().to_str().unwrap();
    let gui = Gui::start(&["--sysfs-root", root], Some(bus.address()));
    // One line; how to install it from the build tree is in its details.
    gui.wait_for_log(
        "banner shows read-only: Settings are read-only: Pacer's helper is not installed",
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
#[ignore = "needs a display: build-aux/test.sh --lane gui runs it"]
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

/// The three steps of `docs/kernel.md` 2.4 (the EPP lost behind the daemon's back): the
/// governor to performance through the helper (intel_pstate saves the EPP), the profile to performance through the daemon (it
/// writes EPP performance... which the kernel refuses under that governor, or which it holds
/// anyway), then the governor back to powersave (intel_pstate restores the saved EPP behind
/// the daemon's back): the profile says performance, the EPP says otherwise. The banner says
/// why, the History page shows the chain, and the live plot marks each change.
#[test]
#[ignore = "needs a display, and root for fanotify: build-aux/test.sh --lane gui runs it"]
fn the_epp_mismatch_raises_the_banner() {
    let laptop = Laptop::start("intel-hybrid");
    let bus = &laptop.bus;
    let root = laptop.root();
    let gui = Gui::start(
        &["--simulate", "intel-hybrid", "--sysfs-root", root],
        Some(bus.address()),
    );
    gui.wait_for_log("banner shows simulated", Duration::from_secs(20));
    assert!(!gui.log().contains("EppMismatch"), "{}", gui.log());
    // The History page keeps a watch open: the helper records from here on.
    gui.wait_for_log("history shows: recording started", Duration::from_secs(20));

    laptop.lose_the_epp();

    gui.wait_for_log("banner shows EppMismatch", Duration::from_secs(15));
    // Why: the kernel restored the EPP after Pacer's governor write for pacerctl.
    let explained = |why: &str| {
        why.contains(": performance → balance_performance, by the kernel, after change #")
            && why.contains("; before that, at ")
            && why.contains(": performance → powersave, by Pacer, asked by pacerctl (pid ")
    };
    common::wait_until(Duration::from_secs(15), "the banner says why", || {
        let log = gui.log();
        let why = log
            .lines()
            .rfind(|line| line.contains("banner explains Why:"));
        match why {
            Some(why) if explained(why) => Ok(()),
            other => Err(format!("{other:?}")),
        }
    });
    // The next reading, after every policy's governor is back, leaves the mismatch alone;
    // Alt+D opens its details, and Escape closes them.
    sleep(Duration::from_secs(3));
    gui.key("alt+d");
    gui.wait_for_log("banner details of EppMismatch", Duration::from_secs(5));
    sleep(Duration::from_millis(500));
    gui.screenshot_with_dialog("EPP is not what Performance sets", "mismatch");
    gui.key("Escape");
    // The History page: the chain, newest first, each with who made it.
    gui.key("alt+4");
    gui.wait_for_log(
        "history shows: power profile: balanced → performance by the profile daemon",
        Duration::from_secs(5),
    );
    sleep(Duration::from_millis(500));
    gui.screenshot("history");
    gui.key("alt+1");

    // Alt+F presses the most severe finding's Fix: the profile goes away and back, and the
    // daemon writes the EPP again.
    gui.key("alt+f");
    gui.wait_for_log("banner clears EppMismatch", Duration::from_secs(15));
    assert_eq!(laptop.epp(), "performance");
    assert_eq!(bus.profile().unwrap(), "performance");

    // The live plot marks each change where it happened; the readout on a mark says what
    // and who. The keyboard steps it back a second at a time from now, onto the latest.
    gui.on_window(&["mousemove", "--window", "%1", "800", "520"])
        .status()
        .unwrap();
    gui.on_window(&["click", "1"]).status().unwrap();
    gui.key("End");
    let on_a_change = |log: &str| {
        log.lines()
            .rfind(|line| line.contains("readout shows"))
            .filter(|line| line.contains(" | at ") && line.contains(", by "))
            .map(str::to_owned)
    };
    let mut said = None;
    for _ in 0..60 {
        gui.key("Left");
        sleep(Duration::from_millis(150));
        said = on_a_change(&gui.log());
        if said.is_some() {
            break;
        }
    }
    // The keyboard's readout stays on its moment as the plot moves on.
    sleep(Duration::from_secs(3));
    let log = gui.log();
    let last = log
        .lines()
        .rfind(|line| line.contains("readout on the change") || line.contains("readout off"));
    assert!(
        last.is_some_and(|line| line.contains("readout on the change at ")),
        "{last:?}"
    );
    gui.screenshot("overview-changes");
    let said = said.unwrap_or_else(|| panic!("no readout on a change: {}", gui.log()));
    assert!(said.contains(" s ago · P-cores: median "), "{said}");
}

/// Turning on what works with the window closed, where this desktop cannot do it (no
/// StatusNotifierWatcher, no notification server on the test's session bus), says so at once
/// instead of letting a closed window vanish without an icon.
#[test]
#[ignore = "needs a display: build-aux/test.sh --lane gui runs it"]
fn turning_on_the_background_where_nothing_shows_it_says_so() {
    // A session bus that activates nothing: where desktops are installed, the usual one
    // would start a notification server on demand (KDE Plasma's, say).
    let session = SystemBus::start_session_with(|_| Vec::new(), &[]);
    let (_tree, gui) = common::simulated_laptop_on(Some(session.address()));
    // F10 opens the main menu on its first item, "Run in Background".
    gui.key("F10");
    sleep(Duration::from_millis(500));
    gui.key("Return");
    gui.wait_for_log(
        "toast: Nothing on this desktop shows tray icons",
        Duration::from_secs(10),
    );
    // "Notify About Warnings" is on by default: off, then on again.
    for _ in 0..2 {
        gui.key("F10");
        sleep(Duration::from_millis(500));
        gui.key("Down Return");
        sleep(Duration::from_millis(300));
    }
    gui.wait_for_log(
        "toast: Nothing on this desktop shows notifications",
        Duration::from_secs(10),
    );
    assert!(gui.alive());
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! "Why not faster?" on the overview: the limit chain's row per core type on the healthy
//! laptop, once its processor cooling steps in, and on the simulated machines of the chain
//! (held by their cooling devices, held by a lowered power limit), each drawn.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::thread::sleep;
use std::time::Duration;

mod common;

use common::{Gui, Laptop};

/// Scrolls the overview down to the limits rows with the mouse wheel.
fn scroll_to_limits(gui: &Gui) {
    let wheel: Vec<&str> = "mousemove --window %1 450 400 click --repeat 10 5"
        .split(' ')
        .collect();
    gui.on_window(&wheel).status().unwrap();
}

/// Waits until the row of `cores` (`Performance cores`, `Cores` where all are alike) last
/// said something that starts with `start` and holds `holds`.
fn wait_for_row(gui: &Gui, cores: &str, start: &str, holds: &str) {
    let prefix = format!("limits row shows {cores}: ");
    common::wait_until(
        Duration::from_secs(15),
        &format!("the {cores} cores' row says {start}…{holds}"),
        || {
            let log = gui.log();
            let last = log
                .lines()
                .rev()
                .find_map(|line| line.split(&prefix).nth(1))
                .unwrap_or_default();
            if last.starts_with(start) && last.contains(holds) {
                Ok(())
            } else {
                Err(format!("it says {last:?}"))
            }
        },
    );
}

/// Nothing holds the cores of the healthy laptop; once the ACPI processor cooling goes to
/// level 3 of 10 (the kernel then allows 40 % of each core's highest frequency), each core
/// type's row says so and since when, and its details list the chain link by link.
#[test]
#[ignore = "needs a display, and root for fanotify: build-aux/test.sh --lane gui runs it"]
fn the_overview_says_what_holds_the_cores_back() {
    let laptop = Laptop::start("intel-hybrid");
    let gui = Gui::start(
        &["--simulate", "intel-hybrid", "--sysfs-root", laptop.root()],
        Some(laptop.bus.address()),
    );
    gui.wait_for_log("first frame drawn", Duration::from_secs(30));
    for cores in ["Performance", "Efficiency"] {
        gui.wait_for_log(
            &format!("limits row shows {cores} cores: Nothing holds them back"),
            Duration::from_secs(10),
        );
    }
    scroll_to_limits(&gui);
    gui.screenshot("overview-limits");

    // One CPU's device reaches the whole package, as `processor_thermal` sets it.
    laptop.pacerctl(&[
        "simulate",
        "write",
        "/sys/class/thermal/cooling_device0/cur_state",
        "3",
    ]);
    // Three steps of 20 % of 3.4 GHz and of 4.7 GHz.
    for (cores, at) in [("Efficiency", "1.36 GHz"), ("Performance", "1.88 GHz")] {
        gui.wait_for_log(
            &format!("limits row shows {cores} cores: Held at {at} by a thermal limit since "),
            Duration::from_secs(10),
        );
    }
    gui.screenshot("overview-limits-thermal");

    // The E-cores' row, the page scrolled to its end, below the banner the heat raised.
    gui.on_window(&["mousemove", "--window", "%1", "450", "538", "click", "1"])
        .status()
        .unwrap();
    gui.wait_for_log("limits details of ", Duration::from_secs(5));
    let log = gui.log();
    let details = log.split("limits details of ").nth(1).unwrap();
    let details = details.lines().next().unwrap();
    let (heading, links) = details.split_once(": Requested: ").unwrap();
    let held = "Efficiency cores held at 1.36 GHz by a thermal limit (cooling level 3 of 10)";
    assert!(heading.starts_with(&format!("{held} since ")), "{heading}");
    let links: Vec<&str> = links.split(" | ").collect();
    assert_eq!(
        links[..4],
        [
            "Up to 3.4 GHz, the hardware's highest",
            "Firmware: No limit: up to 3.4 GHz",
            // Neither a BIOS limit nor a platform profile on this laptop.
            "Platform: Unknown: the firmware offers no limit to read",
            "Thermal (holds): Cooling level 3 of 10: at most 1.36 GHz",
        ],
        "{links:?}"
    );
    assert!(links[4].starts_with("Power: ") && links[5].starts_with("Delivered: "));
    // The dialog is mapped a moment after it logs.
    sleep(Duration::from_millis(500));
    let title = heading.replace('(', "\\(").replace(')', "\\)");
    gui.screenshot_with_dialog(&title, "limits-details");
    gui.key("Escape");
    assert!(gui.alive());
}

/// The simulated machines of the chain as they come, their simulated kernel moving: the
/// laptop running hot names its thermal limit, the one with the lowered long-term power
/// limit its power limit once the package draws up to it. Held from the start, neither
/// knows since when.
#[test]
#[ignore = "needs a display, and root for fanotify: build-aux/test.sh --lane gui runs it"]
fn the_overview_names_the_limit_of_each_model() {
    for (model, rows, screenshot) in [
        (
            "intel-hybrid-thermal",
            [
                ("Efficiency cores", "Held at 1.36 GHz by a thermal limit"),
                ("Performance cores", "Held at 1.88 GHz by a thermal limit"),
            ],
            "overview-limits-thermal-model",
        ),
        (
            "intel-power-limit",
            [
                ("Efficiency cores", "Held at "),
                ("Performance cores", "Held at "),
            ],
            "overview-limits-power",
        ),
    ] {
        let (_laptop, gui) = common::healthy_machine_on(model, None);
        let limiter = if model == "intel-power-limit" {
            " by a power limit"
        } else {
            ""
        };
        for (cores, start) in rows {
            wait_for_row(&gui, cores, start, limiter);
        }
        scroll_to_limits(&gui);
        sleep(Duration::from_millis(500));
        gui.screenshot(screenshot);
        assert!(gui.alive(), "{model}: {}", gui.log());
    }
}

/// The Ryzen laptop whose resume brings the maximum of CPUs 4-7 and 12-15 back at 400 MHz:
/// read alone, a lowered maximum is a setting; heard by the helper to come back lower from
/// a sleep, the banner says so and the row names the platform, until the banner's Fix
/// restores the maximum through the helper.
#[test]
#[ignore = "needs a display, and root for fanotify: build-aux/test.sh --lane gui runs it"]
fn the_overview_names_a_clamp_after_resume() {
    let model = "amd-resume-clamp";
    let laptop = Laptop::start(model);
    let _logind = laptop.logind();
    let gui = Gui::start(
        &["--simulate", model, "--sysfs-root", laptop.root()],
        Some(laptop.bus.address()),
    );
    gui.wait_for_log("first frame drawn", Duration::from_secs(30));
    // The History page keeps a watch open: the helper records from here on.
    gui.wait_for_log("history shows: recording started", Duration::from_secs(20));
    wait_for_row(&gui, "Cores", "Nothing holds them back", "");

    laptop.sleep_through(|| laptop.pacerctl(&["simulate", "resume"]));
    gui.wait_for_log(
        "banner shows ClampedAfterResume|4-7,12-15|4900000|400000: \
         Highest frequency came back lower after sleep",
        Duration::from_secs(15),
    );
    wait_for_row(
        &gui,
        "Cores",
        "Held at 400 MHz by a platform limit since ",
        "",
    );
    scroll_to_limits(&gui);
    gui.screenshot("overview-limits-clamp");

    // Alt+F presses the most severe finding's Fix: the helper writes the maximum back.
    gui.key("alt+f");
    gui.wait_for_log("banner clears ClampedAfterResume|", Duration::from_secs(15));
    wait_for_row(&gui, "Cores", "Nothing holds them back", "");
    for policy in [4, 7, 12, 15] {
        let max = laptop.file(&format!(
            "sys/devices/system/cpu/cpufreq/policy{policy}/scaling_max_freq"
        ));
        assert_eq!(std::fs::read_to_string(max).unwrap(), "4900000\n");
    }
    assert!(gui.alive(), "{}", gui.log());
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! The tray item against real parts: Debian's `status-notifier-watcher` and python-dbusmock's
//! notification daemon on a private session bus, the real power-profiles-daemon and
//! pacer-helper on a private system bus, all on one simulated laptop, Pacer started with
//! `--background` (recording with the helper all the same: the tooltip names a cause).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

use common::{wait_until, Gui, Laptop};
use pacer_testrig::{Service, SystemBus, WATCHER};

/// The id of the menu entry labelled `label` in a `GetLayout` answer as gdbus prints it.
fn entry_id(layout: &str, label: &str) -> Option<String> {
    let at = layout.find(&format!("'label': <'{label}'>"))?;
    let start = layout[..at].rfind('(')?;
    let id: String = layout[start + 1..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    (!id.is_empty()).then_some(id)
}

/// A private session bus with Debian's `status-notifier-watcher` and python-dbusmock's
/// notification daemon on it, with the services that keep them running.
fn tray_session() -> (SystemBus, [Service; 2]) {
    let session = SystemBus::start();
    let on_session = |program: &str| {
        let mut command = Command::new(program);
        command.env("DBUS_SESSION_BUS_ADDRESS", session.address());
        command
    };
    let watcher = Service::spawn_command(
        "status-notifier-watcher",
        session.dir(),
        &mut on_session("status-notifier-watcher"),
    );
    session.wait_for_name(WATCHER, Duration::from_secs(10));
    let notifications = Service::spawn_command(
        "notification-daemon",
        session.dir(),
        on_session("/usr/bin/python3").args([
            "-m",
            "dbusmock",
            "--session",
            "--template",
            "notification_daemon",
        ]),
    );
    session.wait_for_name("org.freedesktop.Notifications", Duration::from_secs(10));
    (session, [watcher, notifications])
}

/// The tooltip of the item `service` registered on `session`.
fn tooltip(session: &SystemBus, service: &str) -> String {
    session
        .call(
            service,
            "/StatusNotifierItem",
            "org.freedesktop.DBus.Properties.Get",
            &["org.kde.StatusNotifierItem", "ToolTip"],
        )
        .unwrap_or_default()
}

#[test]
#[ignore = "needs a display, and root for fanotify: build-aux/test.sh --lane gui runs it"]
fn the_tray_switches_profiles_and_warns_once() {
    let laptop = Laptop::start("intel-hybrid");
    let system = &laptop.bus;

    let (session, _session_services) = tray_session();

    let root = laptop.root();
    let gui = Gui::start_on(
        &[
            "--background",
            "--simulate",
            "intel-hybrid",
            "--sysfs-root",
            root,
        ],
        Some(system.address()),
        Some(session.address()),
    );
    gui.wait_for_log("tray registered", Duration::from_secs(20));
    assert!(
        gui.on_window(&[]).output().unwrap().stdout.is_empty(),
        "--background shows no window"
    );

    // The watcher lists the item: "service/path" or the service alone.
    let items = session.status_notifier_items().unwrap();
    let item = items.first().expect("one registered item");
    let service = item.split('/').next().unwrap().to_owned();

    let menu_layout = || {
        session
            .call(
                &service,
                "/MenuBar",
                "com.canonical.dbusmenu.GetLayout",
                &["0", "@i -1", "@as []"],
            )
            .unwrap()
    };
    let layout = menu_layout();
    for label in [
        "Power Saver",
        "Balanced",
        "Performance",
        "Measure Ramp-Up",
        "Open Pacer",
        "Quit",
    ] {
        assert!(
            layout.contains(&format!("'label': <'{label}'>")),
            "{label} in {layout}"
        );
    }
    let icon = || {
        session
            .call(
                &service,
                "/StatusNotifierItem",
                "org.freedesktop.DBus.Properties.Get",
                &["org.kde.StatusNotifierItem", "IconName"],
            )
            .unwrap_or_default()
    };
    assert!(
        icon().contains("io.github.pacerapp.Pacer-balanced-symbolic"),
        "{}",
        icon()
    );

    // Performance from the menu: the real daemon switches.
    let performance = entry_id(&layout, "Performance").expect("the Performance entry's id");
    session
        .call(
            &service,
            "/MenuBar",
            "com.canonical.dbusmenu.Event",
            &[&performance, "clicked", "<0>", "0"],
        )
        .unwrap();
    wait_until(
        Duration::from_secs(10),
        "the profile follows the menu",
        || match system.profile() {
            Ok(profile) if profile == "performance" => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    wait_until(
        Duration::from_secs(10),
        "the icon follows the profile",
        || {
            let icon = icon();
            icon.contains("'io.github.pacerapp.Pacer-performance-symbolic'")
                .then_some(())
                .ok_or(icon)
        },
    );

    // Pacer keeps the helper recording while it runs, in the background too (the History
    // page's watch): the write below is named as the drift's cause only once the recording
    // runs. Under load it started after the write, and the tooltip never said why.
    gui.wait_for_log("history shows: recording started", Duration::from_secs(20));

    // The EPP drifts behind the daemon's back: the warning icon, and one notification.
    std::fs::write(
        laptop.file("sys/devices/system/cpu/cpufreq/policy4/energy_performance_preference"),
        "power\n",
    )
    .unwrap();
    wait_until(Duration::from_secs(15), "the icon warns", || {
        let icon = icon();
        icon.contains("performance-warning-symbolic")
            .then_some(())
            .ok_or(icon)
    });
    let tooltip = || tooltip(&session, &service);
    // The tooltip names the cause: this test's write, as the helper recorded it while Pacer
    // runs in the background.
    wait_until(Duration::from_secs(15), "the tooltip says why", || {
        let tooltip = tooltip();
        (tooltip.contains("⚠ EPP is not what Performance sets")
            && tooltip.contains("Why: at ")
            && tooltip.contains("EPP on policy 4: performance → power, by ")
            && tooltip.contains(&format!("(pid {}", std::process::id())))
        .then_some(())
        .ok_or(tooltip)
    });
    let notifications = || {
        session
            .call(
                "org.freedesktop.Notifications",
                "/org/freedesktop/Notifications",
                "org.freedesktop.DBus.Mock.GetCalls",
                &[],
            )
            .unwrap()
            .matches("'Notify'")
            .count()
    };
    wait_until(Duration::from_secs(10), "a notification", || {
        (notifications() == 1).then_some(()).ok_or(gui.log())
    });
    // Still there a few readings later: not announced again.
    sleep(Duration::from_secs(5));
    assert_eq!(notifications(), 1, "{}", gui.log());
    // Titled with the finding's one line; its body without the shell command of the
    // finding's fix (`powerprofilesctl set …`): its Fix is a button.
    let sent = session
        .call(
            "org.freedesktop.Notifications",
            "/org/freedesktop/Notifications",
            "org.freedesktop.DBus.Mock.GetCalls",
            &[],
        )
        .unwrap();
    assert!(
        sent.contains("'EPP is not what Performance sets'"),
        "{sent}"
    );
    for command in ["powerprofilesctl", "sudo", "echo "] {
        assert!(!sent.contains(command), "{sent}");
    }
    // The menu fixes it by the same line.
    assert!(
        entry_id(&menu_layout(), "Fix: EPP is not what Performance sets").is_some(),
        "{}",
        menu_layout()
    );

    // The notification's Fix (the server's ActionInvoked for the first notification): the
    // profile goes away and back, and the daemon writes the EPP again.
    session
        .call(
            "org.freedesktop.Notifications",
            "/org/freedesktop/Notifications",
            "org.freedesktop.DBus.Mock.EmitSignal",
            &[
                "org.freedesktop.Notifications",
                "ActionInvoked",
                "us",
                "[<uint32 1>, <'fix'>]",
            ],
        )
        .unwrap();
    let epp = laptop.file("sys/devices/system/cpu/cpufreq/policy4/energy_performance_preference");
    wait_until(
        Duration::from_secs(15),
        "the fix from the notification",
        || {
            let now = std::fs::read_to_string(&epp).unwrap();
            (now.trim_end() == "performance").then_some(()).ok_or(now)
        },
    );
    wait_until(Duration::from_secs(10), "the icon without warning", || {
        let icon = icon();
        icon.contains("'io.github.pacerapp.Pacer-performance-symbolic'")
            .then_some(())
            .ok_or(icon)
    });

    // "Open Pacer" shows the window; closing it keeps Pacer and its tray (started with
    // --background).
    // The findings came and went: the menu is not the one read first.
    let layout = menu_layout();
    let open = entry_id(&layout, "Open Pacer").expect("the Open Pacer entry's id");
    session
        .call(
            &service,
            "/MenuBar",
            "com.canonical.dbusmenu.Event",
            &[&open, "clicked", "<0>", "0"],
        )
        .unwrap();
    wait_until(Duration::from_secs(10), "the window opens", || {
        let windows = gui.on_window(&[]).output().unwrap().stdout;
        (!windows.is_empty()).then_some(()).ok_or_else(|| gui.log())
    });
    gui.key("ctrl+w");
    wait_until(Duration::from_secs(10), "the window closes", || {
        let windows = gui.on_window(&[]).output().unwrap().stdout;
        windows.is_empty().then_some(()).ok_or_else(|| gui.log())
    });
    sleep(Duration::from_secs(1));
    assert!(
        gui.alive(),
        "closing the window ended Pacer:\n{}",
        gui.log()
    );
    assert!(
        icon().contains("io.github.pacerapp.Pacer"),
        "the tray is still there"
    );

    // Turbo boost switched off behind Pacer's back: the tooltip names what holds the cores,
    // a line per core type; it said nothing of the kind while nothing held them.
    assert!(!tooltip().contains(" held at "), "{}", tooltip());
    std::fs::write(
        laptop.file("sys/devices/system/cpu/intel_pstate/no_turbo"),
        "1\n",
    )
    .unwrap();
    wait_until(
        Duration::from_secs(15),
        "the tooltip names the limit",
        || {
            let tooltip = tooltip();
            (tooltip.contains("Performance cores held at 2.1 GHz: turbo boost is off since ")
                && tooltip.contains("Efficiency cores held at 1.5 GHz: turbo boost is off since "))
            .then_some(())
            .ok_or(tooltip)
        },
    );
}

/// Pacer in the background on the simulated `model`, on a tray session of its own; once its
/// item is registered, `then` happens to the laptop (what it starts runs to the end), and
/// the item's tooltip must come to hold each of `lines`. In the background Pacer reads the
/// whole machine every 30 s only: what only a full reading shows may take that long.
fn tooltip_comes_to_say(
    model: &str,
    then: impl FnOnce(&Laptop) -> Option<Service>,
    lines: &[&str],
) {
    let laptop = Laptop::start(model);
    let _logind = laptop.logind();
    let (session, _session_services) = tray_session();
    let gui = Gui::start_on(
        &[
            "--background",
            "--simulate",
            model,
            "--sysfs-root",
            laptop.root(),
        ],
        Some(laptop.bus.address()),
        Some(session.address()),
    );
    gui.wait_for_log("tray registered", Duration::from_secs(20));
    let items = session.status_notifier_items().unwrap();
    let item = items.first().expect("one registered item");
    let service = item.split('/').next().unwrap().to_owned();
    let _started = then(&laptop);
    wait_until(
        Duration::from_secs(45),
        &format!("{model}: {lines:?}"),
        || {
            let tooltip = tooltip(&session, &service);
            lines
                .iter()
                .all(|line| tooltip.contains(line))
                .then_some(())
                .ok_or(tooltip)
        },
    );
    assert!(gui.alive(), "{}", gui.log());
}

/// On the laptop running hot, the tooltip names the thermal limit holding each core type,
/// as soon as Pacer runs in the background.
#[test]
#[ignore = "needs a display, and root for fanotify: build-aux/test.sh --lane gui runs it"]
fn the_tooltip_names_a_thermal_limit() {
    tooltip_comes_to_say(
        "intel-hybrid-thermal",
        |_| None,
        &[
            "Performance cores held at 1.88 GHz by a thermal limit (cooling level 3 of 10)",
            "Efficiency cores held at 1.36 GHz by a thermal limit (cooling level 3 of 10)",
        ],
    );
}

/// On the laptop with its long-term power limit far below the default, the tooltip names
/// the power limit once the package draws up to it. Pacer keeps a simulated machine still
/// while only its tray shows it: `pacerctl simulate run` moves the energy counter instead,
/// as the machine's own load would.
#[test]
#[ignore = "needs a display, and root for fanotify: build-aux/test.sh --lane gui runs it"]
fn the_tooltip_names_a_power_limit() {
    let model = "intel-power-limit";
    tooltip_comes_to_say(
        model,
        |laptop| {
            let mut run = laptop
                .bus
                .command(pacer_testrig::workspace_binary("pacerctl"));
            run.args(["simulate", "run", model, "--sysfs-root", laptop.root()]);
            Some(Service::spawn_command(
                "simulation",
                laptop.bus.dir(),
                &mut run,
            ))
        },
        &[
            "Performance cores held at ",
            "Efficiency cores held at ",
            " by a power limit",
        ],
    );
}

/// On the Ryzen laptop whose resume clamps the maximum of CPUs 4-7 and 12-15, the tooltip
/// names the platform once the helper has heard the machine sleep and wake around it.
#[test]
#[ignore = "needs a display, and root for fanotify: build-aux/test.sh --lane gui runs it"]
fn the_tooltip_names_a_clamp_after_resume() {
    tooltip_comes_to_say(
        "amd-resume-clamp",
        |laptop| {
            laptop.sleep_through(|| laptop.pacerctl(&["simulate", "resume"]));
            None
        },
        &["Cores held at 400 MHz by a platform limit since "],
    );
}

/// Without a watcher or a notification server, each says so in one line and the window works.
#[test]
#[ignore = "needs a display: build-aux/test.sh --lane gui runs it"]
fn without_watcher_or_notification_server_one_line_each() {
    let session = SystemBus::start();
    let gui = Gui::start_on(
        &["--simulate", "intel-hybrid"],
        None,
        Some(session.address()),
    );
    gui.wait_for_log("first frame drawn", Duration::from_secs(20));
    gui.wait_for_log("tray item not shown", Duration::from_secs(10));
    gui.wait_for_log("no desktop notifications", Duration::from_secs(10));
    sleep(Duration::from_secs(3));
    let log = gui.log();
    assert_eq!(log.matches("tray item not shown").count(), 1, "{log}");
    assert_eq!(log.matches("no desktop notifications").count(), 1, "{log}");
    gui.screenshot("without-tray");
}

/// The autostart entry (installed for every user) starts nothing unless the user asked for
/// Pacer in the background.
#[test]
fn autostart_quits_unless_run_in_background_is_on() {
    let started = Instant::now();
    let status = Command::new(common::PACER)
        .args(["--background", "--autostart"])
        .env("GSETTINGS_BACKEND", "memory")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .status()
        .unwrap();
    assert!(status.success());
    assert!(started.elapsed() < Duration::from_secs(5));
}

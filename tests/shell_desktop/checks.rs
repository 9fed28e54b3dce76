// SPDX-License-Identifier: GPL-3.0-or-later
//! The checks of Pacer in a real GNOME Shell, each for the shell it is given: the test files
//! of each shell (tests/gnome_shell.rs, tests/gnome_shell_48.rs) run them.
//!
//! Longer than most files: each check drives a whole desktop (shell, Pacer, daemon) through
//! several steps.

use std::process::Command;
use std::thread::sleep;
use std::time::Duration;

use super::*;
use crate::common::{wait_until, Laptop};
use pacer_testrig::gnome_shell::{js_string, Shell};
use pacer_testrig::Service;

/// Quick Settings has one power toggle, GNOME's own, extended: it shows the daemon's profile
/// and switches it; its menu gains each core type's EPP and governor in words; the
/// EPP-restore scenario (`docs/kernel.md` 2.4) shows as the warning in the toggle and on the
/// panel icon, and in the menu as one line whose click opens Pacer's window and whose Fix
/// clears it; turbo boost switched off, the menu says what holds each core type back; its
/// words are never cut.
pub fn the_toggle_follows_the_daemon_switches_it_and_fixes_the_mismatch(which: Shell) {
    let laptop = Laptop::start_for(which, "intel-hybrid");
    let extension = tempfile::tempdir().unwrap();
    let shell = shell_on(which, &laptop, extension.path(), true);
    let mut monitor = Command::new("dbus-monitor");
    monitor.args(["--address", shell.session().address()]);
    let _monitor = Service::spawn_command("monitor", shell.dir(), &mut monitor);
    sleep(Duration::from_millis(500));
    let _pacer = start_pacer(&shell, &laptop);

    let balanced = gnome_toggle_text(which, "Balanced", None);
    wait_for_toggle(
        &shell,
        "the toggle shows the daemon's profile",
        |title, subtitle| (title, subtitle) == (&balanced.0, &balanced.1),
    );
    assert_eq!(
        shell.eval(&format!("{EXTENSION}.extendsGnome")),
        Ok(true.into()),
        "GNOME's own power toggle is the one shown"
    );
    assert_eq!(
        shell.eval(&format!("{EXTENSION}._ownToggle.visible")),
        Ok(false.into()),
        "Pacer adds no second one"
    );
    assert_toggle_fits(&shell);
    shell.wait_for(
        "the extension shows Pacer's state",
        LIMIT,
        &format!("{EXTENSION}.view.coreTypes.length > 0"),
    );
    assert_eq!(
        panel_icon(&shell),
        "io.github.pacerapp.Pacer-balanced-symbolic.svg"
    );
    let in_grid = shell
        .eval(&format!(
            "Main.panel.statusArea.quickSettings.menu._grid.get_children().includes({EXTENSION}.toggle)"
        ))
        .unwrap();
    assert_eq!(in_grid, true, "the toggle is in Quick Settings' grid");

    // Its menu: the daemon's profiles; choosing Performance switches the real daemon.
    let menu = open_toggle_menu(&shell);
    click(&shell, &menu_item(&menu, "Performance"));
    wait_for_profile(&laptop, "the daemon switches", "performance");
    let performance = gnome_toggle_text(which, "Performance", None);
    wait_for_toggle(&shell, "the toggle follows", |title, subtitle| {
        (title, subtitle) == (&performance.0, &performance.1)
    });
    assert_eq!(
        panel_icon(&shell),
        "io.github.pacerapp.Pacer-performance-symbolic.svg"
    );

    // While the menu is open, Pacer samples for it: each core type's frequency shows.
    open_toggle_menu(&shell);
    shell.wait_for(
        "the menu shows each core type's frequency",
        LIMIT,
        &format!(
            "{EXTENSION}.view.coreTypes.length === 2 && \
             {EXTENSION}.view.coreTypes.every(type => type.frequency.endsWith('GHz'))"
        ),
    );

    // The menu's items show them, and stay the same items as they change (a menu made
    // anew every second would lose the keyboard's place).
    let detail = "item => item._value && item.value.endsWith('GHz')";
    let items = menu_items(&menu);
    shell
        .eval(&format!(
            "global._pacerCoreItem = {items}.find({detail}); true"
        ))
        .unwrap();
    sleep(Duration::from_millis(2500));
    let kept = shell
        .eval(&format!(
            "{items}.includes(global._pacerCoreItem) && \
             global._pacerCoreItem.value.endsWith('GHz')"
        ))
        .unwrap();
    assert_eq!(
        kept, true,
        "the core type's item is kept and shows its frequency"
    );
    // Their settings in words, the kernel's tokens left to Pacer's window and pacerctl.
    let details = shell
        .eval(&format!(
            "{items}.filter({detail}).map(item => [item.titleLabel.text, item._detail.text])"
        ))
        .unwrap();
    let settings = "Performance · Power saving governor";
    assert_eq!(
        details,
        serde_json::json!([
            ["Performance cores", settings],
            ["Efficiency cores", settings]
        ])
    );
    // The menu of a machine in good health, as the README shows it.
    screenshot(&shell, "quick-settings");

    // Back to Balanced, where the EPP-restore scenario starts.
    click(&shell, &menu_item(&menu, "Balanced"));
    wait_for_profile(&laptop, "the daemon switches back", "balanced");
    wait_for_toggle(&shell, "the toggle follows back", |title, subtitle| {
        (title, subtitle) == (&balanced.0, &balanced.1)
    });

    // The EPP-restore scenario, behind the daemon's back: governor to performance, profile
    // to performance, governor back to powersave.
    let pacerctl = |args: &[&str]| {
        let output = laptop
            .bus
            .command(pacer_testrig::workspace_binary("pacerctl"))
            .args(args)
            .args(["--sysfs-root", laptop.root()])
            .output()
            .unwrap();
        assert!(output.status.success(), "pacerctl {args:?}");
    };
    pacerctl(&["set", "governor", "performance"]);
    laptop.bus.set_profile("performance").unwrap();
    pacerctl(&["set", "governor", "powersave"]);
    let warned = gnome_toggle_text(which, "Performance", Some("EPP differs"));
    wait_for_toggle(&shell, "the toggle warns", |title, subtitle| {
        (title, subtitle) == (&warned.0, &warned.1)
    });
    assert_toggle_fits(&shell);
    assert_eq!(
        panel_icon(&shell),
        "io.github.pacerapp.Pacer-performance-warning-symbolic.svg"
    );
    assert_eq!(
        toggle_icon(&shell),
        "io.github.pacerapp.Pacer-performance-warning-symbolic.svg",
        "the toggle carries the warning too"
    );
    // Policy by policy as the governors come back: the finding covers all 16 at last.
    let findings = shell.wait_for(
        "the finding covers every policy",
        LIMIT,
        &format!(
            "(() => {{ const findings = {EXTENSION}.view.findings.map(f => [f.key, f.fixable]); \
             return findings.length === 1 && findings[0][0].endsWith(',15') ? findings : null; }})()"
        ),
    );
    let key = findings[0][0].as_str().unwrap().to_owned();
    assert!(key.starts_with("epp-mismatch@"), "{findings}");
    assert_eq!(findings[0][1], true, "{findings}");

    // In the menu, the warning in one line of words, whole, with its Fix.
    open_toggle_menu(&shell);
    let warning = format!(
        "{items}.find(item => item.finding && item.finding.key === {})",
        js_string(&key)
    );
    let line = shell.wait_for(
        "the menu shows the warning",
        LIMIT,
        &format!(
            "(item => item && item.mapped ? {{text: item.titleLabel.text, \
             lines: item.titleLabel.clutter_text.get_layout().get_line_count(), \
             cut: item.titleLabel.clutter_text.get_layout().is_ellipsized(), \
             action: item.actionButton ? item.actionButton.label : null}} : null)({warning})"
        ),
    );
    // Taken first: a failure below has it to look at.
    screenshot(&shell, "quick-settings-warning");
    assert_eq!(
        line,
        serde_json::json!({
            "text": "EPP is not what Performance sets",
            "lines": 1,
            "cut": false,
            "action": "Fix",
        })
    );

    // A click on the line opens Pacer's window, for its details.
    assert!(!pacer_window_shown(&shell), "no window before the click");
    click(&shell, &format!("{warning}.titleLabel"));
    wait_until(LIMIT, "Pacer's window opens", || {
        pacer_window_shown(&shell)
            .then_some(())
            .ok_or_else(|| "no window shown".to_owned())
    });
    let epp = laptop.file("sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference");
    assert_eq!(
        std::fs::read_to_string(&epp).unwrap().trim_end(),
        "balance_performance",
        "the click fixed nothing"
    );

    // Its Fix.
    open_toggle_menu(&shell);
    click(&shell, &format!("{warning}.actionButton"));
    wait_until(LIMIT, "the fix", || {
        let now = std::fs::read_to_string(&epp).unwrap();
        (now.trim_end() == "performance").then_some(()).ok_or(now)
    });
    wait_for_toggle(&shell, "the warning clears", |title, subtitle| {
        (title, subtitle) == (&performance.0, &performance.1)
    });
    assert_eq!(toggle_icon(&shell), "power-profile-performance-symbolic");
    assert_eq!(
        panel_icon(&shell),
        "io.github.pacerapp.Pacer-performance-symbolic.svg"
    );

    // A click on the toggle itself: Balanced, and back to the profile before it.
    for (profile, shown) in [("balanced", &balanced), ("performance", &performance)] {
        open_quick_settings(&shell);
        if shell.eval(&format!("{menu}.isOpen")) == Ok(true.into()) {
            shell.eval(&format!("{menu}.close(); true")).unwrap();
        }
        click(&shell, &format!("{EXTENSION}.toggle"));
        wait_for_profile(&laptop, "the toggle switches", profile);
        wait_for_toggle(&shell, "the toggle follows its click", |title, subtitle| {
            (title, subtitle) == (&shown.0, &shown.1)
        });
    }

    // Turbo boost switched off behind Pacer's back: the menu names what holds each core
    // type, in a line of words that wraps rather than being cut.
    let limits = format!("{EXTENSION}.view.limits");
    assert_eq!(shell.eval(&format!("{limits}.length")), Ok(0.into()));
    std::fs::write(
        laptop.file("sys/devices/system/cpu/intel_pstate/no_turbo"),
        "1\n",
    )
    .unwrap();
    let lines = shell.wait_for(
        "the extension names the limits",
        LIMIT,
        &format!("{limits}.length === 2 ? {limits}.map(limit => limit.line) : null"),
    );
    open_toggle_menu(&shell);
    for line in lines.as_array().unwrap() {
        let line = line.as_str().unwrap();
        assert!(
            line.contains(" held at ") && line.contains("turbo boost is off"),
            "{line}"
        );
        wait_for_menu_item(&shell, &menu, line);
        let cut = shell
            .eval(&format!(
                "{}.label.clutter_text.get_layout().is_ellipsized()",
                menu_item(&menu, line)
            ))
            .unwrap();
        assert_eq!(cut, false, "{line} is cut");
    }
    assert!(
        lines[0]
            .as_str()
            .unwrap()
            .starts_with("Performance cores held at 2.1 GHz: turbo boost is off"),
        "{lines}"
    );
    screenshot(&shell, "quick-settings-limit");
    assert_clean_log(&shell);
}

/// Without Pacer, the power toggle's menu offers to start it (D-Bus activation, the session
/// service file); killed, the menu offers it again and the shell stays healthy. Disabled, the
/// extension leaves GNOME's toggle as GNOME made it; without a profile daemon GNOME shows
/// none, and Pacer's own toggle stands in its place.
pub fn the_toggle_starts_pacer_and_says_when_it_is_gone(which: Shell) {
    let mut laptop = Laptop::start_for(which, "intel-hybrid");
    let extension = tempfile::tempdir().unwrap();
    let shell = shell_on(which, &laptop, extension.path(), true);
    let name = pacer::app::config::APP_ID;
    let balanced = gnome_toggle_text(which, "Balanced", None);

    wait_for_toggle(
        &shell,
        "GNOME's toggle shows the profile",
        |title, subtitle| (title, subtitle) == (&balanced.0, &balanced.1),
    );
    assert_eq!(panel_icon(&shell), "", "no panel icon without Pacer");
    assert!(
        !shell.session().has_owner(name),
        "nothing started Pacer yet"
    );
    let menu = open_toggle_menu(&shell);
    click(&shell, &menu_item(&menu, "Start Pacer"));
    shell.session().wait_for_name(name, LIMIT);
    // The click closed the menu.
    open_toggle_menu(&shell);
    wait_for_menu_item(&shell, &menu, "Open Pacer");
    assert_eq!(
        laptop.bus.profile().unwrap(),
        "balanced",
        "starting Pacer switches nothing"
    );

    // Killed while the AppIndicator extension still reads the new tray item, the extension
    // logs the missing reply; a user's Pacer is gone long after its item settled.
    wait_for_tray_menu(&shell, "the started Pacer's tray item settles");
    let owner = shell
        .session()
        .call(
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.GetConnectionUnixProcessID",
            &[name],
        )
        .unwrap();
    let pid = owner
        .trim_matches(|c: char| !c.is_ascii_digit())
        .rsplit(' ')
        .next()
        .unwrap()
        .to_owned();
    let status = Command::new("kill").args(["-KILL", &pid]).status().unwrap();
    assert!(status.success(), "kill {pid} ({owner})");
    // The menu offers to start it again, and the shell answers as before.
    wait_for_menu_item(&shell, &menu, "Start Pacer");
    assert_eq!(panel_icon(&shell), "");
    assert_eq!(
        toggle_text(&shell),
        balanced,
        "GNOME's words while Pacer is gone"
    );
    assert_eq!(shell.eval("1 + 1"), Ok(2.into()));

    // Disabled: GNOME's toggle as GNOME made it, its menu GNOME's own.
    let gnome = "Main.panel.statusArea.quickSettings._powerProfiles.quickSettingsItems[0]";
    let switch = |how: &str| {
        shell
            .eval(&format!(
                "Main.extensionManager.{how}Extension('{UUID}'), true"
            ))
            .unwrap();
        let state = if how == "enable" { 1 } else { 2 };
        shell.wait_for(
            &format!("the extension's {how}d"),
            LIMIT,
            &format!("Main.extensionManager.lookup('{UUID}').state === {state}"),
        );
    };
    switch("disable");
    let restored = shell
        .eval(&format!(
            "(toggle => ({{own: Object.keys(toggle).includes('_sync'), \
             title: toggle._label ? toggle._label.get_parent() === toggle._box : null, \
             icon: (toggle._box.get_children().find(child => child._icon) ?? toggle)._icon \
             .icon_name, labels: {}.filter(label => label)}}))({gnome})",
            menu_labels(&format!("{gnome}.menu"))
        ))
        .unwrap();
    let mut labels = vec!["Performance", "Balanced", "Power Saver"];
    if which != Shell::Host43 {
        labels.push("Power Settings");
    }
    assert_eq!(
        restored,
        serde_json::json!({
            "own": false,
            // 43 draws the title in its box, 44 and later in a box of title and subtitle.
            "title": if which == Shell::Host43 { Some(true) } else { None },
            "icon": "power-profile-balanced-symbolic",
            "labels": labels,
        }),
        "GNOME's toggle untouched"
    );

    // Enabled again, on a machine without a profile daemon: Pacer's own toggle.
    switch("enable");
    laptop.stop_profile_daemon();
    wait_for_toggle(&shell, "Pacer's toggle stands in", |title, subtitle| {
        title == "Pacer" && subtitle == "Not running"
    });
    assert_eq!(
        shell.eval(&format!("[{EXTENSION}.extendsGnome, {gnome}.visible]")),
        Ok(serde_json::json!([false, false])),
        "GNOME's toggle is hidden, and so one toggle shows"
    );
    assert_toggle_fits(&shell);
    assert_clean_log(&shell);
}

/// The tray item, through Debian's AppIndicator extension, appears in the top bar on every
/// start, Pacer started before the shell or after it; its menu opens and switches the
/// profile; the shell's log stays clean.
pub fn the_tray_item_appears_in_the_top_bar_on_every_start(which: Shell) {
    let laptop = Laptop::start_for(which, "intel-hybrid");
    let unused = tempfile::tempdir().unwrap();
    // The AppIndicator extension's button for Pacer's item.
    let item = &tray_button();
    let mut shown = 0;
    for start in 0..10 {
        let before = start % 2 == 0;
        let (shell, _pacer) = if before {
            let first = (
                pacer_command(&laptop),
                pacer::app::config::APP_ID.to_owned(),
            );
            (
                shell_after(which, &laptop, unused.path(), false, Some(first)),
                None,
            )
        } else {
            let shell = shell_on(which, &laptop, unused.path(), false);
            let pacer = start_pacer(&shell, &laptop);
            (shell, Some(pacer))
        };
        let visible = shell.wait_for(
            &format!("start {start} (Pacer {}): the tray item in the top bar", if before { "first" } else { "second" }),
            LIMIT,
            &format!("(() => {{ const button = {item}; return button && button.visible && button.mapped; }})()"),
        );
        assert_eq!(visible, true);
        shown += 1;
        if start == 0 || start == 9 {
            let menu = format!("{item}.menu");
            let wanted = if start == 0 {
                "Performance"
            } else {
                "Balanced"
            };
            // The menu's items come over D-Bus after the item shows; the AppIndicator
            // extension of 48 ignores a click on the item until its menu has items, and asks
            // for their labels once it opens.
            shell.wait_for(
                "the tray menu has its items",
                LIMIT,
                &format!("{menu}.numMenuItems > 0"),
            );
            click(&shell, item);
            shell.wait_for("the tray menu opens", LIMIT, &format!("{menu}.isOpen"));
            wait_for_menu_item(&shell, &menu, wanted);
            if start == 9 {
                screenshot(&shell, "tray");
            }
            click(&shell, &menu_item(&menu, wanted));
            let profile = wanted.to_lowercase();
            wait_for_profile(&laptop, "the daemon switches from the tray", &profile);
            // The item's icon follows (the tray's icon change, logged by no one): the
            // AppIndicator extension's icon is [name, …] in 43, {name, …} in 48.
            shell.wait_for(
                "the tray icon follows",
                LIMIT,
                &format!(
                    "(icon => icon.name ?? icon[0])({item}._indicator.icon) === \
                     'io.github.pacerapp.Pacer-{profile}-symbolic'"
                ),
            );
            // Drawn: an icon the extension could not find leaves its loading placeholder
            // ("•••"), a null gicon.
            shell.wait_for(
                "the tray draws Pacer's icon",
                LIMIT,
                &format!("{item}._icon.gicon !== null"),
            );
        }
        assert_clean_log(&shell);
    }
    assert_eq!(shown, 10);
}

/// Waits until the real daemon on `laptop` has `profile` active.
fn wait_for_profile(laptop: &Laptop, what: &str, profile: &str) {
    wait_until(LIMIT, what, || match laptop.bus.profile() {
        Ok(now) if now == profile => Ok(()),
        other => Err(format!("{other:?}")),
    });
}

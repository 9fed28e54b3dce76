// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer in a real GNOME Shell (Debian's 43.9, on Xvfb): its Quick Settings extension as
//! `shell-extension/build.py` builds it for 43, and its tray item through Debian's
//! AppIndicator extension. The machine is one simulated laptop with the real
//! power-profiles-daemon, polkit's stand-in and pacer-helper on a private system bus; Pacer
//! runs on the shell's session bus, started by hand or by D-Bus activation. Clicks are real
//! pointer clicks (xdotool) at the actors' places; what the shell shows is read from its
//! actors through the test probe extension.
//!
//! Longer than most files: each test drives a whole desktop (shell, Pacer, daemon) through
//! several steps, with the helpers that find, click and read the shell's actors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Command;
use std::thread::sleep;
use std::time::Duration;

use common::{screenshot_dir, wait_until, Laptop, PACER};
use pacer_testrig::gnome_shell::{
    build_extension, js_string, GnomeShell, ShellSetup, APPINDICATOR,
};
use pacer_testrig::Service;

const UUID: &str = "pacer@pacerapp.github.io";
/// Pacer's extension inside the shell (the object its legacy entry point made).
const EXTENSION: &str = "Main.extensionManager.lookup('pacer@pacerapp.github.io').stateObj._pacer";
const LIMIT: Duration = Duration::from_secs(20);

/// What Pacer, started by hand or by the session bus, needs besides the shell's variables.
fn pacer_env(laptop: &Laptop) -> Vec<(String, String)> {
    [
        ("PACER_SYSFS_ROOT", laptop.root()),
        ("GSETTINGS_BACKEND", "memory"),
        ("GSK_RENDERER", "cairo"),
        ("G_MESSAGES_DEBUG", "pacer"),
        ("LC_ALL", "C.UTF-8"),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value.to_owned()))
    .collect()
}

/// The session service file meson installs, pointed at this build's binary.
fn session_service() -> (String, String) {
    let template = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/io.github.pacerapp.Pacer.service.in"
    ))
    .unwrap();
    let bindir = Path::new(PACER).parent().unwrap().to_str().unwrap();
    let text = template
        .replace("@APP_ID@", pacer::app::config::APP_ID)
        .replace("@BINDIR@", bindir);
    (pacer::app::config::APP_ID.to_owned(), text)
}

/// A shell on `laptop` with Pacer's extension (when `with_pacer`) and the AppIndicator one.
fn shell_on(laptop: &Laptop, extension_dir: &Path, with_pacer: bool) -> GnomeShell {
    shell_after(laptop, extension_dir, with_pacer, None)
}

/// The same, with `first` started before the shell.
fn shell_after(
    laptop: &Laptop,
    extension_dir: &Path,
    with_pacer: bool,
    first: Option<(Command, String)>,
) -> GnomeShell {
    let mut setup = ShellSetup {
        enabled: vec![APPINDICATOR.to_owned()],
        system_bus: laptop.bus.address().to_owned(),
        session_services: vec![session_service()],
        service_env: pacer_env(laptop),
        first,
        ..ShellSetup::default()
    };
    if with_pacer {
        setup.extensions.push(build_extension(
            "legacy",
            pacer::app::config::APP_ID,
            extension_dir,
        ));
        setup.enabled.push(UUID.to_owned());
    }
    GnomeShell::start(setup)
}

/// `pacer --background` with what it needs besides the shell's variables.
fn pacer_command(laptop: &Laptop) -> Command {
    let mut command = Command::new(PACER);
    command.arg("--background").envs(pacer_env(laptop));
    command
}

/// Pacer in the background on the shell's session bus and display.
fn start_pacer(shell: &GnomeShell, laptop: &Laptop) -> Service {
    let mut command = pacer_command(laptop);
    shell.client(&mut command);
    let pacer = Service::spawn_command("pacer", shell.dir(), &mut command);
    shell
        .session()
        .wait_for_name(pacer::app::config::APP_ID, Duration::from_secs(20));
    pacer
}

/// A real click at the middle of the actor `actor` (JavaScript) names.
fn click(shell: &GnomeShell, actor: &str) {
    let place = shell.wait_for(
        &format!("{actor} is shown"),
        LIMIT,
        &format!(
            "(() => {{ const actor = {actor}; if (!actor || !actor.mapped) return null; \
             const [x, y] = actor.get_transformed_position(); \
             const [width, height] = actor.get_transformed_size(); \
             return [Math.round(x + width / 2), Math.round(y + height / 2)]; }})()"
        ),
    );
    let (x, y) = (place[0].to_string(), place[1].to_string());
    let status = Command::new("xdotool")
        .envs(shell.env())
        .args(["mousemove", &x, &y, "click", "1"])
        .status()
        .unwrap();
    assert!(status.success(), "xdotool clicks");
    // Clutter handles the click at its next frame.
    sleep(Duration::from_millis(300));
}

/// The item of a menu (JavaScript) whose label is `label`.
fn menu_item(menu: &str, label: &str) -> String {
    format!(
        "{menu}._getMenuItems().find(item => item.label && item.label.text === {})",
        js_string(label)
    )
}

/// The toggle's title and subtitle as its labels show them.
fn toggle_text(shell: &GnomeShell) -> (String, String) {
    let text = shell.eval(&format!("{EXTENSION}.toggle.text")).unwrap();
    (
        text[0].as_str().unwrap_or_default().to_owned(),
        text[1].as_str().unwrap_or_default().to_owned(),
    )
}

fn wait_for_toggle(shell: &GnomeShell, what: &str, check: impl Fn(&str, &str) -> bool) {
    wait_until(LIMIT, what, || {
        let (title, subtitle) = toggle_text(shell);
        check(&title, &subtitle).then_some(()).ok_or_else(|| {
            // Only from a running Pacer: a call would start one.
            let state = shell
                .session()
                .has_owner(pacer::app::config::APP_ID)
                .then(|| {
                    shell.session().call(
                        pacer::app::config::APP_ID,
                        "/io/github/pacerapp/Pacer",
                        "org.freedesktop.DBus.Properties.GetAll",
                        &["io.github.pacerapp.Pacer.State1"],
                    )
                });
            format!("{title:?} / {subtitle:?}\nState1: {state:?}")
        })
    });
}

/// The file name of the panel icon Pacer's extension shows, or null while hidden.
fn panel_icon(shell: &GnomeShell) -> String {
    let icon = shell
        .eval(&format!(
            "(() => {{ const icon = {EXTENSION}.icon; \
             return icon.visible && icon.gicon ? icon.gicon.get_file().get_basename() : ''; }})()"
        ))
        .unwrap();
    icon.as_str().unwrap_or_default().to_owned()
}

fn open_quick_settings(shell: &GnomeShell) {
    let open = "Main.panel.statusArea.quickSettings.menu.isOpen";
    if shell.eval(open) == Ok(true.into()) {
        return;
    }
    click(shell, "Main.panel.statusArea.quickSettings");
    shell.wait_for("Quick Settings opens", LIMIT, open);
}

/// Opens Quick Settings and the menu of Pacer's toggle, as a user does; the menu (JavaScript).
fn open_toggle_menu(shell: &GnomeShell) -> String {
    let menu = format!("{EXTENSION}.toggle.menu");
    if shell.eval(&format!("{menu}.isOpen")) != Ok(true.into()) {
        open_quick_settings(shell);
        click(shell, &format!("{EXTENSION}.toggle._menuButton"));
        shell.wait_for("the toggle's menu opens", LIMIT, &format!("{menu}.isOpen"));
    }
    menu
}

fn assert_clean_log(shell: &GnomeShell) {
    let errors = shell.errors();
    assert!(
        errors.is_empty(),
        "the shell's log has errors:\n{}",
        errors.join("\n")
    );
}

/// The toggle shows the daemon's profile and switches it; the EPP-restore scenario
/// (`docs/kernel.md` 2.4) shows as the warning in the toggle and on the panel icon, and Fix
/// in the menu clears it.
#[test]
#[ignore = "needs GNOME Shell 43: build-aux/test.sh --lane shell-43 runs it"]
fn the_toggle_follows_the_daemon_switches_it_and_fixes_the_mismatch() {
    let laptop = Laptop::start("intel-hybrid");
    let extension = tempfile::tempdir().unwrap();
    let shell = shell_on(&laptop, extension.path(), true);
    let mut monitor = Command::new("dbus-monitor");
    monitor.args(["--address", shell.session().address()]);
    let _monitor = Service::spawn_command("monitor", shell.dir(), &mut monitor);
    sleep(Duration::from_millis(500));
    let _pacer = start_pacer(&shell, &laptop);

    wait_for_toggle(
        &shell,
        "the toggle shows the daemon's profile",
        |title, subtitle| title == "Balanced" && subtitle.starts_with("EPP "),
    );
    let (_, subtitle) = toggle_text(&shell);
    assert_eq!(
        subtitle, "EPP balance_performance",
        "per core type, alike here"
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
    wait_until(LIMIT, "the daemon switches", || {
        match laptop.bus.profile() {
            Ok(profile) if profile == "performance" => Ok(()),
            other => Err(format!("{other:?}")),
        }
    });
    wait_for_toggle(&shell, "the toggle follows", |title, _| {
        title == "Performance"
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
    let detail = "item => item._detail && item._detail.text.endsWith('GHz')";
    shell
        .eval(&format!(
            "global._pacerCoreItem = {menu}._getMenuItems().find({detail}); true"
        ))
        .unwrap();
    sleep(Duration::from_millis(2500));
    let kept = shell
        .eval(&format!(
            "{menu}._getMenuItems().includes(global._pacerCoreItem) && \
             global._pacerCoreItem._detail.text.endsWith('GHz')"
        ))
        .unwrap();
    assert_eq!(
        kept, true,
        "the core type's item is kept and shows its frequency"
    );

    // Back to Balanced, where the EPP-restore scenario starts.
    click(&shell, &menu_item(&menu, "Balanced"));
    wait_until(LIMIT, "the daemon switches back", || {
        match laptop.bus.profile() {
            Ok(profile) if profile == "balanced" => Ok(()),
            other => Err(format!("{other:?}")),
        }
    });
    wait_for_toggle(&shell, "the toggle follows back", |title, subtitle| {
        title == "Balanced" && subtitle == "EPP balance_performance"
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
    wait_for_toggle(&shell, "the toggle warns", |title, subtitle| {
        // The warning's summary instead of the EPP.
        title == "Performance" && subtitle.ends_with("but the performance profile sets performance")
    });
    assert_eq!(
        panel_icon(&shell),
        "io.github.pacerapp.Pacer-performance-warning-symbolic.svg"
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

    // Fix, in the menu.
    open_toggle_menu(&shell);
    shell.screenshot(&screenshot_dir().join("gnome-quick-settings.png"));
    click(
        &shell,
        &format!(
            "{menu}._getMenuItems().find(item => item.finding && item.finding.key === {})",
            js_string(&key)
        ),
    );
    let epp = laptop.file("sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference");
    wait_until(LIMIT, "the fix", || {
        let now = std::fs::read_to_string(&epp).unwrap();
        (now.trim_end() == "performance").then_some(()).ok_or(now)
    });
    wait_for_toggle(&shell, "the warning clears", |title, subtitle| {
        title == "Performance" && subtitle == "EPP performance"
    });
    assert_eq!(
        panel_icon(&shell),
        "io.github.pacerapp.Pacer-performance-symbolic.svg"
    );

    // A click on the toggle itself: Balanced, and back to the profile before it.
    for (profile, title) in [("balanced", "Balanced"), ("performance", "Performance")] {
        open_quick_settings(&shell);
        if shell.eval(&format!("{menu}.isOpen")) == Ok(true.into()) {
            shell.eval(&format!("{menu}.close(); true")).unwrap();
        }
        click(&shell, &format!("{EXTENSION}.toggle"));
        wait_until(LIMIT, "the toggle switches", || {
            match laptop.bus.profile() {
                Ok(now) if now == profile => Ok(()),
                other => Err(format!("{other:?}")),
            }
        });
        wait_for_toggle(&shell, "the toggle follows its click", |now, _| {
            now == title
        });
    }
    assert_clean_log(&shell);
}

/// Without Pacer the toggle says so, and a click starts it by D-Bus activation (the session
/// service file); killed, the toggle says so again and the shell stays healthy.
#[test]
#[ignore = "needs GNOME Shell 43: build-aux/test.sh --lane shell-43 runs it"]
fn the_toggle_starts_pacer_and_says_when_it_is_gone() {
    let laptop = Laptop::start("intel-hybrid");
    let extension = tempfile::tempdir().unwrap();
    let shell = shell_on(&laptop, extension.path(), true);
    let name = pacer::app::config::APP_ID;

    wait_for_toggle(
        &shell,
        "the toggle says Pacer is not running",
        |title, subtitle| title == "Pacer" && subtitle == "Not running",
    );
    assert_eq!(panel_icon(&shell), "", "no panel icon without Pacer");
    assert!(
        !shell.session().has_owner(name),
        "nothing started Pacer yet"
    );
    open_quick_settings(&shell);
    click(&shell, &format!("{EXTENSION}.toggle"));
    shell.session().wait_for_name(name, LIMIT);
    wait_for_toggle(
        &shell,
        "the started Pacer shows the profile",
        |title, subtitle| title == "Balanced" && subtitle == "EPP balance_performance",
    );
    assert_eq!(
        laptop.bus.profile().unwrap(),
        "balanced",
        "starting Pacer switches nothing"
    );

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
    wait_for_toggle(
        &shell,
        "the toggle says Pacer is gone",
        |title, subtitle| title == "Pacer" && subtitle == "Not running",
    );
    assert_eq!(panel_icon(&shell), "");
    // The menu offers to start it again, and the shell answers as before.
    let menu = open_toggle_menu(&shell);
    let items = shell
        .eval(&format!(
            "{menu}._getMenuItems().map(item => item.label.text)"
        ))
        .unwrap();
    assert_eq!(items, serde_json::json!(["Start Pacer"]));
    assert_eq!(shell.eval("1 + 1"), Ok(2.into()));
    assert_clean_log(&shell);
}

/// The tray item, through Debian's AppIndicator extension, appears in the top bar on every
/// start, Pacer started before the shell or after it; its menu opens and switches the
/// profile; the shell's log stays clean.
#[test]
#[ignore = "needs GNOME Shell 43: build-aux/test.sh --lane shell-43 runs it"]
fn the_tray_item_appears_in_the_top_bar_on_every_start() {
    let laptop = Laptop::start("intel-hybrid");
    let unused = tempfile::tempdir().unwrap();
    // The AppIndicator extension's button for Pacer's item.
    let item = &format!(
        "Object.values(Main.panel.statusArea).find(button => button && button._indicator \
         && button._indicator.id === '{}')",
        pacer::app::config::APP_ID
    );
    let mut shown = 0;
    for start in 0..10 {
        let before = start % 2 == 0;
        let (shell, _pacer) = if before {
            let first = (
                pacer_command(&laptop),
                pacer::app::config::APP_ID.to_owned(),
            );
            (
                shell_after(&laptop, unused.path(), false, Some(first)),
                None,
            )
        } else {
            let shell = shell_on(&laptop, unused.path(), false);
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
            click(&shell, item);
            let menu = format!("{item}.menu");
            shell.wait_for("the tray menu opens", LIMIT, &format!("{menu}.isOpen"));
            if start == 9 {
                shell.screenshot(&screenshot_dir().join("gnome-tray.png"));
            }
            let wanted = if start == 0 {
                "Performance"
            } else {
                "Balanced"
            };
            click(&shell, &menu_item(&menu, wanted));
            wait_until(
                LIMIT,
                "the daemon switches from the tray",
                || match laptop.bus.profile() {
                    Ok(profile) if profile == wanted.to_lowercase() => Ok(()),
                    other => Err(format!("{other:?}")),
                },
            );
            // The item's icon follows (the tray's icon change, logged by no one).
            shell.wait_for(
                "the tray icon follows",
                LIMIT,
                &format!(
                    "{item}._indicator.icon[0] === 'io.github.pacerapp.Pacer-{}-symbolic'",
                    wanted.to_lowercase()
                ),
            );
        }
        assert_clean_log(&shell);
    }
    assert_eq!(shown, 10);
}

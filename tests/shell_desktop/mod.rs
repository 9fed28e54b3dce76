// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer in a real GNOME Shell, for tests/gnome_shell.rs (Debian 12's 43.9),
//! tests/gnome_shell_48.rs (Debian 13's 48) and tests/gnome_shell_50.rs (Debian testing's 50,
//! headless), the last two in a root of their own: its Quick Settings extension as
//! `shell-extension/build.py` builds it for that shell, and its tray item through Debian's
//! AppIndicator extension. The machine is one simulated laptop with the real
//! power-profiles-daemon, polkit's stand-in and pacer-helper on a private system bus; Pacer
//! runs on the shell's session bus, started by hand or by D-Bus activation. Clicks are real
//! pointer clicks at the actors' places; what the shell shows is read from its actors through
//! the test probe extension. The checks are in `checks.rs`; here are the helpers that start
//! the desktop and find, click and read the shell's actors.

pub mod checks;

use std::path::Path;
use std::process::Command;
use std::thread::sleep;
use std::time::Duration;

use crate::common::{screenshot_dir, wait_until, Laptop, PACER};
use pacer_testrig::gnome_shell::{
    build_extension, js_string, GnomeShell, Shell, ShellSetup, APPINDICATOR,
};
use pacer_testrig::Service;

pub const UUID: &str = "pacer@pacerapp.github.io";
/// Pacer's extension inside the shell (the object its entry point made, legacy or ESM).
pub const EXTENSION: &str =
    "Main.extensionManager.lookup('pacer@pacerapp.github.io').stateObj._pacer";
pub const LIMIT: Duration = Duration::from_secs(20);

/// What Pacer, started by hand or by the session bus, needs besides the shell's variables.
pub fn pacer_env(laptop: &Laptop) -> Vec<(String, String)> {
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
pub fn session_service() -> (String, String) {
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

/// Shell `which` on `laptop` with Pacer's extension (when `with_pacer`, as built for it) and
/// the AppIndicator one.
pub fn shell_on(
    which: Shell,
    laptop: &Laptop,
    extension_dir: &Path,
    with_pacer: bool,
) -> GnomeShell {
    shell_after(which, laptop, extension_dir, with_pacer, None)
}

/// The same, with `first` started before the shell.
pub fn shell_after(
    which: Shell,
    laptop: &Laptop,
    extension_dir: &Path,
    with_pacer: bool,
    first: Option<(Command, String)>,
) -> GnomeShell {
    let mut setup = ShellSetup {
        shell: which,
        enabled: vec![APPINDICATOR.to_owned()],
        system_bus: laptop.bus.address().to_owned(),
        session_services: vec![session_service()],
        service_env: pacer_env(laptop),
        first,
        ..ShellSetup::default()
    };
    if with_pacer {
        setup.extensions.push(build_extension(
            which.api(),
            pacer::app::config::APP_ID,
            extension_dir,
        ));
        setup.enabled.push(UUID.to_owned());
    }
    GnomeShell::start(setup)
}

/// `pacer --background` with what it needs besides the shell's variables.
pub fn pacer_command(laptop: &Laptop) -> Command {
    let mut command = Command::new(PACER);
    command.arg("--background").envs(pacer_env(laptop));
    command
}

/// Pacer in the background on the shell's session bus and display.
pub fn start_pacer(shell: &GnomeShell, laptop: &Laptop) -> Service {
    let mut command = pacer_command(laptop);
    shell.client(&mut command);
    let pacer = Service::spawn_command("pacer", shell.dir(), &mut command);
    shell
        .session()
        .wait_for_name(pacer::app::config::APP_ID, Duration::from_secs(20));
    pacer
}

/// A real click at the middle of the actor `actor` (JavaScript) names (xdotool's on an X
/// server, a virtual pointer's in a headless shell: `GnomeShell::click_at`).
pub fn click(shell: &GnomeShell, actor: &str) {
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
    let coordinate = |at: usize| place[at].as_i64().expect("a place on the stage");
    shell.click_at(coordinate(0), coordinate(1));
    // Clutter handles the click at its next frame.
    sleep(Duration::from_millis(300));
}

/// Every item of a menu (JavaScript), those of its sections too: GNOME's power toggle keeps
/// its profiles in a section, Pacer's part is another.
pub fn menu_items(menu: &str) -> String {
    format!(
        "(function items(menu) {{ return menu._getMenuItems() \
         .flatMap(item => item._getMenuItems ? items(item) : [item]); }})({menu})"
    )
}

/// The item of a menu (JavaScript) whose label is `label`.
pub fn menu_item(menu: &str, label: &str) -> String {
    format!(
        "{}.find(item => item.label && item.label.text === {})",
        menu_items(menu),
        js_string(label)
    )
}

/// The labels of a menu's items (JavaScript), null for an item without one.
pub fn menu_labels(menu: &str) -> String {
    format!(
        "{}.map(item => item.label ? item.label.text : null)",
        menu_items(menu)
    )
}

/// Waits until the menu (JavaScript) shows the item labelled `label`; failing, says which
/// labels it shows.
pub fn wait_for_menu_item(shell: &GnomeShell, menu: &str, label: &str) {
    // An exception is waited past, and the last one is in the failure's message.
    shell.wait_for(
        &format!("the menu shows {label}"),
        LIMIT,
        &format!(
            "(() => {{ const item = {}; if (item && item.mapped) return true; \
             throw new Error(`the menu shows ${{JSON.stringify({})}}`); }})()",
            menu_item(menu, label),
            menu_labels(menu)
        ),
    );
}

/// The power toggle's title and subtitle as its labels show them.
pub fn toggle_text(shell: &GnomeShell) -> (String, String) {
    let text = shell.eval(&format!("{EXTENSION}.toggleText")).unwrap();
    (
        text["title"].as_str().unwrap_or_default().to_owned(),
        text["subtitle"].as_str().unwrap_or_default().to_owned(),
    )
}

/// The power toggle's title and subtitle are whole: neither is cut to fit the grid.
pub fn assert_toggle_fits(shell: &GnomeShell) {
    let text = shell.eval(&format!("{EXTENSION}.toggleText")).unwrap();
    assert_eq!(text["cut"], false, "the toggle's words are cut: {text}");
}

/// What GNOME's power toggle, extended, says while the daemon has `profile` (its label):
/// 43 titles it with the profile, 44 and later title it Power Mode with the profile below;
/// a warning's few words take the subtitle's place.
pub fn gnome_toggle_text(which: Shell, profile: &str, warning: Option<&str>) -> (String, String) {
    match which {
        Shell::Host43 => (profile.to_owned(), warning.unwrap_or_default().to_owned()),
        _ => (
            "Power Mode".to_owned(),
            warning.unwrap_or(profile).to_owned(),
        ),
    }
}

pub fn wait_for_toggle(shell: &GnomeShell, what: &str, check: impl Fn(&str, &str) -> bool) {
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

/// Whether Pacer's window is shown on the test's X server (where Pacer runs, whichever
/// shell: 50's, headless, has a display of its own).
pub fn pacer_window_shown(shell: &GnomeShell) -> bool {
    let found = Command::new("xdotool")
        .envs(shell.env())
        .args(["search", "--onlyvisible", "--name", "^Pacer$"])
        .output()
        .expect("xdotool (the test command installs it)");
    !found.stdout.is_empty()
}

/// The file name of the panel icon Pacer's extension shows, or null while hidden.
pub fn panel_icon(shell: &GnomeShell) -> String {
    let icon = shell
        .eval(&format!(
            "(() => {{ const icon = {EXTENSION}.icon; \
             return icon.visible && icon.gicon ? icon.gicon.get_file().get_basename() : ''; }})()"
        ))
        .unwrap();
    icon.as_str().unwrap_or_default().to_owned()
}

/// The AppIndicator extension's top-bar button for Pacer's tray item (JavaScript).
pub fn tray_button() -> String {
    format!(
        "Object.values(Main.panel.statusArea).find(button => button && button._indicator \
         && button._indicator.id === '{}')",
        pacer::app::config::APP_ID
    )
}

/// Waits until the tray item's button is in the top bar and the AppIndicator extension has
/// read its menu over D-Bus: the item is settled, and nothing of the extension's is in flight.
pub fn wait_for_tray_menu(shell: &GnomeShell, what: &str) {
    let button = tray_button();
    shell.wait_for(
        what,
        LIMIT,
        &format!(
            "(() => {{ const button = {button}; \
             return !!button && button.visible && button.mapped && button.menu.numMenuItems > 0; }})()"
        ),
    );
}

/// What the power toggle's icon shows: the file of Pacer's icon, or the theme's icon name.
pub fn toggle_icon(shell: &GnomeShell) -> String {
    let icon = shell
        .eval(&format!(
            "(icon => icon.gicon && icon.gicon.get_file ? icon.gicon.get_file().get_basename() \
             : icon.icon_name)({EXTENSION}.toggleIcon)"
        ))
        .unwrap();
    icon.as_str().unwrap_or_default().to_owned()
}

pub fn open_quick_settings(shell: &GnomeShell) {
    let open = "Main.panel.statusArea.quickSettings.menu.isOpen";
    if shell.eval(open) == Ok(true.into()) {
        return;
    }
    click(shell, "Main.panel.statusArea.quickSettings");
    shell.wait_for("Quick Settings opens", LIMIT, open);
}

/// Opens Quick Settings and the menu of Pacer's toggle, as a user does; the menu (JavaScript).
pub fn open_toggle_menu(shell: &GnomeShell) -> String {
    let menu = format!("{EXTENSION}.toggle.menu");
    if shell.eval(&format!("{menu}.isOpen")) != Ok(true.into()) {
        open_quick_settings(shell);
        click(shell, &format!("{EXTENSION}.toggle._menuButton"));
        shell.wait_for("the toggle's menu opens", LIMIT, &format!("{menu}.isOpen"));
    }
    menu
}

pub fn assert_clean_log(shell: &GnomeShell) {
    let errors = shell.errors();
    assert!(
        errors.is_empty(),
        "the shell's log has errors:\n{}",
        errors.join("\n")
    );
}

/// Saves the whole stage as `gnome-WHAT.png` in the screenshot folder (the README shows 43's),
/// `gnome-VERSION-WHAT.png` for a shell but 43.
pub fn screenshot(shell: &GnomeShell, what: &str) {
    let name = match shell.which() {
        Shell::Host43 => format!("gnome-{what}.png"),
        other => format!("gnome-{}-{what}.png", other.version()),
    };
    shell.screenshot(&screenshot_dir().join(name));
}

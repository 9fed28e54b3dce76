// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer built against a newer GNOME's GTK and libadwaita, run in the root of that GNOME's
//! shell on this machine's Xvfb and buses, on the simulated laptop with the real profile
//! daemon and helper, for tests/gtk_48_window.rs (the `gnome_48` feature, GTK 4.18 and
//! libadwaita 1.7 in Debian 13's root) and tests/gtk_50_window.rs (the `gnome_50` feature,
//! GTK 4.24 and libadwaita 1.10 in Debian testing's root); `build-aux/gtk-build.sh 48|50`
//! builds them. Where the GNOME 43 build has widgets of its own, libadwaita's stand, read
//! from the window's accessibility tree as Orca reads it: the banner's notices as AdwBanners,
//! Power Mode as a list of rows with radio buttons, a notice's explanation (and its fix) in an
//! AdwAlertDialog. And they work: a choice switches the daemon's profile, the daemon's switch
//! moves the choice, the alert's Fix mends the EPP lost behind the daemon's back, and a
//! narrow window's breakpoint moves the page switcher to the bottom. Its screenshot is the
//! README's `docs/screenshots/gnome-VERSION-window.png`.

use std::time::Duration;

use crate::common::{self, Gui, Laptop};
use pacer_testrig::gnome_shell::Shell;
use pacer_testrig::gtk_root;

/// Python with pyatspi: `app`, the application `pacer` on the accessibility bus.
const APP: &str = r#"
import sys, pyatspi
apps = [a for a in pyatspi.Registry.getDesktop(0) if a is not None and a.name.lower() == "pacer"]
if not apps:
    print("no application called pacer on the accessibility bus")
    sys.exit(2)
app = apps[0]
def name_of(node):
    return " ".join((node.name or "").split())
"#;

/// Every node of `app`, a line each: its depth, role, name, description (each on one line),
/// and its states among checked, pressed and focused, tab-separated.
const WALK: &str = r#"
def walk(node, depth):
    states = [pyatspi.stateToString(s) for s in node.getState().getStates()]
    shown = ",".join(s for s in states if s in ("checked", "pressed", "focused"))
    # A description of several lines (the limit bar's) is one line here, as a name is.
    description = " ".join((node.description or "").split())
    print("%d\t%s\t%s\t%s\t%s" % (depth, node.getRoleName(), name_of(node), description, shown))
    for child in node:
        if child is not None:
            walk(child, depth + 1)
walk(app, 0)
"#;

/// Does the first action (a click) of the node of `app` whose role is ROLE and name NAME.
const PRESS: &str = r#"
def find(node):
    if node.getRoleName() == ROLE and name_of(node) == NAME:
        return node
    for child in node:
        found = find(child) if child is not None else None
        if found is not None:
            return found
    return None
node = find(app)
if node is None:
    print("nothing of role %s called %s" % (ROLE, NAME))
    sys.exit(3)
try:
    action = node.queryAction()
    if action.nActions > 0:
        action.doAction(0)
        print("pressed")
        sys.exit(0)
except NotImplementedError:
    pass
# A check button offers no action of its own: where it lies in the window, for a click.
extents = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
print("at %d %d" % (extents.x + extents.width // 2, extents.y + extents.height // 2))
"#;

/// One node of the tree.
#[derive(Debug)]
struct Node {
    depth: usize,
    role: String,
    name: String,
    description: String,
    states: String,
}

fn tree(gui: &Gui, session: &pacer_testrig::SystemBus) -> Vec<Node> {
    common::a11y_script(gui, session, &format!("{APP}{WALK}"))
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            match fields.as_slice() {
                [depth, role, name, description, states] => Node {
                    depth: depth.parse().unwrap(),
                    role: (*role).to_owned(),
                    name: (*name).to_owned(),
                    description: (*description).to_owned(),
                    states: (*states).to_owned(),
                },
                _ => panic!("the tree said: {line}"),
            }
        })
        .collect()
}

/// The window of Pacer's build against the GTK of `shell`'s root, which is GTK 4.`least_gtk`
/// or newer: what it shows and how it works.
pub fn the_window_shows_libadwaita_s_widgets(shell: Shell, least_gtk: u32) {
    let laptop = Laptop::start("intel-hybrid");
    // The accessibility bus's socket in /tmp, which the root sees (by default it is under
    // this machine's ~/.cache).
    let runtime = tempfile::tempdir().unwrap();
    let session = common::a11y_session(&[("XDG_RUNTIME_DIR", runtime.path().to_str().unwrap())]);
    let mounts = tempfile::tempdir().unwrap();
    let program = gtk_root::command_line(shell, &gtk_root::pacer(shell), mounts.path());
    let gui = Gui::start_program(
        &program,
        &["--simulate", "intel-hybrid", "--sysfs-root", laptop.root()],
        Some(laptop.bus.address()),
        Some(session.address()),
    );
    gui.wait_for_log("first frame drawn", Duration::from_secs(30));
    gui.wait_for_log("banner shows simulated", Duration::from_secs(10));
    let gtk = gtk_minor(&gui.mapped_files());
    assert!(
        gtk.is_some_and(|minor| minor >= least_gtk)
            && gui.mapped_files().contains("libadwaita-1.so.0"),
        "not GTK 4.{least_gtk} or newer with libadwaita: {}",
        gui.mapped_files()
    );
    // The window joins the accessibility bus after its first frame.
    common::wait_until(
        Duration::from_secs(10),
        "Pacer on the accessibility bus",
        || {
            let found = gui
                .x("/usr/bin/python3")
                .args(["-c", APP])
                .env("DBUS_SESSION_BUS_ADDRESS", session.address())
                .status()
                .unwrap();
            found.success().then_some(()).ok_or(found.to_string())
        },
    );
    // The daemon's three profiles as GNOME Settings' Power Mode shows them: a list named
    // Power Mode, a row per profile, fastest first, each holding a radio button of its name,
    // the active one checked.
    wait_for_profile(&gui, &session, "Balanced");
    let nodes = tree(&gui, &session);
    let list = nodes
        .iter()
        .position(|n| n.role == "list" && n.name == "Power Mode")
        .unwrap_or_else(|| panic!("no list called Power Mode: {nodes:#?}"));
    let rows: Vec<(&str, Vec<&str>)> = children(&nodes, list)
        .enumerate()
        .filter(|(_, n)| n.role == "list item")
        .map(|(offset, row)| {
            let radios = children(&nodes, list + 1 + offset)
                .filter(|n| n.role == "radio button")
                .map(|n| n.name.as_str())
                .collect();
            (row.name.as_str(), radios)
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("Performance", vec!["Performance"]),
            ("Balanced", vec!["Balanced"]),
            ("Power Saver", vec!["Power Saver"]),
        ]
    );

    // A choice switches the daemon's profile, as a screen reader's user would press it.
    press(&gui, &session, "radio button", "Performance");
    common::wait_until(
        Duration::from_secs(10),
        "the choice sets the profile",
        || match laptop.bus.profile() {
            Ok(profile) if profile == "performance" => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    // The daemon's own switch moves the choice.
    laptop.bus.set_profile("power-saver").unwrap();
    wait_for_profile(&gui, &session, "Power Saver");

    // The EPP lost behind the daemon's back: a warning (the simulated machine is a tag in the
    // header bar, not a notice).
    laptop.lose_the_epp();
    gui.wait_for_log("banner shows EppMismatch", Duration::from_secs(15));
    wait_for_profile(&gui, &session, "Performance");
    // Each notice an AdwBanner: a group named by its line, its severity as its description,
    // "Details" its one button (the GNOME 43 build's strip has an icon, Details and Fix).
    let nodes = tree(&gui, &session);
    let banner = nodes
        .iter()
        .position(|n| n.role == "grouping" && n.description == "Warning" && !n.name.is_empty())
        .unwrap_or_else(|| panic!("no AdwBanner saying Warning: {nodes:#?}"));
    let button = children(&nodes, banner)
        .find(|n| n.role == "push button")
        .unwrap_or_else(|| panic!("no button in {:?}", nodes[banner]));
    assert_eq!(button.name, "Details");
    wait_for_the_banner_to_settle(&gui);
    gui.screenshot(&format!("gnome-{}-window", shell.version()));

    // Alt+D opens the warning's details in an AdwAlertDialog (an alert over the window), its
    // fix the suggested answer.
    gui.key("alt+d");
    let nodes = tree(&gui, &session);
    let alert = nodes
        .iter()
        .position(|n| n.role == "alert")
        .unwrap_or_else(|| panic!("no alert: {nodes:#?}"));
    assert!(
        nodes[alert]
            .name
            .starts_with("EPP is not what Performance sets"),
        "{:?}",
        nodes[alert]
    );
    let texts: Vec<&Node> = children(&nodes, alert).collect();
    assert!(
        texts
            .iter()
            .any(|n| n.role == "label" && n.name.contains("Fix: Switch to power-saver")),
        "the alert does not explain: {texts:#?}"
    );
    let answers: Vec<(&str, bool)> = texts
        .iter()
        .filter(|n| n.role == "push button")
        .map(|n| (n.name.as_str(), n.states.contains("focused")))
        .collect();
    assert_eq!(answers, [("Close", false), ("Fix", true)]);
    // Alt+F answers Fix: the profile goes away and back, and the daemon writes the EPP again.
    gui.key("alt+f");
    gui.wait_for_log("banner clears EppMismatch", Duration::from_secs(15));
    assert_eq!(laptop.epp(), "performance");
    common::wait_until(Duration::from_secs(5), "the alert closes", || {
        let alerts = tree(&gui, &session)
            .into_iter()
            .filter(|n| n.role == "alert")
            .count();
        if alerts == 0 {
            Ok(())
        } else {
            Err(format!("{alerts} alerts"))
        }
    });
    // Narrow: the breakpoint takes the page switcher out of the header, which shows the
    // window's title, and reveals the bottom bar's, under the pages.
    assert_eq!(switcher_place(&gui, &session), "header");
    let width = gui.resize(360, 700);
    assert_eq!(width, 360, "some content is wider than 360 px");
    assert_eq!(switcher_place(&gui, &session), "bottom");
    assert!(
        !gui.log().contains("CRITICAL"),
        "GTK complained:\n{}",
        gui.log()
    );
}

/// Waits until the banner has said nothing new for a second: each change of its notices
/// (one shown, cleared, or explained anew as the helper's recording arrives) makes its rows
/// again, and a screenshot taken then once showed none.
fn wait_for_the_banner_to_settle(gui: &Gui) {
    let said = || gui.log().matches("banner ").count();
    let mut before = said();
    common::wait_until(Duration::from_secs(15), "the banner settles", || {
        std::thread::sleep(Duration::from_secs(1));
        let now = said();
        if now == before {
            Ok(())
        } else {
            let seen = format!("{before} then {now} lines of the banner's");
            before = now;
            Err(seen)
        }
    });
}

/// The minor version of the GTK 4 among `maps` (a process's mapped files):
/// `libgtk-4.so.1.1800` is GTK 4.18.0.
fn gtk_minor(maps: &str) -> Option<u32> {
    let (_, after) = maps.split_once("libgtk-4.so.1.")?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse::<u32>().ok().map(|number| number / 100)
}

/// Where the page switcher is: "header" (above the pages' scroll pane) or "bottom" (under
/// it, the header showing the window's title instead); only one shows.
fn switcher_place(gui: &Gui, session: &pacer_testrig::SystemBus) -> &'static str {
    let nodes = tree(gui, session);
    let at = |role: &str| nodes.iter().position(|n| n.role == role);
    let switchers = nodes.iter().filter(|n| n.role == "page tab list").count();
    let title = nodes.iter().any(|n| n.role == "label" && n.name == "Pacer");
    match (switchers, at("page tab list"), at("scroll pane"), title) {
        (1, Some(tabs), Some(pages), false) if tabs < pages => "header",
        (1, Some(tabs), Some(pages), true) if tabs > pages => "bottom",
        _ => panic!("{switchers} page switchers, title shown: {title}: {nodes:#?}"),
    }
}

/// The nodes under the node at `index` of `nodes` (a tree in walking order).
fn children(nodes: &[Node], index: usize) -> impl Iterator<Item = &Node> {
    let depth = nodes[index].depth;
    nodes[index + 1..]
        .iter()
        .take_while(move |node| node.depth > depth)
}

/// Waits until Power Mode shows `shown` checked, and no other.
fn wait_for_profile(gui: &Gui, session: &pacer_testrig::SystemBus, shown: &str) {
    common::wait_until(Duration::from_secs(10), "the Power Mode choice", || {
        let choices: Vec<(String, bool)> = tree(gui, session)
            .into_iter()
            .filter(|n| n.role == "radio button")
            .map(|n| (n.name, n.states.contains("checked")))
            .collect();
        let expected: Vec<(String, bool)> = ["Performance", "Balanced", "Power Saver"]
            .iter()
            .map(|name| ((*name).to_owned(), *name == shown))
            .collect();
        if choices == expected {
            Ok(())
        } else {
            Err(format!("{choices:?}"))
        }
    });
}

/// Does the first action (a click) of the node of `role` called `name`, or clicks it with
/// the pointer where it offers none (a check button).
fn press(gui: &Gui, session: &pacer_testrig::SystemBus, role: &str, name: &str) {
    let script = format!("{APP}ROLE = {role:?}\nNAME = {name:?}\n{PRESS}");
    let said = common::a11y_script(gui, session, &script);
    if said.trim() == "pressed" {
        return;
    }
    let at: Vec<&str> = said
        .trim()
        .strip_prefix("at ")
        .unwrap_or_default()
        .split(' ')
        .collect();
    let [x, y] = at[..] else {
        panic!("{role} {name:?}: {said}");
    };
    let clicked = gui
        .on_window(&["mousemove", "--window", "%1", x, y, "click", "1"])
        .status()
        .unwrap();
    assert!(
        clicked.success(),
        "xdotool clicks {role} {name:?} at {x}, {y}"
    );
}

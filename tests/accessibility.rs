// SPDX-License-Identifier: GPL-3.0-or-later
//! What a screen reader finds in Pacer's window: every control and plot on each page has a
//! name it can speak, read from the real accessibility tree (AT-SPI, through Debian's
//! pyatspi, as Orca reads it); and the plot's readout is reached from the keyboard alone.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::Gui;
use pacer_testrig::SystemBus;

/// Walks the tree of the application `pacer` and prints one line per control or plot:
/// `named<TAB>role<TAB>name` or `unnamed<TAB>role<TAB>path`. GTK 4.8 names a widget without
/// an accessible name after its type (`GtkMenuButton`): a screen reader would speak that, so
/// it counts as no name. The parts of a named control are spoken as the control, and so is
/// an icon of a named row.
const WALK: &str = r#"
import re, sys, pyatspi
CONTROLS = {
    pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON, pyatspi.ROLE_CHECK_BOX,
    pyatspi.ROLE_RADIO_BUTTON, pyatspi.ROLE_COMBO_BOX, pyatspi.ROLE_SLIDER,
    pyatspi.ROLE_SPIN_BUTTON, pyatspi.ROLE_ENTRY, pyatspi.ROLE_TEXT, pyatspi.ROLE_IMAGE,
    pyatspi.ROLE_PROGRESS_BAR, pyatspi.ROLE_MENU_ITEM, pyatspi.ROLE_LINK, pyatspi.ROLE_PAGE_TAB,
}
SWITCH = getattr(pyatspi, "ROLE_SWITCH", None)
if SWITCH is not None:
    CONTROLS.add(SWITCH)
apps = [a for a in pyatspi.Registry.getDesktop(0) if a is not None and a.name.lower() == "pacer"]
if not apps:
    print("no application called pacer on the accessibility bus")
    sys.exit(2)
def is_name(name):
    return bool(name) and not re.fullmatch(r"(Gtk|Adw)[A-Z][A-Za-z]*", name)
def walk(node, path, in_named_row):
    try:
        role = node.getRole()
        name = (node.name or "").strip()
        if role in CONTROLS:
            if is_name(name):
                print("named\t%s\t%s" % (node.getRoleName(), name))
                # A screen reader speaks the control; what it is made of (a tab's icon, a
                # drop-down's button) is not spoken on its own.
                return
            # A row's own icons (a combo row's arrow) are spoken as the row; its controls
            # are not.
            if not (role == pyatspi.ROLE_IMAGE and in_named_row):
                print("unnamed\t%s\t%s" % (node.getRoleName(), path))
        in_named_row = in_named_row or (role == pyatspi.ROLE_LIST_ITEM and is_name(name))
        for index, child in enumerate(node):
            if child is not None:
                walk(child, "%s/%s[%d]" % (path, child.getRoleName(), index), in_named_row)
    except Exception as error:
        print("error\t%s\t%s" % (path, error))
walk(apps[0], "pacer", False)
"#;

/// The controls the walk found on the page shown now: (role, name) of the named, and the
/// paths of those without a name.
fn walk(gui: &Gui, session: &SystemBus) -> (Vec<(String, String)>, Vec<String>) {
    let text = common::a11y_script(gui, session, WALK);
    let mut named = Vec::new();
    let mut unnamed = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields.as_slice() {
            ["named", role, name] => named.push(((*role).to_owned(), (*name).to_owned())),
            ["unnamed", role, path] => unnamed.push(format!("{role} at {path}")),
            _ => panic!("the walk said: {line}"),
        }
    }
    (named, unnamed)
}

#[test]
#[ignore = "needs a display: build-aux/test.sh --lane gui runs it"]
fn every_control_and_plot_has_a_name_a_screen_reader_speaks() {
    let session = common::a11y_session(&[]);
    let (_tree, gui) = common::simulated_laptop_on(Some(session.address()));

    // Each page once shown, so that its widgets are in the tree.
    let mut every = Vec::new();
    for (page, key) in [
        ("Overview", "alt+1"),
        ("CPUs", "alt+2"),
        ("Measure", "alt+3"),
    ] {
        gui.key(key);
        let (named, unnamed) = walk(&gui, &session);
        assert!(
            unnamed.is_empty(),
            "{page}: controls without a name: {unnamed:#?}"
        );
        assert!(named.len() >= 5, "{page}: only {named:?}");
        every = named;
    }
    // A result on the Measure page brings its chart, results and export.
    gui.key("ctrl+m");
    gui.wait_for_log("measured: Ramp-up #1", Duration::from_secs(30));
    let (named, unnamed) = walk(&gui, &session);
    assert!(
        unnamed.is_empty(),
        "a result: controls without a name: {unnamed:#?}"
    );
    every.extend(named);
    let has = |role: &str, name: &str| every.iter().any(|(r, n)| r.contains(role) && n == name);
    // The plots speak what they show; the controls what they do.
    for (role, name) in [
        ("image", "CPU frequency by core type over the last minute"),
        ("image", "Ramp-up: throughput against time since work began"),
        ("push button", "Measure ramp-up"),
        ("push button", "Compare settings…"),
        ("push button", "Export"),
        ("combo box", "Results of this session"),
        ("push button", "Main Menu"),
        // The header bar's tag says the machine is simulated.
        ("push button", "Simulated Machine"),
    ] {
        assert!(has(role, name), "no {role} called {name:?} in {every:#?}");
    }
    gui.key("alt+1");
    let (overview, _) = walk(&gui, &session);
    assert!(
        overview
            .iter()
            .any(|(r, n)| r == "push button" && n == "Each CPU"),
        "the toggle speaks its label without the underscore: {overview:#?}"
    );

    // The readout from the keyboard alone: Tab reaches the plot, which then reads out the
    // latest moment.
    let mut reached = false;
    for _ in 0..30 {
        gui.key("Tab");
        if gui.log().contains("readout shows Now") {
            reached = true;
            break;
        }
    }
    assert!(reached, "Tab never reached the plot: {}", gui.log());
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! What a new user reads in the window, page by page: the text the accessibility tree says is
//! on screen (as Orca would read it), on the simulated laptop in good health with the real
//! power-profiles-daemon, and again once the EPP is lost behind the daemon's back
//! (`docs/kernel.md` 2.4). On every page: at most one line of 15 words or more, no shell
//! command, no file path, no kernel token standing as a label, and no raw system error.
//! The kernel's words belong in tooltips (left out of the reading), the Details dialog,
//! `pacerctl` and JSON.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::Gui;

/// Prints the text of the page shown now, one line per node as `role<TAB>text` (a label's
/// text, a button's name), newlines inside a text kept as `\n`: what lies outside the page
/// stack (header bar, banners), then the stack's page whose tab is selected. GTK 4.8 marks no
/// node but the window as showing, so the page is told by its tab, and a node not laid out
/// (a collapsed revealer's text) by its extents of zero.
const SHOWING_TEXT: &str = r#"
import re, sys, pyatspi
TEXTS = {pyatspi.ROLE_LABEL, pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON,
         pyatspi.ROLE_CHECK_BOX, pyatspi.ROLE_RADIO_BUTTON, pyatspi.ROLE_LINK,
         pyatspi.ROLE_HEADING, pyatspi.ROLE_TEXT}
apps = [a for a in pyatspi.Registry.getDesktop(0) if a is not None and a.name.lower() == "pacer"]
if not apps:
    print("no application called pacer on the accessibility bus")
    sys.exit(2)
def find(node, test):
    if test(node):
        return node
    for child in node:
        if child is not None:
            found = find(child, test)
            if found is not None:
                return found
    return None
tabs = find(apps[0], lambda n: n.getRole() == pyatspi.ROLE_PAGE_TAB_LIST)
selected = [i for i, tab in enumerate(tabs) if tab.getState().contains(pyatspi.STATE_SELECTED)]
def is_stack(node):
    children = [c for c in node if c is not None]
    return len(children) == len(tabs) and all(c.getRole() == pyatspi.ROLE_SCROLL_PANE for c in children)
stack = find(apps[0], is_stack)
if len(selected) != 1 or stack is None:
    print("no single selected page (%s) or no page stack" % selected)
    sys.exit(2)
page = stack[selected[0]]
def laid_out(node):
    try:
        extents = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
        return extents.width > 0 and extents.height > 0
    except NotImplementedError:
        return True
def walk(node):
    if node == stack:
        walk(page)
        return
    if not node.getState().contains(pyatspi.STATE_VISIBLE) or not laid_out(node):
        return
    role = node.getRole()
    if role in TEXTS:
        text = (node.name or "").strip()
        if not text and role == pyatspi.ROLE_TEXT:
            t = node.queryText()
            text = t.getText(0, t.characterCount).strip()
        # GTK 4.8 names a node without a name after its class: nothing a user reads.
        if text and not re.fullmatch(r"(Gtk|Adw)[A-Z][A-Za-z]*", text):
            print("%s\t%s" % (node.getRoleName(), text.replace("\n", "\\n")))
    for child in node:
        if child is not None:
            walk(child)
for window in apps[0]:
    if window is not None:
        walk(window)
"#;

/// The words the kernel prints that must not stand alone as a label: governors, EPP names,
/// driver modes and drivers. Each shows in words, with the token in a tooltip.
const KERNEL_TOKENS: [&str; 16] = [
    "performance",
    "powersave",
    "schedutil",
    "ondemand",
    "conservative",
    "userspace",
    "default",
    "balance_performance",
    "balance_power",
    "power",
    "active",
    "passive",
    "guided",
    "intel_pstate",
    "intel_cpufreq",
    "amd-pstate-epp",
];

/// What a shell command starts with, as a user would be told to type it.
const COMMANDS: [&str; 11] = [
    "sudo ",
    "powerprofilesctl ",
    "systemctl ",
    "echo ",
    " | tee",
    "meson ",
    "apt ",
    "dnf ",
    "flatpak ",
    "pacerctl ",
    "busctl ",
];

/// How many words `line` has: what stands between spaces with a letter or a digit in it (a
/// "·" between parts is no word).
fn words(line: &str) -> usize {
    line.split_whitespace()
        .filter(|word| word.chars().any(char::is_alphanumeric))
        .count()
}

/// Why `texts` (one page's visible text) does not read plainly; empty when it does.
fn problems(texts: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    let lines: Vec<&str> = texts.iter().flat_map(|t| t.split("\\n")).collect();
    let long: Vec<&&str> = lines.iter().filter(|line| words(line) >= 15).collect();
    if long.len() > 1 {
        problems.push(format!(
            "{} lines of 15 words or more: {long:?}",
            long.len()
        ));
    }
    for line in &lines {
        if let Some(command) = COMMANDS.iter().find(|c| line.contains(*c)) {
            problems.push(format!("a shell command ({command:?}): {line}"));
        }
        if line.contains("/sys/") || line.contains("/proc/") || line.contains("/usr/") {
            problems.push(format!("a file path: {line}"));
        }
        if line.contains("os error") {
            problems.push(format!("a raw system error: {line}"));
        }
        let label = line.trim().trim_end_matches(':');
        if KERNEL_TOKENS.contains(&label) {
            problems.push(format!("a kernel token as a label: {line}"));
        }
        let mut snake = line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        if let Some(token) =
            snake.find(|word| word.contains('_') && word.chars().any(|c| c.is_ascii_lowercase()))
        {
            problems.push(format!("a kernel token ({token}): {line}"));
        }
    }
    problems
}

/// The text showing now, as the accessibility tree reads it: each node's role and text.
fn showing_text(gui: &Gui, session: &pacer_testrig::SystemBus) -> Vec<(String, String)> {
    common::a11y_script(gui, session, SHOWING_TEXT)
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(role, text)| (role.to_owned(), text.to_owned()))
        .collect()
}

/// Each page in turn, whose text must read plainly (`state`: the machine's, for the message).
fn each_page_reads_plainly(gui: &Gui, session: &pacer_testrig::SystemBus, state: &str) {
    for (page, key) in [
        ("Overview", "alt+1"),
        ("CPUs", "alt+2"),
        ("Measure", "alt+3"),
        ("History", "alt+4"),
    ] {
        gui.key(key);
        // The pointer out of the page: a tooltip under it (where the kernel's words belong)
        // is not what the page says at a glance.
        let moved = gui.x("xdotool").args(["mousemove", "0", "0"]).status();
        assert!(
            moved.is_ok_and(|status| status.success()),
            "xdotool mousemove"
        );
        std::thread::sleep(Duration::from_millis(300));
        let shown = showing_text(gui, session);
        assert!(
            shown.len() >= 5,
            "{state}, {page}: the tree shows almost nothing: {shown:?}"
        );
        let texts: Vec<String> = shown.iter().map(|(_, text)| text.clone()).collect();
        let problems = problems(&texts);
        let listing: Vec<String> = shown
            .iter()
            .map(|(role, text)| format!("{role}: {text}"))
            .collect();
        assert!(
            problems.is_empty(),
            "{state}, {page}:\n{}\n\nall its text:\n{}",
            problems.join("\n"),
            listing.join("\n")
        );
    }
}

#[test]
#[ignore = "needs a display, and root for fanotify: build-aux/test.sh --lane gui runs it"]
fn every_page_reads_plainly_in_health_and_with_the_epp_lost() {
    let session = common::a11y_session(&[]);
    let (laptop, gui) = common::healthy_machine_on("intel-hybrid", Some(session.address()));
    gui.wait_for_log("history shows: recording started", Duration::from_secs(20));
    // A measurement, so that the Measure page shows a result and its verdict.
    gui.key("ctrl+m");
    gui.wait_for_log("measured: Ramp-up #1", Duration::from_secs(30));
    each_page_reads_plainly(&gui, &session, "in health");

    laptop.lose_the_epp();
    gui.wait_for_log("banner shows EppMismatch", Duration::from_secs(15));
    each_page_reads_plainly(&gui, &session, "with the EPP lost");
}

/// The check itself finds what it is meant to find.
#[test]
fn the_check_finds_long_lines_commands_paths_tokens_and_errors() {
    let of = |texts: &[&str]| problems(&texts.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>());
    assert!(of(&[
        "EPP is not what Performance sets",
        "Fix",
        "Balanced performance"
    ])
    .is_empty());
    let long =
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen";
    assert!(of(&[long]).is_empty(), "one long line is allowed");
    assert_eq!(of(&[long, long]).len(), 1);
    assert_eq!(of(&[&format!("first\\n{long}\\n{long}")]).len(), 1);
    let dotted = "a · b · c · d · e · f · g · h · i · j · k · l · m · n";
    assert_eq!(words(dotted), 14, "a dot between parts is no word");
    for bad in [
        "Fix: powerprofilesctl set performance",
        "Install it with sudo meson install -C build",
        "Read /sys/devices/system/cpu/cpufreq/policy0",
        "Permission denied (os error 13)",
        "balance_performance",
        "EPP is balance_performance on policy 0-15",
        "powersave",
        "active",
    ] {
        assert!(!of(&[bad]).is_empty(), "{bad:?} passed the check");
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! The helper's modes: --no-polkit only with --session; --session with --simulate serves a
//! simulated machine on the session bus.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

const HELPER: &str = env!("CARGO_BIN_EXE_pacer-helper");

#[test]
fn no_polkit_is_refused_on_the_system_bus() {
    let output = Command::new(HELPER)
        .args(["--no-polkit", "--simulate", "vm", "--state-dir"])
        .arg(tempfile::tempdir().unwrap().path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(
        message.contains("--no-polkit would let anyone change"),
        "{message}"
    );
}

#[test]
fn a_missing_bus_is_named() {
    let output = Command::new(HELPER)
        .args(["--simulate", "vm", "--state-dir"])
        .arg(tempfile::tempdir().unwrap().path())
        .env("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/socket")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot connect to the bus"));
}

/// A shell function waiting up to 5 s for a name on the session bus.
const WAIT_FOR: &str = r#"
    wait_for() {
        for _ in $(seq 100); do
            gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
                --method org.freedesktop.DBus.NameHasOwner "$1" | grep -q true && return 0
            sleep 0.05
        done
        echo "no $1 on the bus"; exit 1
    }
"#;

/// Runs `script` (with `wait_for`, and `$HELPER`, `$TREE` and `$STATE` set: the helper, an
/// empty machine directory and an empty state directory) on a session bus of its own;
/// returns its stdout, then stdout and stderr for a failure message.
fn on_own_session_bus(script: &str) -> (String, String) {
    let tree = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let output = Command::new("dbus-run-session")
        .args(["--", "sh", "-c", &format!("{WAIT_FOR}{script}")])
        .env("HELPER", HELPER)
        .env("TREE", tree.path())
        .env("STATE", state.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let both = format!("{stdout}{}", String::from_utf8_lossy(&output.stderr));
    (stdout, both)
}

/// The session-bus demo: a session bus of its own, the helper on a simulated machine
/// without polkit, and a change through `pacerctl set --session`.
#[test]
fn the_simulated_demo_on_the_session_bus() {
    let pacerctl = pacer_testrig::workspace_binary("pacerctl");
    let script = format!(
        r#"
        "$HELPER" --session --no-polkit --simulate arm-rk3588 --sysfs-root "$TREE" --state-dir "$STATE" --idle-timeout 1 &
        wait_for {name}
        "{pacerctl}" set governor performance --policies 4 --session --sysfs-root "$TREE"
        "#,
        name = pacer_dbus::BUS_NAME,
        pacerctl = pacerctl.display(),
    );
    let (stdout, both) = on_own_session_bus(&script);
    assert!(
        stdout.contains("the governor is now performance on policy 4"),
        "{both}"
    );
}

/// A helper started for one program (the window on a simulated machine) goes when that
/// program leaves the bus, even when it was killed and could not stop the helper itself.
#[test]
fn the_helper_leaves_with_the_program_it_serves() {
    let script = r#"
        /usr/bin/python3 -m dbusmock --session com.example.Window /w com.example.Window & window=$!
        wait_for com.example.Window
        "$HELPER" --session --no-polkit --simulate vm --sysfs-root "$TREE" --state-dir "$STATE" \
            --idle-timeout 0 --exit-with com.example.Window & helper=$!
        wait_for io.github.pacerapp.Pacer.Helper1
        kill -9 "$window"
        for _ in $(seq 100); do
            kill -0 "$helper" 2>/dev/null || { echo "helper gone"; exit 0; }
            sleep 0.05
        done
        echo "helper still running"; kill "$helper"
    "#;
    let (stdout, both) = on_own_session_bus(script);
    assert!(stdout.contains("helper gone"), "{both}");
}

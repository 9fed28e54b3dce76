//! The window opens on a real (virtual) display and stays up.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

#[test]
fn the_window_opens_and_stays_up() {
    let tree = pacer_testrig::model_tree("intel-hybrid");
    // Start Pacer, wait up to 10 s for a top-level window titled "Pacer", check the process
    // is still alive a second later, then close it.
    let script = r#"
        "$PACER" --sysfs-root "$TREE" & pid=$!
        for _ in $(seq 100); do
            xwininfo -root -tree | grep -q '"Pacer"' && break
            sleep 0.1
        done
        xwininfo -root -tree | grep -q '"Pacer"' || { echo "no window titled Pacer"; exit 1; }
        sleep 1
        kill -0 "$pid" || { echo "pacer died"; exit 1; }
        kill "$pid"
    "#;
    let output = Command::new("xvfb-run")
        .args(["-a", "dbus-run-session", "--", "sh", "-c", script])
        .env("PACER", env!("CARGO_BIN_EXE_pacer"))
        .env("TREE", tree.path())
        .env("GSK_RENDERER", "cairo")
        .output()
        .expect("xvfb-run runs (the test command installs xvfb)");
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

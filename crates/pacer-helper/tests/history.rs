//! Who changed it, through the helper on a private system bus with the polkit mock: a watch
//! records a named process's write and announces it, the history returns it, a watch of
//! another caller cannot be stopped, polkit's refusal refuses the history, and a watch ends
//! with its caller.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::*;
use futures_util::StreamExt;
use pacer_dbus::history::History1Proxy;
use pacer_dbus::{actions, ErrorKind, Problem};

async fn history_proxy(rig: &Rig) -> (zbus::Connection, History1Proxy<'static>) {
    let connection = zbus::connection::Builder::address(rig.bus.address())
        .unwrap()
        .build()
        .await
        .unwrap();
    let proxy = History1Proxy::new(&connection).await.unwrap();
    (connection, proxy)
}

#[tokio::test]
async fn a_watch_records_who_wrote_and_ends_with_its_caller() {
    let rig = Rig::start("intel-hybrid");
    let (_connection, history) = history_proxy(&rig).await;
    let mut changed = history.receive_changed().await.unwrap();
    let handle = history.watch_changes().await.expect("recording starts");

    // A process of its own name writes the governor of policy 4.
    let bin = tempfile::tempdir().unwrap();
    let program = bin.path().join("tlp");
    std::fs::copy("/bin/sh", &program).unwrap();
    let file = rig
        .root()
        .join("sys/devices/system/cpu/cpufreq/policy4/scaling_governor");
    let mut child = std::process::Command::new(&program)
        .args([
            "-c",
            &format!("echo performance > {} && sleep 1", file.display()),
        ])
        .spawn()
        .unwrap();
    let signal = tokio::time::timeout(Duration::from_secs(5), changed.next())
        .await
        .expect("the change is announced")
        .unwrap();
    let event: serde_json::Value = serde_json::from_str(signal.args().unwrap().event()).unwrap();
    assert_eq!(event["setting"], "governor");
    assert_eq!(event["policies"], serde_json::json!([4]));
    assert_eq!(
        (&event["old"], &event["new"]),
        (&"powersave".into(), &"performance".into())
    );
    assert_eq!(event["source"], "process");
    assert_eq!(event["process"]["pid"], child.id());
    assert_eq!(event["process"]["comm"], "tlp");
    assert!(child.wait().unwrap().success());

    let since: Vec<serde_json::Value> = serde_json::from_str(
        &history
            .history(event["id"].as_u64().unwrap())
            .await
            .unwrap(),
    )
    .unwrap();
    assert!(since
        .iter()
        .all(|e| e["id"].as_u64() > event["id"].as_u64()));

    // Another caller can read, but not stop this caller's watch.
    let (_other_connection, other) = history_proxy(&rig).await;
    let refused =
        pacer_dbus::HelperError::from_call(other.stop_watching(handle).await.unwrap_err());
    assert_eq!(refused.problem(), Some(&Problem::NoSuchWatch { handle }));
    assert_eq!(refused.kind(), Some(ErrorKind::NotAuthorized));
    history
        .stop_watching(handle)
        .await
        .expect("its own watch stops");

    // polkit refuses: no history, no watch.
    rig.bus.set_allowed(&[actions::SET_CPU_POWER]);
    let denied = pacer_dbus::HelperError::from_call(other.history(0).await.unwrap_err());
    assert_eq!(denied.kind(), Some(ErrorKind::NotAuthorized));
    let denied = pacer_dbus::HelperError::from_call(other.watch_changes().await.unwrap_err());
    assert_eq!(denied.kind(), Some(ErrorKind::NotAuthorized));
}

#[tokio::test]
async fn a_watch_ends_when_its_caller_leaves() {
    let rig = Rig::start("intel-hybrid");
    let (connection, history) = history_proxy(&rig).await;
    let handle = history.watch_changes().await.unwrap();
    drop(history);
    drop(connection);
    // Its handle is gone: a new caller's first watch is the next handle, and stopping the
    // old one is refused as no watch of its own.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_connection, again) = history_proxy(&rig).await;
    let refused =
        pacer_dbus::HelperError::from_call(again.stop_watching(handle).await.unwrap_err());
    assert_eq!(refused.problem(), Some(&Problem::NoSuchWatch { handle }));
    let next = again.watch_changes().await.unwrap();
    assert_eq!(next, handle + 1);
}

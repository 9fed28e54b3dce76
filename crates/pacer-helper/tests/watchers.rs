// SPDX-License-Identifier: GPL-3.0-or-later
//! The history's watchers as the security review tried them (docs/security.md, points 1–3):
//! a change goes to the watchers alone, not to every account on the bus; one connection's
//! watches never use up the calls another caller needs; and a caller that leaves while polkit
//! decides leaves no watch behind to keep the helper running. Through the helper on a private
//! system bus with python-dbusmock's polkitd.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::*;
use futures_util::StreamExt;
use pacer_dbus::history::History1Proxy;
use pacer_dbus::{actions, ErrorKind};

async fn history_proxy(
    bus: &pacer_testrig::SystemBus,
) -> (zbus::Connection, History1Proxy<'static>) {
    let (connection, _) = connect(bus).await;
    let proxy = History1Proxy::new(&connection).await.unwrap();
    (connection, proxy)
}

/// A process that writes `value` to policy 4's governor under `rig`'s tree, and exits.
fn write_governor(rig: &Rig, value: &str) {
    let file = rig
        .root()
        .join(format!("{CPUFREQ}/policy4/scaling_governor"));
    std::fs::write(file, value).unwrap();
}

#[tokio::test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
async fn a_change_goes_to_the_watchers_alone() {
    let rig = Rig::start("intel-hybrid");
    let (_watching, watcher) = history_proxy(&rig.bus).await;
    let mut seen = watcher.receive_changed().await.unwrap();
    watcher.watch_changes().await.expect("recording starts");

    // Another account, refused the history, listens for the same signal.
    rig.bus.set_allowed(&[actions::SET_CPU_POWER]);
    let (_refused_connection, refused) = history_proxy(&rig.bus).await;
    let mut overheard = refused.receive_changed().await.unwrap();
    let denied = pacer_dbus::HelperError::from_call(refused.watch_changes().await.unwrap_err());
    assert_eq!(denied.kind(), Some(ErrorKind::NotAuthorized));

    write_governor(&rig, "performance");
    let signal = tokio::time::timeout(Duration::from_secs(5), seen.next())
        .await
        .expect("the watcher is told")
        .unwrap();
    let event: serde_json::Value = serde_json::from_str(signal.args().unwrap().event()).unwrap();
    assert_eq!(event["setting"], "governor");
    let heard = tokio::time::timeout(Duration::from_secs(2), overheard.next()).await;
    if let Ok(Some(signal)) = heard {
        panic!(
            "a caller refused the history received a change: {}",
            signal.args().unwrap().event()
        );
    }
}

#[tokio::test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
async fn one_connection_s_watches_never_refuse_another_caller() {
    let rig = Rig::start("intel-hybrid");
    let (_connection, greedy) = history_proxy(&rig.bus).await;
    let first = greedy.watch_changes().await.unwrap();
    for _ in 0..100 {
        // One watch a connection: asked again, the same.
        assert_eq!(greedy.watch_changes().await.unwrap(), first);
    }
    // Many connections' watches, more than calls may be in flight at once, take no call.
    let mut others = Vec::new();
    for _ in 0..80 {
        let (connection, history) = history_proxy(&rig.bus).await;
        history.watch_changes().await.unwrap();
        others.push((connection, history));
    }
    let helper = rig.proxy().await;
    let snapshot = tokio::time::timeout(Duration::from_secs(10), helper.snapshot())
        .await
        .expect("answered in time")
        .expect("another caller's Snapshot is answered");
    assert!(snapshot.contains("\"schema\""), "{snapshot}");
}

#[tokio::test]
async fn a_caller_gone_while_polkit_decides_leaves_nothing_behind() {
    // Activated on the first call, exiting after a second without calls or watches.
    let activated = Activated::start("intel-hybrid");
    let bus = activated.bus;
    let polkit_call = |method: &str, args: &[&str]| {
        bus.call(
            "org.freedesktop.PolicyKit1",
            "/org/freedesktop/PolicyKit1/Authority",
            &format!("org.freedesktop.DBus.Mock.{method}"),
            args,
        )
        .unwrap()
    };
    // polkit keeps the history's decision until told to answer.
    polkit_call(
        "SimulateHangActions",
        &[&format!("['{}']", actions::READ_HISTORY)],
    );
    let (connection, history) = history_proxy(&bus).await;
    let asking = tokio::spawn(async move { history.watch_changes().await });
    let started = std::time::Instant::now();
    while !polkit_call("HaveHangingCalls", &[]).contains("true") {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the watch never reached polkit"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The caller leaves before polkit answers; then polkit allows it.
    asking.abort();
    drop(connection);
    tokio::time::sleep(Duration::from_millis(300)).await;
    polkit_call("ReleaseHangingCalls", &[]);
    // Nobody watches: the helper idles out.
    bus.wait_for_name_gone(pacer_dbus::BUS_NAME, Duration::from_secs(6));
}

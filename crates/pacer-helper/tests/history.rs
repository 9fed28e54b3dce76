// SPDX-License-Identifier: GPL-3.0-or-later
//! Who changed it, through the helper on a private system bus with the polkit mock: a watch
//! records a named process's write and announces it, the history returns it, a watch of
//! another caller cannot be stopped, polkit's refusal refuses the history, a watch ends
//! with its caller (and an idle helper exits only without one), and what the machine woke
//! with (logind's `PrepareForSleep` from python-dbusmock's logind) is the sleep's doing,
//! found changed across suspend, or a maximum frequency clamped after resume and restored.

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
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
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
            &format!(
                "echo performance > {} && {{ read _ || :; }}",
                file.display()
            ),
        ])
        .stdin(std::process::Stdio::piped())
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
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
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

#[tokio::test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
async fn a_watch_keeps_the_helper_running_and_without_one_it_exits_when_idle() {
    // Activated on the first call, exiting after a second without calls.
    let activated = Activated::start("intel-hybrid");
    let bus = activated.bus;
    let (connection, _) = connect(&bus).await;
    let history = History1Proxy::new(&connection).await.unwrap();
    history.watch_changes().await.expect("recording starts");
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert!(
        bus.has_owner(pacer_dbus::BUS_NAME),
        "the helper idled out under a watch"
    );
    // Its caller leaves: the watch ends, and the helper with it.
    drop(history);
    drop(connection);
    bus.wait_for_name_gone(pacer_dbus::BUS_NAME, Duration::from_secs(5));
}

/// The events after `since`, from the helper's history.
async fn events_after(history: &History1Proxy<'_>, since: u64) -> Vec<serde_json::Value> {
    serde_json::from_str(&history.history(since).await.unwrap()).unwrap()
}

#[tokio::test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
async fn pacers_own_writes_name_their_caller_and_the_kernels_side_follows() {
    let rig = Rig::start("intel-hybrid");
    let (connection, history) = history_proxy(&rig).await;
    history.watch_changes().await.expect("recording starts");
    let helper = pacer_dbus::Helper1Proxy::new(&connection).await.unwrap();
    let performance: pacer_core::values::Governor = typed("performance");
    helper.set_governor(&[2], &performance).await.unwrap();

    // The governor is Pacer's write for this process (the caller on the bus); the EPP that
    // intel_pstate forces with it is the kernel's, caused by that write — the simulated
    // kernel's side effect reached the recorder as no process's write.
    let events = events_after(&history, 0).await;
    let governor = events
        .iter()
        .find(|e| e["setting"] == "governor")
        .unwrap_or_else(|| panic!("no governor event in {events:#?}"));
    assert_eq!(governor["source"], "pacer");
    assert_eq!(governor["policies"], serde_json::json!([2]));
    assert_eq!(
        (&governor["old"], &governor["new"]),
        (&"powersave".into(), &"performance".into())
    );
    assert_eq!(governor["process"]["pid"], std::process::id());
    let epp = events
        .iter()
        .find(|e| e["setting"] == "epp")
        .unwrap_or_else(|| panic!("no EPP event in {events:#?}"));
    assert_eq!(
        (&epp["source"], &epp["cause"], &epp["process"]),
        (&"kernel".into(), &governor["id"], &serde_json::Value::Null)
    );
    assert_eq!(
        (&epp["old"], &epp["new"]),
        (&"balance_performance".into(), &"performance".into())
    );
    // The recording says when it began: before that, nothing is known.
    assert_eq!(
        (&events[0]["setting"], &events[0]["new"]),
        (&"recording".into(), &"started".into())
    );
    assert_eq!(events.len(), 3, "{events:#?}");

    // Back to powersave: intel_pstate restores the EPP it saved, again the kernel's.
    let powersave: pacer_core::values::Governor = typed("powersave");
    helper.set_governor(&[2], &powersave).await.unwrap();
    let after = events_after(&history, epp["id"].as_u64().unwrap()).await;
    let seen: Vec<(&str, &str, &str)> = after
        .iter()
        .map(|e| {
            (
                e["setting"].as_str().unwrap(),
                e["new"].as_str().unwrap(),
                e["source"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("governor", "powersave", "pacer"),
            ("epp", "balance_performance", "kernel")
        ]
    );
}

#[tokio::test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
async fn the_history_is_kept_for_the_boot_from_one_helper_to_the_next() {
    let mut rig = Rig::start("intel-hybrid");
    let run = tempfile::tempdir().unwrap();
    // Stops the helper (which keeps what it recorded), does `between`, starts the next.
    let restart = |rig: &mut Rig, between: &dyn Fn()| {
        if let Some(mut helper) = rig.helper.take() {
            helper.stop();
        }
        between();
        rig.helper = Some(rig.bus.pacer_helper_with(
            rig.tree.path(),
            rig.state.path(),
            &["--runtime-dir".as_ref(), run.path().as_os_str()],
        ));
    };
    restart(&mut rig, &|| ());
    let (connection, history) = history_proxy(&rig).await;
    history.watch_changes().await.unwrap();
    let helper = pacer_dbus::Helper1Proxy::new(&connection).await.unwrap();
    let performance: pacer_core::values::Governor = typed("performance");
    helper.set_governor(&[1], &performance).await.unwrap();
    let before = events_after(&history, 0).await;
    drop((history, helper, connection));

    // The next helper of this boot has them, the stop between the two included, and its
    // ids go on from them.
    restart(&mut rig, &|| ());
    let (_connection, history) = history_proxy(&rig).await;
    history.watch_changes().await.unwrap();
    let after = events_after(&history, 0).await;
    assert_eq!(after[..before.len()], before[..]);
    let settings: Vec<(&str, &str)> = after[before.len()..]
        .iter()
        .map(|e| (e["setting"].as_str().unwrap(), e["new"].as_str().unwrap()))
        .collect();
    assert_eq!(
        settings,
        [("recording", "stopped"), ("recording", "started")]
    );
    let ids: Vec<u64> = after.iter().map(|e| e["id"].as_u64().unwrap()).collect();
    assert!(ids.windows(2).all(|pair| pair[1] == pair[0] + 1), "{ids:?}");

    // What cannot be read is said and set aside: the helper starts a new history.
    drop(history);
    restart(&mut rig, &|| {
        std::fs::write(run.path().join("history.json"), "{ not json").unwrap();
    });
    let (_connection, history) = history_proxy(&rig).await;
    history.watch_changes().await.unwrap();
    let fresh = events_after(&history, 0).await;
    assert_eq!(fresh.len(), 1, "{fresh:#?}");
    assert_eq!(fresh[0]["id"], 1);
    let log = rig.helper.as_ref().unwrap().log();
    assert!(log.contains("starting a new history"), "{log}");
}

/// `file` of `policy` holds `value` as the firmware or the kernel sets it on resume: the file
/// replaced, no process's write (as the simulated kernel changes a file it was not written).
fn resume_sets(rig: &Rig, policy: u32, file: &str, value: &str) {
    let file = rig.root().join(format!("{CPUFREQ}/policy{policy}/{file}"));
    let replacement = file.with_extension("resume");
    std::fs::write(&replacement, format!("{value}\n")).unwrap();
    std::fs::rename(&replacement, &file).unwrap();
}

/// Has the logind stand-in say that the machine goes to sleep (`start`) or woke, until the
/// helper's recording shows it (its follower subscribes as the watch opens: the first word
/// may come before it listens). Returns the event's id.
async fn logind_says(rig: &Rig, history: &History1Proxy<'_>, start: bool) -> u64 {
    let value = if start { "suspending" } else { "resumed" };
    for _ in 0..10 {
        let since = events_after(history, 0).await;
        let last = since.last().and_then(|e| e["id"].as_u64()).unwrap_or(0);
        rig.bus
            .prepare_for_sleep(start)
            .expect("the logind mock emits PrepareForSleep");
        tokio::time::sleep(Duration::from_millis(300)).await;
        if let Some(event) = events_after(history, last)
            .await
            .into_iter()
            .find(|e| e["setting"] == "sleep" && e["new"] == value)
        {
            return event["id"].as_u64().unwrap();
        }
    }
    panic!("the helper never recorded the machine {value}");
}

#[tokio::test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
async fn what_the_machine_woke_with_is_found_changed_across_suspend() {
    use pacer_core::history::{Event, Setting, Source};
    use pacer_core::suspend::changed_across_suspend;
    use pacer_core::{Snapshot, SysRoot};

    let rig = Rig::start("intel-hybrid");
    let _logind = rig.bus.dbusmock("logind", "org.freedesktop.login1");
    let (_connection, history) = history_proxy(&rig).await;
    history.watch_changes().await.expect("recording starts");
    let slept = logind_says(&rig, &history, true).await;

    // During the sleep the E-cores' EPP becomes performance, as firmware or the kernel does
    // on resume.
    for policy in 8..16 {
        resume_sets(&rig, policy, "energy_performance_preference", "performance");
    }
    // Longer than the slow re-read's period: while asleep it waits.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let woke = logind_says(&rig, &history, false).await;

    let events: Vec<Event> =
        serde_json::from_str(&history.history(slept - 1).await.unwrap()).unwrap();
    let changed: Vec<&Event> = events
        .iter()
        .filter(|e| e.setting == Setting::Epp)
        .collect();
    assert_eq!(changed.len(), 8, "{events:#?}");
    for event in &changed {
        assert_eq!(
            (
                event.source,
                event.cause,
                event.old.as_deref(),
                event.new.as_str()
            ),
            (
                Source::Kernel,
                Some(woke),
                Some("balance_performance"),
                "performance"
            ),
            "{event:?}"
        );
    }

    // The finding, as the window and the tray work it out from the recording.
    let snapshot = Snapshot::read(&SysRoot::new(rig.root())).unwrap();
    let findings = changed_across_suspend(&snapshot, &events);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0].policies, (8..16).collect::<Vec<u32>>());
    assert_eq!(
        findings[0].summary,
        "EPP on policy 8-15 changed across suspend: balance_performance → performance"
    );
}

#[tokio::test]
#[ignore = "needs root, for fanotify: build-aux/test.sh --lane system runs it"]
async fn a_maximum_frequency_the_machine_woke_with_lower_is_found_and_restored() {
    use pacer_core::findings::{FindingKind, FixAction};
    use pacer_core::history::{Event, Setting, Source};
    use pacer_core::suspend::clamped_after_resume;
    use pacer_core::{Snapshot, SysRoot};

    let rig = Rig::start("intel-hybrid");
    let _logind = rig.bus.dbusmock("logind", "org.freedesktop.login1");
    let (connection, history) = history_proxy(&rig).await;
    history.watch_changes().await.expect("recording starts");
    let slept = logind_says(&rig, &history, true).await;
    // P-cores 2 and 3 wake held at 400 MHz, "stuck at 400 MHz after resume".
    for policy in [2, 3] {
        resume_sets(&rig, policy, "scaling_max_freq", "400000");
    }
    let woke = logind_says(&rig, &history, false).await;

    let recorded = |events: &str| -> Vec<Event> { serde_json::from_str(events).unwrap() };
    let events = recorded(&history.history(slept - 1).await.unwrap());
    // Each found lowered on waking, the sleep's doing.
    let lowered: Vec<&Event> = events
        .iter()
        .filter(|e| e.setting == Setting::MaxFreq)
        .collect();
    let policies: Vec<&[u32]> = lowered.iter().map(|e| &e.policies[..]).collect();
    assert_eq!(policies, [[2], [3]], "{events:#?}");
    for event in lowered {
        assert_eq!(
            (
                event.source,
                event.cause,
                event.old.as_deref(),
                &event.new[..]
            ),
            (Source::Kernel, Some(woke), Some("4700000"), "400000"),
            "{event:?}"
        );
    }

    // The finding, as the window, the tray and `pacerctl fix` work it out from the recording.
    let machine = || Snapshot::read(&SysRoot::new(rig.root())).unwrap();
    let findings = clamped_after_resume(&machine(), &events);
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0].kind, FindingKind::ClampedAfterResume);
    assert_eq!(
        findings[0].summary,
        "The maximum frequency of policy 2-3 came back from sleep lower: 4.7 GHz → 400 MHz"
    );

    // Its fix, through the helper as they apply it: set back, recorded as Pacer's, and the
    // finding gone.
    let FixAction::RestoreMaxFrequency { policies, khz } = &findings[0].fix.action else {
        panic!("{:?}", findings[0].fix);
    };
    let helper = pacer_dbus::Helper1Proxy::new(&connection).await.unwrap();
    let back = helper.set_max_frequency(policies, khz.0).await.unwrap();
    assert_eq!(back, [(2, "4700000".to_owned()), (3, "4700000".to_owned())]);
    let events = recorded(&history.history(slept - 1).await.unwrap());
    let restored = events.iter().filter(|e| {
        e.setting == Setting::MaxFreq && e.source == Source::Pacer && e.new == "4700000"
    });
    assert_eq!(restored.count(), 2, "{events:#?}");
    assert!(clamped_after_resume(&machine(), &events).is_empty());
}

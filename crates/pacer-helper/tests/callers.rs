// SPDX-License-Identifier: GPL-3.0-or-later
//! The helper and its callers on a private system bus: every method refuses an unauthorised
//! caller, each caller's saved settings and measurement are its own, departures count only
//! when the bus reports them, and the journal belongs to one boot.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use common::*;
use pacer_core::values::{DriverMode, Epp, Governor};
use pacer_dbus::{actions, ErrorKind, Problem};
use pacer_testrig::{Service, SystemBus};

/// Waits until `done` holds, for at most `limit`.
async fn eventually(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A model's tree without the simulation's state: the helper takes it for the real machine
/// and measures on this machine's CPUs. CPU 3 is taken offline.
fn real_tree(model: &str) -> tempfile::TempDir {
    let tree = pacer_testrig::model_tree(model);
    fs::remove_dir_all(tree.path().join(".pacer-sim")).unwrap();
    fs::write(
        tree.path().join("sys/devices/system/cpu/cpu3/online"),
        "0\n",
    )
    .unwrap();
    // Read-only, as in sysfs, where root alone writes through that: made writable first.
    let online = tree.path().join("sys/devices/system/cpu/online");
    fs::set_permissions(&online, fs::Permissions::from_mode(0o644)).unwrap();
    fs::write(online, "0-2,4-15\n").unwrap();
    tree
}

#[tokio::test]
async fn every_method_refuses_an_unauthorised_caller_and_changes_nothing() {
    let rig = Rig::start("arm-rk3588");
    let helper = rig.proxy().await;
    let saved = helper.save_settings().await.unwrap();
    rig.bus.set_allowed(&[]);
    let before = rig.tree_contents();
    let refusals = [
        (error(helper.set_eas(false).await), actions::SET_SCHEDULER),
        (
            error(helper.restore_settings(saved).await),
            actions::RUN_MEASUREMENT,
        ),
        (
            error(helper.measure_ramp(&[0], 1).await),
            actions::RUN_MEASUREMENT,
        ),
        (
            error(helper.cancel_measurement().await),
            actions::RUN_MEASUREMENT,
        ),
        // Refused before the machine and the bus are read to find what to write.
        (
            error(helper.reapply_profile_epp().await),
            actions::SET_CPU_POWER,
        ),
    ];
    for (refusal, action) in refusals {
        assert_eq!(
            refusal.problem(),
            Some(&Problem::NotAuthorized {
                action: action.to_owned()
            }),
            "{refusal:?}"
        );
    }
    // Allowed to change governor, EPP and turbo is not allowed to switch EAS.
    rig.bus.set_allowed(&[actions::SET_CPU_POWER]);
    assert_eq!(
        error(helper.set_eas(false).await).problem(),
        Some(&Problem::NotAuthorized {
            action: actions::SET_SCHEDULER.to_owned()
        })
    );
    assert_eq!(rig.tree_contents(), before, "byte for byte unchanged");
    assert!(rig
        .state
        .path()
        .join(format!("settings-{saved}.json"))
        .exists());
}

#[tokio::test]
async fn a_forged_departure_restores_nothing_and_a_real_one_does() {
    let rig = Rig::start("amd-zen4");
    let before = rig.tree_contents();
    let (caller, helper) = connect(&rig.bus).await;
    let caller_name = caller.unique_name().unwrap().to_string();
    helper.save_settings().await.unwrap();
    helper
        .set_governor(&[0, 1], &typed::<Governor>("performance"))
        .await
        .unwrap();
    let changed = rig.tree_contents();

    // Another peer tells the helper, in the bus's own words, that the caller left.
    let (forger, _) = connect(&rig.bus).await;
    let dbus = zbus::fdo::DBusProxy::new(&forger).await.unwrap();
    let helper_name = dbus
        .get_name_owner(pacer_dbus::BUS_NAME.try_into().unwrap())
        .await
        .unwrap();
    forger
        .emit_signal(
            Some(helper_name.as_str()),
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "NameOwnerChanged",
            &(caller_name.as_str(), caller_name.as_str(), ""),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(rig.tree_contents(), changed, "nothing restored");
    assert_eq!(fs::read_dir(rig.state.path()).unwrap().count(), 1);

    drop(helper);
    drop(caller);
    let deadline = Instant::now() + Duration::from_secs(5);
    while rig.tree_contents() != before {
        assert!(Instant::now() < deadline, "not restored after leaving");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn only_the_caller_that_saved_settings_restores_them() {
    let rig = Rig::start("intel-hybrid");
    let (_first, owner) = connect(&rig.bus).await;
    let (_second, other) = connect(&rig.bus).await;
    let id = owner.save_settings().await.unwrap();
    assert_eq!(
        owner.save_settings().await.unwrap(),
        id,
        "one entry a caller"
    );
    owner
        .set_governor(&[0], &typed::<Governor>("performance"))
        .await
        .unwrap();
    let (kind, problem, _) = refusal(other.restore_settings(id).await);
    assert_eq!(
        (kind, problem),
        (ErrorKind::NotAuthorized, Problem::NotYourSettings { id })
    );
    assert_eq!(rig.read(0, "scaling_governor"), "performance");
    owner.restore_settings(id).await.unwrap();
    assert_eq!(rig.read(0, "scaling_governor"), "powersave");
}

#[tokio::test]
async fn measurements_are_bounded_one_at_a_time_and_their_callers_own() {
    let rig = Rig::with_tree(real_tree("intel-hybrid"));
    let (_other_connection, other) = connect(&rig.bus).await;
    for (cpus, trials, problem) in [
        (vec![], 1, Problem::CpuCount { count: 0, max: 16 }),
        (
            (0..17).collect(),
            1,
            Problem::CpuCount { count: 17, max: 16 },
        ),
        (vec![1], 0, Problem::TrialCount { trials: 0, max: 20 }),
        (
            vec![1],
            21,
            Problem::TrialCount {
                trials: 21,
                max: 20,
            },
        ),
        (
            (0..16).collect(),
            5,
            Problem::TrialCount { trials: 5, max: 4 },
        ),
        (vec![3], 1, Problem::NoOnlineCpu { cpu: 3 }),
        // In the tree, but not a CPU of the machine the helper runs on.
        (vec![15], 1, Problem::CpuUnavailable { cpu: 15 }),
    ] {
        let (kind, refused, _) = refusal(other.measure_ramp(&cpus, trials).await);
        assert_eq!((kind, refused), (ErrorKind::InvalidArgument, problem));
    }

    // A long measurement on this machine's CPU 1 (5 trials of 1.6 s).
    let (owner_connection, owner) = connect(&rig.bus).await;
    let mut progress = owner.receive_measure_progress().await.unwrap();
    let measuring = tokio::spawn(async move { owner.measure_ramp(&[1], 5).await });
    futures_util::StreamExt::next(&mut progress).await.unwrap();
    let (kind, problem, _) = refusal(other.measure_ramp(&[0], 1).await);
    assert_eq!(
        (kind, problem),
        (ErrorKind::Busy, Problem::MeasurementRunning)
    );
    let (kind, problem, _) = refusal(other.cancel_measurement().await);
    assert_eq!(
        (kind, problem),
        (ErrorKind::NotAuthorized, Problem::NotYourMeasurement)
    );

    // The caller leaves: its measurement stops, well before its five trials are done.
    let left = Instant::now();
    measuring.abort();
    drop(progress);
    drop(owner_connection);
    loop {
        match other.measure_ramp(&[1], 1).await {
            Ok(report) => {
                let report: serde_json::Value = serde_json::from_str(&report).unwrap();
                assert_eq!(report["runs"][0]["cpu"], 1);
                break;
            }
            Err(error) => {
                let error = pacer_dbus::HelperError::from_call(error);
                assert_eq!(error.problem(), Some(&Problem::MeasurementRunning));
                assert!(left.elapsed() < Duration::from_secs(4), "not cancelled");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// An entry as an earlier helper wrote it.
fn entry(id: u32, boot_id: &str, governor: &str) -> String {
    serde_json::json!({
        "id": id,
        "owner": ":1.42",
        "boot_id": boot_id,
        "settings": {
            "intel_status": null, "amd_status": null,
            "policies": [{"id": 0, "governor": governor, "epp": null}],
            "no_turbo": null, "boost": null, "eas": null
        }
    })
    .to_string()
}

#[tokio::test]
async fn the_journal_belongs_to_one_boot_and_survives_damage() {
    let tree = pacer_testrig::model_tree("intel-hybrid-nosmt");
    let state = tempfile::tempdir().unwrap();
    fs::write(
        state.path().join("settings-1.json"),
        entry(1, "a-boot-long-gone", "performance"),
    )
    .unwrap();
    fs::write(state.path().join("settings-2.json"), "{\"id\": 2, \"own").unwrap();
    let bus = SystemBus::start();
    let _polkit = bus.polkit(&actions::ALL);
    let before = fs::read_to_string(
        tree.path()
            .join("sys/devices/system/cpu/cpufreq/policy0/scaling_governor"),
    )
    .unwrap();
    let mut command = bus.command(HELPER);
    command
        .arg("--sysfs-root")
        .arg(tree.path())
        .arg("--state-dir")
        .arg(state.path())
        .args(["--idle-timeout", "1"]);
    let mut helper = Service::spawn_command("pacer-helper", bus.dir(), &mut command);
    bus.wait_for_name(pacer_dbus::BUS_NAME, Duration::from_secs(10));
    // It starts, applies nothing, and still idles out.
    eventually(Duration::from_secs(5), "the helper idles out", || {
        !helper.is_running()
    })
    .await;
    let log = helper.log();
    assert!(
        log.contains("discarded saved settings 1: they are from another boot"),
        "{log}"
    );
    assert!(
        log.contains("settings-2.json: not a journal entry"),
        "{log}"
    );
    let after = fs::read_to_string(
        tree.path()
            .join("sys/devices/system/cpu/cpufreq/policy0/scaling_governor"),
    )
    .unwrap();
    assert_eq!(after, before, "never applied");
    let left: Vec<_> = fs::read_dir(state.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["discarded"], "both set aside");
}

#[tokio::test]
async fn sigterm_restores_before_exiting() {
    let mut rig = Rig::start("intel-hybrid");
    let before = rig.tree_contents();
    let (_connection, helper) = connect(&rig.bus).await;
    helper.save_settings().await.unwrap();
    helper.set_driver_mode(&DriverMode::Passive).await.unwrap();
    helper
        .set_governor(&[0, 1], &typed::<Governor>("performance"))
        .await
        .unwrap();
    assert_ne!(rig.tree_contents(), before);
    rig.helper.as_mut().unwrap().stop();
    assert_eq!(rig.tree_contents(), before, "restored as it stopped");
    assert_eq!(fs::read_dir(rig.state.path()).unwrap().count(), 0);
    let log = rig.helper.as_ref().unwrap().log();
    assert!(log.contains("restored the settings saved by"), "{log}");
}

#[tokio::test]
async fn snapshot_answers_from_a_reading_no_older_than_a_second() {
    let rig = Rig::start("amd-zen4");
    let helper = rig.proxy().await;
    let first = helper.snapshot().await.unwrap();
    // Behind the helper's back: not seen within the second...
    let epp = rig
        .root()
        .join(format!("{CPUFREQ}/policy2/energy_performance_preference"));
    fs::write(&epp, "power\n").unwrap();
    assert_eq!(helper.snapshot().await.unwrap(), first);
    // ...seen after it,
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let later: serde_json::Value = serde_json::from_str(&helper.snapshot().await.unwrap()).unwrap();
    assert_eq!(later["policies"][2]["epp"], "power");
    // and the helper's own change is seen at once.
    helper.set_epp(&[3], &typed::<Epp>("power")).await.unwrap();
    let now: serde_json::Value = serde_json::from_str(&helper.snapshot().await.unwrap()).unwrap();
    assert_eq!(now["policies"][3]["epp"], "power");
}

#[tokio::test]
async fn a_call_as_the_helper_idles_out_is_answered() {
    let activated = Activated::start("arm-rk3588");
    let bus = activated.bus;
    let (_connection, helper) = connect(&bus).await;
    // The helper decides to exit between 1 and 1.5 s after a call (it looks every 0.5 s):
    // calls land before, during and after that moment.
    let mut exits = 0;
    for step in 0..12u64 {
        let owner_before = bus.has_owner(pacer_dbus::BUS_NAME);
        helper.snapshot().await.unwrap_or_else(|error| {
            panic!("call {step} at {} ms was lost: {error}", 950 + step * 50)
        });
        exits += u32::from(!owner_before);
        tokio::time::sleep(Duration::from_millis(950 + step * 50)).await;
    }
    assert!(
        exits >= 2,
        "the helper idled out between calls ({exits} times)"
    );
}

/// What the helper asked polkit, as the polkit mock recorded it: each call's details and
/// flags.
async fn polkit_calls(
    connection: &zbus::Connection,
) -> Vec<(String, std::collections::HashMap<String, String>, u32)> {
    let reply = connection
        .call_method(
            Some("org.freedesktop.PolicyKit1"),
            "/org/freedesktop/PolicyKit1/Authority",
            Some("org.freedesktop.DBus.Mock"),
            "GetMethodCalls",
            &("CheckAuthorization",),
        )
        .await
        .unwrap();
    let calls: Vec<(u64, Vec<zbus::zvariant::OwnedValue>)> = reply.body().deserialize().unwrap();
    calls
        .into_iter()
        .map(|(_, args)| {
            let action = String::try_from(args[1].try_clone().unwrap()).unwrap();
            let details: std::collections::HashMap<String, String> =
                args[2].try_clone().unwrap().try_into().unwrap();
            let flags = u32::try_from(args[3].try_clone().unwrap()).unwrap();
            (action, details, flags)
        })
        .collect()
}

#[tokio::test]
async fn polkit_hears_what_would_change_and_may_ask_only_when_the_caller_can_wait() {
    let rig = Rig::start("intel-hybrid");
    let (connection, helper) = connect(&rig.bus).await;
    // The proxy marks its calls as able to wait for a password.
    helper
        .set_governor(&[0, 1, 2, 3, 8], &typed::<Governor>("performance"))
        .await
        .unwrap();
    // A plain call does not.
    connection
        .call_method(
            Some(pacer_dbus::BUS_NAME),
            pacer_dbus::OBJECT_PATH,
            Some(pacer_dbus::INTERFACE),
            "SetEpp",
            &(vec![5u32], "power"),
        )
        .await
        .unwrap();
    helper.set_driver_mode(&DriverMode::Passive).await.unwrap();
    let calls = polkit_calls(&connection).await;
    let expect = |setting: &str, value: &str, policies: &str| {
        [
            ("setting", setting),
            ("value", value),
            ("policies", policies),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect::<std::collections::HashMap<_, _>>()
    };
    assert_eq!(
        calls,
        [
            (
                actions::SET_CPU_POWER.to_owned(),
                expect("governor", "performance", "0-3,8"),
                1
            ),
            (
                actions::SET_CPU_POWER.to_owned(),
                expect("epp", "power", "5"),
                0
            ),
            (
                actions::SET_DRIVER_MODE.to_owned(),
                expect("mode", "passive", "all"),
                1
            ),
        ]
    );
}

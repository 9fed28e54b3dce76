// SPDX-License-Identifier: GPL-3.0-or-later
//! The helper on a private system bus, with python-dbusmock's polkitd as polkit, changing a
//! simulated machine through the kernel's rules.
//!
//! Longer than most files: one scenario per method and refusal, each a few lines over the
//! shared rig (`common`); split, each file would start the same private bus.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::time::Duration;

use futures_util::StreamExt;
use pacer_dbus::{actions, ErrorKind, Helper1Proxy, HelperError, PolicyValue, Problem};

mod common;

use common::*;
use pacer_core::values::{DriverMode, Epp, Governor};

#[tokio::test]
async fn an_allowed_call_writes_reads_back_and_signals() {
    let rig = Rig::start("intel-hybrid");
    let helper = rig.proxy().await;
    let mut changes = helper.receive_changed().await.unwrap();
    let back = helper
        .set_governor(&[0, 1], &typed::<Governor>("performance"))
        .await
        .unwrap();
    assert_eq!(
        back,
        [(0, "performance".to_owned()), (1, "performance".to_owned())]
    );
    assert_eq!(rig.read(0, "scaling_governor"), "performance");
    assert_eq!(
        rig.read(0, "energy_performance_preference"),
        "performance",
        "the kernel's rule"
    );
    let signal = tokio::time::timeout(Duration::from_secs(2), changes.next())
        .await
        .unwrap()
        .unwrap();
    let args = signal.args().unwrap();
    assert_eq!((args.what(), args.policies()), (&"governor", &vec![0, 1]));

    let back = helper.set_epp(&[5], &typed::<Epp>("power")).await.unwrap();
    assert_eq!(back, [(5, "power".to_owned())]);
    assert!(
        helper
            .set_boost(&(0..16).collect::<Vec<u32>>(), false)
            .await
            .unwrap()[0]
            .1
            == "0",
        "turbo reads back off"
    );
    assert_eq!(rig.read(5, "energy_performance_preference"), "power");
    let document: serde_json::Value =
        serde_json::from_str(&helper.snapshot().await.unwrap()).unwrap();
    assert_eq!(document["driver"]["boost"], false);
    assert_eq!(document["schema"], 2);
}

#[tokio::test]
async fn a_denied_call_changes_nothing() {
    let rig = Rig::start("intel-hybrid-nosmt");
    let helper = rig.proxy().await;
    rig.bus.set_allowed(&[]);
    let before = rig.tree_contents();
    for failure in [
        error(
            helper
                .set_governor(&[0], &typed::<Governor>("performance"))
                .await,
        ),
        error(helper.set_epp(&[0], &typed::<Epp>("power")).await),
        error(
            helper
                .set_boost(&(0..12).collect::<Vec<u32>>(), false)
                .await,
        ),
        error(helper.set_driver_mode(&DriverMode::Passive).await),
        error(helper.save_settings().await),
    ] {
        assert_eq!(
            failure.kind(),
            Some(ErrorKind::NotAuthorized),
            "{failure:?}"
        );
    }
    assert_eq!(rig.tree_contents(), before, "byte for byte unchanged");
    // Each action is checked on its own: allowing one does not allow the others.
    rig.bus.set_allowed(&[actions::SET_CPU_POWER]);
    helper
        .set_governor(&[0], &typed::<Governor>("performance"))
        .await
        .unwrap();
    assert_eq!(
        refusal(helper.set_driver_mode(&DriverMode::Passive).await).1,
        Problem::NotAuthorized {
            action: actions::SET_DRIVER_MODE.to_owned()
        }
    );
}

#[tokio::test]
async fn bad_input_of_every_kind_is_named_and_changes_nothing() {
    let rig = Rig::start("intel-hybrid");
    let helper = rig.proxy().await;
    let before = rig.tree_contents();
    let huge: Vec<u32> = (0..9000).collect();
    let cases: Vec<(HelperError, &str)> = vec![
        (
            error(
                helper
                    .set_governor(&[99], &typed::<Governor>("powersave"))
                    .await,
            ),
            "there is no policy 99",
        ),
        (
            error(
                helper
                    .set_governor(&[0], &typed::<Governor>("schedutil"))
                    .await,
            ),
            "does not offer the schedutil governor",
        ),
        (
            error(
                raw_call::<Vec<PolicyValue>>(
                    &helper,
                    "SetGovernor",
                    &(&[0u32][..], "../../../../etc/passwd"),
                )
                .await,
            ),
            "is not a governor name",
        ),
        (
            error(
                helper
                    .set_governor(&[], &typed::<Governor>("powersave"))
                    .await,
            ),
            "no policies given",
        ),
        (
            error(
                helper
                    .set_governor(&huge, &typed::<Governor>("powersave"))
                    .await,
            ),
            "more than any machine has",
        ),
        (
            error(raw_call::<Vec<PolicyValue>>(&helper, "SetEpp", &(&[0u32][..], "256")).await),
            "is not an energy-performance preference",
        ),
        (
            error(raw_call::<Vec<PolicyValue>>(&helper, "SetEpp", &(&[0u32][..], "turbo")).await),
            "is not an energy-performance preference",
        ),
        (
            error(
                raw_call::<Vec<PolicyValue>>(&helper, "SetEpp", &(&[0u32][..], "/sys/kernel"))
                    .await,
            ),
            "is not an energy-performance preference",
        ),
        (
            error(raw_call::<String>(&helper, "SetDriverMode", &("sideways",)).await),
            "is not a mode of this driver",
        ),
        (
            error(helper.restore_settings(42).await),
            "there are no saved settings 42",
        ),
    ];
    for (failure, words) in cases {
        assert_eq!(
            failure.kind(),
            Some(ErrorKind::InvalidArgument),
            "{words}: {failure:?}"
        );
        let message = failure.to_string();
        assert!(message.contains(words), "{message}");
    }
    // EAS is impossible on this machine (SMT): not supported, with the reasons.
    let (kind, _, message) = refusal(helper.set_eas(true).await);
    assert_eq!(kind, ErrorKind::NotSupported);
    assert!(message.contains("SMT"), "{message}");
    // Wrong D-Bus types never reach the helper's code: zbus refuses them, naming both
    // signatures.
    let connection = zbus::connection::Builder::address(rig.bus.address())
        .unwrap()
        .build()
        .await
        .unwrap();
    let wrong = connection
        .call_method(
            Some(pacer_dbus::BUS_NAME),
            pacer_dbus::OBJECT_PATH,
            Some(pacer_dbus::INTERFACE),
            "SetGovernor",
            &("powersave", vec![0u32]),
        )
        .await
        .unwrap_err();
    assert!(
        wrong
            .to_string()
            .contains("Signature mismatch: got `(sau)`, expected `(aus)`"),
        "{wrong}"
    );
    assert_eq!(rig.tree_contents(), before);
}

/// The sequence of `docs/kernel.md` 2.4 through the helper: EBUSY surfaces as Busy, explained.
#[tokio::test]
async fn the_epp_restore_sequence_surfaces_busy_in_words() {
    let rig = Rig::start("intel-hybrid");
    let helper = rig.proxy().await;
    let all: Vec<u32> = (0..16).collect();
    helper
        .set_governor(&all, &typed::<Governor>("performance"))
        .await
        .unwrap();
    helper
        .set_epp(&all, &typed::<Epp>("performance"))
        .await
        .unwrap();
    let (kind, problem, message) = refusal(
        helper
            .set_epp(&[3], &typed::<Epp>("balance_performance"))
            .await,
    );
    assert_eq!(kind, ErrorKind::Busy);
    assert_eq!(
        problem,
        Problem::EppHeldByGovernor {
            policies: [3].into_iter().collect()
        }
    );
    assert!(
        message.contains("performance governor on policy 3"),
        "{message}"
    );
    assert!(
        message.contains("set the governor to powersave first"),
        "{message}"
    );
    helper
        .set_governor(&all, &typed::<Governor>("powersave"))
        .await
        .unwrap();
    assert_eq!(
        rig.read(3, "energy_performance_preference"),
        "balance_performance"
    );
}

#[tokio::test]
async fn driver_mode_and_eas_through_the_helper() {
    let rig = Rig::start("intel-hybrid-nosmt");
    let helper = rig.proxy().await;
    assert_eq!(
        helper.set_driver_mode(&DriverMode::Passive).await.unwrap(),
        "passive"
    );
    assert_eq!(rig.read(0, "scaling_driver"), "intel_cpufreq");
    assert_eq!(helper.set_eas(false).await.unwrap(), "0");
    assert_eq!(helper.set_eas(true).await.unwrap(), "1");
}

#[tokio::test]
async fn boost_for_some_policies_or_all() {
    let rig = Rig::start("amd-zen4");
    let helper = rig.proxy().await;
    // Some policies: their own switches.
    let back = helper.set_boost(&[2, 3], false).await.unwrap();
    assert_eq!(back, [(2, "0".to_owned()), (3, "0".to_owned())]);
    assert_eq!(rig.read(2, "boost"), "0");
    assert_eq!(rig.read(4, "boost"), "1");
    // All of them: the machine-wide switch.
    helper
        .set_boost(&(0..16).collect::<Vec<u32>>(), false)
        .await
        .unwrap();
    let global =
        fs::read_to_string(rig.root().join("sys/devices/system/cpu/cpufreq/boost")).unwrap();
    assert_eq!(global, "0\n");

    // intel_pstate has only no_turbo: one policy alone cannot be switched.
    let intel = Rig::start("intel-hybrid");
    let helper = intel.proxy().await;
    let (kind, problem, message) = refusal(helper.set_boost(&[1], false).await);
    assert_eq!(
        (kind, problem),
        (ErrorKind::NotSupported, Problem::BoostOnlyForAll)
    );
    assert!(message.contains("all policies at once"), "{message}");
}

/// A machine with `count` per-CPU policies, so each client can own one.
fn wide_machine(count: u32) -> tempfile::TempDir {
    let mut machine = pacer_core::sim::model("intel-hybrid-nosmt").unwrap();
    let cpu = machine.cpus[0].clone();
    let policy = machine.policies[0].clone();
    machine.cpus = (0..count)
        .map(|id| {
            let mut cpu = cpu.clone();
            cpu.id = id;
            cpu.core_cpus = vec![id];
            cpu
        })
        .collect();
    machine.policies = (0..count)
        .map(|id| {
            let mut policy = policy.clone();
            policy.id = id;
            policy.cpus = vec![id];
            policy
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    machine.render(dir.path()).unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_clients_fifty_calls_each() {
    const CLIENTS: u32 = 20;
    let rig = Rig::with_tree(wide_machine(CLIENTS));
    let mut tasks = Vec::new();
    for client in 0..CLIENTS {
        let helper = rig.proxy().await;
        tasks.push(tokio::spawn(async move {
            // Each client owns policy `client`; the last accepted write per file is its own.
            let mut last_governor = "powersave".to_owned();
            let mut last_epp = "balance_performance".to_owned();
            let mut unexpected = Vec::new();
            for call in 0..50u32 {
                let pick = (call * 7 + client) % 5;
                let result = match pick {
                    0 => helper
                        .set_governor(&[client], &typed::<Governor>("performance"))
                        .await
                        .map(|_| ("governor", "performance")),
                    1 => helper
                        .set_governor(&[client], &typed::<Governor>("powersave"))
                        .await
                        .map(|_| ("governor", "powersave")),
                    2 => helper
                        .set_epp(&[client], &typed::<Epp>("power"))
                        .await
                        .map(|_| ("epp", "power")),
                    3 => raw_call::<Vec<PolicyValue>>(
                        &helper,
                        "SetEpp",
                        &(&[client][..], "nonsense"),
                    )
                    .await
                    .map(|_| ("epp", "nonsense")),
                    _ => helper
                        .set_epp(&[client], &typed::<Epp>("balance_power"))
                        .await
                        .map(|_| ("epp", "balance_power")),
                };
                match result {
                    Ok(("governor", value)) => {
                        last_governor = value.to_owned();
                        // The kernel pins EPP to performance and restores on leaving.
                        if value == "performance" {
                            last_epp = "performance".to_owned();
                        }
                    }
                    Ok((_, value)) => last_epp = value.to_owned(),
                    Err(error) => match HelperError::from_call(error).kind() {
                        // EPP under the performance governor, and the nonsense value.
                        Some(ErrorKind::Busy | ErrorKind::InvalidArgument) => {}
                        other => unexpected.push(format!("{other:?}")),
                    },
                }
            }
            (client, last_governor, last_epp, unexpected)
        }));
    }
    for task in tasks {
        let (client, governor, epp, unexpected) =
            tokio::time::timeout(Duration::from_secs(120), task)
                .await
                .expect("no deadlock")
                .unwrap();
        assert!(unexpected.is_empty(), "client {client}: {unexpected:?}");
        assert_eq!(
            rig.read(client, "scaling_governor"),
            governor,
            "client {client}"
        );
        let now = rig.read(client, "energy_performance_preference");
        if governor == "performance" {
            assert_eq!(now, "performance");
        } else if epp != "performance" {
            assert_eq!(now, epp, "client {client}");
        }
    }
}

#[tokio::test]
async fn a_crash_mid_change_is_undone_on_the_next_start() {
    let mut rig = Rig::start("intel-hybrid-nosmt");
    let helper = rig.proxy().await;
    let before = rig.tree_contents();
    let id = helper.save_settings().await.unwrap();
    assert!(rig
        .state
        .path()
        .join(format!("settings-{id}.json"))
        .exists());
    helper.set_driver_mode(&DriverMode::Passive).await.unwrap();
    helper
        .set_governor(&[0, 1, 2], &typed::<Governor>("performance"))
        .await
        .unwrap();
    helper.set_epp(&[5], &typed::<Epp>("power")).await.unwrap();

    // SIGKILL: no chance to clean up.
    let pid = rig.helper.as_ref().unwrap().pid().unwrap();
    std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    rig.bus
        .wait_for_name_gone(pacer_dbus::BUS_NAME, Duration::from_secs(5));
    assert_eq!(
        rig.read(0, "scaling_driver"),
        "intel_cpufreq",
        "still changed"
    );

    rig.start_helper();
    assert_eq!(
        rig.tree_contents(),
        before,
        "the next start restored everything"
    );
    assert!(
        fs::read_dir(rig.state.path()).unwrap().next().is_none(),
        "journal emptied"
    );
}

#[tokio::test]
async fn a_caller_that_leaves_gets_its_settings_back() {
    let rig = Rig::start("amd-zen4");
    let before = rig.tree_contents();
    {
        let helper = rig.proxy().await;
        helper.save_settings().await.unwrap();
        helper
            .set_governor(&[0, 1], &typed::<Governor>("performance"))
            .await
            .unwrap();
        assert_eq!(rig.read(0, "energy_performance_preference"), "performance");
    }
    // The connection is gone with the proxy; the helper restores within moments.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while rig.tree_contents() != before {
        assert!(std::time::Instant::now() < deadline, "not restored");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn idle_exit_and_activation() {
    let activated = Activated::start("arm-rk3588");
    let bus = activated.bus;
    assert!(
        !bus.has_owner(pacer_dbus::BUS_NAME),
        "not running before the first call"
    );
    let connection = zbus::connection::Builder::address(bus.address())
        .unwrap()
        .build()
        .await
        .unwrap();
    let helper = Helper1Proxy::new(&connection).await.unwrap();
    assert_eq!(
        helper
            .set_governor(&[4], &typed::<Governor>("performance"))
            .await
            .unwrap()[0]
            .1,
        "performance"
    );
    bus.wait_for_name_gone(pacer_dbus::BUS_NAME, Duration::from_secs(5));
    assert_eq!(
        helper
            .set_governor(&[4], &typed::<Governor>("schedutil"))
            .await
            .unwrap()[0]
            .1,
        "schedutil"
    );
}

/// The interface `name` as written in `data/` and as the helper introspects, without
/// comments and spaces.
fn interface_of(xml: &str, name: &str) -> String {
    let start = xml
        .find(&format!("<interface name=\"{name}\">"))
        .unwrap_or_else(|| panic!("no {name} in {xml}"));
    let end = start + xml[start..].find("</interface>").unwrap();
    let mut text = xml[start..end].to_owned();
    while let (Some(open), Some(close)) = (text.find("<!--"), text.find("-->")) {
        text.replace_range(open..close + 3, "");
    }
    text.split_whitespace().collect()
}

#[tokio::test]
async fn the_interface_xml_in_data_is_what_the_helper_serves() {
    let rig = Rig::start("vm");
    let connection = zbus::connection::Builder::address(rig.bus.address())
        .unwrap()
        .build()
        .await
        .unwrap();
    let introspectable = zbus::fdo::IntrospectableProxy::builder(&connection)
        .destination(pacer_dbus::BUS_NAME)
        .unwrap()
        .path(pacer_dbus::OBJECT_PATH)
        .unwrap()
        .build()
        .await
        .unwrap();
    let live = introspectable.introspect().await.unwrap();
    // Well-formed, as D-Bus browsers and XML parsers want it: no `--` in a comment made of a
    // method's documentation, nothing else they would reject.
    let mut xmllint = std::process::Command::new("xmllint")
        .args(["--noout", "-"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("xmllint (libxml2-utils) runs");
    std::io::Write::write_all(&mut xmllint.stdin.take().unwrap(), live.as_bytes()).unwrap();
    let parsed = xmllint.wait_with_output().unwrap();
    assert!(
        parsed.status.success(),
        "the helper's introspection is not well-formed XML: {}",
        String::from_utf8_lossy(&parsed.stderr)
    );
    let data = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/io.github.pacerapp.Pacer.Helper1.xml"
    ))
    .unwrap();
    for name in [pacer_dbus::INTERFACE, pacer_dbus::HISTORY_INTERFACE] {
        assert_eq!(
            interface_of(&data, name),
            interface_of(&live, name),
            "{name}"
        );
    }
}

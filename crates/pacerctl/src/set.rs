// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl set` and `pacerctl fix`: changes go through pacer-helper, which asks polkit.
//! `fix` also fixes what only the helper's recording shows (what a sleep changed), where the
//! helper answers.

use anyhow::{bail, Context};
use pacer_core::findings::FixAction;
use pacer_core::history::Event;
use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::Snapshot;
use pacer_core::profile::client;
use pacer_core::status::Status;
use pacer_core::values::{CoreType, DriverMode, Governor, Khz};
use pacer_core::{CpuSet, SysRoot};
use pacer_dbus::client::{self as helper_client, call};
use pacer_dbus::history::History1Proxy;
use pacer_dbus::{Helper1Proxy, PolicyValue};

use crate::cli::{OnOff, PolicyTarget, Setting};
use crate::runtime::bus;
use crate::status::fix_said;

/// The helper, connected on first use.
async fn connect(
    connected: &mut Option<Helper1Proxy<'static>>,
    session: bool,
) -> anyhow::Result<Helper1Proxy<'static>> {
    if connected.is_none() {
        *connected = Some(helper_client::connect(bus(session)).await?);
    }
    connected.clone().context("the helper")
}

/// The policies a change is for.
fn policies(snapshot: &Snapshot, target: &PolicyTarget) -> anyhow::Result<Vec<u32>> {
    let active = snapshot.policies.iter().filter(|p| p.is_active());
    let ids: Vec<u32> = if let Some(list) = &target.policies {
        CpuSet::parse(list)
            .map_err(|error| anyhow::anyhow!("--policies {list}: {error}"))?
            .iter()
            .collect()
    } else if let Some(kind) = target.core_type {
        let kind = CoreType::from(kind);
        let ids: Vec<u32> = active
            .filter(|p| p.core_type == Some(kind))
            .map(|p| p.id)
            .collect();
        if ids.is_empty() {
            bail!(fill(
                gettext("this machine has no {kind} cores"),
                &[("kind", &kind.as_str())]
            ));
        }
        ids
    } else {
        active.map(|p| p.id).collect()
    };
    Ok(ids)
}

/// "performance on policy 0-3" lines from what the kernel read back.
fn print_values(what: &str, values: &[PolicyValue]) {
    let mut groups: Vec<(String, CpuSet)> = Vec::new();
    for (policy, value) in values {
        match groups.iter_mut().find(|(v, _)| v == value) {
            Some((_, set)) => set.insert(*policy),
            None => groups.push((value.clone(), [*policy].into_iter().collect())),
        }
    }
    for (value, set) in groups {
        println!(
            "{}",
            fill(
                gettext("{what} is now {value} on policy {policies}"),
                &[("what", &what), ("value", &value), ("policies", &set)]
            )
        );
    }
}

pub async fn set(
    root: &SysRoot,
    setting: &Setting,
    target: &PolicyTarget,
    session: bool,
) -> anyhow::Result<()> {
    let snapshot = Snapshot::read(root)?;
    let helper = helper_client::connect(bus(session)).await?;
    match setting {
        Setting::Governor { value } => {
            let ids = policies(&snapshot, target)?;
            print_values(
                &gettext("the governor"),
                &call(helper.set_governor(&ids, value)).await?,
            );
        }
        Setting::Epp { value } => {
            let ids = policies(&snapshot, target)?;
            print_values(
                &gettext("the EPP"),
                &call(helper.set_epp(&ids, value)).await?,
            );
        }
        Setting::Boost { value } => {
            let ids = policies(&snapshot, target)?;
            let values = call(helper.set_boost(&ids, *value == OnOff::On)).await?;
            let words: Vec<PolicyValue> = values
                .into_iter()
                .map(|(id, flag)| {
                    (
                        id,
                        if flag == "1" {
                            gettext("allowed")
                        } else {
                            gettext("off")
                        },
                    )
                })
                .collect();
            print_values(&gettext("turbo"), &words);
        }
        Setting::Eas { value } => {
            let now = call(helper.set_eas(*value == OnOff::On)).await?;
            println!(
                "{}",
                fill(
                    gettext("sched_energy_aware is now {value}"),
                    &[("value", &now)]
                )
            );
        }
        Setting::Mode { value } => {
            let now = call(helper.set_driver_mode(value)).await?;
            println!(
                "{}",
                fill(
                    gettext("the driver is now in {mode} mode"),
                    &[("mode", &now)]
                )
            );
        }
    }
    Ok(())
}

/// The helper's recording, oldest first, where the helper answers and lets this user read it
/// (polkit's `read-history`); `None` otherwise, and the findings only a recording shows are
/// not known.
async fn recording(session: bool) -> Option<Vec<Event>> {
    let helper = helper_client::connect(bus(session)).await.ok()?;
    let history = History1Proxy::new(helper.inner().connection()).await.ok()?;
    let events = call(history.history(0)).await.ok()?;
    serde_json::from_str(&events).ok()
}

pub async fn fix(root: &SysRoot, dry_run: bool, session: bool) -> anyhow::Result<()> {
    let mut status = Status::gather(root).await?;
    if let Some(recorded) = recording(session).await {
        status.explain(&recorded);
    }
    if status.findings.is_empty() {
        println!("{}", gettext("Nothing to fix: no findings."));
        return Ok(());
    }
    for finding in &status.findings {
        println!("{}", finding.summary);
        println!(
            "  {}",
            fill(gettext("fix: {fix}"), &[("fix", &fix_said(&finding.fix))])
        );
    }
    if dry_run {
        return Ok(());
    }
    let mut connected: Option<Helper1Proxy<'static>> = None;
    for finding in &status.findings {
        match &finding.fix.action {
            FixAction::CycleProfile { away, back } => {
                let connection = client::connect()
                    .await
                    .map_err(|p| anyhow::anyhow!(p.to_string()))?;
                let Some(profile) = &status.profile else {
                    continue;
                };
                for step in [away, back] {
                    client::set_active_profile(&connection, profile, step)
                        .await
                        .map_err(|p| anyhow::anyhow!(p.to_string()))?;
                }
                println!(
                    "{}",
                    fill(
                        gettext("switched to {away} and back to {back}"),
                        &[("away", away), ("back", back)]
                    )
                );
            }
            FixAction::SetGovernor { governor, policies } => {
                let helper = connect(&mut connected, session).await?;
                print_values(
                    &gettext("the governor"),
                    &call(helper.set_governor(policies, governor)).await?,
                );
            }
            FixAction::SetEpp { epp, policies } => {
                let helper = connect(&mut connected, session).await?;
                print_values(
                    &gettext("the EPP"),
                    &call(helper.set_epp(policies, epp)).await?,
                );
            }
            FixAction::EnableTurbo => {
                let helper = connect(&mut connected, session).await?;
                let every: Vec<u32> = status
                    .snapshot
                    .policies
                    .iter()
                    .filter(|p| p.is_active())
                    .map(|p| p.id)
                    .collect();
                call(helper.set_boost(&every, true)).await?;
                println!("{}", gettext("turbo is now allowed"));
            }
            FixAction::UseSchedutil {
                passive_mode,
                policies,
            } => {
                let helper = connect(&mut connected, session).await?;
                if *passive_mode {
                    call(helper.set_driver_mode(&DriverMode::Passive)).await?;
                }
                print_values(
                    &gettext("the governor"),
                    &call(helper.set_governor(policies, &Governor::schedutil())).await?,
                );
            }
            FixAction::RestoreMaxFrequency { policies, khz } => {
                let helper = connect(&mut connected, session).await?;
                let read_back = call(helper.set_max_frequency(policies, khz.0)).await?;
                let words: Vec<PolicyValue> = read_back
                    .into_iter()
                    .map(|(id, value)| match value.parse::<Khz>() {
                        Ok(khz) => (id, khz.words()),
                        Err(()) => (id, value),
                    })
                    .collect();
                print_values(&gettext("the maximum frequency"), &words);
            }
            FixAction::EnableEas => {
                call(connect(&mut connected, session).await?.set_eas(true)).await?;
                println!("{}", gettext("energy-aware scheduling is allowed again"));
            }
            FixAction::StopManagers { .. } => {
                println!(
                    "{}",
                    gettext("Pacer does not stop other services itself: run the command above")
                );
            }
            FixAction::Advice => {
                println!(
                    "{}",
                    gettext("Nothing for Pacer to change: this one is up to you")
                );
            }
        }
    }
    Ok(())
}

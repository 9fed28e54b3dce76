// SPDX-License-Identifier: GPL-3.0-or-later
//! The helper's setters: the governor, the EPP, turbo, the maximum frequency, Energy Aware
//! Scheduling and the driver's mode, each through [`Helper::change`] (validate the whole
//! request, ask polkit, write for the caller, read back, announce); the EPP the active power
//! profile implies; and the writes they share, one request at a time, each read back.

use pacer_core::history::Writer;
use pacer_core::machine::Snapshot;
use pacer_core::profile::expectation;
use pacer_core::values::Khz;
use pacer_dbus::{actions, details, HelperError, Policies, PolicyValue, Problem, Topic};
use zbus::message::Header;
use zbus::object_server::SignalEmitter;

use super::Helper;
use crate::authority::Change;
use crate::followers::caller_process;
use crate::kernel::Target;
use crate::validate;

/// Where a turbo switch is written: one machine-wide file (and the value meaning the wanted
/// state), or each policy's `boost` file.
#[derive(Debug, Clone, Copy)]
enum BoostSwitch {
    Global(Target, &'static str),
    PerPolicy(&'static str),
}

fn on_off(enabled: bool) -> &'static str {
    if enabled {
        "on"
    } else {
        "off"
    }
}

impl Helper {
    /// `SetGovernor`: `governor` on `policies`.
    pub(super) async fn change_governor(
        &self,
        header: &Header<'_>,
        emitter: &SignalEmitter<'_>,
        policies: &[u32],
        governor: &str,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.change(
            header,
            emitter,
            |snapshot| {
                let (ids, governor) = validate::governor(snapshot, policies, governor)?;
                let change = Change::new(
                    actions::SET_CPU_POWER,
                    Topic::Governor,
                    &governor,
                    Some(&ids),
                );
                Ok((change, (ids, governor)))
            },
            async |by, (ids, governor)| {
                self.write_each(by, &ids, Target::Governor, governor.as_str())
                    .await
            },
        )
        .await
    }

    /// `SetEpp`: `epp` (a name, or a number where the driver takes one) on `policies`.
    pub(super) async fn change_epp(
        &self,
        header: &Header<'_>,
        emitter: &SignalEmitter<'_>,
        policies: &[u32],
        epp: &str,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.change(
            header,
            emitter,
            |snapshot| {
                let (ids, epp) = validate::epp(snapshot, policies, epp)?;
                Ok((
                    Change::new(actions::SET_CPU_POWER, Topic::Epp, epp, Some(&ids)),
                    (ids, epp),
                ))
            },
            async |by, (ids, epp)| {
                self.write_each(by, &ids, Target::Epp, &epp.to_string())
                    .await
            },
        )
        .await
    }

    /// `SetBoost`: turbo allowed or not on `policies`, through the switch they have.
    pub(super) async fn change_boost(
        &self,
        header: &Header<'_>,
        emitter: &SignalEmitter<'_>,
        policies: &[u32],
        enabled: bool,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.change(
            header,
            emitter,
            |snapshot| {
                let ids: Vec<u32> = validate::policies(snapshot, policies)?
                    .iter()
                    .map(|policy| policy.id)
                    .collect();
                let switch = self.boost_switch(snapshot, &ids, enabled)?;
                let change = Change::new(
                    actions::SET_CPU_POWER,
                    Topic::Boost,
                    on_off(enabled),
                    Some(&ids),
                );
                Ok((change, (ids, switch)))
            },
            async |by, (ids, switch)| match switch {
                BoostSwitch::Global(target, value) => {
                    let now = self.write_one(by, target, value).await?;
                    let allowed = if target == Target::NoTurbo {
                        now == "0"
                    } else {
                        now == "1"
                    };
                    let value = if allowed { "1" } else { "0" };
                    Ok(ids.iter().map(|&id| (id, value.to_owned())).collect())
                }
                BoostSwitch::PerPolicy(flag) => {
                    self.write_each(by, &ids, Target::PolicyBoost, flag).await
                }
            },
        )
        .await
    }

    /// `SetMaxFrequency`: `khz` as the maximum frequency of `policies` (as a finding's fix
    /// restores one the machine woke with lower). Written, it must read back as written:
    /// lower, another limit holds it, and that is the answer rather than success.
    pub(super) async fn change_max_frequency(
        &self,
        header: &Header<'_>,
        emitter: &SignalEmitter<'_>,
        policies: &[u32],
        khz: u32,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        self.change(
            header,
            emitter,
            |snapshot| {
                let (ids, khz) = validate::max_frequency(snapshot, policies, khz)?;
                let change = Change::new(
                    actions::SET_CPU_POWER,
                    Topic::MaxFrequency,
                    khz.0,
                    Some(&ids),
                );
                Ok((change, (ids, khz)))
            },
            async |by, (ids, khz)| {
                let read_back = self
                    .write_each(by, &ids, Target::MaxFreq, &khz.0.to_string())
                    .await?;
                held_lower(khz, &read_back)?;
                Ok(read_back)
            },
        )
        .await
    }

    /// `SetEas`: Energy Aware Scheduling on or off, its value from before noted in the
    /// journal so that it comes back after a crash.
    pub(super) async fn change_eas(
        &self,
        header: &Header<'_>,
        emitter: &SignalEmitter<'_>,
        enabled: bool,
    ) -> Result<String, HelperError> {
        self.change(
            header,
            emitter,
            |snapshot| {
                validate::eas(snapshot)?;
                Ok((
                    Change::new(actions::SET_SCHEDULER, Topic::Eas, on_off(enabled), None),
                    (),
                ))
            },
            async |by, ()| {
                if let Some(current) = self.kernel.read(Target::EasSysctl) {
                    self.journal
                        .note_eas_before_change(&current)
                        .map_err(|error| Problem::Journal {
                            error: error.to_string(),
                        })?;
                }
                self.write_one(by, Target::EasSysctl, if enabled { "1" } else { "0" })
                    .await
            },
        )
        .await
    }

    /// `SetDriverMode`: `active`, `passive` or `guided`.
    pub(super) async fn change_driver_mode(
        &self,
        header: &Header<'_>,
        emitter: &SignalEmitter<'_>,
        mode: &str,
    ) -> Result<String, HelperError> {
        self.change(
            header,
            emitter,
            |snapshot| {
                let (target, mode) = validate::driver_mode(snapshot, mode)?;
                Ok((
                    Change::new(actions::SET_DRIVER_MODE, Topic::Mode, mode, None),
                    (target, mode),
                ))
            },
            async |by, (target, mode)| self.write_one(by, target, &mode.to_string()).await,
        )
        .await
    }

    /// `ReapplyProfileEpp`. Authorised first: finding out what to write reads the machine and
    /// the bus, which is work an unauthorised caller does not get to cause.
    pub(super) async fn reapply_epp_of_profile(
        &self,
        header: &Header<'_>,
        emitter: &SignalEmitter<'_>,
    ) -> Result<Vec<PolicyValue>, HelperError> {
        let _call = self.call()?;
        let details = details(Topic::Epp, "the active profile's", Policies::All);
        self.authority
            .check(header, actions::SET_CPU_POWER, &details)
            .await?;
        let status = self.status.fresh().await?;
        let Some(profile) = &status.profile else {
            return Err(Problem::NoProfileDaemon.into());
        };
        let expected = expectation(profile, &status.snapshot.driver).map_err(|_| {
            Problem::NoProfileMapping {
                daemon: profile.daemon.to_string(),
            }
        })?;
        let Some(&epp) = expected.epp.first() else {
            return Err(Problem::ProfileImpliesNoEpp.into());
        };
        let ids: Vec<u32> = status
            .snapshot
            .policies
            .iter()
            .filter(|p| {
                p.is_active()
                    && p.epp
                        .is_some_and(|current| !expected.epp.contains(&current))
            })
            .map(|p| p.id)
            .collect();
        let by = caller_process(emitter.connection(), header).await;
        let read_back = self
            .write_each(by, &ids, Target::Epp, &epp.to_string())
            .await?;
        self.changed_now(emitter, Topic::Epp, ids).await;
        Ok(read_back)
    }

    /// Writes `value` to `target(id)` for each policy, one request at a time, and returns
    /// what each reads back. EBUSY on an EPP is the performance governor holding it.
    async fn write_each(
        &self,
        by: Option<Writer>,
        ids: &[u32],
        target: fn(u32) -> Target,
        value: &str,
    ) -> Result<Vec<PolicyValue>, Problem> {
        let _one_at_a_time = self.writes.lock().await;
        for &id in ids {
            self.log
                .writing(by.as_ref(), || self.kernel.write(target(id), value))
                .map_err(|problem| match problem {
                    Problem::WriteRefused {
                        errno: Some(16), ..
                    } if target(id) == Target::Epp(id) => Problem::EppHeldByGovernor {
                        policies: [id].into_iter().collect(),
                    },
                    other => other,
                })?;
        }
        Ok(ids
            .iter()
            .map(|&id| (id, self.kernel.read(target(id)).unwrap_or_default()))
            .collect())
    }

    /// Which switch turns turbo on or off for `ids`: the machine-wide one when every policy
    /// is meant (intel_pstate has only that), else the policies' own `boost` files
    /// (amd-pstate, cpufreq-dt).
    fn boost_switch(
        &self,
        snapshot: &Snapshot,
        ids: &[u32],
        enabled: bool,
    ) -> Result<BoostSwitch, Problem> {
        let every_policy = snapshot.policies.iter().filter(|p| p.is_active()).count() == ids.len();
        let flag = if enabled { "1" } else { "0" };
        if every_policy && self.kernel.read(Target::NoTurbo).is_some() {
            return Ok(BoostSwitch::Global(
                Target::NoTurbo,
                if enabled { "0" } else { "1" },
            ));
        }
        if every_policy && self.kernel.read(Target::Boost).is_some() {
            return Ok(BoostSwitch::Global(Target::Boost, flag));
        }
        if ids
            .iter()
            .all(|&id| self.kernel.read(Target::PolicyBoost(id)).is_some())
        {
            return Ok(BoostSwitch::PerPolicy(flag));
        }
        Err(if every_policy {
            Problem::NoBoostSwitch
        } else {
            Problem::BoostOnlyForAll
        })
    }

    /// Writes one machine-wide file and returns what it reads back.
    async fn write_one(
        &self,
        by: Option<Writer>,
        target: Target,
        value: &str,
    ) -> Result<String, Problem> {
        let _one_at_a_time = self.writes.lock().await;
        self.log
            .writing(by.as_ref(), || self.kernel.write(target, value))?;
        Ok(self.kernel.read(target).unwrap_or_default())
    }
}

/// The maximum frequency of each policy as read back after writing `khz`: where one reads
/// lower, another limit request holds it there, the lowest of all being the one in force
/// (`docs/kernel.md` 1.2), and the write did not do what was asked. A value that does not
/// read as a frequency is returned as it reads, like every setter's, not taken for a limit.
fn held_lower(khz: Khz, read_back: &[PolicyValue]) -> Result<(), Problem> {
    let held: Vec<(u32, Khz)> = read_back
        .iter()
        .filter_map(|(id, value)| Some((*id, value.parse::<Khz>().ok()?)))
        .filter(|(_, now)| *now < khz)
        .collect();
    match held.iter().map(|(_, now)| *now).min() {
        Some(lowest) => Err(Problem::MaxFrequencyHeld {
            policies: held.iter().map(|(id, _)| *id).collect(),
            khz: khz.0,
            held: lowest.0,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_maximum_read_back_lower_is_held_by_another_limit() {
        let asked = Khz(4_700_000);
        let read = |values: &[(u32, &str)]| -> Vec<PolicyValue> {
            values
                .iter()
                .map(|(id, v)| (*id, (*v).to_owned()))
                .collect()
        };
        assert_eq!(
            held_lower(asked, &read(&[(2, "4700000"), (3, "4700000")])),
            Ok(())
        );
        assert_eq!(
            held_lower(
                asked,
                &read(&[(2, "4700000"), (3, "1200000"), (4, "400000")])
            ),
            Err(Problem::MaxFrequencyHeld {
                policies: [3, 4].into_iter().collect(),
                khz: 4_700_000,
                held: 400_000,
            })
        );
        // Not a frequency: returned as it reads, not taken for a limit.
        assert_eq!(held_lower(asked, &read(&[(2, "")])), Ok(()));
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl status --json`, schema 1: the contract in `docs/contracts.md` 2. Fields may be
//! added; the ones there keep their names and meaning, and unknown values are `null`.

use serde::Serialize;

use crate::findings::Finding;
use crate::machine::{Cpu, Driver, Eas, Policy, RaplZone};
use crate::managers::PowerManager;
use crate::profile::ProfileState;
use crate::status::Status;
use crate::sysfs::Problem;

pub const SCHEMA: u32 = 1;

#[derive(Debug, Serialize)]
pub struct StatusDocument<'a> {
    pub schema: u32,
    pub simulated: bool,
    pub cpus: &'a [Cpu],
    pub policies: &'a [Policy],
    pub driver: &'a Driver,
    pub eas: &'a Eas,
    pub profile: Option<&'a ProfileState>,
    pub findings: &'a [Finding],
    pub smt_active: Option<bool>,
    pub rapl: &'a [RaplZone],
    pub power_managers: &'a [PowerManager],
    pub problems: Vec<ProblemEntry<'a>>,
}

/// A file that could not be read, or a service that did not answer.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ProblemEntry<'a> {
    File(&'a Problem),
    Service {
        service: &'static str,
        kind: &'static str,
        message: String,
    },
}

impl<'a> StatusDocument<'a> {
    pub fn new(status: &'a Status) -> Self {
        let snapshot = &status.snapshot;
        let mut problems: Vec<ProblemEntry<'a>> =
            snapshot.problems.iter().map(ProblemEntry::File).collect();
        problems.extend(
            status
                .profile_problems
                .iter()
                .map(|problem| ProblemEntry::Service {
                    service: "power-profiles",
                    kind: problem.code(),
                    message: problem.to_string(),
                }),
        );
        Self {
            schema: SCHEMA,
            simulated: snapshot.simulated,
            cpus: &snapshot.cpus,
            policies: &snapshot.policies,
            driver: &snapshot.driver,
            eas: &snapshot.eas,
            profile: status.profile.as_ref(),
            findings: &status.findings,
            smt_active: snapshot.smt_active,
            rapl: &snapshot.rapl,
            power_managers: &status.managers,
            problems,
        }
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl status --json`, schema 2, and `pacerctl limits --json`: the contract in
//! `docs/contracts.md` 2. Fields may be added; the ones there keep their names and meaning,
//! and unknown values are `null`. Schema 2 added the limit chain (`limits`) and kept every
//! field of schema 1.

use serde::Serialize;

use crate::findings::Finding;
use crate::limits::CoreLimits;
use crate::machine::{Cpu, Driver, Eas, Policy, RaplZone};
use crate::managers::PowerManager;
use crate::profile::ProfileState;
use crate::status::Status;
use crate::sysfs::Problem;

/// 2 since the limit chain (`limits`) joined the document; every field of 1 is kept with its
/// meaning, and a reader can tell from the number whether the chain is there.
pub const SCHEMA: u32 = 2;

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
    /// Each core type's limit chain (`docs/kernel.md` 8); `None` (`null`) where it was not
    /// read, as in the helper's `Snapshot`, which takes one reading and watches nothing.
    pub limits: Option<&'a [CoreLimits]>,
}

/// `pacerctl limits --json`: the chain alone, as in the status document.
#[derive(Debug, Serialize)]
pub struct LimitsDocument<'a> {
    pub schema: u32,
    pub simulated: bool,
    pub limits: &'a [CoreLimits],
}

impl<'a> LimitsDocument<'a> {
    pub fn new(status: &'a Status) -> Self {
        Self {
            schema: SCHEMA,
            simulated: status.snapshot.simulated,
            limits: &status.limits,
        }
    }
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
    /// The document without the limit chain (`limits` is `null`).
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
            limits: None,
        }
    }

    /// The document with the limit chain [`Status::read_limits`] worked out.
    pub fn with_limits(status: &'a Status) -> Self {
        Self {
            limits: Some(&status.limits),
            ..Self::new(status)
        }
    }
}

//! `pacerctl status --json`, schema 1: the contract in DESIGN.md. Fields may be added; the
//! ones there keep their names and meaning, and unknown values are `null`.

use serde::Serialize;

use crate::machine::{Cpu, Driver, Eas, Policy, RaplZone, Snapshot};
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
    /// The power-profile daemon; filled once Pacer talks to it.
    pub profile: Option<()>,
    pub findings: [(); 0],
    pub smt_active: Option<bool>,
    pub rapl: &'a [RaplZone],
    pub problems: &'a [Problem],
}

impl<'a> StatusDocument<'a> {
    pub fn new(snapshot: &'a Snapshot) -> Self {
        Self {
            schema: SCHEMA,
            simulated: snapshot.simulated,
            cpus: &snapshot.cpus,
            policies: &snapshot.policies,
            driver: &snapshot.driver,
            eas: &snapshot.eas,
            profile: None,
            findings: [],
            smt_active: snapshot.smt_active,
            rapl: &snapshot.rapl,
            problems: &snapshot.problems,
        }
    }
}

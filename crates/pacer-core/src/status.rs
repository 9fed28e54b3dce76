// SPDX-License-Identifier: GPL-3.0-or-later
//! Everything `pacerctl status` and the window show at once: the machine, the profile
//! daemon, other power managers, and the findings that follow from them.

use crate::findings::{self, limit_findings, Finding, FindingInputs, FindingKind, FixAction};
use crate::history::Event;
use crate::limits::{CoreLimits, LimitWatch};
use crate::machine::{Snapshot, SnapshotError};
use crate::managers::{self, PowerManager};
use crate::profile::{client, ProfileProblem, ProfileReading, ProfileState};
use crate::suspend;
use crate::sysfs::SysRoot;
use crate::who::causes;

#[derive(Debug, Clone)]
pub struct Status {
    pub snapshot: Snapshot,
    pub profile: Option<ProfileState>,
    /// Why the profile is missing or incomplete.
    pub profile_problems: Vec<ProfileProblem>,
    pub managers: Vec<PowerManager>,
    pub findings: Vec<Finding>,
    /// The limit chain of each core type, once [`Status::read_limits`] worked it out.
    pub limits: Vec<CoreLimits>,
}

impl Status {
    /// The profile the daemon has active, where one serves profiles.
    pub fn active_profile(&self) -> Option<&str> {
        self.profile.as_ref().map(|profile| profile.active.as_str())
    }

    /// Puts a snapshot and a reading of the bus together and works out the findings.
    /// Looks for other power managers under `root` (blocking file reads).
    pub fn assemble(root: &SysRoot, snapshot: Snapshot, reading: ProfileReading) -> Status {
        let managers = managers::detect(root, &reading.bus_names, reading.state.as_ref());
        let findings = findings::evaluate(FindingInputs {
            snapshot: &snapshot,
            profile: reading.state.as_ref(),
            managers: &managers,
        });
        Status {
            snapshot,
            profile: reading.state,
            profile_problems: reading.problems,
            managers,
            findings,
            limits: Vec::new(),
        }
    }

    /// Reads everything: the machine under `root`, then the system bus (each exchange
    /// bounded to a second; no bus or no daemon leaves the profile out, with a problem).
    pub async fn gather(root: &SysRoot) -> Result<Status, SnapshotError> {
        let snapshot = Snapshot::read(root)?;
        let reading = match client::connect().await {
            Ok(connection) => client::read(&connection).await,
            Err(problem) => ProfileReading {
                problems: vec![problem],
                ..ProfileReading::default()
            },
        };
        Ok(Status::assemble(root, snapshot, reading))
    }

    /// Works out each core type's limit chain from the readings `watch` keeps (the caller
    /// refreshes it at its own pace), and the findings it calls for in place of those of an
    /// earlier chain. Says whether any core type's limiter changed.
    pub fn read_limits(&mut self, watch: &mut LimitWatch) -> bool {
        let limits = watch.limits(&self.snapshot);
        let limiters = |limits: &[CoreLimits]| -> Vec<_> {
            limits
                .iter()
                .map(|core| (core.core_type, core.limiter))
                .collect()
        };
        let changed = limiters(&limits) != limiters(&self.limits);
        self.findings.retain(|finding| {
            !matches!(
                finding.kind,
                FindingKind::ThermalLimit | FindingKind::PowerLimitLowered
            )
        });
        self.findings.extend(limit_findings(&limits));
        self.findings
            .sort_by_key(|finding| (finding.severity, finding.kind));
        self.limits = limits;
        changed
    }

    /// Recomputes the findings after the snapshot or the profile changed.
    pub fn refresh_findings(&mut self) {
        self.findings = findings::evaluate(FindingInputs {
            snapshot: &self.snapshot,
            profile: self.profile.as_ref(),
            managers: &self.managers,
        });
    }

    /// Explains the findings with what the helper recorded (`recorded`, oldest first): the
    /// findings only a recording shows (changed across suspend, clamped after resume) join
    /// the others, in place of those of an earlier recording, and each finding carries the
    /// recorded changes behind it. A clamp after resume makes the limit chain's verdict the
    /// platform's (call after [`Status::read_limits`]).
    pub fn explain(&mut self, recorded: &[Event]) {
        self.findings
            .retain(|finding| !suspend::KINDS.contains(&finding.kind));
        self.findings
            .extend(suspend::found_on_waking(&self.snapshot, recorded));
        // A maximum that came back lower from sleep is the platform's doing, not a choice.
        for finding in &self.findings {
            if let FixAction::RestoreMaxFrequency { policies, khz } = &finding.fix.action {
                for core in &mut self.limits {
                    core.clamped(policies, *khz);
                }
            }
        }
        self.findings
            .sort_by_key(|finding| (finding.severity, finding.kind));
        for finding in &mut self.findings {
            finding.cause = causes(finding, recorded).into_iter().cloned().collect();
        }
    }
}

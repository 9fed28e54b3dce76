// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl watch`: one line per change until interrupted. The profile daemon is followed by
//! its signals; the governor and EPP files, which change behind everyone's back, by a cheap
//! poll of those files only.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::Context;
use futures_util::stream::{BoxStream, StreamExt};
use futures_util::FutureExt;
use pacer_core::findings::{Finding, Severity};
use pacer_core::i18n::{fill, gettext};
use pacer_core::managers;
use pacer_core::profile::client;
use pacer_core::status::Status;
use pacer_core::{CpuSet, SysRoot};
use serde::Serialize;

use crate::status::fix_said;
use crate::style::Style;

/// How often the governor and EPP files are read: changes show within a second.
const POLL: Duration = Duration::from_millis(500);
/// After the daemon signals a change, it may still be writing the last policies.
const SETTLE: Duration = Duration::from_millis(300);

pub async fn run(root: &SysRoot, json: bool) -> anyhow::Result<()> {
    let mut status = Status::gather(root)
        .await
        .with_context(|| gettext("cannot read the machine's CPU state"))?;
    let mut printer = Printer {
        json,
        started: Instant::now(),
        style: Style::for_stdout(),
    };
    printer.start(&status)?;

    let connection = client::connect().await.ok();
    let mut changes = match &connection {
        Some(connection) => client::changes(connection).await.ok(),
        None => None,
    };
    let mut poll = tokio::time::interval(POLL);
    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        let previous = status.clone();
        tokio::select! {
            change = next_change(&mut changes) => {
                if change.is_none() {
                    changes = None;
                }
                tokio::time::sleep(SETTLE).await;
                // ppd ≥ 0.20 signals every change twice: take what is already queued.
                if let Some(stream) = changes.as_mut() {
                    while let Some(Some(())) = stream.next().now_or_never() {}
                }
                if let Some(connection) = &connection {
                    let reading = client::read(connection).await;
                    status.managers = managers::detect(root, &reading.bus_names, reading.state.as_ref());
                    status.profile = reading.state;
                    status.profile_problems = reading.problems;
                }
                status.snapshot.refresh_settings(root);
            }
            _ = poll.tick() => {
                status.snapshot.refresh_settings(root);
            }
        }
        status.refresh_findings();
        printer.changes(&previous, &status)?;
    }
}

async fn next_change(changes: &mut Option<BoxStream<'static, ()>>) -> Option<()> {
    match changes {
        Some(stream) => stream.next().await,
        None => std::future::pending().await,
    }
}

/// One change, as `--json` prints it.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
enum Event<'a> {
    Watching {
        profile: Option<&'a str>,
        findings: usize,
    },
    Profile {
        from: Option<&'a str>,
        to: Option<&'a str>,
    },
    Epp {
        policies: Vec<u32>,
        from: String,
        to: String,
    },
    Governor {
        policies: Vec<u32>,
        from: String,
        to: String,
    },
    FindingAppeared {
        finding: &'a Finding,
    },
    FindingCleared {
        finding: &'a Finding,
    },
}

#[derive(Debug, Serialize)]
struct Line<'a> {
    /// Seconds since the watch started.
    t: f64,
    #[serde(flatten)]
    event: Event<'a>,
}

struct Printer {
    json: bool,
    started: Instant,
    style: Style,
}

impl Printer {
    fn emit(&self, event: Event<'_>, text: String) -> anyhow::Result<()> {
        let t = self.started.elapsed().as_secs_f64();
        let mut out = std::io::stdout().lock();
        if self.json {
            let line = serde_json::to_string(&Line { t, event })?;
            writeln!(out, "{line}")?;
        } else {
            writeln!(out, "{} {text}", self.style.dim(&format!("[{t:7.1} s]")))?;
        }
        out.flush()?;
        Ok(())
    }

    fn start(&mut self, status: &Status) -> anyhow::Result<()> {
        let profile = status.active_profile();
        let text = fill(
            gettext("watching: profile {profile}, {count} findings (Ctrl+C stops)"),
            &[
                ("profile", &profile.unwrap_or("unknown")),
                ("count", &status.findings.len()),
            ],
        );
        self.emit(
            Event::Watching {
                profile,
                findings: status.findings.len(),
            },
            text,
        )?;
        for finding in &status.findings {
            self.appeared(finding)?;
        }
        Ok(())
    }

    fn appeared(&self, finding: &Finding) -> anyhow::Result<()> {
        let mark = match finding.severity {
            Severity::Warning => self.style.warning(&gettext("warning:")),
            Severity::Info => gettext("note:"),
        };
        let text = format!(
            "{mark} {} — {}",
            finding.summary,
            fill(gettext("fix: {fix}"), &[("fix", &fix_said(&finding.fix))])
        );
        self.emit(Event::FindingAppeared { finding }, text)
    }

    fn changes(&self, before: &Status, after: &Status) -> anyhow::Result<()> {
        let from = before.active_profile();
        let to = after.active_profile();
        if from != to {
            let text = match (from, to) {
                (Some(_), None) => gettext("the power-profile daemon stopped"),
                (None, Some(to)) => fill(
                    gettext("the power-profile daemon started: profile {profile}"),
                    &[("profile", &to)],
                ),
                (from, to) => fill(
                    gettext("profile: {from} → {to}"),
                    &[("from", &from.unwrap_or("?")), ("to", &to.unwrap_or("?"))],
                ),
            };
            self.emit(Event::Profile { from, to }, text)?;
        }

        for (setting, transitions) in policy_transitions(before, after) {
            for ((old, new), policies) in transitions {
                let set: CpuSet = policies.iter().copied().collect();
                let (event, label) = match setting {
                    Setting::Epp => (
                        Event::Epp {
                            policies,
                            from: old.clone(),
                            to: new.clone(),
                        },
                        gettext("EPP on policy {policies}: {from} → {to}"),
                    ),
                    Setting::Governor => (
                        Event::Governor {
                            policies,
                            from: old.clone(),
                            to: new.clone(),
                        },
                        gettext("governor on policy {policies}: {from} → {to}"),
                    ),
                };
                let text = fill(label, &[("policies", &set), ("from", &old), ("to", &new)]);
                self.emit(event, text)?;
            }
        }

        let before_keys: BTreeSet<String> = before.findings.iter().map(Finding::key).collect();
        let after_keys: BTreeSet<String> = after.findings.iter().map(Finding::key).collect();
        for finding in before
            .findings
            .iter()
            .filter(|f| !after_keys.contains(&f.key()))
        {
            let text = fill(
                gettext("cleared: {summary}"),
                &[("summary", &finding.summary)],
            );
            self.emit(Event::FindingCleared { finding }, text)?;
        }
        for finding in after
            .findings
            .iter()
            .filter(|f| !before_keys.contains(&f.key()))
        {
            self.appeared(finding)?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Setting {
    Epp,
    Governor,
}

type Transitions = BTreeMap<(String, String), Vec<u32>>;

/// Policies whose EPP or governor changed, grouped by the same change.
fn policy_transitions(before: &Status, after: &Status) -> BTreeMap<Setting, Transitions> {
    let mut found: BTreeMap<Setting, Transitions> = BTreeMap::new();
    let text = |value: Option<String>| value.unwrap_or_else(|| "?".to_owned());
    for new in &after.snapshot.policies {
        let Some(old) = before.snapshot.policy(new.id) else {
            continue;
        };
        if old.epp != new.epp && new.epp.is_some() {
            found
                .entry(Setting::Epp)
                .or_default()
                .entry((
                    text(old.epp.map(|e| e.to_string())),
                    text(new.epp.map(|e| e.to_string())),
                ))
                .or_default()
                .push(new.id);
        }
        if old.governor != new.governor && new.governor.is_some() {
            found
                .entry(Setting::Governor)
                .or_default()
                .entry((
                    text(old.governor.as_ref().map(ToString::to_string)),
                    text(new.governor.as_ref().map(ToString::to_string)),
                ))
                .or_default()
                .push(new.id);
        }
    }
    found
}

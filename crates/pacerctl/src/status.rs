// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl status`: the machine at a glance.

use std::fmt::Write;

use pacer_core::findings::{Fix, Severity};
use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::{cores_heading, group_policies, PolicyGroup, Snapshot};
use pacer_core::profile::expectation;
use pacer_core::status::Status;
use pacer_core::values::Khz;
use pacer_core::CpuSet;

use crate::limits::verdict;
use crate::sections::{no_cpufreq, problems_section};
use crate::style::Style;

/// Renders the human status: profile, driver, EAS, then one row per group of policies, the
/// verdict of each core type's limit chain, the findings, and what could not be read.
pub fn render(status: &Status, style: &Style) -> String {
    let snapshot = &status.snapshot;
    let mut out = String::new();
    let label_width = 8;
    let mut line = |label: String, value: String| {
        let _ = writeln!(out, "{} {value}", style.heading(&pad(&label, label_width)));
    };

    if snapshot.simulated {
        line(
            gettext("Machine"),
            style.warning(&gettext("simulated (not this computer's hardware)")),
        );
    }
    line(gettext("Profile"), profile_line(status));
    line(gettext("Driver"), driver_line(snapshot));
    line(gettext("EAS"), eas_line(snapshot, style));
    if let Some(smt) = snapshot.smt_active {
        line(
            gettext("SMT"),
            if smt {
                gettext("active")
            } else {
                gettext("off")
            },
        );
    }
    line(gettext("CPUs"), cpus_line(snapshot));
    if !snapshot.rapl.is_empty() {
        line(gettext("RAPL"), rapl_line(snapshot));
    }

    let groups = group_policies(snapshot);
    if groups.is_empty() {
        let _ = writeln!(out, "\n{}", no_cpufreq());
    } else {
        out.push('\n');
        out.push_str(&policy_table(&groups, style));
    }

    if !status.limits.is_empty() {
        let _ = writeln!(out, "\n{}", style.heading(&gettext("Limits")));
        for core in &status.limits {
            let _ = writeln!(out, "  {}", verdict(core, snapshot));
        }
    }

    if !status.findings.is_empty() {
        let _ = writeln!(out, "\n{}", style.heading(&gettext("Findings")));
        for finding in &status.findings {
            let mark = match finding.severity {
                Severity::Warning => style.warning("!"),
                Severity::Info => "i".to_owned(),
            };
            let _ = writeln!(out, "  {mark} {}", style.heading(&finding.summary));
            let _ = writeln!(out, "    {}", finding.detail);
            let _ = writeln!(
                out,
                "    {}",
                fill(gettext("Fix: {fix}"), &[("fix", &fix_said(&finding.fix))])
            );
        }
    }

    out.push_str(&problems_section(&snapshot.problems, style));
    out
}

/// A finding's fix in words, then the command that does it by hand, where there is one:
/// "Allow turbo again: echo 0 | sudo tee …".
pub(crate) fn fix_said(fix: &Fix) -> String {
    match &fix.command {
        Some(command) => fill(
            gettext("{fix}: {command}"),
            &[("fix", &fix.description), ("command", command)],
        ),
        None => fix.description.clone(),
    }
}

fn profile_line(status: &Status) -> String {
    let Some(profile) = &status.profile else {
        return match status.profile_problems.first() {
            Some(problem) => fill(gettext("unknown: {problem}"), &[("problem", problem)]),
            None => gettext("unknown"),
        };
    };
    let daemon = match &profile.version {
        Some(version) => format!("{} {version}", profile.daemon),
        None => profile.daemon.to_string(),
    };
    let mut text = fill(
        gettext("{profile} ({daemon})"),
        &[("profile", &profile.active), ("daemon", &daemon)],
    );
    for hold in &profile.holds {
        text += &fill(
            gettext(", held at {profile} by {application}"),
            &[
                ("profile", &hold.profile),
                ("application", &hold.application_id),
            ],
        );
    }
    if let Some(reason) = &profile.degraded {
        text += &fill(
            gettext(", performance degraded: {reason}"),
            &[("reason", reason)],
        );
    }
    if let Err(why) = expectation(profile, &status.snapshot.driver) {
        text += &format!("; {why}");
    }
    text
}

fn driver_line(snapshot: &Snapshot) -> String {
    let driver = &snapshot.driver;
    let Some(name) = &driver.name else {
        return gettext("none");
    };
    let mut text = match driver.mode {
        Some(mode) => fill(
            gettext("{driver} ({mode} mode)"),
            &[("driver", name), ("mode", &mode)],
        ),
        None => name.clone(),
    };
    // Intel calls it turbo (and switches it with no_turbo); everyone else calls it boost.
    let intel = name.starts_with("intel_");
    match (driver.boost, intel) {
        (Some(true), true) => text += &gettext(", turbo allowed"),
        (Some(false), true) => text += &gettext(", turbo off"),
        (Some(true), false) => text += &gettext(", boost allowed"),
        (Some(false), false) => text += &gettext(", boost off"),
        (None, _) => {}
    }
    text
}

fn eas_line(snapshot: &Snapshot, style: &Style) -> String {
    let eas = &snapshot.eas;
    let state = match eas.active {
        Some(true) => style.good(&gettext("running")),
        Some(false) => gettext("not running"),
        None => gettext("unknown"),
    };
    if eas.reasons.is_empty() {
        return state;
    }
    format!("{state}: {}", eas.reasons_text())
}

fn cpus_line(snapshot: &Snapshot) -> String {
    let online: CpuSet = snapshot
        .cpus
        .iter()
        .filter(|cpu| cpu.online)
        .map(|cpu| cpu.id)
        .collect();
    let offline: CpuSet = snapshot
        .cpus
        .iter()
        .filter(|cpu| !cpu.online)
        .map(|cpu| cpu.id)
        .collect();
    let mut text = fill(gettext("{cpus} online"), &[("cpus", &online)]);
    if !offline.is_empty() {
        text += &fill(gettext(", {cpus} offline"), &[("cpus", &offline)]);
    }
    text
}

fn rapl_line(snapshot: &Snapshot) -> String {
    let names: Vec<&str> = snapshot
        .rapl
        .iter()
        .map(|zone| zone.name.as_deref().unwrap_or(zone.zone.as_str()))
        .collect();
    let readable = snapshot.rapl.iter().all(|zone| zone.energy_readable);
    let access = if readable {
        gettext("energy readable")
    } else {
        gettext("energy readable by root only")
    };
    format!("{} ({access})", names.join(", "))
}

fn mhz(khz: Option<Khz>) -> String {
    khz.map_or_else(|| "—".to_owned(), |khz| khz.mhz().to_string())
}

/// The table of groups: a heading per core type, a row per group of identical settings.
fn policy_table(groups: &[PolicyGroup], style: &Style) -> String {
    let header = [
        gettext("CPUs"),
        gettext("Governor"),
        gettext("EPP"),
        gettext("Min MHz"),
        gettext("Max MHz"),
        gettext("Now MHz"),
    ];
    let rows: Vec<[String; 6]> = groups
        .iter()
        .map(|group| {
            [
                group.cpus.to_string(),
                group
                    .governor
                    .as_ref()
                    .map_or_else(|| "—".to_owned(), ToString::to_string),
                group
                    .epp
                    .map_or_else(|| "—".to_owned(), |epp| epp.to_string()),
                mhz(group.min_khz),
                mhz(group.max_khz),
                match group.cur_khz {
                    Some((low, high)) if low.mhz() != high.mhz() => {
                        format!("{}–{}", low.mhz(), high.mhz())
                    }
                    Some((low, _)) => low.mhz().to_string(),
                    None => "—".to_owned(),
                },
            ]
        })
        .collect();
    let mut widths = header.clone().map(|text| text.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let format_row = |cells: &[String; 6]| -> String {
        let mut line = String::from("  ");
        for (index, (cell, width)) in cells.iter().zip(widths).enumerate() {
            // Numbers align right, words left.
            if index >= 3 {
                line += &format!("{cell:>width$}  ");
            } else {
                line += &pad(cell, width + 2);
            }
        }
        line.trim_end().to_owned()
    };

    let mut out = String::new();
    let mut current_type = None;
    for (index, (group, row)) in groups.iter().zip(&rows).enumerate() {
        if index == 0 || current_type != Some(group.core_type) {
            current_type = Some(group.core_type);
            if index > 0 {
                out.push('\n');
            }
            let _ = writeln!(out, "{}", style.heading(&cores_heading(group.core_type)));
            let _ = writeln!(out, "{}", style.dim(&format_row(&header)));
        }
        let _ = writeln!(out, "{}", format_row(row));
    }
    out
}

/// Pads to a width in characters (not bytes), for translated labels.
fn pad(text: &str, width: usize) -> String {
    let len = text.chars().count();
    format!("{text}{}", " ".repeat(width.saturating_sub(len)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn render_model(name: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        pacer_core::sim::model(name)
            .unwrap()
            .render(dir.path())
            .unwrap();
        let root = pacer_core::SysRoot::new(dir.path());
        let snapshot = Snapshot::read(&root).unwrap();
        let status = Status::assemble(&root, snapshot, Default::default());
        render(&status, &Style::plain())
    }

    #[test]
    fn groups_policies_by_core_type_with_ranges() {
        let text = render_model("intel-hybrid");
        assert!(text
            .starts_with("Machine  simulated (not this computer's hardware)\nProfile  unknown\n"));
        assert!(text.contains("Driver   intel_pstate (active mode), turbo allowed\n"));
        let p_cores = text.find("Performance cores").unwrap();
        let e_cores = text.find("Efficiency cores").unwrap();
        assert!(p_cores < e_cores);
        assert!(text.contains("  0-7   powersave  balance_performance      400     4700  998–2911"));
        assert!(text.contains("  8-15  powersave  balance_performance      400     3400  800–1600"));
        assert!(!text.contains('\x1b'), "no colour when asked for none");
    }

    #[test]
    fn says_plainly_when_there_is_no_cpufreq() {
        let text = render_model("vm");
        assert!(text.contains("Driver   none\n"));
        assert!(text.contains("No CPU frequency scaling"));
        assert!(text.contains("EAS      not running: the kernel was built without"));
    }

    #[test]
    fn a_fix_says_its_words_then_its_command() {
        let mut fix = Fix {
            action: pacer_core::findings::FixAction::EnableTurbo,
            description: "Allow turbo again".into(),
            command: Some("echo 0 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo".into()),
        };
        assert_eq!(
            fix_said(&fix),
            "Allow turbo again: echo 0 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"
        );
        fix.command = None;
        assert_eq!(fix_said(&fix), "Allow turbo again");
    }

    #[test]
    fn pads_by_characters() {
        assert_eq!(pad("Énergie", 9), "Énergie  ");
        assert_eq!(pad("toolong", 3), "toolong");
    }
}

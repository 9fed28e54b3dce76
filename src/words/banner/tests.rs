// SPDX-License-Identifier: GPL-3.0-or-later
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

#[test]
fn a_finding_s_line_is_its_headline_and_its_command_waits_in_the_details() {
    let epp = "sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference";
    let status = crate::testing::simulated_status("intel-hybrid", &[(epp, "power")]);
    let mixed = status
        .findings
        .first()
        .expect("policy 0 disagrees with the others");
    let words = finding(mixed, None, Some("Why: at 14:02:11 …".into()));
    assert_eq!(words.title, headline(mixed, None));
    let details = words.details;
    assert_eq!(details.summary.as_deref(), Some(mixed.summary.as_str()));
    assert_eq!(details.why.as_deref(), Some("Why: at 14:02:11 …"));
    assert_eq!(details.fix, Some(format!("Fix: {}", mixed.fix.description)));
    let command = details.command.unwrap();
    assert!(command.contains("sudo tee"), "{command}");
    assert!(!details.fix.unwrap().contains("sudo"));
}

#[test]
fn the_simulated_tag_names_its_model_on_hover() {
    let model = pacer_core::sim::MODELS
        .iter()
        .find(|model| model.name == "intel-hybrid")
        .unwrap();
    let tooltip = simulated_tooltip(Simulated::Model(model));
    assert_eq!(
        tooltip,
        format!(
            "Simulated machine: {}; changes apply to the model only",
            model.description
        )
    );
    assert_eq!(simulated_tag(), "Simulated");
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! Unit tests of `legend`.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::pages::measure::fixtures::four_settings;
use crate::testing::simulated_ramp_report;
use pacer_core::values::{Epp, Governor};

#[test]
fn a_setting_is_named_in_plain_words() {
    let setting = Setting {
        governor: Some(Governor::performance()),
        epp: Some(Epp::Power),
        boost: Some(false),
        ..Setting::default()
    };
    assert_eq!(
        setting_words(&setting),
        "Performance governor, EPP Power saving, turbo off"
    );
    assert_eq!(setting_words(&Setting::default()), "as now");
}

#[test]
fn the_legend_names_each_setting_and_flags_those_that_ran_the_same() {
    let outcome = Outcome::Compare(four_settings());
    assert_eq!(
        outcome.legend(),
        [
            "A: Performance governor",
            "B: as now",
            "C: EPP Power saving",
            "D: Performance governor — same settings as A"
        ]
    );
    assert_eq!(
        outcome.description().lines().last(),
        Some("Figures from the simulated machine's model")
    );
    // The kernel's words stay, for a tooltip.
    let kernel = outcome.kernel_values();
    assert!(
        kernel.starts_with(
            "A: governor=performance — Settings: intel_pstate active, governor performance"
        ),
        "{kernel}"
    );
    assert!(kernel.contains("\nB: as now — Settings: intel_pstate active, governor powersave, EPP balance_performance"), "{kernel}");
}

#[test]
fn a_measurement_says_what_it_ran_under_in_words() {
    let outcome = Outcome::Ramp(simulated_ramp_report());
    assert_eq!(outcome.legend(), Vec::<String>::new());
    let description = outcome.description();
    let first = description.lines().next().unwrap();
    assert!(
        first.starts_with(
            "Ran under: Hardware-managed, Power saving governor, EPP Balanced performance"
        ),
        "{first}"
    );
    for token in ["intel_pstate", "powersave", "balance_performance", "active"] {
        assert!(!description.contains(token), "{description}");
    }
    let mut bare = simulated_ramp_report();
    bare.settings.driver = None;
    assert_eq!(
        ran_under(&bare.settings),
        "Ran without CPU frequency scaling"
    );
}

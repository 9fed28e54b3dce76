// SPDX-License-Identifier: GPL-3.0-or-later
//! The exposition's pieces in both formats; `tests/limits_cli.rs` checks whole expositions
//! with real parsers.

use super::exposition::{escape, Exposition};
use super::Format;

#[test]
fn label_values_and_help_are_escaped_as_each_format_says() {
    assert_eq!(escape("a\"b\\c\nd", true), "a\\\"b\\\\c\\nd");
    assert_eq!(escape("a\"b\\c\nd", false), "a\"b\\\\c\\nd");
    assert_eq!(escape("balance_performance", true), "balance_performance");
    let mut out = Exposition::new(Format::OpenMetrics);
    out.family("pacer_x", "gauge", Some("watts"), "Says \"x\".");
    out.sample("pacer_x", &[("zone", "a\"b")], 1);
    assert_eq!(
        out.finish(),
        "# HELP pacer_x Says \\\"x\\\".\n# TYPE pacer_x gauge\n# UNIT pacer_x watts\n\
         pacer_x{zone=\"a\\\"b\"} 1\n# EOF\n"
    );
}

#[test]
fn the_prometheus_format_spells_state_sets_and_infos_as_gauges() {
    let mut out = Exposition::new(Format::Prometheus);
    out.family("pacer_limiter", "stateset", None, "Says \"x\".");
    out.family("pacer_finding", "info", None, "A finding.");
    out.family("pacer_power_drawn_watts", "gauge", Some("watts"), "Power.");
    assert_eq!(
        out.finish(),
        "# HELP pacer_limiter Says \"x\".\n# TYPE pacer_limiter gauge\n\
         # HELP pacer_finding_info A finding.\n# TYPE pacer_finding_info gauge\n\
         # HELP pacer_power_drawn_watts Power.\n# TYPE pacer_power_drawn_watts gauge\n"
    );
}

#[test]
fn a_state_set_names_every_state_and_one_the_kernel_did_not_list() {
    let mut out = Exposition::new(Format::OpenMetrics);
    let listed = ["performance".to_owned(), "powersave".to_owned()];
    // A raw EPP number the list does not hold is still the current state.
    out.states(
        "pacer_epp",
        &[("core_type", "all")],
        &listed,
        &["powersave".to_owned(), "128".to_owned()],
    );
    assert_eq!(
        out.text,
        "pacer_epp{core_type=\"all\",pacer_epp=\"performance\"} 0\n\
         pacer_epp{core_type=\"all\",pacer_epp=\"powersave\"} 1\n\
         pacer_epp{core_type=\"all\",pacer_epp=\"128\"} 1\n"
    );
}

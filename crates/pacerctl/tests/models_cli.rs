// SPDX-License-Identifier: GPL-3.0-or-later
//! The simulated machines of the limit chain end to end in `pacerctl`: the laptop held by its
//! cooling devices with its E-cores throttling, the one with its long-term power limit
//! lowered (both with the simulated kernel's ticker moving their counters), and the Ryzen
//! laptop whose resume clamps half its policies. The model whose kernel sets EPP itself is
//! tested through the helper in `set_cli.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::chain::{core, limits_json, run_at, SimRun};
use common::{pacerctl, text};
use pacer_testrig::model_tree;
use serde_json::{json, Value};

/// Enough for the ticker to count throttle events and energy between two readings.
const TICKING: &str = "1";
/// Two readings a moment apart, where nothing moves.
const STILL: &str = "0.2";

/// The kinds of the findings of `pacerctl status --json` over `seconds`.
fn finding_kinds(root: &std::path::Path, seconds: &str) -> Vec<Value> {
    let status: Value =
        serde_json::from_str(&run_at(root, &["status", "--json"], seconds)).unwrap();
    assert_eq!(status["schema"], 2);
    status["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| finding["kind"].clone())
        .collect()
}

#[test]
fn intel_hybrid_thermal_holds_both_core_types_and_the_e_cores_throttle() {
    let tree = model_tree("intel-hybrid-thermal");
    let limits = limits_json(tree.path(), STILL);
    for (core_type, ceiling) in [("performance", 1_880_000), ("efficiency", 1_360_000)] {
        let cores = core(&limits, core_type);
        assert_eq!(cores["limiter"], "thermal", "{cores:#}");
        assert_eq!(cores["ceiling_khz"], ceiling);
        assert_eq!(cores["thermal"]["ceiling_khz"], ceiling);
        let cooling = &cores["thermal"]["cooling"][0];
        assert_eq!(
            (&cooling["cur_state"], &cooling["max_state"]),
            (&json!(3), &json!(10))
        );
    }
    let words = run_at(tree.path(), &["limits"], STILL);
    assert!(
        words.contains(
            "\n  Efficiency cores held at 1.36 GHz by a thermal limit (cooling state 3 of 10)\n"
        ),
        "{words}"
    );
    assert!(
        words.contains(
            "\n  Performance cores held at 1.88 GHz by a thermal limit (cooling state 3 of 10)\n"
        ),
        "{words}"
    );
    assert_eq!(finding_kinds(tree.path(), STILL), ["thermal-limit"]);

    // The files stand still until the simulated kernel runs: then the E-cores, at their
    // thermal limit, count throttle events and the P-cores none.
    let still = limits_json(tree.path(), STILL);
    assert_eq!(core(&still, "efficiency")["thermal"]["throttle_events"], 0);
    let _ticker = SimRun::start("intel-hybrid-thermal", tree.path());
    let limits = limits_json(tree.path(), TICKING);
    let e_cores = core(&limits, "efficiency");
    let events = e_cores["thermal"]["throttle_events"].as_u64().unwrap();
    assert!(events > 0, "{e_cores:#}");
    assert_eq!(e_cores["limiter"], "thermal");
    let p_cores = core(&limits, "performance");
    assert_eq!(p_cores["thermal"]["throttle_events"], 0, "{p_cores:#}");
}

#[test]
fn intel_power_limit_holds_the_cores_once_the_package_draws_up_to_it() {
    let tree = model_tree("intel-power-limit");
    // Standing still, the package draws nothing: the limit is lowered but holds nothing.
    let limits = limits_json(tree.path(), STILL);
    for cores in &limits {
        assert_eq!(cores["limiter"], "none", "{cores:#}");
        assert_eq!(cores["power"]["lowered"], true);
        assert_eq!(cores["power"]["holds"], false);
    }

    let _ticker = SimRun::start("intel-power-limit", tree.path());
    // Root reads the energy counter (the tests run as root): the power drawn is known.
    let limits = limits_json(tree.path(), TICKING);
    assert_eq!(limits.len(), 2, "{limits:#?}");
    for cores in &limits {
        let power = &cores["power"];
        assert_eq!(cores["limiter"], "power", "{cores:#}");
        assert_eq!(power["long_term_uw"], 8_000_000);
        assert_eq!(power["long_term_default_uw"], 28_000_000);
        assert_eq!(power["drawn_unreadable"], false);
        let drawn = power["drawn_uw"].as_u64().unwrap();
        assert!((7_200_000..=8_400_000).contains(&drawn), "{power:#}");
        assert_eq!(power["holds"], true);
    }
    let words = run_at(tree.path(), &["limits"], TICKING);
    assert!(
        words.contains(", the package draws what the limit allows  ← holds these cores\n"),
        "{words}"
    );
    assert!(
        words.contains(" by a power limit (long-term limit 8 W, default 28 W)\n"),
        "{words}"
    );
    // The chain's finding reaches the status document.
    assert_eq!(finding_kinds(tree.path(), TICKING), ["power-limit-lowered"]);
}

#[test]
fn amd_resume_clamp_is_the_settings_holding_half_the_policies_after_resume() {
    let tree = model_tree("amd-resume-clamp");
    let root = tree.path().to_str().unwrap();
    let before = limits_json(tree.path(), STILL);
    assert_eq!(before.len(), 1, "all cores alike: {before:#?}");
    assert_eq!(before[0]["limiter"], "none");

    let output = pacerctl(&["simulate", "resume", "--sysfs-root", root]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let after = limits_json(tree.path(), STILL);
    let cores = &after[0];
    assert!(cores["core_type"].is_null());
    assert_eq!(cores["limiter"], "settings", "{cores:#}");
    assert_eq!(cores["ceiling_khz"], 400_000);
    assert_eq!(cores["settings"]["ceiling_khz"], 400_000);
    assert_eq!(cores["held_policies"], json!([4, 5, 6, 7, 12, 13, 14, 15]));
    // The platform cannot tell a clamp from a setting without the suspend snapshot the
    // helper records (that finding is tested with the helper in history_cli.rs).
    assert!(cores["platform"]["clamped_max_khz"].is_null());
    let words = run_at(tree.path(), &["limits"], STILL);
    assert!(
        words.ends_with(
            "  Cores (policy 4-7,12-15) held at 400 MHz by their settings (scaling_max_freq)\n"
        ),
        "{words}"
    );
    assert!(
        words.contains("scaling_max_freq 4.9 GHz/400 MHz, up to 4.9 GHz  ← holds these cores\n"),
        "{words}"
    );

    // Without the helper there is no recording: fix claims no clamp and changes nothing.
    let output = pacerctl(&["fix", "--dry-run", "--sysfs-root", root]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "Nothing to fix: no findings.\n");
    let max = std::fs::read_to_string(
        tree.path()
            .join("sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq"),
    )
    .unwrap();
    assert_eq!(max, "400000\n");
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! What `pacerctl status` prints, as text and as JSON, on every simulated machine, kept as
//! reviewed snapshots (`tests/snapshots/`): a change in the output shows as a diff to accept
//! with `cargo insta review` (or `INSTA_UPDATE=always cargo test`), never silently. A model
//! without a snapshot fails (insta does not write new ones when `CI` is set).

mod common;

use common::{pacerctl, text};

/// The models `pacerctl simulate list` offers, by name.
fn models() -> Vec<String> {
    let listed = pacerctl(&["simulate", "list"]);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let names: Vec<String> = text(&listed.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect();
    assert!(names.len() >= 5, "models: {names:?}");
    names
}

fn status(model: &str, json: bool) -> String {
    let mut args = vec!["status", "--simulate", model];
    if json {
        args.push("--json");
    }
    let output = pacerctl(&args);
    assert!(
        output.status.success(),
        "pacerctl status on {model}: {}",
        text(&output.stderr)
    );
    text(&output.stdout)
}

#[test]
fn status_on_every_model() {
    for model in models() {
        insta::assert_snapshot!(format!("status-{model}"), status(&model, false));
    }
}

#[test]
fn status_json_on_every_model() {
    for model in models() {
        insta::assert_snapshot!(format!("status-json-{model}"), status(&model, true));
    }
}

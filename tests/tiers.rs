// SPDX-License-Identifier: GPL-3.0-or-later
//! Every test runs somewhere. Plain `cargo test` runs all but those that need a display,
//! GNOME Shell, flatpak tooling or root; each of those is marked
//! `#[ignore = "needs WHAT: build-aux/test.sh --lane NAME runs it"]`, and lane NAME of
//! `build-aux/test.sh` runs its target (`--lib`, or `--test FILE`) with `-- --ignored`. A mark
//! without its lane, a lane that does not run the marked target, a target whose marks two
//! lanes run, or a target a lane runs with nothing marked for it fails here.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const TOP: &str = env!("CARGO_MANIFEST_DIR");
const TEST_SH: &str = "build-aux/test.sh";
/// What the lanes run cargo with: `--workspace` always (test.sh says why).
const CARGO_TEST: &str = "\"${CARGO_TEST[@]}\"";

/// Where a test is: a crate's unit tests (`--lib`), or an integration test (`--test NAME`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    Lib,
    Test(String),
}

/// A test marked for a lane, where it is.
#[derive(Debug)]
struct Mark {
    file: PathBuf,
    line: usize,
    target: Target,
    lane: String,
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

/// The target of a file of a crate: what lies under `src/` is the crate's unit tests, a file
/// directly in `tests/` is an integration test of its name.
fn target_of(crate_dir: &Path, file: &Path) -> Target {
    let relative = file.strip_prefix(crate_dir).unwrap();
    let parts: Vec<_> = relative.iter().map(|p| p.to_str().unwrap()).collect();
    match parts[..] {
        ["src", ..] => Target::Lib,
        ["tests", name] => Target::Test(name.trim_end_matches(".rs").to_owned()),
        _ => panic!(
            "{}: a mark in a module shared by tests belongs to the test that uses it",
            file.display()
        ),
    }
}

/// Every `#[ignore` of the workspace's crates, as a mark; any other form of it fails.
fn marks() -> Vec<Mark> {
    let top = Path::new(TOP);
    let mut crates = vec![top.to_owned()];
    for entry in fs::read_dir(top.join("crates")).unwrap() {
        crates.push(entry.unwrap().path());
    }
    let this_file = top.join(file!());
    let mut marks = Vec::new();
    for crate_dir in crates {
        let mut files = Vec::new();
        rust_files(&crate_dir.join("src"), &mut files);
        rust_files(&crate_dir.join("tests"), &mut files);
        for file in files.into_iter().filter(|f| *f != this_file) {
            let text = fs::read_to_string(&file).unwrap();
            for (index, line) in text.lines().enumerate() {
                let Some(at) = line.find("#[ignore") else {
                    continue;
                };
                let place = format!(
                    "{}:{}",
                    file.strip_prefix(top).unwrap().display(),
                    index + 1
                );
                let lane = line[at..]
                    .strip_prefix("#[ignore = \"needs ")
                    .and_then(|rest| rest.strip_suffix(" runs it\"]"))
                    .and_then(|rest| rest.split_once(": build-aux/test.sh --lane "))
                    .map(|(_, lane)| lane.to_owned())
                    .unwrap_or_else(|| {
                        panic!(
                            "{place}: an ignored test says what it needs and the lane that runs \
                             it: #[ignore = \"needs WHAT: build-aux/test.sh --lane NAME runs it\"]"
                        )
                    });
                marks.push(Mark {
                    target: target_of(&crate_dir, &file),
                    file: file.clone(),
                    line: index + 1,
                    lane,
                });
            }
        }
    }
    marks
}

/// What each lane of `run_lane` in test.sh runs: the text of its case, `NAME)` to `;;`.
fn lanes(script: &str) -> BTreeMap<String, String> {
    let body = script
        .split_once("run_lane() {")
        .and_then(|(_, rest)| rest.split_once("\n  esac"))
        .map(|(body, _)| body)
        .expect("test.sh has run_lane's case");
    let mut lanes = BTreeMap::new();
    let mut open: Option<(String, String)> = None;
    for line in body.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with("case ") {
            continue;
        }
        let (name, text) = match open.take() {
            Some((name, text)) => (name, format!("{text} {line}")),
            None => {
                let (name, rest) = line
                    .split_once(')')
                    .unwrap_or_else(|| panic!("test.sh: a lane's case starts `NAME)`: {line}"));
                (name.to_owned(), rest.to_owned())
            }
        };
        if text.contains(";;") {
            lanes.insert(name, text.replace('\\', " "));
        } else {
            open = Some((name, text));
        }
    }
    lanes
}

/// The targets a lane's text runs with `-- --ignored`.
fn ignored_targets(lane: &str, text: &str) -> BTreeSet<Target> {
    if !text.contains("-- --ignored") {
        return BTreeSet::new();
    }
    assert!(
        text.contains(CARGO_TEST),
        "lane {lane}: the ignored tests run through {CARGO_TEST}, for the whole workspace"
    );
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut targets = BTreeSet::new();
    for (i, word) in words.iter().enumerate() {
        match *word {
            "--lib" => {
                targets.insert(Target::Lib);
            }
            "--test" => {
                targets.insert(Target::Test(words[i + 1].to_owned()));
            }
            _ => {}
        }
    }
    assert!(
        !targets.is_empty(),
        "lane {lane}: --ignored with no target would run every ignored test of the workspace"
    );
    targets
}

#[test]
fn every_marked_test_runs_in_the_one_lane_it_names() {
    let script = fs::read_to_string(Path::new(TOP).join(TEST_SH)).unwrap();
    assert!(
        script.contains("CARGO_TEST=(cargo test --locked --workspace"),
        "{TEST_SH}: CARGO_TEST names the whole workspace"
    );
    let lanes = lanes(&script);
    assert!(lanes.contains_key("cargo"), "{lanes:?}");
    let marks = marks();

    // Which lanes run each target's marked tests.
    let mut runs: BTreeMap<Target, BTreeSet<&str>> = BTreeMap::new();
    for (lane, text) in &lanes {
        for target in ignored_targets(lane, text) {
            runs.entry(target).or_default().insert(lane);
        }
    }
    for (target, by) in &runs {
        assert_eq!(
            by.len(),
            1,
            "{target:?} runs with --ignored in lanes {by:?}"
        );
    }

    let mut marked: BTreeSet<(&Target, &str)> = BTreeSet::new();
    for mark in &marks {
        let place = format!(
            "{}:{}",
            mark.file.strip_prefix(TOP).unwrap().display(),
            mark.line
        );
        assert!(
            lanes.contains_key(&mark.lane),
            "{place}: no lane {} in {TEST_SH}",
            mark.lane
        );
        let by = runs.get(&mark.target);
        assert!(
            by.is_some_and(|by| by.contains(mark.lane.as_str())),
            "{place}: lane {} does not run {:?} with -- --ignored",
            mark.lane,
            mark.target
        );
        marked.insert((&mark.target, &mark.lane));
    }
    for (target, by) in &runs {
        for lane in by {
            assert!(
                marked.contains(&(target, *lane)),
                "lane {lane} runs {target:?} with --ignored, but no test there is marked for it"
            );
        }
    }
}

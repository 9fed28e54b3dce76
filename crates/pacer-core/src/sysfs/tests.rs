// SPDX-License-Identifier: GPL-3.0-or-later
//! Unit tests of `sysfs`.

use super::problem::shorten;
use super::root::MAX_FILE_BYTES;
use super::*;

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("freq"), "400000\n").unwrap();
    std::fs::write(dir.path().join("bad"), "four hundred\n").unwrap();
    std::fs::write(
        dir.path().join("govs"),
        "conservative ondemand schedutil \n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("dir")).unwrap();
    dir
}

#[test]
fn reads_values_and_reports_problems() {
    let dir = tree();
    let root = SysRoot::new(dir.path());
    let mut probe = Probe::new(&root);
    let freq: Option<crate::values::Khz> = probe.value("freq", Need::Required, Expected::Frequency);
    assert_eq!(freq, Some(crate::values::Khz(400_000)));
    let govs: Option<Vec<crate::values::Governor>> =
        probe.list("govs", Need::Required, Expected::GovernorList);
    assert_eq!(govs.map(|g| g.len()), Some(3));
    assert!(probe.problems.is_empty());

    let bad: Option<crate::values::Khz> = probe.value("bad", Need::Required, Expected::Frequency);
    assert_eq!(bad, None);
    let absent: Option<String> = probe.text("absent", Need::Optional);
    assert_eq!(absent, None);
    assert_eq!(
        probe.problems.len(),
        1,
        "an optional file's absence is no problem"
    );
    let _ = probe.text("absent", Need::Required);
    let _ = probe.text("dir", Need::Required);
    let messages: Vec<String> = probe.problems.iter().map(ToString::to_string).collect();
    assert!(messages[0].ends_with("bad holds \"four hundred\", not a frequency in kHz"));
    assert!(messages[1].ends_with("absent is missing"));
    assert!(messages[2].contains("dir cannot be read: Is a directory (os error 21)"));
    assert!(matches!(
        probe.problems[2].kind,
        ProblemKind::Unreadable {
            errno: Some(21),
            ..
        }
    ));
}

#[test]
fn files_read_through_kept_directories_are_the_right_files() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        "top", "a/b/x", "a/b/y", "a/c/x", "a/c/y", "a/c/z", "a/x", "d/x", "a/b/x", "e/f/g/x",
        "e/f/h/x",
    ];
    for file in files {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("{file}\n")).unwrap();
    }
    let root = SysRoot::new(dir.path());
    let mut probe = Probe::new(&root);
    // Every order of going down, across and back up, with missing files between.
    for file in files.iter().chain(files.iter().rev()) {
        assert_eq!(probe.text(file, Need::Required).as_deref(), Some(*file));
        assert_eq!(probe.text(&format!("{file}-absent"), Need::Optional), None);
    }
    assert_eq!(
        probe.text("/a/c/x", Need::Required).as_deref(),
        Some("a/c/x")
    );
    assert!(probe.problems.is_empty(), "{:?}", probe.problems);
    assert!(probe.cache.grandparent_is_open());
}

#[test]
fn logs_reads_when_asked() {
    let dir = tree();
    let root = SysRoot::with_read_log(dir.path());
    let _ = root.read_text("freq");
    let _ = root.read_text("absent");
    assert_eq!(
        root.reads(),
        vec![dir.path().join("freq"), dir.path().join("absent")]
    );
}

#[test]
fn refuses_huge_and_binary_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("huge"), vec![b'1'; MAX_FILE_BYTES * 2]).unwrap();
    std::fs::write(dir.path().join("binary"), [0xff, 0xfe, 0]).unwrap();
    let root = SysRoot::new(dir.path());
    assert!(matches!(root.read_text("huge"), Err(ReadError::Io(_))));
    assert!(matches!(root.read_text("binary"), Err(ReadError::Io(_))));
}

#[test]
fn shortens_long_content() {
    assert_eq!(shorten(&"x".repeat(100)).chars().count(), 41);
    assert_eq!(shorten("short"), "short");
}

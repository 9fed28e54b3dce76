// SPDX-License-Identifier: GPL-3.0-or-later
//! Unit tests of `dir`.

use super::*;

#[test]
fn opens_creates_and_refuses_other_contents() {
    let dir = tempfile::tempdir().unwrap();
    let sim = SimDir::open_or_create(dir.path(), "amd-zen4").unwrap();
    assert_eq!(sim.machine().unwrap().model, "amd-zen4");
    // Reused as it is.
    SimDir::open_or_create(dir.path(), "amd-zen4").unwrap();
    assert!(matches!(
        SimDir::open_or_create(dir.path(), "vm"),
        Err(SimError::OtherModel { .. })
    ));
    assert!(matches!(
        SimDir::open_or_create(&dir.path().join("new"), "nonesuch"),
        Err(SimError::UnknownModel(_))
    ));
    let other = tempfile::tempdir().unwrap();
    fs::write(other.path().join("precious"), "x").unwrap();
    assert!(matches!(
        SimDir::open_or_create(other.path(), "vm"),
        Err(SimError::Render(RenderError::NotEmpty(_)))
    ));
    assert!(matches!(
        SimDir::open(other.path()),
        Err(SimError::NotSimulated(_))
    ));
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! The choice of values and the profile names.

use super::*;

#[test]
fn the_first_available_choice_wins() {
    let governors = ["schedutil", "conservative", "powersave"];
    assert_eq!(
        first_available(&governors, Some("performance powersave")),
        Some("powersave")
    );
    assert_eq!(first_available(&governors, Some("performance")), None);
    assert_eq!(first_available(&governors, None), None);
}

#[test]
fn profile_names_round_trip() {
    for profile in PpdProfile::ALL {
        assert_eq!(PpdProfile::parse(profile.name()), Some(profile));
    }
    assert_eq!(PpdProfile::parse("turbo"), None);
}

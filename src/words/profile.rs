// SPDX-License-Identifier: GPL-3.0-or-later
//! A power profile's name as the profile daemons' own settings panels say it, wherever Pacer
//! shows it (the overview's switcher, the tray's menu and tooltip).

use pacer_core::i18n::gettext;

/// A power profile's name in words.
pub fn profile_label(profile: &str) -> String {
    match profile {
        "power-saver" => gettext("Power Saver"),
        "balanced" => gettext("Balanced"),
        "performance" => gettext("Performance"),
        other => other.to_owned(),
    }
}

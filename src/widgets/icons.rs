// SPDX-License-Identifier: GPL-3.0-or-later
//! The theme icons Pacer shows, besides its own (installed with it, `data/icons/`).
//!
//! All come from Adwaita, the icon theme GTK 4 depends on and falls back to, so they exist
//! wherever Pacer runs. An icon of another application's is missing where that application
//! is not installed (the overview's was gnome-system-monitor's `speedometer-symbolic`), and
//! an SVG-only icon makes GTK load librsvg (6.5 MB resident, and libxml2 and ICU with it)
//! where Adwaita's come pre-rendered as `.symbolic.png`. That holds for the sizes Adwaita
//! pre-renders (16 to 96 pixels) only: a status page's icon is 128 pixels unless the page is
//! `compact` (96), and GTK draws a 128-pixel icon from the SVG, even on a page not shown yet,
//! so Pacer's status pages are compact.

pub const OVERVIEW: &str = "power-profile-balanced-symbolic";
pub const CPUS: &str = "applications-engineering-symbolic";
pub const MEASURE: &str = "preferences-system-time-symbolic";
pub const MAIN_MENU: &str = "open-menu-symbolic";
pub const EXPORT: &str = "document-save-symbolic";
pub const NO_CPUFREQ: &str = "computer-symbolic";
pub const WARNING: &str = "dialog-warning-symbolic";
pub const INFORMATION: &str = "dialog-information-symbolic";
pub const HISTORY: &str = "document-open-recent-symbolic";
/// The chosen option of a list, as libadwaita's own combo rows mark it.
pub const CHOSEN: &str = "object-select-symbolic";
/// The sources of a recorded change: a process, the kernel, the profile daemon, Pacer, none
/// seen; and the recording's own start, stop and gaps.
pub const PROCESS: &str = "application-x-executable-symbolic";
pub const KERNEL: &str = "emblem-system-symbolic";
pub const DAEMON: &str = "power-profile-balanced-symbolic";
pub const PACER: &str = "document-edit-symbolic";
pub const UNKNOWN: &str = "dialog-question-symbolic";
pub const RECORDING: &str = "media-record-symbolic";

#[cfg(test)]
mod tests {
    use std::path::Path;

    const ALL: [&str; 16] = [
        super::OVERVIEW,
        super::CPUS,
        super::MEASURE,
        super::MAIN_MENU,
        super::EXPORT,
        super::NO_CPUFREQ,
        super::WARNING,
        super::INFORMATION,
        super::HISTORY,
        super::CHOSEN,
        super::PROCESS,
        super::KERNEL,
        super::DAEMON,
        super::PACER,
        super::UNKNOWN,
        super::RECORDING,
    ];

    /// Where Debian's adwaita-icon-theme puts the pre-rendered symbolic icons.
    const ADWAITA_16: &str = "/usr/share/icons/Adwaita/16x16";

    #[test]
    fn every_icon_is_adwaitas_pre_rendered() {
        let contexts: Vec<_> = std::fs::read_dir(ADWAITA_16)
            .unwrap_or_else(|error| panic!("{ADWAITA_16}: {error} (adwaita-icon-theme)"))
            .filter_map(|entry| Some(entry.ok()?.path()))
            .collect();
        for icon in ALL {
            let file = format!("{icon}.symbolic.png");
            assert!(
                contexts
                    .iter()
                    .any(|dir| Path::new(dir).join(&file).is_file()),
                "{file} is in none of {ADWAITA_16}'s folders"
            );
        }
    }
}

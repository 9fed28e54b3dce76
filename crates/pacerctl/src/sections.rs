// SPDX-License-Identifier: GPL-3.0-or-later
//! Parts of the text that `pacerctl status` and `pacerctl limits` share.

use std::fmt::Write;

use pacer_core::i18n::{fill, gettext, ngettext};
use pacer_core::sysfs::Problem;

use crate::style::Style;

/// Said where the kernel has no cpufreq driver: nothing to show per core type.
pub(crate) fn no_cpufreq() -> String {
    gettext("No CPU frequency scaling: the kernel offers no cpufreq driver here.")
}

/// The files that could not be read as the kernel prints them, with the reason; nothing
/// where all could.
pub(crate) fn problems_section(problems: &[Problem], style: &Style) -> String {
    let mut out = String::new();
    if !problems.is_empty() {
        let count = problems.len();
        let heading = fill(
            ngettext(
                "{count} file could not be read as expected:",
                "{count} files could not be read as expected:",
                count as u32,
            ),
            &[("count", &count)],
        );
        let _ = writeln!(out, "\n{}", style.warning(&heading));
        for problem in problems {
            let _ = writeln!(out, "  {problem}");
        }
    }
    out
}

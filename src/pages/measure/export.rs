// SPDX-License-Identifier: GPL-3.0-or-later
//! Exporting a result: its figures as JSON, its table as CSV, its chart as PNG.

use std::path::Path;

use pacer_core::i18n::{fill, gettext};

use super::state::Entry;
use crate::widgets::plot::{ramp_png, Palette};
use crate::words::said::Said;

/// The size of an exported chart.
const PNG_SIZE: (u32, u32) = (960, 540);

/// The format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Export {
    Json,
    Csv,
    Png,
}

impl Export {
    pub fn extension(self) -> &'static str {
        match self {
            Export::Json => "json",
            Export::Csv => "csv",
            Export::Png => "png",
        }
    }
}

/// Writes `entry` to `path` in `format`; what went wrong names the file, with the system's
/// own message as the detail.
pub fn export(entry: &Entry, format: Export, path: &Path) -> Result<(), Said> {
    let write = |text: String| std::fs::write(path, text).map_err(|e| e.to_string());
    match format {
        Export::Json => entry
            .outcome
            .to_json()
            .map_err(|e| e.to_string())
            .and_then(write),
        Export::Csv => write(entry.outcome.table().to_csv()),
        Export::Png => ramp_png(
            path,
            PNG_SIZE.0,
            PNG_SIZE.1,
            &entry.chart(),
            &Palette::for_dark(false),
        )
        .map_err(|e| e.to_string()),
    }
    .map_err(|error| Said {
        text: fill(gettext("Cannot write {file}"), &[("file", &path.display())]),
        detail: Some(error),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::pages::measure::state::Outcome;
    use crate::testing::simulated_ramp_report;
    use pacer_dbus::measurement::report::RampReport;

    #[test]
    fn a_result_gives_a_series_per_core_type_and_exports_in_three_formats() {
        let outcome = Outcome::Ramp(simulated_ramp_report());
        let series = outcome.series();
        assert_eq!(series.len(), 2);
        assert_eq!(series[0].points.len(), 7);
        let entry = Entry {
            title: "t".into(),
            outcome,
            trials: Vec::new(),
        };
        let dir = tempfile::tempdir().unwrap();
        for format in [Export::Json, Export::Csv, Export::Png] {
            let path = dir.path().join(format!("out.{}", format.extension()));
            export(&entry, format, &path).unwrap();
            assert!(std::fs::metadata(&path).unwrap().len() > 100, "{format:?}");
        }
        let json: RampReport =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("out.json")).unwrap())
                .unwrap();
        assert_eq!(json.runs.len(), 2);
        assert!(
            export(&entry, Export::Csv, Path::new("/nonexistent/dir/x.csv"))
                .unwrap_err()
                .text
                .contains("/nonexistent/dir/x.csv")
        );
    }
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! Writing metric families as OpenMetrics 1.0 text, or as the Prometheus text format (0.0.4)
//! that node_exporter's textfile collector reads.
//!
//! The Prometheus text format knows no state sets, info metrics or units, and its parser
//! (Go's `expfmt`, in node_exporter) refuses a whole file with a type it does not know. So
//! there a state set is a gauge with the same samples, an info metric a gauge named with its
//! `_info` suffix, the unit is left to the name, and nothing ends the text.

use std::fmt::{Display, Write};

/// The text format of the exposition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    OpenMetrics,
    Prometheus,
}

/// Metric families being written one after the other, each with its samples together.
pub(super) struct Exposition {
    pub(super) text: String,
    format: Format,
}

impl Exposition {
    pub(super) fn new(format: Format) -> Exposition {
        Exposition {
            text: String::new(),
            format,
        }
    }

    /// Starts a family of OpenMetrics type `kind`: `# HELP`, `# TYPE`, and `# UNIT` where
    /// it has one.
    pub(super) fn family(&mut self, name: &str, kind: &str, unit: Option<&str>, help: &str) {
        match self.format {
            Format::OpenMetrics => {
                let _ = writeln!(self.text, "# HELP {name} {}", escape(help, true));
                let _ = writeln!(self.text, "# TYPE {name} {kind}");
                if let Some(unit) = unit {
                    let _ = writeln!(self.text, "# UNIT {name} {unit}");
                }
            }
            Format::Prometheus => {
                // An info metric's samples carry the suffix; here the family is named so.
                let name = match kind {
                    "info" => format!("{name}_info"),
                    _ => name.to_owned(),
                };
                let kind = match kind {
                    "stateset" | "info" => "gauge",
                    kind => kind,
                };
                let _ = writeln!(self.text, "# HELP {name} {}", escape(help, false));
                let _ = writeln!(self.text, "# TYPE {name} {kind}");
            }
        }
    }

    pub(super) fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: impl Display) {
        self.text.push_str(name);
        if !labels.is_empty() {
            let pairs: Vec<String> = labels
                .iter()
                .map(|(label, value)| format!("{label}=\"{}\"", escape(value, true)))
                .collect();
            let _ = write!(self.text, "{{{}}}", pairs.join(","));
        }
        let _ = writeln!(self.text, " {value}");
    }

    /// The samples of a state set for one set of `labels`: one per state, 1 for those in
    /// `current`. A current state the kernel does not list still gets its sample.
    pub(super) fn states(
        &mut self,
        family: &str,
        labels: &[(&str, &str)],
        listed: &[String],
        current: &[String],
    ) {
        let mut states: Vec<&String> = listed.iter().collect();
        states.extend(current.iter().filter(|state| !listed.contains(state)));
        for state in states {
            let mut all = labels.to_vec();
            all.push((family, state));
            self.sample(family, &all, u8::from(current.contains(state)));
        }
    }

    /// The text, ended as the format wants: OpenMetrics with `# EOF`.
    pub(super) fn finish(mut self) -> String {
        if self.format == Format::OpenMetrics {
            self.text.push_str("# EOF\n");
        }
        self.text
    }
}

/// A label value as both formats escape it (backslash, double quote, line feed), or a HELP
/// text: OpenMetrics escapes the same there, the Prometheus format only backslash and line
/// feed.
pub(super) fn escape(text: &str, quote: bool) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => escaped.push_str("\\\\"),
            '"' if quote => escaped.push_str("\\\""),
            '\n' => escaped.push_str("\\n"),
            c => escaped.push(c),
        }
    }
    escaped
}

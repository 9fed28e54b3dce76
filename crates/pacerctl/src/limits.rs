// SPDX-License-Identifier: GPL-3.0-or-later
//! The limit chain for `pacerctl status` and `pacerctl limits`: two readings a moment apart
//! (`--interval`), because delivered frequency, throttle counters and the energy counter only
//! mean something over time; then the chain in words (`words`) or as JSON
//! (`docs/contracts.md` 2, `docs/kernel.md` 8).

mod figures;
mod links;
mod words;

#[cfg(test)]
mod tests;

use std::fmt;
use std::io::Write;
use std::time::Duration;

use pacer_core::i18n::{fill, gettext};
use pacer_core::limits::LimitWatch;
use pacer_core::status::Status;
use pacer_core::status_json::LimitsDocument;
use pacer_core::SysRoot;

use crate::style::Style;

pub use words::verdict;

/// The longest `--interval`: the chain says what holds the cores now, and a caller wanting a
/// longer view runs it again.
const LONGEST_SECONDS: f64 = 60.0;

/// An `--interval` that is not a number of seconds from 0 to 60: the text as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadInterval {
    NotANumber(String),
    Negative(String),
    TooLong(String),
}

impl fmt::Display for BadInterval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            BadInterval::NotANumber(text) => fill(
                gettext("{text} is not a number of seconds, as in 1 or 0.5"),
                &[("text", text)],
            ),
            BadInterval::Negative(text) => fill(
                gettext("{text} is negative: give 0 (one reading) or more seconds"),
                &[("text", text)],
            ),
            BadInterval::TooLong(text) => fill(
                gettext("{text} is more than 60 seconds: the chain says what holds the cores now"),
                &[("text", text)],
            ),
        };
        f.write_str(&text)
    }
}

impl std::error::Error for BadInterval {}

/// `--interval`: seconds, fractions allowed (`0.5`), from 0 to 60.
pub fn parse_interval(text: &str) -> Result<Duration, BadInterval> {
    let seconds: f64 = text
        .trim()
        .parse()
        .ok()
        .filter(|seconds: &f64| seconds.is_finite())
        .ok_or_else(|| BadInterval::NotANumber(text.to_owned()))?;
    if seconds < 0.0 {
        return Err(BadInterval::Negative(text.to_owned()));
    }
    if seconds > LONGEST_SECONDS {
        return Err(BadInterval::TooLong(text.to_owned()));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Works out `status`'s limit chain from readings `interval` apart (one reading for zero).
/// What the chain could not read joins the snapshot's problems, each file once.
pub fn read(root: &SysRoot, status: &mut Status, interval: Duration) {
    let mut watch = LimitWatch::new(root, &status.snapshot);
    watch.refresh(root);
    if !interval.is_zero() {
        std::thread::sleep(interval);
        watch.refresh(root);
    }
    status.read_limits(&mut watch);
    for problem in watch.problems() {
        if !status.snapshot.problems.contains(&problem) {
            status.snapshot.problems.push(problem);
        }
    }
}

/// `pacerctl limits`: the chain in words, or its JSON document.
pub fn print(status: &Status, interval: Duration, json: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        let document = LimitsDocument::new(status);
        writeln!(out, "{}", serde_json::to_string_pretty(&document)?)?;
    } else {
        let style = Style::for_stdout();
        out.write_all(words::render(status, interval, &style).as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

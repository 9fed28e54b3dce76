// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl history`: who changed the power state, from the helper's recording — what it
//! holds (of the last `--since`), then, with `--follow`, each change as it comes, with a
//! watch open that keeps the helper recording until interrupted.

use std::collections::BTreeSet;
use std::fmt;
use std::io::Write;
use std::time::{Duration, SystemTime};

use anyhow::Context;
use futures_util::StreamExt;
use pacer_core::history::Event;
use pacer_core::i18n::{fill, gettext};
use pacer_core::who::{by_whom, what_changed};
use pacer_dbus::client::{self as helper_client, call};
use pacer_dbus::history::History1Proxy;

use crate::runtime::bus;
use crate::style::Style;

/// What `pacerctl history` was asked for.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    pub since: Option<Duration>,
    pub follow: bool,
    pub json: bool,
    pub session: bool,
}

pub async fn run(request: Request) -> anyhow::Result<()> {
    let helper = helper_client::connect(bus(request.session)).await?;
    let history = History1Proxy::new(helper.inner().connection())
        .await
        .context("the helper's history")?;
    // Listening before the watch opens: no change between the two goes unseen.
    let mut changes = match request.follow {
        true => Some(history.receive_changed().await?),
        false => None,
    };
    if request.follow {
        call(history.watch_changes()).await?;
    }
    let kept: Vec<Event> = parse(&call(history.history(0)).await?)?;
    let from = request
        .since
        .and_then(|since| SystemTime::now().checked_sub(since));
    let mut printer = Printer {
        json: request.json,
        style: Style::for_stdout(),
        printed: BTreeSet::new(),
    };
    for event in kept
        .iter()
        .filter(|e| from.is_none_or(|from| e.time >= from))
    {
        printer.print(event)?;
    }
    let Some(changes) = changes.as_mut() else {
        if kept.is_empty() {
            eprintln!(
                "{}",
                gettext(
                    "nothing recorded: the helper records while Pacer's window, its tray or `pacerctl history --follow` keeps a watch open"
                )
            );
        }
        return Ok(());
    };
    loop {
        tokio::select! {
            change = changes.next() => {
                let Some(change) = change else {
                    anyhow::bail!(gettext("the helper left the bus: the recording ended"));
                };
                let event: Event = parse(change.args()?.event())?;
                printer.print(&event)?;
            }
            _ = tokio::signal::ctrl_c() => return Ok(()),
        }
    }
}

fn parse<T: serde::de::DeserializeOwned>(text: &str) -> anyhow::Result<T> {
    serde_json::from_str(text)
        .with_context(|| gettext("the helper sent a history this version cannot read"))
}

/// Prints each event once (a change may come both in the history and as a signal).
struct Printer {
    json: bool,
    style: Style,
    printed: BTreeSet<u64>,
}

impl Printer {
    fn print(&mut self, event: &Event) -> anyhow::Result<()> {
        if !self.printed.insert(event.id) {
            return Ok(());
        }
        let mut out = std::io::stdout().lock();
        if self.json {
            writeln!(out, "{}", serde_json::to_string(event)?)?;
        } else {
            let age = SystemTime::now()
                .duration_since(event.time)
                .unwrap_or_default();
            writeln!(
                out,
                "{}  {}  {}  {}",
                self.style.dim(&format!("#{}", event.id)),
                self.style.dim(&ago(age)),
                what_changed(event),
                by_whom(event)
            )?;
        }
        out.flush()?;
        Ok(())
    }
}

/// "35 s ago", "4 min ago", "2 h ago", "3 d ago".
fn ago(age: Duration) -> String {
    let seconds = age.as_secs();
    let (count, template) = match seconds {
        0..60 => (seconds, gettext("{n} s ago")),
        60..3600 => (seconds / 60, gettext("{n} min ago")),
        3600..86_400 => (seconds / 3600, gettext("{n} h ago")),
        _ => (seconds / 86_400, gettext("{n} d ago")),
    };
    fill(template, &[("n", &count)])
}

/// A `--since` that is not a duration: the text as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotADuration(String);

impl fmt::Display for NotADuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&fill(
            gettext("{text} is not a duration: say how long with s, m, h or d, as in 10m or 1h30m"),
            &[("text", &self.0)],
        ))
    }
}

impl std::error::Error for NotADuration {}

/// `--since`: `90s`, `10m`, `2h`, `1d`, or several (`1h30m`).
pub fn parse_duration(text: &str) -> Result<Duration, NotADuration> {
    let invalid = || NotADuration(text.to_owned());
    let mut total = 0u64;
    let mut digits = String::new();
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => return Err(invalid()),
        };
        let count: u64 = digits.parse().map_err(|_| invalid())?;
        total = count
            .checked_mul(unit)
            .and_then(|seconds| total.checked_add(seconds))
            .ok_or_else(invalid)?;
        digits.clear();
    }
    if !digits.is_empty() || total == 0 && text.trim().is_empty() {
        return Err(invalid());
    }
    Ok(Duration::from_secs(total))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("2d"), Ok(Duration::from_secs(172_800)));
        for bad in [
            "",
            "10",
            "m",
            "ten minutes",
            "5x",
            "-3m",
            "99999999999999999999d",
        ] {
            let error = parse_duration(bad).unwrap_err().to_string();
            assert!(error.contains("not a duration"), "{bad}: {error}");
        }
    }

    #[test]
    fn an_age_is_said_in_its_largest_unit() {
        assert_eq!(ago(Duration::from_secs(35)), "35 s ago");
        assert_eq!(ago(Duration::from_secs(250)), "4 min ago");
        assert_eq!(ago(Duration::from_secs(7300)), "2 h ago");
        assert_eq!(ago(Duration::from_secs(3 * 86_400 + 5)), "3 d ago");
    }
}

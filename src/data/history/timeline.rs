// SPDX-License-Identifier: GPL-3.0-or-later
//! The History page's rows as a timeline: the changes, newest first, each under the moment it
//! happened, and the writes that left a value as it was folded. A write of the value already
//! there changes nothing, so a run of them (with no change between) is one row per setting,
//! cores, value and hand, with how many it stands for. A heading names a minute; where the
//! rows of a minute came at different seconds, each second has its own.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pacer_core::history::Event;

/// One row.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The change the row stands for: the newest of its group or of its rewrites.
    pub event: Event,
    /// How many writes of the value already there the row stands for; 0 for a change.
    pub rewrites: usize,
    /// The heading the row goes under.
    pub moment: Moment,
}

/// When a heading says the rows under it happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moment {
    /// The start of the minute, or of the second.
    pub time: SystemTime,
    /// Whether the heading names the second: the minute's rows came at different ones.
    pub seconds: bool,
}

/// Whether `event` wrote the value that was already there: a rewrite, which changed nothing.
pub fn is_rewrite(event: &Event) -> bool {
    event.setting.is_value() && event.old.as_deref() == Some(event.new.as_str())
}

/// The rows for `groups`, newest first, as `grouped` makes them.
pub fn timeline(groups: Vec<Event>) -> Vec<Entry> {
    let mut rows: Vec<(Event, usize)> = Vec::new();
    // Where the run of rewrites under way began: a change ends it.
    let mut run = 0;
    for event in groups {
        if !is_rewrite(&event) {
            rows.push((event, 0));
            run = rows.len();
            continue;
        }
        match rows[run..].iter_mut().find(|(row, _)| folds(row, &event)) {
            Some((_, times)) => *times += 1,
            None => rows.push((event, 1)),
        }
    }
    // Per minute, its first row's second and whether another row's differs.
    let mut minutes: BTreeMap<u64, (u64, bool)> = BTreeMap::new();
    for (event, _) in &rows {
        let second = unix_seconds(event);
        let (first, differ) = minutes.entry(second / 60).or_insert((second, false));
        *differ |= *first != second;
    }
    rows.into_iter()
        .map(|(event, rewrites)| {
            let second = unix_seconds(&event);
            let seconds = minutes
                .get(&(second / 60))
                .is_some_and(|(_, differ)| *differ);
            let start = if seconds { second } else { second / 60 * 60 };
            Entry {
                event,
                rewrites,
                moment: Moment {
                    time: UNIX_EPOCH + Duration::from_secs(start),
                    seconds,
                },
            }
        })
        .collect()
}

/// Whether the rewrite `event` folds into the rewrite `row`: the same value of the same
/// setting on the same cores, written by the same hand (a program by its name: each run of
/// a command is a new process).
fn folds(row: &Event, event: &Event) -> bool {
    let name = |event: &Event| {
        event
            .process
            .as_ref()
            .and_then(|writer| writer.comm.clone())
    };
    row.setting == event.setting
        && row.policies == event.policies
        && row.new == event.new
        && row.source == event.source
        && name(row) == name(event)
}

fn unix_seconds(event: &Event) -> u64 {
    event
        .time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

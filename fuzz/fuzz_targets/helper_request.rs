// SPDX-License-Identifier: GPL-3.0-or-later
//! The helper's request validation (`pacer_helper::validate`): any request a caller can send,
//! against the simulated machines' trees. Never panics; what it accepts is what the machine
//! offers.
//!
//! Input: byte 0 picks the machine, byte 1 the method, byte 2 how many policies or CPUs
//! follow as little-endian u32s (byte 3 … ), the rest is the method's string (lossy UTF-8)
//! or, for a measurement or a maximum frequency, the trial count or kHz in its first four
//! bytes.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pacer_core::machine::Snapshot;
use pacer_core::SysRoot;
use pacer_helper::validate::{self, Request};

fn machines() -> &'static Vec<Snapshot> {
    static MACHINES: OnceLock<Vec<Snapshot>> = OnceLock::new();
    MACHINES.get_or_init(|| {
        let base = std::env::temp_dir().join(format!("pacer-fuzz-{}", std::process::id()));
        pacer_core::sim::MODELS
            .iter()
            .map(|model| model.name)
            .map(|name| {
                let dir = base.join(name);
                std::fs::create_dir_all(&dir).unwrap();
                pacer_core::sim::model(name).unwrap().render(&dir).unwrap();
                let snapshot = Snapshot::read(&SysRoot::new(&dir)).unwrap();
                let _ = std::fs::remove_dir_all(&dir);
                snapshot
            })
            .collect()
    })
}

fn request(data: &[u8]) -> Option<(usize, Request)> {
    let (&machine, rest) = data.split_first()?;
    let (&method, rest) = rest.split_first()?;
    let (&count, rest) = rest.split_first()?;
    let count = usize::from(count).min(rest.len() / 4);
    let (numbers, tail) = rest.split_at(count * 4);
    let ids: Vec<u32> = numbers
        .chunks_exact(4)
        .map(|n| u32::from_le_bytes([n[0], n[1], n[2], n[3]]))
        .collect();
    let text = String::from_utf8_lossy(tail).into_owned();
    let number = tail
        .get(..4)
        .map_or(1, |t| u32::from_le_bytes([t[0], t[1], t[2], t[3]]));
    let request = match method % 7 {
        0 => Request::SetGovernor { policies: ids, governor: text },
        1 => Request::SetEpp { policies: ids, epp: text },
        2 => Request::SetBoost { policies: ids },
        3 => Request::SetEas,
        4 => Request::SetDriverMode { mode: text },
        5 => Request::SetMaxFrequency { policies: ids, khz: number },
        _ => Request::MeasureRamp { cpus: ids, trials: number },
    };
    Some((usize::from(machine) % pacer_core::sim::MODELS.len(), request))
}

fuzz_target!(|data: &[u8]| {
    let Some((machine, request)) = request(data) else {
        return;
    };
    let snapshot = &machines()[machine];
    match validate::check(snapshot, &request) {
        Ok(()) => match &request {
            // Accepted: every policy is there and online and offers the value.
            Request::SetGovernor { policies, governor } => {
                for id in policies {
                    let policy = snapshot.policy(*id).unwrap();
                    assert!(policy.is_active());
                    assert!(policy
                        .available_governors
                        .as_deref()
                        .unwrap()
                        .iter()
                        .any(|offered| offered.as_str() == governor));
                }
            }
            Request::SetEpp { policies, .. } | Request::SetBoost { policies } => {
                assert!(!policies.is_empty());
                assert!(policies
                    .iter()
                    .all(|id| snapshot.policy(*id).is_some_and(|p| p.is_active())));
            }
            Request::SetMaxFrequency { policies, khz } => {
                for id in policies {
                    let policy = snapshot.policy(*id).unwrap();
                    assert!(policy.is_active());
                    let (min, max) = (policy.hw_min_khz.unwrap(), policy.hw_max_khz.unwrap());
                    assert!((min.0..=max.0).contains(khz));
                }
            }
            Request::MeasureRamp { cpus, trials } => {
                assert!(!cpus.is_empty() && *trials >= 1);
                assert!(cpus.len() * (*trials as usize) <= validate::MAX_TRIAL_RUNS.max(cpus.len()));
            }
            Request::SetEas | Request::SetDriverMode { .. } => {}
        },
        Err(problem) => {
            // Worded without panicking, echoing at most 200 characters of the input (each
            // shown escaped, `\u{10ffff}` at the longest).
            let text = problem.to_string();
            assert!(text.chars().count() <= 10 * (pacer_dbus::ECHO_LIMIT + 1) + 400, "{text}");
            let json = serde_json::to_string(&problem).unwrap();
            assert_eq!(serde_json::from_str::<pacer_dbus::Problem>(&json).unwrap(), problem);
        }
    }
});

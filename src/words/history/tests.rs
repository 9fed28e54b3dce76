// SPDX-License-Identifier: GPL-3.0-or-later
#![allow(clippy::unwrap_used)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pacer_core::history::{recording, Setting, Source, Writer};
use pacer_core::values::CoreType;

use super::*;
use crate::data::history::Moment;

fn hybrid() -> Cores {
    Cores::of(&crate::testing::simulated_status("intel-hybrid", &[]))
}

fn writer(pid: u32, name: &str) -> Option<Writer> {
    Some(Writer {
        pid,
        comm: Some(name.into()),
        exe: None,
        unit: None,
        uid: Some(0),
    })
}

fn change(id: u64, setting: Setting, old: &str, new: &str, source: Source) -> Event {
    Event {
        id,
        time: SystemTime::now(),
        monotonic_ms: 0,
        setting,
        policies: (0..16).collect(),
        old: Some(old.into()),
        new: new.into(),
        source,
        process: None,
        cause: None,
        hold: None,
    }
}

fn entry(event: Event, rewrites: usize) -> Entry {
    let moment = Moment {
        time: event.time,
        seconds: false,
    };
    Entry {
        event,
        rewrites,
        moment,
    }
}

#[test]
fn a_change_says_what_in_words_and_who_by_name() {
    let governor = Event {
        process: writer(11809, "pacerctl"),
        ..change(
            95,
            Setting::Governor,
            "performance",
            "powersave",
            Source::Pacer,
        )
    };
    let restored = Event {
        cause: Some(95),
        ..change(
            96,
            Setting::Epp,
            "performance",
            "balance_performance",
            Source::Kernel,
        )
    };
    let words = row_words(&entry(restored.clone(), 0), &hybrid(), Some(&governor));
    assert_eq!(
        words.title,
        "Energy preference on all cores: Performance → Balanced performance"
    );
    assert_eq!(words.subtitle, "by the kernel, after a change by Pacer");
    // The kernel's own words on hover.
    assert_eq!(
        words.tooltip,
        "Kernel value: performance → balance_performance\n\
         EPP on policy 0-15\n\
         By the kernel, after change #95"
    );
    // The cause no longer kept.
    let words = row_words(&entry(restored, 0), &hybrid(), None);
    assert_eq!(words.subtitle, "by the kernel, after an earlier change");
    let words = row_words(&entry(governor, 0), &hybrid(), None);
    assert_eq!(
        words.title,
        "Governor on all cores: Performance governor → Power saving governor"
    );
    assert_eq!(words.subtitle, "by Pacer, asked by pacerctl");
    let profile = Event {
        policies: Vec::new(),
        process: writer(11714, "power-profiles-daemon"),
        ..change(
            97,
            Setting::Profile,
            "balanced",
            "performance",
            Source::Daemon,
        )
    };
    let words = row_words(&entry(profile, 0), &hybrid(), None);
    assert_eq!(words.title, "Power mode: Balanced → Performance");
    assert_eq!(words.subtitle, "by power-profiles-daemon");
}

#[test]
fn rewrites_say_the_value_stayed_and_how_often() {
    let cores = hybrid();
    let p_cores: Vec<u32> = (0..16)
        .filter(|p| cores.core_type(*p) == Some(CoreType::Performance))
        .collect();
    let rewrite = Event {
        policies: p_cores,
        process: writer(11714, "power-profiles-daemon"),
        ..change(
            98,
            Setting::Epp,
            "performance",
            "performance",
            Source::Daemon,
        )
    };
    let once = row_words(&entry(rewrite.clone(), 1), &cores, None);
    assert_eq!(once.title, "Energy preference on P-cores stays Performance");
    assert!(once.tooltip.starts_with("Kernel value: performance\n"));
    let thrice = row_words(&entry(rewrite.clone(), 3), &cores, None);
    assert_eq!(
        thrice.title,
        "Energy preference on P-cores stays Performance · rewritten 3 times"
    );
    assert_eq!(thrice.subtitle, "by power-profiles-daemon");
    let some = Event {
        policies: vec![2, 3],
        ..rewrite
    };
    let words = row_words(&entry(some, 2), &cores, None);
    assert!(words
        .title
        .starts_with("Energy preference on CPUs 2-3 stays"));
}

#[test]
fn a_first_line_is_short_and_has_no_kernel_token() {
    let settings = [
        (Setting::Epp, "balance_power", "balance_performance"),
        (Setting::Governor, "schedutil", "powersave"),
        (Setting::DriverMode, "passive", "active"),
        (Setting::NoTurbo, "0", "1"),
        (Setting::Boost, "1", "0"),
        (Setting::MaxFreq, "4700000", "3450000"),
        (Setting::MaxPerfPct, "100", "60"),
        (Setting::Eas, "1", "0"),
        (Setting::Profile, "power-saver", "balanced"),
    ];
    for (setting, old, new) in settings {
        let words = row_words(
            &entry(change(1, setting, old, new, Source::Unknown), 0),
            &hybrid(),
            None,
        );
        let title = &words.title;
        assert!(title.split_whitespace().count() < 15, "{title}");
        let token = format!("{old} →");
        assert!(!title.contains('_') && !title.contains(&token), "{title}");
        assert!(
            words.tooltip.contains(&format!("{old} → {new}")),
            "{setting:?}"
        );
    }
    let words = |setting, old, new| {
        row_words(
            &entry(change(1, setting, old, new, Source::Unknown), 0),
            &hybrid(),
            None,
        )
        .title
    };
    assert!(words(Setting::NoTurbo, "0", "1").ends_with(": On → Off"));
    assert!(words(Setting::Epb, "6", "0").ends_with(": Normal → Performance"));
    assert!(words(Setting::Epb, "7", "15").ends_with(": Level 7 → Power saving"));
    assert!(words(Setting::MaxFreq, "4700000", "3450000").ends_with(": 4.7 GHz → 3.45 GHz"));
}

#[test]
fn the_recordings_own_events_keep_their_sentences_and_name_no_one() {
    let started = Event {
        setting: Setting::Recording,
        policies: Vec::new(),
        old: None,
        new: recording::STARTED.into(),
        ..change(1, Setting::Recording, "", "", Source::Pacer)
    };
    let words = row_words(&entry(started, 0), &hybrid(), None);
    assert!(
        words.title.starts_with("Recording started"),
        "{}",
        words.title
    );
    assert_eq!((words.subtitle.as_str(), words.tooltip.as_str()), ("", ""));
}

#[test]
fn a_heading_names_the_second_only_where_asked_and_the_day_before_today() {
    let now = SystemTime::now();
    let minute = heading(&Moment {
        time: now,
        seconds: false,
    });
    let second = heading(&Moment {
        time: now,
        seconds: true,
    });
    assert_eq!((minute.len(), minute.matches(':').count()), (5, 1));
    assert_eq!(second.len(), 8);
    assert!(second.starts_with(&minute));
    let long_ago = heading(&Moment {
        time: UNIX_EPOCH + Duration::from_secs(1_600_000_000),
        seconds: false,
    });
    assert!(long_ago.len() > 5, "{long_ago}");
}

#[test]
fn a_plot_mark_reads_out_the_change_in_the_rows_words() {
    let epp = Event {
        process: writer(10493, "power-profiles-"),
        ..change(
            7,
            Setting::Epp,
            "balance_performance",
            "power",
            Source::Process,
        )
    };
    let words = mark_words(&epp, &hybrid());
    let line = words.split_once(' ').map(|(_, rest)| rest).unwrap();
    assert!(
        line.ends_with("Energy preference on all cores: Balanced performance → Power saving, by power-profiles-"),
        "{words}"
    );
    assert!(words.starts_with("at "), "{words}");
    assert!(!words.contains('_') && !words.contains("policy"), "{words}");
    // A write of the value already there says so.
    let rewrite = change(8, Setting::Epp, "power", "power", Source::Kernel);
    let words = mark_words(&rewrite, &hybrid());
    assert!(
        words.contains("Energy preference on all cores stays Power saving"),
        "{words}"
    );
}

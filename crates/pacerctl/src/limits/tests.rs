// SPDX-License-Identifier: GPL-3.0-or-later
//! `--interval` as typed, and the figures of the chain in words.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use pacer_core::values::Khz;

use super::figures::{decimal, frequency, watts};
use super::*;

#[test]
fn an_interval_is_seconds_from_0_to_60() {
    assert_eq!(parse_interval("1"), Ok(Duration::from_secs(1)));
    assert_eq!(parse_interval("0.25"), Ok(Duration::from_millis(250)));
    assert_eq!(parse_interval("0"), Ok(Duration::ZERO));
    assert_eq!(parse_interval("60"), Ok(Duration::from_secs(60)));
    for (text, refused) in [
        ("-1", BadInterval::Negative("-1".into())),
        ("abc", BadInterval::NotANumber("abc".into())),
        ("", BadInterval::NotANumber(String::new())),
        ("inf", BadInterval::NotANumber("inf".into())),
        ("NaN", BadInterval::NotANumber("NaN".into())),
        ("60.5", BadInterval::TooLong("60.5".into())),
    ] {
        assert_eq!(parse_interval(text), Err(refused), "{text:?}");
    }
    assert_eq!(
        BadInterval::Negative("-1".into()).to_string(),
        "-1 is negative: give 0 (one reading) or more seconds"
    );
}

#[test]
fn frequencies_and_power_read_as_an_engineer_writes_them() {
    assert_eq!(frequency(Khz(1_360_000)), "1.36 GHz");
    assert_eq!(frequency(Khz(4_700_000)), "4.7 GHz");
    assert_eq!(frequency(Khz(3_000_000)), "3 GHz");
    assert_eq!(frequency(Khz(400_000)), "400 MHz");
    assert_eq!(frequency(Khz(999_600)), "1000 MHz");
    assert_eq!(watts(28_000_000), "28 W");
    assert_eq!(watts(7_640_000), "7.6 W");
    assert_eq!(decimal(0.5, 2), "0.5");
    assert_eq!(decimal(10.0, 1), "10");
}

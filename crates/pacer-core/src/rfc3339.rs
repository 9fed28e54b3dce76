// SPDX-License-Identifier: GPL-3.0-or-later
//! Times as the history's events carry them: RFC 3339 in UTC with milliseconds,
//! `2026-12-04T03:20:07.123Z`. Any time formats, clamped to the years four digits hold;
//! text is read back without trusting it (a kept history file is only as sound as `/run`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serializer};

/// 9999-12-31T23:59:59.999Z in milliseconds after the epoch: the last time the form can
/// write, since its year has four digits.
const LAST_MS: u64 = 253_402_300_799_999;

const MS_PER_DAY: u64 = 86_400_000;

/// `2026-12-04T03:20:07.123Z`. A time before the epoch writes as the epoch and one after
/// [`LAST_MS`] as that: a clock set that far off writes text that still reads back.
pub fn text(time: SystemTime) -> String {
    let ms = time.duration_since(UNIX_EPOCH).map_or(0, |since| {
        u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
    });
    let ms = ms.min(LAST_MS);
    let (year, month, day) = civil_from_days(ms / MS_PER_DAY);
    let of_day = ms % MS_PER_DAY;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3_600_000,
        of_day / 60_000 % 60,
        of_day / 1000 % 60,
        of_day % 1000
    )
}

/// The time of [`text`]'s form (UTC, `Z`, with or without milliseconds); `None` for any
/// other text, a date that does not exist, or a time before the epoch.
pub fn parse(text: &str) -> Option<SystemTime> {
    let (date, time) = text.strip_suffix('Z')?.split_once('T')?;
    let (clock, millis) = match time.split_once('.') {
        Some((clock, fraction)) => (clock, digits(fraction, 3)?),
        None => (time, 0),
    };
    let [year, month, day] = fields(date, '-', [4, 2, 2])?;
    let [hour, minute, second] = fields(clock, ':', [2, 2, 2])?;
    // 60: a leap second, which reads as the next day's first.
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day)?;
    let seconds = days
        .checked_mul(86_400)?
        .checked_add(hour * 3600 + minute * 60 + second)?;
    let ms = seconds.checked_mul(1000)?.checked_add(millis)?;
    UNIX_EPOCH.checked_add(Duration::from_millis(ms))
}

/// For `#[serde(with = "crate::rfc3339")]`.
pub fn serialize<S: Serializer>(time: &SystemTime, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&text(*time))
}

/// For `#[serde(with = "crate::rfc3339")]`.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SystemTime, D::Error> {
    let text = String::deserialize(deserializer)?;
    parse(&text)
        .ok_or_else(|| serde::de::Error::custom(format!("not an RFC 3339 time in UTC: {text}")))
}

/// The number `text` spells in exactly `width` ASCII digits (no sign, no spaces).
fn digits(text: &str, width: usize) -> Option<u64> {
    if text.len() != width || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The numbers of `text`'s fields between `separator`s, each exactly as wide as `widths`
/// says, and no more fields than that.
fn fields<const N: usize>(text: &str, separator: char, widths: [usize; N]) -> Option<[u64; N]> {
    let mut parts = text.split(separator);
    let mut values = [0; N];
    for (value, width) in values.iter_mut().zip(widths) {
        *value = digits(parts.next()?, width)?;
    }
    parts.next().is_none().then_some(values)
}

/// Days from 1970-01-01 to a date of years 0–9999 (Howard Hinnant's `days_from_civil`);
/// `None` before 1970 or for a day its month does not have.
fn days_from_civil(year: u64, month: u64, day: u64) -> Option<u64> {
    if year > 9999 || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    // From March, so that a leap day ends its year: the year before for January and
    // February. 400 years on keeps the year positive (their 146,097 days come off again).
    let (year, month_from_march) = if month > 2 {
        (year + 400, month - 3)
    } else {
        (year + 399, month + 9)
    };
    let (era, year_of_era) = (year / 400, year % 400);
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    // 719,468: days from 0000-03-01 to 1970-01-01.
    let days = (era * 146_097 + day_of_era).checked_sub(146_097 + 719_468)?;
    // February 30th counts on into March: a date that does not exist does not come back.
    let (_, same_month, same_day) = civil_from_days(days);
    (u64::from(same_month) == month && u64::from(same_day) == day).then_some(days)
}

/// The date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: u64) -> (u64, u32, u32) {
    let z = days + 719_468;
    let (era, day_of_era) = (z / 146_097, z % 146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    // Both below 32: the casts keep every bit.
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn at_ms(ms: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(ms)
    }

    #[test]
    fn times_write_as_the_contract_says() {
        assert_eq!(text(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        assert_eq!(text(at_ms(1_796_355_607_123)), "2026-12-04T03:40:07.123Z");
        // A leap day.
        assert_eq!(text(at_ms(951_782_400_000)), "2000-02-29T00:00:00.000Z");
        assert_eq!(text(at_ms(LAST_MS)), "9999-12-31T23:59:59.999Z");
    }

    #[test]
    fn times_beyond_four_digit_years_write_as_the_last_one() {
        for far in [
            UNIX_EPOCH + Duration::from_secs(u64::MAX / 4),
            UNIX_EPOCH + Duration::from_secs(u64::MAX / 2),
            at_ms(LAST_MS + 1),
            at_ms(u64::MAX),
        ] {
            assert_eq!(text(far), "9999-12-31T23:59:59.999Z");
        }
        let before = UNIX_EPOCH - Duration::from_secs(86_400 * 365);
        assert_eq!(text(before), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn text_reads_back_as_the_time_it_was() {
        for ms in [
            0,
            951_782_400_000,
            1_796_355_607_123,
            4_102_444_799_999,
            LAST_MS,
        ] {
            assert_eq!(parse(&text(at_ms(ms))), Some(at_ms(ms)));
        }
        assert_eq!(
            parse("2026-12-04T03:40:07Z"),
            Some(at_ms(1_796_355_607_000))
        );
        assert_eq!(
            parse("2016-12-31T23:59:60Z"),
            Some(at_ms(1_483_228_800_000))
        );
    }

    #[test]
    fn text_that_is_no_time_reads_as_none() {
        for bad in [
            "",
            "Z",
            "T",
            "twenty-six",
            "2026-12-04T03:40:07",
            "2026-13-04T03:40:07Z",
            "2026-00-04T03:40:07Z",
            "2026-12-00T03:40:07Z",
            "2026-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-12-04T24:00:00Z",
            "2026-12-04T03:60:00Z",
            "2026-12-04T03:40:61Z",
            "2026-12-04T03:40:07.1Z",
            "2026-12-04T03:40:07.1234Z",
            "2026-12-04T03:40:07.Z",
            "2026-12-04 03:40:07Z",
            "2026-12-04-01T03:40:07Z",
            "2026-12T03:40:07Z",
            "2026-12-04T03:40:07:00Z",
            "2026-1-04T03:40:07Z",
            "+026-12-04T03:40:07Z",
            "2026-+1-04T03:40:07Z",
            "2026-12-04T03:40:+7Z",
            "2026-12-04T03:40:07.+12Z",
            "1969-12-31T23:59:59.999Z",
            "0000-01-01T00:00:00Z",
            "99999-01-01T00:00:00Z",
            "4294967295-12-31T23:59:59.999Z",
            "18446744073709551615-12-31T23:59:59.999Z",
            "٢٠٢٦-12-04T03:40:07Z",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_date_of_four_digit_years_reads_back() {
        // Each day from the epoch to the last: the calendar both ways, leap years and all.
        for days in 0..=LAST_MS / MS_PER_DAY {
            let (year, month, day) = civil_from_days(days);
            assert_eq!(
                days_from_civil(year, u64::from(month), u64::from(day)),
                Some(days),
                "{year}-{month}-{day}"
            );
        }
    }

    proptest! {
        #[test]
        fn any_millisecond_reads_back_or_saturates(
            // Most of u64 lies past year 9999: a share of the draws within it, to read back.
            ms in prop_oneof![0..=LAST_MS, any::<u64>()],
        ) {
            let written = text(at_ms(ms));
            prop_assert_eq!(parse(&written), Some(at_ms(ms.min(LAST_MS))));
        }

        #[test]
        fn any_text_parses_without_panicking(garbage in "\\PC{0,40}") {
            let _ = parse(&garbage);
        }

        #[test]
        fn any_numbers_in_the_form_parse_without_panicking(
            fields in proptest::array::uniform7(any::<u64>()),
        ) {
            let [year, month, day, hour, minute, second, millis] = fields;
            let _ = parse(&format!(
                "{year}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{millis:03}Z"
            ));
        }

        #[test]
        fn a_time_that_parses_writes_as_it_was_read(
            year in 1960..10_000u32,
            month in 0..14u32,
            day in 0..33u32,
            hour in 0..25u32,
            minute in 0..61u32,
            // Without the leap second, which writes as the next day's first.
            second in 0..60u32,
            millis in 0..1000u32,
        ) {
            let read = format!(
                "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{millis:03}Z"
            );
            if let Some(time) = parse(&read) {
                prop_assert_eq!(text(time), read);
            }
        }
    }
}

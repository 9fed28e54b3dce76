// SPDX-License-Identifier: GPL-3.0-or-later
//! The value types parse what the kernel prints, and only that.

use super::*;
use proptest::prelude::*;

#[test]
fn epp_names_and_numbers() {
    assert_eq!("balance_performance".parse(), Ok(Epp::BalancePerformance));
    assert_eq!("default".parse(), Ok(Epp::Default));
    assert_eq!("128".parse(), Ok(Epp::Raw(128)));
    assert_eq!("0".parse(), Ok(Epp::Raw(0)));
    assert_eq!("255".parse(), Ok(Epp::Raw(255)));
}

#[test]
fn a_raw_epp_is_near_the_closest_name_on_its_driver() {
    assert_eq!(
        Epp::nearest_name(100, Some("intel_pstate")),
        Epp::BalancePerformance
    );
    // 32 either way: towards performance.
    assert_eq!(
        Epp::nearest_name(160, Some("intel_pstate")),
        Epp::BalancePerformance
    );
    assert_eq!(
        Epp::nearest_name(160, Some("amd-pstate-epp")),
        Epp::BalancePower
    );
    assert_eq!(Epp::nearest_name(0, None), Epp::Performance);
    assert_eq!(Epp::nearest_name(250, None), Epp::Power);
    for bad in [
        "256",
        "-1",
        "",
        "balance-power",
        "Power",
        "1e2",
        " 12",
        "+5",
    ] {
        assert!(bad.parse::<Epp>().is_err(), "{bad:?} must not parse");
    }
    for epp in Epp::NAMED {
        assert_eq!(epp.to_string().parse(), Ok(epp));
    }
}

#[test]
fn frequencies_are_plain_decimal() {
    assert_eq!("4700000".parse(), Ok(Khz(4_700_000)));
    assert_eq!(Khz(1_398_712).mhz(), 1399);
    assert_eq!(Khz(1_398_499).mhz(), 1398);
    // The largest value that parses (found by the `khz` fuzz target: it overflowed).
    assert_eq!("4294967295".parse::<Khz>().map(Khz::mhz), Ok(4_294_967));
    for (khz, words) in [
        (4_700_000, "4.7 GHz"),
        (3_450_000, "3.45 GHz"),
        (3_000_000, "3 GHz"),
        (1_004_999, "1 GHz"),
        (999_499, "999 MHz"),
        (400_000, "400 MHz"),
    ] {
        assert_eq!(Khz(khz).words(), words);
    }
    for bad in [
        "",
        "abc",
        "-400000",
        "4294967296",
        "12.5",
        "<unknown>",
        " 1",
    ] {
        assert!(bad.parse::<Khz>().is_err(), "{bad:?} must not parse");
    }
}

#[test]
fn governor_names() {
    assert!("schedutil".parse::<Governor>().is_ok());
    for bad in ["", "Performance", "../../etc", "a b", "sixteen_chars_xx"] {
        assert!(bad.parse::<Governor>().is_err(), "{bad:?} must not parse");
    }
}

#[test]
fn small_enumerations() {
    assert_eq!("guided".parse(), Ok(DriverStatus::Mode(DriverMode::Guided)));
    assert_eq!("disable".parse(), Ok(DriverStatus::Off));
    assert_eq!("".parse(), Ok(EasSysctl::Impossible));
    assert!("2".parse::<EasSysctl>().is_err());
    assert_eq!("15".parse::<Epb>().map(Epb::value), Ok(15));
    assert!("16".parse::<Epb>().is_err());
    assert!("2".parse::<Flag>().is_err());
    assert_eq!("262143328850".parse(), Ok(Decimal(262_143_328_850u64)));
    assert!("-3".parse::<Decimal<u64>>().is_err());
}

proptest! {
    #[test]
    fn khz_round_trips(value: u32) {
        prop_assert_eq!(value.to_string().parse::<Khz>(), Ok(Khz(value)));
    }

    #[test]
    fn raw_epp_round_trips(value: u8) {
        let epp: Epp = value.to_string().parse().unwrap();
        prop_assert_eq!(epp, Epp::Raw(value));
        prop_assert_eq!(epp.to_string(), value.to_string());
    }

    #[test]
    fn parsers_never_panic(text in "\\PC{0,24}") {
        let _ = text.parse::<Khz>();
        let _ = text.parse::<Epp>();
        let _ = text.parse::<Governor>();
        let _ = text.parse::<Epb>();
        let _ = text.parse::<Decimal<u64>>();
    }
}

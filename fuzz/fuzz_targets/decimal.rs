// SPDX-License-Identifier: GPL-3.0-or-later
//! `Decimal<T>::from_str` (the kernel's `%u`/`%lu`): `cpu_capacity`, `max_energy_range_uj`,
//! `amd_pstate_prefcore_ranking`, in the widths Pacer reads them.
#![no_main]

use std::fmt::Display;
use std::str::FromStr;

use libfuzzer_sys::fuzz_target;
use pacer_core::values::Decimal;

fn check<T: FromStr + Display + PartialEq + std::fmt::Debug>(text: &str) {
    if let Ok(Decimal(value)) = text.parse::<Decimal<T>>() {
        assert!(
            !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()),
            "{text:?}"
        );
        let printed = value.to_string();
        match printed.parse::<Decimal<T>>() {
            Ok(Decimal(again)) => assert_eq!(again, value),
            Err(()) => panic!("{printed:?} does not read back"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    check::<u8>(text);
    check::<u32>(text);
    check::<u64>(text);
    check::<usize>(text);
});

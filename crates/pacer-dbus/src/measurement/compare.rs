// SPDX-License-Identifier: GPL-3.0-or-later
//! A comparison: the same ramp measured under several settings, in the schema-1 JSON contract
//! of `docs/contracts.md` 3 (`{schema, kind: "compare", columns: [{setting, result}], restored}`),
//! and the settings themselves (`governor=schedutil,epp=power`). Its table is
//! `pacer-measure`'s (`RampTable::of_comparison`).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::{DriverMode, Epp, Governor};
use serde::{Deserialize, Serialize};

use super::report::{RampReport, SCHEMA};

/// The keys a setting may have, in the order they are applied: the driver's mode first,
/// because switching it resets the governors.
pub const SETTING_KEYS: [&str; 5] = ["mode", "governor", "epp", "eas", "boost"];

/// What a comparison switches to for one column: the driver's mode, the governor, the EPP,
/// EAS and turbo, each left as it is when `None` (all `None`: the settings as they are). In
/// JSON a plain object of the values as the command line writes them
/// (`{"governor": "performance", "eas": "off"}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    try_from = "BTreeMap<String, String>",
    into = "BTreeMap<String, String>"
)]
pub struct Setting {
    pub mode: Option<DriverMode>,
    pub governor: Option<Governor>,
    pub epp: Option<Epp>,
    pub eas: Option<bool>,
    pub boost: Option<bool>,
}

/// Why a text or a key is not a setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    /// A part without `=`.
    #[error("{}", fill(gettext("{part} is not key=value"), &[("part", .0)]))]
    NotKeyValue(String),
    /// A key outside [`SETTING_KEYS`].
    #[error("{}", fill(
        gettext("{key} is not a setting (governor, epp, mode, eas, boost)"),
        &[("key", .0)]
    ))]
    UnknownKey(String),
    /// A value the key does not take.
    #[error("{}", fill(
        gettext("{value} is not a value for {key}"),
        &[("value", value), ("key", key)]
    ))]
    BadValue { key: String, value: String },
    /// Nothing to switch.
    #[error("{}", gettext("an empty --setting"))]
    Empty,
}

/// `on`/`off` as the command line writes a switch (`1`/`0`, `true`/`false` and `yes`/`no`
/// read too).
fn switch(value: &str) -> Option<bool> {
    match value {
        "on" | "1" | "true" | "yes" => Some(true),
        "off" | "0" | "false" | "no" => Some(false),
        _ => None,
    }
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

impl Setting {
    /// Sets `key` to `value`, read as that key's type; refuses keys outside
    /// [`SETTING_KEYS`] and values the key does not take.
    fn set(&mut self, key: &str, value: &str) -> Result<(), SettingError> {
        let bad = || SettingError::BadValue {
            key: key.to_owned(),
            value: value.to_owned(),
        };
        match key {
            "mode" => {
                self.mode = Some(match value {
                    "active" => DriverMode::Active,
                    "passive" => DriverMode::Passive,
                    "guided" => DriverMode::Guided,
                    _ => return Err(bad()),
                });
            }
            "governor" => self.governor = Some(value.parse().map_err(|_| bad())?),
            "epp" => self.epp = Some(value.parse().map_err(|_| bad())?),
            "eas" => self.eas = Some(switch(value).ok_or_else(bad)?),
            "boost" => self.boost = Some(switch(value).ok_or_else(bad)?),
            _ => return Err(SettingError::UnknownKey(key.to_owned())),
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        *self == Setting::default()
    }

    /// The keys and values that are set, in the order they are applied ([`SETTING_KEYS`]).
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, String)> + '_ {
        [
            ("mode", self.mode.map(|mode| mode.to_string())),
            ("governor", self.governor.as_ref().map(ToString::to_string)),
            ("epp", self.epp.map(|epp| epp.to_string())),
            ("eas", self.eas.map(|on| on_off(on).to_owned())),
            ("boost", self.boost.map(|on| on_off(on).to_owned())),
        ]
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)))
    }

    /// `governor=performance,epp=power`: the text [`parse_setting`] reads, in the order the
    /// keys are applied.
    pub fn label(&self) -> String {
        self.iter()
            .map(|(key, value)| format!("{key}={value}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// The letter naming the setting at `index` of a comparison: A, B, C, …
pub fn setting_letter(index: usize) -> String {
    char::from(b'A' + (index % 26) as u8).to_string()
}

/// Reads `key=value[,key=value…]`, as `pacerctl measure compare --setting` takes it.
pub fn parse_setting(text: &str) -> Result<Setting, SettingError> {
    let mut setting = Setting::default();
    for part in text.split(',').filter(|p| !p.trim().is_empty()) {
        let Some((key, value)) = part.split_once('=') else {
            return Err(SettingError::NotKeyValue(part.to_owned()));
        };
        setting.set(key.trim(), value.trim())?;
    }
    if setting.is_empty() {
        return Err(SettingError::Empty);
    }
    Ok(setting)
}

impl FromStr for Setting {
    type Err = SettingError;
    fn from_str(text: &str) -> Result<Setting, SettingError> {
        parse_setting(text)
    }
}

impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

// A document read back (a saved comparison) holds only keys and values this version can
// apply; an empty object is a column measured with the settings as they were.
impl TryFrom<BTreeMap<String, String>> for Setting {
    type Error = SettingError;
    fn try_from(map: BTreeMap<String, String>) -> Result<Setting, SettingError> {
        let mut setting = Setting::default();
        for (key, value) in &map {
            setting.set(key, value)?;
        }
        Ok(setting)
    }
}

impl From<Setting> for BTreeMap<String, String> {
    fn from(setting: Setting) -> Self {
        setting
            .iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect()
    }
}

/// One column of a comparison: the setting and the ramp measured under it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    pub setting: Setting,
    pub result: RampReport,
}

/// The ramp under several settings; `restored`: the settings from before are back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub schema: u32,
    /// Always `"compare"`.
    pub kind: String,
    pub columns: Vec<Column>,
    pub restored: bool,
}

impl Comparison {
    pub fn new(columns: Vec<Column>, restored: bool) -> Comparison {
        Comparison {
            schema: SCHEMA,
            kind: "compare".to_owned(),
            columns,
            restored,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_and_label_in_the_order_they_apply() {
        let setting = parse_setting(" epp = power , governor=performance,").unwrap();
        assert_eq!(setting.epp, Some(Epp::Power));
        assert_eq!(setting.label(), "governor=performance,epp=power");
        assert_eq!(setting.label().parse::<Setting>().unwrap(), setting);
    }

    #[test]
    fn bad_settings_say_what_is_wrong() {
        assert_eq!(
            parse_setting("colour=blue"),
            Err(SettingError::UnknownKey("colour".into()))
        );
        assert_eq!(
            parse_setting("colour=blue").unwrap_err().to_string(),
            "colour is not a setting (governor, epp, mode, eas, boost)"
        );
        assert_eq!(
            parse_setting("epp=power,turbo").unwrap_err().to_string(),
            "turbo is not key=value"
        );
        assert_eq!(parse_setting(""), Err(SettingError::Empty));
        assert_eq!(parse_setting(" , "), Err(SettingError::Empty));
        assert_eq!(
            parse_setting("mode=sideways").unwrap_err().to_string(),
            "sideways is not a value for mode"
        );
        assert!(parse_setting("eas=maybe").is_err());
        assert!(parse_setting("epp=256").is_err());
        assert!(parse_setting("governor=Bad Name").is_err());
        let typed = parse_setting("mode=passive,eas=0,boost=yes").unwrap();
        assert_eq!(typed.mode, Some(DriverMode::Passive));
        assert_eq!((typed.eas, typed.boost), (Some(false), Some(true)));
        assert_eq!(typed.label(), "mode=passive,eas=off,boost=on");
    }

    #[test]
    fn a_comparison_reads_back_what_it_wrote() {
        let result = serde_json::json!({"schema": 1, "kind": "ramp", "simulated": true,
            "settings": {"driver": "intel_pstate", "mode": "active", "governor": "powersave",
                "epp": "performance", "eas": null, "boost": true, "profile": null},
            "clock": "on-cpu", "runs": [{"cpu": 3, "core_type": "performance", "trials": 1}]});
        let comparison = Comparison::new(
            vec![Column {
                setting: parse_setting("epp=performance").unwrap(),
                result: serde_json::from_value(result).unwrap(),
            }],
            true,
        );
        let json = serde_json::to_value(&comparison).unwrap();
        assert_eq!(json["kind"], "compare");
        assert_eq!(json["columns"][0]["setting"]["epp"], "performance");
        let back: Comparison = serde_json::from_value(json).unwrap();
        assert_eq!(back, comparison);
        let bad = serde_json::json!({"schema": 1, "kind": "compare", "restored": true,
            "columns": [{"setting": {"colour": "blue"}, "result": back.columns[0].result}]});
        assert!(serde_json::from_value::<Comparison>(bad).is_err());
        // A column with the settings as they were reads back as such.
        let as_now = serde_json::json!({});
        assert_eq!(
            serde_json::from_value::<Setting>(as_now).unwrap(),
            Setting::default()
        );
    }
}

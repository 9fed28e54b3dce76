// SPDX-License-Identifier: GPL-3.0-or-later
//! What the Measure page's unit tests share: the simulated laptop's ramp under settings
//! written through the kernel's rules, and the comparison the window test runs.

#![allow(clippy::unwrap_used)]

use pacer_core::sim::{SimDir, SimMachine};
use pacer_core::{Snapshot, SysRoot};
use pacer_dbus::measurement::compare::{parse_setting, Column, Comparison, Setting};
use pacer_dbus::measurement::report::RampReport;
use pacer_measure::report::default_cpus;

/// The simulated laptop's ramp, after each of its policies took `setting`.
pub fn ramp_under(setting: &Setting) -> RampReport {
    let dir = tempfile::tempdir().unwrap();
    let sim = SimDir::open_or_create(dir.path(), "intel-hybrid").unwrap();
    let policies = Snapshot::read(&SysRoot::new(dir.path())).unwrap().policies;
    for policy in &policies {
        let file =
            |name: &str| format!("sys/devices/system/cpu/cpufreq/policy{}/{name}", policy.id);
        if let Some(governor) = &setting.governor {
            sim.write(&file("scaling_governor"), governor.as_str())
                .unwrap()
                .unwrap();
        }
        if let Some(epp) = setting.epp {
            sim.write(&file("energy_performance_preference"), &epp.as_kernel_str())
                .unwrap()
                .unwrap();
        }
    }
    let snapshot = Snapshot::read(&SysRoot::new(dir.path())).unwrap();
    let machine = SimMachine::load(dir.path()).unwrap().unwrap();
    pacer_measure::model::simulated_ramp(&machine, &snapshot, &default_cpus(&snapshot, None), None)
}

/// The window test's comparison: A the performance governor, B as now, C EPP power, D the
/// performance governor again.
pub fn four_settings() -> Comparison {
    let columns = [
        "governor=performance",
        "",
        "epp=power",
        "governor=performance",
    ]
    .into_iter()
    .map(|text| {
        let setting = if text.is_empty() {
            Setting::default()
        } else {
            parse_setting(text).unwrap()
        };
        Column {
            result: ramp_under(&setting),
            setting,
        }
    })
    .collect();
    Comparison::new(columns, true)
}

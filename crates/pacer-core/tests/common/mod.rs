//! Trees for tests: the project's simulated machines, and copies of the shared reference
//! fixtures when they are present beside the checkout.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use pacer_core::sim::{self, SimDriver, SimMachine};

/// A model by name, adjusted by `change` before it is laid out.
pub fn machine(name: &str, change: impl FnOnce(&mut SimMachine)) -> SimMachine {
    let mut machine = sim::model(name).unwrap_or_else(|| panic!("no model {name}"));
    change(&mut machine);
    machine
}

/// intel_pstate switched to passive mode with schedutil, as `intel_pstate=passive` boots.
pub fn passive(machine: &mut SimMachine) {
    if let SimDriver::IntelPstate { passive, .. } = &mut machine.driver {
        *passive = true;
    }
    for policy in &mut machine.policies {
        policy.governor = "schedutil".into();
    }
}

pub fn render(machine: &SimMachine) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    machine.render(dir.path()).unwrap();
    dir
}

/// Our model variant for each reference fixture tree.
pub fn model_for_fixture(tree: &str) -> SimMachine {
    match tree {
        "intel-hybrid-active" => machine("intel-hybrid", |_| {}),
        "intel-hybrid-active-eas" => machine("intel-hybrid-nosmt", |_| {}),
        "intel-hybrid-passive-schedutil" => machine("intel-hybrid", passive),
        "intel-hybrid-passive-eas" => machine("intel-hybrid-nosmt", passive),
        "amd-zen4-epp" => machine("amd-zen4", |_| {}),
        "arm-biglittle-eas" => machine("arm-rk3588", |_| {}),
        "vm-no-cpufreq" => machine("vm", |_| {}),
        other => panic!("no model for fixture {other}"),
    }
}

pub const FIXTURE_TREES: [&str; 7] = [
    "intel-hybrid-active",
    "intel-hybrid-active-eas",
    "intel-hybrid-passive-schedutil",
    "intel-hybrid-passive-eas",
    "amd-zen4-epp",
    "arm-biglittle-eas",
    "vm-no-cpufreq",
];

/// `shared/fixtures/sysfs` beside the checkout (or `PACER_FIXTURES`).
fn shared_fixtures() -> PathBuf {
    std::env::var_os("PACER_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/sysfs")
        })
}

/// A copy of the reference trees, regenerated once per test process with their script (git
/// drops the empty directories that matter). Without them the comparison cannot run, and
/// the test that needs them fails saying so: it never passes on no input.
pub fn reference_fixtures() -> &'static Path {
    static COPY: OnceLock<PathBuf> = OnceLock::new();
    COPY.get_or_init(|| {
        let source = shared_fixtures();
        assert!(
            source.join("make-fixtures.sh").is_file(),
            "the reference sysfs trees are not at {} (shared/fixtures/sysfs beside the \
             checkout, or PACER_FIXTURES): the comparison with real machines cannot run",
            source.display()
        );
        let copy = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("reference-fixtures-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&copy);
        std::fs::create_dir_all(&copy).unwrap();
        std::fs::copy(
            source.join("make-fixtures.sh"),
            copy.join("make-fixtures.sh"),
        )
        .unwrap();
        let status = Command::new("bash")
            .arg(copy.join("make-fixtures.sh"))
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "make-fixtures.sh failed");
        copy
    })
}

//! Pacer's window: the CPU's power state at a glance.

mod config;
mod machine;
mod window;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use pacer_core::i18n;
use relm4::RelmApp;

/// Command-line options. GTK's own options are not offered: Pacer has none to pass on.
#[derive(Debug, Parser)]
#[command(
    name = "pacer",
    version,
    about = "Show and control the CPU's power state"
)]
struct Options {
    /// Read the machine under DIR instead of / (a fixture tree or a simulated machine)
    #[arg(long, value_name = "DIR", env = "PACER_SYSFS_ROOT")]
    sysfs_root: Option<PathBuf>,

    /// Run on a simulated machine (intel-hybrid, intel-hybrid-nosmt, amd-zen4, arm-rk3588,
    /// vm): in a temporary directory, or in --sysfs-root DIR (laid out when empty, reused
    /// when it holds one)
    #[arg(long, value_name = "NAME")]
    simulate: Option<String>,
}

fn main() -> ExitCode {
    i18n::init(config::LOCALEDIR);
    let options = Options::parse();
    let machine = match machine::Machine::choose(options.sysfs_root, options.simulate.as_deref()) {
        Ok(machine) => machine,
        Err(error) => {
            eprintln!("pacer: {error}");
            return ExitCode::FAILURE;
        }
    };
    let app = RelmApp::new(config::APP_ID).with_args(Vec::new());
    app.run::<window::Window>(machine.root().to_owned());
    ExitCode::SUCCESS
}

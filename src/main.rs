//! Pacer's window: the CPU's power state at a glance.

mod config;
mod window;

use std::path::PathBuf;

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
    #[arg(
        long,
        value_name = "DIR",
        env = "PACER_SYSFS_ROOT",
        default_value = "/"
    )]
    sysfs_root: PathBuf,
}

fn main() {
    i18n::init(config::LOCALEDIR);
    let options = Options::parse();
    let app = RelmApp::new(config::APP_ID).with_args(Vec::new());
    app.run::<window::Window>(options.sysfs_root);
}

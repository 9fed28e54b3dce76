//! Pacer's window: the CPU's power state at a glance.

mod a11y;
mod background;
mod banner;
mod change;
mod config;
mod cpus;
mod feed;
mod helper;
mod machine;
mod measure;
mod notify;
mod overview;
mod plot;
mod settings;
mod tray;
mod window;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use clap::Parser;
use pacer_core::i18n;
use relm4::RelmApp;

/// When the program started, for the log line saying how long the first frame took.
pub static STARTED: OnceLock<Instant> = OnceLock::new();

/// The window's own look: the banner's colours.
const STYLE: &str = include_str!("style.css");

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

    /// How often the frequency plot samples, per second (1 to 20)
    #[arg(long, value_name = "HZ", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(1..=20))]
    refresh_hz: u32,

    /// Start in the background: the tray item only, the window opens from it
    #[arg(long)]
    background: bool,
}

/// With `GSK_RENDERER=cairo` (software rendering, as on a virtual display) nothing uses GL,
/// yet GDK 4.8 sets GL up when it opens the display, loading the GL driver (Mesa's llvmpipe:
/// about 45 MB resident) and slowing the start. Tell it not to, unless GDK_DEBUG is set
/// already. Called first thing in `main`, while the process has a single thread.
fn skip_gl_for_the_cairo_renderer() {
    let cairo = std::env::var_os("GSK_RENDERER").is_some_and(|renderer| renderer == "cairo");
    if cairo && std::env::var_os("GDK_DEBUG").is_none() {
        std::env::set_var("GDK_DEBUG", "gl-disable");
    }
}

fn main() -> ExitCode {
    STARTED.get_or_init(Instant::now);
    skip_gl_for_the_cairo_renderer();
    i18n::init(config::LOCALEDIR);
    let options = Options::parse();
    let period = Duration::from_secs(1) / options.refresh_hz;
    let machine =
        match machine::Machine::choose(options.sysfs_root, options.simulate.as_deref(), period) {
            Ok(machine) => machine,
            Err(error) => {
                eprintln!("pacer: {error}");
                return ExitCode::FAILURE;
            }
        };
    // The window shows itself unless started in the background (and comes back when Pacer
    // is started again while it runs).
    let app = RelmApp::new(config::APP_ID)
        .with_args(Vec::new())
        .visible_on_activate(false);
    relm4::set_global_css(STYLE);
    app.run::<window::Window>(window::WindowInit {
        machine,
        period,
        background: options.background,
    });
    ExitCode::SUCCESS
}

// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's window: the CPU's power state at a glance.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use pacer::app::application::PacerApplication;
use pacer::app::{config, machine, settings};
use pacer::{window, STARTED};
use pacer_core::i18n;
use relm4::gtk::gio::prelude::SettingsExt as _;
use relm4::gtk::prelude::ApplicationExt as _;
use relm4::RelmApp;

/// Where the resources embedded by `build.rs` (`resources/resources.gresource.xml`) live.
/// AdwApplication loads `style.css` (the window's own look: the banner's colours) from its
/// resource base path when it starts, and GTK looks for icons in its `icons/` folder.
const RESOURCE_BASE_PATH: &str = "/io/github/pacerapp/Pacer";

/// Registers the resources compiled into the binary.
fn register_resources() -> Result<(), relm4::gtk::glib::Error> {
    relm4::gtk::gio::resources_register_include!("pacer.gresource")
}

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
    /// workstation-64, server-256, netbook-2, vm): in a temporary directory, or in --sysfs-root DIR
    /// (laid out when empty, reused when it holds one)
    #[arg(long, value_name = "NAME")]
    simulate: Option<String>,

    /// How often the frequency plot samples, per second (1 to 20; default: the setting,
    /// 10 unless changed)
    #[arg(long, value_name = "HZ", value_parser = clap::value_parser!(u32).range(1..=20))]
    refresh_hz: Option<u32>,

    /// Start in the background: the tray item only, the window opens from it
    #[arg(long)]
    background: bool,

    /// Started by the session at login (the autostart entry, installed for everyone): quit at
    /// once unless the user turned "Run in background" on
    #[arg(long)]
    autostart: bool,
}

/// With `GSK_RENDERER=cairo` (software rendering, as on a virtual display) nothing uses GL,
/// yet GDK 4.8 sets GL up when it opens the display, loading the GL driver (Mesa's llvmpipe:
/// about 45 MB resident) and slowing the start. Tell it not to, unless told otherwise
/// already: with GDK_DEBUG=gl-disable up to GTK 4.14, with GDK_DISABLE=gl from 4.16 on
/// (which no longer knows the former, and says so). Called first thing in `main`, while the
/// process has a single thread.
fn skip_gl_for_the_cairo_renderer() {
    let cairo = std::env::var_os("GSK_RENDERER").is_some_and(|renderer| renderer == "cairo");
    let (variable, value) = if relm4::gtk::minor_version() >= 16 {
        ("GDK_DISABLE", "gl")
    } else {
        ("GDK_DEBUG", "gl-disable")
    };
    if cairo && std::env::var_os(variable).is_none() {
        std::env::set_var(variable, value);
    }
}

fn main() -> ExitCode {
    STARTED.get_or_init(Instant::now);
    skip_gl_for_the_cairo_renderer();
    // The plot and the limit chain keep a file per policy open between readings.
    pacer_core::sysfs::raise_open_file_limit();
    i18n::init();
    let options = Options::parse();
    // Opened once: the autostart check, the plot's rate and the window all read it.
    let settings = match settings::open() {
        Ok(settings) => Some(settings),
        Err(why) => {
            eprintln!("pacer: {why}");
            None
        }
    };
    let background_wanted = settings
        .as_ref()
        .is_some_and(|s| s.boolean(settings::RUN_IN_BACKGROUND));
    if options.autostart && !background_wanted {
        return ExitCode::SUCCESS;
    }
    let refresh_hz = options
        .refresh_hz
        .or_else(|| settings.as_ref().map(|s| s.uint(settings::REFRESH_HZ)))
        .unwrap_or(10)
        .clamp(1, 20);
    let period = Duration::from_secs(1) / refresh_hz;
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
    if let Err(error) = relm4::gtk::init().and_then(|()| relm4::adw::init()) {
        eprintln!("pacer: cannot start GTK: {error}");
        return ExitCode::FAILURE;
    }
    let app = RelmApp::from_app(PacerApplication::new(config::APP_ID))
        .with_args(Vec::new())
        .visible_on_activate(false);
    if let Err(error) = register_resources() {
        eprintln!("pacer: cannot register the embedded resources: {error}");
        return ExitCode::FAILURE;
    }
    // Set explicitly: the path GLib derives from the application id would differ for the
    // development id (…/Pacer/Devel), and relm4 sets the id only after creating the app.
    relm4::main_application().set_resource_base_path(Some(RESOURCE_BASE_PATH));
    app.run::<window::Window>(window::WindowInit {
        machine,
        period,
        background: options.background,
        settings,
    });
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use relm4::gtk::gio;

    #[test]
    fn the_embedded_resources_hold_the_style_sheet() -> Result<(), relm4::gtk::glib::Error> {
        super::register_resources()?;
        let path = format!("{}/style.css", super::RESOURCE_BASE_PATH);
        let css = gio::resources_lookup_data(&path, gio::ResourceLookupFlags::NONE)?;
        assert!(String::from_utf8_lossy(&css).contains(".pacer-banner"));
        Ok(())
    }

    #[test]
    fn the_expander_arrow_comes_pre_rendered_at_both_scales() -> Result<(), relm4::gtk::glib::Error>
    {
        super::register_resources()?;
        for scale in ["16x16", "16x16@2"] {
            let path = format!(
                "{}/icons/{scale}/actions/adw-expander-arrow-symbolic.symbolic.png",
                super::RESOURCE_BASE_PATH
            );
            let png = gio::resources_lookup_data(&path, gio::ResourceLookupFlags::NONE)?;
            assert!(png.starts_with(b"\x89PNG"), "{path}");
        }
        Ok(())
    }
}

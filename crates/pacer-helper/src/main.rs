// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacer-helper`: Pacer's privileged helper on the system bus. It validates every request
//! against what the machine offers, asks polkit about the caller, writes, reads back and
//! reports. D-Bus activated; it exits when idle. Run with `--privileged-step`, it is the
//! short-lived step that does what needs CAP_SYS_ADMIN for it (`pacer_helper::privileged`).

use std::os::fd::AsFd;
use std::process::ExitCode;

use clap::Parser;
use pacer_helper::Options;

fn main() -> ExitCode {
    let options = Options::parse();
    if options.privileged_step {
        return match pacer_helper::privileged::serve(std::io::stdin().as_fd()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("pacer-helper --privileged-step: {error}");
                ExitCode::FAILURE
            }
        };
    }
    // A few blocking threads are all it uses at once (a reading, a measurement): bounded
    // well within the unit's TasksMax=.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(8)
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("pacer-helper: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(pacer_helper::daemon::run(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("pacer-helper: {error:#}");
            ExitCode::FAILURE
        }
    }
}

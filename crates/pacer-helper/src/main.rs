//! `pacer-helper`: Pacer's privileged helper on the system bus. It validates every request
//! against what the machine offers, asks polkit about the caller, writes, reads back and
//! reports. D-Bus activated; it exits when idle.

use std::process::ExitCode;

use clap::Parser;
use pacer_helper::Options;

fn main() -> ExitCode {
    let options = Options::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
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

//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "pacerctl",
    version,
    about = "Show and control the CPU's power state: profile, EPP, governor, driver mode, EAS"
)]
pub struct Cli {
    /// Read the machine under DIR instead of / (a fixture tree or a simulated machine)
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        env = "PACER_SYSFS_ROOT",
        default_value = "/"
    )]
    pub sysfs_root: PathBuf,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the profile, driver, EAS, per-core-type settings and frequencies, and findings
    Status {
        /// Print the schema-1 JSON document instead of text
        #[arg(long)]
        json: bool,
    },
    /// Print one line per change (profile, EPP, governor, findings) until interrupted
    Watch {
        /// Print one JSON object per line
        #[arg(long)]
        json: bool,
    },
}

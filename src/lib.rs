//! obsmcp as a library: everything the binary does, behind [`main`]. The binary (`src/main.rs`) only calls it; the
//! split exists only so that the fuzz targets under `fuzz/` can reach the parsers, through `fuzzing`, which is
//! compiled for tests and under cargo-fuzz's `--cfg fuzzing` alone.

mod assets;
mod bridge;
mod cli;
mod commands;
mod doctor;
mod embedding;
#[cfg(any(test, fuzzing))]
pub mod fuzzing;
mod lock;
mod offline;
mod plugin_auth;
mod ui;
mod version;

use std::process::ExitCode;

use clap::Parser as _;

use cli::{Cli, Command};

/// Parses the command line, runs one command, and turns its outcome into an exit code. Errors print their whole chain
/// on stderr; stdout belongs to the commands (and in the bridge, to MCP alone).
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // `--version` says more than clap's line: which binary this is and what the clients run.
        Err(error) if error.kind() == clap::error::ErrorKind::DisplayVersion => {
            return commands::version::run();
        }
        Err(error) => error.exit(),
    };
    let outcome = match cli.command {
        Command::Setup(args) => commands::setup::run(args),
        Command::Doctor(args) => commands::doctor::run(args),
        Command::Bridge(args) => commands::bridge::run(*args),
        Command::Uninstall(args) => commands::uninstall::run(args),
        Command::Completions(args) => commands::completions::run(args),
    };
    match outcome {
        Ok(code) => code,
        Err(error) => {
            ui::stderr_line(format_args!("error: {error}"));
            for cause in error.chain().skip(1) {
                ui::stderr_line(format_args!("  caused by: {cause}"));
            }
            ExitCode::FAILURE
        }
    }
}

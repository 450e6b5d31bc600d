//! obsmcp as a library: everything the binary does, behind [`main`]. The binary (`src/main.rs`) only calls it; the
//! split exists only so that the fuzz targets under `fuzz/` can reach the parsers, through `fuzzing`, which is
//! compiled for tests and under cargo-fuzz's `--cfg fuzzing` alone.

mod bridge;
mod cli;
mod commands;
mod doctor;
#[cfg(any(test, fuzzing))]
pub mod fuzzing;
mod offline;
mod plugin_auth;
mod setup;
mod version;

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

/// Parses the command line, runs one command, and turns its outcome into an exit code. Errors print their whole chain
/// on stderr; stdout belongs to the commands (and in the bridge, to MCP alone).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
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
            stderr_line(format_args!("error: {error}"));
            for cause in error.chain().skip(1) {
                stderr_line(format_args!("  caused by: {cause}"));
            }
            ExitCode::FAILURE
        }
    }
}

/// Writes one line for people on stderr, as `eprintln!` does but without its panic when stderr is closed or a pipe
/// whose reader has quit: the exit code that follows is then what still tells the caller how the run went.
pub(crate) fn stderr_line(line: std::fmt::Arguments<'_>) {
    // Nobody is left to read the line, and a panic would turn the run's exit code (1, 2) into 101.
    let _ = writeln!(std::io::stderr(), "{line}");
}

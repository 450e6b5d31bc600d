//! obsmcp: parse the command line, dispatch to one command, turn its outcome into an exit code. Errors print their
//! whole chain, then any `hint:` lines, on stderr; stdout belongs to the commands (and in the bridge, to MCP alone).

mod bridge;
mod cli;
mod commands;
mod doctor;
mod offline;
mod setup;
mod version;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Setup(args) => commands::setup::run(args),
        Command::Doctor(args) => commands::doctor::run(args),
        Command::Bridge(args) => commands::bridge::run(args),
        Command::Uninstall(args) => commands::uninstall::run(args),
    };
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error}");
            for cause in error.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::FAILURE
        }
    }
}

//! One module per subcommand; each exposes `run`, which returns the process exit status.

pub(crate) mod bridge;
pub(crate) mod doctor;
pub(crate) mod setup;
pub(crate) mod uninstall;

use std::process::ExitCode;

/// Says plainly that a command is not built yet, and fails, so nobody mistakes a placeholder for a result.
pub(crate) fn not_built(command: &str, issue: u32) -> anyhow::Result<ExitCode> {
    eprintln!("obsmcp {command}: not built yet (tracked as issue {issue}); nothing was done.");
    Ok(ExitCode::from(2))
}

//! `obsmcp setup`.

use std::process::ExitCode;

use crate::cli::SetupArgs;

/// Runs `obsmcp setup`.
pub(crate) fn run(_args: SetupArgs) -> anyhow::Result<ExitCode> {
    super::not_built("setup", 4)
}

//! `obsmcp uninstall`.

use std::process::ExitCode;

use crate::cli::UninstallArgs;

/// Runs `obsmcp uninstall`.
pub(crate) fn run(_args: UninstallArgs) -> anyhow::Result<ExitCode> {
    super::not_built("uninstall", 4)
}

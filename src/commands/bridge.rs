//! `obsmcp bridge`.

use std::process::ExitCode;

use crate::cli::BridgeArgs;

/// Runs `obsmcp bridge`.
pub(crate) fn run(_args: BridgeArgs) -> anyhow::Result<ExitCode> {
    super::not_built("bridge", 3)
}

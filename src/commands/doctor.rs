//! `obsmcp doctor`.

use std::process::ExitCode;

use crate::cli::DoctorArgs;

/// Runs `obsmcp doctor`.
pub(crate) fn run(_args: DoctorArgs) -> anyhow::Result<ExitCode> {
    super::not_built("doctor", 5)
}

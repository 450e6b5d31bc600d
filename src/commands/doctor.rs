//! `obsmcp doctor`: a thin shell over [`crate::doctor`], which owns the checks, the report and its printers.

use std::process::ExitCode;

use anyhow::Context as _;

use crate::cli::DoctorArgs;

/// Runs `obsmcp doctor` on a small runtime: the network checks are few and short, two threads are plenty.
pub(crate) fn run(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    runtime.block_on(crate::doctor::run(args))
}

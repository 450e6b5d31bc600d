//! One module per subcommand; each exposes `run`, which returns the process exit status.

pub(crate) mod bridge;
pub(crate) mod completions;
pub(crate) mod doctor;
pub(crate) mod setup;
pub(crate) mod uninstall;

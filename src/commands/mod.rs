//! One module per subcommand, holding all of its glue (arguments, runtime, printing, exit code); each exposes
//! `run`, which returns the process exit status. `shared.rs` is what setup, uninstall and doctor's `--fix` share.

pub(crate) mod bridge;
pub(crate) mod completions;
pub(crate) mod doctor;
pub(crate) mod setup;
mod setup_model;
pub(crate) mod shared;
pub(crate) mod uninstall;
pub(crate) mod version;

//! What one soak run starts from: its duration and seed (from the environment, so a run can be replayed) and the
//! notes its callers and the symlink swaps work on.

use std::path::Path;

use super::CALLERS;
use super::caller::{note_path, owner_line};
use super::swap::SWAP_NOTE;

pub(super) fn seconds_from_env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|value| {
            value
                .parse()
                .unwrap_or_else(|_| panic!("{name}={value} is not a number of seconds"))
        })
        .unwrap_or(default)
}

pub(super) fn seed() -> u64 {
    match std::env::var("OBSMCP_SOAK_SEED") {
        Ok(value) => value
            .parse()
            .unwrap_or_else(|_| panic!("OBSMCP_SOAK_SEED={value} is not a number")),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
    }
}

/// Creates each caller's note, whose second line names its owner, and the note the symlink swaps use.
pub(super) fn write_notes(vault: &Path) {
    std::fs::create_dir_all(vault.join("Soak")).unwrap();
    for caller in 0..CALLERS {
        std::fs::write(
            vault.join(note_path(caller)),
            format!("# Soak note\n{}\n", owner_line(caller)),
        )
        .unwrap();
    }
    std::fs::write(vault.join(SWAP_NOTE), "swap note inside\n").unwrap();
}

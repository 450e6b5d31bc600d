//! Vaults that moved or were renamed since setup, as doctor reports them: a client entry or a vault section that
//! names a folder that is gone gets the one command that mends it. When the vault is found at its new place
//! (`obsmcp_installer::plan::moves`), that is `setup --vault NEW`, which re-points its entries in place under their
//! names, and `--fix` runs it; otherwise the same command with the new folder left for the user, or `uninstall` when
//! the vault is gone for good.

use std::path::Path;

use obsmcp_installer::clients::CLIENTS;
use obsmcp_installer::environment::{Environment, shell_quote};
use obsmcp_installer::plan::moves::{self, Move};
use obsmcp_installer::plan::state::State;

/// The moves doctor can see: gone places matched with the vaults Obsidian lists.
pub(crate) fn find(environment: &Environment) -> Vec<Move> {
    let (registered, _) = obsmcp_installer::obsidian_files::registry::discover(environment);
    let candidates: Vec<_> = registered
        .into_iter()
        .map(|vault| {
            let config_dir =
                obsmcp_installer::obsidian_files::registry::config_dir(&vault.path, None).0;
            (vault.path, config_dir)
        })
        .collect();
    moves::find(environment, &State::load(environment), &candidates)
}

/// Where the vault known at `gone` is now, if doctor found it.
pub(crate) fn new_place<'a>(found: &'a [Move], gone: &Path) -> Option<&'a Move> {
    found.iter().find(|moved| moved.from == gone)
}

/// The fix for entries that name `gone`, a folder that no longer exists.
pub(crate) fn fix(obsmcp: &str, environment: &Environment, found: &[Move], gone: &Path) -> String {
    let clients: String = obsmcp_installer::clients::served_vaults(environment, |_| true)
        .into_iter()
        .filter(|(vault, _)| vault == gone)
        .flat_map(|(_, names)| names)
        .filter_map(|name| CLIENTS.iter().find(|client| client.name == name))
        .map(|client| format!(" --client {}", client.id))
        .collect();
    match new_place(found, gone) {
        Some(moved) => format!(
            "{obsmcp} setup --vault {}{clients} (the vault moved there, recognised by {}: its entries follow it under \
             their names)",
            shell_quote(&moved.to.to_string_lossy()),
            moved.by
        ),
        None => format!(
            "if the vault moved or was renamed: `{obsmcp} setup --vault <its folder now>{clients}` (its entries follow \
             it under their names); if it is gone for good: `{obsmcp} uninstall --vault {}`",
            shell_quote(&gone.to_string_lossy())
        ),
    }
}

//! Uninstall's second phase: the plugin's files and its enablement in `community-plugins.json`, in each vault whose
//! entries the first phase removed, that setup's record lists, or that was named. A vault some client not being
//! uninstalled still uses keeps its plugin, with a note: the plugin goes with the last entry that uses it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::edits::{prune_operations, push_edit};
use super::{UninstallPlan, UninstallRequest};
use crate::obsidian_files::plugin::{self, PLUGIN_FILES};
use crate::obsidian_files::registry;
use crate::plan::saved_index;
use crate::plan::state::State;
use crate::plan::write;
use crate::plan::{Change, FileChange, Item, Note, Problem};

/// Plans the plugin's removal from every vault in `vaults` (after adding the recorded and the named ones) that no
/// client in `still_served` uses.
pub(super) fn plan_plugins(
    request: &UninstallRequest<'_>,
    still_served: &[(PathBuf, Vec<&'static str>)],
    vaults: &mut BTreeMap<PathBuf, String>,
    plan: &mut UninstallPlan,
    state: &mut State,
) {
    for (path, config_dir) in &state.vaults {
        if request.wants(path) {
            vaults
                .entry(path.clone())
                .or_insert_with(|| config_dir.clone());
        }
    }
    for vault in &request.vaults {
        let config_dir = request
            .config_dir
            .clone()
            .unwrap_or_else(|| registry::config_dir(vault, None).0);
        vaults.entry(vault.clone()).or_insert(config_dir);
    }
    for (vault, config_dir) in vaults.iter() {
        // The plugin goes with the last entry that uses it: clients left configured must still reach the vault.
        if let Some(clients) = still_served
            .iter()
            .find(|(served, _)| write::same_path(served, vault))
        {
            let uses = if clients.1.len() == 1 { "uses" } else { "use" };
            // A client being uninstalled that still serves the vault is one whose file could not be edited.
            let refused = clients
                .1
                .iter()
                .all(|name| request.clients.iter().any(|client| client.name == *name));
            let message = if refused {
                format!(
                    "kept the plugin: {} still {uses} it, since that entry could not be removed (see the error \
                     about its file; once that is fixed, run uninstall again)",
                    clients.1.join(" and ")
                )
            } else {
                format!(
                    "kept the plugin: {} still {uses} this vault (uninstall those too to remove it)",
                    clients.1.join(" and ")
                )
            };
            plan.notes.push(Note {
                scope: format!("vault {}", registry::vault_name(vault)),
                message,
            });
            continue;
        }
        plan_plugin_removal(plan, state, vault, config_dir);
    }
}

fn plan_plugin_removal(
    plan: &mut UninstallPlan,
    state: &mut State,
    vault: &Path,
    config_dir: &str,
) {
    let scope = format!("vault {}", registry::vault_name(vault));
    let folder = plugin::folder(vault, config_dir);
    plan.plugin_vaults
        .push((vault.to_owned(), config_dir.to_owned()));
    let mut removed_any = false;
    for name in PLUGIN_FILES {
        let path = folder.join(name);
        if path.exists() {
            match FileChange::replace(&path, None) {
                Ok(change) => {
                    state.forget_file(&path);
                    plan.files.push(change);
                    removed_any = true;
                    // The plugin's own file goes, so its backup (a data.json holds the token) has nothing to restore.
                    let backup = plan.vault_backup(&path);
                    if backup.exists()
                        && let Ok(change) = FileChange::replace(&backup, None)
                    {
                        plan.files.push(change);
                    }
                }
                Err(error) => plan.problems.push(Problem {
                    scope: scope.clone(),
                    message: error.to_string(),
                    hint: None,
                }),
            }
        }
    }
    if removed_any {
        plan.items.push(Item {
            scope: scope.clone(),
            subject: "plugin files".to_owned(),
            change: Change::Removed,
            path: folder.clone(),
        });
    }
    plan.folders.push(folder);
    let community = write::resolve(&plugin::community_plugins_path(vault, config_dir));
    if community.exists() {
        let mut operations = vec![plugin::disable_operation()];
        operations.extend(prune_operations(state, &community));
        let before = plan.files.len();
        push_edit(
            plan,
            state,
            &scope,
            &community,
            plugin::OBSIDIAN_FORMAT,
            operations,
            false,
        );
        if plan.files.len() > before && plan.files.last().is_some_and(FileChange::is_change) {
            plan.items.push(Item {
                scope: scope.clone(),
                subject: "enabled in community-plugins.json".to_owned(),
                change: Change::Removed,
                path: community,
            });
        }
    }
    for index in saved_index::files(
        &saved_index::folder(&plan.state_home),
        &crate::environment::real_path(vault).unwrap_or_else(|_| vault.to_owned()),
        config_dir,
    ) {
        plan_index_removal(plan, &scope, index);
    }
    state.forget_vault(vault);
}

/// Plans the removal of the saved offline index a moved vault had at its old place.
pub(super) fn plan_moved_index_removal(plan: &mut UninstallPlan, from: &Path, config_dir: &str) {
    // Scoped to obsmcp: a cache needs nobody to reload anything, and the old place names no vault any more.
    for index in saved_index::files(&saved_index::folder(&plan.state_home), from, config_dir) {
        plan_index_removal(plan, "obsmcp", index);
    }
}

/// Plans the removal of one saved offline index, when it exists.
fn plan_index_removal(plan: &mut UninstallPlan, scope: &str, file: PathBuf) {
    if file.is_file() && !plan.saved_indexes.contains(&file) {
        plan.items.push(Item {
            scope: scope.to_owned(),
            subject: if file
                .extension()
                .is_some_and(|extension| extension == "vectors")
            {
                "saved embedding index"
            } else {
                "saved offline index"
            }
            .to_owned(),
            change: Change::Removed,
            path: file.clone(),
        });
        plan.saved_indexes.push(file);
    }
}

/// With no vault left set up: the embedding model `obsmcp setup --semantic` put in the state folder, the files its
/// record names, and the folder once empty.
pub(super) fn plan_model_folder(plan: &mut UninstallPlan) {
    let Some(files) = crate::plan::model_folder::files(&plan.state_home) else {
        return;
    };
    let folder = crate::plan::model_folder::folder(&plan.state_home);
    let present: Vec<PathBuf> = files.into_iter().filter(|file| file.is_file()).collect();
    if !present.is_empty() {
        plan.items.push(Item {
            scope: "obsmcp".to_owned(),
            subject: "embedding model".to_owned(),
            change: Change::Removed,
            path: folder.clone(),
        });
    }
    plan.saved_indexes.extend(present);
    plan.folders.push(folder);
}

/// With no vault left set up: the saved indexes of vaults that moved or were set up by hand go too, and the folder.
pub(super) fn plan_index_folder(plan: &mut UninstallPlan) {
    let folder = saved_index::folder(&plan.state_home);
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| saved_index::is_index_file(path))
        .collect();
    files.sort();
    for file in files {
        plan_index_removal(plan, "obsmcp", file);
    }
    plan.folders.push(folder);
}

//! Planning `obsmcp uninstall`: remove every obsmcp entry from the chosen clients, the permission rules setup added
//! for those names, and the plugin with its enablement; prune only the containers, files and folders that setup's
//! record says it created. Everything else in the user's files stays as it is.
//!
//! [`plan`] goes phase by phase: `clients` plans each client's entries, skill and permission rules, `plugin` the
//! plugin of each vault no other client still uses, and then the folders setup created; `edits` is how each of them
//! plans the edit of one file. [`UninstallPlan::apply`] writes the clients' files first, so a vault whose entry could
//! not be removed keeps the plugin that entry still needs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::clients::ClientSpec;
use crate::environment::Environment;
use crate::obsidian::registry;
use crate::plan::state::State;
use crate::plan::write;
use crate::plan::{FileChange, Item, Note, Problem};

mod clients;
mod edits;
mod plugin;

/// What uninstall is asked to do.
pub struct UninstallRequest<'a> {
    /// Home, environment and OS.
    pub environment: &'a Environment,
    /// The clients to clean.
    pub clients: Vec<&'static ClientSpec>,
    /// Only these vaults (empty: every vault setup touched or an entry names).
    pub vaults: Vec<PathBuf>,
    /// The config folder to use for the given vaults.
    pub config_dir: Option<String>,
    /// Keep the plugin's files and enablement.
    pub keep_plugin: bool,
    /// The read-only tool names whose permission rules setup added.
    pub read_only_tools: Vec<String>,
}

/// Everything uninstall would do.
#[derive(Debug, Clone)]
pub struct UninstallPlan {
    /// Per thing removed.
    pub items: Vec<Item>,
    /// Per file.
    pub files: Vec<FileChange>,
    /// Folders to remove once empty, deepest first.
    pub folders: Vec<PathBuf>,
    /// Parts that could not be planned.
    pub problems: Vec<Problem>,
    /// What the user should know: a plugin kept because other clients still use it.
    pub notes: Vec<Note>,
    /// obsmcp's state folder, where backups of vault files are.
    pub state_home: PathBuf,
    /// The vaults whose plugin this plan removes, with their config folder.
    pub plugin_vaults: Vec<(PathBuf, String)>,
    /// The record after applying.
    pub state: State,
    /// Each skill file removed, with the client config whose entries it goes with: it stays when that write fails.
    pub skills: Vec<(PathBuf, PathBuf)>,
    /// The bridge's saved offline indexes to delete (caches: no backup, rebuilt by the next bridge if needed).
    pub saved_indexes: Vec<PathBuf>,
    /// The copy of obsmcp that setup installed (`plan::binary`), removed with the last entry that runs it.
    pub binary: Option<PathBuf>,
}

impl UninstallRequest<'_> {
    /// Whether `vault` is one to uninstall from: every vault when none was named.
    fn wants(&self, vault: &Path) -> bool {
        self.vaults.is_empty() || self.vaults.iter().any(|wanted| wanted == vault)
    }
}

impl UninstallPlan {
    /// Whether applying changes anything.
    pub fn changes_anything(&self) -> bool {
        self.files.iter().any(FileChange::is_change)
            || self.folders.iter().any(|folder| folder.exists())
            || !self.saved_indexes.is_empty()
            || self.binary.is_some()
    }
}

/// Plans uninstall.
pub fn plan(request: &UninstallRequest<'_>) -> UninstallPlan {
    let mut state = State::load(request.environment);
    let mut plan = UninstallPlan {
        items: Vec::new(),
        files: Vec::new(),
        folders: Vec::new(),
        problems: Vec::new(),
        notes: Vec::new(),
        state_home: request.environment.state_home(),
        plugin_vaults: Vec::new(),
        state: State::default(),
        skills: Vec::new(),
        saved_indexes: Vec::new(),
        binary: None,
    };
    let mut vaults: BTreeMap<PathBuf, String> = BTreeMap::new();
    let still_served = served_by_other_clients(request);
    for client in &request.clients {
        clients::plan_client(request, client, &mut plan, &mut state, &mut vaults);
    }
    if !request.keep_plugin {
        plugin::plan_plugins(request, &still_served, &mut vaults, &mut plan, &mut state);
        if request.vaults.is_empty() && state.vaults.is_empty() && still_served.is_empty() {
            plugin::plan_index_folder(&mut plan);
        }
    }
    // The installed copy goes with the last entry: every client's entries are being removed and none is left. Only
    // an obsmcp build goes: the user may have put their own file or link there since, and that is theirs.
    if request.vaults.is_empty()
        && still_served.is_empty()
        && let Some(binary) = state.installed_binary.take()
    {
        match crate::plan::binary::occupant(&binary) {
            Ok(None) => {}
            Ok(Some(_)) => {
                plan.items.push(Item {
                    scope: "obsmcp".to_owned(),
                    subject: "binary that client entries ran".to_owned(),
                    change: crate::plan::Change::Removed,
                    path: binary.clone(),
                });
                plan.binary = Some(binary);
            }
            Err(occupied) => plan.notes.push(Note {
                scope: "obsmcp".to_owned(),
                message: format!(
                    "{occupied}: kept, since it is no longer the copy of obsmcp setup installed there"
                ),
            }),
        }
    }
    // Folders setup created go too, but only once empty: whatever else is in them is not obsmcp's.
    for folder in &state.created_dirs {
        if request.vaults.is_empty() || vaults.keys().any(|vault| folder.starts_with(vault)) {
            plan.folders.push(folder.clone());
        }
    }
    plan.folders
        .sort_by_key(|folder| std::cmp::Reverse(folder.components().count()));
    plan.folders.dedup();
    plan.state = state;
    plan
}

/// The vaults that obsmcp entries of clients not being uninstalled still serve, with those clients' names.
fn served_by_other_clients(request: &UninstallRequest<'_>) -> Vec<(PathBuf, Vec<&'static str>)> {
    let chosen = |client: &ClientSpec| request.clients.iter().any(|wanted| wanted.id == client.id);
    crate::clients::served_vaults(request.environment, |client| !chosen(client))
}

impl UninstallPlan {
    /// Applies the plan: files first, then the folders that are now empty; saves the record. Failures are returned
    /// together after everything else was done.
    pub fn apply(&mut self, environment: &Environment) -> Vec<Problem> {
        let mut problems = Vec::new();
        let original = State::load(environment);
        // The backups of files whose write failed, and those files.
        let mut failed: Vec<PathBuf> = Vec::new();
        let mut failed_files: Vec<PathBuf> = Vec::new();
        let skills = self.skills.clone();
        let state_home = self.state_home.clone();
        let vault_of = |path: &Path| {
            self.plugin_vaults
                .iter()
                .find(|(vault, config_dir)| {
                    let config = vault.join(config_dir);
                    path.starts_with(&config)
                        || path.starts_with(write::vault_backup_folder(&state_home, &config))
                })
                .cloned()
        };
        let mut write_change =
            |change: &FileChange, state: &mut State, problems: &mut Vec<Problem>| {
                // A file whose write failed keeps its backup: the file still holds obsmcp's entries, and the backup is
                // what a later uninstall restores from.
                if failed.contains(&change.path) {
                    return;
                }
                // A skill stays while its client still has the entries it goes with.
                if skills
                    .iter()
                    .any(|(skill, config)| *skill == change.path && failed_files.contains(config))
                {
                    state.keep_file_as_in(&original, &change.path);
                    return;
                }
                if let Err(error) = change.apply() {
                    state.keep_file_as_in(&original, &change.path);
                    failed.push(change.backup.clone());
                    failed_files.push(change.path.clone());
                    problems.push(Problem {
                        scope: change.path.display().to_string(),
                        message: error.to_string(),
                        hint: error.hint(),
                    });
                }
            };
        // Clients first: a vault whose entry could not be removed somewhere keeps its plugin, which that entry
        // still needs.
        for change in self
            .files
            .iter()
            .filter(|change| vault_of(&change.path).is_none())
        {
            write_change(change, &mut self.state, &mut problems);
        }
        // Only when a client's write failed can an entry be left behind; the configs then say which vaults.
        let served = if problems.is_empty() {
            Vec::new()
        } else {
            crate::clients::served_vaults(environment, |_| true)
        };
        let mut kept: Vec<PathBuf> = Vec::new();
        for change in &self.files {
            let Some((vault, config_dir)) = vault_of(&change.path) else {
                continue;
            };
            if let Some((_, clients)) = served
                .iter()
                .find(|(path, _)| write::same_path(path, &vault))
            {
                self.state.keep_file_as_in(&original, &change.path);
                if !kept.contains(&vault) {
                    kept.push(vault.clone());
                    self.state.vaults.insert(vault.clone(), config_dir);
                    problems.push(Problem {
                        scope: format!("vault {}", registry::vault_name(&vault)),
                        message: format!(
                            "kept the plugin: {} still {} it",
                            clients.join(" and "),
                            if clients.len() == 1 { "uses" } else { "use" }
                        ),
                        hint: Some("fix the problems above, then run uninstall again".to_owned()),
                    });
                }
                continue;
            }
            write_change(change, &mut self.state, &mut problems);
        }
        if let Some(binary) = &self.binary {
            // An entry that could not be removed still runs it.
            let removed = if problems.is_empty() {
                crate::plan::binary::remove(binary).map_err(|error| Problem {
                    scope: "obsmcp".to_owned(),
                    message: error.to_string(),
                    hint: Some(format!("delete `{}` by hand", binary.display())),
                })
            } else {
                Err(Problem {
                    scope: "obsmcp".to_owned(),
                    message: format!(
                        "kept `{}`: an entry that runs it could not be removed",
                        binary.display()
                    ),
                    hint: Some("fix the problems above, then run uninstall again".to_owned()),
                })
            };
            if let Err(problem) = removed {
                problems.push(problem);
                self.state.installed_binary = Some(binary.clone());
            }
        }
        for file in &self.saved_indexes {
            match std::fs::remove_file(file) {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                    problems.push(Problem {
                        scope: "obsmcp".to_owned(),
                        message: format!(
                            "could not delete the saved offline index `{}`: {error}",
                            file.display()
                        ),
                        hint: Some(
                            "delete it by hand: it is a cache the bridge rebuilds, nothing is lost"
                                .to_owned(),
                        ),
                    })
                }
                _ => {}
            }
        }
        for folder in &self.folders {
            if crate::plan::state::remove_dir_if_empty(folder) || !folder.exists() {
                self.state.created_dirs.remove(folder);
            }
        }
        // Backups removed leave their folders in the state folder; the empty ones go, up to `backups` itself.
        let backups = self.state_home.join("backups");
        for change in self.files.iter().filter(|change| change.after.is_none()) {
            let mut folder = change.path.parent();
            while let Some(current) = folder.filter(|current| current.starts_with(&backups)) {
                if !crate::plan::state::remove_dir_if_empty(current) {
                    break;
                }
                folder = current.parent();
            }
        }
        if let Err(error) = self.state.save(environment) {
            problems.push(Problem {
                scope: "obsmcp".to_owned(),
                message: error.to_string(),
                hint: None,
            });
        }
        problems
    }
}

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
use crate::obsidian_files::registry;
use crate::plan::moves::{self, Move};
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
    /// Files of obsmcp's state folder to delete without a backup: the bridge's saved indexes (caches, rebuilt by the
    /// next bridge if needed) and the embedding model setup downloaded.
    pub saved_indexes: Vec<PathBuf>,
    /// The copy of obsmcp that setup installed (`plan::binary`), removed with the last entry that runs it.
    pub binary: Option<PathBuf>,
    /// Vaults found at a new place since setup: their entries at the old place go, and the plugin at the new one.
    pub moves: Vec<Move>,
}

impl UninstallRequest<'_> {
    /// Whether `vault` is one to uninstall from: every vault when none was named.
    fn wants(&self, vault: &Path) -> bool {
        self.vaults.is_empty() || self.vaults.iter().any(|wanted| wanted == vault)
    }
}

impl UninstallPlan {
    /// A plan that does nothing yet, keeping its backups in `state_home`.
    fn empty(state_home: PathBuf) -> Self {
        Self {
            items: Vec::new(),
            files: Vec::new(),
            folders: Vec::new(),
            problems: Vec::new(),
            notes: Vec::new(),
            state_home,
            plugin_vaults: Vec::new(),
            state: State::default(),
            skills: Vec::new(),
            saved_indexes: Vec::new(),
            binary: None,
            moves: Vec::new(),
        }
    }

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
    let found = find_moves(request, &state);
    let request = &UninstallRequest {
        environment: request.environment,
        clients: request.clients.clone(),
        vaults: with_old_places(&request.vaults, &found),
        config_dir: request.config_dir.clone(),
        keep_plugin: request.keep_plugin,
        read_only_tools: request.read_only_tools.clone(),
    };
    let mut plan = UninstallPlan::empty(request.environment.state_home());
    let mut vaults: BTreeMap<PathBuf, String> = BTreeMap::new();
    // Entries of other clients at a moved vault's old place still use it at its new one.
    let mut still_served = served_by_other_clients(request);
    for client in &request.clients {
        clients::plan_client(
            request,
            client,
            &mut plan,
            &mut state,
            &mut vaults,
            &mut still_served,
        );
    }
    at_new_places(&mut still_served, &found);
    follow_moves(request, found, &mut vaults, &mut plan, &mut state);
    note_gone_vaults(&vaults, &mut plan);
    if !request.keep_plugin {
        plugin::plan_plugins(request, &still_served, &mut vaults, &mut plan, &mut state);
        if request.vaults.is_empty() && state.vaults.is_empty() && still_served.is_empty() {
            plugin::plan_index_folder(&mut plan);
            plugin::plan_model_folder(&mut plan);
        }
    }
    // The installed copy goes with the last entry: every client's entries are being removed and none is left.
    if request.vaults.is_empty()
        && still_served.is_empty()
        && let Some(binary) = state.installed_binary.take()
    {
        plan_binary_removal(binary, &mut plan);
    }
    // Folders setup created go too, but only once empty: whatever else is in them is not obsmcp's, and an empty one
    // holds nothing of obsmcp's either (a skill's folder after a vault's last entry went, say).
    plan.folders.extend(state.created_dirs.iter().cloned());
    plan.folders
        .sort_by_key(|folder| std::cmp::Reverse(folder.components().count()));
    plan.folders.dedup();
    plan.state = state;
    plan
}

/// The vaults named, with the old place of each that moved: a vault named at its new place also means its entries
/// at the old one. No vault named stays none (every vault).
fn with_old_places(named: &[PathBuf], found: &[Move]) -> Vec<PathBuf> {
    let mut wanted = named.to_vec();
    if !wanted.is_empty() {
        for moved in found {
            if wanted
                .iter()
                .any(|vault| write::same_path(vault, &moved.to))
            {
                wanted.push(moved.from.clone());
            }
        }
    }
    wanted
}

/// Carries each wanted vault that moved to its new place: the plugin, the record and the backups are there now;
/// the saved index at the old place goes.
fn follow_moves(
    request: &UninstallRequest<'_>,
    found: Vec<Move>,
    vaults: &mut BTreeMap<PathBuf, String>,
    plan: &mut UninstallPlan,
    state: &mut State,
) {
    for moved in found {
        if !request.wants(&moved.from) {
            continue;
        }
        let config_dir = vaults
            .remove(&moved.from)
            .unwrap_or_else(|| moves::config_dir_of(state, &moved.from));
        vaults.insert(moved.to.clone(), config_dir.clone());
        state.move_vault(&moved.from, &moved.to);
        plan.notes.push(Note {
            scope: format!("vault {}", registry::vault_name(&moved.to)),
            message: moved.describe(),
        });
        plugin::plan_moved_index_removal(plan, &moved.from, &config_dir);
        plan.moves.push(moved);
    }
}

/// Notes each vault that is gone and was not found: its plugin, wherever the folder went, is out of reach.
fn note_gone_vaults(vaults: &BTreeMap<PathBuf, String>, plan: &mut UninstallPlan) {
    for gone in vaults
        .keys()
        .filter(|vault| vault.is_absolute() && !vault.is_dir())
    {
        plan.notes.push(Note {
            scope: format!("vault {}", registry::vault_name(gone)),
            message: format!(
                "`{}` is gone: if the vault moved or was renamed, `obsmcp uninstall --vault <its folder now>` removes \
                 the plugin there too",
                gone.display()
            ),
        });
    }
}

/// Plans removing the copy of obsmcp setup installed. Only an obsmcp build goes: the user may have put their own
/// file or link there since, and that is theirs.
fn plan_binary_removal(binary: PathBuf, plan: &mut UninstallPlan) {
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

/// Vaults that moved since setup, found among the named ones and those Obsidian lists.
fn find_moves(request: &UninstallRequest<'_>, state: &State) -> Vec<Move> {
    let mut candidates: Vec<(PathBuf, String)> = request
        .vaults
        .iter()
        .map(|vault| {
            let config_dir = request
                .config_dir
                .clone()
                .unwrap_or_else(|| registry::config_dir(vault, None).0);
            (vault.clone(), config_dir)
        })
        .collect();
    let (registered, _) = registry::discover(request.environment);
    for vault in registered {
        if !candidates.iter().any(|(known, _)| *known == vault.path) {
            let config_dir = registry::config_dir(&vault.path, None).0;
            candidates.push((vault.path, config_dir));
        }
    }
    moves::find(request.environment, state, &candidates)
}

impl UninstallPlan {
    /// Where the backup of a vault file is in the state folder: under the vault's place now or, for a vault that
    /// moved since setup, under its old place; a new backup goes under its place now.
    fn vault_backup(&self, path: &Path) -> PathBuf {
        let here = write::vault_backup_path(&self.state_home, path);
        if here.exists() {
            return here;
        }
        self.moves
            .iter()
            .filter_map(|moved| {
                let rest = path.strip_prefix(&moved.to).ok()?;
                Some(write::vault_backup_path(
                    &self.state_home,
                    &moved.from.join(rest),
                ))
            })
            .find(|backup| backup.exists())
            .unwrap_or(here)
    }

    /// Whether `path` is inside the config folder of a vault whose plugin this plan removes.
    fn is_vault_file(&self, path: &Path) -> bool {
        self.plugin_vaults
            .iter()
            .any(|(vault, config_dir)| path.starts_with(vault.join(config_dir)))
    }
}

/// The vault, with its config folder, among those whose plugin the plan removes, that `path` belongs to: inside its
/// config folder, or among its backups in `state_home`, under its place now or, for a vault that moved, its old one.
fn plugin_vault_of(
    plugin_vaults: &[(PathBuf, String)],
    moves: &[Move],
    state_home: &Path,
    path: &Path,
) -> Option<(PathBuf, String)> {
    plugin_vaults
        .iter()
        .find(|(vault, config_dir)| {
            let config = vault.join(config_dir);
            let former = moves
                .iter()
                .filter(|moved| moved.to == *vault)
                .map(|moved| moved.from.join(config_dir));
            path.starts_with(&config)
                || std::iter::once(config.clone())
                    .chain(former)
                    .any(|config| path.starts_with(write::vault_backup_folder(state_home, &config)))
        })
        .cloned()
}

/// Keeps a vault in the record `state`, with its identity, by which a later run still knows it after a move or a
/// rename.
fn keep_vault_record(
    state: &mut State,
    moves: &[Move],
    original: &State,
    vault: &Path,
    config_dir: String,
) {
    state.vaults.insert(vault.to_owned(), config_dir);
    for (place, identity) in &original.identities {
        let left = moves
            .iter()
            .any(|moved| moved.to == vault && write::same_path(&moved.from, place));
        if write::same_path(place, vault) || left {
            state.identities.insert(place.clone(), identity.clone());
        }
    }
}

/// Served vaults named at a place the vault has left, renamed to where it is now.
fn at_new_places(served: &mut [(PathBuf, Vec<&'static str>)], found: &[Move]) {
    for (vault, _) in served {
        if let Some(moved) = found
            .iter()
            .find(|moved| write::same_path(&moved.from, vault))
        {
            *vault = moved.to.clone();
        }
    }
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
        // The record as it was, with the vaults that moved at their new places: a file whose write fails keeps what
        // the record said about it, at the place the file is now.
        let mut original = State::load(environment);
        for moved in &self.moves {
            original.move_vault(&moved.from, &moved.to);
        }
        // The backups of files whose write failed, and those files.
        let mut failed: Vec<PathBuf> = Vec::new();
        let mut failed_files: Vec<PathBuf> = Vec::new();
        let skills = self.skills.clone();
        let vault_of =
            |path: &Path| plugin_vault_of(&self.plugin_vaults, &self.moves, &self.state_home, path);
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
            // An entry left at a moved vault's old place still uses the plugin at its new one.
            let mut served = crate::clients::served_vaults(environment, |_| true);
            at_new_places(&mut served, &self.moves);
            served
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
                    keep_vault_record(&mut self.state, &self.moves, &original, &vault, config_dir);
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
        self.remove_binary(&mut problems);
        self.remove_saved_indexes(&mut problems);
        self.remove_empty_folders();
        if let Err(error) = self.state.save(environment) {
            problems.push(Problem {
                scope: "obsmcp".to_owned(),
                message: error.to_string(),
                hint: None,
            });
        }
        problems
    }

    /// Removes the installed copy of obsmcp, unless a problem so far means an entry that runs it is still there.
    fn remove_binary(&mut self, problems: &mut Vec<Problem>) {
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
    }

    /// Deletes the bridge's saved indexes and the model setup put in place; one already gone is fine.
    fn remove_saved_indexes(&self, problems: &mut Vec<Problem>) {
        for file in &self.saved_indexes {
            match std::fs::remove_file(file) {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                    problems.push(Problem {
                        scope: "obsmcp".to_owned(),
                        message: format!("could not delete `{}`: {error}", file.display()),
                        hint: Some(
                            "delete it by hand: it is obsmcp's own (a cache the bridge rebuilds, or the model setup downloaded), nothing of yours is in it"
                                .to_owned(),
                        ),
                    })
                }
                _ => {}
            }
        }
    }

    /// Removes the folders setup created that are now empty, and the empty backup folders left by backups removed.
    fn remove_empty_folders(&mut self) {
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
    }
}

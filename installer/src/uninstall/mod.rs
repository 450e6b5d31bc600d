//! Planning `obsmcp uninstall`: remove every obsmcp entry from the chosen clients, the permission rules setup added
//! for those names, and the plugin with its enablement; prune only the containers, files and folders that setup's
//! record says it created. Everything else in the user's files stays as it is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::clients::skill;
use crate::clients::{ClientSpec, EntryKind, describe_entry, read_servers};
use crate::document::{self, KeyPath, Operation};
use crate::environment::Environment;
use crate::obsidian::plugin::{self, PLUGIN_FILES};
use crate::obsidian::plugin_data::DEFAULT_CONFIG_DIR;
use crate::obsidian::registry;
use crate::plan::state::State;
use crate::plan::write;
use crate::plan::{Change, FileChange, Item, Note, Problem, TextEdit};

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
}

impl UninstallPlan {
    /// Whether applying changes anything.
    pub fn changes_anything(&self) -> bool {
        self.files.iter().any(FileChange::is_change)
            || self.folders.iter().any(|folder| folder.exists())
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
    };
    let mut vaults: BTreeMap<PathBuf, String> = BTreeMap::new();
    let still_served = served_by_other_clients(request);
    let wanted = |vault: &Path| {
        request.vaults.is_empty() || request.vaults.iter().any(|wanted| wanted == vault)
    };

    for client in &request.clients {
        let location = client.locate(request.environment);
        let path = write::resolve(&location.config);
        let text = match write::read_text(&path) {
            Ok(Some(text)) => text,
            Ok(None) => continue,
            Err(error) => {
                plan.problems.push(Problem {
                    scope: client.name.to_owned(),
                    message: error.to_string(),
                    hint: None,
                });
                continue;
            }
        };
        let servers = match read_servers(client, &text) {
            Ok(servers) => servers,
            Err(error) => {
                plan.problems.push(Problem {
                    scope: client.name.to_owned(),
                    message: format!("`{}` was left untouched: {error}", path.display()),
                    hint: Some("fix the file by hand, then run uninstall again".to_owned()),
                });
                continue;
            }
        };
        let mut names = Vec::new();
        let mut stays = false;
        for (name, entry) in &servers {
            if let EntryKind::Obsmcp {
                vault: Some(vault),
                config_dir,
                ..
            } = describe_entry(client, entry)
            {
                if !wanted(&vault) {
                    stays = true;
                    continue;
                }
                vaults.insert(
                    vault.clone(),
                    config_dir.unwrap_or_else(|| DEFAULT_CONFIG_DIR.to_owned()),
                );
                names.push(name.clone());
            }
        }
        let mut operations: Vec<Operation> = names
            .iter()
            .map(|name| Operation::Remove {
                path: client.entry_path(name),
            })
            .collect();
        operations.extend(prune_operations(&state, &path));
        push_edit(
            &mut plan,
            &mut state,
            client.name,
            &path,
            client.format,
            operations,
            client.claude_lock,
        );
        for name in &names {
            plan.items.push(Item {
                scope: client.name.to_owned(),
                subject: format!("server `{name}`"),
                change: Change::Removed,
                path: path.clone(),
            });
        }
        // The skill goes with the client's last obsmcp entry.
        if !stays {
            plan_skill_removal(&mut plan, &mut state, client, request.environment, &path);
        }
        if let Some(permissions) = &client.permissions
            && !names.is_empty()
        {
            let settings = write::resolve(&(permissions.locate)(request.environment));
            if settings.exists() {
                let allow: KeyPath = permissions
                    .allow_key
                    .iter()
                    .map(|key| (*key).to_owned())
                    .collect();
                let rules = names
                    .iter()
                    .flat_map(|name| {
                        request
                            .read_only_tools
                            .iter()
                            .map(move |tool| permissions.rule(name, tool))
                    })
                    .collect();
                let mut operations = vec![Operation::RemoveFromArray {
                    path: allow,
                    items: rules,
                }];
                operations.extend(prune_operations(&state, &settings));
                let planned = plan.files.len();
                push_edit(
                    &mut plan,
                    &mut state,
                    client.name,
                    &settings,
                    document::Format::Json,
                    operations,
                    false,
                );
                if plan.files[planned..]
                    .iter()
                    .any(|change| change.path == settings && change.is_change())
                {
                    plan.items.push(Item {
                        scope: client.name.to_owned(),
                        subject: "permission rules for the read-only tools (settings.json)"
                            .to_owned(),
                        change: Change::Removed,
                        path: settings,
                    });
                }
            }
        }
    }

    if !request.keep_plugin {
        for (path, config_dir) in &state.vaults {
            if wanted(path) {
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
        for (vault, config_dir) in &vaults {
            // The plugin goes with the last entry that uses it: clients left configured must still reach the vault.
            if let Some(clients) = still_served
                .iter()
                .find(|(served, _)| write::same_path(served, vault))
            {
                plan.notes.push(Note {
                    scope: format!("vault {}", registry::vault_name(vault)),
                    message: format!(
                        "kept the plugin: {} still {} this vault (uninstall those too to remove it)",
                        clients.1.join(" and "),
                        if clients.1.len() == 1 { "uses" } else { "use" }
                    ),
                });
                continue;
            }
            plan_plugin_removal(&mut plan, &mut state, vault, config_dir);
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
        let mut write = |change: &FileChange, state: &mut State, problems: &mut Vec<Problem>| {
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
            write(change, &mut self.state, &mut problems);
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
            write(change, &mut self.state, &mut problems);
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

/// Removes the companion skill setup installed for `client` (its folder once empty); a `SKILL.md` that was there
/// before setup is put back from its backup.
fn plan_skill_removal(
    plan: &mut UninstallPlan,
    state: &mut State,
    client: &ClientSpec,
    environment: &Environment,
    config: &Path,
) {
    let Some(path) = skill::file(client, environment).map(|path| write::resolve(&path)) else {
        return;
    };
    if !path.exists() {
        return;
    }
    let backup = write::vault_backup_path(&plan.state_home, &path);
    let created = state.created_files.contains(&path);
    if !created && !backup.exists() {
        // Not setup's: a skill of that name the user made is theirs to keep.
        return;
    }
    // A skill setup created goes, whatever a later setup kept aside when it replaced an older version of it.
    let restored = if created {
        None
    } else {
        std::fs::read(&backup).ok()
    };
    match FileChange::replace(&path, restored.as_deref()) {
        Ok(change) => {
            state.forget_file(&path);
            plan.files.push(change);
            plan.skills.push((path.clone(), config.to_owned()));
            if backup.exists()
                && let Ok(change) = FileChange::replace(&backup, None)
            {
                plan.files.push(change);
            }
            plan.items.push(Item {
                scope: client.name.to_owned(),
                subject: format!("skill `{}`", skill::NAME),
                change: Change::Removed,
                path: path.clone(),
            });
            if let Some(folder) = path.parent() {
                plan.folders.push(folder.to_owned());
            }
        }
        Err(error) => plan.problems.push(Problem {
            scope: client.name.to_owned(),
            message: error.to_string(),
            hint: None,
        }),
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
                    let backup = write::vault_backup_path(&plan.state_home, &path);
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
    state.vaults.remove(vault);
}

/// Removal of the containers setup created in `path`, deepest first.
fn prune_operations(state: &State, path: &Path) -> Vec<Operation> {
    let mut containers: Vec<&KeyPath> = state
        .created_containers
        .get(path)
        .into_iter()
        .flatten()
        .collect();
    containers.sort_by_key(|container| std::cmp::Reverse(container.len()));
    containers
        .into_iter()
        .map(|container| Operation::RemoveIfEmpty {
            path: container.clone(),
        })
        .collect()
}

fn push_edit(
    plan: &mut UninstallPlan,
    state: &mut State,
    scope: &str,
    path: &Path,
    format: document::Format,
    operations: Vec<Operation>,
    claude_lock: bool,
) {
    let created = state.created_files.contains(path);
    let edit = TextEdit {
        format,
        operations,
        remove_if_empty: created,
    };
    match FileChange::planned(path, edit, claude_lock, None) {
        Ok(mut change) => {
            if change.is_change() {
                forget_emptied(state, &change);
                // A vault file's backup is in the state folder; one beside it is from an older obsmcp.
                let in_state = write::vault_backup_path(&plan.state_home, path);
                if in_state.exists() {
                    change.backup = in_state;
                }
                let backup = restore_from_backup(&mut change, format);
                plan.files.push(change);
                plan.files.extend(backup);
                return;
            }
            plan.files.push(change);
        }
        Err(error) => plan.problems.push(Problem {
            scope: scope.to_owned(),
            message: error.to_string(),
            hint: None,
        }),
    }
}

/// When the file without obsmcp's entries means exactly what the backup setup took holds, obsmcp was the only
/// change: the backup's bytes are the faithful result (the editors cannot always undo their own layout, e.g. a
/// one-line JSON object that gained a multi-line entry), and the backup is then redundant and removed.
///
/// A backup can also hold obsmcp's own earlier work: `doctor --fix` re-enabling the plugin in a
/// `community-plugins.json` that setup created and the user emptied backs up that `[]`. When the same removal
/// applied to the backup leaves what uninstall leaves (nothing, here), the backup holds nothing the user would lose,
/// so it goes too; a backup with anything else in it stays.
fn restore_from_backup(change: &mut FileChange, format: document::Format) -> Option<FileChange> {
    let backup_path = change.backup.clone();
    let backup = std::fs::read(&backup_path).ok()?;
    let Some(after) = change.after.as_deref() else {
        let backup_text = std::str::from_utf8(&backup).ok()?;
        let removal = change.edit.as_ref()?;
        if removal.run(Some(backup_text)).ok()?.is_some() {
            return None;
        }
        return FileChange::replace(&backup_path, None).ok();
    };
    // Nothing and an empty object mean the same to every client: an empty file and `{}` are both "no settings",
    // and a Hermes `mcp_servers:` with nothing under it and the `mcp_servers: {}` that removing the last entry
    // leaves (yaml-edit writes an emptied mapping in flow style) are both "no servers".
    fn empty_as_null(value: Value) -> Value {
        match value {
            Value::Object(map) if map.is_empty() => Value::Null,
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(key, child)| (key, empty_as_null(child)))
                    .collect(),
            ),
            other => other,
        }
    }
    let meaning = |text: &[u8]| {
        std::str::from_utf8(text)
            .ok()
            .and_then(|text| document::read_value(format, text).ok())
            .map(empty_as_null)
    };
    let after_meaning = meaning(after)?;
    if meaning(&backup)? == after_meaning {
        change.after = Some(backup);
        return FileChange::replace(&backup_path, None).ok();
    }
    let backup_without_obsmcp = change
        .edit
        .as_ref()?
        .run(Some(std::str::from_utf8(&backup).ok()?))
        .ok()??;
    if meaning(backup_without_obsmcp.as_bytes())? != after_meaning {
        return None;
    }
    FileChange::replace(&backup_path, None).ok()
}

/// Drops the record of containers that the change removes, and of the file when it goes.
fn forget_emptied(state: &mut State, change: &FileChange) {
    if change.after.is_none() {
        state.forget_file(&change.path);
        return;
    }
    let (_, after) = change.values();
    if let Some(containers) = state.created_containers.get_mut(&change.path) {
        containers.retain(|container| {
            document::lookup(&after, container).is_some_and(|value: &Value| !value.is_null())
        });
        if containers.is_empty() {
            state.created_containers.remove(&change.path);
        }
    }
}

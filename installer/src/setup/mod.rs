//! Planning `obsmcp setup`: for each vault the plugin files, `data.json` (port and token kept, gaps filled) and its
//! enablement; one server name for every vault (or one per vault, `layout.rs`), the same in every client; for each
//! client the entry and, for Claude Code, the permission rules. An entry obsmcp already has for the vault is brought up to date key by key (command,
//! arguments, transport), so whatever the user added to it survives; another program's entry is replaced whole,
//! and only with consent. Nothing is written here: the result is a [`SetupPlan`] that the command shows, confirms and
//! applies.
//!
//! This file holds the request, the plan and its `apply`, and [`plan`], which walks the vaults and clients; the parts
//! it calls on are beside it: `client_files` reads each chosen client's config once (and lists its report lines
//! afterwards), `plugin` plans one vault's plugin, `entries` chooses the server name and plans each client's entry,
//! and `edits` gathers the edits per file and turns them into planned changes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::clients::{ClientSpec, skill};
use crate::environment::Environment;
use crate::obsidian_files::plugin::PluginBundle;
use crate::obsidian_files::registry::{self, ConfigDirSource};
use crate::plan::moves::{self, Move};
use crate::plan::saved_index;
use crate::plan::state::State;
use crate::plan::write;
use crate::plan::{FileChange, Item, Note, Problem};

mod client_files;
mod edits;
mod entries;
mod layout;
mod plugin;
mod repoint;

pub use entries::bridge_entry;
pub use layout::EntryLayout;

use client_files::{ClientFile, describe_client_items, read_clients};
use edits::Edits;
use entries::{choose_name, plan_entry};
use plugin::{plan_plugin, ports_in_use_by_other_vaults};
use repoint::repoint_broken_entries;

/// The server name of the entry every vault shares (of the first vault, with one entry per vault; further vaults then
/// get `obsidian-<vault slug>`).
pub const SERVER_NAME: &str = "obsidian";

/// Ports never handed out: the older claude-code-mcp plugin (22360) and Local REST API (27123, 27124).
pub const RESERVED_PORTS: &[u16] = &[22360, 27123, 27124];

/// A vault to set up.
#[derive(Debug, Clone)]
pub struct VaultTarget {
    /// The vault folder, absolute.
    pub path: PathBuf,
    /// Its config folder name.
    pub config_dir: String,
    /// How the config folder was chosen.
    pub config_dir_source: ConfigDirSource,
    /// Whether Obsidian has it open (from the registry).
    pub open: bool,
    /// Places this vault was set up at before, now gone (a move or a rename): [`plan`] fills it, and the vault's
    /// entries there are re-pointed in place under their names.
    pub moved_from: Vec<PathBuf>,
}

/// What setup is asked to do.
pub struct SetupRequest<'a> {
    /// Home, environment and OS.
    pub environment: &'a Environment,
    /// The vaults.
    pub vaults: Vec<VaultTarget>,
    /// The clients.
    pub clients: Vec<&'static ClientSpec>,
    /// The absolute path of the `obsmcp` binary the entries run.
    pub binary: PathBuf,
    /// Register the bridge with `--read-only`.
    pub read_only: bool,
    /// Hidden-path rules to add to each vault's plugin settings (`--hide`), kept with the ones already there.
    pub hide: Vec<String>,
    /// Also hide Obsidian's own "Excluded files" (`--hide-excluded-files`).
    pub hide_excluded_files: bool,
    /// Install the companion skill for the clients that read skills from a folder (not with `--no-skill`).
    pub skill: bool,
    /// Mark Claude Code's entry `"alwaysLoad": true`, so tool search never defers obsmcp's tools (`--always-load`).
    pub always_load: bool,
    /// Whether obsmcp's existing entries keep their `--tools` as they are, even when they name none (a repair); setup
    /// otherwise gives an entry without one the client's default.
    pub keep_tools: bool,
    /// One entry for every vault, one per vault, or as they are (`layout.rs`).
    pub layout: EntryLayout,
    /// Add permission rules that pre-approve the read-only tools.
    pub permissions: bool,
    /// The plugin files to install.
    pub bundle: PluginBundle,
    /// The initial `data.json` template.
    pub data_template: &'a str,
    /// The names of the read-only tools (from the catalog).
    pub read_only_tools: Vec<String>,
    /// Whether a loopback port is free now.
    pub port_is_free: &'a dyn Fn(u16) -> bool,
}

/// Answers the questions planning raises.
pub trait Decisions {
    /// Whether to replace `existing`, an entry named `name` in `client` that runs something else.
    fn replace_existing(&mut self, client: &ClientSpec, name: &str, existing: &str) -> bool;

    /// Whether the vault at `here` is the one obsmcp set up at `gone`, which no longer exists, when nothing recorded
    /// says so. Without someone to ask: no.
    fn same_vault(&mut self, _gone: &Path, _here: &Path) -> bool {
        false
    }
}

/// A fixed answer to every question (`--replace-existing`, or no).
pub struct FixedDecisions(pub bool);

impl Decisions for FixedDecisions {
    fn replace_existing(&mut self, _client: &ClientSpec, _name: &str, _existing: &str) -> bool {
        self.0
    }
}

/// The planned outcome for one vault.
#[derive(Debug, Clone, Serialize)]
pub struct VaultPlan {
    /// The vault's name (its folder name).
    pub name: String,
    /// The vault folder.
    pub path: PathBuf,
    /// Its config folder.
    pub config_dir: String,
    /// How the config folder was chosen.
    pub config_dir_source: ConfigDirSource,
    /// Whether Obsidian has it open.
    pub open: bool,
    /// The plugin's port.
    pub port: u16,
    /// The server name in every client.
    pub server_name: String,
}

/// Everything setup would do.
#[derive(Debug, Clone)]
pub struct SetupPlan {
    /// Per vault.
    pub vaults: Vec<VaultPlan>,
    /// Per thing managed.
    pub items: Vec<Item>,
    /// Per file.
    pub files: Vec<FileChange>,
    /// Things to know.
    pub notes: Vec<Note>,
    /// Parts that could not be planned.
    pub problems: Vec<Problem>,
    /// The record after applying.
    pub state: State,
    /// Folders the writes create.
    pub created_dirs: Vec<PathBuf>,
    /// Files whose change only makes sense with another's: (the file, the file it needs written first), as Claude
    /// Code's permission rules need its entry.
    pub needs: Vec<(PathBuf, PathBuf)>,
    /// Vaults found at a new place: their backups and records follow them when the plan is applied.
    pub moves: Vec<Move>,
}

impl SetupPlan {
    /// Whether applying changes any byte.
    pub fn changes_anything(&self) -> bool {
        self.files.iter().any(FileChange::is_change)
    }

    /// Writes every planned change and saves the record; failures are returned after everything else was done.
    pub fn apply(&self, environment: &Environment) -> Vec<Problem> {
        let mut problems = Vec::new();
        // The record as it was, with the vaults that moved at their new places: the move happened whatever this run
        // writes, so a write that fails keeps what the record said of the file at the place the file is now.
        let mut original = State::load(environment);
        for moved in &self.moves {
            original.move_vault(&moved.from, &moved.to);
        }
        let mut state = self.state.clone();
        // Backups go under the state folder before the record is first saved: the folders they make are obsmcp's too.
        state.claim_own_dirs(environment);
        // A moved vault's backups follow it first: the writes below then keep them as the files' first backups.
        self.carry_moved_vaults(&environment.state_home());
        let vault_of = |change: &FileChange| {
            self.vaults
                .iter()
                .find(|vault| change.path.starts_with(vault.path.join(&vault.config_dir)))
        };
        let mut failed: Vec<PathBuf> = Vec::new();
        let mut write_change =
            |change: &FileChange, state: &mut State, problems: &mut Vec<Problem>| {
                let needed = self
                    .needs
                    .iter()
                    .find(|(file, needed)| *file == change.path && failed.contains(needed));
                if let Some((_, needed)) = needed {
                    // Rules for an entry that could not be written would outlive it: uninstall finds no entry to
                    // take them back with.
                    state.keep_file_as_in(&original, &change.path);
                    failed.push(change.path.clone());
                    problems.push(Problem {
                        scope: change.path.display().to_string(),
                        message: format!(
                            "left unchanged, since `{}` could not be written",
                            needed.display()
                        ),
                        hint: None,
                    });
                    return;
                }
                if let Err(error) = change.apply() {
                    state.keep_file_as_in(&original, &change.path);
                    failed.push(change.path.clone());
                    problems.push(Problem {
                        scope: change.path.display().to_string(),
                        message: error.to_string(),
                        hint: error.hint(),
                    });
                }
            };
        // Clients first: the plugin then goes only into vaults that some client's entry serves, so a run in which
        // every entry for a vault failed does not leave a plugin there that nothing uses.
        for change in self
            .files
            .iter()
            .filter(|change| vault_of(change).is_none())
        {
            write_change(change, &mut state, &mut problems);
        }
        // Only when a client's file could not be planned or written can a vault be left without an entry; the configs
        // then say which.
        let served = (!problems.is_empty() || !self.problems.is_empty())
            .then(|| crate::clients::served_vaults(environment, |_| true));
        let mut unserved: Vec<&VaultPlan> = Vec::new();
        for change in &self.files {
            let Some(vault) = vault_of(change) else {
                continue;
            };
            let is_served = served.as_ref().is_none_or(|served| {
                served
                    .iter()
                    .any(|(path, _)| write::same_path(path, &vault.path))
            });
            if is_served {
                write_change(change, &mut state, &mut problems);
                continue;
            }
            state.keep_file_as_in(&original, &change.path);
            if !unserved.iter().any(|known| known.path == vault.path) {
                unserved.push(vault);
            }
        }
        for vault in unserved {
            problems.push(keep_unserved_record(&mut state, &original, vault));
        }
        // Folders the plan expected to create but a skipped or failed write never did are not obsmcp's. Those an
        // earlier run recorded stay, even where they are not now: a vault moved away and not yet found keeps them
        // for the run that follows it to its new place.
        state
            .created_dirs
            .retain(|folder| folder.exists() || original.created_dirs.contains(folder));
        if self.changes_anything()
            && let Err(error) = state.save(environment)
        {
            problems.push(Problem {
                scope: "obsmcp".to_owned(),
                message: error.to_string(),
                hint: None,
            });
        }
        problems
    }

    /// Moves each moved vault's backups to its new place, and deletes the saved index named after its old one.
    fn carry_moved_vaults(&self, state_home: &Path) {
        for moved in &self.moves {
            moves::move_backups(state_home, &moved.from, &moved.to);
            let config_dir = self
                .vaults
                .iter()
                .find(|vault| vault.path == moved.to)
                .map_or(
                    crate::obsidian_files::plugin_data::DEFAULT_CONFIG_DIR,
                    |vault| &vault.config_dir,
                );
            // A cache named after the old place: the bridge builds one for the new place.
            for index in
                saved_index::files(&saved_index::folder(state_home), &moved.from, config_dir)
            {
                let _ = std::fs::remove_file(index);
            }
        }
    }
}

/// Keeps the record of a vault no client could be registered for as it was before this run (its plugin was not
/// installed), and says so.
fn keep_unserved_record(state: &mut State, original: &State, vault: &VaultPlan) -> Problem {
    match original.vaults.get(&vault.path) {
        Some(config_dir) => state.vaults.insert(vault.path.clone(), config_dir.clone()),
        None => state.vaults.remove(&vault.path),
    };
    match original.identities.get(&vault.path) {
        Some(identity) => state
            .identities
            .insert(vault.path.clone(), identity.clone()),
        None => state.identities.remove(&vault.path),
    };
    Problem {
        scope: format!("vault {}", vault.name),
        message: "the plugin was not installed: no client could be registered for this vault"
            .to_owned(),
        hint: Some("fix the client problems above, then run setup again".to_owned()),
    }
}

/// Plans setup. Per-client and per-vault failures become [`Problem`]s; the rest is planned.
pub fn plan(request: &SetupRequest<'_>, decisions: &mut dyn Decisions) -> SetupPlan {
    let mut plan = SetupPlan {
        vaults: Vec::new(),
        items: Vec::new(),
        files: Vec::new(),
        notes: Vec::new(),
        problems: Vec::new(),
        state: State::load(request.environment),
        created_dirs: Vec::new(),
        needs: Vec::new(),
        moves: Vec::new(),
    };
    let mut edits = Edits::default();
    let mut client_files = read_clients(request, &mut plan);
    let mut taken_ports = ports_in_use_by_other_vaults(request);
    let mut taken_names = BTreeSet::new();
    let vaults = follow_moves(request, decisions, &mut plan);
    let (registered, _) = registry::discover(request.environment);

    for vault in &vaults {
        let scope = format!("vault {}", registry::vault_name(&vault.path));
        let Some(port) = plan_plugin(
            request,
            vault,
            &scope,
            &mut taken_ports,
            &mut edits,
            &mut plan,
        ) else {
            continue;
        };
        let server_name = choose_name(
            request,
            vault,
            &client_files,
            &mut taken_names,
            decisions,
            &mut plan,
        );
        for client_file in &mut client_files {
            plan_entry(
                request,
                vault,
                client_file,
                &server_name,
                &mut edits,
                &mut plan.notes,
            );
            permission_rules_need_entry(request, client_file, &mut plan);
        }
        repoint_broken_entries(request, vault, &mut edits, &mut plan.notes);
        let identity = plan.state.identities.entry(vault.path.clone()).or_default();
        identity.obsidian_id = registered
            .iter()
            .find(|known| write::same_path(&known.path, &vault.path))
            .map(|known| known.id.clone());
        plan.vaults.push(VaultPlan {
            name: registry::vault_name(&vault.path),
            path: vault.path.clone(),
            config_dir: vault.config_dir.clone(),
            config_dir_source: vault.config_dir_source,
            open: vault.open,
            port,
            server_name,
        });
        plan.state
            .vaults
            .insert(vault.path.clone(), vault.config_dir.clone());
    }
    name_dead_entries(request, &plan.moves, &mut plan.notes);
    if request.skill && !plan.vaults.is_empty() {
        plan_skills(request, &client_files, &mut edits);
    }
    edits.finish(&mut plan, &request.environment.state_home());
    // A client's skill is listed with its entries, after them.
    let skills: Vec<Item> = plan
        .items
        .extract_if(.., |item| item.subject.starts_with("skill `"))
        .collect();
    describe_client_items(request, &client_files, &mut plan);
    list_after_own_client(skills, &mut plan.items);
    plan
}

/// Records that the client's permission rules need its entry written first (Claude Code's settings beside its
/// config), when setup adds rules for it.
fn permission_rules_need_entry(
    request: &SetupRequest<'_>,
    client_file: &ClientFile,
    plan: &mut SetupPlan,
) {
    if let Some(permissions) = client_file
        .client
        .permissions
        .as_ref()
        .filter(|_| request.permissions)
    {
        let settings = write::resolve(&(permissions.locate)(request.environment));
        let need = (settings, client_file.path.clone());
        if !plan.needs.contains(&need) {
            plan.needs.push(need);
        }
    }
}

/// Plans the companion skill into the skills folder of each client that has one.
fn plan_skills(request: &SetupRequest<'_>, client_files: &[ClientFile], edits: &mut Edits) {
    for client_file in client_files {
        let client = client_file.client;
        if let Some(path) = skill::file(client, request.environment) {
            edits.replace(
                &write::resolve(&path),
                skill::TEXT.as_bytes(),
                None,
                client.name,
                &format!("skill `{}` ({})", skill::NAME, path.display()),
            );
        }
    }
}

/// Puts each item after the last item of its own scope (its client), or at the end.
fn list_after_own_client(items: Vec<Item>, listed: &mut Vec<Item>) {
    for item in items {
        let at = listed
            .iter()
            .rposition(|other| other.scope == item.scope)
            .map_or(listed.len(), |last| last + 1);
        listed.insert(at, item);
    }
}

/// The vaults to set up, each with the places it was set up at before when it moved or was renamed since: found
/// from what setup recorded, or, for a vault setup did not know, asked. Each move is noted and the record follows it.
fn follow_moves(
    request: &SetupRequest<'_>,
    decisions: &mut dyn Decisions,
    plan: &mut SetupPlan,
) -> Vec<VaultTarget> {
    let candidates: Vec<(PathBuf, String)> = request
        .vaults
        .iter()
        .map(|vault| (vault.path.clone(), vault.config_dir.clone()))
        .collect();
    let mut found = moves::find(request.environment, &plan.state, &candidates);
    for gone in moves::gone_places(request.environment, &plan.state) {
        if found.iter().any(|moved| moved.from == gone) {
            continue;
        }
        let unknown = request.vaults.iter().find(|vault| {
            !plan.state.vaults.contains_key(&vault.path)
                && !found.iter().any(|moved| moved.to == vault.path)
                && decisions.same_vault(&gone, &vault.path)
        });
        if let Some(vault) = unknown {
            found.push(Move {
                from: gone,
                to: vault.path.clone(),
                by: "your answer",
            });
        }
    }
    for moved in &found {
        plan.notes.push(Note {
            scope: format!("vault {}", registry::vault_name(&moved.to)),
            message: format!(
                "{}: its entries follow it under their names",
                moved.describe()
            ),
        });
        plan.state.move_vault(&moved.from, &moved.to);
    }
    let vaults = request
        .vaults
        .iter()
        .map(|vault| VaultTarget {
            moved_from: found
                .iter()
                .filter(|moved| moved.to == vault.path)
                .map(|moved| moved.from.clone())
                .collect(),
            ..vault.clone()
        })
        .collect();
    plan.moves = found;
    vaults
}

/// Names obsmcp's entries for vaults that are gone and were not found elsewhere, with the commands that mend them.
fn name_dead_entries(request: &SetupRequest<'_>, found: &[Move], notes: &mut Vec<Note>) {
    let served = crate::clients::served_vaults(request.environment, |_| true);
    for (vault, clients) in served {
        if !vault.is_absolute()
            || vault.is_dir()
            || found
                .iter()
                .any(|moved| write::same_path(&moved.from, &vault))
        {
            continue;
        }
        notes.push(Note {
            scope: clients.join(", "),
            message: format!(
                "an obsmcp entry serves `{}`, which is gone: if that vault moved, `obsmcp setup --vault <its new folder>` \
                 re-points it; if it is gone for good, `obsmcp uninstall --vault {}` removes it",
                vault.display(),
                crate::environment::shell_quote(&vault.to_string_lossy())
            ),
        });
    }
}

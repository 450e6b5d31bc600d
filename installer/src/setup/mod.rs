//! Planning `obsmcp setup`: for each vault the plugin files, `data.json` (port and token kept, gaps filled) and its
//! enablement; one server name per vault, the same in every client; for each client the entry and, for Claude Code,
//! the permission rules. An entry obsmcp already has for the vault is brought up to date key by key (command,
//! arguments, transport), so whatever the user added to it survives; another program's entry is replaced whole,
//! and only with consent. Nothing is written here: the result is a [`SetupPlan`] that the command shows, confirms and
//! applies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use crate::clients::skill;
use crate::clients::template::Template;
use crate::clients::{ClientSpec, EntryKind, describe_entry, read_servers};
use crate::document::{self, KeyPath, Operation, key_path};
use crate::environment::Environment;
use crate::obsidian::plugin::{self, PluginBundle};
use crate::obsidian::plugin_data::{self, DEFAULT_CONFIG_DIR, DEFAULT_PORT};
use crate::obsidian::registry::{self, ConfigDirSource};
use crate::plan::state::State;
use crate::plan::write;
use crate::plan::{Change, FileChange, Item, Note, PlanFileError, Problem, TextEdit, change_of};

/// The server name of the first vault; further vaults get `obsidian-<vault slug>`.
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
}

impl SetupPlan {
    /// Whether applying changes any byte.
    pub fn changes_anything(&self) -> bool {
        self.files.iter().any(FileChange::is_change)
    }

    /// Writes every planned change and saves the record; failures are returned after everything else was done.
    pub fn apply(&self, environment: &Environment) -> Vec<Problem> {
        let mut problems = Vec::new();
        let original = State::load(environment);
        let mut state = self.state.clone();
        // Backups go under the state folder before the record is first saved: the folders they make are obsmcp's too.
        state.claim_own_dirs(environment);
        let vault_of = |change: &FileChange| {
            self.vaults
                .iter()
                .find(|vault| change.path.starts_with(vault.path.join(&vault.config_dir)))
        };
        let mut failed: Vec<PathBuf> = Vec::new();
        let mut write = |change: &FileChange, state: &mut State, problems: &mut Vec<Problem>| {
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
            write(change, &mut state, &mut problems);
        }
        // Only when a client's write failed can a vault be left without an entry; the configs then say which.
        let served =
            (!problems.is_empty()).then(|| crate::clients::served_vaults(environment, |_| true));
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
                write(change, &mut state, &mut problems);
                continue;
            }
            state.keep_file_as_in(&original, &change.path);
            if !unserved.iter().any(|known| known.path == vault.path) {
                unserved.push(vault);
            }
        }
        for vault in unserved {
            match original.vaults.get(&vault.path) {
                Some(config_dir) => state.vaults.insert(vault.path.clone(), config_dir.clone()),
                None => state.vaults.remove(&vault.path),
            };
            problems.push(Problem {
                scope: format!("vault {}", vault.name),
                message:
                    "the plugin was not installed: no client could be registered for this vault"
                        .to_owned(),
                hint: Some("fix the client problems above, then run setup again".to_owned()),
            });
        }
        // Folders the plan expected to create but a skipped or failed write never did are not obsmcp's.
        state.created_dirs.retain(|folder| folder.exists());
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
}

/// One client's current file, read once.
struct ClientFile {
    client: &'static ClientSpec,
    path: PathBuf,
    servers: serde_json::Map<String, Value>,
}

/// What a server name holds in one client, relative to a vault.
enum Slot {
    Free,
    Ours,
    /// obsmcp's entry for this vault, running another copy of obsmcp (an installed, moved or older binary): still
    /// ours, re-pointed in place at this binary.
    OursElsewhere {
        command: String,
    },
    /// obsmcp's entry for another vault, whatever binary it runs: that vault's name, never taken.
    OtherVault,
    Foreign(String),
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
    };
    let mut edits = Edits::default();
    let client_files = read_clients(request, &mut plan);
    let mut taken_ports = ports_in_use_by_other_vaults(request);
    let mut taken_names = BTreeSet::new();

    for vault in &request.vaults {
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
        for client_file in &client_files {
            plan_entry(
                request,
                vault,
                client_file,
                &server_name,
                &mut edits,
                &mut plan.notes,
            );
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
        repoint_broken_entries(request, vault, &mut edits, &mut plan.notes);
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
    if request.skill && !plan.vaults.is_empty() {
        for client_file in &client_files {
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
    edits.finish(&mut plan, &request.environment.state_home());
    // A client's skill is listed with its entries, after them.
    let skills: Vec<Item> = plan
        .items
        .extract_if(.., |item| item.subject.starts_with("skill `"))
        .collect();
    describe_client_items(request, &client_files, &mut plan);
    for item in skills {
        let at = plan
            .items
            .iter()
            .rposition(|other| other.scope == item.scope)
            .map_or(plan.items.len(), |last| last + 1);
        plan.items.insert(at, item);
    }
    plan
}

/// obsmcp's entries for `vault` in the clients not being set up, whose binary is gone (moved, deleted, `cargo clean`):
/// re-pointed at this binary, since nothing else can make them work again. Entries whose binary still exists are
/// left to the user's choice of clients; a file that cannot be read or parsed is left alone.
fn repoint_broken_entries(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    edits: &mut Edits,
    notes: &mut Vec<Note>,
) {
    let chosen = |client: &ClientSpec| request.clients.iter().any(|wanted| wanted.id == client.id);
    for client in crate::clients::CLIENTS
        .iter()
        .filter(|client| !chosen(client))
    {
        let location = client.locate(request.environment);
        let path = write::resolve(&location.config);
        let Ok(Some(text)) = write::read_text(&path) else {
            continue;
        };
        let Ok(servers) = read_servers(client, &text) else {
            continue;
        };
        for (name, entry) in &servers {
            let EntryKind::Obsmcp {
                command,
                vault: Some(entry_vault),
                read_only,
                ..
            } = describe_entry(client, entry)
            else {
                continue;
            };
            if !write::same_path(&entry_vault, &vault.path) || Path::new(&command).is_file() {
                continue;
            }
            notes.push(Note {
                scope: client.name.to_owned(),
                message: format!(
                    "re-pointed `{name}` from `{command}`, which is gone, to `{}`",
                    request.binary.display()
                ),
            });
            // Only the binary changes: the entry keeps its own `--read-only`, whatever this run was asked.
            let wanted = bridge_entry(
                client,
                &request.binary,
                &vault.path,
                &vault.config_dir,
                read_only,
            );
            for operation in update_own_entry(client, &client.entry_path(name), &wanted) {
                edits.add_operation(
                    &path,
                    client.format,
                    operation,
                    client.claude_lock,
                    client.new_file_mode,
                    vec![client.servers_path()],
                );
            }
        }
    }
}

fn read_clients(request: &SetupRequest<'_>, plan: &mut SetupPlan) -> Vec<ClientFile> {
    let mut found = Vec::new();
    for client in &request.clients {
        let location = client.locate(request.environment);
        if let Some(problem) = location.problem {
            plan.problems.push(Problem {
                scope: client.name.to_owned(),
                message: problem,
                hint: None,
            });
            continue;
        }
        let path = write::resolve(&location.config);
        let text = match write::read_text(&path) {
            Ok(text) => text.unwrap_or_default(),
            Err(error) => {
                plan.problems.push(Problem {
                    scope: client.name.to_owned(),
                    message: error.to_string(),
                    hint: None,
                });
                continue;
            }
        };
        match read_servers(client, &text) {
            Ok(servers) => found.push(ClientFile {
                client,
                path,
                servers,
            }),
            Err(error) => plan.problems.push(Problem {
                scope: client.name.to_owned(),
                message: format!("`{}` was left untouched: {error}", path.display()),
                hint: Some(format!(
                    "fix the file, or leave {} out with --client",
                    client.name
                )),
            }),
        }
    }
    found
}

/// Ports the plugin of every other known vault already uses.
fn ports_in_use_by_other_vaults(request: &SetupRequest<'_>) -> BTreeSet<u16> {
    let (registered, _) = registry::discover(request.environment);
    let known: BTreeMap<PathBuf, String> = registered
        .into_iter()
        .map(|vault| {
            (
                vault.path.clone(),
                registry::config_dir(&vault.path, None).0,
            )
        })
        .collect();
    known
        .iter()
        .filter(|(path, _)| !request.vaults.iter().any(|target| &target.path == *path))
        .filter_map(|(path, config_dir)| {
            plugin_data::read(path, config_dir)
                .ok()
                .map(|data| data.port)
        })
        .collect()
}

/// Plans the plugin files, `data.json` and enablement of one vault; returns its port.
fn plan_plugin(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    scope: &str,
    taken_ports: &mut BTreeSet<u16>,
    edits: &mut Edits,
    plan: &mut SetupPlan,
) -> Option<u16> {
    let folder = plugin::folder(&vault.path, &vault.config_dir);
    let data_path = plugin_data::data_json_path(&vault.path, &vault.config_dir);
    let existing_text = match write::read_text(&data_path) {
        Ok(text) => text,
        Err(error) => {
            plan.problems.push(Problem {
                scope: scope.to_owned(),
                message: error.to_string(),
                hint: None,
            });
            return None;
        }
    };
    let existing = match existing_text
        .as_deref()
        .map(|text| document::read_value(plugin::OBSIDIAN_FORMAT, text))
    {
        None => Value::Null,
        Some(Ok(value)) if value.is_object() || value.is_null() => value,
        Some(Ok(_)) | Some(Err(_)) => {
            plan.problems.push(Problem {
                scope: scope.to_owned(),
                message: format!(
                    "`{}` is not the JSON object the plugin writes; it was left untouched",
                    data_path.display()
                ),
                hint: Some(
                    "fix or delete the file, then run setup again (deleting it means a new token)"
                        .to_owned(),
                ),
            });
            return None;
        }
    };
    let port = match existing
        .get("port")
        .and_then(Value::as_u64)
        .and_then(|port| u16::try_from(port).ok())
    {
        Some(port) => port,
        None => free_port(request, taken_ports),
    };
    taken_ports.insert(port);
    let token = existing
        .get("token")
        .and_then(Value::as_str)
        .filter(|token| !token.is_empty())
        .map_or_else(plugin::new_token, str::to_owned);
    let mut initial = Template::parse(request.data_template).render(&BTreeMap::from([
        ("port", json!(port)),
        ("token", json!(token)),
    ]));
    let hidden = hidden_path_operations(request, &existing, &data_path, scope, plan)?;
    if existing_text.is_none()
        && let Some(fields) = initial.as_object_mut()
    {
        if !request.hide.is_empty() {
            fields.insert(plugin_data::HIDDEN_PATHS_KEY.into(), json!(request.hide));
        }
        if request.hide_excluded_files {
            fields.insert(plugin_data::HIDE_EXCLUDED_FILES_KEY.into(), json!(true));
        }
    }

    for (name, bytes) in request.bundle.files() {
        edits.replace(
            &folder.join(name),
            bytes,
            None,
            scope,
            &format!("plugin {name}"),
        );
    }
    let mut operations = plugin::data_operations(&existing, &initial);
    operations.extend(hidden);
    let data_edit = TextEdit {
        format: plugin::OBSIDIAN_FORMAT,
        operations,
        remove_if_empty: false,
    };
    if existing_text.is_some() {
        edits.edit(&data_path, data_edit, scope, "data.json (port and token)");
    } else {
        let text = serde_json::to_string_pretty(&initial).expect("data.json serialises") + "\n";
        // The token is a secret: a new data.json is private to its owner.
        edits.replace(
            &data_path,
            text.as_bytes(),
            Some(0o600),
            scope,
            "data.json (port and token)",
        );
    }
    let community = plugin::community_plugins_path(&vault.path, &vault.config_dir);
    let enable = TextEdit {
        format: plugin::OBSIDIAN_FORMAT,
        operations: vec![plugin::enable_operation()],
        remove_if_empty: false,
    };
    edits.edit(
        &community,
        enable,
        scope,
        "enabled in community-plugins.json",
    );

    for older in plugin::older_plugins(&vault.path, &vault.config_dir) {
        plan.notes.push(Note {
            scope: scope.to_owned(),
            message: format!(
                "the older `{older}` plugin is installed here (port 22360); obsmcp replaces it, so you can disable it in \
                 Obsidian → Settings → Community plugins"
            ),
        });
    }
    if vault.config_dir_source == ConfigDirSource::Created {
        plan.notes.push(Note {
            scope: scope.to_owned(),
            message: format!("no Obsidian config folder was found; `{DEFAULT_CONFIG_DIR}` will be created (open the folder as a vault in Obsidian)"),
        });
    }
    Some(port)
}

/// The edits of an existing `data.json` that add `--hide` rules (each once, after the user's own) and turn on
/// `--hide-excluded-files`. `None`, with a problem, when the stored rules are not a list setup can add to: the vault is
/// then left alone rather than served without the rules the user asked for.
fn hidden_path_operations(
    request: &SetupRequest<'_>,
    existing: &Value,
    data_path: &Path,
    scope: &str,
    plan: &mut SetupPlan,
) -> Option<Vec<Operation>> {
    let mut operations = Vec::new();
    if existing.is_null() {
        return Some(operations);
    }
    if !request.hide.is_empty() {
        match existing.get(plugin_data::HIDDEN_PATHS_KEY) {
            None | Some(Value::Array(_)) => operations.push(Operation::AddToArray {
                path: key_path(&[plugin_data::HIDDEN_PATHS_KEY]),
                items: request.hide.clone(),
            }),
            Some(_) => {
                plan.problems.push(Problem {
                    scope: scope.to_owned(),
                    message: format!(
                        "`{}` holds `{}` in a form setup cannot add to (not a list); nothing was changed in this vault",
                        data_path.display(),
                        plugin_data::HIDDEN_PATHS_KEY
                    ),
                    hint: Some("add the rules in Obsidian: Settings → obsmcp → Hidden paths".to_owned()),
                });
                return None;
            }
        }
    }
    if request.hide_excluded_files {
        operations.push(Operation::Replace {
            path: key_path(&[plugin_data::HIDE_EXCLUDED_FILES_KEY]),
            value: json!(true),
        });
    }
    Some(operations)
}

fn free_port(request: &SetupRequest<'_>, taken: &BTreeSet<u16>) -> u16 {
    (DEFAULT_PORT..u16::MAX)
        .find(|port| {
            !RESERVED_PORTS.contains(port) && !taken.contains(port) && (request.port_is_free)(*port)
        })
        .unwrap_or(DEFAULT_PORT)
}

/// The entry a client gets for a vault.
fn entry_for(request: &SetupRequest<'_>, vault: &VaultTarget, client: &ClientSpec) -> Value {
    bridge_entry(
        client,
        &request.binary,
        &vault.path,
        &vault.config_dir,
        request.read_only,
    )
}

/// The entry `client` gets to run the bridge for a vault: `obsmcp bridge --vault PATH`, plus `--config-dir NAME`
/// when it is not `.obsidian` and `--read-only` when asked, in the shape of the client's template.
pub fn bridge_entry(
    client: &ClientSpec,
    binary: &Path,
    vault: &Path,
    config_dir: &str,
    read_only: bool,
) -> Value {
    let mut args = vec![
        json!("bridge"),
        json!("--vault"),
        json!(vault.to_string_lossy()),
    ];
    if config_dir != DEFAULT_CONFIG_DIR {
        args.extend([json!("--config-dir"), json!(config_dir)]);
    }
    if read_only {
        args.push(json!("--read-only"));
    }
    let values = BTreeMap::from([
        ("command", json!(binary.to_string_lossy())),
        ("args", Value::Array(args)),
    ]);
    client.template().render(&values)
}

fn slot(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    client_file: &ClientFile,
    name: &str,
) -> Slot {
    let Some(entry) = client_file.servers.get(name) else {
        return Slot::Free;
    };
    match describe_entry(client_file.client, entry) {
        EntryKind::Obsmcp {
            command,
            vault: Some(entry_vault),
            ..
        } if write::same_path(&entry_vault, &vault.path) => {
            if write::same_path(Path::new(&command), &request.binary) {
                Slot::Ours
            } else {
                Slot::OursElsewhere { command }
            }
        }
        EntryKind::Obsmcp { vault: Some(_), .. } => Slot::OtherVault,
        EntryKind::Obsmcp { command, .. } => {
            Slot::Foreign(format!("obsmcp (`{command}`) with another upstream"))
        }
        EntryKind::Other { description } => Slot::Foreign(format!("`{description}`")),
    }
}

/// One name per vault, free (or already ours) in every client; a foreign entry is replaced only with consent.
fn choose_name(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    client_files: &[ClientFile],
    taken: &mut BTreeSet<String>,
    decisions: &mut dyn Decisions,
    plan: &mut SetupPlan,
) -> String {
    let slug = registry::slug(&registry::vault_name(&vault.path));
    // The vault's own entries, whatever copy of obsmcp they run, keep their name: those already running this binary
    // first, then the others in the order the clients list them.
    let own = |wanted: fn(&Slot) -> bool| -> Vec<String> {
        client_files
            .iter()
            .flat_map(|file| {
                file.servers
                    .keys()
                    .filter(|name| wanted(&slot(request, vault, file, name)))
                    .cloned()
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let mut existing = own(|slot| matches!(slot, Slot::Ours));
    existing.extend(own(|slot| matches!(slot, Slot::OursElsewhere { .. })));
    let defaults = [SERVER_NAME.to_owned(), format!("{SERVER_NAME}-{slug}")].into_iter();
    let numbered = (2..).map(|number| format!("{SERVER_NAME}-{slug}-{number}"));
    let mut declined: Vec<(String, String, String)> = Vec::new();
    for name in existing.into_iter().chain(defaults).chain(numbered) {
        if taken.contains(&name) {
            continue;
        }
        let slots: Vec<(&ClientFile, Slot)> = client_files
            .iter()
            .map(|file| (file, slot(request, vault, file, &name)))
            .collect();
        if slots
            .iter()
            .any(|(_, slot)| matches!(slot, Slot::OtherVault))
        {
            continue;
        }
        let mut accepted = true;
        for (file, slot) in &slots {
            if let Slot::Foreign(description) = slot {
                plan.notes.push(Note {
                    scope: file.client.name.to_owned(),
                    message: format!("the server `{name}` already runs {description}"),
                });
                if !decisions.replace_existing(file.client, &name, description) {
                    accepted = false;
                    declined.push((
                        file.client.name.to_owned(),
                        name.clone(),
                        description.clone(),
                    ));
                    break;
                }
            }
        }
        if accepted {
            for (client, old_name, _) in &declined {
                plan.notes.push(Note {
                    scope: client.clone(),
                    message: format!("kept the existing `{old_name}` and used `{name}` instead (--replace-existing replaces it)"),
                });
            }
            taken.insert(name.clone());
            return name;
        }
    }
    unreachable!("numbered names never run out")
}

fn plan_entry(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    client_file: &ClientFile,
    name: &str,
    edits: &mut Edits,
    notes: &mut Vec<Note>,
) {
    let client = client_file.client;
    let entry = entry_for(request, vault, client);
    let path = client.entry_path(name);
    let mut operations = match slot(request, vault, client_file, name) {
        Slot::Ours => update_own_entry(client, &path, &entry),
        Slot::OursElsewhere { command } => {
            notes.push(Note {
                scope: client.name.to_owned(),
                message: format!(
                    "re-pointed `{name}` from `{command}` to `{}`",
                    request.binary.display()
                ),
            });
            update_own_entry(client, &path, &entry)
        }
        // Nothing of another program's entry is kept, not even its `env`: the older Node bridge's entry sets
        // `OBSIDIAN_MCP_URL`, which `obsmcp bridge` also reads and, beside `--vault`, refuses to start with.
        Slot::Foreign(_) => vec![Operation::Replace {
            path: path.clone(),
            value: entry,
        }],
        Slot::Free | Slot::OtherVault => vec![Operation::Merge {
            path: path.clone(),
            value: entry,
        }],
    };
    if request.always_load && client.id == "claude-code" {
        operations.push(Operation::Replace {
            path: path
                .iter()
                .cloned()
                .chain([ALWAYS_LOAD_KEY.to_owned()])
                .collect(),
            value: json!(true),
        });
    }
    // One entry per vault: a second one (an older setup's, under another name) is removed, or agents see every tool
    // twice.
    for other in client_file.servers.keys().filter(|other| *other != name) {
        if matches!(
            slot(request, vault, client_file, other),
            Slot::Ours | Slot::OursElsewhere { .. }
        ) {
            notes.push(Note {
                scope: client.name.to_owned(),
                message: format!(
                    "removed `{other}`, a second entry for this vault (`{name}` serves it)"
                ),
            });
            operations.push(Operation::Remove {
                path: client.entry_path(other),
            });
        }
    }
    for operation in operations {
        edits.add_operation(
            &client_file.path,
            client.format,
            operation,
            client.claude_lock,
            client.new_file_mode,
            vec![client.servers_path()],
        );
    }
    if let Some(permissions) = client.permissions.as_ref().filter(|_| request.permissions) {
        let settings = write::resolve(&(permissions.locate)(request.environment));
        let rules = request
            .read_only_tools
            .iter()
            .map(|tool| permissions.rule(name, tool))
            .collect();
        let allow: KeyPath = permissions
            .allow_key
            .iter()
            .map(|key| (*key).to_owned())
            .collect();
        let containers = (1..=allow.len())
            .map(|depth| allow[..depth].to_vec())
            .collect();
        edits.add_operation(
            &settings,
            document::Format::Json,
            Operation::AddToArray {
                path: allow,
                items: rules,
            },
            false,
            None,
            containers,
        );
    }
}

/// The key that names the transport (`stdio`, `local`) in the templates of clients that need one.
const TRANSPORT_KEY: &str = "type";

/// Brings obsmcp's existing entry at `path` up to date by setting only the keys obsmcp owns: the command, its
/// arguments and the transport. Everything else in the entry is the user's (`env`, timeouts, tool filters, a
/// disabled flag, comments) and stays as written; a value already right is not even reassigned, since some editors
/// drop the comment on a line they rewrite.
/// Claude Code's entry key that keeps a server's tools out of tool search's deferral.
const ALWAYS_LOAD_KEY: &str = "alwaysLoad";

fn update_own_entry(client: &ClientSpec, path: &[String], entry: &Value) -> Vec<Operation> {
    let template = client.template();
    let mut owned = template.keys_with_placeholders();
    owned.push(TRANSPORT_KEY);
    entry
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| owned.contains(&key.as_str()))
        .map(|(key, value)| Operation::Replace {
            path: path.iter().cloned().chain([key.clone()]).collect(),
            value: value.clone(),
        })
        .collect()
}

/// Reports one item per client entry and per permission set, from the planned files.
fn describe_client_items(
    request: &SetupRequest<'_>,
    client_files: &[ClientFile],
    plan: &mut SetupPlan,
) {
    let mut items = Vec::new();
    for client_file in client_files {
        let client = client_file.client;
        let Some(change) = plan
            .files
            .iter()
            .find(|change| change.path == client_file.path)
        else {
            continue;
        };
        let (before, after) = change.values();
        for vault in &plan.vaults {
            let path = client.entry_path(&vault.server_name);
            items.push(Item {
                scope: client.name.to_owned(),
                subject: format!("server `{}` → vault {}", vault.server_name, vault.name),
                change: change_of(
                    document::lookup(&before, &path),
                    document::lookup(&after, &path),
                ),
                path: client_file.path.clone(),
            });
        }
        if let Some(permissions) = client.permissions.as_ref().filter(|_| request.permissions) {
            let settings = write::resolve(&(permissions.locate)(request.environment));
            if let Some(change) = plan.files.iter().find(|change| change.path == settings) {
                let state = if !change.is_change() {
                    Change::Unchanged
                } else if change.before.is_none() {
                    Change::Added
                } else {
                    Change::Updated
                };
                items.push(Item {
                    scope: client.name.to_owned(),
                    subject: format!(
                        "permission rules pre-approving {} read-only tools (settings.json)",
                        request.read_only_tools.len()
                    ),
                    change: state,
                    path: settings,
                });
            }
        }
    }
    plan.items.extend(items);
}

/// Edits gathered per file, so several vaults' entries in one client file become one write.
#[derive(Default)]
struct Edits {
    pending: Vec<Pending>,
}

struct Pending {
    path: PathBuf,
    kind: PendingKind,
    claude_lock: bool,
    new_mode: Option<u32>,
    containers: Vec<KeyPath>,
    item: Option<(String, String)>,
    /// A file inside a vault: its backup goes to obsmcp's state folder, not beside it.
    vault_file: bool,
}

enum PendingKind {
    Document(TextEdit),
    Bytes(Vec<u8>),
}

impl Edits {
    fn add_operation(
        &mut self,
        path: &Path,
        format: document::Format,
        operation: Operation,
        claude_lock: bool,
        new_mode: Option<u32>,
        containers: Vec<KeyPath>,
    ) {
        if let Some(pending) = self.pending.iter_mut().find(|pending| pending.path == path)
            && let PendingKind::Document(edit) = &mut pending.kind
        {
            edit.operations.push(operation);
            return;
        }
        self.pending.push(Pending {
            path: path.to_owned(),
            kind: PendingKind::Document(TextEdit {
                format,
                operations: vec![operation],
                remove_if_empty: false,
            }),
            claude_lock,
            new_mode,
            containers,
            item: None,
            vault_file: false,
        });
    }

    fn edit(&mut self, path: &Path, edit: TextEdit, scope: &str, subject: &str) {
        self.pending.push(Pending {
            path: path.to_owned(),
            kind: PendingKind::Document(edit),
            claude_lock: false,
            new_mode: None,
            containers: Vec::new(),
            item: Some((scope.to_owned(), subject.to_owned())),
            vault_file: true,
        });
    }

    fn replace(
        &mut self,
        path: &Path,
        bytes: &[u8],
        new_mode: Option<u32>,
        scope: &str,
        subject: &str,
    ) {
        self.pending.push(Pending {
            path: path.to_owned(),
            kind: PendingKind::Bytes(bytes.to_vec()),
            claude_lock: false,
            new_mode,
            containers: Vec::new(),
            item: Some((scope.to_owned(), subject.to_owned())),
            vault_file: true,
        });
    }

    /// Plans every file, records what it creates, and refuses read-only or unparseable files.
    fn finish(self, plan: &mut SetupPlan, state_home: &Path) {
        for pending in self.pending {
            let planned = match pending.kind {
                PendingKind::Document(edit) => {
                    FileChange::planned(&pending.path, edit, pending.claude_lock, pending.new_mode)
                }
                PendingKind::Bytes(bytes) => FileChange::replace(&pending.path, Some(&bytes))
                    .and_then(FileChange::writable)
                    .map(|change| FileChange {
                        new_mode: pending.new_mode,
                        ..change
                    }),
            };
            let planned = planned.map(|change| match pending.vault_file {
                true => FileChange {
                    backup: write::vault_backup_path(state_home, &change.path),
                    ..change
                },
                false => change,
            });
            let change = match planned {
                Ok(change) => change,
                Err(error) => {
                    let scope = pending
                        .item
                        .as_ref()
                        .map_or_else(|| scope_of(&pending.path), |(scope, _)| scope.clone());
                    plan.problems.push(Problem {
                        scope,
                        message: error.to_string(),
                        hint: hint_for(&error),
                    });
                    continue;
                }
            };
            if change.is_change() {
                record_creation(&change, &pending.containers, plan);
            }
            if let Some((scope, subject)) = pending.item {
                let state = match (&change.before, change.is_change()) {
                    (_, false) => Change::Unchanged,
                    (None, true) => Change::Added,
                    (Some(_), true) => Change::Updated,
                };
                plan.items.push(Item {
                    scope,
                    subject,
                    change: state,
                    path: change.path.clone(),
                });
            }
            plan.files.push(change);
        }
    }
}

fn scope_of(path: &Path) -> String {
    path.display().to_string()
}

fn hint_for(error: &PlanFileError) -> Option<String> {
    match error {
        PlanFileError::File(write::FileError::ReadOnly { .. }) => {
            Some("make the file writable, or leave this client out with --client".to_owned())
        }
        PlanFileError::Document {
            source: document::DocumentError::Unsupported { .. },
            ..
        } => Some(
            "add the entry by hand, in the shape README.md shows under \"What each client gets\", or leave this \
             client out with --client"
                .to_owned(),
        ),
        PlanFileError::Document { .. } => {
            Some("fix the file by hand; obsmcp never rewrites a file it cannot parse".to_owned())
        }
        PlanFileError::File(_) => None,
    }
}

fn record_creation(change: &FileChange, containers: &[KeyPath], plan: &mut SetupPlan) {
    if change.before.is_none() {
        plan.state.created_files.insert(change.path.clone());
        let mut folder = change.path.parent();
        while let Some(dir) = folder.filter(|dir| !dir.as_os_str().is_empty() && !dir.exists()) {
            plan.state.created_dirs.insert(dir.to_owned());
            plan.created_dirs.push(dir.to_owned());
            folder = dir.parent();
        }
    }
    let (before, after) = change.values();
    for container in containers {
        if document::lookup(&before, container).is_none()
            && document::lookup(&after, container).is_some()
        {
            plan.state
                .created_containers
                .entry(change.path.clone())
                .or_default()
                .insert(container.clone());
        }
    }
}

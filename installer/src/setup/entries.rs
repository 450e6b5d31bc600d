//! Setup's plan for the clients' entries: one server name for the vaults, the same in every client (`obsidian` shared
//! by every vault alike, `layout.rs`; a name obsmcp already uses for the vault is kept; another program's entry is
//! replaced only with consent); each entry written from the client's template, or, when it is already obsmcp's,
//! brought up to date key by key so that what the user added survives; the entries it takes in or splits off; a
//! second entry for the same vault removed, with its permission rules; and Claude Code's permission rules. Entries in
//! the clients not being set up are `repoint.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::client_files::ClientFile;
use super::edits::Edits;
use super::layout::{self, EntryLayout};
use super::{Decisions, SERVER_NAME, SetupPlan, SetupRequest, VaultTarget};
use crate::clients::{ClientSpec, EntryKind, describe_entry};
use crate::document::{self, Operation};
use crate::obsidian_files::plugin_data::DEFAULT_CONFIG_DIR;
use crate::obsidian_files::registry;
use crate::plan::Note;
use crate::plan::write;

/// What a server name holds in one client, relative to a vault.
enum Slot {
    Free,
    Ours,
    /// obsmcp's entry for this vault, running another copy of obsmcp (an installed, moved or older binary): still
    /// ours, re-pointed in place at this binary.
    OursElsewhere {
        command: String,
    },
    /// obsmcp's entry for this vault at a place it has since left (a move or a rename): still ours, re-pointed in
    /// place at the vault's new place.
    OursMoved {
        from: PathBuf,
    },
    /// obsmcp's entry for other vaults alike, which this vault joins (`layout.rs`).
    Joinable,
    /// obsmcp's entry for other vaults, whatever binary it runs: their name, never taken.
    OtherVault,
    Foreign(String),
}

/// Whether `place` is where `vault` was set up before it moved or was renamed.
pub(super) fn is_former_place(vault: &VaultTarget, place: &Path) -> bool {
    vault
        .moved_from
        .iter()
        .any(|former| write::same_path(former, place))
}

/// The entry a client gets for a vault: its vaults (`layout::vaults_of_entry`: those of obsmcp's entry there,
/// `existing`, with this one, and those of the entries it takes in). Its `--tools`: what `existing` says, if it says it
/// (or says nothing, in a repair); else `all` for a client with a tool search, else the bridge's default.
fn entry_for(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    client: &ClientSpec,
    existing: Option<&Value>,
    taken_in: &[PathBuf],
) -> Value {
    let own_tools = existing.and_then(|entry| match describe_entry(client, entry) {
        EntryKind::Obsmcp { tools, .. } if tools.is_some() || request.keep_tools => Some(tools),
        _ => None,
    });
    let tools = own_tools.unwrap_or_else(|| client.lists_every_tool.then(|| "all".to_owned()));
    let existing_vaults = existing
        .map(|entry| layout::vaults_in(client, entry))
        .unwrap_or_default();
    let vaults = layout::vaults_of_entry(request, vault, &existing_vaults, taken_in);
    bridge_entry(
        client,
        &request.binary,
        &vaults,
        &vault.config_dir,
        request.read_only,
        tools.as_deref(),
    )
}

/// The entry `client` gets to run the bridge for its vaults: `obsmcp bridge --vault PATH` for each, plus
/// `--config-dir NAME` for one vault whose folder is not `.obsidian` (with several, the bridge finds each vault's),
/// `--read-only` when asked and `--tools PROFILE` when given (setup gives `all` to a client with a tool search), in the
/// shape of the client's template.
pub fn bridge_entry(
    client: &ClientSpec,
    binary: &Path,
    vaults: &[PathBuf],
    config_dir: &str,
    read_only: bool,
    tools: Option<&str>,
) -> Value {
    let mut args = vec![json!("bridge")];
    for vault in vaults {
        args.extend([json!("--vault"), json!(vault.to_string_lossy())]);
    }
    if vaults.len() == 1 && config_dir != DEFAULT_CONFIG_DIR {
        args.extend([json!("--config-dir"), json!(config_dir)]);
    }
    if read_only {
        args.push(json!("--read-only"));
    }
    if let Some(tools) = tools {
        args.extend([json!("--tools"), json!(tools)]);
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
    let kind = describe_entry(client_file.client, entry);
    match &kind {
        EntryKind::Obsmcp {
            command, vaults, ..
        } if layout::holds(vaults, &vault.path) => {
            if write::same_path(Path::new(command), &request.binary) {
                Slot::Ours
            } else {
                Slot::OursElsewhere {
                    command: command.clone(),
                }
            }
        }
        EntryKind::Obsmcp { vaults, .. }
            if vaults.iter().any(|place| is_former_place(vault, place)) =>
        {
            let from = vaults
                .iter()
                .find(|place| is_former_place(vault, place))
                .expect("found just above");
            Slot::OursMoved { from: from.clone() }
        }
        EntryKind::Obsmcp { vaults, .. } if !vaults.is_empty() => {
            if layout::may_join(request, vault, &kind) {
                Slot::Joinable
            } else {
                Slot::OtherVault
            }
        }
        EntryKind::Obsmcp { command, .. } => {
            Slot::Foreign(format!("obsmcp (`{command}`) with another upstream"))
        }
        EntryKind::Other { description } => Slot::Foreign(format!("`{description}`")),
    }
}

/// One name per vault, free (or already ours) in every client; a foreign entry is replaced only with consent.
pub(super) fn choose_name(
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
    let shared = request.layout == EntryLayout::Shared;
    // Shared: the one name first, unless another program (or obsmcp's entry of vaults unlike this one) holds it; then
    // the vault's own names, then an entry of vaults alike this one joins.
    let name_is_free_to_share = client_files.iter().all(|file| {
        !matches!(
            slot(request, vault, file, SERVER_NAME),
            Slot::Foreign(_) | Slot::OtherVault
        )
    });
    let mut candidates: Vec<String> = Vec::new();
    if shared && name_is_free_to_share {
        candidates.push(SERVER_NAME.to_owned());
    }
    candidates.extend(own(|slot| matches!(slot, Slot::Ours)));
    candidates.extend(own(|slot| matches!(slot, Slot::OursElsewhere { .. })));
    candidates.extend(own(|slot| matches!(slot, Slot::OursMoved { .. })));
    if shared {
        candidates.extend(own(|slot| matches!(slot, Slot::Joinable)));
    }
    candidates.extend([SERVER_NAME.to_owned(), format!("{SERVER_NAME}-{slug}")]);
    let mut seen = BTreeSet::new();
    candidates.retain(|name| seen.insert(name.clone()));
    let numbered = (2..).map(|number| format!("{SERVER_NAME}-{slug}-{number}"));
    let mut declined: Vec<(String, String, String)> = Vec::new();
    for name in candidates.into_iter().chain(numbered) {
        // A shared name is taken by every vault that joins it; the slots say whether this one may.
        if taken.contains(&name) && !shared {
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

/// Plans obsmcp's entry `name` for `vault` in one client's config: the entry, its always-load key, the entries it
/// takes in (shared layout) or splits off (one per vault), the removal of a second entry for the same vault, and the
/// permission rules. The client's servers as planned are kept in `client_file`, for the next vault to see.
pub(super) fn plan_entry(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    client_file: &mut ClientFile,
    name: &str,
    edits: &mut Edits,
    notes: &mut Vec<Note>,
) {
    let client = client_file.client;
    let path = client.entry_path(name);
    let (taken_in, mut operations) = take_in_or_split(request, vault, client_file, name, notes);
    for removed in operations.iter().filter_map(|operation| match operation {
        Operation::Remove { path } => path.last(),
        _ => None,
    }) {
        plan_permission_rule_removal(request, client, removed, edits);
    }
    let entry = entry_operations(request, vault, client_file, name, &taken_in, notes);
    operations.extend(entry.operations);
    if let Some(key) = client.always_load_key.filter(|_| request.always_load) {
        operations.push(Operation::Replace {
            path: path.iter().cloned().chain([key.to_owned()]).collect(),
            value: json!(true),
        });
    }
    // One entry per vault: a second one (an older setup's, under another name) is removed, or agents see every tool
    // twice.
    for other in other_names(client_file, name) {
        if matches!(
            slot(request, vault, client_file, &other),
            Slot::Ours | Slot::OursElsewhere { .. } | Slot::OursMoved { .. }
        ) {
            notes.push(Note {
                scope: client.name.to_owned(),
                message: format!(
                    "removed `{other}`, a second entry for this vault (`{name}` serves it)"
                ),
            });
            operations.push(Operation::Remove {
                path: client.entry_path(&other),
            });
            client_file.servers.remove(&other);
            plan_permission_rule_removal(request, client, &other, edits);
        }
    }
    client_file.servers.insert(name.to_owned(), entry.planned);
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
    plan_permission_rules(request, client, name, edits);
}

/// The names of the client's servers other than `name`.
fn other_names(client_file: &ClientFile, name: &str) -> Vec<String> {
    client_file
        .servers
        .keys()
        .filter(|other| *other != name)
        .cloned()
        .collect()
}

/// Shared layout: the other entries of vaults alike that the entry `name` takes in (their vaults, and their removal).
/// One per vault: the other vaults of the shared entry `name`, each given an entry of its own. Otherwise nothing.
fn take_in_or_split(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    client_file: &mut ClientFile,
    name: &str,
    notes: &mut Vec<Note>,
) -> (Vec<PathBuf>, Vec<Operation>) {
    let client = client_file.client;
    let mut taken_in = Vec::new();
    let mut operations = Vec::new();
    match request.layout {
        EntryLayout::Shared => {
            for other in other_names(client_file, name) {
                if !matches!(slot(request, vault, client_file, &other), Slot::Joinable) {
                    continue;
                }
                let vaults = layout::vaults_in(client, &client_file.servers[&other]);
                notes.push(Note {
                    scope: client.name.to_owned(),
                    message: format!(
                        "brought `{other}` into `{name}`: one entry serves every vault"
                    ),
                });
                taken_in.extend(vaults);
                operations.push(Operation::Remove {
                    path: client.entry_path(&other),
                });
                client_file.servers.remove(&other);
            }
        }
        EntryLayout::PerVault => {
            let Some(existing) = client_file.servers.get(name) else {
                return (taken_in, operations);
            };
            let EntryKind::Obsmcp {
                vaults,
                read_only,
                tools,
                ..
            } = describe_entry(client, existing)
            else {
                return (taken_in, operations);
            };
            for other in vaults.iter().filter(|place| {
                !write::same_path(place, &vault.path) && !is_former_place(vault, place)
            }) {
                let slug = registry::slug(&registry::vault_name(other));
                let own_name = (1..)
                    .map(|number| match number {
                        1 => format!("{SERVER_NAME}-{slug}"),
                        _ => format!("{SERVER_NAME}-{slug}-{number}"),
                    })
                    .find(|candidate| {
                        candidate != name && !client_file.servers.contains_key(candidate)
                    })
                    .expect("numbered names never run out");
                let entry = bridge_entry(
                    client,
                    &request.binary,
                    std::slice::from_ref(other),
                    DEFAULT_CONFIG_DIR,
                    read_only,
                    tools.as_deref(),
                );
                notes.push(Note {
                    scope: client.name.to_owned(),
                    message: format!(
                        "split `{name}`: `{}` has `{own_name}` of its own",
                        other.display()
                    ),
                });
                operations.push(Operation::Merge {
                    path: client.entry_path(&own_name),
                    value: entry.clone(),
                });
                client_file.servers.insert(own_name, entry);
            }
        }
        EntryLayout::AsIs => {}
    }
    (taken_in, operations)
}

/// What [`entry_operations`] plans: the operations, and the entry as it will be.
struct PlannedEntry {
    operations: Vec<Operation>,
    planned: Value,
}

/// The operation that writes obsmcp's entry `name` into the client's servers, by what holds that name now; re-pointing
/// one of ours is noted.
fn entry_operations(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    client_file: &ClientFile,
    name: &str,
    taken_in: &[PathBuf],
    notes: &mut Vec<Note>,
) -> PlannedEntry {
    let client = client_file.client;
    let slot = slot(request, vault, client_file, name);
    let ours = matches!(
        slot,
        Slot::Ours | Slot::OursElsewhere { .. } | Slot::OursMoved { .. } | Slot::Joinable
    );
    let existing = client_file.servers.get(name).filter(|_| ours);
    let entry = entry_for(request, vault, client, existing, taken_in);
    // The entry as it will be: obsmcp's own keys replaced in the existing one, or the new one whole.
    let planned = match existing {
        Some(Value::Object(fields)) => {
            let mut fields = fields.clone();
            for (key, value) in entry.as_object().into_iter().flatten() {
                fields.insert(key.clone(), value.clone());
            }
            Value::Object(fields)
        }
        _ => entry.clone(),
    };
    let path = client.entry_path(name);
    let operations = match slot {
        Slot::Ours => update_own_entry(client, &path, &entry),
        Slot::Joinable => {
            notes.push(Note {
                scope: client.name.to_owned(),
                message: format!("added the vault to `{name}`, which serves the others"),
            });
            update_own_entry(client, &path, &entry)
        }
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
        Slot::OursMoved { from } => {
            notes.push(Note {
                scope: client.name.to_owned(),
                message: format!(
                    "re-pointed `{name}` from `{}` to the vault's new place",
                    from.display()
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
    PlannedEntry {
        operations,
        planned,
    }
}

/// Takes out the permission rules of an entry `name` this plan removes (an entry brought into another, or a second
/// one for a vault), so that none is left for a server that is gone. A settings file that does not exist is left so.
fn plan_permission_rule_removal(
    request: &SetupRequest<'_>,
    client: &ClientSpec,
    name: &str,
    edits: &mut Edits,
) {
    let Some(permissions) = client.permissions.as_ref() else {
        return;
    };
    let settings = write::resolve(&(permissions.locate)(request.environment));
    if !settings.exists() {
        return;
    }
    edits.add_operation(
        &settings,
        document::Format::Json,
        Operation::RemoveFromArray {
            path: permissions.allow_path(),
            items: permissions.rules(name, &request.read_only_tools),
        },
        false,
        None,
        Vec::new(),
    );
}

/// Plans the permission rules that pre-approve the read-only tools of entry `name`, for clients that have them.
fn plan_permission_rules(
    request: &SetupRequest<'_>,
    client: &ClientSpec,
    name: &str,
    edits: &mut Edits,
) {
    if let Some(permissions) = client.permissions.as_ref().filter(|_| request.permissions) {
        let settings = write::resolve(&(permissions.locate)(request.environment));
        let rules = permissions.rules(name, &request.read_only_tools);
        let allow = permissions.allow_path();
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
pub(super) fn update_own_entry(
    client: &ClientSpec,
    path: &[String],
    entry: &Value,
) -> Vec<Operation> {
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

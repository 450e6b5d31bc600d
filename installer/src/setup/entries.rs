//! Setup's plan for the clients' entries: one server name per vault, the same in every client (a name obsmcp already
//! uses for the vault is kept; another program's entry is replaced only with consent); each entry written from the
//! client's template, or, when it is already obsmcp's, brought up to date key by key so that what the user added
//! survives; a second entry for the same vault removed; Claude Code's permission rules; and obsmcp's entries in the
//! clients not being set up re-pointed at this binary when theirs is gone.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::client_files::ClientFile;
use super::edits::Edits;
use super::{Decisions, SERVER_NAME, SetupPlan, SetupRequest, VaultTarget};
use crate::clients::{ClientSpec, EntryKind, describe_entry, read_servers};
use crate::document::{self, KeyPath, Operation};
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
    /// obsmcp's entry for another vault, whatever binary it runs: that vault's name, never taken.
    OtherVault,
    Foreign(String),
}

/// obsmcp's entries for `vault` in the clients not being set up, whose binary is gone (moved, deleted, `cargo clean`):
/// re-pointed at this binary, since nothing else can make them work again. Entries whose binary still exists are
/// left to the user's choice of clients; a file that cannot be read or parsed is left alone.
pub(super) fn repoint_broken_entries(
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
                tools,
                ..
            } = describe_entry(client, entry)
            else {
                continue;
            };
            let moved = is_former_place(vault, &entry_vault);
            let binary_exists = Path::new(&command).is_file();
            if !(moved || write::same_path(&entry_vault, &vault.path) && !binary_exists) {
                continue;
            }
            let message = if moved {
                format!(
                    "re-pointed `{name}` from `{}` to the vault's new place",
                    entry_vault.display()
                )
            } else {
                format!(
                    "re-pointed `{name}` from `{command}`, which is gone, to `{}`",
                    request.binary.display()
                )
            };
            notes.push(Note {
                scope: client.name.to_owned(),
                message,
            });
            // Only what is broken changes: the entry keeps its own `--read-only` and `--tools`, whatever this run
            // was asked, and its own binary while that exists.
            let binary = if binary_exists {
                PathBuf::from(&command)
            } else {
                request.binary.clone()
            };
            let wanted = bridge_entry(
                client,
                &binary,
                &vault.path,
                &vault.config_dir,
                read_only,
                tools.as_deref(),
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

/// Whether `place` is where `vault` was set up before it moved or was renamed.
fn is_former_place(vault: &VaultTarget, place: &Path) -> bool {
    vault
        .moved_from
        .iter()
        .any(|former| write::same_path(former, place))
}

/// The entry a client gets for a vault. Its `--tools`: what obsmcp's entry there (`existing`) says, if it says it (or
/// says nothing, in a repair); else `all` for a client with a tool search, else the bridge's default.
fn entry_for(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    client: &ClientSpec,
    existing: Option<&Value>,
) -> Value {
    let own_tools = existing.and_then(|entry| match describe_entry(client, entry) {
        EntryKind::Obsmcp { tools, .. } if tools.is_some() || request.keep_tools => Some(tools),
        _ => None,
    });
    let tools = own_tools.unwrap_or_else(|| client.lists_every_tool.then(|| "all".to_owned()));
    bridge_entry(
        client,
        &request.binary,
        &vault.path,
        &vault.config_dir,
        request.read_only,
        tools.as_deref(),
    )
}

/// The entry `client` gets to run the bridge for a vault: `obsmcp bridge --vault PATH`, plus `--config-dir NAME`
/// when it is not `.obsidian`, `--read-only` when asked and `--tools PROFILE` when given (setup gives `all` to a
/// client with a tool search), in the shape of the client's template.
pub fn bridge_entry(
    client: &ClientSpec,
    binary: &Path,
    vault: &Path,
    config_dir: &str,
    read_only: bool,
    tools: Option<&str>,
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
        EntryKind::Obsmcp {
            vault: Some(entry_vault),
            ..
        } if is_former_place(vault, &entry_vault) => Slot::OursMoved { from: entry_vault },
        EntryKind::Obsmcp { vault: Some(_), .. } => Slot::OtherVault,
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
    let mut existing = own(|slot| matches!(slot, Slot::Ours));
    existing.extend(own(|slot| matches!(slot, Slot::OursElsewhere { .. })));
    existing.extend(own(|slot| matches!(slot, Slot::OursMoved { .. })));
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

/// Plans obsmcp's entry `name` for `vault` in one client's config: the entry, its always-load key, the removal of a
/// second entry for the same vault, and the permission rules.
pub(super) fn plan_entry(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    client_file: &ClientFile,
    name: &str,
    edits: &mut Edits,
    notes: &mut Vec<Note>,
) {
    let client = client_file.client;
    let path = client.entry_path(name);
    let mut operations = entry_operations(request, vault, client_file, name, notes);
    if let Some(key) = client.always_load_key.filter(|_| request.always_load) {
        operations.push(Operation::Replace {
            path: path.iter().cloned().chain([key.to_owned()]).collect(),
            value: json!(true),
        });
    }
    // One entry per vault: a second one (an older setup's, under another name) is removed, or agents see every tool
    // twice.
    for other in client_file.servers.keys().filter(|other| *other != name) {
        if matches!(
            slot(request, vault, client_file, other),
            Slot::Ours | Slot::OursElsewhere { .. } | Slot::OursMoved { .. }
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
    plan_permission_rules(request, client, name, edits);
}

/// The operation that writes obsmcp's entry `name` into the client's servers, by what holds that name now; re-pointing
/// one of ours is noted.
fn entry_operations(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    client_file: &ClientFile,
    name: &str,
    notes: &mut Vec<Note>,
) -> Vec<Operation> {
    let client = client_file.client;
    let slot = slot(request, vault, client_file, name);
    let ours = matches!(
        slot,
        Slot::Ours | Slot::OursElsewhere { .. } | Slot::OursMoved { .. }
    );
    let existing = client_file.servers.get(name).filter(|_| ours);
    let entry = entry_for(request, vault, client, existing);
    let path = client.entry_path(name);
    match slot {
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
    }
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

//! Setup's plan for the plugin in one vault: its files, its `data.json` (the port and token kept, a port chosen when
//! there is none, `--hide` rules added after the user's own) and its enablement in `community-plugins.json`. A new
//! port is one no other known vault's plugin uses, none of [`RESERVED_PORTS`](super::RESERVED_PORTS), and free now.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::edits::Edits;
use super::{RESERVED_PORTS, SetupPlan, SetupRequest, VaultTarget};
use crate::clients::template::Template;
use crate::document::{self, Operation, key_path};
use crate::obsidian_files::plugin;
use crate::obsidian_files::plugin_data::{self, DEFAULT_CONFIG_DIR, DEFAULT_PORT};
use crate::obsidian_files::registry::{self, ConfigDirSource};
use crate::plan::state::VaultIdentity;
use crate::plan::write;
use crate::plan::{Note, Problem, TextEdit};

/// Ports the plugin of every other known vault already uses.
pub(super) fn ports_in_use_by_other_vaults(request: &SetupRequest<'_>) -> BTreeSet<u16> {
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
pub(super) fn plan_plugin(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    scope: &str,
    taken_ports: &mut BTreeSet<u16>,
    edits: &mut Edits,
    plan: &mut SetupPlan,
) -> Option<u16> {
    let folder = plugin::folder(&vault.path, &vault.config_dir);
    let data_path = plugin_data::data_json_path(&vault.path, &vault.config_dir);
    let (existing_text, existing) = read_data_json(&data_path, scope, plan)?;
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
    // What recognises this vault once it moves or is renamed (`plan::moves`).
    plan.state
        .identities
        .entry(vault.path.clone())
        .or_default()
        .token = Some(VaultIdentity::digest(&token));
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
    plan_data_json(
        &data_path,
        existing_text.is_some(),
        operations,
        &initial,
        scope,
        edits,
    );
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
    vault_notes(vault, scope, plan);
    Some(port)
}

/// The vault's `data.json` as text and as a value (`Null` when there is none); `None`, with a problem, when it cannot
/// be read or is not the JSON object the plugin writes (it is then left untouched).
fn read_data_json(
    data_path: &Path,
    scope: &str,
    plan: &mut SetupPlan,
) -> Option<(Option<String>, Value)> {
    let existing_text = match write::read_text(data_path) {
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
    Some((existing_text, existing))
}

/// Plans `data.json`: an existing file is edited by `operations`, a new one written whole from `initial`.
fn plan_data_json(
    data_path: &Path,
    exists: bool,
    operations: Vec<Operation>,
    initial: &Value,
    scope: &str,
    edits: &mut Edits,
) {
    if exists {
        let data_edit = TextEdit {
            format: plugin::OBSIDIAN_FORMAT,
            operations,
            remove_if_empty: false,
        };
        // The token is a secret: an existing data.json others can read (copied in, synced, restored) is made private.
        edits.edit_private(data_path, data_edit, scope, "data.json (port and token)");
    } else {
        let text = serde_json::to_string_pretty(initial).expect("data.json serialises") + "\n";
        // The token is a secret: a new data.json is private to its owner.
        edits.replace(
            data_path,
            text.as_bytes(),
            Some(0o600),
            scope,
            "data.json (port and token)",
        );
    }
}

/// Notes for the user about the vault: an older plugin obsmcp replaces, a config folder setup will create.
fn vault_notes(vault: &VaultTarget, scope: &str, plan: &mut SetupPlan) {
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

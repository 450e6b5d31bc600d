//! Uninstall's first phase, client by client: every obsmcp entry for a wanted vault comes out of the client's config
//! (with the containers setup created there, once empty), the companion skill goes once the client has no obsmcp
//! entry left, and, for Claude Code, so do the permission rules setup added for the names removed. The vaults those
//! entries served are gathered for the plugin phase.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::edits::{prune_operations, push_edit};
use super::{UninstallPlan, UninstallRequest};
use crate::clients::{ClientSpec, EntryKind, PermissionSpec, describe_entry, read_servers, skill};
use crate::document::{self, Operation};
use crate::environment::Environment;
use crate::obsidian_files::plugin_data::DEFAULT_CONFIG_DIR;
use crate::plan::state::State;
use crate::plan::write;
use crate::plan::{Change, FileChange, Item, Problem};

/// Plans the removal of `client`'s obsmcp entries for the wanted vaults, its skill and its permission rules, and adds
/// the vaults those entries served to `vaults`, with their config folder. When the client's file cannot be edited
/// (read-only, say), its entries stay: the vaults they serve go to `still_served` instead, keeping their plugin, and
/// nothing of the client is reported removed.
pub(super) fn plan_client(
    request: &UninstallRequest<'_>,
    client: &'static ClientSpec,
    plan: &mut UninstallPlan,
    state: &mut State,
    vaults: &mut BTreeMap<PathBuf, String>,
    still_served: &mut Vec<(PathBuf, Vec<&'static str>)>,
) {
    let location = client.locate(request.environment);
    let path = write::resolve(&location.config);
    let Some(servers) = read_client_servers(client, &path, plan) else {
        return;
    };
    let Sorted {
        names,
        trimmed,
        served,
        stays,
        mut operations,
    } = sort_entries(request, client, &servers);
    let backed_up = backed_up_entries(client, &path, &servers, |vault| request.wants(vault));
    operations.extend(backed_up.iter().map(|name| Operation::Remove {
        path: client.entry_path(name),
    }));
    operations.extend(prune_operations(state, &path));
    let problems = plan.problems.len();
    push_edit(
        plan,
        state,
        client.name,
        &path,
        client.format,
        operations,
        client.claude_lock,
    );
    if plan.problems.len() > problems {
        for vault in served.into_keys() {
            match still_served
                .iter_mut()
                .find(|(known, _)| write::same_path(known, &vault))
            {
                Some((_, clients)) => clients.push(client.name),
                None => still_served.push((vault, vec![client.name])),
            }
        }
        return;
    }
    vaults.extend(served);
    for name in &names {
        plan.items.push(Item {
            scope: client.name.to_owned(),
            subject: format!("server `{name}`"),
            change: Change::Removed,
            path: path.clone(),
        });
    }
    for name in &trimmed {
        plan.items.push(Item {
            scope: client.name.to_owned(),
            subject: format!(
                "server `{name}` (the vaults removed taken out; it serves the others)"
            ),
            change: Change::Updated,
            path: path.clone(),
        });
    }
    // The skill goes with the client's last obsmcp entry.
    if !stays {
        plan_skill_removal(plan, state, client, request.environment, &path);
    }
    // The rules of the backed-up entries too, which the settings file's own backup may still hold.
    let ruled: Vec<String> = names.iter().chain(&backed_up).cloned().collect();
    if let Some(permissions) = &client.permissions
        && !ruled.is_empty()
    {
        plan_permission_removal(request, client, permissions, &ruled, plan, state);
    }
}

/// What uninstall does with a client's obsmcp entries: those whose vaults all go are removed, those that serve other
/// vaults too lose the ones going; the vaults going, with their config folder.
struct Sorted {
    names: Vec<String>,
    trimmed: Vec<String>,
    served: BTreeMap<PathBuf, String>,
    /// Whether an obsmcp entry stays in the client.
    stays: bool,
    operations: Vec<Operation>,
}

fn sort_entries(
    request: &UninstallRequest<'_>,
    client: &ClientSpec,
    servers: &Map<String, Value>,
) -> Sorted {
    let mut names = Vec::new();
    let mut trimmed = Vec::new();
    let mut served: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut stays = false;
    let mut operations: Vec<Operation> = Vec::new();
    for (name, entry) in servers {
        let EntryKind::Obsmcp {
            vaults, config_dir, ..
        } = describe_entry(client, entry)
        else {
            continue;
        };
        let (wanted, kept): (Vec<PathBuf>, Vec<PathBuf>) = vaults
            .iter()
            .cloned()
            .partition(|vault| request.wants(vault));
        if wanted.is_empty() {
            stays = stays || !kept.is_empty();
            continue;
        }
        for vault in wanted {
            // With several vaults an entry names no config folder: the bridge finds each vault's, as here.
            let folder = match (&config_dir, vaults.len()) {
                (Some(given), 1) => given.clone(),
                (None, 1) => DEFAULT_CONFIG_DIR.to_owned(),
                _ => crate::obsidian_files::registry::config_dir(&vault, None).0,
            };
            served.insert(vault, folder);
        }
        if kept.is_empty() {
            names.push(name.clone());
            operations.push(Operation::Remove {
                path: client.entry_path(name),
            });
        } else {
            // An entry that serves other vaults too stays, without the ones going.
            stays = true;
            trimmed.push(name.clone());
            operations.extend(without_vaults(client, name, entry, |vault| {
                request.wants(vault)
            }));
        }
    }
    Sorted {
        names,
        trimmed,
        served,
        stays,
        operations,
    }
}

/// The names of obsmcp's entries that are no longer in the file but are in its backup (an older layout a later setup
/// brought together). Removing them does nothing to the file, but the same removal run on the backup then shows that
/// it held only obsmcp's work, so the backup goes too instead of staying beside the file.
fn backed_up_entries(
    client: &ClientSpec,
    path: &Path,
    servers: &Map<String, Value>,
    going: impl Fn(&Path) -> bool,
) -> Vec<String> {
    let Ok(Some(text)) = write::read_text(&write::backup_path(path)) else {
        return Vec::new();
    };
    let Ok(backed_up) = read_servers(client, &text) else {
        return Vec::new();
    };
    backed_up
        .iter()
        .filter(|(name, _)| !servers.contains_key(*name))
        .filter(|(_, entry)| match describe_entry(client, entry) {
            EntryKind::Obsmcp { vaults, .. } => {
                !vaults.is_empty() && vaults.iter().all(|vault| going(vault))
            }
            EntryKind::Other { .. } => false,
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// The operations that take the vaults `going` out of obsmcp's entry `name`: its command and arguments rendered again
/// through the client's template without their `--vault` pairs, every other argument and key as it was.
fn without_vaults(
    client: &ClientSpec,
    name: &str,
    entry: &Value,
    going: impl Fn(&Path) -> bool,
) -> Vec<Operation> {
    let template = client.template();
    let mut found = template.extract(entry);
    let args: Vec<Value> = found
        .get("args")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut kept = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg.as_str() == Some("--vault") {
            let vault = args.next();
            if let Some(vault) =
                vault.filter(|vault| !going(Path::new(vault.as_str().unwrap_or_default())))
            {
                kept.extend([arg, vault]);
            }
            continue;
        }
        kept.push(arg);
    }
    found.insert("args".into(), Value::Array(kept));
    let values = found
        .iter()
        .map(|(key, value)| (key.as_str(), value.clone()))
        .collect();
    let rendered = template.render(&values);
    template
        .keys_with_placeholders()
        .into_iter()
        .filter_map(|key| {
            let value = rendered.get(key)?.clone();
            Some(Operation::Replace {
                path: client
                    .entry_path(name)
                    .into_iter()
                    .chain([key.to_owned()])
                    .collect(),
                value,
            })
        })
        .collect()
}

/// The server entries of the client's config at `path`; `None` when there is no file, or, with a problem, when it
/// cannot be read or parsed (it is then left untouched).
fn read_client_servers(
    client: &ClientSpec,
    path: &Path,
    plan: &mut UninstallPlan,
) -> Option<Map<String, Value>> {
    let text = match write::read_text(path) {
        Ok(Some(text)) => text,
        Ok(None) => return None,
        Err(error) => {
            plan.problems.push(Problem {
                scope: client.name.to_owned(),
                message: error.to_string(),
                hint: None,
            });
            return None;
        }
    };
    match read_servers(client, &text) {
        Ok(servers) => Some(servers),
        Err(error) => {
            plan.problems.push(Problem {
                scope: client.name.to_owned(),
                message: format!("`{}` was left untouched: {error}", path.display()),
                hint: Some("fix the file by hand, then run uninstall again".to_owned()),
            });
            None
        }
    }
}

/// Removes the permission rules setup added for `names` from the client's settings file (Claude Code's
/// `settings.json`), with the containers setup created there once empty.
fn plan_permission_removal(
    request: &UninstallRequest<'_>,
    client: &ClientSpec,
    permissions: &PermissionSpec,
    names: &[String],
    plan: &mut UninstallPlan,
    state: &mut State,
) {
    let settings = write::resolve(&(permissions.locate)(request.environment));
    if !settings.exists() {
        return;
    }
    let rules = names
        .iter()
        .flat_map(|name| permissions.rules(name, &request.read_only_tools))
        .collect();
    let mut operations = vec![Operation::RemoveFromArray {
        path: permissions.allow_path(),
        items: rules,
    }];
    operations.extend(prune_operations(state, &settings));
    let planned = plan.files.len();
    push_edit(
        plan,
        state,
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
            subject: "permission rules for the read-only tools (settings.json)".to_owned(),
            change: Change::Removed,
            path: settings,
        });
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

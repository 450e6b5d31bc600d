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
use crate::document::{self, KeyPath, Operation};
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
    let mut names = Vec::new();
    let mut served: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut stays = false;
    for (name, entry) in &servers {
        if let EntryKind::Obsmcp {
            vault: Some(vault),
            config_dir,
            ..
        } = describe_entry(client, entry)
        {
            if !request.wants(&vault) {
                stays = true;
                continue;
            }
            served.insert(
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
    // The skill goes with the client's last obsmcp entry.
    if !stays {
        plan_skill_removal(plan, state, client, request.environment, &path);
    }
    if let Some(permissions) = &client.permissions
        && !names.is_empty()
    {
        plan_permission_removal(request, client, permissions, &names, plan, state);
    }
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

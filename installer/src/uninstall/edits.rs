//! How uninstall plans the edit of one user file: the removal applied through [`FileChange::planned`], the file
//! itself removed when setup created it and nothing is left, the record's containers and files forgotten as they go,
//! and, when the result means what the backup setup took holds, the backup's bytes written back and the backup
//! removed (see [`restore_from_backup`]).

use std::path::Path;

use serde_json::Value;

use super::UninstallPlan;
use crate::document::{self, KeyPath, Operation};
use crate::plan::state::State;
use crate::plan::{FileChange, Problem, TextEdit};

/// Removal of the containers setup created in `path`, deepest first.
pub(super) fn prune_operations(state: &State, path: &Path) -> Vec<Operation> {
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

pub(super) fn push_edit(
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
                // A vault file's backup is in the state folder (under the vault's old place if it moved); one beside
                // it is from an older obsmcp; a backup made now never goes into the vault, which sync would spread.
                if plan.is_vault_file(path) {
                    let in_state = plan.vault_backup(path);
                    if in_state.exists() || !change.backup.exists() {
                        change.backup = in_state;
                    }
                }
                let backup = restore_from_backup(&mut change, format);
                plan.files.push(change);
                plan.files.extend(backup);
                return;
            }
            // The file is as wanted already, but its backup may hold only obsmcp's earlier work (the rules of an
            // entry a later setup brought into another): then the backup goes.
            let backup = if plan.is_vault_file(path) {
                None
            } else {
                restore_from_backup(&mut change, format)
            };
            plan.files.push(change);
            plan.files.extend(backup);
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

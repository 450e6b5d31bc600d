//! Setup's edits, gathered per file before anything is planned, so that several vaults' entries in one client file
//! become one change: one diff, one write, one backup. Finishing plans each file (a document edit through
//! [`FileChange::planned`], the plugin's files as bytes), turns a read-only or unparseable one into a [`Problem`] with
//! a hint, adds the report line of each file planned with one (the plugin's files, `data.json`, the enablement, the
//! skill), and records in the state what each change creates (files, folders, containers): what uninstall removes.
//!
//! Uninstall plans its files one at a time instead: what it does next (whether to report a file, whether its backup
//! is restored, which recorded containers are gone) depends on each file's planned result, so it has nothing to
//! gather.

use std::path::{Path, PathBuf};

use super::SetupPlan;
use crate::document::{self, KeyPath, Operation};
use crate::plan::write;
use crate::plan::{Change, FileChange, Item, Note, PlanFileError, Problem, TextEdit};

/// Edits gathered per file, so several vaults' entries in one client file become one write.
#[derive(Default)]
pub(super) struct Edits {
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
    /// A file that holds a secret: an existing one others can read is made private ([`FileChange::private`]).
    private: bool,
}

enum PendingKind {
    Document(TextEdit),
    Bytes(Vec<u8>),
}

impl Edits {
    pub(super) fn add_operation(
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
            private: false,
        });
    }

    pub(super) fn edit(&mut self, path: &Path, edit: TextEdit, scope: &str, subject: &str) {
        self.pending.push(Pending {
            path: path.to_owned(),
            kind: PendingKind::Document(edit),
            claude_lock: false,
            new_mode: None,
            containers: Vec::new(),
            item: Some((scope.to_owned(), subject.to_owned())),
            vault_file: true,
            private: false,
        });
    }

    /// [`Edits::edit`] of a file that holds a secret: it is also made private when others can read it.
    pub(super) fn edit_private(&mut self, path: &Path, edit: TextEdit, scope: &str, subject: &str) {
        self.edit(path, edit, scope, subject);
        if let Some(pending) = self.pending.last_mut() {
            pending.private = true;
        }
    }

    pub(super) fn replace(
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
            private: false,
        });
    }

    /// Plans every file, records what it creates, and refuses read-only or unparseable files.
    pub(super) fn finish(self, plan: &mut SetupPlan, state_home: &Path) {
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
            let planned = planned.map(|change| match pending.private {
                true => change.private(),
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
            if let (Some(mode), Some((scope, _))) = (change.mode, &pending.item) {
                plan.notes.push(Note {
                    scope: scope.clone(),
                    message: format!(
                        "`{}` could be read by other users of this machine (mode {:04o}), and it holds a secret: \
                         its mode becomes {:04o}",
                        change.path.display(),
                        mode.from,
                        mode.to
                    ),
                });
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
            "add the entry by hand, in the shape docs/guide.md shows under \"What each client gets\", or leave this \
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

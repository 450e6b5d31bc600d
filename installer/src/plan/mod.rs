//! Plans: every change setup or uninstall would make, computed before any write. The same plan prints as a unified
//! diff (`--dry-run`), feeds the report (added / updated / unchanged / removed), and is then applied file by file.
//! What planning meets on the way is part of the plan too: a [`Note`] to show, or a [`Problem`] that leaves one part
//! unplanned while the rest goes on. Setup and uninstall plan every edit of a user's document through
//! [`FileChange::planned`], so both refuse an unparseable or read-only file alike.
//!
//! [`write`] is how a planned change reaches the disk (symlinks resolved, one backup, atomic replace, Claude Code's
//! lock), and [`state`] is the record of what setup created, which uninstall plans from.
//!
//! Past 400 lines only with its unit tests, kept at the end beside the code they pin.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::document::{self, Format, Operation};
use write::{DirectoryLock, FileError};

pub mod binary;
pub mod model_folder;
pub mod moves;
pub mod saved_index;
pub mod state;
pub mod tool_install;
pub mod write;

/// What happens to one thing setup manages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// It did not exist and will.
    Added,
    /// It exists and will change.
    Updated,
    /// It is already as wanted.
    Unchanged,
    /// It exists and will be removed.
    Removed,
}

/// One line of a report: a thing setup manages and what happens to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// Where it belongs: a client's name or `vault <name>`.
    pub scope: String,
    /// What it is, e.g. "server `obsidian`" or "plugin files".
    pub subject: String,
    /// What happens to it.
    pub change: Change,
    /// The file it lives in.
    pub path: PathBuf,
}

/// Something the user should know, with no change attached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// Where it belongs.
    pub scope: String,
    /// What to know.
    pub message: String,
}

/// A part that could not be planned; the rest goes on, and the run fails at the end.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    /// Where it belongs.
    pub scope: String,
    /// What is wrong, with the path and the cause.
    pub message: String,
    /// What fixes it.
    pub hint: Option<String>,
}

/// How long obsmcp waits for Claude Code to release its lock: longer than Claude's own stale age, so a crashed
/// holder's lock is always stolen first.
const LOCK_WAIT: Duration = Duration::from_secs(15);

/// The planned new content of one file.
#[derive(Debug, Clone)]
pub struct FileChange {
    /// The real file (symlinks resolved).
    pub path: PathBuf,
    /// Its content now (`None`: absent).
    pub before: Option<Vec<u8>>,
    /// Its planned content (`None`: to be removed).
    pub after: Option<Vec<u8>>,
    /// The edit that produced `after`, kept to redo it if the file changes before the write (Claude's file).
    pub edit: Option<TextEdit>,
    /// Whether writes take Claude Code's directory lock.
    pub claude_lock: bool,
    /// The mode for a file created from nothing.
    pub new_mode: Option<u32>,
    /// Where the file's one backup goes (see [`write::backup_path`] and [`write::vault_backup_path`]).
    pub backup: PathBuf,
    /// The permission bits the existing file is given ([`FileChange::private`]); `None` keeps its mode.
    pub mode: Option<ModeChange>,
}

/// An existing file's permission bits, before and after (planned on Unix only: elsewhere there are none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeChange {
    /// The bits now, e.g. 0o644.
    pub from: u32,
    /// The bits wanted, e.g. 0o600.
    pub to: u32,
}

/// A document edit: format, operations, and whether an empty result means the file goes.
#[derive(Debug, Clone)]
pub struct TextEdit {
    /// The document's format.
    pub format: Format,
    /// The operations.
    pub operations: Vec<Operation>,
    /// Remove the file when the result is an empty document (setup created it).
    pub remove_if_empty: bool,
}

/// Why applying a change failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApplyError {
    /// Reading, writing or locking failed.
    #[error(transparent)]
    File(#[from] FileError),
    /// The file changed under obsmcp and no longer parses.
    #[error("`{path}` changed while obsmcp was updating it and no longer parses")]
    Document {
        path: PathBuf,
        source: document::DocumentError,
    },
}

impl ApplyError {
    /// What the user can do about it, when there is something.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::File(error) => error.hint(),
            Self::Document { .. } => {
                Some("run the command again: it reads the file afresh".to_owned())
            }
        }
    }
}

impl TextEdit {
    /// The new text for `before` (`None` when the file should go).
    pub fn run(&self, before: Option<&str>) -> Result<Option<String>, document::DocumentError> {
        let text = before.unwrap_or("");
        let edited = document::apply(self.format, text, &self.operations)?;
        if self.remove_if_empty && is_empty_document(&document::read_value(self.format, &edited)?) {
            return Ok(None);
        }
        if before.is_none() && edited.is_empty() {
            return Ok(None);
        }
        Ok(Some(edited))
    }
}

fn is_empty_document(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

impl FileChange {
    /// Plans a document edit of `path` (already resolved), reading its current text.
    pub fn edit(
        path: &Path,
        edit: TextEdit,
        claude_lock: bool,
        new_mode: Option<u32>,
    ) -> Result<Self, PlanFileError> {
        let before = write::read_text(path).map_err(PlanFileError::File)?;
        let after = edit
            .run(before.as_deref())
            .map_err(|source| PlanFileError::Document {
                path: path.to_owned(),
                source,
            })?;
        Ok(Self {
            path: path.to_owned(),
            before: before.map(String::into_bytes),
            after: after.map(String::into_bytes),
            edit: Some(edit),
            claude_lock,
            new_mode,
            backup: write::backup_path(path),
            mode: None,
        })
    }

    /// Plans a document edit of `path` (already resolved) as setup and uninstall write it: an existing read-only
    /// file the edit would change is refused now, while planning, rather than when the plan is applied.
    pub fn planned(
        path: &Path,
        edit: TextEdit,
        claude_lock: bool,
        new_mode: Option<u32>,
    ) -> Result<Self, PlanFileError> {
        Self::edit(path, edit, claude_lock, new_mode)?.writable()
    }

    /// The change, unless it would rewrite an existing read-only file.
    pub(crate) fn writable(self) -> Result<Self, PlanFileError> {
        // A mode change alone is no write: the owner may change a read-only file's mode.
        if self.changes_content()
            && self.before.is_some()
            && std::fs::metadata(&self.path).is_ok_and(|metadata| metadata.permissions().readonly())
        {
            return Err(PlanFileError::File(FileError::ReadOnly { path: self.path }));
        }
        Ok(self)
    }

    /// Plans writing `bytes` to `path` as they are (plugin files).
    pub fn replace(path: &Path, bytes: Option<&[u8]>) -> Result<Self, PlanFileError> {
        let before = match std::fs::read(path) {
            Ok(bytes) => Some(bytes),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(PlanFileError::File(FileError::Read {
                    path: path.to_owned(),
                    source,
                }));
            }
        };
        Ok(Self {
            path: path.to_owned(),
            before,
            after: bytes.map(<[u8]>::to_vec),
            edit: None,
            claude_lock: false,
            new_mode: None,
            backup: write::backup_path(path),
            mode: None,
        })
    }

    /// The change, plus taking group and others' permissions off the existing file if it has any, for a file that
    /// holds a secret (the plugin's token): a later run repairs a mode the first could not keep, and says so.
    pub fn private(self) -> Self {
        let mode = self
            .before
            .as_ref()
            .and_then(|_| write::mode_of(&self.path))
            .filter(|mode| mode & 0o077 != 0)
            .map(|from| ModeChange {
                from,
                to: from & !0o077,
            });
        Self { mode, ..self }
    }

    /// Whether applying it changes anything.
    pub fn is_change(&self) -> bool {
        self.changes_content() || self.mode.is_some()
    }

    /// Whether applying it writes or removes the file (not only changes its mode).
    pub fn changes_content(&self) -> bool {
        self.before != self.after
    }

    /// The change as a unified diff (binary or huge content is summarised), after git's `old mode`/`new mode` lines
    /// when the mode changes.
    pub fn diff(&self) -> String {
        let name = self.path.display().to_string();
        let Some(mode) = self.mode else {
            return self.content_diff(&name);
        };
        let header = format!(
            "old mode {:o}\nnew mode {:o}\n",
            0o100_000 | mode.from,
            0o100_000 | mode.to
        );
        if self.changes_content() {
            header + &self.content_diff(&name)
        } else {
            format!("{header}--- {name}\n+++ {name}\n")
        }
    }

    fn content_diff(&self, name: &str) -> String {
        let name = name.to_owned();
        let text = |bytes: &Option<Vec<u8>>| {
            bytes
                .as_deref()
                .map(|bytes| std::str::from_utf8(bytes).ok().map(str::to_owned))
        };
        // Config files show their hunks, however large the file; plugin files show in full only when small (a
        // bundled main.js would flood the terminal), otherwise as a size change.
        let limit = if self.edit.is_some() {
            usize::MAX
        } else {
            16 * 1024
        };
        match (text(&self.before), text(&self.after)) {
            (Some(Some(before)), Some(Some(after))) if before.len() + after.len() < limit => {
                unified(&name, &before, &after, true, true)
            }
            (None, Some(Some(after))) if after.len() < limit => {
                unified(&name, "", &after, false, true)
            }
            (Some(Some(before)), None) if before.len() < limit => {
                unified(&name, &before, "", true, false)
            }
            _ => {
                let size = |bytes: &Option<Vec<u8>>| {
                    bytes.as_ref().map_or("absent".to_owned(), |bytes| {
                        format!("{} bytes", bytes.len())
                    })
                };
                format!(
                    "--- {name}\n+++ {name}\n@@ {} → {} @@\n",
                    size(&self.before),
                    size(&self.after)
                )
            }
        }
    }

    /// Writes the planned content. Under Claude's lock the file is read again, and the edit redone if Claude
    /// changed it since planning.
    pub fn apply(&self) -> Result<(), ApplyError> {
        // The mode first: the backup copied below, and the new content, then never exist with the old, too open mode.
        if let Some(mode) = self.mode {
            write::set_mode(&self.path, mode.to)?;
        }
        if !self.changes_content() {
            return Ok(());
        }
        let _lock = if self.claude_lock {
            Some(DirectoryLock::acquire(&self.path, LOCK_WAIT)?)
        } else {
            None
        };
        let mut after = self.after.clone();
        if self.claude_lock
            && let Some(edit) = &self.edit
        {
            let current = write::read_text(&self.path)?;
            if current.as_deref().map(str::as_bytes) != self.before.as_deref() {
                after = edit
                    .run(current.as_deref())
                    .map_err(|source| ApplyError::Document {
                        path: self.path.clone(),
                        source,
                    })?
                    .map(String::into_bytes);
            }
        }
        match after {
            Some(bytes) => write::write_atomic(&self.path, &bytes, self.new_mode, &self.backup)?,
            None => write::remove_file(&self.path)?,
        }
        Ok(())
    }

    /// The document value before and after, for reports (`Null` when absent or not a document).
    pub fn values(&self) -> (Value, Value) {
        let read = |bytes: &Option<Vec<u8>>| {
            let format = self.edit.as_ref().map(|edit| edit.format);
            match (format, bytes.as_deref().map(std::str::from_utf8)) {
                (Some(format), Some(Ok(text))) => {
                    document::read_value(format, text).unwrap_or(Value::Null)
                }
                _ => Value::Null,
            }
        };
        (read(&self.before), read(&self.after))
    }
}

fn unified(name: &str, before: &str, after: &str, existed: bool, exists: bool) -> String {
    let old_header = if existed {
        name.to_owned()
    } else {
        "/dev/null".to_owned()
    };
    let new_header = if exists {
        name.to_owned()
    } else {
        "/dev/null".to_owned()
    };
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&old_header, &new_header)
        .to_string()
}

/// Why a file could not be planned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlanFileError {
    /// It could not be read.
    #[error(transparent)]
    File(FileError),
    /// It does not parse, or has the wrong shape; it is left untouched.
    #[error("`{path}` was left untouched: {source}")]
    Document {
        path: PathBuf,
        source: document::DocumentError,
    },
}

/// How an item changed, from its value before and after.
pub fn change_of(before: Option<&Value>, after: Option<&Value>) -> Change {
    match (before, after) {
        (None, Some(_)) => Change::Added,
        (Some(_), None) => Change::Removed,
        (Some(before), Some(after)) if before != after => Change::Updated,
        _ => Change::Unchanged,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::document::key_path;

    fn add_entry() -> TextEdit {
        TextEdit {
            format: Format::Json,
            operations: vec![Operation::Merge {
                path: key_path(&["mcpServers", "obsidian"]),
                value: json!({"command": "/o"}),
            }],
            remove_if_empty: false,
        }
    }

    #[test]
    fn a_change_claude_made_after_planning_is_kept_under_the_lock() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join(".claude.json");
        std::fs::write(&path, "{\n  \"numStartups\": 1\n}\n").unwrap();
        let change = FileChange::edit(&path, add_entry(), true, Some(0o600)).unwrap();
        // Claude writes between obsmcp's plan and its write.
        std::fs::write(&path, "{\n  \"numStartups\": 2\n}\n").unwrap();
        change.apply().unwrap();
        let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(value["numStartups"], 2, "Claude's write was lost");
        assert_eq!(value["mcpServers"]["obsidian"]["command"], "/o");
        assert!(!DirectoryLock::path_for(&path).exists());
    }

    #[test]
    fn an_unchanged_plan_writes_nothing() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("config.json");
        std::fs::write(
            &path,
            "{\"mcpServers\": {\"obsidian\": {\"command\": \"/o\"}}}",
        )
        .unwrap();
        let change = FileChange::edit(&path, add_entry(), false, None).unwrap();
        assert!(!change.is_change());
        change.apply().unwrap();
        assert!(!write::backup_path(&path).exists());
    }

    #[test]
    fn a_file_created_from_nothing_and_emptied_again_goes() {
        let edit = TextEdit {
            format: Format::Toml,
            operations: vec![
                Operation::Remove {
                    path: key_path(&["mcp_servers", "obsidian"]),
                },
                Operation::RemoveIfEmpty {
                    path: key_path(&["mcp_servers"]),
                },
            ],
            remove_if_empty: true,
        };
        assert_eq!(
            edit.run(Some("[mcp_servers.obsidian]\ncommand = \"/o\"\n"))
                .unwrap(),
            None
        );
        assert!(
            edit.run(Some(
                "model = \"o3\"\n[mcp_servers.obsidian]\ncommand = \"/o\"\n"
            ))
            .unwrap()
            .is_some()
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_private_file_others_can_read_is_a_change_of_mode_alone_and_only_once() {
        use std::os::unix::fs::PermissionsExt;
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("data.json");
        let text = "{\"mcpServers\": {\"obsidian\": {\"command\": \"/o\"}}}";
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let change = FileChange::edit(&path, add_entry(), false, None)
            .unwrap()
            .private();
        assert!(!change.changes_content());
        assert!(change.is_change());
        assert_eq!(
            change.mode,
            Some(ModeChange {
                from: 0o644,
                to: 0o600
            })
        );
        assert!(
            change
                .diff()
                .starts_with("old mode 100644\nnew mode 100600\n--- "),
            "{}",
            change.diff()
        );
        change.apply().unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert!(
            !write::backup_path(&path).exists(),
            "a mode alone needs no backup"
        );
        let again = FileChange::edit(&path, add_entry(), false, None)
            .unwrap()
            .private();
        assert!(!again.is_change());

        // A read-only file keeps its owner's bits: made private, not writable.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let read_only = FileChange::planned(&path, add_entry(), false, None)
            .unwrap()
            .private();
        assert_eq!(read_only.mode.map(|mode| mode.to), Some(0o400));
    }

    #[test]
    fn diffs_are_unified_with_headers() {
        let change = FileChange {
            path: PathBuf::from("/h/config.toml"),
            before: Some(b"a = 1\n".to_vec()),
            after: Some(b"a = 1\nb = 2\n".to_vec()),
            edit: None,
            claude_lock: false,
            new_mode: None,
            backup: PathBuf::from("/h/config.toml.obsmcp-backup"),
            mode: None,
        };
        assert_eq!(
            change.diff(),
            "--- /h/config.toml\n+++ /h/config.toml\n@@ -1 +1,2 @@\n a = 1\n+b = 2\n"
        );
        let created = FileChange {
            before: None,
            ..change
        };
        assert!(
            created
                .diff()
                .starts_with("--- /dev/null\n+++ /h/config.toml\n")
        );
    }
}

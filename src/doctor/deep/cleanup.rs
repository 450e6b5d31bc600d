//! The end of the self-test's exercise, run whatever happened before it: every file left in the scratch folder is
//! trashed through the plugin (so Obsidian's index and link graph forget it as they would any deleted note), the
//! copies Obsidian's trash setting put in the vault's `.trash/` are removed, and then the scratch folder itself.
//!
//! Two removals are made on disk, never through Obsidian, and both are limited to what the self-test made: the
//! scratch folder (no tool removes a folder; a file the plugin could not trash goes with it), and the `.trash/`
//! entries that were not there before the self-test and carry its random name (plus `.trash/` itself when the
//! self-test created it and leaves it empty). Nothing else in the vault is touched.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use super::client::{self, PluginClient};

/// What cleanup did.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Cleanup {
    /// Files trashed through the plugin (vault paths).
    pub(crate) trashed: Vec<String>,
    /// Vault paths removed from disk (trashed copies in `.trash/`, the scratch folder).
    pub(crate) removed: Vec<String>,
    /// Where trashed files went outside the vault (the system trash), when Obsidian's setting says so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) system_trash: Option<String>,
    /// What could not be removed, with why: delete these by hand.
    pub(crate) left: Vec<String>,
}

/// What `.trash/` held before the exercise.
pub(crate) struct Trash {
    folder: PathBuf,
    existed: bool,
    before: BTreeSet<String>,
}

impl Trash {
    /// Looks at the vault's `.trash/` before anything is trashed.
    pub(crate) fn before(vault: &Path) -> Self {
        let folder = vault.join(".trash");
        Self {
            existed: folder.is_dir(),
            before: entries(&folder),
            folder,
        }
    }
}

/// Trashes what is left in `folder` (a vault path) through the plugin, then removes its traces on disk.
pub(crate) async fn run(
    plugin: &mut PluginClient,
    vault: &Path,
    config_dir: &str,
    folder: &str,
    random: &str,
    trash: Trash,
) -> Cleanup {
    let mut cleanup = Cleanup::default();
    let on_disk = vault.join(folder);
    let mut files = Vec::new();
    files_under(&on_disk, folder, &mut files);
    for file in files {
        // A file the plugin cannot trash (Obsidian gone, a failed step's odd state) is removed with the folder below.
        if let Ok(result) = plugin.call("delete_note", json!({"path": file})).await
            && !client::is_error(&result)
        {
            cleanup.trashed.push(file);
        }
    }
    for name in entries(&trash.folder).difference(&trash.before) {
        if !name.contains(random) {
            continue;
        }
        match remove(&trash.folder.join(name)) {
            Ok(()) => cleanup.removed.push(format!(".trash/{name}")),
            Err(error) => cleanup.left.push(format!(".trash/{name}: {error}")),
        }
    }
    if !trash.existed && trash.folder.is_dir() && entries(&trash.folder).is_empty() {
        match std::fs::remove_dir(&trash.folder) {
            Ok(()) => cleanup.removed.push(".trash/".to_owned()),
            Err(error) => cleanup.left.push(format!(".trash/: {error}")),
        }
    }
    if on_disk.exists() {
        match std::fs::remove_dir_all(&on_disk) {
            Ok(()) => cleanup.removed.push(format!("{folder}/")),
            Err(error) => cleanup.left.push(format!("{folder}/: {error}")),
        }
    }
    let copies_removed = cleanup
        .removed
        .iter()
        .any(|path| path.starts_with(".trash/") && path != ".trash/");
    if !cleanup.trashed.is_empty() && !copies_removed && trash_option(vault, config_dir) == "system"
    {
        cleanup.system_trash = Some(format!(
            "Obsidian moved the trashed self-test files (their names hold {random}) to the system trash, as \
             Settings → Files and links → Deleted files says"
        ));
    }
    cleanup
}

/// Every file under `folder` on disk, as vault paths under `prefix`, deepest first.
fn files_under(folder: &Path, prefix: &str, out: &mut Vec<String>) {
    let Ok(read) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in read.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = format!("{prefix}/{name}");
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            files_under(&entry.path(), &path, out);
        } else {
            out.push(path);
        }
    }
}

/// Obsidian's "Deleted files" setting (`app.json` `trashOption`): `system` unless it says otherwise.
fn trash_option(vault: &Path, config_dir: &str) -> String {
    std::fs::read_to_string(vault.join(config_dir).join("app.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|app| app["trashOption"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "system".to_owned())
}

fn remove(path: &Path) -> std::io::Result<()> {
    if path.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
}

/// The names in a folder (none when it does not exist).
fn entries(folder: &Path) -> BTreeSet<String> {
    std::fs::read_dir(folder)
        .map(|read| {
            read.filter_map(Result::ok)
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

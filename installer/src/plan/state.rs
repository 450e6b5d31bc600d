//! obsmcp's record of what setup created from nothing: files, folders, and containers such as an `mcpServers`
//! object that did not exist before. Uninstall reads it to remove exactly those and nothing the user had, so that a
//! file setup created leaves nothing behind and a pre-existing one comes back byte for byte.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::document::KeyPath;
use crate::environment::Environment;
use crate::plan::write::{self, FileError};

/// The record, as stored in `installed.json` in obsmcp's state folder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// Files setup created.
    #[serde(default)]
    pub created_files: BTreeSet<PathBuf>,
    /// Folders setup created.
    #[serde(default)]
    pub created_dirs: BTreeSet<PathBuf>,
    /// Per file, the objects or arrays setup created inside it.
    #[serde(default)]
    pub created_containers: BTreeMap<PathBuf, BTreeSet<KeyPath>>,
    /// The vaults setup installed the plugin into, with their config folder.
    #[serde(default)]
    pub vaults: BTreeMap<PathBuf, String>,
    /// Folders created to hold this record itself, removed with it.
    #[serde(default)]
    pub own_dirs: BTreeSet<PathBuf>,
    /// The copy of obsmcp setup installed because the binary it ran from would not last (`plan::binary`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installed_binary: Option<PathBuf>,
    /// What tells each vault in `vaults` apart once it has moved or been renamed (`setup::moves`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub identities: BTreeMap<PathBuf, VaultIdentity>,
}

/// What identifies a vault wherever its folder goes: the digest of its plugin token (the token moves with the vault's
/// `data.json`; the token itself is a secret and is not stored here) and Obsidian's id for it (Obsidian keeps the id
/// when it renames or moves a vault itself).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VaultIdentity {
    /// The first 16 hex digits of the SHA-256 of the plugin token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Obsidian's registry id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obsidian_id: Option<String>,
}

impl VaultIdentity {
    /// The digest recorded for `token`.
    pub fn digest(token: &str) -> String {
        use sha2::{Digest, Sha256};
        Sha256::digest(token.as_bytes())
            .iter()
            .take(8)
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

impl State {
    /// Where a write to `file` failed: what this record says about it goes back to what `original` said, since the
    /// file did not change.
    pub fn keep_file_as_in(&mut self, original: &State, file: &Path) {
        if original.created_files.contains(file) {
            self.created_files.insert(file.to_owned());
        } else {
            self.created_files.remove(file);
        }
        match original.created_containers.get(file) {
            Some(containers) => {
                self.created_containers
                    .insert(file.to_owned(), containers.clone());
            }
            None => {
                self.created_containers.remove(file);
            }
        }
    }
}

/// The state file's path.
pub fn path(environment: &Environment) -> PathBuf {
    environment.state_home().join("installed.json")
}

impl State {
    /// Loads the record; a missing or unreadable one is empty (uninstall then only removes, never prunes).
    pub fn load(environment: &Environment) -> Self {
        std::fs::read_to_string(path(environment))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    /// Saves the record, or removes the file (and the folder, if empty) when nothing is left in it.
    pub fn save(&mut self, environment: &Environment) -> Result<(), FileError> {
        let file = path(environment);
        if self.records_nothing() {
            write::remove_file(&file)?;
            let mut own_dirs: Vec<&PathBuf> = self.own_dirs.iter().collect();
            own_dirs.sort_by_key(|folder| std::cmp::Reverse(folder.components().count()));
            for folder in own_dirs {
                remove_dir_if_empty(folder);
            }
            if let Some(folder) = file.parent() {
                remove_dir_if_empty(folder);
            }
            return Ok(());
        }
        self.claim_own_dirs(environment);
        let text = serde_json::to_string_pretty(self).expect("the state serialises") + "\n";
        write::write_atomic_without_backup(&file, text.as_bytes())
    }

    /// Records the folders up to the record's file that do not exist yet, which obsmcp is about to create (for the
    /// record itself, or for backups kept beside it), so that they go once nothing is recorded any more.
    pub fn claim_own_dirs(&mut self, environment: &Environment) {
        let file = path(environment);
        let mut folder = file.parent();
        while let Some(dir) = folder.filter(|dir| !dir.as_os_str().is_empty() && !dir.exists()) {
            self.own_dirs.insert(dir.to_owned());
            folder = dir.parent();
        }
    }

    /// Whether nothing but the record's own folders is left in it.
    fn records_nothing(&self) -> bool {
        self.created_files.is_empty()
            && self.created_dirs.is_empty()
            && self.created_containers.is_empty()
            && self.vaults.is_empty()
            && self.installed_binary.is_none()
    }

    /// A vault that moved from `from` to `to`: every path recorded under `from` (files and folders setup created,
    /// containers, the vault itself) now lives under `to`, and its identity is known at both places.
    pub fn move_vault(&mut self, from: &Path, to: &Path) {
        let moved = |path: &Path| match path.strip_prefix(from) {
            Ok(rest) if rest.as_os_str().is_empty() => to.to_owned(),
            Ok(rest) => to.join(rest),
            Err(_) => path.to_owned(),
        };
        self.created_files = self.created_files.iter().map(|path| moved(path)).collect();
        self.created_dirs = self.created_dirs.iter().map(|path| moved(path)).collect();
        self.created_containers = std::mem::take(&mut self.created_containers)
            .into_iter()
            .map(|(path, containers)| (moved(&path), containers))
            .collect();
        if let Some(config_dir) = self.vaults.remove(from) {
            self.vaults.insert(to.to_owned(), config_dir);
        }
        // The old place keeps its identity too: entries in clients this run does not touch may still name it.
        if let Some(identity) = self.identities.get(from).cloned() {
            self.identities.insert(to.to_owned(), identity);
        }
    }

    /// Forgets a vault: its config folder and its identity.
    pub fn forget_vault(&mut self, vault: &Path) {
        self.vaults.remove(vault);
        self.identities.remove(vault);
    }

    /// Forgets everything recorded about `file`.
    pub fn forget_file(&mut self, file: &Path) {
        self.created_files.remove(file);
        self.created_containers.remove(file);
    }
}

/// Removes a folder only when it is empty; anything else in it means it is not obsmcp's to remove.
pub fn remove_dir_if_empty(folder: &Path) -> bool {
    std::fs::remove_dir(folder).is_ok()
}

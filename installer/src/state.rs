//! obsmcp's record of what setup created from nothing: files, folders, and containers such as an `mcpServers`
//! object that did not exist before. Uninstall reads it to remove exactly those and nothing the user had, so that a
//! file setup created leaves nothing behind and a pre-existing one comes back byte for byte.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::document::KeyPath;
use crate::environment::Environment;
use crate::files::{self, FileError};

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
    pub fn save(&self, environment: &Environment) -> Result<(), FileError> {
        let file = path(environment);
        if *self == State::default() {
            files::remove_file(&file)?;
            if let Some(folder) = file.parent() {
                remove_dir_if_empty(folder);
            }
            return Ok(());
        }
        let text = serde_json::to_string_pretty(self).expect("the state serialises") + "\n";
        files::write_atomic_without_backup(&file, text.as_bytes())
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

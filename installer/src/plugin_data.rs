//! The plugin's `data.json`: the port and token that the plugin listens with and the bridge connects with.
//!
//! Obsidian's `loadData`/`saveData` own this file, so it is read leniently (unknown keys kept, camelCase as the
//! plugin writes them) and only the fields obsmcp needs are typed.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The plugin id, which is also its folder name under `<configDir>/plugins/`.
pub const PLUGIN_ID: &str = "obsmcp";

/// The config folder name Obsidian uses unless the user overrides it.
pub const DEFAULT_CONFIG_DIR: &str = ".obsidian";

/// The first port setup hands out.
pub const DEFAULT_PORT: u16 = 22400;

/// The settings the plugin keeps in `data.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PluginData {
    /// The loopback port the plugin listens on.
    pub port: u16,
    /// The bearer token clients must send (64 hex characters when setup made it).
    pub token: String,
    /// Whether the plugin refuses every write tool.
    #[serde(default)]
    pub read_only: bool,
    /// Keys this version does not know, kept as they were.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// Why `data.json` could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PluginDataError {
    /// The file is not there: the plugin was never installed or never started.
    #[error("`{path}` does not exist")]
    Missing { path: PathBuf },
    /// The file could not be read.
    #[error("could not read `{path}`")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file is not the JSON object the plugin writes.
    #[error("`{path}` is not valid plugin settings: {source}")]
    Invalid {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// The plugin's folder inside a vault.
pub fn plugin_dir(vault: &Path, config_dir: &str) -> PathBuf {
    vault.join(config_dir).join("plugins").join(PLUGIN_ID)
}

/// Where the plugin's `data.json` lives inside a vault.
pub fn data_json_path(vault: &Path, config_dir: &str) -> PathBuf {
    plugin_dir(vault, config_dir).join("data.json")
}

/// Reads and validates the plugin's `data.json`.
pub fn read(vault: &Path, config_dir: &str) -> Result<PluginData, PluginDataError> {
    let path = data_json_path(vault, config_dir);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(PluginDataError::Missing { path });
        }
        Err(source) => return Err(PluginDataError::Unreadable { path, source }),
    };
    parse(&text).map_err(|source| PluginDataError::Invalid { path, source })
}

/// Parses the text of a `data.json`.
pub fn parse(text: &str) -> Result<PluginData, serde_json::Error> {
    serde_json::from_str(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_the_plugin_writes_and_keeps_unknown_keys() {
        let data =
            parse(r#"{"port":22401,"token":"abc","readOnly":true,"future":{"x":1}}"#).unwrap();
        assert_eq!(data.port, 22401);
        assert_eq!(data.token, "abc");
        assert!(data.read_only);
        assert_eq!(data.other["future"]["x"], 1);
    }

    #[test]
    fn read_only_defaults_to_false() {
        assert!(!parse(r#"{"port":1,"token":"t"}"#).unwrap().read_only);
    }

    #[test]
    fn a_port_out_of_range_is_an_error() {
        assert!(parse(r#"{"port":70000,"token":"t"}"#).is_err());
    }

    #[test]
    fn missing_file_is_reported_as_missing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            read(dir.path(), DEFAULT_CONFIG_DIR),
            Err(PluginDataError::Missing { .. })
        ));
    }
}

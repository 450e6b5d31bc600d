//! Installing the obsmcp plugin into a vault: its three files from bytes embedded in the binary, its `data.json`
//! (an existing port and token are kept; only what is missing is filled), and its id in `community-plugins.json`.

use std::path::{Path, PathBuf};

use crate::document::{Format, Operation, key_path};
use crate::obsidian_files::plugin_data::{PLUGIN_ID, plugin_dir};

/// The plugin files a binary carries.
#[derive(Debug, Clone, Copy)]
pub struct PluginBundle {
    /// `main.js`, the bundled plugin.
    pub main_js: &'static [u8],
    /// `manifest.json`.
    pub manifest: &'static [u8],
    /// `styles.css`, when the plugin has one.
    pub styles: Option<&'static [u8]>,
}

impl PluginBundle {
    /// The files to write into the plugin folder, by name.
    pub fn files(&self) -> Vec<(&'static str, &'static [u8])> {
        let mut files = vec![("main.js", self.main_js), ("manifest.json", self.manifest)];
        if let Some(styles) = self.styles {
            files.push(("styles.css", styles));
        }
        files
    }
}

/// Every file name setup may write into the plugin folder (uninstall removes exactly these).
pub const PLUGIN_FILES: &[&str] = &["main.js", "manifest.json", "styles.css", "data.json"];

/// The folder ids of older Obsidian MCP plugins users may still run beside obsmcp.
pub const OLDER_PLUGINS: &[&str] = &["claude-code-mcp"];

/// The vault's `community-plugins.json`.
pub fn community_plugins_path(vault: &Path, config_dir: &str) -> PathBuf {
    vault.join(config_dir).join("community-plugins.json")
}

/// The operation that enables the plugin.
pub fn enable_operation() -> Operation {
    Operation::AddToArray {
        path: Vec::new(),
        items: vec![PLUGIN_ID.to_owned()],
    }
}

/// The operation that disables it again.
pub fn disable_operation() -> Operation {
    Operation::RemoveFromArray {
        path: Vec::new(),
        items: vec![PLUGIN_ID.to_owned()],
    }
}

/// The format of Obsidian's own JSON files.
pub const OBSIDIAN_FORMAT: Format = Format::Json;

/// Older MCP plugins installed in this vault.
pub fn older_plugins(vault: &Path, config_dir: &str) -> Vec<&'static str> {
    let plugins = vault.join(config_dir).join("plugins");
    OLDER_PLUGINS
        .iter()
        .copied()
        .filter(|id| plugins.join(id).is_dir())
        .collect()
}

/// The operations that fill what `data.json` lacks, leaving every present value alone.
pub fn data_operations(
    existing: &serde_json::Value,
    initial: &serde_json::Value,
) -> Vec<Operation> {
    let Some(initial) = initial.as_object() else {
        return Vec::new();
    };
    initial
        .iter()
        .filter(|(key, _)| {
            existing
                .get(key.as_str())
                .is_none_or(|value| value.is_null() || value == "")
        })
        .map(|(key, value)| Operation::Replace {
            path: key_path(&[key]),
            value: value.clone(),
        })
        .collect()
}

/// A new token: 256 random bits, as 64 hex characters.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system provides random bytes");
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The plugin's folder (re-exported for callers that only use this module).
pub fn folder(vault: &Path, config_dir: &str) -> PathBuf {
    plugin_dir(vault, config_dir)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tokens_are_256_bits_of_hex_and_differ() {
        let (first, second) = (new_token(), new_token());
        assert_eq!(first.len(), 64);
        assert!(first.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(first, second);
    }

    #[test]
    fn data_keeps_what_exists_and_fills_the_rest() {
        let initial = json!({"port": 22401, "token": "new"});
        assert!(
            data_operations(
                &json!({"port": 23000, "token": "old", "readOnly": true}),
                &initial
            )
            .is_empty()
        );
        let filled = data_operations(&json!({"port": 23000, "token": ""}), &initial);
        assert_eq!(
            filled,
            [Operation::Replace {
                path: key_path(&["token"]),
                value: json!("new")
            }]
        );
    }

    #[test]
    fn older_plugin_is_noticed() {
        let vault = tempfile::tempdir().unwrap();
        assert!(older_plugins(vault.path(), ".obsidian").is_empty());
        std::fs::create_dir_all(vault.path().join(".obsidian/plugins/claude-code-mcp")).unwrap();
        assert_eq!(
            older_plugins(vault.path(), ".obsidian"),
            ["claude-code-mcp"]
        );
    }
}

//! The plugin's `data.json`: the port and token that the plugin listens with and the bridge connects with, and the
//! rules that hide private notes from every tool.
//!
//! Obsidian's `loadData`/`saveData` own this file, so it is read leniently (unknown keys kept, camelCase as the
//! plugin writes them) and only the fields obsmcp needs are typed. The hidden-path settings are read exactly as the
//! plugin's `mergeSettings` reads them: a value of another shape is never an error (it would make the whole file
//! unreadable, and with it the rules that guard private notes) but read for what it holds, and kept as it was.

use std::path::{Path, PathBuf};

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

/// The plugin id, which is also its folder name under `<configDir>/plugins/`.
pub const PLUGIN_ID: &str = "obsmcp";

/// The config folder name Obsidian uses unless the user overrides it.
pub const DEFAULT_CONFIG_DIR: &str = ".obsidian";

/// The first port setup hands out.
pub const DEFAULT_PORT: u16 = 22400;

/// The `data.json` key of the hidden-path rules.
pub const HIDDEN_PATHS_KEY: &str = "hiddenPaths";

/// The `data.json` key of the switch that hides Obsidian's "Excluded files" too.
pub const HIDE_EXCLUDED_FILES_KEY: &str = "hideExcludedFiles";

/// The settings the plugin keeps in `data.json`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "StoredPluginData")]
pub struct PluginData {
    /// The loopback port the plugin listens on.
    pub port: u16,
    /// The bearer token clients must send (64 hex characters when setup made it).
    pub token: String,
    /// Whether the plugin refuses every write tool.
    pub read_only: bool,
    /// The rules that hide paths from every tool (`hiddenPaths`), as the plugin reads them.
    pub hidden_paths: Vec<String>,
    /// Whether Obsidian's own "Excluded files" are hidden too (`hideExcludedFiles`).
    pub hide_excluded_files: bool,
    /// Keys this version does not know, kept as they were; also `hiddenPaths` or `hideExcludedFiles` when stored in
    /// another shape than a list of strings or a boolean (such a value is written back as it was, in place of the
    /// typed field).
    pub other: Map<String, Value>,
}

/// `data.json` as stored, before the hidden-path settings are read out of the keys it does not type.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredPluginData {
    port: u16,
    token: String,
    #[serde(default)]
    read_only: bool,
    #[serde(flatten)]
    other: Map<String, Value>,
}

impl From<StoredPluginData> for PluginData {
    fn from(stored: StoredPluginData) -> Self {
        let mut other = stored.other;
        let hidden = HiddenSettings::of(&other);
        // Values of the shape obsmcp writes move to the typed fields; any other shape stays in `other`, so that
        // writing the settings back loses nothing the user wrote.
        if other.get(HIDDEN_PATHS_KEY).is_some_and(is_list_of_strings) {
            other.remove(HIDDEN_PATHS_KEY);
        }
        if other
            .get(HIDE_EXCLUDED_FILES_KEY)
            .is_some_and(Value::is_boolean)
        {
            other.remove(HIDE_EXCLUDED_FILES_KEY);
        }
        PluginData {
            port: stored.port,
            token: stored.token,
            read_only: stored.read_only,
            hidden_paths: hidden.hidden_paths,
            hide_excluded_files: hidden.hide_excluded_files,
            other,
        }
    }
}

impl Serialize for PluginData {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("port", &self.port)?;
        map.serialize_entry("token", &self.token)?;
        map.serialize_entry("readOnly", &self.read_only)?;
        // Left out while unset, as setup's template leaves them out; a value of another shape kept in `other` is
        // written there instead, once.
        if !self.hidden_paths.is_empty() && !self.other.contains_key(HIDDEN_PATHS_KEY) {
            map.serialize_entry(HIDDEN_PATHS_KEY, &self.hidden_paths)?;
        }
        if self.hide_excluded_files && !self.other.contains_key(HIDE_EXCLUDED_FILES_KEY) {
            map.serialize_entry(HIDE_EXCLUDED_FILES_KEY, &true)?;
        }
        for (key, value) in &self.other {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

fn is_list_of_strings(value: &Value) -> bool {
    value
        .as_array()
        .is_some_and(|items| items.iter().all(Value::is_string))
}

/// The hidden-path settings of a `data.json`, on their own: readable even when the port or token is not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HiddenSettings {
    /// The rules, as the plugin reads `hiddenPaths`.
    pub hidden_paths: Vec<String>,
    /// Whether `hideExcludedFiles` is on.
    pub hide_excluded_files: bool,
}

impl HiddenSettings {
    /// Reads them from the object of a `data.json` as the plugin's `mergeSettings` does: `hiddenPaths` is the
    /// strings of a list (other items skipped) or a lone string, anything else no rules; `hideExcludedFiles` is on
    /// only when it is `true`.
    pub fn of(object: &Map<String, Value>) -> Self {
        let hidden_paths = match object.get(HIDDEN_PATHS_KEY) {
            Some(Value::String(rule)) => vec![rule.clone()],
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        HiddenSettings {
            hidden_paths,
            hide_excluded_files: object.get(HIDE_EXCLUDED_FILES_KEY) == Some(&Value::Bool(true)),
        }
    }
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
    let (path, text) = read_text(vault, config_dir)?;
    parse(&text).map_err(|source| PluginDataError::Invalid { path, source })
}

/// Reads the hidden-path settings of the plugin's `data.json`, whatever its port and token hold (the plugin replaces
/// a bad port or token with its defaults but keeps the rules). A JSON value that is not an object holds no rules, as
/// the plugin sees it; text that is not JSON is an error, since the rules it was meant to hold are unknown.
pub fn read_hidden_settings(
    vault: &Path,
    config_dir: &str,
) -> Result<HiddenSettings, PluginDataError> {
    let (path, text) = read_text(vault, config_dir)?;
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(object)) => Ok(HiddenSettings::of(&object)),
        Ok(_) => Ok(HiddenSettings::default()),
        Err(source) => Err(PluginDataError::Invalid { path, source }),
    }
}

fn read_text(vault: &Path, config_dir: &str) -> Result<(PathBuf, String), PluginDataError> {
    let path = data_json_path(vault, config_dir);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok((path, text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Err(PluginDataError::Missing { path })
        }
        Err(source) => Err(PluginDataError::Unreadable { path, source }),
    }
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
    fn hidden_settings_are_typed_and_left_out_of_the_file_while_unset() {
        let data = parse(
            r#"{"port":1,"token":"t","hiddenPaths":["Private/","Diary"],"hideExcludedFiles":true,"x":1}"#,
        )
        .unwrap();
        assert_eq!(data.hidden_paths, ["Private/", "Diary"]);
        assert!(data.hide_excluded_files);
        assert!(data.other.keys().eq(["x"]), "{:?}", data.other);
        assert_eq!(
            serde_json::to_string(&data).unwrap(),
            r#"{"port":1,"token":"t","readOnly":false,"hiddenPaths":["Private/","Diary"],"hideExcludedFiles":true,"x":1}"#
        );
        let plain = parse(r#"{"port":1,"token":"t"}"#).unwrap();
        assert!(plain.hidden_paths.is_empty() && !plain.hide_excluded_files);
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            r#"{"port":1,"token":"t","readOnly":false}"#
        );
    }

    #[test]
    fn hidden_settings_of_another_shape_are_read_as_the_plugin_reads_them_and_kept() {
        for (stored, rules, excluded) in [
            (
                r#""hiddenPaths":"Diary","hideExcludedFiles":"yes""#,
                vec!["Diary"],
                false,
            ),
            (
                r#""hiddenPaths":["a",3,null,"b"],"hideExcludedFiles":1"#,
                vec!["a", "b"],
                false,
            ),
            (
                r#""hiddenPaths":{"a":1},"hideExcludedFiles":null"#,
                vec![],
                false,
            ),
            (r#""hiddenPaths":7,"hideExcludedFiles":true"#, vec![], true),
        ] {
            let text = format!(r#"{{"port":1,"token":"t","readOnly":false,{stored}}}"#);
            let data = parse(&text).unwrap_or_else(|error| panic!("{stored}: {error}"));
            assert_eq!(data.hidden_paths, rules, "{stored}");
            assert_eq!(data.hide_excluded_files, excluded, "{stored}");
            let written: Value = serde_json::to_value(&data).unwrap();
            let original: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(written, original, "{stored}: nothing is lost");
        }
    }

    #[test]
    fn hidden_settings_are_read_without_a_valid_port_or_token() {
        let dir = tempfile::tempdir().unwrap();
        let path = data_json_path(dir.path(), DEFAULT_CONFIG_DIR);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, r#"{"port":"x","hiddenPaths":["Private"]}"#).unwrap();
        assert!(read(dir.path(), DEFAULT_CONFIG_DIR).is_err());
        let hidden = read_hidden_settings(dir.path(), DEFAULT_CONFIG_DIR).unwrap();
        assert_eq!(hidden.hidden_paths, ["Private"]);
        std::fs::write(&path, "[1]").unwrap();
        assert_eq!(
            read_hidden_settings(dir.path(), DEFAULT_CONFIG_DIR).unwrap(),
            HiddenSettings::default()
        );
        std::fs::write(&path, r#"{"hiddenPaths":["Priv"#).unwrap();
        assert!(matches!(
            read_hidden_settings(dir.path(), DEFAULT_CONFIG_DIR),
            Err(PluginDataError::Invalid { .. })
        ));
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

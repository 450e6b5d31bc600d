//! Checks of one vault: its folder and config dir, the plugin's files against the bundled version, its enablement,
//! `data.json`, other plugins that want the same port, edits of large notes that were interrupted (`kept.rs`), and
//! then what answers on that port.
//!
//! The file checks are synchronous and cheap; the network part is split off ([`VaultFacts::port_and_token`]) so the
//! caller can probe every vault at once and come back with the answers ([`network_checks`], in `network.rs`).
//!
//! The file checks of one vault, in the order the report shows them; the network checks are `network.rs`.

mod kept;
mod network;

use std::path::{Path, PathBuf};

pub(crate) use obsmcp_installer::environment::shell_quote;
use obsmcp_installer::obsidian_files::plugin_data::{self, PLUGIN_ID, PluginData, PluginDataError};
use serde_json::Value;

use crate::assets::BUNDLE;
use crate::doctor::plugin_probe::Answer;
use crate::doctor::report::{Check, Repair};
pub(crate) use kept::repair as repair_kept_copies;
pub(crate) use network::network_checks;

/// Ports that belong to other Obsidian plugins users run beside ours.
pub(crate) const FOREIGN_PORTS: [(u16, &str); 3] = [
    (22360, "the older claude-code-mcp plugin"),
    (27123, "the Local REST API plugin (HTTP)"),
    (27124, "the Local REST API plugin (HTTPS)"),
];

/// A vault to check, with the config dir to look in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VaultTarget {
    /// The vault folder, as given or found.
    pub(crate) path: PathBuf,
    /// The config folder's name (`.obsidian` unless overridden).
    pub(crate) config_dir: String,
}

/// What the file checks learnt, for the network and cross-vault checks.
#[derive(Debug)]
pub(crate) struct VaultFacts {
    /// Which vault.
    pub(crate) target: VaultTarget,
    /// The checks made so far.
    pub(crate) checks: Vec<Check>,
    /// The plugin's settings, when readable.
    pub(crate) data: Option<PluginData>,
    /// Whether the plugin's files are present and it is enabled: only then should anything answer on the port.
    pub(crate) should_be_listening: bool,
    /// The plugin version found on disk, if any.
    pub(crate) files_version: Option<String>,
}

impl VaultFacts {
    /// The port and token to probe, when `data.json` gave them.
    pub(crate) fn port_and_token(&self) -> Option<(u16, String)> {
        self.data
            .as_ref()
            .map(|data| (data.port, data.token.clone()))
    }
}

/// Runs the file checks of one vault; `obsmcp` is how the running binary is typed in a shell, for the fixes, and
/// `gone_fix` the fix when the folder is gone (`doctor::moved`).
pub(crate) fn file_checks(
    target: VaultTarget,
    obsmcp: &str,
    gone_fix: Option<String>,
) -> VaultFacts {
    let mut facts = VaultFacts {
        target,
        checks: Vec::new(),
        data: None,
        should_be_listening: false,
        files_version: None,
    };
    let vault = facts.target.path.clone();
    let config_dir = facts.target.config_dir.clone();
    let config = vault.join(&config_dir);
    let setup = setup_command(obsmcp, &vault, &config_dir);

    if !vault.is_dir() {
        facts.checks.push(Check::fail(
            "vault.folder",
            format!("the vault folder `{}` does not exist", vault.display()),
            gone_fix.unwrap_or_else(|| {
                format!("point the client entry at the vault's real folder, e.g. `{setup}` with the right path")
            }),
        ));
        return facts;
    }
    if !config.is_dir() {
        facts.checks.push(Check::fail(
            "vault.folder",
            format!("`{}` has no `{config_dir}` folder: it was never opened in Obsidian, or its config folder has another name", vault.display()),
            format!("open it once in Obsidian, or name the config folder: `{setup}`"),
        ));
        return facts;
    }
    facts.checks.push(Check::ok(
        "vault.folder",
        format!("the vault folder and its `{config_dir}` folder exist"),
    ));

    let files = plugin_files(obsmcp, &vault, &config_dir);
    let files_ok = files.status != crate::doctor::report::Status::Fail;
    facts.files_version = read_manifest_version(&vault, &config_dir);
    facts.checks.push(files);

    let enabled = enabled_check(obsmcp, &vault, &config_dir);
    let enabled_ok = enabled.status == crate::doctor::report::Status::Ok;
    facts.checks.push(enabled);

    let (data_check, data) = data_check(obsmcp, &vault, &config_dir, facts.files_version.is_some());
    facts.checks.push(data_check);
    facts.data = data;
    if let Some(data) = &facts.data {
        facts
            .checks
            .push(port_rivals(&vault, &config_dir, data.port));
    }
    facts
        .checks
        .extend(kept::interrupted_edits(&vault, &config_dir));
    facts.should_be_listening = files_ok && enabled_ok && facts.data.is_some();
    facts
}

fn setup_command(obsmcp: &str, vault: &Path, config_dir: &str) -> String {
    let mut command = format!(
        "{obsmcp} setup --vault {}",
        shell_quote(&vault.to_string_lossy())
    );
    if config_dir != plugin_data::DEFAULT_CONFIG_DIR {
        command.push_str(&format!(" --config-dir {}", shell_quote(config_dir)));
    }
    command
}

fn read_manifest_version(vault: &Path, config_dir: &str) -> Option<String> {
    let text =
        std::fs::read_to_string(plugin_data::plugin_dir(vault, config_dir).join("manifest.json"))
            .ok()?;
    let manifest: Value = serde_json::from_str(&text).ok()?;
    manifest.get("version")?.as_str().map(str::to_owned)
}

fn plugin_files(obsmcp: &str, vault: &Path, config_dir: &str) -> Check {
    let dir = plugin_data::plugin_dir(vault, config_dir);
    let repair = Repair::InstallPlugin {
        vault: vault.to_owned(),
        config_dir: config_dir.to_owned(),
    };
    let fix = &format!("{obsmcp} doctor --fix (writes the bundled plugin files)");
    let missing: Vec<&str> = ["manifest.json", "main.js"]
        .into_iter()
        .filter(|name| !dir.join(name).is_file())
        .collect();
    if !missing.is_empty() {
        return Check::fail(
            "plugin.files",
            format!(
                "the plugin is not installed: {} missing in `{}`",
                missing.join(" and "),
                dir.display()
            ),
            fix,
        )
        .with_repair(repair);
    }
    let bundled = crate::version::PLUGIN;
    match read_manifest_version(vault, config_dir) {
        None => Check::fail("plugin.files", format!("`{}` has no readable version", dir.join("manifest.json").display()), fix)
            .with_repair(repair),
        Some(version) if version == bundled => {
            let is_bundled =
                |name: &str, bundled: &[u8]| std::fs::read(dir.join(name)).is_ok_and(|bytes| bytes == bundled);
            if !is_bundled("main.js", BUNDLE.main_js) {
                Check::warn(
                    "plugin.files",
                    format!("plugin {version} installed, but its main.js is not the build this obsmcp carries (a development build?)"),
                    format!("{obsmcp} doctor --fix (writes the bundled build; then reload the plugin in Obsidian: Settings → Community plugins → turn obsmcp off and on)"),
                )
                .with_repair(repair)
            } else if BUNDLE.styles.is_some_and(|styles| !is_bundled("styles.css", styles)) {
                // Older `doctor --fix` runs installed the plugin without it; the plugin works, its settings tab is unstyled.
                Check::warn(
                    "plugin.files",
                    format!("plugin {version} installed, but its styles.css is missing or not the one this obsmcp carries"),
                    format!("{obsmcp} doctor --fix (writes the bundled styles.css; then reload the plugin in Obsidian: Settings → Community plugins → turn obsmcp off and on)"),
                )
                .with_repair(repair)
            } else {
                Check::ok("plugin.files", format!("plugin {version} installed, the version this obsmcp bundles"))
            }
        }
        Some(version) => Check::fail(
            "plugin.files",
            format!("the plugin files are version {version}, this obsmcp bundles {bundled}: they are outdated"),
            format!("{obsmcp} doctor --fix (updates the plugin; then reload it in Obsidian: Settings → Community plugins → turn obsmcp off and on)"),
        )
        .with_repair(repair),
    }
}

fn enabled_check(obsmcp: &str, vault: &Path, config_dir: &str) -> Check {
    let path = vault.join(config_dir).join("community-plugins.json");
    let repair = Repair::EnablePlugin {
        vault: vault.to_owned(),
        config_dir: config_dir.to_owned(),
    };
    let fix = &format!(
        "{obsmcp} doctor --fix, or in Obsidian: Settings → Community plugins → turn on “obsmcp”"
    );
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Check::fail(
                "plugin.enabled",
                format!("no `{}`: no community plugin is enabled", path.display()),
                fix,
            )
            .with_repair(repair);
        }
        Err(error) => {
            return Check::fail(
                "plugin.enabled",
                format!("cannot read `{}`: {error}", path.display()),
                "check the file's permissions",
            );
        }
    };
    match serde_json::from_str::<Vec<Value>>(&text) {
        Ok(ids) if ids.iter().any(|id| id.as_str() == Some(PLUGIN_ID)) => Check::ok(
            "plugin.enabled",
            "obsmcp is enabled in community-plugins.json",
        ),
        Ok(_) => Check::fail(
            "plugin.enabled",
            "obsmcp is installed but not enabled in community-plugins.json",
            fix,
        )
        .with_repair(repair),
        Err(error) => Check::fail(
            "plugin.enabled",
            format!(
                "`{}` is not a JSON list of plugin ids: {error}",
                path.display()
            ),
            "in Obsidian: Settings → Community plugins, toggle any plugin to make Obsidian rewrite the file (doctor will not edit a file it cannot read)",
        ),
    }
}

/// "; N hidden-path rules" when rules hide private notes (how many, never what they hide).
fn hidden_rules_note(vault: &Path, config_dir: &str) -> String {
    match crate::offline::hidden_rule_count(vault, config_dir) {
        0 => String::new(),
        1 => "; 1 hidden-path rule".into(),
        count => format!("; {count} hidden-path rules"),
    }
}

/// The permission bits of a file when its group or others may read or write it (Unix); `None` when only its owner may,
/// or on systems without such bits.
pub(crate) fn shared_mode(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
        (mode & 0o077 != 0).then_some(mode)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

fn data_check(
    obsmcp: &str,
    vault: &Path,
    config_dir: &str,
    installed: bool,
) -> (Check, Option<PluginData>) {
    let repair = Repair::PluginData {
        vault: vault.to_owned(),
        config_dir: config_dir.to_owned(),
    };
    match plugin_data::read(vault, config_dir) {
        Ok(data) if data.token.trim().is_empty() => (
            Check::fail(
                "plugin.data",
                "data.json has an empty token: no client can connect",
                format!("{obsmcp} doctor --fix (makes a new token)"),
            )
            .with_repair(repair),
            None,
        ),
        Ok(data) if let Some(mode) = shared_mode(&plugin_data::data_json_path(vault, config_dir)) => (
            Check::fail(
                "plugin.data",
                format!("data.json can be read by other users of this machine (mode {mode:04o}), and it holds the token"),
                format!("{obsmcp} doctor --fix (sets it to 0600), or: chmod 600 {}", plugin_data::data_json_path(vault, config_dir).display()),
            )
            .with_repair(repair),
            Some(data),
        ),
        Ok(data) => {
            let check = match FOREIGN_PORTS.iter().find(|(port, _)| *port == data.port) {
                Some((port, owner)) => Check::warn(
                    "plugin.data",
                    format!("data.json sets port {port}, which {owner} uses by default: the plugin refuses it and falls back to {}", plugin_data::DEFAULT_PORT),
                    format!("in Obsidian: Settings → obsmcp → Port, pick another (e.g. 22401), then rerun `{obsmcp} setup`"),
                ),
                None if data.port < 1024 => Check::warn(
                    "plugin.data",
                    format!("data.json sets port {}, below 1024: the plugin refuses it and falls back to {}", data.port, plugin_data::DEFAULT_PORT),
                    "in Obsidian: Settings → obsmcp → Port, pick one from 1024 to 65535",
                ),
                None if !plugin_accepts_token(&data.token) => Check::warn(
                    "plugin.data",
                    "the token in data.json is not one the plugin accepts (32 to 512 letters, digits or ._~+/=-): it will replace it on its next start",
                    format!("{obsmcp} doctor --fix (makes a new token), or let the plugin make one: Settings → obsmcp → Regenerate token"),
                )
                .with_repair(repair),
                None => Check::ok(
                    "plugin.data",
                    format!(
                        "data.json holds port {} and a token{}{}",
                        data.port,
                        if data.read_only { " (read-only)" } else { "" },
                        hidden_rules_note(vault, config_dir)
                    ),
                ),
            };
            (check, Some(data))
        }
        Err(PluginDataError::Missing { path }) if installed => (
            Check::fail(
                "plugin.data",
                format!(
                    "`{}` is missing: the plugin has no port or token yet",
                    path.display()
                ),
                format!("{obsmcp} doctor --fix"),
            )
            .with_repair(repair),
            None,
        ),
        Err(PluginDataError::Missing { .. }) => (
            Check::skip(
                "plugin.data",
                "no data.json, because the plugin is not installed",
            ),
            None,
        ),
        Err(PluginDataError::Invalid { path, source }) => (
            Check::fail(
                "plugin.data",
                format!("`{}` is broken: {source}", path.display()),
                format!(
                    "{obsmcp} doctor --fix (rewrites it, keeping the token when it can be read)"
                ),
            )
            .with_repair(repair),
            None,
        ),
        Err(error) => (
            Check::fail(
                "plugin.data",
                error.to_string(),
                "check the file's permissions",
            ),
            None,
        ),
    }
}

/// The plugin's own rule for tokens it keeps (`isValidToken` in the plugin's settings).
pub(crate) fn plugin_accepts_token(token: &str) -> bool {
    (32..=512).contains(&token.len())
        && token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._~+/=-".contains(c))
}

/// Other plugins of the same vault whose settings name our port.
fn port_rivals(vault: &Path, config_dir: &str, port: u16) -> Check {
    let plugins = vault.join(config_dir).join("plugins");
    let enabled: Vec<String> =
        std::fs::read_to_string(vault.join(config_dir).join("community-plugins.json"))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
    let mut rivals = Vec::new();
    for entry in std::fs::read_dir(&plugins).into_iter().flatten().flatten() {
        let id = entry.file_name().to_string_lossy().into_owned();
        if id == PLUGIN_ID {
            continue;
        }
        let Some(settings) = std::fs::read_to_string(entry.path().join("data.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        else {
            continue;
        };
        if names_port(&settings, port) {
            let state = if enabled.contains(&id) {
                "enabled"
            } else {
                "disabled"
            };
            rivals.push(format!("{id} ({state})"));
        }
    }
    if rivals.is_empty() {
        Check::ok(
            "plugin.port_rivals",
            format!("no other plugin of this vault is set to port {port}"),
        )
    } else {
        Check::warn(
            "plugin.port_rivals",
            format!(
                "another plugin wants port {port} too: {}",
                rivals.join(", ")
            ),
            "give one of them another port (Obsidian: Settings → obsmcp → Port), or turn the other plugin off",
        )
    }
}

/// Whether a settings value holds `port` under a key that names a port (`port`, `mcpServerPort`, …).
fn names_port(value: &Value, port: u16) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(key, value)| {
            (key.to_ascii_lowercase().contains("port") && value_is_port(value, port))
                || names_port(value, port)
        }),
        Value::Array(items) => items.iter().any(|item| names_port(item, port)),
        _ => false,
    }
}

fn value_is_port(value: &Value, port: u16) -> bool {
    value.as_u64() == Some(u64::from(port))
        || value
            .as_str()
            .is_some_and(|text| text.trim() == port.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_is_found_under_any_key_that_names_one() {
        let settings: Value =
            serde_json::from_str(r#"{"mcpServerPort": 22400, "other": {"port": "1"}}"#).unwrap();
        assert!(names_port(&settings, 22400));
        assert!(names_port(&settings, 1));
        assert!(!names_port(&settings, 22401));
        let unrelated: Value = serde_json::from_str(r#"{"count": 22400}"#).unwrap();
        assert!(!names_port(&unrelated, 22400));
    }

    #[test]
    fn shell_quoting_only_when_needed() {
        assert_eq!(shell_quote("/home/u/Notes"), "/home/u/Notes");
        assert_eq!(shell_quote("/home/u/My Notes"), "'/home/u/My Notes'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}

//! The AI clients obsmcp registers with, declared as data: where each keeps its config on each OS, the file's
//! format, the key that holds MCP servers, and the entry template. Commands iterate over [`CLIENTS`] and never
//! branch on a client's name; what differs between clients lives in these declarations.
//!
//! The doctor reuses this module: [`ClientSpec::locate`] finds a client's file, [`read_servers`] lists its entries,
//! and [`describe_entry`] says whether an entry is obsmcp's and for which vault. Beside it, [`template`] renders and
//! reads back the entry templates, and [`skill`] is the companion skill for the clients that read skills.
//!
//! This file is longer than the others on purpose: it is one table, and every client's declaration, its `locate`
//! function and the tests that pin them are read together when a client is added or changes its layout.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::document::{Format, KeyPath};
use crate::environment::{Environment, Os};
use template::Template;

pub mod skill;
pub mod template;

/// One AI client, as data.
#[derive(Debug)]
pub struct ClientSpec {
    /// The id used with `--client`.
    pub id: &'static str,
    /// The name people know it by.
    pub name: &'static str,
    /// The config file's format.
    pub format: Format,
    /// The key path of the object that holds one entry per server name.
    pub servers_key: &'static [&'static str],
    /// The entry template (from `templates/clients/`).
    template: &'static str,
    /// Where the config file is, and whether the client looks installed.
    locate: fn(&Environment) -> Location,
    /// Whether writes must take Claude Code's directory lock.
    pub claude_lock: bool,
    /// The mode a config file created from nothing gets (Claude keeps its file private).
    pub new_file_mode: Option<u32>,
    /// Permission rules pre-approving read-only tools, for clients that have them.
    pub permissions: Option<PermissionSpec>,
    /// What the user must do for the client to pick the change up.
    pub after_change: &'static str,
    /// The folder the client reads skills from (`<folder>/<name>/SKILL.md`), for clients that have one.
    pub skills: Option<fn(&Environment) -> PathBuf>,
}

/// Where a client keeps its config on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The config file (symlinks not yet resolved).
    pub config: PathBuf,
    /// Whether the client looks installed: its folder exists or its command is on `PATH`.
    pub detected: bool,
    /// Something that stops obsmcp from writing there, said plainly.
    pub problem: Option<String>,
}

/// Permission rules in a separate settings file (Claude Code's `settings.json`).
#[derive(Debug)]
pub struct PermissionSpec {
    /// The settings file.
    pub locate: fn(&Environment) -> PathBuf,
    /// The key path of the array of allow rules.
    pub allow_key: &'static [&'static str],
    /// Rule for one tool of one server: `{prefix}{server}{separator}{tool}`.
    pub prefix: &'static str,
    /// See `prefix`.
    pub separator: &'static str,
}

impl PermissionSpec {
    /// The rule that pre-approves `tool` of server `server`.
    pub fn rule(&self, server: &str, tool: &str) -> String {
        [self.prefix, server, self.separator, tool].concat()
    }
}

impl ClientSpec {
    /// Where this client's config is on this machine.
    pub fn locate(&self, environment: &Environment) -> Location {
        (self.locate)(environment)
    }

    /// The entry template.
    pub fn template(&self) -> Template {
        Template::parse(self.template)
    }

    /// The key path of the entry named `server`.
    pub fn entry_path(&self, server: &str) -> KeyPath {
        self.servers_key
            .iter()
            .map(|key| (*key).to_owned())
            .chain([server.to_owned()])
            .collect()
    }

    /// The key path of the servers object.
    pub fn servers_path(&self) -> KeyPath {
        self.servers_key
            .iter()
            .map(|key| (*key).to_owned())
            .collect()
    }
}

/// Finds a client by its `--client` id.
pub fn find(id: &str) -> Option<&'static ClientSpec> {
    CLIENTS.iter().find(|client| client.id == id)
}

/// Every client obsmcp knows, in the order they are offered.
pub static CLIENTS: &[ClientSpec] = &[
    ClientSpec {
        id: "claude-code",
        name: "Claude Code",
        format: Format::Json,
        servers_key: &["mcpServers"],
        template: include_str!("../../templates/clients/claude-code.json"),
        locate: claude_code,
        claude_lock: true,
        new_file_mode: Some(0o600),
        permissions: Some(PermissionSpec {
            locate: claude_code_settings,
            allow_key: &["permissions", "allow"],
            prefix: "mcp__",
            separator: "__",
        }),
        after_change: "start a new Claude Code session (or run /mcp) to load it",
        skills: Some(claude_code_skills),
    },
    ClientSpec {
        id: "codex",
        name: "Codex",
        format: Format::Toml,
        servers_key: &["mcp_servers"],
        template: include_str!("../../templates/clients/codex.json"),
        locate: codex,
        claude_lock: false,
        new_file_mode: None,
        permissions: None,
        after_change: "start a new Codex session to load it",
        skills: Some(codex_skills),
    },
    ClientSpec {
        id: "hermes",
        name: "Hermes Agent",
        format: Format::Yaml,
        servers_key: &["mcp_servers"],
        template: include_str!("../../templates/clients/hermes.json"),
        locate: hermes,
        claude_lock: false,
        new_file_mode: None,
        permissions: None,
        after_change: "Hermes reloads MCP servers on its own within seconds (or run /reload-mcp)",
        skills: Some(hermes_skills),
    },
    ClientSpec {
        id: "claude-desktop",
        name: "Claude Desktop",
        format: Format::Json,
        servers_key: &["mcpServers"],
        template: include_str!("../../templates/clients/claude-desktop.json"),
        locate: claude_desktop,
        claude_lock: false,
        new_file_mode: None,
        permissions: None,
        after_change: "quit Claude Desktop completely and start it again",
        skills: None,
    },
    ClientSpec {
        id: "gemini",
        name: "Gemini CLI",
        format: Format::Jsonc,
        servers_key: &["mcpServers"],
        template: include_str!("../../templates/clients/gemini.json"),
        locate: gemini,
        claude_lock: false,
        new_file_mode: None,
        permissions: None,
        after_change: "start a new Gemini CLI session in a trusted folder",
        skills: None,
    },
    ClientSpec {
        id: "cursor",
        name: "Cursor",
        format: Format::Jsonc,
        servers_key: &["mcpServers"],
        template: include_str!("../../templates/clients/cursor.json"),
        locate: cursor,
        claude_lock: false,
        new_file_mode: None,
        permissions: None,
        after_change: "enable the server in Cursor's MCP settings if it is not already",
        skills: None,
    },
    ClientSpec {
        id: "vscode",
        name: "VS Code",
        format: Format::Jsonc,
        servers_key: &["servers"],
        template: include_str!("../../templates/clients/vscode.json"),
        locate: vscode,
        claude_lock: false,
        new_file_mode: None,
        permissions: None,
        after_change: "start the server from VS Code's MCP view (or reload the window)",
        skills: None,
    },
    ClientSpec {
        id: "windsurf",
        name: "Windsurf",
        format: Format::Jsonc,
        servers_key: &["mcpServers"],
        template: include_str!("../../templates/clients/windsurf.json"),
        locate: windsurf,
        claude_lock: false,
        new_file_mode: None,
        permissions: None,
        after_change: "refresh the MCP servers in Windsurf's Cascade panel",
        skills: None,
    },
    ClientSpec {
        id: "zed",
        name: "Zed",
        format: Format::Jsonc,
        servers_key: &["context_servers"],
        template: include_str!("../../templates/clients/zed.json"),
        locate: zed,
        claude_lock: false,
        new_file_mode: None,
        permissions: None,
        after_change: "Zed picks up settings changes on its own",
        skills: None,
    },
    ClientSpec {
        id: "opencode",
        name: "opencode",
        format: Format::Jsonc,
        servers_key: &["mcp"],
        template: include_str!("../../templates/clients/opencode.json"),
        locate: opencode,
        claude_lock: false,
        new_file_mode: None,
        permissions: None,
        after_change: "start a new opencode session to load it",
        skills: None,
    },
];

fn detected(environment: &Environment, folders: &[&Path], command: &str) -> bool {
    folders.iter().any(|folder| folder.exists()) || environment.find_executable(command).is_some()
}

fn claude_config_home(environment: &Environment) -> PathBuf {
    environment
        .var_path("CLAUDE_CONFIG_DIR")
        .unwrap_or_else(|| environment.home().join(".claude"))
}

/// `~/.claude.json`, as Claude Code 2.1 computes it: `$CLAUDE_CONFIG_DIR` replaces the home folder, a custom OAuth
/// URL adds a suffix, and a legacy `.config.json` in the config folder wins when it exists.
fn claude_code(environment: &Environment) -> Location {
    let legacy = claude_config_home(environment).join(".config.json");
    let base = environment
        .var_path("CLAUDE_CONFIG_DIR")
        .unwrap_or_else(|| environment.home().to_owned());
    let suffix = if environment.var("CLAUDE_CODE_CUSTOM_OAUTH_URL").is_some() {
        "-custom-oauth"
    } else {
        ""
    };
    let config = if legacy.is_file() {
        legacy
    } else {
        base.join(format!(".claude{suffix}.json"))
    };
    let folder = claude_config_home(environment);
    let is_detected = config.exists() || detected(environment, &[&folder], "claude");
    Location {
        config,
        detected: is_detected,
        problem: None,
    }
}

fn claude_code_settings(environment: &Environment) -> PathBuf {
    claude_config_home(environment).join("settings.json")
}

/// Claude Code's user skills: `skills/` beside its `settings.json` (`~/.claude`, or `$CLAUDE_CONFIG_DIR`).
fn claude_code_skills(environment: &Environment) -> PathBuf {
    claude_config_home(environment).join("skills")
}

/// Codex's user skills: `~/.agents/skills` (the shared agents folder; `$CODEX_HOME/skills` is its legacy place).
fn codex_skills(environment: &Environment) -> PathBuf {
    environment.home().join(".agents").join("skills")
}

/// Hermes' skills: `skills/` in the Hermes home its config is in (the active profile's, when one is set).
fn hermes_skills(environment: &Environment) -> PathBuf {
    let config = hermes(environment).config;
    config
        .parent()
        .map_or_else(|| environment.home().join(".hermes"), Path::to_path_buf)
        .join("skills")
}

/// `$CODEX_HOME/config.toml`, default `~/.codex`; Codex refuses a `CODEX_HOME` that does not exist.
fn codex(environment: &Environment) -> Location {
    match environment.var_path("CODEX_HOME") {
        Some(home) => Location {
            config: home.join("config.toml"),
            detected: true,
            problem: (!home.is_dir()).then(|| {
                format!(
                    "CODEX_HOME points to `{}`, which does not exist (Codex refuses it too)",
                    home.display()
                )
            }),
        },
        None => {
            let folder = environment.home().join(".codex");
            Location {
                config: folder.join("config.toml"),
                detected: detected(environment, &[&folder], "codex"),
                problem: None,
            }
        }
    }
}

/// Hermes' home: `$HERMES_HOME`, else the default home, switched to `profiles/<name>` by `active_profile`.
fn hermes(environment: &Environment) -> Location {
    if let Some(home) = environment.var_path("HERMES_HOME") {
        return Location {
            config: home.join("config.yaml"),
            detected: true,
            problem: None,
        };
    }
    let default_home = match environment.os() {
        Os::Windows => environment.local_app_data().join("hermes"),
        Os::Linux | Os::MacOs => environment.home().join(".hermes"),
    };
    let profile = std::fs::read_to_string(default_home.join("active_profile"))
        .ok()
        .map(|text| text.trim().to_owned())
        .filter(|name| !name.is_empty() && name != "default");
    let home = match profile {
        Some(name) => default_home.join("profiles").join(name),
        None => default_home.clone(),
    };
    Location {
        config: home.join("config.yaml"),
        detected: detected(environment, &[&default_home], "hermes"),
        problem: None,
    }
}

/// Claude Desktop; on Windows the MSIX install (the default since early 2026) keeps its own copy and ignores the
/// classic path.
fn claude_desktop(environment: &Environment) -> Location {
    let file = "claude_desktop_config.json";
    let folder = match environment.os() {
        Os::MacOs => environment
            .home()
            .join("Library/Application Support/Claude"),
        Os::Linux => environment.xdg_config_home().join("Claude"),
        Os::Windows => {
            let packages = environment.local_app_data().join("Packages");
            let msix = std::fs::read_dir(&packages)
                .into_iter()
                .flatten()
                .flatten()
                .filter(|entry| entry.file_name().to_string_lossy().starts_with("Claude_"))
                .map(|entry| {
                    entry
                        .path()
                        .join("LocalCache")
                        .join("Roaming")
                        .join("Claude")
                })
                .find(|folder| folder.parent().is_some_and(Path::exists));
            msix.unwrap_or_else(|| environment.app_data().join("Claude"))
        }
    };
    Location {
        config: folder.join(file),
        detected: folder.exists(),
        problem: None,
    }
}

fn gemini(environment: &Environment) -> Location {
    let base = environment
        .var_path("GEMINI_CLI_HOME")
        .unwrap_or_else(|| environment.home().to_owned());
    let folder = base.join(".gemini");
    Location {
        config: folder.join("settings.json"),
        detected: detected(environment, &[&folder], "gemini"),
        problem: None,
    }
}

fn cursor(environment: &Environment) -> Location {
    let folder = environment.home().join(".cursor");
    Location {
        config: folder.join("mcp.json"),
        detected: folder.exists(),
        problem: None,
    }
}

fn vscode(environment: &Environment) -> Location {
    let folder = environment.config_home().join("Code").join("User");
    Location {
        config: folder.join("mcp.json"),
        detected: detected(environment, &[&folder], "code"),
        problem: None,
    }
}

fn windsurf(environment: &Environment) -> Location {
    let folder = environment.home().join(".codeium").join("windsurf");
    Location {
        config: folder.join("mcp_config.json"),
        detected: folder.exists(),
        problem: None,
    }
}

fn zed(environment: &Environment) -> Location {
    let folder = match environment.os() {
        Os::Windows => environment.app_data().join("Zed"),
        Os::Linux => environment.xdg_config_home().join("zed"),
        Os::MacOs => environment.home().join(".config").join("zed"),
    };
    Location {
        config: folder.join("settings.json"),
        detected: detected(environment, &[&folder], "zed"),
        problem: None,
    }
}

/// opencode's global config (`opencode.jsonc` when that is the one present); `$OPENCODE_CONFIG` names another file.
fn opencode(environment: &Environment) -> Location {
    if let Some(file) = environment.var_path("OPENCODE_CONFIG") {
        return Location {
            config: file,
            detected: true,
            problem: None,
        };
    }
    let folder = match environment.os() {
        Os::Windows => environment.home().join(".config").join("opencode"),
        Os::Linux | Os::MacOs => environment.xdg_config_home().join("opencode"),
    };
    let jsonc = folder.join("opencode.jsonc");
    let config = if jsonc.is_file() {
        jsonc
    } else {
        folder.join("opencode.json")
    };
    Location {
        config,
        detected: detected(environment, &[&folder], "opencode"),
        problem: None,
    }
}

/// What an existing server entry runs, as far as obsmcp is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    /// `obsmcp bridge --vault …`: obsmcp's own entry.
    Obsmcp {
        /// The `obsmcp` binary it runs.
        command: String,
        /// The vault it serves (`None` for `--url` and command upstreams).
        vault: Option<PathBuf>,
        /// Its `--config-dir`, when given.
        config_dir: Option<String>,
        /// Whether it runs with `--read-only`.
        read_only: bool,
    },
    /// Anything else, described in one line (e.g. `npx mcp-remote http://localhost:22360/sse`).
    Other { description: String },
}

/// The vaults that obsmcp entries of the clients `include` accepts serve, each with those clients' names. A config
/// that cannot be read or parsed counts as serving nothing.
pub fn served_vaults(
    environment: &crate::environment::Environment,
    include: impl Fn(&ClientSpec) -> bool,
) -> Vec<(PathBuf, Vec<&'static str>)> {
    group_entries(
        environment,
        include,
        |entry| match entry {
            EntryKind::Obsmcp {
                vault: Some(vault), ..
            } => Some(vault),
            _ => None,
        },
        |a, b| crate::plan::write::same_path(a, b),
    )
}

/// The binaries that obsmcp entries run, each with the clients whose entries run it (configs that cannot be read
/// count as running nothing).
pub fn entry_binaries(
    environment: &crate::environment::Environment,
) -> Vec<(String, Vec<&'static str>)> {
    group_entries(
        environment,
        |_| true,
        |entry| match entry {
            EntryKind::Obsmcp { command, .. } => Some(command),
            EntryKind::Other { .. } => None,
        },
        |a, b| a == b,
    )
}

/// The entries in the configs of the clients `include` accepts, grouped by what `key` gives (entries it gives
/// nothing are left out; `same` says when two keys are one), each with the names of the clients that have it.
fn group_entries<K>(
    environment: &crate::environment::Environment,
    include: impl Fn(&ClientSpec) -> bool,
    key: impl Fn(EntryKind) -> Option<K>,
    same: impl Fn(&K, &K) -> bool,
) -> Vec<(K, Vec<&'static str>)> {
    let mut groups: Vec<(K, Vec<&'static str>)> = Vec::new();
    for client in CLIENTS.iter().filter(|client| include(client)) {
        let path = crate::plan::write::resolve(&client.locate(environment).config);
        let Ok(Some(text)) = crate::plan::write::read_text(&path) else {
            continue;
        };
        let Ok(servers) = read_servers(client, &text) else {
            continue;
        };
        for entry in servers.values() {
            let Some(found) = key(describe_entry(client, entry)) else {
                continue;
            };
            match groups.iter_mut().find(|(known, _)| same(known, &found)) {
                Some((_, clients)) if !clients.contains(&client.name) => clients.push(client.name),
                Some(_) => {}
                None => groups.push((found, vec![client.name])),
            }
        }
    }
    groups
}

/// Whether `command args…` runs an obsmcp bridge: `bridge` first, from a program whose name holds `obsmcp`
/// (`obsmcp`, `obsmcp.exe`, a release archive's `obsmcp-0.2.0-x86_64-linux`, a renamed copy), wherever it lives.
pub fn runs_obsmcp_bridge(command: &str, args: &[String]) -> bool {
    let name = Path::new(command)
        .file_name()
        .map(|name| name.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    name.contains("obsmcp") && args.first().map(String::as_str) == Some("bridge")
}

/// Reads what an entry runs, using the client's own template to find the command and arguments.
pub fn describe_entry(client: &ClientSpec, entry: &Value) -> EntryKind {
    let found = client.template().extract(entry);
    let command = found
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let args: Vec<String> = found
        .get("args")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|arg| arg.as_str().map(str::to_owned))
        .collect();
    if runs_obsmcp_bridge(&command, &args) {
        let value_after = |flag: &str| {
            args.iter()
                .position(|arg| arg == flag)
                .and_then(|index| args.get(index + 1))
                .cloned()
        };
        return EntryKind::Obsmcp {
            command,
            vault: value_after("--vault").map(PathBuf::from),
            config_dir: value_after("--config-dir"),
            read_only: args.iter().any(|arg| arg == "--read-only"),
        };
    }
    let description = if command.is_empty() {
        let url = entry
            .get("url")
            .or_else(|| entry.get("serverUrl"))
            .and_then(Value::as_str);
        url.map_or_else(
            || "an entry obsmcp does not recognise".to_owned(),
            |url| format!("a remote server at {url}"),
        )
    } else {
        std::iter::once(command)
            .chain(args)
            .collect::<Vec<_>>()
            .join(" ")
    };
    EntryKind::Other { description }
}

/// The server entries in a client's config text (empty when the file is empty or has none).
pub fn read_servers(
    client: &ClientSpec,
    text: &str,
) -> Result<serde_json::Map<String, Value>, crate::document::DocumentError> {
    let value = crate::document::read_value(client.format, text)?;
    Ok(crate::document::lookup(&value, &client.servers_path())
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn locate(id: &str, environment: &Environment) -> PathBuf {
        find(id).unwrap().locate(environment).config
    }

    #[test]
    fn ids_are_unique_and_fit_the_flag() {
        for (index, client) in CLIENTS.iter().enumerate() {
            assert!(
                client
                    .id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-'),
                "{}",
                client.id
            );
            assert!(
                CLIENTS[..index].iter().all(|other| other.id != client.id),
                "{}",
                client.id
            );
        }
    }

    #[test]
    fn claude_code_paths() {
        let home = tempfile::tempdir().unwrap();
        let environment = Environment::new(Os::Linux, home.path());
        assert_eq!(
            locate("claude-code", &environment),
            home.path().join(".claude.json")
        );
        let custom = environment
            .clone()
            .with_var("CLAUDE_CONFIG_DIR", "/cfg/claude");
        assert_eq!(
            locate("claude-code", &custom),
            PathBuf::from("/cfg/claude/.claude.json")
        );
        let oauth = environment
            .clone()
            .with_var("CLAUDE_CODE_CUSTOM_OAUTH_URL", "https://x");
        assert_eq!(
            locate("claude-code", &oauth),
            home.path().join(".claude-custom-oauth.json")
        );
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::write(home.path().join(".claude/.config.json"), "{}").unwrap();
        assert_eq!(
            locate("claude-code", &environment),
            home.path().join(".claude/.config.json")
        );
        let settings = (find("claude-code")
            .unwrap()
            .permissions
            .as_ref()
            .unwrap()
            .locate)(&custom);
        assert_eq!(settings, PathBuf::from("/cfg/claude/settings.json"));
    }

    #[test]
    fn codex_honours_codex_home_and_says_when_it_is_missing() {
        let environment = Environment::new(Os::Linux, "/home/me");
        assert_eq!(
            locate("codex", &environment),
            PathBuf::from("/home/me/.codex/config.toml")
        );
        let missing = environment.with_var("CODEX_HOME", "/nowhere/codex");
        let location = find("codex").unwrap().locate(&missing);
        assert_eq!(location.config, PathBuf::from("/nowhere/codex/config.toml"));
        assert!(location.problem.unwrap().contains("does not exist"));
    }

    #[test]
    fn hermes_home_profile_and_windows() {
        let home = tempfile::tempdir().unwrap();
        let environment = Environment::new(Os::Linux, home.path());
        assert_eq!(
            locate("hermes", &environment),
            home.path().join(".hermes/config.yaml")
        );
        std::fs::create_dir_all(home.path().join(".hermes")).unwrap();
        std::fs::write(home.path().join(".hermes/active_profile"), "work\n").unwrap();
        assert_eq!(
            locate("hermes", &environment),
            home.path().join(".hermes/profiles/work/config.yaml")
        );
        std::fs::write(home.path().join(".hermes/active_profile"), "default").unwrap();
        assert_eq!(
            locate("hermes", &environment),
            home.path().join(".hermes/config.yaml")
        );
        let explicit = environment.with_var("HERMES_HOME", "/h");
        assert_eq!(locate("hermes", &explicit), PathBuf::from("/h/config.yaml"));
        let windows = Environment::new(Os::Windows, r"C:\Users\me")
            .with_var("LOCALAPPDATA", r"C:\Users\me\AppData\Local");
        assert_eq!(
            locate("hermes", &windows),
            PathBuf::from(r"C:\Users\me\AppData\Local")
                .join("hermes")
                .join("config.yaml")
        );
    }

    #[test]
    fn claude_desktop_per_os_and_msix() {
        assert_eq!(
            locate("claude-desktop", &Environment::new(Os::MacOs, "/Users/me")),
            PathBuf::from(
                "/Users/me/Library/Application Support/Claude/claude_desktop_config.json"
            )
        );
        let local = tempfile::tempdir().unwrap();
        let windows = Environment::new(Os::Windows, r"C:\Users\me")
            .with_var("APPDATA", r"C:\Users\me\AppData\Roaming")
            .with_var("LOCALAPPDATA", local.path().to_str().unwrap());
        assert_eq!(
            locate("claude-desktop", &windows),
            PathBuf::from(r"C:\Users\me\AppData\Roaming")
                .join("Claude")
                .join("claude_desktop_config.json")
        );
        let msix = local
            .path()
            .join("Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming");
        std::fs::create_dir_all(&msix).unwrap();
        assert_eq!(
            locate("claude-desktop", &windows),
            msix.join("Claude").join("claude_desktop_config.json")
        );
    }

    #[test]
    fn vscode_zed_and_opencode_per_os() {
        let mac = Environment::new(Os::MacOs, "/Users/me");
        assert_eq!(
            locate("vscode", &mac),
            PathBuf::from("/Users/me/Library/Application Support/Code/User/mcp.json")
        );
        assert_eq!(
            locate("zed", &mac),
            PathBuf::from("/Users/me/.config/zed/settings.json")
        );
        let linux = Environment::new(Os::Linux, "/home/me");
        assert_eq!(
            locate("vscode", &linux),
            PathBuf::from("/home/me/.config/Code/User/mcp.json")
        );
        assert_eq!(
            locate("opencode", &linux),
            PathBuf::from("/home/me/.config/opencode/opencode.json")
        );
        assert_eq!(
            locate("gemini", &linux),
            PathBuf::from("/home/me/.gemini/settings.json")
        );
        let windows = Environment::new(Os::Windows, r"C:\Users\me").with_var("APPDATA", r"C:\R");
        assert_eq!(
            locate("zed", &windows),
            PathBuf::from(r"C:\R").join("Zed").join("settings.json")
        );
        assert_eq!(
            locate("vscode", &windows),
            PathBuf::from(r"C:\R")
                .join("Code")
                .join("User")
                .join("mcp.json")
        );
    }

    #[test]
    fn windows_homes_for_the_three_main_clients() {
        let windows = Environment::new(Os::Windows, r"C:\Users\me")
            .with_var("LOCALAPPDATA", r"C:\Users\me\AppData\Local");
        let home = PathBuf::from(r"C:\Users\me");
        assert_eq!(locate("claude-code", &windows), home.join(".claude.json"));
        assert_eq!(
            locate("codex", &windows),
            home.join(".codex").join("config.toml")
        );
        let settings = (find("claude-code")
            .unwrap()
            .permissions
            .as_ref()
            .unwrap()
            .locate)(&windows);
        assert_eq!(settings, home.join(".claude").join("settings.json"));
    }

    #[test]
    fn entries_are_told_apart() {
        let claude = find("claude-code").unwrap();
        let ours = json!({"command": "/usr/local/bin/obsmcp", "args": ["bridge", "--vault", "/v", "--read-only"]});
        assert_eq!(
            describe_entry(claude, &ours),
            EntryKind::Obsmcp {
                command: "/usr/local/bin/obsmcp".into(),
                vault: Some("/v".into()),
                config_dir: None,
                read_only: true
            }
        );
        let remote =
            json!({"command": "npx", "args": ["mcp-remote", "http://localhost:22360/sse"]});
        assert_eq!(
            describe_entry(claude, &remote),
            EntryKind::Other {
                description: "npx mcp-remote http://localhost:22360/sse".into()
            }
        );
        let opencode = find("opencode").unwrap();
        let ours = json!({"type": "local", "command": ["/o/obsmcp", "bridge", "--vault", "/v"]});
        assert!(matches!(
            describe_entry(opencode, &ours),
            EntryKind::Obsmcp { .. }
        ));
    }
}

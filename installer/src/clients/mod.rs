//! The AI clients obsmcp registers with, declared as data: where each keeps its config on each OS, the file's
//! format, the key that holds MCP servers, and the entry template. Commands iterate over [`CLIENTS`] and never
//! branch on a client's name; what differs between clients lives in these declarations.
//!
//! The doctor reuses this module: [`ClientSpec::locate`] finds a client's file, [`read_servers`] lists its entries,
//! and [`describe_entry`] says whether an entry is obsmcp's and for which vault. Beside it, [`template`] renders and
//! reads back the entry templates, and [`skill`] is the companion skill for the clients that read skills.
//!
//! A client is added or changes its layout in three places read together: its row in [`CLIENTS`], its `locate`
//! function in `locations.rs`, and the tests that pin them (`tests.rs`). The row also holds what doctor checks
//! beyond the entry (its timeout keys, named from `gates.rs`, and its [`Gate`]s); doctor never branches on an id.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::document::{Format, KeyPath};
use crate::environment::Environment;
use template::Template;

mod gates;
mod locations;
pub mod skill;
pub mod template;

use gates::{CODEX_TIMEOUTS, GEMINI_TIMEOUTS, HERMES_TIMEOUTS, OPENCODE_TIMEOUTS};
pub use gates::{Gate, TimeoutKey};

use locations::{
    claude_code, claude_code_settings, claude_code_skills, claude_desktop, codex, codex_skills,
    cursor, gemini, hermes, hermes_skills, opencode, vscode, windsurf, zed,
};

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
    /// The entry key that keeps the server's tools out of tool search's deferral (`--always-load`), for clients
    /// that have one.
    pub always_load_key: Option<&'static str>,
    /// Whether the entry lists every tool (`--tools all`): the client keeps MCP tools behind a tool search, so a long
    /// list costs its context little. Other clients get the bridge's default, the core tools and `obsidian_tools`.
    pub lists_every_tool: bool,
    /// The project-scope config file, relative to a project's root, in the same format and key as the user's. Doctor
    /// checks it; setup writes user-scope entries only.
    pub project_config: Option<&'static str>,
    /// Entry keys that hide obsmcp when set too low (`gates.rs`).
    pub timeouts: &'static [TimeoutKey],
    /// Gates outside the entry that can keep obsmcp from the client (`gates.rs`).
    pub gates: &'static [Gate],
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

    /// The rules that pre-approve each of `tools` of server `server`.
    pub fn rules(&self, server: &str, tools: &[String]) -> Vec<String> {
        tools.iter().map(|tool| self.rule(server, tool)).collect()
    }

    /// The key path of the array of allow rules.
    pub fn allow_path(&self) -> KeyPath {
        self.allow_key.iter().map(|key| (*key).to_owned()).collect()
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
        always_load_key: Some("alwaysLoad"),
        lists_every_tool: true,
        project_config: Some(".mcp.json"),
        timeouts: &[],
        gates: &[Gate::ClaudeCodeSettings, Gate::ClaudeCodeProjectApproval],
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
        always_load_key: None,
        lists_every_tool: false,
        project_config: Some(".codex/config.toml"),
        timeouts: CODEX_TIMEOUTS,
        gates: &[Gate::CodexProjectTrust],
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
        always_load_key: None,
        lists_every_tool: false,
        project_config: None,
        timeouts: HERMES_TIMEOUTS,
        gates: &[Gate::HermesSafeMode, Gate::HermesMcpSdk],
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
        always_load_key: None,
        lists_every_tool: false,
        project_config: None,
        timeouts: &[],
        gates: &[],
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
        always_load_key: None,
        lists_every_tool: false,
        project_config: None,
        timeouts: GEMINI_TIMEOUTS,
        gates: &[Gate::GeminiFolderTrust],
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
        always_load_key: None,
        lists_every_tool: false,
        project_config: None,
        timeouts: &[],
        gates: &[],
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
        always_load_key: None,
        lists_every_tool: false,
        project_config: None,
        timeouts: &[],
        gates: &[],
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
        always_load_key: None,
        lists_every_tool: false,
        project_config: None,
        timeouts: &[],
        gates: &[],
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
        always_load_key: None,
        lists_every_tool: false,
        project_config: None,
        timeouts: &[],
        gates: &[],
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
        always_load_key: None,
        lists_every_tool: false,
        project_config: None,
        timeouts: OPENCODE_TIMEOUTS,
        gates: &[],
    },
];

/// What an existing server entry runs, as far as obsmcp is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    /// `obsmcp bridge --vault …`: obsmcp's own entry.
    Obsmcp {
        /// The `obsmcp` binary it runs.
        command: String,
        /// The vaults it serves, in order (none for `--url` and command upstreams).
        vaults: Vec<PathBuf>,
        /// Its `--config-dir`, when given.
        config_dir: Option<String>,
        /// Whether it runs with `--read-only`.
        read_only: bool,
        /// Its `--tools` profile, when given.
        tools: Option<String>,
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
            EntryKind::Obsmcp { vaults, .. } => vaults,
            EntryKind::Other { .. } => Vec::new(),
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
            EntryKind::Obsmcp { command, .. } => vec![command],
            EntryKind::Other { .. } => Vec::new(),
        },
        |a, b| a == b,
    )
}

/// The entries in the configs of the clients `include` accepts, grouped by what `key` gives (an entry may give several
/// keys, or none; `same` says when two keys are one), each with the names of the clients that have it.
fn group_entries<K>(
    environment: &crate::environment::Environment,
    include: impl Fn(&ClientSpec) -> bool,
    key: impl Fn(EntryKind) -> Vec<K>,
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
            for found in key(describe_entry(client, entry)) {
                match groups.iter_mut().find(|(known, _)| same(known, &found)) {
                    Some((_, clients)) if !clients.contains(&client.name) => {
                        clients.push(client.name);
                    }
                    Some(_) => {}
                    None => groups.push((found, vec![client.name])),
                }
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
        let vaults = args
            .iter()
            .zip(args.iter().skip(1))
            .filter(|(flag, _)| *flag == "--vault")
            .map(|(_, vault)| PathBuf::from(vault))
            .collect();
        return EntryKind::Obsmcp {
            command,
            vaults,
            config_dir: value_after("--config-dir"),
            read_only: args.iter().any(|arg| arg == "--read-only"),
            tools: value_after("--tools"),
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
mod tests;

//! Gates outside a client's entry that can hide obsmcp from it: Claude Code's deny lists and `MCP_TIMEOUT`, Gemini
//! CLI's trusted folders. Each client's gates are one function in [`GATES`], picked by client id, so the checks that
//! run on every client stay free of client names.

use std::path::{Path, PathBuf};

use obsmcp_installer::environment::{Environment, Os};
use serde_json::Value;

use super::report::Check;

/// A client's gate checks: the environment, and the names of obsmcp's entries in its config.
type GateFn = fn(&Environment, &[String]) -> Vec<Check>;

/// Gate checks per client id.
const GATES: [(&str, GateFn); 2] = [("claude-code", claude_code), ("gemini", gemini)];

/// The lowest `MCP_TIMEOUT` (ms) that leaves room for a bridge start on a loaded machine.
const CLAUDE_MIN_TIMEOUT_MS: u64 = 5000;

/// The gate checks of client `id`.
pub(crate) fn gate_checks(id: &str, environment: &Environment, ours: &[String]) -> Vec<Check> {
    GATES.iter().filter(|(client, _)| id.starts_with(client)).flat_map(|(_, gates)| gates(environment, ours)).collect()
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

fn claude_settings(environment: &Environment) -> Vec<PathBuf> {
    let user = environment.var_path("CLAUDE_CONFIG_DIR").unwrap_or_else(|| environment.home().join(".claude"));
    let managed = match environment.os() {
        Os::Linux => PathBuf::from("/etc/claude-code/managed-settings.json"),
        Os::MacOs => PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json"),
        Os::Windows => PathBuf::from(r"C:\Program Files\ClaudeCode\managed-settings.json"),
    };
    vec![user.join("settings.json"), managed]
}

fn claude_code(environment: &Environment, ours: &[String]) -> Vec<Check> {
    let mut checks = Vec::new();
    let mut blocked = Vec::new();
    let mut timeout: Option<(String, String)> = environment.var("MCP_TIMEOUT").map(|value| (value.to_owned(), "the environment".to_owned()));
    for path in claude_settings(environment) {
        let Some(settings) = read_json(&path) else { continue };
        let shown = path.display();
        for denied in settings.get("deniedMcpServers").and_then(Value::as_array).into_iter().flatten() {
            let name = denied.get("serverName").and_then(Value::as_str).or_else(|| denied.as_str());
            if let Some(name) = name.filter(|name| ours.iter().any(|ours| ours == name)) {
                blocked.push(format!("`{name}` is in deniedMcpServers of {shown}"));
            }
        }
        if settings.get("allowManagedMcpServersOnly").and_then(Value::as_bool) == Some(true) {
            blocked.push(format!("{shown} sets allowManagedMcpServersOnly: only servers your administrator defines run"));
        }
        if let Some(allowed) = settings.get("allowedMcpServers").and_then(Value::as_array) {
            let listed = |name: &str| allowed.iter().any(|item| item.get("serverName").and_then(Value::as_str) == Some(name));
            for name in ours.iter().filter(|name| !listed(name)) {
                blocked.push(format!("`{name}` is not in allowedMcpServers of {shown}"));
            }
        }
        if let Some(value) = settings.pointer("/env/MCP_TIMEOUT") {
            let value = value.as_str().map_or_else(|| value.to_string(), str::to_owned);
            timeout = Some((value, format!("`env` in {shown}")));
        }
    }
    if blocked.is_empty() {
        checks.push(Check::ok("client.gates", "no Claude Code deny or allow list blocks obsmcp"));
    } else {
        checks.push(Check::fail(
            "client.gates",
            blocked.join("; "),
            "remove obsmcp's entry from deniedMcpServers (or add it to allowedMcpServers) in that settings file; a managed file needs your administrator",
        ));
    }
    if let Some((value, source)) = timeout {
        match value.trim().parse::<u64>() {
            Ok(ms) if ms < CLAUDE_MIN_TIMEOUT_MS => checks.push(Check::warn(
                "client.timeouts",
                format!("MCP_TIMEOUT={ms} (from {source}) gives servers only {ms} ms to start"),
                format!("unset MCP_TIMEOUT or set it to at least {CLAUDE_MIN_TIMEOUT_MS} (milliseconds)"),
            )),
            Ok(ms) => checks.push(Check::ok("client.timeouts", format!("MCP_TIMEOUT={ms} ms (from {source})"))),
            Err(_) => checks.push(Check::warn(
                "client.timeouts",
                format!("MCP_TIMEOUT={value:?} (from {source}) is not a number of milliseconds"),
                "set MCP_TIMEOUT to a whole number of milliseconds, e.g. 30000, or unset it",
            )),
        }
    }
    checks
}

fn gemini(environment: &Environment, _ours: &[String]) -> Vec<Check> {
    let home = environment.var_path("GEMINI_CLI_HOME").unwrap_or_else(|| environment.home().to_owned()).join(".gemini");
    let trust_on = read_json(&home.join("settings.json"))
        .and_then(|settings| settings.pointer("/security/folderTrust/enabled").and_then(Value::as_bool))
        .unwrap_or(false);
    if !trust_on {
        return vec![Check::ok("client.gates", "Gemini CLI folder trust is off: servers run in every folder")];
    }
    let trusted = read_json(&home.join("trustedFolders.json"))
        .and_then(|folders| folders.as_object().map(|map| map.values().filter(|rule| rule.as_str() == Some("TRUST_FOLDER")).count()))
        .unwrap_or(0);
    vec![Check::warn(
        "client.gates",
        format!("Gemini CLI runs MCP servers only in trusted folders ({trusted} trusted): elsewhere obsmcp is shown as Disabled"),
        "in the folder where you run gemini: /permissions → Trust this folder",
    )]
}

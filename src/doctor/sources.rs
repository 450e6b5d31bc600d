//! Reads every AI client's config through the installer's adapters (where the file is, its format, the key that
//! holds servers) into doctor's [`ClientConfig`] view. Nothing here knows a file format or a client's layout.

use std::path::{Path, PathBuf};

use obsmcp_installer::clients::{CLIENTS, ClientSpec, EntryKind, describe_entry, read_servers};
use obsmcp_installer::environment::Environment;
use serde_json::Value;

use super::clients::{ClientConfig, ConfigState, ServerEntry};

/// The clients that look installed here (or whose config file exists), each with its entries.
pub(crate) fn read_clients(environment: &Environment) -> Vec<ClientConfig> {
    CLIENTS
        .iter()
        .filter_map(|spec| {
            let location = spec.locate(environment);
            if !location.detected && !location.config.exists() {
                return None;
            }
            let state = match &location.problem {
                Some(problem) => ConfigState::Unparsable(problem.clone()),
                None => read_state(spec, &location.config),
            };
            Some(ClientConfig {
                spec,
                name: spec.name.to_owned(),
                path: location.config,
                state,
                gate_checks: Vec::new(),
                project: false,
                skill: obsmcp_installer::clients::skill::installed(spec, environment),
            })
        })
        .collect()
}

fn read_state(spec: &ClientSpec, path: &Path) -> ConfigState {
    let real = obsmcp_installer::plan::write::resolve(path);
    let text = match obsmcp_installer::plan::write::read_text(&real) {
        Ok(Some(text)) => text,
        Ok(None) => return ConfigState::Absent,
        Err(error) => return ConfigState::Unparsable(error.to_string()),
    };
    match read_servers(spec, &text) {
        Ok(servers) => ConfigState::Parsed(
            servers
                .iter()
                .map(|(name, raw)| entry(spec, name, raw))
                .collect(),
        ),
        Err(error) => ConfigState::Unparsable(error.to_string()),
    }
}

/// One entry, with command and arguments found through the client's own template.
fn entry(spec: &ClientSpec, name: &str, raw: &Value) -> ServerEntry {
    let mut entry = ServerEntry::from_value(name, raw);
    let found = spec.template().extract(raw);
    if let Some(command) = found.get("command").and_then(Value::as_str) {
        entry.command = Some(command.to_owned());
        entry.args = found
            .get("args")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|arg| arg.as_str().map(str::to_owned))
            .collect();
    }
    entry.ours = matches!(describe_entry(spec, raw), EntryKind::Obsmcp { .. });
    entry
}

/// Project-scope configs that hold an obsmcp entry, found from `cwd` up to its repository root, for the clients
/// that read one (Claude Code's `.mcp.json`, a project's `.codex/config.toml`). Each is read in the user-scope
/// file's format and key.
pub(crate) fn project_configs(cwd: &Path) -> Vec<ClientConfig> {
    let mut found = Vec::new();
    for spec in CLIENTS {
        let Some(relative) = spec.project_config else {
            continue;
        };
        let Some(path) = project_ancestors(cwd)
            .map(|folder| folder.join(relative))
            .find(|path| path.is_file())
        else {
            continue;
        };
        let state = read_state(spec, &path);
        let has_ours = matches!(&state, ConfigState::Parsed(entries) if entries.iter().any(ServerEntry::is_obsmcp));
        if has_ours || matches!(state, ConfigState::Unparsable(_)) {
            found.push(ClientConfig {
                spec,
                name: format!("{} (project)", spec.name),
                path,
                state,
                gate_checks: Vec::new(),
                project: true,
                // A project's config is checked for its entries only; skills are the user's scope.
                skill: None,
            });
        }
    }
    found
}

/// `cwd` and its parents, up to the first that holds `.git` (the project root clients use).
pub(crate) fn project_ancestors(cwd: &Path) -> impl Iterator<Item = PathBuf> {
    let mut done = false;
    cwd.ancestors()
        .take_while(move |folder| {
            let keep = !done;
            done = done || folder.join(".git").exists();
            keep
        })
        .map(Path::to_path_buf)
        .collect::<Vec<_>>()
        .into_iter()
}

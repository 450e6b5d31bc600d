//! Gates outside a client's entry that can hide obsmcp from it: Claude Code's deny and allow lists, its approval of
//! project `.mcp.json` servers and `MCP_TIMEOUT`; Codex's project trust; Gemini CLI's trusted folders; Hermes'
//! safe mode. Which gates a client has is data on its row of the installer's table ([`Gate`]); how each is checked,
//! and for which scope, is [`gate_function`] here, so the checks that run on every client stay free of client names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use obsmcp_installer::clients::Gate;
use obsmcp_installer::document::{self, Format};
use obsmcp_installer::environment::{Environment, Os};
use serde_json::Value;

use super::clients::ClientConfig;
use super::report::Check;

/// What a gate function sees.
pub(crate) struct GateContext<'a> {
    /// Home, environment, OS.
    pub(crate) environment: &'a Environment,
    /// The folder doctor runs in: where project configs and folder trust apply.
    pub(crate) cwd: &'a Path,
    /// The client config.
    pub(crate) client: &'a ClientConfig,
    /// The names of obsmcp's entries in it.
    pub(crate) ours: &'a [String],
}

/// A client's gate checks.
type GateFn = fn(&GateContext<'_>) -> Vec<Check>;

/// How a gate is checked, and whether on the project-scope config (`true`) or the user's; `None` for the gate that
/// runs the client's own runtime, which [`runtime_checks`] checks with the slow checks.
fn gate_function(gate: Gate) -> Option<(bool, GateFn)> {
    match gate {
        Gate::ClaudeCodeSettings => Some((false, claude_code)),
        Gate::ClaudeCodeProjectApproval => Some((true, claude_project_approval)),
        Gate::CodexProjectTrust => Some((true, codex_project_trust)),
        Gate::GeminiFolderTrust => Some((false, gemini)),
        Gate::HermesSafeMode => Some((false, hermes)),
        Gate::HermesMcpSdk => None,
    }
}

/// The lowest `MCP_TIMEOUT` (ms) that leaves room for a bridge start on a loaded machine.
const CLAUDE_MIN_TIMEOUT_MS: u64 = 5000;

/// The gate checks of one client config.
pub(crate) fn gate_checks(context: &GateContext<'_>) -> Vec<Check> {
    context
        .client
        .spec
        .gates
        .iter()
        .filter_map(|gate| gate_function(*gate))
        .filter(|(project, _)| *project == context.client.project)
        .flat_map(|(_, gate)| gate(context))
        .collect()
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// A JSON file that may hold comments (Gemini CLI accepts and keeps them).
fn read_jsonc(path: &Path) -> Option<Value> {
    document::read_value(Format::Jsonc, &std::fs::read_to_string(path).ok()?).ok()
}

fn claude_settings(environment: &Environment) -> Vec<PathBuf> {
    let user = environment
        .var_path("CLAUDE_CONFIG_DIR")
        .unwrap_or_else(|| environment.home().join(".claude"));
    let managed = match environment.os() {
        Os::Linux => PathBuf::from("/etc/claude-code/managed-settings.json"),
        Os::MacOs => PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json"),
        Os::Windows => PathBuf::from(r"C:\Program Files\ClaudeCode\managed-settings.json"),
    };
    vec![user.join("settings.json"), managed]
}

fn claude_code(context: &GateContext<'_>) -> Vec<Check> {
    let (environment, ours) = (context.environment, context.ours);
    let mut checks = Vec::new();
    let mut blocked = Vec::new();
    let mut timeout: Option<(String, String)> = environment
        .var("MCP_TIMEOUT")
        .map(|value| (value.to_owned(), "the environment".to_owned()));
    for path in claude_settings(environment) {
        let Some(settings) = read_json(&path) else {
            continue;
        };
        let shown = path.display();
        for denied in settings
            .get("deniedMcpServers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = denied
                .get("serverName")
                .and_then(Value::as_str)
                .or_else(|| denied.as_str());
            if let Some(name) = name.filter(|name| ours.iter().any(|ours| ours == name)) {
                blocked.push(format!("`{name}` is in deniedMcpServers of {shown}"));
            }
        }
        if settings
            .get("allowManagedMcpServersOnly")
            .and_then(Value::as_bool)
            == Some(true)
        {
            blocked.push(format!("{shown} sets allowManagedMcpServersOnly: only servers your administrator defines run"));
        }
        if let Some(allowed) = settings.get("allowedMcpServers").and_then(Value::as_array) {
            let listed = |name: &str| {
                allowed
                    .iter()
                    .any(|item| item.get("serverName").and_then(Value::as_str) == Some(name))
            };
            for name in ours.iter().filter(|name| !listed(name)) {
                blocked.push(format!("`{name}` is not in allowedMcpServers of {shown}"));
            }
        }
        if let Some(value) = settings.pointer("/env/MCP_TIMEOUT") {
            let value = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned);
            timeout = Some((value, format!("`env` in {shown}")));
        }
    }
    let switched_off = disabled_in_project(context);
    let mut fixes = Vec::new();
    if !blocked.is_empty() {
        fixes.push("remove obsmcp's entry from deniedMcpServers (or add it to allowedMcpServers) in that settings file; a managed file needs your administrator");
    }
    if !switched_off.is_empty() {
        fixes.push("in Claude Code, started in that project: /mcp → select the server → Enable");
    }
    blocked.extend(switched_off);
    if blocked.is_empty() {
        checks.push(Check::ok(
            "client.gates",
            "no Claude Code deny or allow list blocks obsmcp",
        ));
    } else {
        checks.push(Check::fail(
            "client.gates",
            blocked.join("; "),
            fixes.join("; "),
        ));
    }
    if let Some((value, source)) = timeout {
        match value.trim().parse::<u64>() {
            Ok(ms) if ms < CLAUDE_MIN_TIMEOUT_MS => checks.push(Check::warn(
                "client.timeouts",
                format!("MCP_TIMEOUT={ms} (from {source}) gives servers only {ms} ms to start"),
                format!(
                    "unset MCP_TIMEOUT or set it to at least {CLAUDE_MIN_TIMEOUT_MS} (milliseconds)"
                ),
            )),
            Ok(ms) => checks.push(Check::ok(
                "client.timeouts",
                format!("MCP_TIMEOUT={ms} ms (from {source})"),
            )),
            Err(_) => checks.push(Check::warn(
                "client.timeouts",
                format!("MCP_TIMEOUT={value:?} (from {source}) is not a number of milliseconds"),
                "set MCP_TIMEOUT to a whole number of milliseconds, e.g. 30000, or unset it",
            )),
        }
    }
    checks
}

/// Servers switched off for one project with Claude Code's `/mcp` (kept in `~/.claude.json` under the project's
/// real path, the git root inside a repository).
fn disabled_in_project(context: &GateContext<'_>) -> Vec<String> {
    let Some(projects) =
        read_json(&context.client.path).and_then(|file| file.get("projects").cloned())
    else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for folder in super::sources::project_ancestors(context.cwd) {
        let real =
            obsmcp_installer::environment::real_path(&folder).unwrap_or_else(|_| folder.clone());
        let Some(project) = projects.get(real.to_string_lossy().as_ref()) else {
            continue;
        };
        for name in context.ours {
            let disabled = project.get("disabledMcpServers").and_then(Value::as_array);
            if disabled.is_some_and(|names| names.iter().any(|item| item.as_str() == Some(name))) {
                found.push(format!(
                    "`{name}` is switched off for the project `{}` (disabledMcpServers)",
                    real.display()
                ));
            }
        }
    }
    found
}

/// Gemini CLI's folder trust, read as Gemini CLI 0.61 reads it (`checkPathTrust` and `isPathTrusted` in its
/// trustedFolders code): the environment overrides first, then `security.folderTrust.enabled` (on when absent), then
/// the longest matching rule of `trustedFolders.json` (`TRUST_PARENT` applies to the rule's parent folder). A folder
/// no rule covers is not trusted, and there Gemini CLI shows every MCP server as Disabled.
fn gemini(context: &GateContext<'_>) -> Vec<Check> {
    let environment = context.environment;
    let here = context.cwd.display();
    if environment.var("GEMINI_RESTRICTED_MODE") == Some("true")
        || environment.var("GEMINI_CLI_TRUST_WORKSPACE") == Some("false")
    {
        return vec![Check::warn(
            "client.gates",
            "GEMINI_RESTRICTED_MODE=true or GEMINI_CLI_TRUST_WORKSPACE=false is set: Gemini CLI trusts no folder, so obsmcp shows as Disabled",
            "unset that variable where you start gemini",
        )];
    }
    if environment.var("GEMINI_CLI_TRUST_WORKSPACE") == Some("true") {
        return vec![Check::ok(
            "client.gates",
            "Gemini CLI trusts every folder (GEMINI_CLI_TRUST_WORKSPACE=true): its MCP servers run here",
        )];
    }
    let home = environment
        .var_path("GEMINI_CLI_HOME")
        .unwrap_or_else(|| environment.home().to_owned())
        .join(".gemini");
    let trust_on = read_jsonc(&home.join("settings.json"))
        .and_then(|settings| {
            settings
                .pointer("/security/folderTrust/enabled")
                .and_then(Value::as_bool)
        })
        .unwrap_or(true);
    if !trust_on {
        return vec![Check::ok(
            "client.gates",
            "Gemini CLI folder trust is off (security.folderTrust.enabled is false): servers run in every folder",
        )];
    }
    let rules_file = environment
        .var_path("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
        .unwrap_or_else(|| home.join("trustedFolders.json"));
    let rules = read_jsonc(&rules_file)
        .and_then(|rules| rules.as_object().cloned())
        .unwrap_or_default();
    let real = |path: &Path| {
        obsmcp_installer::environment::real_path(path).unwrap_or_else(|_| path.to_owned())
    };
    let cwd = real(context.cwd);
    let verdict = rules
        .iter()
        .filter_map(|(folder, rule)| {
            let rule = rule.as_str()?;
            let covered = match rule {
                "TRUST_PARENT" => Path::new(folder).parent()?.to_path_buf(),
                "TRUST_FOLDER" | "DO_NOT_TRUST" => PathBuf::from(folder),
                _ => return None,
            };
            cwd.starts_with(real(&covered))
                .then_some((folder.len(), rule))
        })
        .max_by_key(|(length, _)| *length)
        .map(|(_, rule)| rule);
    match verdict {
        Some("DO_NOT_TRUST") => vec![Check::warn(
            "client.gates",
            format!(
                "Gemini CLI does not trust `{here}` (DO_NOT_TRUST in {}): here obsmcp shows as Disabled",
                rules_file.display()
            ),
            "in the folder where you run gemini: /permissions → Trust this folder",
        )],
        Some(_) => vec![Check::ok(
            "client.gates",
            format!("Gemini CLI trusts `{here}`, so its MCP servers run here"),
        )],
        None => vec![Check::warn(
            "client.gates",
            format!(
                "Gemini CLI runs MCP servers only in trusted folders (folder trust is on unless settings.json turns it off), and `{here}` is not one ({} rules): here obsmcp shows as Disabled",
                rules.len()
            ),
            "in the folder where you run gemini: /permissions → Trust this folder",
        )],
    }
}

fn hermes(context: &GateContext<'_>) -> Vec<Check> {
    if context
        .environment
        .var("HERMES_SAFE_MODE")
        .is_some_and(|value| value != "0")
    {
        return vec![Check::fail(
            "client.gates",
            "HERMES_SAFE_MODE is set: Hermes Agent starts no MCP server at all",
            "unset HERMES_SAFE_MODE where you start hermes",
        )];
    }
    Vec::new()
}

/// Settings files Claude Code reads approvals from, for a project root.
fn claude_settings_for(environment: &Environment, root: &Path) -> Vec<PathBuf> {
    let mut files = claude_settings(environment);
    files.push(root.join(".claude").join("settings.json"));
    files.push(root.join(".claude").join("settings.local.json"));
    files
}

fn claude_project_approval(context: &GateContext<'_>) -> Vec<Check> {
    let root = context.client.path.parent().unwrap_or(context.cwd);
    let mut settings: Vec<Value> = claude_settings_for(context.environment, root)
        .iter()
        .filter_map(|path| read_json(path))
        .collect();
    // Older Claude Code versions keep approvals per project in ~/.claude.json.
    let user_file = context
        .environment
        .var_path("CLAUDE_CONFIG_DIR")
        .unwrap_or_else(|| context.environment.home().to_owned())
        .join(".claude.json");
    if let Some(project) = read_json(&user_file).and_then(|file| {
        let projects = file.get("projects")?.as_object()?.clone();
        let real =
            obsmcp_installer::environment::real_path(root).unwrap_or_else(|_| root.to_owned());
        projects
            .get(&real.to_string_lossy().into_owned())
            .or_else(|| projects.get(&root.to_string_lossy().into_owned()))
            .cloned()
    }) {
        settings.push(project);
    }
    let listed = |key: &str, name: &str| {
        settings.iter().any(|file| {
            file.get(key)
                .and_then(Value::as_array)
                .is_some_and(|names| names.iter().any(|item| item.as_str() == Some(name)))
        })
    };
    let all = settings.iter().any(|file| {
        file.get("enableAllProjectMcpServers")
            .and_then(Value::as_bool)
            == Some(true)
    });
    let mut checks = Vec::new();
    for name in context.ours {
        let shown = context.client.path.display();
        if listed("disabledMcpjsonServers", name) {
            checks.push(Check::fail(
                "client.gates",
                format!("`{name}` from {shown} is in disabledMcpjsonServers: Claude Code will not start it"),
                format!("remove `{name}` from disabledMcpjsonServers in .claude/settings.local.json (or approve it in Claude Code: /mcp)"),
            ));
        } else if all || listed("enabledMcpjsonServers", name) {
            checks.push(Check::ok(
                "client.gates",
                format!("`{name}` from {shown} is approved"),
            ));
        } else {
            checks.push(Check::warn(
                "client.gates",
                format!("`{name}` from {shown} waits for approval: Claude Code shows it as “Pending approval” and starts nothing"),
                format!("start `claude` in `{}` and approve it when asked (or in /mcp), or add \"enabledMcpjsonServers\": [\"{name}\"] to .claude/settings.local.json", root.display()),
            ));
        }
    }
    checks
}

fn codex_project_trust(context: &GateContext<'_>) -> Vec<Check> {
    let Some(project) = context.client.path.parent().and_then(Path::parent) else {
        return Vec::new();
    };
    let user_config = context
        .environment
        .var_path("CODEX_HOME")
        .unwrap_or_else(|| context.environment.home().join(".codex"))
        .join("config.toml");
    let projects = std::fs::read_to_string(&user_config)
        .ok()
        .and_then(|text| document::read_value(Format::Toml, &text).ok())
        .and_then(|config| config.get("projects").cloned());
    let real =
        obsmcp_installer::environment::real_path(project).unwrap_or_else(|_| project.to_owned());
    let trusted = [project.to_path_buf(), real].iter().any(|key| {
        projects
            .as_ref()
            .and_then(|projects| projects.get(key.to_string_lossy().as_ref()))
            .and_then(|entry| entry.get("trust_level"))
            .and_then(Value::as_str)
            == Some("trusted")
    });
    if trusted {
        return vec![Check::ok(
            "client.gates",
            format!(
                "Codex trusts `{}`, so it reads this project config",
                project.display()
            ),
        )];
    }
    vec![Check::warn(
        "client.gates",
        format!(
            "Codex reads `{}` only for trusted projects, and `{}` is not trusted",
            context.client.path.display(),
            project.display()
        ),
        format!(
            "trust it when Codex asks in that folder, or add [projects.\"{}\"] trust_level = \"trusted\" to {}",
            project.display(),
            user_config.display()
        ),
    )]
}

/// How long Hermes' interpreter may take to import the MCP SDK.
const IMPORT_DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// Checks that run a client's own runtime, keyed by the index of its config in `clients`; they run with the network
/// checks, bounded like them.
pub(crate) async fn runtime_checks(
    environment: &Environment,
    clients: &[ClientConfig],
) -> BTreeMap<usize, Check> {
    let mut found = BTreeMap::new();
    if let Some(index) = clients
        .iter()
        .position(|client| client.spec.gates.contains(&Gate::HermesMcpSdk) && !client.project)
        && let Some(check) = hermes_mcp_sdk(environment).await
    {
        found.insert(index, check);
    }
    found
}

/// Whether the Python that runs `hermes` can import the MCP SDK (`hermes-agent[mcp]`); without it Hermes starts no
/// MCP server and says so only in its own log. `None` when `hermes` is not on `PATH` or its interpreter is unknown.
async fn hermes_mcp_sdk(environment: &Environment) -> Option<Check> {
    let hermes = environment.find_executable("hermes")?;
    let first_line = std::fs::read_to_string(&hermes)
        .ok()?
        .lines()
        .next()?
        .to_owned();
    let mut interpreter = first_line
        .strip_prefix("#!")?
        .split_whitespace()
        .map(str::to_owned);
    let program = interpreter.next()?;
    let output = tokio::process::Command::new(&program)
        .args(interpreter)
        .args(["-c", "import mcp"])
        // Hermes runs with a filtered environment; PATH and HOME are what its interpreter needs to start.
        .env_clear()
        .env("PATH", environment.var("PATH").unwrap_or_default())
        .env("HOME", environment.home())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .output();
    match tokio::time::timeout(IMPORT_DEADLINE, output).await {
        Ok(Ok(output)) if output.status.success() => Some(Check::ok(
            "client.runtime",
            format!("Hermes' Python (`{program}`) imports the MCP SDK"),
        )),
        Ok(Ok(_)) => Some(Check::fail(
            "client.runtime",
            format!(
                "Hermes' Python (`{program}`) cannot import the MCP SDK: Hermes starts no MCP server at all"
            ),
            "pip install 'hermes-agent[mcp]' (with the pip of that Python)",
        )),
        Ok(Err(error)) => Some(Check::skip(
            "client.runtime",
            format!("could not run Hermes' Python `{program}`: {error}"),
        )),
        Err(_) => Some(Check::skip(
            "client.runtime",
            format!(
                "Hermes' Python `{program}` did not answer within {} s",
                IMPORT_DEADLINE.as_secs()
            ),
        )),
    }
}

//! Checks of each AI client's config: it parses, our entry is there and points at things that exist, nothing
//! conflicts with it, no approval gate or short timeout will hide it.
//!
//! Doctor sees a client through [`ClientConfig`]: the entries of one config file in the neutral JSON form the
//! installer's adapters read them into, beside the client's row of the installer's table. Where a client has a gate
//! or a timeout of its own, that row declares it as data (`timeouts`, `gates`), so the checks themselves never
//! branch on a client's name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use obsmcp_installer::clients::ClientSpec;
use serde_json::Value;

use super::report::{Check, Repair};
use super::vault::shell_quote;
use binary::binary_check;

/// One client's config file as doctor sees it.
#[derive(Debug, Clone)]
pub(crate) struct ClientConfig {
    /// The client's row in the installer's table: its id (as `--client` takes it), its timeouts and gates.
    pub(crate) spec: &'static ClientSpec,
    /// The client's display name.
    pub(crate) name: String,
    /// The config file.
    pub(crate) path: PathBuf,
    /// What reading it gave.
    pub(crate) state: ConfigState,
    /// Findings about gates outside the entry (approvals, deny lists, trust), already as checks.
    pub(crate) gate_checks: Vec<Check>,
    /// A project-scope file (`.mcp.json`, a project's `.codex/config.toml`): checked, never repaired, since setup
    /// writes user-scope entries only.
    pub(crate) project: bool,
    /// The companion skill, for clients that read skills from a folder.
    pub(crate) skill: Option<obsmcp_installer::clients::skill::Installed>,
}

/// The outcome of reading a config file.
#[derive(Debug, Clone)]
pub(crate) enum ConfigState {
    /// The file does not exist (the client is installed but has no config yet).
    Absent,
    /// The file parsed; these are its MCP server entries.
    Parsed(Vec<ServerEntry>),
    /// The file does not parse.
    Unparsable(String),
}

/// One MCP server entry of a client config.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ServerEntry {
    /// The server's name in the config.
    pub(crate) name: String,
    /// The program to start, for stdio entries.
    pub(crate) command: Option<String>,
    /// Its arguments.
    pub(crate) args: Vec<String>,
    /// Extra environment for it.
    pub(crate) env: BTreeMap<String, String>,
    /// The URL, for HTTP entries.
    pub(crate) url: Option<String>,
    /// The whole entry as read, for client-specific keys (timeouts, `enabled`).
    pub(crate) raw: Value,
    /// Whether the installer recognises it as obsmcp's own entry.
    pub(crate) ours: bool,
}

impl ServerEntry {
    /// Reads an entry from the neutral JSON form (`command` may also be a list, as opencode writes it).
    pub(crate) fn from_value(name: &str, raw: &Value) -> Self {
        let strings = |value: Option<&Value>| -> Vec<String> {
            value
                .and_then(Value::as_array)
                .map_or_else(Vec::new, |items| {
                    items
                        .iter()
                        .map(|item| {
                            item.as_str()
                                .map_or_else(|| item.to_string(), str::to_owned)
                        })
                        .collect()
                })
        };
        let (command, mut args) = match raw.get("command") {
            Some(Value::String(command)) => (Some(command.clone()), Vec::new()),
            Some(Value::Array(_)) => {
                let mut parts = strings(raw.get("command"));
                if parts.is_empty() {
                    (None, Vec::new())
                } else {
                    (Some(parts.remove(0)), parts)
                }
            }
            _ => (None, Vec::new()),
        };
        args.extend(strings(raw.get("args")));
        let env = ["env", "environment"]
            .iter()
            .find_map(|key| raw.get(*key).and_then(Value::as_object))
            .map(|map| {
                map.iter()
                    .map(|(key, value)| {
                        (
                            key.clone(),
                            value
                                .as_str()
                                .map_or_else(|| value.to_string(), str::to_owned),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let url = ["url", "serverUrl", "httpUrl"]
            .iter()
            .find_map(|key| raw.get(*key).and_then(Value::as_str))
            .map(str::to_owned);
        let mut entry = Self {
            name: name.to_owned(),
            command,
            args,
            env,
            url,
            raw: raw.clone(),
            ours: false,
        };
        entry.ours = entry.command.as_deref().is_some_and(|command| {
            obsmcp_installer::clients::runs_obsmcp_bridge(command, &entry.args)
        });
        entry
    }

    /// Whether this entry runs `obsmcp bridge`.
    pub(crate) fn is_obsmcp(&self) -> bool {
        self.ours
    }

    /// The value following `flag` in the arguments.
    /// Every value of a flag that may repeat (`--vault`), in order.
    pub(crate) fn flags(&self, flag: &str) -> Vec<&str> {
        let prefixed = format!("{flag}=");
        self.args
            .iter()
            .enumerate()
            .filter_map(|(index, arg)| {
                if arg == flag {
                    self.args.get(index + 1).map(String::as_str)
                } else {
                    arg.strip_prefix(&prefixed)
                }
            })
            .collect()
    }

    pub(crate) fn flag(&self, flag: &str) -> Option<&str> {
        let prefixed = format!("{flag}=");
        self.args.iter().enumerate().find_map(|(index, arg)| {
            if arg == flag {
                self.args.get(index + 1).map(String::as_str)
            } else {
                arg.strip_prefix(&prefixed)
            }
        })
    }

    /// Whether the entry is switched off in its config.
    fn disabled(&self) -> bool {
        self.raw.get("enabled").and_then(Value::as_bool) == Some(false)
            || self.raw.get("disabled").and_then(Value::as_bool) == Some(true)
    }

    /// Whether this is the older claude-code-mcp plugin reached through mcp-remote (or its URL directly).
    fn reaches_port(&self, port: u16) -> bool {
        let needle = format!(":{port}");
        self.url.as_deref().is_some_and(|url| url.contains(&needle))
            || self.args.iter().any(|arg| arg.contains(&needle))
    }

    fn runs_mcp_remote(&self) -> bool {
        self.command
            .as_deref()
            .into_iter()
            .chain(self.args.iter().map(String::as_str))
            .any(|word| word.contains("mcp-remote"))
    }
}

/// What the client checks need from the rest of the run.
pub(crate) struct ClientContext<'a> {
    /// The running binary's `--version` line.
    pub(crate) own_version: &'a str,
    /// `--version` output per command path (`None`: it could not be run).
    pub(crate) versions: &'a BTreeMap<String, Result<String, String>>,
    /// The vaults known to the run (for re-registering a missing entry).
    pub(crate) known_vaults: &'a [(PathBuf, String)],
    /// Whether any client at all has an obsmcp entry.
    pub(crate) any_entry: bool,
    /// How the running binary is typed in a shell, for the fixes (`obsmcp`, or its path when `PATH` lacks it).
    pub(crate) obsmcp: &'a str,
    /// The `obsmcp` a shell runs, real path.
    pub(crate) on_path: Option<&'a Path>,
    /// Home, variables and OS (where a binary would not last depends on them).
    pub(crate) environment: &'a obsmcp_installer::environment::Environment,
    /// Vaults found at a new place since setup (`doctor::moved`).
    pub(crate) moves: &'a [obsmcp_installer::plan::moves::Move],
}

/// The checks of one client's config.
pub(crate) fn client_checks(client: &ClientConfig, context: &ClientContext<'_>) -> Vec<Check> {
    let entries = match &client.state {
        ConfigState::Unparsable(error) => {
            return vec![Check::fail(
                "client.config",
                format!("{} does not parse: {error}", client.path.display()),
                format!(
                    "fix that line by hand (doctor and setup never rewrite a file they cannot parse), then run `{} setup --client {}`",
                    context.obsmcp, client.spec.id
                ),
            )];
        }
        ConfigState::Absent => &Vec::new(),
        ConfigState::Parsed(entries) => entries,
    };
    let mut checks = Vec::new();
    if matches!(client.state, ConfigState::Parsed(_)) {
        checks.push(Check::ok(
            "client.config",
            format!(
                "parses, {} MCP server {}",
                entries.len(),
                if entries.len() == 1 {
                    "entry"
                } else {
                    "entries"
                }
            ),
        ));
    }
    let ours: Vec<&ServerEntry> = entries.iter().filter(|entry| entry.is_obsmcp()).collect();
    if ours.is_empty() {
        checks.push(missing_entry(client, context));
    }
    for entry in &ours {
        checks.extend(entry_checks(client, entry, context));
    }
    if !ours.is_empty() {
        checks.extend(skill_check(client, context));
    }
    checks.push(conflicts(client, entries, &ours, context.on_path));
    checks.extend(client.gate_checks.iter().cloned());
    checks
}

/// Whether the companion skill is there and this binary's; missing is only a note (`setup --no-skill` leaves it out).
fn skill_check(client: &ClientConfig, context: &ClientContext<'_>) -> Option<Check> {
    use obsmcp_installer::clients::skill::Installed;
    let setup = format!("{} setup --client {}", context.obsmcp, client.spec.id);
    Some(match client.skill? {
        Installed::Current => {
            Check::ok("client.skill", "the obsmcp skill is installed and current")
        }
        Installed::Missing => Check::skip(
            "client.skill",
            format!(
                "no obsmcp skill installed (it teaches the agent the tools; `{setup}` installs it)"
            ),
        ),
        Installed::Different => Check::warn(
            "client.skill",
            "the obsmcp skill differs from this obsmcp's (an older version, or edited by hand)",
            format!("{setup} (it replaces the skill with this version's)"),
        ),
    })
}

fn missing_entry(client: &ClientConfig, context: &ClientContext<'_>) -> Check {
    let finding = format!("no obsmcp entry: {} cannot reach your vault", client.name);
    let fix = format!("{} setup --client {}", context.obsmcp, client.spec.id);
    let check = if context.any_entry {
        Check::warn("client.entry", finding, fix)
    } else {
        Check::fail("client.entry", finding, fix)
    };
    match context.known_vaults {
        [(vault, config_dir)] if !client.project => check.with_repair(Repair::RegisterEntry {
            client: client.spec.id.to_owned(),
            server: None,
            args: None,
            vault: vault.clone(),
            config_dir: config_dir.clone(),
        }),
        _ => check,
    }
}

fn entry_checks(
    client: &ClientConfig,
    entry: &ServerEntry,
    context: &ClientContext<'_>,
) -> Vec<Check> {
    let vaults = entry.flags("--vault");
    if vaults.len() > 1 {
        // An entry of several vaults: each vault is checked as an entry of its own would be, the binary once.
        let mut checks = Vec::new();
        for vault in vaults {
            let mut one = entry.clone();
            one.args = vec!["bridge".into(), "--vault".into(), vault.to_owned()];
            checks.extend(
                entry_checks(client, &one, context)
                    .into_iter()
                    .filter(|check| check.id == "client.entry"),
            );
        }
        checks.push(binary_check(
            entry,
            context,
            None,
            &format!("{} setup --client {}", context.obsmcp, client.spec.id),
        ));
        checks.extend(timeout_checks(client, entry));
        return checks;
    }
    let mut checks = Vec::new();
    let name = &entry.name;
    let vault = entry.flag("--vault").map(PathBuf::from);
    let config_dir = entry
        .flag("--config-dir")
        .unwrap_or(obsmcp_installer::obsidian_files::plugin_data::DEFAULT_CONFIG_DIR)
        .to_owned();
    let register = |vault: &Path| Repair::RegisterEntry {
        client: client.spec.id.to_owned(),
        server: Some(entry.name.clone()),
        args: Some(entry.args.clone()),
        vault: vault.to_owned(),
        config_dir: config_dir.clone(),
    };
    let reregister = vault.as_deref().map_or_else(
        || format!("{} setup --client {}", context.obsmcp, client.spec.id),
        |vault| {
            format!(
                "{} setup --client {} --vault {}",
                context.obsmcp,
                client.spec.id,
                shell_quote(&vault.to_string_lossy())
            )
        },
    );

    match &vault {
        None => checks.push(Check::fail("client.entry", format!("`{name}` runs the bridge without --vault"), reregister.clone())),
        Some(path) if !path.is_absolute() => checks.push(Check::fail(
            "client.entry",
            format!("`{name}` names the vault by a relative path `{}`: clients start servers in another folder", path.display()),
            reregister.clone(),
        )),
        Some(path) if !path.is_dir() => {
            let check = Check::fail(
                "client.entry",
                format!("`{name}` points at vault `{}`, which does not exist", path.display()),
                super::moved::fix(context.obsmcp, context.environment, context.moves, path),
            );
            // Found at its new place: `--fix` re-points the entry there, as the printed command does.
            let moved = super::moved::new_place(context.moves, path).filter(|_| !client.project);
            checks.push(match moved {
                Some(moved) => check.with_repair(register(&moved.to)),
                None => check,
            });
        }
        Some(path) if entry.disabled() => checks.push(Check::fail(
            "client.entry",
            format!("`{name}` (vault `{}`) is switched off in this config", path.display()),
            format!("remove `enabled = false` / `disabled: true` from `{name}` in {}", client.path.display()),
        )),
        Some(path) => checks.push(Check::ok("client.entry", format!("`{name}` → vault `{}`", path.display()))),
    }
    // A vault found at its new place is repaired there.
    let repair = vault.as_deref().filter(|_| !client.project).map(|vault| {
        register(super::moved::new_place(context.moves, vault).map_or(vault, |moved| &moved.to))
    });
    checks.push(binary_check(entry, context, repair, &reregister));
    checks.extend(timeout_checks(client, entry));
    checks
}

fn timeout_checks(client: &ClientConfig, entry: &ServerEntry) -> Vec<Check> {
    client
        .spec
        .timeouts
        .iter()
        .filter_map(|rule| {
            let value = entry.raw.get(rule.key)?;
            let number = value
                .as_f64()
                .or_else(|| value.as_str().and_then(|text| text.trim().parse().ok()))?;
            (number < rule.minimum).then(|| {
                Check::warn(
                    "client.timeouts",
                    format!(
                        "`{}` sets {} = {number}{}: too short for {} (at least {}{} is safe)",
                        entry.name, rule.key, rule.unit, rule.bounds, rule.minimum, rule.unit
                    ),
                    format!(
                        "raise or remove `{}` in `{}` of {}",
                        rule.key,
                        entry.name,
                        client.path.display()
                    ),
                )
            })
        })
        .collect()
}

/// How fit an entry's binary is to be the one kept of several for a vault (lower is better): the `obsmcp` on `PATH`,
/// then an existing binary outside a build folder (`target/`, which `cargo clean` empties), then any existing one.
fn keep_rank(entry: &ServerEntry, on_path: Option<&Path>) -> u8 {
    let Some(command) = entry.command.as_deref() else {
        return 4;
    };
    let real = obsmcp_installer::environment::real_path(command).ok();
    match real {
        Some(real) if on_path == Some(real.as_path()) => 0,
        Some(real) if !real.components().any(|part| part.as_os_str() == "target") => 1,
        Some(_) => 2,
        None => 3,
    }
}

fn conflicts(
    client: &ClientConfig,
    entries: &[ServerEntry],
    ours: &[&ServerEntry],
    on_path: Option<&Path>,
) -> Check {
    let mut problems = Vec::new();
    let mut extra = Vec::new();
    for entry in entries.iter().filter(|entry| !entry.is_obsmcp()) {
        if entry.reaches_port(22360) {
            let through = if entry.runs_mcp_remote() {
                " through mcp-remote"
            } else {
                ""
            };
            problems.push(format!(
                "`{}` reaches the older claude-code-mcp plugin on port 22360{through}",
                entry.name
            ));
            extra.push(entry.name.clone());
        } else if entry.name == "obsidian" || entry.name.starts_with("obsidian-") {
            let what = entry
                .command
                .clone()
                .or_else(|| entry.url.clone())
                .unwrap_or_default();
            problems.push(format!(
                "`{}` is another Obsidian server (`{what}`)",
                entry.name
            ));
            extra.push(entry.name.clone());
        }
    }
    let mut by_vault: BTreeMap<PathBuf, Vec<&ServerEntry>> = BTreeMap::new();
    for entry in ours {
        for vault in entry.flags("--vault") {
            let key = obsmcp_installer::environment::real_path(vault)
                .unwrap_or_else(|_| PathBuf::from(vault));
            by_vault.entry(key).or_default().push(entry);
        }
    }
    for (vault, mut same) in by_vault.into_iter().filter(|(_, same)| same.len() > 1) {
        // The stable sort keeps the config's order among equals.
        same.sort_by_key(|entry| keep_rank(entry, on_path));
        let names: Vec<String> = same
            .iter()
            .map(|entry| format!("`{}`", entry.name))
            .collect();
        problems.push(format!(
            "{} serve the same vault `{}` (keep `{}`, which runs `{}`)",
            names.join(" and "),
            vault.display(),
            same[0].name,
            same[0].command.as_deref().unwrap_or_default()
        ));
        extra.extend(same[1..].iter().map(|entry| entry.name.clone()));
    }
    if problems.is_empty() {
        return Check::ok(
            "client.conflicts",
            "no duplicate or conflicting Obsidian entries",
        );
    }
    let names: Vec<String> = extra.iter().map(|name| format!("`{name}`")).collect();
    Check::warn(
        "client.conflicts",
        format!(
            "{}: agents get the vault's tools twice",
            problems.join("; ")
        ),
        format!(
            "remove {} from {} (obsmcp already serves the vault; keep one only if it serves another vault)",
            names.join(" and "),
            client.path.display()
        ),
    )
}

mod binary;

#[cfg(test)]
mod tests;

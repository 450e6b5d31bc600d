//! `obsmcp doctor`: checks every link from AI client to vault and says what is broken and the exact fix.
//!
//! A run gathers what is on disk first (client configs through the installer's adapters, vaults from the entries,
//! `--vault` and Obsidian's registry), then does every slow thing at once (each vault's port, each entry's binary
//! version, each `--probe-bridge` child) under short timeouts, and folds it all into one [`report::Report`] that
//! the printers render. `--fix` applies the repairs the checks attached, then runs the whole examination again. The
//! command's glue (arguments, spinner, printing, bundle, exit code) is `crate::commands::doctor`.
//!
//! `examine` is one pass by design: it gathers every source first and then runs every slow probe at once.

pub(crate) mod bridge_probe;
pub(crate) mod bundle;
pub(crate) mod clients;
pub(crate) mod deep;
pub(crate) mod fix;
pub(crate) mod gates;
mod model;
pub(crate) mod moved;
pub(crate) mod plugin_probe;
pub(crate) mod print;
pub(crate) mod report;
pub(crate) mod sources;
pub(crate) mod vault;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use obsmcp_installer::environment::Environment;
use obsmcp_installer::obsidian_files::plugin_data::PLUGIN_ID;

use self::clients::{ClientConfig, ClientContext, ConfigState, ServerEntry};
use self::report::{Check, Report, Section, Subject};
use self::vault::{VaultFacts, VaultTarget};

/// What to examine, validated from the command line, and how to word the fixes.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Only these vaults (absolute), when given.
    pub(crate) vaults: Vec<PathBuf>,
    /// The config folder name for `--vault` vaults.
    pub(crate) config_dir: Option<String>,
    /// Whether to start each entry's command and talk MCP to it.
    pub(crate) probe_bridge: bool,
    /// The folder doctor runs in (project configs and folder trust are relative to it).
    pub(crate) cwd: PathBuf,
    /// How the running binary is typed in a shell (`obsmcp`, or its path when `PATH` does not run it), as setup's
    /// last step words it, so a fix can be pasted as is.
    pub(crate) obsmcp: String,
    /// The `obsmcp` a shell runs (`PATH`), real path: of two entries for one vault, the one to keep runs it.
    pub(crate) on_path: Option<PathBuf>,
}

/// One examination: the report plus what the bundle needs to go with it.
pub(crate) struct Examination {
    /// The report.
    pub(crate) report: Report,
    /// The client configs as read.
    pub(crate) clients: Vec<ClientConfig>,
    /// Tokens from `data.json` files and secret-named `env` values of entries (for redaction only; never printed).
    pub(crate) tokens: Vec<String>,
}

/// Where the bridge keeps its diagnostics log (`bridge.log`, rotated to `bridge.log.1`): the state folder, and
/// `~/Library/Logs/obsmcp` on macOS.
pub(crate) fn log_folders(environment: &Environment) -> Vec<PathBuf> {
    let mut folders = vec![environment.state_home()];
    if environment.os() == obsmcp_installer::environment::Os::MacOs {
        folders.insert(
            0,
            environment
                .home()
                .join("Library")
                .join("Logs")
                .join("obsmcp"),
        );
    }
    folders
}

/// Checks everything once.
pub(crate) async fn examine(environment: &Environment, options: &Options) -> Examination {
    let mut clients = all_client_configs(environment, &options.cwd);
    attach_gate_checks(environment, &options.cwd, &mut clients);
    let mut machine = Vec::new();
    let targets = vault_targets(environment, options, &clients, &mut machine);
    let found_moves = moved::find(environment);
    let facts: Vec<VaultFacts> = targets
        .into_iter()
        .map(|target| {
            let gone_fix = (!target.path.is_dir())
                .then(|| moved::fix(&options.obsmcp, environment, &found_moves, &target.path));
            vault::file_checks(target, &options.obsmcp, gone_fix)
        })
        .collect();

    let probes = facts.iter().map(|facts| async move {
        match facts.port_and_token() {
            Some((port, token)) => Some(plugin_probe::probe(port, &token).await),
            None => None,
        }
    });
    let commands = binaries_to_ask(&clients);
    let probed = bridges_to_probe(&clients, options.probe_bridge);
    let bridge_probes = probed.iter().map(|(index, entry)| async move {
        (
            *index,
            bridge_probe::probe(entry.clone(), &options.obsmcp).await,
        )
    });
    let (answers, versions, probe_checks, mut runtime_checks) = tokio::join!(
        futures::future::join_all(probes),
        bridge_probe::versions(commands),
        futures::future::join_all(bridge_probes),
        gates::runtime_checks(environment, &clients),
    );

    machine.push(port_clashes(&facts, &options.obsmcp));
    machine.push(clients_found(&clients, &options.obsmcp));
    machine.push(model::check(environment));
    if let Some(check) = newer_on_path(options).await {
        machine.push(check);
    }
    let mut sections = vec![Section {
        subject: Subject::Machine,
        checks: machine,
    }];
    let mut tokens = Vec::new();
    let mut known_vaults = Vec::new();
    for (facts, answer) in facts.into_iter().zip(answers) {
        if let Some(data) = &facts.data {
            tokens.push(data.token.clone());
        }
        known_vaults.push((facts.target.path.clone(), facts.target.config_dir.clone()));
        sections.push(vault_section(&facts, answer.as_ref(), &options.obsmcp));
    }

    let context = ClientContext {
        own_version: crate::version::LONG,
        versions: &versions,
        known_vaults: &known_vaults,
        any_entry: clients.iter().flat_map(entries).any(ServerEntry::is_obsmcp),
        obsmcp: &options.obsmcp,
        on_path: options.on_path.as_deref(),
        environment,
        moves: &found_moves,
    };
    let mut probe_checks: BTreeMap<usize, Vec<Check>> =
        probe_checks
            .into_iter()
            .fold(BTreeMap::new(), |mut map, (index, check)| {
                map.entry(index).or_default().push(check);
                map
            });
    for (index, client) in clients.iter().enumerate() {
        let mut checks = clients::client_checks(client, &context);
        checks.extend(probe_checks.remove(&index).unwrap_or_default());
        checks.extend(runtime_checks.remove(&index));
        tokens.extend(secret_env_values(client));
        sections.push(client_section(client, checks));
    }
    Examination {
        report: Report::new(sections),
        clients,
        tokens,
    }
}

/// The binaries obsmcp entries run that exist at an absolute path: those whose version is asked.
fn binaries_to_ask(clients: &[ClientConfig]) -> Vec<String> {
    let commands: BTreeSet<String> = clients
        .iter()
        .flat_map(entries)
        .filter(|entry| entry.is_obsmcp())
        .filter_map(|entry| entry.command.clone())
        .filter(|command| Path::new(command).is_absolute() && Path::new(command).is_file())
        .collect();
    commands.into_iter().collect()
}

/// With `--probe-bridge`, every obsmcp entry with the index of its client config; otherwise none.
fn bridges_to_probe(clients: &[ClientConfig], probe_bridge: bool) -> Vec<(usize, ServerEntry)> {
    if !probe_bridge {
        return Vec::new();
    }
    clients
        .iter()
        .enumerate()
        .flat_map(|(index, client)| {
            entries(client)
                .filter(|entry| entry.is_obsmcp())
                .map(move |entry| (index, entry.clone()))
        })
        .collect()
}

/// The user-scope configs of every client found, then the project-scope ones above `cwd` that are not one of them.
fn all_client_configs(environment: &Environment, cwd: &Path) -> Vec<ClientConfig> {
    let mut clients = sources::read_clients(environment);
    // Run from the home folder, `~/.codex/config.toml` is also "the project's" config: check each file once.
    let user_files: Vec<PathBuf> = clients
        .iter()
        .map(|client| obsmcp_installer::plan::write::resolve(&client.path))
        .collect();
    clients.extend(sources::project_configs(cwd).into_iter().filter(|project| {
        !user_files.contains(&obsmcp_installer::plan::write::resolve(&project.path))
    }));
    clients
}

/// Checks each client's gates outside its entries (approvals, deny lists, trust) and keeps them on its config.
fn attach_gate_checks(environment: &Environment, cwd: &Path, clients: &mut [ClientConfig]) {
    let gate_checks: Vec<Vec<Check>> = clients
        .iter()
        .map(|client| {
            let ours: Vec<String> = entries(client)
                .filter(|entry| entry.is_obsmcp())
                .map(|entry| entry.name.clone())
                .collect();
            gates::gate_checks(&gates::GateContext {
                environment,
                cwd,
                client,
                ours: &ours,
            })
        })
        .collect();
    for (client, checks) in clients.iter_mut().zip(gate_checks) {
        client.gate_checks = checks;
    }
}

/// Which AI clients were detected, or a warning naming how to register one when none was.
fn clients_found(clients: &[ClientConfig], obsmcp: &str) -> Check {
    if clients.is_empty() {
        return Check::warn(
            "clients.found",
            "no AI client detected (Claude Code, Codex, Hermes Agent, Gemini CLI, …)",
            format!(
                "install a client, or register one by name: `{obsmcp} setup --client claude-code`"
            ),
        );
    }
    let names: Vec<&str> = clients.iter().map(|client| client.name.as_str()).collect();
    Check::ok(
        "clients.found",
        format!("{} detected: {}", names.len(), names.join(", ")),
    )
}

/// One vault's section: its file checks, then what answered on its port when its `data.json` named one.
fn vault_section(
    facts: &VaultFacts,
    answer: Option<&plugin_probe::Answer>,
    obsmcp: &str,
) -> Section {
    let mut checks = facts.checks.clone();
    if facts.data.is_some() {
        checks.extend(vault::network_checks(facts, answer, obsmcp));
    }
    Section {
        subject: Subject::Vault {
            path: facts.target.path.display().to_string(),
            config_dir: facts.target.config_dir.clone(),
        },
        checks,
    }
}

/// One client config's section, with the checks found for it.
fn client_section(client: &ClientConfig, checks: Vec<Check>) -> Section {
    Section {
        subject: Subject::Client {
            client: client.spec.id.to_owned(),
            name: client.name.clone(),
            config: client.path.display().to_string(),
            scope: if client.project { "project" } else { "user" },
        },
        checks,
    }
}

/// The values of secret-named `env` variables in a client's entries, for the bundle to redact.
fn secret_env_values(client: &ClientConfig) -> impl Iterator<Item = String> + '_ {
    entries(client).flat_map(|entry| {
        entry
            .env
            .iter()
            .filter(|(name, _)| bundle::secret_name(name))
            .map(|(_, value)| value.clone())
    })
}

fn entries(client: &ClientConfig) -> impl Iterator<Item = &ServerEntry> {
    match &client.state {
        ConfigState::Parsed(entries) => entries.iter(),
        _ => [].iter(),
    }
}

/// The vaults to check: `--vault` alone when given; otherwise those named by obsmcp entries and those of Obsidian's
/// registry that have the plugin (or every registered vault, when that finds nothing).
fn vault_targets(
    environment: &Environment,
    options: &Options,
    clients: &[ClientConfig],
    machine: &mut Vec<Check>,
) -> Vec<VaultTarget> {
    let mut targets: Vec<VaultTarget> = Vec::new();
    if !options.vaults.is_empty() {
        for vault in &options.vaults {
            let config_dir = config_dir_of(vault, options.config_dir.as_deref());
            add_target(
                VaultTarget {
                    path: vault.clone(),
                    config_dir,
                },
                &mut targets,
            );
        }
        let count = targets.len();
        machine.push(Check::ok(
            "vaults.found",
            format!(
                "{count} vault{} given with --vault",
                if count == 1 { "" } else { "s" }
            ),
        ));
        return targets;
    }
    for entry in clients
        .iter()
        .flat_map(entries)
        .filter(|entry| entry.is_obsmcp())
    {
        let vaults = entry.flags("--vault");
        // `--config-dir` names one vault's folder; with several, each vault's is found in it.
        let given = entry.flag("--config-dir").filter(|_| vaults.len() == 1);
        for vault in vaults
            .into_iter()
            .map(PathBuf::from)
            .filter(|vault| vault.is_absolute())
        {
            let config_dir = config_dir_of(&vault, given);
            add_target(
                VaultTarget {
                    path: vault,
                    config_dir,
                },
                &mut targets,
            );
        }
    }
    let from_entries = targets.len();
    let registry_count = add_registered_vaults(environment, &mut targets, machine);
    machine.push(vaults_found(
        &targets,
        from_entries,
        registry_count,
        &options.obsmcp,
    ));
    targets
}

/// The config folder of a vault: the one given, or the one found in it.
fn config_dir_of(vault: &Path, given: Option<&str>) -> String {
    obsmcp_installer::obsidian_files::registry::config_dir(vault, given).0
}

/// Adds a vault unless one at the same real path is there already.
fn add_target(target: VaultTarget, targets: &mut Vec<VaultTarget>) {
    let key = obsmcp_installer::environment::real_path(&target.path)
        .unwrap_or_else(|_| target.path.clone());
    if !targets.iter().any(|known| {
        obsmcp_installer::environment::real_path(&known.path).unwrap_or_else(|_| known.path.clone())
            == key
    }) {
        targets.push(target);
    }
}

/// Adds the vaults of Obsidian's registry that have the plugin, or all of them when there is still no vault to
/// check; returns how many have the plugin. A registry that cannot be read is a warning in `machine`.
fn add_registered_vaults(
    environment: &Environment,
    targets: &mut Vec<VaultTarget>,
    machine: &mut Vec<Check>,
) -> usize {
    let (registered, errors) = obsmcp_installer::obsidian_files::registry::discover(environment);
    for error in &errors {
        machine.push(Check::warn(
            "vaults.registry",
            error.to_string(),
            "open Obsidian once so it rewrites its vault list",
        ));
    }
    let with_plugin: Vec<VaultTarget> = registered
        .iter()
        .map(|vault| VaultTarget {
            config_dir: config_dir_of(&vault.path, None),
            path: vault.path.clone(),
        })
        .filter(|target| {
            target
                .path
                .join(&target.config_dir)
                .join("plugins")
                .join(PLUGIN_ID)
                .is_dir()
        })
        .collect();
    let registry_count = with_plugin.len();
    for target in with_plugin {
        add_target(target, targets);
    }
    if targets.is_empty() {
        for vault in &registered {
            add_target(
                VaultTarget {
                    config_dir: config_dir_of(&vault.path, None),
                    path: vault.path.clone(),
                },
                targets,
            );
        }
    }
    registry_count
}

/// How many vaults will be checked and where they came from, or a failure when there is none.
fn vaults_found(
    targets: &[VaultTarget],
    from_entries: usize,
    registry_count: usize,
    obsmcp: &str,
) -> Check {
    if targets.is_empty() {
        return Check::fail(
            "vaults.found",
            "no vault to check: no client entry names one and Obsidian's vault list is empty or missing",
            format!("{obsmcp} setup --vault <your vault's folder>"),
        );
    }
    let mut sources = Vec::new();
    if from_entries > 0 {
        sources.push(format!("{from_entries} named by client entries"));
    }
    let from_registry = targets.len() - from_entries;
    if from_registry > 0 {
        let which = if registry_count > 0 {
            "with the plugin, "
        } else {
            ""
        };
        sources.push(format!("{from_registry} {which}from Obsidian's vault list"));
    }
    let count = targets.len();
    Check::ok(
        "vaults.found",
        format!(
            "{count} vault{}: {}",
            if count == 1 { "" } else { "s" },
            sources.join(", ")
        ),
    )
}

/// Two vaults set to one port: only one plugin can listen, and the other vault's clients reach the wrong vault.
fn port_clashes(facts: &[VaultFacts], obsmcp: &str) -> Check {
    let mut by_port: BTreeMap<u16, Vec<String>> = BTreeMap::new();
    for facts in facts {
        if let Some(data) = &facts.data {
            by_port
                .entry(data.port)
                .or_default()
                .push(format!("`{}`", facts.target.path.display()));
        }
    }
    let clashes: Vec<String> = by_port
        .iter()
        .filter(|(_, vaults)| vaults.len() > 1)
        .map(|(port, vaults)| format!("port {port} is set in {}", vaults.join(" and ")))
        .collect();
    if clashes.is_empty() {
        return Check::ok("vaults.port_clash", "every vault has a port of its own");
    }
    Check::fail(
        "vaults.port_clash",
        format!(
            "{}: only one plugin can listen, the other vault's clients reach the wrong vault",
            clashes.join("; ")
        ),
        format!(
            "in one of those vaults: Obsidian → Settings → obsmcp → Port, choose a free port (e.g. 22401), then `{obsmcp} setup` to update the clients"
        ),
    )
}

/// A warning when the `obsmcp` that `PATH` runs is another binary of a newer version than this one: the entries
/// probably should run it (a user updated through npm, pip or cargo and set up with the old copy).
async fn newer_on_path(options: &Options) -> Option<Check> {
    let on_path = options.on_path.as_deref()?;
    let running = crate::commands::shared::binary().ok()?;
    if on_path == running {
        return None;
    }
    let version = bridge_probe::version_of(on_path.display().to_string())
        .await
        .ok()?;
    let number = version.split_whitespace().next()?;
    if !crate::version::newer(number, env!("CARGO_PKG_VERSION")) {
        return None;
    }
    Some(Check::warn(
        "binary.path",
        format!(
            "the `obsmcp` on PATH, {}, is {number}, newer than this one ({})",
            on_path.display(),
            env!("CARGO_PKG_VERSION")
        ),
        "run `obsmcp setup` (the newer one) so that client entries run it".to_owned(),
    ))
}

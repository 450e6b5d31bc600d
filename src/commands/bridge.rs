//! `obsmcp bridge`: validates the flags (and the older Node bridge's environment variables), sets up logging on
//! stderr only — stdout is the MCP channel — and runs the bridge.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::bridge::{Policy, RawConfig};
use crate::cli::BridgeArgs;

/// Runs `obsmcp bridge`.
pub(crate) fn run(args: BridgeArgs) -> anyhow::Result<ExitCode> {
    let env_url = std::env::var("OBSIDIAN_MCP_URL")
        .ok()
        .filter(|url| !url.trim().is_empty());
    let mut vaults: Vec<(PathBuf, Option<String>)> =
        args.vault.into_iter().map(|vault| (vault, None)).collect();
    if vaults.is_empty() && args.url.is_none() && env_url.is_none() && args.command.is_empty() {
        vaults = default_vaults();
    }
    let raw = RawConfig {
        vaults,
        config_dir: args.config_dir,
        url: args.url,
        env_url,
        headers: args.header,
        token_env: args.token_env,
        command: args.command,
        policy: Policy {
            read_only: args.read_only,
            allow: args.allow_tool,
            deny: args.deny_tool,
        },
        call_timeout: args.call_timeout,
        connect_wait: args.connect_wait,
        startup_grace_ms: args.startup_grace_ms,
        no_offline: args.no_offline,
        log_file: args.log_file,
        log_level: args.log_level,
        max_chars: args.max_chars,
        index_memory_mb: args.index_memory_mb,
        index_search: args.index_search,
        tools: args.tools,
        model: args.model,
    };
    let config = match raw.validate(|name| std::env::var(name).ok()) {
        Ok(config) => config,
        Err(error) => {
            crate::ui::stderr_line(format_args!("error: obsmcp bridge cannot start: {error}"));
            crate::ui::stderr_line(format_args!(
                "hint: clients normally run `obsmcp bridge --vault PATH`, as `obsmcp setup` registers it; see `obsmcp bridge --help`"
            ));
            return Ok(ExitCode::from(2));
        }
    };
    init_logging(config.log_level);
    crate::bridge::run(config)
}

/// Logs to stderr at `level`. The file watcher's library reports at info what it calls no real error (at exit, a
/// watch the system had already dropped, "unable to remove watch descriptor"): its records show from warnings up,
/// unless the level asks for debugging.
fn init_logging(level: tracing::Level) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let watcher = if level >= tracing::Level::DEBUG {
        level
    } else {
        level.min(tracing::Level::WARN)
    };
    let filter = tracing_subscriber::filter::Targets::new()
        .with_default(level)
        .with_target("notify", watcher);
    let output = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false);
    tracing_subscriber::registry()
        .with(output)
        .with(filter)
        .init();
}

/// The vaults of a bridge started with no upstream named (an agent plugin's entry runs a plain `obsmcp bridge`):
/// `OBSMCP_VAULT`, else every vault `obsmcp setup` set up, each with its config folder; none when there is none.
fn default_vaults() -> Vec<(PathBuf, Option<String>)> {
    if let Some(vault) = std::env::var_os("OBSMCP_VAULT").filter(|vault| !vault.is_empty()) {
        return vec![(PathBuf::from(vault), None)];
    }
    let Some(environment) = obsmcp_installer::environment::Environment::from_process() else {
        return Vec::new();
    };
    obsmcp_installer::plan::state::State::load(&environment)
        .vaults
        .into_iter()
        .map(|(path, config_dir)| (path, Some(config_dir)))
        .collect()
}

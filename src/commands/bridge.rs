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
    let (mut vault, mut config_dir) = (args.vault, args.config_dir);
    if vault.is_none() && args.url.is_none() && env_url.is_none() && args.command.is_empty() {
        match default_vault() {
            Ok(Some((found, found_config_dir))) => {
                (vault, config_dir) = (Some(found), found_config_dir);
            }
            Ok(None) => {}
            Err(message) => {
                crate::ui::stderr_line(format_args!(
                    "error: obsmcp bridge cannot start: {message}"
                ));
                crate::ui::stderr_line(format_args!(
                    "hint: name the vault: `obsmcp bridge --vault PATH`, or set OBSMCP_VAULT in the client's entry"
                ));
                return Ok(ExitCode::from(2));
            }
        }
    }
    let raw = RawConfig {
        vault,
        config_dir,
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
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false)
        .with_max_level(config.log_level)
        .init();
    crate::bridge::run(config)
}

/// The vault of a bridge started with no upstream named (an agent plugin's entry runs a plain `obsmcp bridge`):
/// `OBSMCP_VAULT`, else the one vault `obsmcp setup` set up; `None` when there is none, an error when there are several.
fn default_vault() -> Result<Option<(PathBuf, Option<String>)>, String> {
    if let Some(vault) = std::env::var_os("OBSMCP_VAULT").filter(|vault| !vault.is_empty()) {
        return Ok(Some((PathBuf::from(vault), None)));
    }
    let Some(environment) = obsmcp_installer::environment::Environment::from_process() else {
        return Ok(None);
    };
    let vaults = obsmcp_installer::plan::state::State::load(&environment).vaults;
    let mut vaults = vaults.into_iter();
    match (vaults.next(), vaults.next()) {
        (Some((path, config_dir)), None) => Ok(Some((path, Some(config_dir)))),
        (None, _) => Ok(None),
        (Some((first, _)), Some((second, _))) => Err(format!(
            "no vault named, and setup set up several ({}, {}{})",
            first.display(),
            second.display(),
            if vaults.len() > 0 { ", …" } else { "" }
        )),
    }
}

//! `obsmcp bridge`: validates the flags (and the older Node bridge's environment variables), sets up logging on
//! stderr only — stdout is the MCP channel — and runs the bridge.

use std::process::ExitCode;

use crate::bridge::{Policy, RawConfig};
use crate::cli::BridgeArgs;

/// Runs `obsmcp bridge`.
pub(crate) fn run(args: BridgeArgs) -> anyhow::Result<ExitCode> {
    let raw = RawConfig {
        vault: args.vault,
        config_dir: args.config_dir,
        url: args.url,
        env_url: std::env::var("OBSIDIAN_MCP_URL")
            .ok()
            .filter(|url| !url.trim().is_empty()),
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

//! The `obsidian.*` checks of one vault, from what answered on its port: nothing (Obsidian closed, or the plugin off
//! or in restricted mode), something else (a web server, another MCP server, a listener that is not HTTP, an
//! impostor), our plugin refusing the token, or our plugin working, with its version, protocol and tools.

use super::*;
use crate::doctor::plugin_probe::{IndexState, PluginInfo};

/// Turns what answered on the port into the `obsidian.*` checks.
pub(crate) fn network_checks(
    facts: &VaultFacts,
    answer: Option<&Answer>,
    obsmcp: &str,
) -> Vec<Check> {
    let Some(answer) = answer else {
        return vec![Check::skip(
            "obsidian.port",
            "not probed: data.json gave no port",
        )];
    };
    let port = facts.data.as_ref().map_or(0, |data| data.port);
    let restart = "in Obsidian: Settings → Community plugins → turn obsmcp off and on";
    let mut checks = Vec::new();
    let identity_fail = |finding: String, fix: &str| Check::fail("obsidian.identity", finding, fix);
    let move_port = &format!(
        "free the port (stop that program), or give obsmcp another port: Obsidian → Settings → obsmcp → Port, then `{obsmcp} setup` to update the clients"
    );
    match answer {
        Answer::Closed => checks.extend(nothing_answers(facts, port)),
        Answer::Silent => {
            checks.push(Check::fail(
                "obsidian.port",
                format!("port {port} accepts connections but does not answer in time"),
                format!("if Obsidian is frozen, restart it; otherwise something else holds port {port}: {move_port}"),
            ));
        }
        Answer::NotHttp { detail } => {
            checks.push(Check::ok("obsidian.port", format!("port {port} answers")));
            checks.push(identity_fail(
                format!("port {port} is held by something that does not speak HTTP ({detail})"),
                move_port,
            ));
        }
        Answer::OtherHttp { status, server } => {
            checks.push(Check::ok("obsidian.port", format!("port {port} answers")));
            let server = server
                .as_deref()
                .map(|name| format!(", server `{name}`"))
                .unwrap_or_default();
            checks.push(identity_fail(
                format!("port {port} is held by another program, not the obsmcp plugin (HTTP {status} on /mcp{server})"),
                move_port,
            ));
        }
        Answer::OtherMcp { name, version } => {
            checks.push(Check::ok("obsidian.port", format!("port {port} answers")));
            checks.push(identity_fail(
                format!("port {port} is held by another MCP server (`{name}` {version}), not the obsmcp plugin"),
                move_port,
            ));
        }
        Answer::TokenRejected => {
            checks.push(Check::ok("obsidian.port", format!("port {port} answers")));
            checks.push(Check::fail(
                "obsidian.identity",
                format!("the obsmcp plugin on port {port} refuses the token in data.json: token mismatch (another vault's plugin on this port, settings changed while Obsidian ran, or a program posing as the plugin)"),
                format!("{restart} so it reloads data.json; if two vaults share port {port}, give each its own port"),
            ));
            checks.push(Check::skip(
                "obsidian.handshake",
                "no handshake without the right token",
            ));
        }
        Answer::Unproven { version } => {
            checks.push(Check::ok("obsidian.port", format!("port {port} answers")));
            checks.push(identity_fail(
                format!("port {port} answers as the obsmcp plugin {version} but cannot prove it knows this vault's token: an obsmcp plugin older than this doctor, or another program posing as the plugin (nothing that reveals the token was sent to it)"),
                &format!("run `{obsmcp} setup` to update the plugin, then restart Obsidian; if that does not help, something else holds the port: {move_port}"),
            ));
            checks.push(Check::skip(
                "obsidian.handshake",
                "nothing is sent to an unproven listener",
            ));
        }
        Answer::HandshakeFailed { version, detail } => {
            checks.push(Check::ok("obsidian.port", format!("port {port} answers")));
            checks.push(Check::ok(
                "obsidian.identity",
                format!("the obsmcp plugin {version} answers on port {port}"),
            ));
            checks.push(Check::fail(
                "obsidian.handshake",
                format!("the MCP handshake failed: {detail}"),
                restart,
            ));
        }
        Answer::Plugin(info) => checks.extend(plugin_answers(facts, info, port, restart)),
    }
    in_report_order(checks)
}

/// The port's checks when nothing answers: the vault is closed, or was not expected to listen yet.
fn nothing_answers(facts: &VaultFacts, port: u16) -> Vec<Check> {
    vec![
        if facts.should_be_listening {
            Check::warn(
                "obsidian.port",
                format!(
                    "nothing answers on port {port}: Obsidian is closed, this vault is not open, or the plugin did not load"
                ),
                "open the vault in Obsidian; read tools keep working from disk meanwhile",
            )
        } else {
            Check::skip(
                "obsidian.port",
                format!(
                    "nothing answers on port {port}, as expected until the problems above are fixed"
                ),
            )
        },
        Check::skip("obsidian.identity", "nothing to identify"),
        Check::skip("obsidian.handshake", "nothing to talk to"),
        restricted_mode(facts, false),
    ]
}

/// The checks when our plugin answered and took the token: its handshake summary, tools, and whether Obsidian runs
/// the plugin files on disk.
fn plugin_answers(facts: &VaultFacts, info: &PluginInfo, port: u16, restart: &str) -> Vec<Check> {
    let mut checks = Vec::new();
    checks.push(Check::ok("obsidian.port", format!("port {port} answers")));
    checks.push(Check::ok(
        "obsidian.identity",
        format!("the obsmcp plugin answers on port {port} and accepts the token"),
    ));
    let mode = if info.read_only {
        "read-only"
    } else {
        "read-write"
    };
    // Obsidian indexing after a start is no fault: it is said, and the check stays ok.
    let index = match info.index {
        IndexState::Resolved => ", Obsidian's index complete".to_owned(),
        IndexState::Indexing { done, total } => format!(
            ", Obsidian still indexing ({done} of {total} notes; links, tags and properties are incomplete and say so until it is done)"
        ),
        IndexState::Unknown => String::new(),
    };
    let summary = format!(
        "MCP handshake ok: plugin {}, protocol {}, {} tools, {mode}{index}",
        info.version, info.protocol_version, info.tools
    );
    if info.tools == 0 {
        checks.push(Check::fail(
            "obsidian.handshake",
            format!("{summary}: no tools listed"),
            restart,
        ));
    } else if facts
        .files_version
        .as_deref()
        .is_some_and(|files| files != info.version)
    {
        checks.push(Check::warn(
            "obsidian.handshake",
            format!(
                "{summary}, but the plugin files on disk are {}: Obsidian has not reloaded the plugin since they changed",
                facts.files_version.as_deref().unwrap_or("")
            ),
            restart,
        ));
    } else {
        checks.push(Check::ok("obsidian.handshake", summary));
    }
    checks.push(restricted_mode(facts, true));
    checks
}

/// The four `obsidian.*` checks in their fixed order, a skip standing in for any not reached.
fn in_report_order(mut checks: Vec<Check>) -> Vec<Check> {
    // Every vault reports the same four ids, so agents can look each one up whatever went wrong first.
    let mut complete = Vec::new();
    for id in [
        "obsidian.port",
        "obsidian.identity",
        "obsidian.handshake",
        "obsidian.restricted_mode",
    ] {
        match checks.iter().position(|check| check.id == id) {
            Some(index) => complete.push(checks.remove(index)),
            None => complete.push(Check::skip(id, "not reached: see the check above")),
        }
    }
    complete
}

/// Restricted mode lives in Obsidian's browser storage, not in a file: it can only be inferred.
pub(super) fn restricted_mode(facts: &VaultFacts, answered: bool) -> Check {
    if answered {
        return Check::ok(
            "obsidian.restricted_mode",
            "community plugins are on (the plugin answered)",
        );
    }
    if !facts.should_be_listening {
        return Check::skip(
            "obsidian.restricted_mode",
            "cannot tell until the plugin is installed and enabled",
        );
    }
    Check::warn(
        "obsidian.restricted_mode",
        "cannot be read from a file, and the plugin never answered: if Obsidian is open on this vault, restricted mode may be on",
        "in Obsidian: Settings → Community plugins → “Turn on community plugins” (or “Trust author and enable plugins” when asked), then check that obsmcp is toggled on",
    )
}

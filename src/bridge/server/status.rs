//! `obsidian_status`, the bridge's own tool: what it is connected to and how (state and since when, the upstream and
//! its server, why it is not connected or the error that ended its last outage, reconnects), where the tool list came from, whether offline mode can answer, and the
//! client's output budget. It never shows what hidden-path rules hide, only how many there are.

use std::time::UNIX_EPOCH;

use serde_json::{Value, json};

use super::{STATUS_TOOL, Server};
use crate::bridge::budget::Budget;
use crate::bridge::config::{UpstreamTarget, redacted};
use crate::sync::lock;

impl Server {
    pub(super) fn status_result(&self, budget: &Budget) -> Value {
        let facts = self.upstream.facts();
        let state = self.upstream.state();
        let catalog = lock(&self.catalog);
        let upstream = match self.upstream.target() {
            UpstreamTarget::Vault { path, config_dir } => {
                let port = obsmcp_installer::obsidian::plugin_data::read(path, config_dir)
                    .ok()
                    .map(|data| data.port);
                // How many rules hide private notes, never what they hide.
                let rules = crate::offline::hidden_rule_count(path, config_dir);
                json!({ "kind": "vault", "vault": path, "url": port.map(|port| format!("http://127.0.0.1:{port}/mcp")),
                        "hiddenPathRules": rules })
            }
            UpstreamTarget::Url { url, .. } => json!({ "kind": "url", "url": redacted(url) }),
            UpstreamTarget::Command { program, .. } => {
                json!({ "kind": "command", "command": program })
            }
        };
        let since = facts
            .since
            .and_then(|since| since.duration_since(UNIX_EPOCH).ok())
            .map(|since| since.as_secs());
        let report = json!({
            "state": state.as_str(),
            "stateSinceUnix": since,
            "upstream": upstream,
            "transport": facts.transport,
            "server": { "name": facts.server_name, "version": facts.server_version, "protocolVersion": facts.protocol_version },
            "lastError": facts.last_error,
            "previousError": facts.previous_error.as_ref().map(|(message, at)| json!({
                "message": message,
                "atUnix": at.duration_since(UNIX_EPOCH).ok().map(|at| at.as_secs()),
            })),
            "reconnects": facts.reconnects,
            "catalog": { "source": catalog.source.as_str(), "tools": catalog.tools.len() },
            "bridge": { "version": env!("CARGO_PKG_VERSION"), "pluginVersionBundled": crate::version::PLUGIN },
            "offlineMode": if self.offline.is_some() && self.config.offline { "available" } else { "not available" },
            "offlineIndex": self.offline.as_ref().and_then(|offline| offline.describe()),
            "indexSearch": self.index_search_status(),
            "client": {
                "name": lock(&self.client).clone(),
                "outputBudget": {
                    "for": budget.client,
                    "defaultMaxChars": budget.default_chars,
                    "ceilingMaxChars": budget.ceiling_chars,
                    "setBy": if self.config.max_chars.is_some() { "--max-chars" } else { "client" },
                },
            },
        });
        let text = serde_json::to_string_pretty(&report).expect("a JSON value serializes");
        json!({ "content": [{ "type": "text", "text": text }], "structuredContent": report })
    }
}
/// The bridge's own tool.
pub(super) fn status_tool() -> Value {
    json!({
        "name": STATUS_TOOL,
        "title": "Obsidian connection status",
        "description": "Reports whether the obsmcp bridge is connected to Obsidian (or its upstream MCP server): connection \
                        state, upstream address and server version, why it is not connected (or the error that ended its last outage), how often it reconnected, and where the \
                        tool list came from. Use it when vault tools fail.",
        "inputSchema": { "type": "object", "properties": {}, "additionalProperties": false },
        "annotations": { "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false },
    })
}

//! `obsidian_status`, the bridge's own tool: what it is connected to and how (state and since when, the upstream and
//! its server, why it is not connected or the error that ended its last outage, reconnects), where the tool list came from, whether offline mode can answer, and the
//! client's output budget. It never shows what hidden-path rules hide, only how many there are.
//!
//! With a vault's plugin connected it also says how far Obsidian's metadata indexing is: after Obsidian starts, its
//! cache is incomplete until it fires `resolved`, and the plugin's cache-bound tools say so at the start of their
//! results. The bridge learns it the way a client would, from the plugin's `vault_info`, which starts with an
//! `indexing` object until then.

use std::time::{Duration, UNIX_EPOCH};

use serde_json::{Value, json};

use super::{RequestSlot, STATUS_TOOL, Server, UpstreamState};
use crate::bridge::budget::Budget;
use crate::bridge::config::{UpstreamTarget, redacted};
use crate::lock::lock;

/// How long `obsidian_status` waits for the plugin's `vault_info`; the status never waits longer on Obsidian.
const INDEX_ASK_TIMEOUT: Duration = Duration::from_millis(1500);

impl Server {
    /// How far Obsidian's metadata indexing is, asked of the plugin: `null` unless a vault's plugin is connected now.
    pub(super) async fn obsidian_index(&self, slot: &RequestSlot) -> Value {
        if !self.fits_budgets() || !matches!(self.upstream.state(), UpstreamState::Ready) {
            return Value::Null;
        }
        let params = json!({ "name": "vault_info", "arguments": {} });
        match self
            .upstream
            .forward(
                "tools/call",
                Some(params),
                Duration::ZERO,
                INDEX_ASK_TIMEOUT,
                slot,
            )
            .await
        {
            Ok(answer) => index_state(&answer),
            Err(error) => json!({ "state": "unknown", "why": error.to_string() }),
        }
    }

    pub(super) fn status_result(&self, budget: &Budget, obsidian_index: Value) -> Value {
        let facts = self.upstream.facts();
        let state = self.upstream.state();
        let catalog = lock(&self.catalog);
        let upstream = match self.upstream.target() {
            UpstreamTarget::Vault { path, config_dir } => {
                let port = obsmcp_installer::obsidian_files::plugin_data::read(path, config_dir)
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
            "obsidianIndex": obsidian_index,
            "lastError": facts.last_error,
            "previousError": facts.previous_error.as_ref().map(|(message, at)| json!({
                "message": message,
                "atUnix": at.duration_since(UNIX_EPOCH).ok().map(|at| at.as_secs()),
            })),
            "reconnects": facts.reconnects,
            "catalog": { "source": catalog.source.as_str(), "tools": catalog.tools.len() },
            "toolList": { "profile": self.config.tools.as_str(), "enabledThisSession": lock(&self.enabled).iter().collect::<Vec<_>>() },
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
/// `{"state":"resolved"}`, or `{"state":"indexing","done":N,"total":M,"hint":…}`, from the plugin's `vault_info` answer.
fn index_state(answer: &Value) -> Value {
    let text = answer
        .pointer("/result/content/0/text")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if answer.pointer("/result/isError") == Some(&Value::Bool(true)) {
        return json!({ "state": "unknown", "why": text });
    }
    let info: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    match info.get("indexing") {
        Some(indexing) => json!({
            "state": "indexing",
            "done": indexing["done"],
            "total": indexing["total"],
            "hint": "Obsidian is still indexing this vault after starting: links, tags, properties and tasks are \
                     incomplete until it is done, and the plugin's results say so at their start; call again in a few seconds",
        }),
        None => json!({ "state": "resolved" }),
    }
}

/// The bridge's own tool.
pub(super) fn status_tool() -> Value {
    json!({
        "name": STATUS_TOOL,
        "title": "Obsidian connection status",
        "description": "Whether the bridge reaches Obsidian: connection state, upstream and server version, why it is not \
                        connected or what ended the last outage, reconnects, where the tool list came from. Use it when \
                        vault tools fail.",
        "inputSchema": { "type": "object", "properties": {}, "additionalProperties": false },
        "annotations": { "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false },
    })
}

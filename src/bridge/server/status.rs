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

use super::{RequestSlot, Route, STATUS_TOOL, Server, UpstreamState};
use crate::bridge::budget::Budget;
use crate::bridge::config::{UpstreamTarget, redacted};
use crate::lock::lock;

/// How long `obsidian_status` waits for the plugin's `vault_info`; the status never waits longer on Obsidian.
const INDEX_ASK_TIMEOUT: Duration = Duration::from_millis(1500);

impl Server {
    /// The status result: of the route named, or of the one route; with several vaults and none named, of each.
    pub(super) async fn status(
        &self,
        budget: &Budget,
        named: Option<usize>,
        slot: &RequestSlot,
    ) -> Value {
        let chosen: Vec<&Route> = match named {
            Some(index) => vec![&self.routes[index]],
            None if !self.several() => vec![self.default_route()],
            None => self.routes.iter().collect(),
        };
        let mut reports = Vec::new();
        for route in chosen {
            let index = self.obsidian_index(route, slot).await;
            let mut report = self.status_report(route, budget, index);
            if self.several() {
                report["vault"] = json!(route.name);
                report["default"] = json!(std::ptr::eq(route, self.default_route()));
            }
            reports.push(report);
        }
        let report = match reports.len() {
            1 => reports.pop().expect("one report"),
            _ => json!({ "vaults": reports }),
        };
        let text = serde_json::to_string_pretty(&report).expect("a JSON value serializes");
        json!({ "content": [{ "type": "text", "text": text }], "structuredContent": report })
    }

    /// How far Obsidian's metadata indexing is, asked of the plugin: `null` unless a vault's plugin is connected now.
    async fn obsidian_index(&self, route: &Route, slot: &RequestSlot) -> Value {
        if !route.is_vault() || !matches!(route.upstream.state(), UpstreamState::Ready) {
            return Value::Null;
        }
        let params = json!({ "name": "vault_info", "arguments": {} });
        match route
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

    /// One route's status.
    fn status_report(&self, route: &Route, budget: &Budget, obsidian_index: Value) -> Value {
        let facts = route.upstream.facts();
        let state = route.upstream.state();
        let catalog = lock(&route.catalog);
        let upstream = match route.upstream.target() {
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
        json!({
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
            "offlineMode": if route.offline.is_some() && self.config.offline { "available" } else { "not available" },
            "offlineIndex": route.offline.as_ref().and_then(|offline| offline.describe()),
            "indexSearch": self.index_search_status(route),
            "client": {
                "name": lock(&self.client).clone(),
                "outputBudget": {
                    "for": budget.client,
                    "defaultMaxChars": budget.default_chars,
                    "ceilingMaxChars": budget.ceiling_chars,
                    "setBy": if self.config.max_chars.is_some() { "--max-chars" } else { "client" },
                },
            },
        })
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

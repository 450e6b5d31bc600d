//! The self-test's MCP client to a vault's plugin: one session over Streamable HTTP, requests signed with the vault's
//! key (`crate::plugin_auth`), every answer checked for the plugin's proof before it is read.
//!
//! Hand-written beside `plugin_probe.rs` rather than through the bridge's upstream supervisor: the self-test wants one
//! plain session that fails loudly (no reconnection, no replay, no offline fallback that would hide the plugin's own
//! answer), with a timeout long enough for a vault-wide call on a large vault.

use std::time::Duration;

use serde_json::{Value, json};

use crate::bridge::protocol;
use crate::bridge::upstream::describe_reqwest_error;
use crate::bridge::upstream::event_stream::Decoder;
use crate::plugin_auth::PluginKey;

/// How long one tool call may take: a vault-wide search on 100,000 notes stays well under it.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// A session with one vault's plugin.
pub(crate) struct PluginClient {
    client: reqwest::Client,
    url: String,
    key: PluginKey,
    session: Option<String>,
    protocol: Option<String>,
    version: Option<String>,
    next_id: u64,
}

impl PluginClient {
    /// Opens a session with the plugin on `127.0.0.1:port` (initialize, then initialized).
    pub(crate) async fn connect(port: u16, token: &str) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(Duration::from_millis(800))
            .timeout(CALL_TIMEOUT)
            .build()
            .map_err(|error| format!("could not build an HTTP client: {error}"))?;
        let mut this = Self {
            client,
            url: format!("http://127.0.0.1:{port}/mcp"),
            key: PluginKey::new(token, port),
            session: None,
            protocol: None,
            version: None,
            next_id: 1,
        };
        let result = this
            .request(
                "initialize",
                json!({
                    "protocolVersion": protocol::PROBE,
                    "capabilities": {},
                    "clientInfo": {"name": "obsmcp-doctor-deep", "version": env!("CARGO_PKG_VERSION")}
                }),
            )
            .await?;
        this.protocol = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned);
        this.version = result
            .pointer("/serverInfo/version")
            .and_then(Value::as_str)
            .map(str::to_owned);
        this.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await?;
        Ok(this)
    }

    /// The plugin's version, as its `initialize` answer said.
    pub(crate) fn version(&self) -> Option<String> {
        self.version.clone()
    }

    /// The names of the tools the plugin lists, and whether every one of them is read-only (the plugin's read-only
    /// setting hides the others).
    pub(crate) async fn tools(&mut self) -> Result<(Vec<String>, bool), String> {
        let (mut names, mut read_only, mut cursor) = (Vec::new(), true, None::<String>);
        for _ in 0..10 {
            let params = cursor
                .as_ref()
                .map_or_else(|| json!({}), |cursor| json!({"cursor": cursor}));
            let result = self.request("tools/list", params).await?;
            for tool in result["tools"].as_array().into_iter().flatten() {
                names.push(tool["name"].as_str().unwrap_or_default().to_owned());
                read_only &= tool.pointer("/annotations/readOnlyHint") == Some(&json!(true));
            }
            cursor = result["nextCursor"].as_str().map(str::to_owned);
            if cursor.is_none() {
                return Ok((names, read_only));
            }
        }
        Err("tools/list kept returning more pages".to_owned())
    }

    /// Calls a tool; the `CallToolResult` (an `isError` result is a result, not an `Err`).
    pub(crate) async fn call(&mut self, name: &str, arguments: Value) -> Result<Value, String> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }

    /// Ends the session; the plugin also expires idle sessions, so a failure here changes nothing.
    pub(crate) async fn close(self) {
        if let Some(session) = &self.session {
            let (headers, _) = self.key.sign();
            let request = self
                .client
                .delete(&self.url)
                .headers(headers)
                .header("mcp-session-id", session);
            // Ignored on purpose: see above.
            let _ = request.send().await;
        }
    }

    async fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        let message = self
            .post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?
            .ok_or_else(|| format!("{method}: the plugin sent no JSON-RPC answer"))?;
        if let Some(error) = message.get("error") {
            return Err(format!(
                "{method}: the plugin answered with an error: {error}"
            ));
        }
        Ok(message.get("result").cloned().unwrap_or(Value::Null))
    }

    async fn post(&mut self, body: &Value) -> Result<Option<Value>, String> {
        let (headers, challenge) = self.key.sign();
        let mut request = self
            .client
            .post(&self.url)
            .headers(headers)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        if let Some(protocol) = &self.protocol {
            request = request.header("mcp-protocol-version", protocol);
        }
        let response = request
            .send()
            .await
            .map_err(|error| describe_reqwest_error(&error))?;
        if !challenge.is_met_by(response.headers()) {
            return Err(challenge.impostor_message());
        }
        let status = response.status();
        if let Some(session) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
        {
            self.session = Some(session.to_owned());
        }
        let event_stream = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("text/event-stream"));
        let text = response
            .text()
            .await
            .map_err(|error| describe_reqwest_error(&error))?;
        if !status.is_success() {
            return Err(format!("the plugin answered HTTP {}", status.as_u16()));
        }
        let id = body.get("id");
        if event_stream {
            let mut decoder = Decoder::default();
            let mut events = decoder.push(text.as_bytes());
            // A stream that ends without the blank line after its last event still completes it.
            events.extend(decoder.push(b"\n\n"));
            return Ok(events
                .into_iter()
                .filter_map(|event| serde_json::from_str::<Value>(&event.data).ok())
                .find(|message| id.is_some() && message.get("id") == id));
        }
        Ok(serde_json::from_str(&text).ok())
    }
}

/// The text of a tool result's first content block.
pub(crate) fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("")
}

/// Whether a tool result is an error.
pub(crate) fn is_error(result: &Value) -> bool {
    result["isError"] == json!(true)
}

/// A tool result's JSON text, parsed (`Null` when it is not JSON).
pub(crate) fn json_of(result: &Value) -> Value {
    serde_json::from_str(text_of(result)).unwrap_or(Value::Null)
}

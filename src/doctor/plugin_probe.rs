//! Talks to whatever answers on a vault's port and says what it is: nothing, something that is not HTTP, some other
//! web server, another MCP server, or our plugin, in which case a real MCP handshake (initialize, initialized,
//! tools/list) is made with the token from `data.json`. Requests are signed (`crate::plugin_auth`), never sent with
//! the bare token, and an answer counts as the plugin's only when it proves it knows the token.
//!
//! This is hand-written over reqwest rather than through an MCP client library because the point is the diagnosis of
//! each way it can go wrong (a refused connection, a 401 with our realm, a 404 from a static file server), which a
//! client library would fold into one opaque error.

use std::time::Duration;

use serde_json::{Value, json};

use crate::bridge::protocol;
use crate::bridge::upstream::describe_reqwest_error;
use crate::bridge::upstream::event_stream::Decoder;
use crate::plugin_auth::PluginKey;

/// The `serverInfo.name` our plugin reports in its `initialize` result.
pub(crate) const PLUGIN_SERVER_NAME: &str = "obsmcp";

/// The realm in the plugin's `WWW-Authenticate` header, which identifies it even when the token is wrong.
const PLUGIN_REALM: &str = "realm=\"obsmcp\"";

/// Why a handshake that began with the plugin stopped: a later answer came from something else.
const UNPROVEN_MIDWAY: &str = "an answer during the handshake did not prove it came from the plugin (another program took the port?)";

/// How long to wait for a TCP connection to a loopback port.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(400);

/// How long each HTTP exchange may take.
const REQUEST_TIMEOUT: Duration = Duration::from_millis(1500);

/// What answered on the port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Nothing listens there.
    Closed,
    /// A connection was accepted but no HTTP answer came in time.
    Silent,
    /// Something that does not speak HTTP.
    NotHttp { detail: String },
    /// Our plugin, refusing the token from `data.json`.
    TokenRejected,
    /// Something that answers as our plugin but cannot prove it knows the token: an older plugin, or an impostor.
    Unproven { version: String },
    /// A web server that is not an MCP server (or not at `/mcp`).
    OtherHttp { status: u16, server: Option<String> },
    /// An MCP server, but not ours.
    OtherMcp { name: String, version: String },
    /// Our plugin answered `initialize` but the rest of the handshake failed.
    HandshakeFailed { version: String, detail: String },
    /// Our plugin, fully working.
    Plugin(PluginInfo),
}

/// What our plugin said about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PluginInfo {
    /// `serverInfo.version`.
    pub(crate) version: String,
    /// The protocol version it agreed to.
    pub(crate) protocol_version: String,
    /// How many tools `tools/list` returned.
    pub(crate) tools: usize,
    /// Whether every listed tool is read-only (the plugin hides write tools in read-only mode).
    pub(crate) read_only: bool,
    /// How far Obsidian's metadata indexing was, from `vault_info`.
    pub(crate) index: IndexState,
}

/// Obsidian's metadata cache as the plugin reports it: after Obsidian starts it is incomplete until Obsidian has
/// indexed every note, and `vault_info` (like every tool that depends on it) starts with `indexing` until then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum IndexState {
    /// Complete: Obsidian fired `resolved`.
    Resolved,
    /// Still indexing: `done` of `total` notes.
    Indexing { done: u64, total: u64 },
    /// `vault_info` did not answer in a way that tells.
    Unknown,
}

/// What a `vault_info` text says of Obsidian's index (no `indexing` object first: complete).
fn index_of_vault_info(text: Option<&str>) -> IndexState {
    let Some(info) = text.and_then(|text| serde_json::from_str::<Value>(text).ok()) else {
        return IndexState::Unknown;
    };
    match info.get("indexing") {
        None => IndexState::Resolved,
        Some(indexing) => match (indexing["done"].as_u64(), indexing["total"].as_u64()) {
            (Some(done), Some(total)) => IndexState::Indexing { done, total },
            _ => IndexState::Unknown,
        },
    }
}

/// Asks what answers on `127.0.0.1:port`, using `token` for the MCP handshake.
pub(crate) async fn probe(port: u16, token: &str) -> Answer {
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    match tokio::time::timeout(CONNECT_TIMEOUT, tokio::net::TcpStream::connect(address)).await {
        Ok(Ok(stream)) => drop(stream),
        Ok(Err(_)) => return Answer::Closed,
        Err(_) => return Answer::Silent,
    }
    let client = match reqwest::Client::builder()
        .no_proxy()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(REQUEST_TIMEOUT)
        .pool_max_idle_per_host(0)
        .build()
    {
        Ok(client) => client,
        Err(error) => {
            return Answer::NotHttp {
                detail: format!("could not build an HTTP client: {error}"),
            };
        }
    };
    Handshake {
        client,
        url: format!("http://127.0.0.1:{port}/mcp"),
        key: PluginKey::new(token, port),
        session: None,
        protocol: None,
    }
    .run()
    .await
}

struct Handshake {
    client: reqwest::Client,
    url: String,
    key: PluginKey,
    session: Option<String>,
    protocol: Option<String>,
}

/// One HTTP reply, reduced to what the diagnosis needs.
struct Reply {
    status: u16,
    server: Option<String>,
    authenticate: Option<String>,
    session: Option<String>,
    message: Option<Value>,
    /// Whether the answer carried the plugin's proof that it knows the token.
    proven: bool,
}

impl Handshake {
    async fn run(mut self) -> Answer {
        let initialize = json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "protocolVersion": protocol::PROBE,
                "capabilities": {},
                "clientInfo": {"name": "obsmcp-doctor", "version": env!("CARGO_PKG_VERSION")}
            }
        });
        let reply = match self.post(&initialize).await {
            Ok(reply) => reply,
            Err(answer) => return answer,
        };
        if reply.status == 401 {
            if reply
                .authenticate
                .as_deref()
                .is_some_and(|value| value.contains(PLUGIN_REALM))
            {
                return Answer::TokenRejected;
            }
            return Answer::OtherHttp {
                status: 401,
                server: reply.server,
            };
        }
        let Some(message) = reply.message.filter(|_| (200..300).contains(&reply.status)) else {
            return Answer::OtherHttp {
                status: reply.status,
                server: reply.server,
            };
        };
        let Some(result) = message.get("result") else {
            return Answer::OtherHttp {
                status: reply.status,
                server: reply.server,
            };
        };
        let name = result
            .pointer("/serverInfo/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let version = result
            .pointer("/serverInfo/version")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if name != PLUGIN_SERVER_NAME {
            return Answer::OtherMcp { name, version };
        }
        if !reply.proven {
            return Answer::Unproven { version };
        }
        self.session = reply.session;
        self.protocol = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let outcome = self.list_tools().await;
        let index = match outcome {
            Ok(_) => self.index_state().await,
            Err(_) => IndexState::Unknown,
        };
        self.close().await;
        match outcome {
            Ok((tools, read_only)) => Answer::Plugin(PluginInfo {
                version,
                protocol_version: self.protocol.unwrap_or_default(),
                tools,
                read_only,
                index,
            }),
            Err(detail) => Answer::HandshakeFailed { version, detail },
        }
    }

    async fn list_tools(&mut self) -> Result<(usize, bool), String> {
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let reply = self
            .post(&initialized)
            .await
            .map_err(|answer| format!("notifications/initialized: {answer:?}"))?;
        if !reply.proven {
            return Err(UNPROVEN_MIDWAY.to_owned());
        }
        if !(200..300).contains(&reply.status) {
            return Err(format!(
                "notifications/initialized got HTTP {}",
                reply.status
            ));
        }
        let (mut tools, mut read_only, mut cursor) = (0, true, None::<String>);
        for id in 2..12 {
            let mut params = json!({});
            if let Some(cursor) = &cursor {
                params["cursor"] = json!(cursor);
            }
            let request =
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params});
            let reply = self
                .post(&request)
                .await
                .map_err(|answer| format!("tools/list: {answer:?}"))?;
            if !reply.proven {
                return Err(UNPROVEN_MIDWAY.to_owned());
            }
            let message = reply.message.ok_or_else(|| {
                format!(
                    "tools/list got HTTP {} without a JSON-RPC reply",
                    reply.status
                )
            })?;
            if let Some(error) = message.get("error") {
                return Err(format!("tools/list returned an error: {error}"));
            }
            let page = message
                .pointer("/result/tools")
                .and_then(Value::as_array)
                .ok_or("tools/list returned no tools array")?;
            tools += page.len();
            read_only &= page.iter().all(|tool| {
                tool.pointer("/annotations/readOnlyHint")
                    .and_then(Value::as_bool)
                    == Some(true)
            });
            cursor = message
                .pointer("/result/nextCursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            if cursor.is_none() {
                return Ok((tools, read_only && tools > 0));
            }
        }
        Err("tools/list kept returning more pages".to_owned())
    }

    /// Asks `vault_info`, which answers at once and starts with `indexing` while Obsidian's cache is incomplete.
    async fn index_state(&mut self) -> IndexState {
        let request = json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call",
                             "params": {"name": "vault_info", "arguments": {}}});
        let Ok(reply) = self.post(&request).await else {
            return IndexState::Unknown;
        };
        let text = reply
            .message
            .as_ref()
            .filter(|_| reply.proven)
            .and_then(|message| message.pointer("/result/content/0/text"))
            .and_then(Value::as_str);
        index_of_vault_info(text)
    }

    /// Ends the session so the plugin does not keep it; the report is already known, so a failure here is ignored.
    async fn close(&self) {
        if let Some(session) = &self.session {
            let (headers, _) = self.key.sign();
            let request = self
                .client
                .delete(&self.url)
                .headers(headers)
                .header("mcp-session-id", session);
            // The answer does not matter: the plugin also expires idle sessions.
            let _ = request.send().await;
        }
    }

    async fn post(&self, body: &Value) -> Result<Reply, Answer> {
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
        let response = request.send().await.map_err(|error| {
            if error.is_timeout() {
                Answer::Silent
            } else {
                Answer::NotHttp {
                    detail: describe_reqwest_error(&error),
                }
            }
        })?;
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        };
        let proven = challenge.is_met_by(response.headers());
        let status = response.status().as_u16();
        let server = header("server");
        let authenticate = header("www-authenticate");
        let session = header("mcp-session-id");
        let event_stream =
            header("content-type").is_some_and(|value| value.starts_with("text/event-stream"));
        let text = response.text().await.map_err(|error| {
            if error.is_timeout() {
                Answer::Silent
            } else {
                Answer::NotHttp {
                    detail: describe_reqwest_error(&error),
                }
            }
        })?;
        let id = body.get("id").cloned();
        let message = if event_stream {
            from_event_stream(&text, id.as_ref())
        } else {
            serde_json::from_str(&text).ok()
        };
        let message = message.filter(|message: &Value| message.get("jsonrpc").is_some());
        Ok(Reply {
            status,
            server,
            authenticate,
            session,
            message,
            proven,
        })
    }
}

/// The JSON-RPC message with `id` among the events of a server-sent event stream (the last one, as a client reads
/// them in order), decoded by the bridge's own decoder.
fn from_event_stream(text: &str, id: Option<&Value>) -> Option<Value> {
    let mut decoder = Decoder::default();
    let mut events = decoder.push(text.as_bytes());
    // A stream that ends without the blank line after its last event still completes it.
    events.extend(decoder.push(b"\n\n"));
    events
        .into_iter()
        .rev()
        .filter_map(|event| serde_json::from_str::<Value>(&event.data).ok())
        .find(|message| id.is_none() || message.get("id") == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reply_is_found_among_events() {
        let text = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n\
                    event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        let found = from_event_stream(text, Some(&json!(1))).unwrap();
        assert_eq!(found["id"], 1);
    }

    #[tokio::test]
    async fn a_port_nobody_holds_is_closed() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        assert_eq!(probe(port, "t").await, Answer::Closed);
    }
}

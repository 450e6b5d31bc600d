//! The baseline every bridge is measured against: a plain Streamable HTTP client talking straight to the plugin, with
//! one session, as an agent that spoke HTTP itself would (or, `stateless`, as a 2026-07-28 client: no session, each
//! request with its envelope and routing headers). Built on reqwest (the same HTTP stack as obsmcp's own
//! upstream) so that the baseline is a fast client, not a handicap for the bridges.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::bridges::TOKEN;
use super::stats::{Throughput, millis};

/// A session with the plugin over loopback HTTP.
pub struct Direct {
    runtime: tokio::runtime::Runtime,
    client: reqwest::Client,
    url: String,
    session: String,
    /// Speaks 2026-07-28: no session, the envelope in `_meta` and the `Mcp-Method` / `Mcp-Name` headers.
    stateless: bool,
    next_id: AtomicUsize,
}

impl Direct {
    /// Opens a session (`initialize`, then `notifications/initialized`) with the plugin on `port`.
    pub fn connect(port: u16) -> Self {
        let mut direct = Self::client(port, false);
        let (answer, session) = direct.runtime.block_on(direct.post(&json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": { "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "bench", "version": "1" } } })));
        assert!(answer["result"].is_object(), "{answer}");
        direct.session = session;
        direct.runtime.block_on(
            direct.post(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })),
        );
        direct
    }

    /// A 2026-07-28 client of the plugin on `port`: nothing to open, every request stands alone.
    pub fn stateless(port: u16) -> Self {
        Self::client(port, true)
    }

    fn client(port: u16, stateless: bool) -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        // Node closes a connection idle for 5 s (its keepAliveTimeout); a client that reuses one just then gets it
        // closed under its request. Dropping idle connections sooner avoids that race.
        let client = reqwest::Client::builder()
            .no_proxy()
            .pool_idle_timeout(Duration::from_secs(1))
            .build()
            .unwrap();
        let url = format!("http://127.0.0.1:{port}/mcp");
        Self {
            runtime,
            client,
            url,
            session: String::new(),
            stateless,
            next_id: AtomicUsize::new(1),
        }
    }

    /// Calls a tool and returns the `result` of the answer (panics on a JSON-RPC error: the plugin must answer).
    pub fn call(&self, tool: &str, arguments: &Value) -> Value {
        self.runtime.block_on(self.call_async(tool, arguments))
    }

    /// Calls a tool and returns the whole answer, a JSON-RPC error included.
    pub fn answer(&self, tool: &str, arguments: &Value) -> Value {
        self.runtime.block_on(self.answer_async(tool, arguments))
    }

    async fn call_async(&self, tool: &str, arguments: &Value) -> Value {
        let answer = self.answer_async(tool, arguments).await;
        assert!(answer["result"].is_object(), "{tool}: {answer}");
        answer["result"].clone()
    }

    async fn answer_async(&self, tool: &str, arguments: &Value) -> Value {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut params = json!({ "name": tool, "arguments": arguments });
        if self.stateless {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            });
        }
        let (answer, _) = self
            .post(&json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params }))
            .await;
        answer
    }

    /// Sends any request (`resources/list`, `completion/complete`…) and returns its `result` (panics on an error).
    pub fn request(&self, method: &str, params: &Value) -> Value {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let (answer, _) = self.runtime.block_on(self.post(&message));
        assert!(answer["result"].is_object(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// `total` calls of `tool` by `in_flight` concurrent callers on this one session, each starting its next call as
    /// soon as its last one is answered.
    pub fn throughput(&self, tool: &str, total: usize, in_flight: usize) -> Throughput {
        let issued = AtomicUsize::new(0);
        let arguments = json!({});
        let started = Instant::now();
        let latencies = self.runtime.block_on(async {
            let callers = (0..in_flight).map(|_| async {
                let mut latencies = Vec::new();
                while issued.fetch_add(1, Ordering::Relaxed) < total {
                    let sent = Instant::now();
                    let result = self.call_async(tool, &arguments).await;
                    assert!(result.get("isError").is_none(), "{result}");
                    latencies.push(millis(sent.elapsed()));
                }
                latencies
            });
            futures::future::join_all(callers).await
        });
        Throughput::new(latencies.concat(), started.elapsed())
    }

    async fn post(&self, message: &Value) -> (Value, String) {
        let mut request = self
            .client
            .post(&self.url)
            .header("authorization", format!("Bearer {TOKEN}"))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(message.to_string());
        if self.stateless {
            request = request
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", message["method"].as_str().unwrap_or_default());
            if let Some(name) = message.pointer("/params/name").and_then(Value::as_str) {
                request = request.header("mcp-name", name);
            }
        } else if !self.session.is_empty() {
            request = request
                .header("mcp-session-id", &self.session)
                .header("mcp-protocol-version", "2025-06-18");
        }
        let response = request.send().await.unwrap();
        let session = response
            .headers()
            .get("mcp-session-id")
            .map(|value| value.to_str().unwrap().to_string())
            .unwrap_or_default();
        let body = response.text().await.unwrap();
        let json = body
            .lines()
            .find_map(|line| line.strip_prefix("data: "))
            .unwrap_or(&body);
        (serde_json::from_str(json).unwrap_or(Value::Null), session)
    }
}

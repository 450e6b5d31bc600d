//! The downstream side: the MCP server that the AI client talks to over stdio.
//!
//! Framing is done here rather than by rmcp's stdio server because the contract is about exactly the cases a typed
//! server rejects or hides: a malformed line must get a parse error and the session must go on, a notification with
//! `"id": null` must be accepted, `server/discover` must get -32601, and a 20 MB line must be split on bytes. Each line
//! is parsed as JSON, sorted, and answered; everything that can wait for the upstream runs in its own task so that
//! `initialize`, `ping` and `tools/list` are never queued behind a slow call. One writer task owns stdout.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, UNIX_EPOCH};

use futures::FutureExt;
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

use super::budget::{self, Budget};
use super::catalog::{self, Catalog, CatalogSource};
use super::config::{BridgeConfig, UpstreamTarget, redacted};
use super::diagnostics::{Diagnostics, Record};
use super::jsonrpc::{self, Line, Message};
use super::offline::OfflineBackend;
use super::outbox::Outbox;
use super::upstream::{CallError, RequestSlot, Upstream, UpstreamEvent, UpstreamState};

/// The name of the bridge's own tool.
pub(crate) const STATUS_TOOL: &str = "obsidian_status";
/// The plugin's tool that runs several read tools in one call.
const BATCH_TOOL: &str = "batch";

/// Protocol versions the bridge speaks with its client, newest first.
const SUPPORTED_VERSIONS: [ProtocolVersion; 4] = [
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2024_11_05,
];

/// A request that has been forwarded and may be cancelled.
struct InFlight {
    slot: RequestSlot,
    /// Set just after the task starts; until then, removing the entry alone keeps the answer from being sent.
    task: Option<tokio::task::AbortHandle>,
}

/// The downstream server.
pub(crate) struct Server {
    config: BridgeConfig,
    upstream: Arc<Upstream>,
    out: Arc<Outbox>,
    catalog: Mutex<Catalog>,
    initialized: AtomicBool,
    in_flight: Mutex<HashMap<String, InFlight>>,
    diagnostics: Arc<Diagnostics>,
    offline: Option<Arc<dyn OfflineBackend>>,
    traces: AtomicU64,
    /// The client's name from `initialize`, which decides its output budget.
    client: Mutex<Option<String>>,
}

impl Server {
    /// A server answering through `out`.
    pub(crate) fn new(
        config: BridgeConfig,
        upstream: Arc<Upstream>,
        out: Arc<Outbox>,
        diagnostics: Arc<Diagnostics>,
        offline: Option<Arc<dyn OfflineBackend>>,
    ) -> Arc<Self> {
        let catalog = Catalog::initial(&config.upstream);
        Arc::new(Self {
            config,
            upstream,
            out,
            catalog: Mutex::new(catalog),
            initialized: AtomicBool::new(false),
            in_flight: Mutex::new(HashMap::new()),
            diagnostics,
            offline,
            traces: AtomicU64::new(1),
            client: Mutex::new(None),
        })
    }

    fn send(&self, message: Value) {
        self.out.send(&message);
    }

    /// Handles one line from stdin.
    pub(crate) fn handle_line(self: &Arc<Self>, line: &[u8]) {
        match jsonrpc::parse_line(line) {
            Line::Blank => {}
            Line::Messages(messages) => messages
                .into_iter()
                .for_each(|message| self.handle(message)),
            Line::NotJson(error) => {
                tracing::warn!("a line from the client is not JSON: {error}");
                self.send(jsonrpc::error(
                    Value::Null,
                    jsonrpc::PARSE_ERROR,
                    &format!("Parse error: {error}"),
                ));
            }
        }
    }

    /// Answers a line longer than the bridge reads: an error with no id (the id was never read), and the session goes
    /// on with the next line.
    pub(crate) fn refuse_oversized(&self, length: usize, limit: usize) {
        tracing::warn!("skipped a line of {length} bytes from the client (the limit is {limit})");
        self.send(jsonrpc::error(
            Value::Null,
            jsonrpc::INVALID_REQUEST,
            &format!(
                "Invalid request: the message is {length} bytes long, over the bridge's limit of {} MiB; it was skipped",
                limit >> 20
            ),
        ));
    }

    fn handle(self: &Arc<Self>, message: Message) {
        match message {
            Message::Request { id, method, params } => self.handle_request(id, method, params),
            Message::Notification { method, params } => self.handle_notification(&method, params),
            // The bridge sends the client no requests, so an answer is unexpected and harmless.
            Message::Response { .. } => tracing::debug!("ignored a response from the client"),
            Message::Invalid { id, reason } => self.send(jsonrpc::error(
                id,
                jsonrpc::INVALID_REQUEST,
                &format!("Invalid request: {reason}"),
            )),
        }
    }

    fn handle_request(self: &Arc<Self>, id: Value, method: String, params: Option<Value>) {
        match method.as_str() {
            "initialize" => {
                self.initialized.store(true, Ordering::Relaxed);
                *self.client.lock().expect("client lock") = budget::client_name(params.as_ref());
                self.send(jsonrpc::result(id, self.initialize_result(params.as_ref())));
            }
            "ping" => self.send(jsonrpc::result(id, json!({}))),
            "tools/list" => {
                let server = Arc::clone(self);
                tokio::spawn(async move {
                    let budget = server.budget(params.as_ref());
                    let tools = server.list_tools(&budget).await;
                    server.send(jsonrpc::result(id, json!({ "tools": tools })));
                });
            }
            "tools/call" => self.start_call(id, params),
            "logging/setLevel" => {
                self.send(jsonrpc::result(id, json!({})));
                if let Some(params) = params {
                    let upstream = Arc::clone(&self.upstream);
                    tokio::spawn(async move { upstream.set_log_level(params).await });
                }
            }
            _ => self.send(jsonrpc::error(
                id,
                jsonrpc::METHOD_NOT_FOUND,
                &format!("Method not found: {method}"),
            )),
        }
    }

    fn handle_notification(self: &Arc<Self>, method: &str, params: Option<Value>) {
        match method {
            "notifications/cancelled" => {
                let Some(request) = params.as_ref().and_then(|params| params.get("requestId"))
                else {
                    return;
                };
                let Some(in_flight) = self
                    .in_flight
                    .lock()
                    .expect("in-flight lock")
                    .remove(&jsonrpc::id_key(request))
                else {
                    return;
                };
                // The client no longer wants an answer: stop waiting, and tell the upstream to stop working.
                if let Some(task) = in_flight.task {
                    task.abort();
                }
                let reason = params
                    .as_ref()
                    .and_then(|params| params.get("reason"))
                    .and_then(Value::as_str)
                    .unwrap_or("cancelled by the client")
                    .to_string();
                let target = *in_flight.slot.lock().expect("slot lock");
                if let Some((generation, upstream_id)) = target {
                    let upstream = Arc::clone(&self.upstream);
                    tokio::spawn(
                        async move { upstream.cancel(generation, upstream_id, &reason).await },
                    );
                }
                self.diagnostics.record(&Record {
                    event: "call_cancelled",
                    ..Record::default()
                });
            }
            "notifications/initialized" | "notifications/roots/list_changed" => {}
            _ => tracing::debug!("ignored client notification `{method}`"),
        }
    }

    fn initialize_result(&self, params: Option<&Value>) -> Value {
        let requested = params
            .and_then(|params| params.get("protocolVersion"))
            .and_then(Value::as_str);
        let version = SUPPORTED_VERSIONS
            .iter()
            .find(|version| Some(version.as_str()) == requested)
            .unwrap_or(&ProtocolVersion::LATEST_WITH_INITIALIZE);
        let instructions = match self.config.upstream {
            UpstreamTarget::Vault { .. } => {
                "Tools for the user's Obsidian vault: find with search, list_files or tags, then read only what you need \
                 (outline, then read_note with a heading or line range; several reads in one batch), and make a result's \
                 continue_with call when it says truncated. Every edit takes expected_hash, the sha256 of your last read, so \
                 a note changed meanwhile is never overwritten; on a conflict, read again and redo the edit. When Obsidian \
                 is closed, reads come from disk (served_from=disk) and writes say Obsidian must be open: ask the user to \
                 open it, then retry; obsidian_status shows the connection."
            }
            _ => "A bridge to an MCP server; `obsidian_status` tells the connection state.",
        };
        json!({
            "protocolVersion": version.as_str(),
            "capabilities": { "tools": { "listChanged": true }, "logging": {} },
            "serverInfo": { "name": "obsmcp", "title": "Obsidian (obsmcp)", "version": env!("CARGO_PKG_VERSION") },
            "instructions": instructions,
        })
    }

    /// The output budget for a request: by the client named in its `_meta` (2026 era) or in `initialize`, unless
    /// `--max-chars` set one for every client.
    fn budget(&self, params: Option<&Value>) -> Budget {
        let name = budget::client_name(params)
            .or_else(|| self.client.lock().expect("client lock").clone());
        let budget = Budget::for_client(name.as_deref());
        match self.config.max_chars {
            Some(max_chars) => budget.overridden(max_chars),
            None => budget,
        }
    }

    /// The tools offered: the catalog through the policy, plus the status tool.
    async fn list_tools(&self, budget: &Budget) -> Vec<Value> {
        let known = self.catalog.lock().expect("catalog lock").source != CatalogSource::Unknown;
        if !known {
            // No catalog at all (first start of a non-vault upstream): give the upstream a short grace.
            let deadline = tokio::time::Instant::now() + self.config.startup_grace;
            let mut states = self.upstream.watch();
            while self.catalog.lock().expect("catalog lock").source == CatalogSource::Unknown {
                if tokio::time::timeout_at(deadline, states.changed())
                    .await
                    .is_err()
                {
                    break;
                }
                // The catalog event follows the Ready state by a hair: give it a moment to land.
                if *states.borrow() == UpstreamState::Ready {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
            }
        }
        let catalog = self.catalog.lock().expect("catalog lock");
        let mut tools: Vec<Value> = self.config.policy.filter(&catalog.tools).cloned().collect();
        if self.fits_budgets() {
            tools.iter_mut().for_each(|tool| budget.annotate(tool));
        }
        tools.push(status_tool());
        tools
    }

    /// Applies an upstream event: a new live catalog, or a notification to pass down.
    pub(crate) fn upstream_event(&self, event: UpstreamEvent) {
        match event {
            UpstreamEvent::Forward(notification) => self.send(notification),
            UpstreamEvent::Catalog(tools) => {
                let changed = {
                    let mut catalog = self.catalog.lock().expect("catalog lock");
                    let changed = !catalog::same_tools(&catalog.tools, &tools);
                    *catalog = Catalog {
                        tools,
                        source: CatalogSource::Live,
                    };
                    if changed
                        && !matches!(self.config.upstream, UpstreamTarget::Vault { .. })
                        && let Err(error) =
                            catalog::save_cache(&self.config.upstream, &catalog.tools)
                    {
                        tracing::warn!("could not cache the tool catalog: {error}");
                    }
                    changed
                };
                if changed && self.initialized.load(Ordering::Relaxed) {
                    self.send(jsonrpc::notification(
                        "notifications/tools/list_changed",
                        None,
                    ));
                }
            }
        }
    }

    fn start_call(self: &Arc<Self>, id: Value, params: Option<Value>) {
        let key = jsonrpc::id_key(&id);
        let slot: RequestSlot = Arc::default();
        let server = Arc::clone(self);
        let task_slot = Arc::clone(&slot);
        let task_key = key.clone();
        // Registered before the task starts: a fast answer (the status tool) must find its entry.
        {
            let mut in_flight = self.in_flight.lock().expect("in-flight lock");
            if in_flight.contains_key(&key) {
                drop(in_flight);
                // Two answers with one id could not be told apart: the duplicate is refused, the first goes on.
                self.send(jsonrpc::error(
                    id,
                    jsonrpc::INVALID_REQUEST,
                    "a request with this id is still in flight: give each request its own id",
                ));
                return;
            }
            in_flight.insert(key.clone(), InFlight { slot, task: None });
        }
        let task = tokio::spawn(async move {
            // A bug that panics inside one call must still answer that call, or the client waits forever.
            let answer = AssertUnwindSafe(server.call(id.clone(), params, &task_slot))
                .catch_unwind()
                .await
                .unwrap_or_else(|_| {
                    tracing::error!("a tool call panicked; answered with an internal error");
                    jsonrpc::error(
                        id,
                        jsonrpc::INTERNAL_ERROR,
                        "obsmcp bridge failed while handling this call (a bug: see the diagnostics log)",
                    )
                });
            // Only answer if the call was not cancelled meanwhile (a cancelled request gets no response).
            if server
                .in_flight
                .lock()
                .expect("in-flight lock")
                .remove(&task_key)
                .is_some()
            {
                server.send(answer);
            }
        });
        if let Some(entry) = self.in_flight.lock().expect("in-flight lock").get_mut(&key) {
            entry.task = Some(task.abort_handle());
        }
    }

    async fn call(&self, id: Value, params: Option<Value>, slot: &RequestSlot) -> Value {
        let trace = self.traces.fetch_add(1, Ordering::Relaxed);
        let started = Instant::now();
        let Some(name) = params
            .as_ref()
            .and_then(|params| params.get("name"))
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            return jsonrpc::error(
                id,
                jsonrpc::INVALID_PARAMS,
                "tools/call needs a tool `name`",
            );
        };
        let bytes_in = params.as_ref().map(estimate_size);
        let record = |outcome: &'static str, bytes_out: Option<usize>| {
            self.diagnostics.record(&Record {
                event: "call",
                trace: Some(trace),
                method: Some("tools/call"),
                tool: Some(&name),
                outcome: Some(outcome),
                duration_ms: Some((started.elapsed().as_secs_f64() * 100_000.0).round() / 100.0),
                bytes_in,
                bytes_out,
                ..Record::default()
            });
        };
        if name == STATUS_TOOL {
            record("ok", None);
            return jsonrpc::result(id, self.status_result(&self.budget(params.as_ref())));
        }
        let refusal = {
            let catalog = self.catalog.lock().expect("catalog lock");
            match self.config.policy.check(&name, catalog.find(&name)) {
                Err(refusal) => Some(refusal.explain(&name)),
                // A batch runs other tools: each of them meets the same policy as a direct call.
                Ok(()) if name == BATCH_TOOL => self
                    .config
                    .policy
                    .refused_batch_call(params.as_ref(), |inner| catalog.find(inner)),
                Ok(()) => None,
            }
        };
        if let Some(refusal) = refusal {
            record("refused", None);
            return jsonrpc::result(id, tool_error(&refusal));
        }
        let budget = self.budget(params.as_ref());
        let tool = self
            .catalog
            .lock()
            .expect("catalog lock")
            .find(&name)
            .cloned();
        let mut params = params;
        let fitted = tool.as_ref().filter(|_| self.fits_budgets());
        if let Some(tool) = fitted
            && let Some(Value::Object(arguments)) = params
                .as_mut()
                .and_then(|params| params.as_object_mut())
                .map(|params| params.entry("arguments").or_insert_with(|| json!({})))
        {
            budget.prepare(tool, arguments);
        }
        // Only a call that may be asked again keeps a copy of its arguments (a write's can be megabytes).
        let refittable = fitted.filter(|tool| budget.may_refit(tool));
        let mut refits = 0;
        loop {
            let sent = if refittable.is_some() {
                params.clone()
            } else {
                params.take()
            };
            let (answer, outcome, bytes_out) = self.dispatch(&id, &name, sent, started, slot).await;
            // A read whose answer the client would cut is asked again for a smaller page, which says how to get the rest.
            let smaller = refittable
                .filter(|_| refits < budget::MAX_REFITS)
                .and_then(|tool| {
                    let arguments = params.as_ref()?.get("arguments")?.as_object()?;
                    budget.refit(tool, arguments, &answer)
                });
            match smaller {
                Some(arguments) => {
                    refits += 1;
                    tracing::debug!(
                        "`{name}` answered more than {} takes; asking again for less",
                        budget.client
                    );
                    if let Some(params) = params.as_mut().and_then(Value::as_object_mut) {
                        params.insert("arguments".into(), Value::Object(arguments));
                    }
                }
                None => {
                    record(outcome, bytes_out);
                    return answer;
                }
            }
        }
    }

    /// Whether the bridge fits results to the client: for our own plugin (and its offline twin), whose tools' `max_chars`
    /// and `limit` mean what the budget assumes.
    fn fits_budgets(&self) -> bool {
        matches!(self.config.upstream, UpstreamTarget::Vault { .. })
    }

    /// Runs one call: from disk when the upstream is down and the tool can be answered there, else upstream (and from
    /// disk after all when the upstream turns out unreachable). The answer, the outcome word and its size for the log.
    async fn dispatch(
        &self,
        id: &Value,
        name: &str,
        params: Option<Value>,
        started: Instant,
        slot: &RequestSlot,
    ) -> (Value, &'static str, Option<usize>) {
        let id = id.clone();
        if let Some(answer) = self.try_offline(name, params.as_ref()).await {
            return (jsonrpc::result(id, answer), "offline", None);
        }
        let connect_wait = match self.config.upstream {
            // A child process needs time to start; its calls queue until the handshake is done.
            UpstreamTarget::Command { .. } => self
                .config
                .connect_wait
                .max(std::time::Duration::from_secs(15)),
            // What the disk fallback already waited counts: a call waits for the upstream at most once.
            _ => self.config.connect_wait.saturating_sub(started.elapsed()),
        };
        let arguments = self
            .offline_for(name)
            .and(params.as_ref())
            .and_then(|params| params.get("arguments"))
            .cloned();
        match self
            .upstream
            .forward(
                "tools/call",
                params,
                connect_wait,
                self.config.call_timeout,
                slot,
            )
            .await
        {
            Ok(answer) => {
                let outcome = if answer.pointer("/result/isError") == Some(&Value::Bool(true)) {
                    "tool_error"
                } else {
                    "ok"
                };
                let size = estimate_size(&answer);
                (with_client_id(answer, id), outcome, Some(size))
            }
            // The session looked up but was not: the disk can still answer a read.
            Err(CallError::Unreachable(_)) if self.offline_for(name).is_some() => {
                let backend = self.offline_for(name).expect("checked just above");
                let answer = backend
                    .call(name, arguments.as_ref().and_then(Value::as_object))
                    .await;
                (jsonrpc::result(id, answer), "offline", None)
            }
            Err(error) => {
                let (outcome, text) = self.explain(&error);
                (jsonrpc::result(id, tool_error(&text)), outcome, None)
            }
        }
    }

    /// Offline mode's seam: the backend, when this call may be answered from disk (`--vault` without `--no-offline`,
    /// a tool the backend serves).
    fn offline_for(&self, tool: &str) -> Option<&Arc<dyn OfflineBackend>> {
        let backend = self.offline.as_ref()?;
        let vault = matches!(self.config.upstream, UpstreamTarget::Vault { .. });
        (self.config.offline && vault && backend.serves(tool)).then_some(backend)
    }

    /// Answers from disk when no session comes up: at once when the last attempt failed, after the connect wait when
    /// an attempt is still under way.
    async fn try_offline(&self, tool: &str, params: Option<&Value>) -> Option<Value> {
        let backend = self.offline_for(tool)?;
        if self
            .upstream
            .ready_unless_down(self.config.connect_wait)
            .await
        {
            return None;
        }
        let arguments = params
            .and_then(|params| params.get("arguments"))
            .and_then(Value::as_object);
        Some(backend.call(tool, arguments).await)
    }

    /// A plain sentence for a failed call, and the outcome word for the log.
    fn explain(&self, error: &CallError) -> (&'static str, String) {
        let who = self.config.upstream.display_name();
        match error {
            CallError::Unreachable(reason) => {
                let hint = match self.config.upstream {
                    UpstreamTarget::Vault { .. } => {
                        " Is Obsidian open, with the obsmcp plugin enabled?"
                    }
                    _ => "",
                };
                (
                    "unreachable",
                    format!(
                        "{who} is not reachable ({reason}).{hint} The bridge keeps reconnecting on its own; try again in a few \
                         seconds. `obsidian_status` shows the connection state."
                    ),
                )
            }
            CallError::Lost(reason) => (
                "lost",
                format!(
                    "The connection to {who} was lost during this call ({reason}). The call may or may not have taken effect: \
                     check before repeating a change. The bridge is reconnecting on its own."
                ),
            ),
            CallError::Timeout(after) => (
                "timeout",
                format!(
                    "{who} did not answer within {:.0} s, so the call was cancelled. Try again, or raise --call-timeout.",
                    after.as_secs_f64()
                ),
            ),
            CallError::Rejected(reason) => {
                ("rejected", format!("{who} refused the call: {reason}."))
            }
        }
    }

    fn status_result(&self, budget: &Budget) -> Value {
        let facts = self.upstream.facts();
        let state = self.upstream.state();
        let catalog = self.catalog.lock().expect("catalog lock");
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
            "reconnects": facts.reconnects,
            "catalog": { "source": catalog.source.as_str(), "tools": catalog.tools.len() },
            "bridge": { "version": env!("CARGO_PKG_VERSION"), "pluginVersionBundled": crate::version::PLUGIN },
            "offlineMode": if self.offline.is_some() && self.config.offline { "available" } else { "not available" },
            "client": {
                "name": self.client.lock().expect("client lock").clone(),
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

    /// Cancels nothing and answers nothing more: used at shutdown.
    pub(crate) fn abort_all(&self) {
        for (_, in_flight) in self.in_flight.lock().expect("in-flight lock").drain() {
            if let Some(task) = in_flight.task {
                task.abort();
            }
        }
    }
}

/// The bridge's own tool.
fn status_tool() -> Value {
    json!({
        "name": STATUS_TOOL,
        "title": "Obsidian connection status",
        "description": "Reports whether the obsmcp bridge is connected to Obsidian (or its upstream MCP server): connection \
                        state, upstream address and server version, the last error, how often it reconnected, and where the \
                        tool list came from. Use it when vault tools fail.",
        "inputSchema": { "type": "object", "properties": {}, "additionalProperties": false },
        "annotations": { "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false },
    })
}

/// A tool result that reports a failure to the agent in words. Built as plain JSON: rmcp's `CallToolResult` adds
/// fields of newer protocol versions that older clients were never told about.
fn tool_error(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": true })
}

/// An upstream answer re-addressed to the client's request id, fields in the usual order.
fn with_client_id(answer: Value, id: Value) -> Value {
    let Value::Object(mut fields) = answer else {
        return jsonrpc::error(
            id,
            jsonrpc::INTERNAL_ERROR,
            "the upstream answer was not an object",
        );
    };
    let mut message = serde_json::Map::new();
    message.insert("jsonrpc".into(), "2.0".into());
    message.insert("id".into(), id);
    for key in ["result", "error"] {
        if let Some(value) = fields.remove(key) {
            message.insert(key.into(), value);
        }
    }
    Value::Object(message)
}

/// The serialized size of a value, for the log, without serializing twice for big ones.
fn estimate_size(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing into a counter cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

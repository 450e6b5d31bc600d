//! The downstream side: the MCP server that the AI client talks to over stdio.
//!
//! Framing is done here rather than by rmcp's stdio server because the contract is about exactly the cases a typed
//! server rejects or hides: a malformed line must get a parse error and the session must go on, a notification with
//! `"id": null` must be accepted, an era chosen by each request (`era.rs`), and a 20 MB line must be split on bytes. Each line
//! is parsed as JSON, sorted, and answered; everything that can wait for the upstream runs in its own task so that
//! `initialize`, `ping` and `tools/list` are never queued behind a slow call. One writer task owns stdout. A tool
//! call's way through is `call.rs`; the bridge's own tool, `obsidian_status`, is `status.rs`.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::budget::{self, Budget};
use super::catalog::{self, Catalog, CatalogSource};
use super::config::{BridgeConfig, UpstreamTarget};
use super::diagnostics::{Diagnostics, Record};
use super::jsonrpc::{self, Line, Message};
use super::offline::{OfflineBackend, RpcFailure};
use super::outbox::Outbox;
use super::profile::{self, ToolProfile};
use super::protocol;
use super::upstream::{CallError, RequestSlot, UpstreamEvent, UpstreamState};
use crate::lock::lock;
pub(crate) use routes::Route;
use status::status_tool;

mod call;
mod discovery;
mod era;
mod index_search;
mod listen;
mod meaning;
mod resources;
mod routes;
mod status;

/// The name of the bridge's own tool.
pub(crate) const STATUS_TOOL: &str = "obsidian_status";
/// The plugin's tool that runs several read tools in one call.
const BATCH_TOOL: &str = "batch";

/// A request that has been forwarded and may be cancelled.
struct InFlight {
    slot: RequestSlot,
    /// The route it went to, whose upstream a cancellation is told.
    route: usize,
    /// Set just after the task starts; until then, removing the entry alone keeps the answer from being sent.
    task: Option<tokio::task::AbortHandle>,
}

/// The downstream server.
pub(crate) struct Server {
    config: BridgeConfig,
    /// The upstreams, one per vault (the first the default), or the one `--url` or command (`routes.rs`).
    routes: Vec<Route>,
    out: Arc<Outbox>,
    initialized: AtomicBool,
    in_flight: Mutex<HashMap<String, InFlight>>,
    /// Every task that answers a request, so that a client that closes its stdin still gets what it asked before.
    requests: tokio_util::task::TaskTracker,
    diagnostics: Arc<Diagnostics>,
    traces: AtomicU64,
    /// The client's name from `initialize`, which decides its output budget.
    client: Mutex<Option<String>>,
    /// The 2026 client's open `subscriptions/listen` streams.
    listens: Mutex<listen::Listens>,
    /// The tools this session added to its list through `obsidian_tools` (`discovery.rs`).
    enabled: Mutex<BTreeSet<String>>,
}

impl Server {
    /// A server answering through `out`.
    pub(crate) fn new(
        config: BridgeConfig,
        routes: Vec<Route>,
        out: Arc<Outbox>,
        diagnostics: Arc<Diagnostics>,
    ) -> Arc<Self> {
        assert!(!routes.is_empty(), "a bridge has an upstream");
        Arc::new(Self {
            config,
            routes,
            out,
            initialized: AtomicBool::new(false),
            in_flight: Mutex::new(HashMap::new()),
            requests: tokio_util::task::TaskTracker::new(),
            diagnostics,
            traces: AtomicU64::new(1),
            client: Mutex::new(None),
            listens: Mutex::default(),
            enabled: Mutex::default(),
        })
    }

    /// The default route: the first vault, or the one upstream.
    fn default_route(&self) -> &Route {
        &self.routes[0]
    }

    /// Whether requests name their vault: the bridge serves several.
    fn several(&self) -> bool {
        self.routes.len() > 1
    }

    /// What the user should call a route's upstream in messages: "Obsidian", and which vault when there are several.
    fn display_name(&self, route: &Route) -> String {
        let who = route.target.display_name();
        if self.several() {
            format!("{who} (vault {})", route.name)
        } else {
            who
        }
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
        let era = match era::of_request(&id, params.as_ref()) {
            Ok(era) => era,
            Err(refusal) => return self.send(refusal),
        };
        match method.as_str() {
            "initialize" => {
                self.initialized.store(true, Ordering::Relaxed);
                *lock(&self.client) = budget::client_name(params.as_ref());
                self.send(jsonrpc::result(id, self.initialize_result(params.as_ref())));
            }
            "server/discover" => {
                let result = era::discover_result(
                    self.capabilities(),
                    self.server_info(),
                    &self.instructions(),
                );
                self.send(jsonrpc::result(id, result));
            }
            "ping" => self.send(jsonrpc::result(id, era::shaped(era, json!({}), None))),
            "tools/list" => {
                let server = Arc::clone(self);
                self.requests.spawn(async move {
                    let budget = server.budget(params.as_ref());
                    let tools = server.list_tools(&budget).await;
                    // The list can change when the upstream comes back with another catalog: never cached.
                    let result = era::shaped(era, json!({ "tools": tools }), Some(0));
                    server.send(jsonrpc::result(id, result));
                });
            }
            "tools/call" => self.start_call(id, params, era),
            method if resources::is_passed_through(method) => {
                self.start_passthrough(id, method.to_string(), params, era);
            }
            "subscriptions/listen" if era == era::Era::Modern => {
                let opened = lock(&self.listens).open(&id, params.as_ref());
                self.send(opened.unwrap_or_else(|refusal| refusal));
                self.push_listened();
            }
            "resources/subscribe" | "resources/unsubscribe" => {
                let answer = self.subscribe(id, &method, params.as_ref(), era);
                self.send(answer);
            }
            "logging/setLevel" => {
                self.send(jsonrpc::result(id, json!({})));
                if let Some(params) = params {
                    for route in &self.routes {
                        let upstream = Arc::clone(&route.upstream);
                        let params = params.clone();
                        tokio::spawn(async move { upstream.set_log_level(params).await });
                    }
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
                if lock(&self.listens).close(request) {
                    self.push_listened();
                    return;
                }
                let Some(in_flight) = lock(&self.in_flight).remove(&jsonrpc::id_key(request))
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
                let target = *lock(&in_flight.slot);
                if let Some((generation, upstream_id)) = target {
                    let upstream = Arc::clone(&self.routes[in_flight.route].upstream);
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
        let version = protocol::WITH_INITIALIZE
            .into_iter()
            .find(|version| Some(*version) == requested)
            .unwrap_or(protocol::LATEST_WITH_INITIALIZE);
        json!({
            "protocolVersion": version,
            "capabilities": self.capabilities(),
            "serverInfo": self.server_info(),
            "instructions": self.instructions(),
        })
    }

    /// What the bridge offers its client, in either era.
    fn capabilities(&self) -> Value {
        json!({ "tools": { "listChanged": true }, "resources": {}, "prompts": {}, "completions": {}, "logging": {} })
    }

    /// Who the bridge is.
    fn server_info(&self) -> Value {
        json!({ "name": "obsmcp", "title": "Obsidian (obsmcp)", "version": env!("CARGO_PKG_VERSION") })
    }

    /// How to use the tools, for the client to pass to its model.
    fn instructions(&self) -> String {
        if !self.default_route().is_vault() {
            return "A bridge to an MCP server; `obsidian_status` tells the connection state."
                .into();
        }
        let names: Vec<&str> = self
            .routes
            .iter()
            .map(|route| route.name.as_str())
            .collect();
        profile::instructions(self.config.tools, &names)
    }

    /// The output budget for a request: by the client named in its `_meta` (2026 era) or in `initialize`, unless
    /// `--max-chars` set one for every client.
    fn budget(&self, params: Option<&Value>) -> Budget {
        let name = budget::client_name(params).or_else(|| lock(&self.client).clone());
        let budget = Budget::for_client(name.as_deref());
        match self.config.max_chars {
            Some(max_chars) => budget.overridden(max_chars),
            None => budget,
        }
    }

    /// The tools offered: the catalog through the policy, plus the status tool.
    async fn list_tools(&self, budget: &Budget) -> Vec<Value> {
        let route = self.default_route();
        let known = lock(&route.catalog).source != CatalogSource::Unknown;
        if !known {
            // No catalog at all (first start of a non-vault upstream): give the upstream a short grace.
            let deadline = tokio::time::Instant::now() + self.config.startup_grace;
            let mut states = route.upstream.watch();
            while lock(&route.catalog).source == CatalogSource::Unknown {
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
        // Every vault runs the same plugin: the default vault's catalog stands for all.
        let catalog = lock(&route.catalog);
        let core = self.config.tools == ToolProfile::Core;
        let mut tools: Vec<Value> = {
            let enabled = lock(&self.enabled);
            self.config
                .policy
                .filter(&catalog.tools)
                .filter(|tool| {
                    let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
                    profile::lists(self.config.tools, &enabled, name)
                })
                .map(|tool| {
                    if core {
                        profile::slim(tool)
                    } else {
                        tool.clone()
                    }
                })
                .collect()
        };
        if self.fits_budgets() {
            tools.iter_mut().for_each(|tool| budget.annotate(tool));
        }
        if self.config.offline && route.is_vault() {
            tools.iter_mut().for_each(meaning::with_meaning_modes);
        }
        tools.push(status_tool());
        if core {
            tools.push(profile::discovery_tool(self.config.policy.read_only));
        }
        if self.several() {
            let names: Vec<String> = self.routes.iter().map(|route| route.name.clone()).collect();
            tools
                .iter_mut()
                .for_each(|tool| routes::with_vault_argument(tool, &names));
        }
        tools
    }

    /// Applies an upstream event: a new live catalog, or a notification to pass down.
    pub(crate) fn upstream_event(&self, route: usize, event: UpstreamEvent) {
        let route = &self.routes[route];
        match event {
            UpstreamEvent::Forward(notification) => self.pass_notification(route, notification),
            UpstreamEvent::Catalog(tools) => {
                let changed = {
                    let mut catalog = lock(&route.catalog);
                    let changed = !catalog::same_tools(&catalog.tools, &tools);
                    *catalog = Catalog {
                        tools,
                        source: CatalogSource::Live,
                    };
                    if changed
                        && !route.is_vault()
                        && let Err(error) = catalog::save_cache(&route.target, &catalog.tools)
                    {
                        tracing::warn!("could not cache the tool catalog: {error}");
                    }
                    changed
                };
                if changed {
                    self.tools_changed();
                }
            }
        }
    }

    /// Tells the client its tool list changed: `notifications/tools/list_changed` once it is initialized, and on every
    /// open `subscriptions/listen` stream that asked for tools.
    fn tools_changed(&self) {
        if self.initialized.load(Ordering::Relaxed) {
            self.send(jsonrpc::notification(
                "notifications/tools/list_changed",
                None,
            ));
        }
        let tagged = lock(&self.listens).list_changed(listen::List::Tools);
        tagged.into_iter().for_each(|message| self.send(message));
    }

    /// How many requests are still to be answered.
    pub(crate) fn requests_under_way(&self) -> usize {
        self.requests.len()
    }

    /// Done once every request received so far is answered (those received later are waited for too).
    pub(crate) async fn answered_all(&self) {
        self.requests.close();
        self.requests.wait().await;
    }

    /// Cancels nothing and answers nothing more: used at shutdown.
    pub(crate) fn abort_all(&self) {
        for (_, in_flight) in lock(&self.in_flight).drain() {
            if let Some(task) = in_flight.task {
                task.abort();
            }
        }
    }
}

/// A tool result that reports a failure to the agent in words. Built as plain JSON: rmcp's `CallToolResult` adds
/// fields of newer protocol versions that older clients were never told about.
fn tool_error(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": true })
}

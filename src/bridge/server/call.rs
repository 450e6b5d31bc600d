//! A `tools/call` on its way through the bridge: registered in flight (so a cancellation finds it), checked against
//! the policy, fitted to the client's budget, answered from disk when the upstream is down and the tool can be, else
//! forwarded; an answer that does not fit the client is asked again smaller; a failure is explained in words the agent
//! can act on.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use futures::FutureExt;
use serde_json::{Value, json};

use super::era::{self, Era};
use super::*;

impl Server {
    pub(super) fn start_call(self: &Arc<Self>, id: Value, mut params: Option<Value>, era: Era) {
        let route = match self.route_of_call(&mut params) {
            Ok(route) => route,
            Err(problem) => {
                let refusal = era::shaped(era, tool_error(&problem), None);
                return self.send(jsonrpc::result(id, refusal));
            }
        };
        self.run_in_flight(id, route.unwrap_or(0), move |server, id, slot| async move {
            let mut answer = server.call(id, params, &slot, route).await;
            if let Some(result) = answer.get_mut("result") {
                *result = era::shaped(era, result.take(), None);
            }
            answer
        });
    }

    /// Runs `work` for the request `id` in its own task, registered in flight first so that a cancellation finds it;
    /// its answer is sent unless the request was cancelled meanwhile. A duplicate id of a request still in flight is
    /// refused, and a panic still answers the request.
    pub(super) fn run_in_flight<F, Work>(self: &Arc<Self>, id: Value, route: usize, work: F)
    where
        F: FnOnce(Arc<Self>, Value, RequestSlot) -> Work + Send + 'static,
        Work: std::future::Future<Output = Value> + Send + 'static,
    {
        let key = jsonrpc::id_key(&id);
        let slot: RequestSlot = Arc::default();
        let server = Arc::clone(self);
        let task_slot = Arc::clone(&slot);
        let task_key = key.clone();
        // Registered before the task starts: a fast answer (the status tool) must find its entry.
        {
            let mut in_flight = lock(&self.in_flight);
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
            in_flight.insert(
                key.clone(),
                InFlight {
                    slot,
                    route,
                    task: None,
                },
            );
        }
        let task = self.requests.spawn(async move {
            // A bug that panics inside one request must still answer it, or the client waits forever.
            let answer = AssertUnwindSafe(work(Arc::clone(&server), id.clone(), task_slot))
                .catch_unwind()
                .await
                .unwrap_or_else(|_| {
                    tracing::error!("a request panicked; answered with an internal error");
                    jsonrpc::error(
                        id,
                        jsonrpc::INTERNAL_ERROR,
                        "obsmcp bridge failed while handling this request (a bug: see the diagnostics log)",
                    )
                });
            // Only answer if the request was not cancelled meanwhile (a cancelled request gets no response).
            if lock(&server.in_flight).remove(&task_key).is_some() {
                server.send(answer);
            }
        });
        if let Some(entry) = lock(&self.in_flight).get_mut(&key) {
            entry.task = Some(task.abort_handle());
        }
    }

    /// The route a call names with its `vault` argument (taken out of the arguments), `None` when it names none; with
    /// one upstream, always `None` and the arguments as they are.
    fn route_of_call(&self, params: &mut Option<Value>) -> Result<Option<usize>, String> {
        if !self.several() {
            return Ok(None);
        }
        let named = routes::take_vault_argument(params)?;
        match named {
            Some(name) => routes::by_name(&self.routes, Some(&name)).map(Some),
            None => Ok(None),
        }
    }

    /// Answers a `tools/call` on `route` (`None`: the default; for `obsidian_status` with several vaults, all).
    pub(super) async fn call(
        &self,
        id: Value,
        params: Option<Value>,
        slot: &RequestSlot,
        route: Option<usize>,
    ) -> Value {
        let named = route;
        let route = &self.routes[route.unwrap_or(0)];
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
            let budget = self.budget(params.as_ref());
            return jsonrpc::result(id, self.status(&budget, named, slot).await);
        }
        if name == profile::DISCOVERY_TOOL && self.fits_budgets() {
            record("ok", None);
            return self.discovery(id, params, slot, named).await;
        }
        if let Some(refusal) = self.refusal(route, &name, params.as_ref()) {
            record("refused", None);
            return jsonrpc::result(id, tool_error(&refusal));
        }
        let budget = self.budget(params.as_ref());
        let tool = lock(&route.catalog).find(&name).cloned();
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
            let (answer, outcome, bytes_out) =
                self.dispatch(route, &id, &name, sent, started, slot).await;
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

    /// Why the policy refuses a call of `name`, if it does.
    fn refusal(&self, route: &Route, name: &str, params: Option<&Value>) -> Option<String> {
        let catalog = lock(&route.catalog);
        match self.config.policy.check(name, catalog.find(name)) {
            Err(refusal) => Some(refusal.explain(name)),
            // A batch runs other tools: each of them meets the same policy as a direct call.
            Ok(()) if name == BATCH_TOOL => self
                .config
                .policy
                .refused_batch_call(params, |inner| catalog.find(inner)),
            Ok(()) => None,
        }
    }

    /// Whether the bridge fits results to the client: for our own plugin (and its offline twin), whose tools' `max_chars`
    /// and `limit` mean what the budget assumes.
    pub(super) fn fits_budgets(&self) -> bool {
        // Several routes are all vaults.
        self.default_route().is_vault()
    }

    /// Runs one call: from disk when the upstream is down and the tool can be answered there, else upstream (and from
    /// disk after all when the upstream turns out unreachable). The answer, the outcome word and its size for the log.
    pub(super) async fn dispatch(
        &self,
        route: &Route,
        id: &Value,
        name: &str,
        params: Option<Value>,
        started: Instant,
        slot: &RequestSlot,
    ) -> (Value, &'static str, Option<usize>) {
        let id = id.clone();
        if let Some(answer) = self.try_meaning(route, name, params.as_ref()).await {
            return (jsonrpc::result(id, answer), "index", None);
        }
        if let Some(answer) = self.try_offline(route, name, params.as_ref()).await {
            return (jsonrpc::result(id, answer), "offline", None);
        }
        if let Some(answer) = self.try_index(route, name, params.as_ref()).await {
            return (jsonrpc::result(id, answer), "index", None);
        }
        let connect_wait = match route.target {
            // A child process needs time to start; its calls queue until the handshake is done.
            UpstreamTarget::Command { .. } => self
                .config
                .connect_wait
                .max(std::time::Duration::from_secs(15)),
            // What the disk fallback already waited counts: a call waits for the upstream at most once.
            _ => self.config.connect_wait.saturating_sub(started.elapsed()),
        };
        let arguments = self
            .offline_for(route, name)
            .and(params.as_ref())
            .and_then(|params| params.get("arguments"))
            .cloned();
        match route
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
                self.answered_by_obsidian(route, name, started.elapsed());
                let outcome = if answer.pointer("/result/isError") == Some(&Value::Bool(true)) {
                    "tool_error"
                } else {
                    "ok"
                };
                let size = estimate_size(&answer);
                (with_client_id(answer, id), outcome, Some(size))
            }
            // The session looked up but was not: the disk can still answer a read.
            Err(CallError::Unreachable(_)) if self.offline_for(route, name).is_some() => {
                let backend = self.offline_for(route, name).expect("checked just above");
                let answer = backend
                    .call(name, arguments.as_ref().and_then(Value::as_object))
                    .await;
                (jsonrpc::result(id, answer), "offline", None)
            }
            Err(error) => {
                if matches!(error, CallError::Lost(_) | CallError::Timeout(_)) {
                    // The call may have reached Obsidian and written.
                    self.passed_to_obsidian(route, name);
                }
                let (outcome, text) = self.explain(route, &error);
                (jsonrpc::result(id, tool_error(&text)), outcome, None)
            }
        }
    }

    /// Offline mode's seam: the backend, when this call may be answered from disk (`--vault` without `--no-offline`,
    /// a tool the backend serves).
    pub(super) fn offline_for<'a>(
        &self,
        route: &'a Route,
        tool: &str,
    ) -> Option<&'a Arc<dyn OfflineBackend>> {
        let backend = route.offline.as_ref()?;
        (self.config.offline && route.is_vault() && backend.serves(tool)).then_some(backend)
    }

    /// Answers from disk when no session comes up: at once when the last attempt failed, after the connect wait when
    /// an attempt is still under way.
    pub(super) async fn try_offline(
        &self,
        route: &Route,
        tool: &str,
        params: Option<&Value>,
    ) -> Option<Value> {
        let backend = self.offline_for(route, tool)?;
        if route
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
    pub(super) fn explain(&self, route: &Route, error: &CallError) -> (&'static str, String) {
        let who = self.display_name(route);
        match error {
            CallError::Unreachable(reason) => {
                let hint = match route.target {
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
}
/// An upstream answer re-addressed to the client's request id, fields in the usual order.
pub(super) fn with_client_id(answer: Value, id: Value) -> Value {
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
pub(super) fn estimate_size(value: &Value) -> usize {
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

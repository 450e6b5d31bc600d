//! The vault beyond tools on its way through the bridge: `resources/*`, `prompts/*` and `completion/complete` are
//! forwarded to the upstream as they are, answered from disk when the upstream is a vault whose Obsidian is closed
//! (resources and completion; `crate::offline::plugin::resources`), and explained in words when neither can answer.
//!
//! Policy: for a vault, resources are reads of notes, so they are served exactly when the policy offers `read_note`
//! (`--deny-tool read_note`, or an `--allow-tool` list without it, turns them off). Other upstreams' resources are
//! theirs: the tool policy does not name them.

use std::sync::Arc;

use serde_json::{Value, json};

use super::call::with_client_id;
use super::era::{self, Era};
use super::*;
use crate::bridge::upstream::CallError;

/// The tool whose policy decides whether a vault's resources are served.
const READ_TOOL: &str = "read_note";

/// Methods the bridge passes through to the upstream (and, for a vault, answers from disk where it can).
pub(super) fn is_passed_through(method: &str) -> bool {
    matches!(
        method,
        "resources/list"
            | "resources/templates/list"
            | "resources/read"
            | "prompts/list"
            | "prompts/get"
            | "completion/complete"
    )
}

impl Server {
    /// Starts answering a passed-through request in its own task (registered in flight, so it can be cancelled).
    pub(super) fn start_passthrough(
        self: &Arc<Self>,
        id: Value,
        method: String,
        params: Option<Value>,
        era: Era,
    ) {
        let (route, params) = match self.route_request(&method, params) {
            Ok(routed) => routed,
            Err(refusal) => return self.send(refusal.with_id(id)),
        };
        self.run_in_flight(id, route, move |server, id, slot| async move {
            let mut answer = server
                .passthrough(id.clone(), &method, params, &slot, &server.routes[route])
                .await;
            if server.several() {
                routes::qualify_answer(&method, &mut answer, route, &server.routes);
            }
            // Lists can change with the vault at any time: never cached.
            let ttl = method.ends_with("/list").then_some(0);
            shaped_answer(answer, era, ttl)
        });
    }

    /// The route a request of several vaults goes to and its params as that vault knows them; with one, the first
    /// route and the params as they are.
    fn route_request(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<(usize, Option<Value>), Refusal> {
        if !self.several() {
            return Ok((0, params));
        }
        routes::route_request(&self.routes, method, params).map_err(Refusal)
    }

    async fn passthrough(
        &self,
        id: Value,
        method: &str,
        params: Option<Value>,
        slot: &RequestSlot,
        route: &Route,
    ) -> Value {
        if let Some(refusal) = self.refused_by_policy(method) {
            return jsonrpc::error(id, jsonrpc::INVALID_REQUEST, &refusal);
        }
        let offline = self.offline_for_method(route, method);
        if let Some(backend) = offline
            && !route
                .upstream
                .ready_unless_down(self.config.connect_wait)
                .await
        {
            return from_disk(
                id,
                backend
                    .request(method, params.unwrap_or_else(|| json!({})))
                    .await,
            );
        }
        let kept = offline.and(params.clone());
        match route
            .upstream
            .forward(
                method,
                params,
                self.config.connect_wait,
                self.config.call_timeout,
                slot,
            )
            .await
        {
            Ok(answer) => with_client_id(answer, id),
            Err(CallError::Unreachable(_)) if offline.is_some() => {
                let backend = offline.expect("checked just above");
                from_disk(
                    id,
                    backend
                        .request(method, kept.unwrap_or_else(|| json!({})))
                        .await,
                )
            }
            Err(error) => {
                let (_, text) = self.explain(route, &error);
                jsonrpc::error(id, jsonrpc::INTERNAL_ERROR, &text)
            }
        }
    }

    /// Why the policy keeps a vault's resources from this client, if it does.
    fn refused_by_policy(&self, method: &str) -> Option<String> {
        let about_notes = method.starts_with("resources/") || method == "completion/complete";
        if !self.default_route().is_vault() || !about_notes {
            return None;
        }
        let catalog = lock(&self.default_route().catalog);
        let refusal = self
            .config
            .policy
            .check(READ_TOOL, catalog.find(READ_TOOL))
            .err()?;
        Some(format!(
            "{method} is refused: resources read notes as {READ_TOOL} does, and {}",
            refusal
                .explain(READ_TOOL)
                .replacen("The tool", "the tool", 1)
        ))
    }

    /// The disk backend, when this method may be answered from disk (a vault, offline mode on).
    fn offline_for_method<'a>(
        &self,
        route: &'a Route,
        method: &str,
    ) -> Option<&'a Arc<dyn OfflineBackend>> {
        let backend = route.offline.as_ref()?;
        let served = matches!(
            method,
            "resources/list"
                | "resources/templates/list"
                | "resources/read"
                | "completion/complete"
                | "prompts/list"
                | "prompts/get"
        );
        (self.config.offline && route.is_vault() && served).then_some(backend)
    }
}

/// Why a request names no vault this bridge has, as the error to answer it with.
struct Refusal(String);

impl Refusal {
    fn with_id(self, id: Value) -> Value {
        jsonrpc::error(
            id,
            jsonrpc::INVALID_PARAMS,
            &format!("Invalid params: {}", self.0),
        )
    }
}

/// The backend's answer as the client's message; a method it does not serve says Obsidian must be open.
fn from_disk(id: Value, answer: Option<Result<Value, RpcFailure>>) -> Value {
    match answer {
        Some(Ok(result)) => jsonrpc::result(id, result),
        Some(Err(RpcFailure {
            code,
            message,
            data,
        })) => match data {
            Some(data) => jsonrpc::error_with_data(id, code, &message, data),
            None => jsonrpc::error(id, code, &message),
        },
        None => jsonrpc::error(
            id,
            jsonrpc::INTERNAL_ERROR,
            "Obsidian is closed, and this request needs it open: open the vault in Obsidian and try again",
        ),
    }
}

/// An answer with its result shaped for the client's era.
fn shaped_answer(mut answer: Value, era: Era, ttl: Option<u64>) -> Value {
    if let Some(result) = answer.get_mut("result") {
        *result = era::shaped(era, result.take(), ttl);
    }
    answer
}

impl Server {
    /// `resources/subscribe` or `unsubscribe` of a 2025 client: kept by the bridge (which passes the union of every
    /// subscription on to the upstream, whichever era that speaks) and answered at once. While the upstream is down
    /// nothing could tell the bridge that a resource changed, so a subscription is refused with the reason.
    pub(super) fn subscribe(
        &self,
        id: Value,
        method: &str,
        params: Option<&Value>,
        era: Era,
    ) -> Value {
        if era == Era::Modern {
            return jsonrpc::error(
                id,
                jsonrpc::METHOD_NOT_FOUND,
                &format!(
                    "Method not found: {method} is of the 2025 revisions; in 2026-07-28 name the URIs in subscriptions/listen (resourceSubscriptions)"
                ),
            );
        }
        if let Some(refusal) = self.refused_by_policy(method) {
            return jsonrpc::error(id, jsonrpc::INVALID_REQUEST, &refusal);
        }
        let (route, params) = match self.route_request(method, params.cloned()) {
            Ok((route, params)) => (&self.routes[route], params),
            Err(refusal) => return refusal.with_id(id),
        };
        let Some(uri) = params
            .as_ref()
            .and_then(|params| params.get("uri"))
            .and_then(Value::as_str)
        else {
            return jsonrpc::error(
                id,
                jsonrpc::INVALID_PARAMS,
                &format!("Invalid params: {method} needs the resource's `uri`"),
            );
        };
        let subscribing = method == "resources/subscribe";
        if subscribing && route.upstream.state() != UpstreamState::Ready {
            let who = self.display_name(route);
            let reason = match route.target {
                UpstreamTarget::Vault { .. } => {
                    "Obsidian is closed (or its obsmcp plugin is off)".to_string()
                }
                _ => format!("{who} is not reachable"),
            };
            return jsonrpc::error(
                id,
                jsonrpc::INTERNAL_ERROR,
                &format!(
                    "{reason}, so nothing can say when {uri} changes: subscribe again once it is back (obsidian_status shows the connection)"
                ),
            );
        }
        route.upstream.subscribe(uri, subscribing);
        jsonrpc::result(id, json!({}))
    }

    /// Tells each upstream the URIs the listen streams name of it.
    pub(super) fn push_listened(&self) {
        let uris = lock(&self.listens).uris();
        for (index, route) in self.routes.iter().enumerate() {
            let ours = uris
                .iter()
                .filter_map(|uri| match routes::unqualified(uri) {
                    (Some(vault), inner) if self.several() => {
                        (routes::by_name(&self.routes, Some(&vault)) == Ok(index)).then_some(inner)
                    }
                    (_, inner) => (index == 0).then_some(inner),
                })
                .collect();
            route.upstream.set_listened(ours);
        }
    }

    /// An upstream notification on its way to the client: list changes to a 2025 client that initialized and to the
    /// listen streams that asked, `resources/updated` to whoever subscribed to that URI, anything else as it came.
    pub(super) fn pass_notification(&self, route: &Route, notification: Value) {
        let method = notification["method"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let initialized = self.initialized.load(std::sync::atomic::Ordering::Relaxed);
        if let Some(list) = listen::List::of_notification(&method) {
            if initialized {
                self.send(jsonrpc::notification(&method, None));
            }
            let tagged = lock(&self.listens).list_changed(list);
            tagged.into_iter().for_each(|message| self.send(message));
            return;
        }
        if method == "notifications/resources/updated" {
            let Some(uri) = notification.pointer("/params/uri").and_then(Value::as_str) else {
                return;
            };
            let subscribed = route.upstream.is_subscribed(uri);
            let uri = if self.several() {
                routes::qualified(uri, &route.name)
            } else {
                uri.to_owned()
            };
            if initialized && subscribed {
                self.send(jsonrpc::notification(&method, Some(json!({ "uri": uri }))));
            }
            let tagged = lock(&self.listens).resource_updated(&uri);
            tagged.into_iter().for_each(|message| self.send(message));
            return;
        }
        self.send(notification);
    }
}

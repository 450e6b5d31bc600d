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
        self.run_in_flight(id, move |server, id, slot| async move {
            let answer = server.passthrough(id.clone(), &method, params, &slot).await;
            // Lists can change with the vault at any time: never cached.
            let ttl = method.ends_with("/list").then_some(0);
            shaped_answer(answer, era, ttl)
        });
    }

    async fn passthrough(
        &self,
        id: Value,
        method: &str,
        params: Option<Value>,
        slot: &RequestSlot,
    ) -> Value {
        if let Some(refusal) = self.refused_by_policy(method) {
            return jsonrpc::error(id, jsonrpc::INVALID_REQUEST, &refusal);
        }
        let offline = self.offline_for_method(method);
        if let Some(backend) = offline
            && !self
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
        match self
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
                let (_, text) = self.explain(&error);
                jsonrpc::error(id, jsonrpc::INTERNAL_ERROR, &text)
            }
        }
    }

    /// Why the policy keeps a vault's resources from this client, if it does.
    fn refused_by_policy(&self, method: &str) -> Option<String> {
        let vault = matches!(self.config.upstream, UpstreamTarget::Vault { .. });
        let about_notes = method.starts_with("resources/") || method == "completion/complete";
        if !vault || !about_notes {
            return None;
        }
        let catalog = lock(&self.catalog);
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
    fn offline_for_method(&self, method: &str) -> Option<&Arc<dyn OfflineBackend>> {
        let backend = self.offline.as_ref()?;
        let vault = matches!(self.config.upstream, UpstreamTarget::Vault { .. });
        let served = matches!(
            method,
            "resources/list"
                | "resources/templates/list"
                | "resources/read"
                | "completion/complete"
                | "prompts/list"
                | "prompts/get"
        );
        (self.config.offline && vault && served).then_some(backend)
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
        let Some(uri) = params
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
        if subscribing && self.upstream.state() != UpstreamState::Ready {
            let who = self.config.upstream.display_name();
            let reason = match self.config.upstream {
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
        self.upstream.subscribe(uri, subscribing);
        jsonrpc::result(id, json!({}))
    }

    /// Tells the upstream the URIs the listen streams name.
    pub(super) fn push_listened(&self) {
        let uris = lock(&self.listens).uris();
        self.upstream.set_listened(uris);
    }

    /// An upstream notification on its way to the client: list changes to a 2025 client that initialized and to the
    /// listen streams that asked, `resources/updated` to whoever subscribed to that URI, anything else as it came.
    pub(super) fn pass_notification(&self, notification: Value) {
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
            if initialized && self.upstream.is_subscribed(uri) {
                self.send(jsonrpc::notification(&method, Some(json!({ "uri": uri }))));
            }
            let tagged = lock(&self.listens).resource_updated(uri);
            tagged.into_iter().for_each(|message| self.send(message));
            return;
        }
        self.send(notification);
    }
}

//! The vault beyond tools on its way through the bridge: `resources/*`, `prompts/*` and `completion/complete` are
//! forwarded to the upstream as they are, answered from disk when the upstream is a vault whose Obsidian is closed
//! (resources and completion; `crate::offline::resources`), and explained in words when neither can answer.
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
            | "resources/subscribe"
            | "resources/unsubscribe"
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

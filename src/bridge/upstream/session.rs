//! One established session and the table of requests waiting on it: sending on a given session, routing what the
//! server sends back (answers to their callers, progress to the calls that asked, its own requests answered,
//! `list_changed` to a catalog refresh), and failing every request of a session that ended.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::link::Link;
pub(super) use super::wire::with_client_context;
use super::wire::{LinkEvent, SendError};
use super::{HTTP_HANDSHAKE_TIMEOUT, Upstream, UpstreamEvent};
use crate::bridge::jsonrpc::{self, Message};
use crate::lock::lock;

impl Upstream {
    /// Sends a request on one given session and awaits its answer (handshake, pings, catalog).
    pub(super) async fn request_on(
        &self,
        session: &Session,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Value, RequestError> {
        let params = if session.is_stateless() {
            Some(with_client_context(params))
        } else {
            params
        };
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (reply, answer) = oneshot::channel();
        lock(&self.pending).insert(
            id,
            Pending {
                generation: session.generation,
                reply,
            },
        );
        let no_answer = || {
            RequestError::NoAnswer(format!(
                "no answer to `{method}` within {:.1} s",
                timeout.as_secs_f64()
            ))
        };
        let answer_by = tokio::time::Instant::now() + timeout;
        // Bounded like a call: a frozen server accepts the POST and never answers it, which must count as a missed
        // ping rather than stall the watchdog that is meant to notice exactly that.
        let sent = tokio::time::timeout_at(
            answer_by,
            session.link.send(&jsonrpc::request(id, method, params)),
        )
        .await;
        let sent = match sent {
            Ok(sent) => sent,
            Err(_) => {
                lock(&self.pending).remove(&id);
                return Err(no_answer());
            }
        };
        if let Err(error) = sent {
            lock(&self.pending).remove(&id);
            return Err(match error {
                SendError::Rejected(reason) => RequestError::Rejected(reason),
                SendError::NotDelivered(reason)
                | SendError::SessionLost(reason)
                | SendError::Unknown(reason) => RequestError::Failed(reason),
            });
        }
        match tokio::time::timeout_at(answer_by, answer).await {
            Ok(Ok(Ok(answer))) => Ok(answer),
            Ok(Ok(Err(reason))) => Err(RequestError::Failed(reason)),
            Ok(Err(_)) => Err(RequestError::Failed("the session ended".into())),
            Err(_) => {
                lock(&self.pending).remove(&id);
                Err(no_answer())
            }
        }
    }

    pub(super) async fn notify_on(
        &self,
        session: &Session,
        method: &str,
        params: Option<Value>,
    ) -> Result<(), String> {
        session
            .link
            .send(&jsonrpc::notification(method, params))
            .await
            .map_err(|error| match error {
                SendError::NotDelivered(reason)
                | SendError::SessionLost(reason)
                | SendError::Rejected(reason)
                | SendError::Unknown(reason) => reason,
            })
    }

    /// Routes a link's events until the session ends.
    pub(super) async fn pump(
        self: Arc<Self>,
        session: Session,
        mut receiver: mpsc::Receiver<LinkEvent>,
    ) {
        loop {
            let event = tokio::select! {
                () = session.ended.cancelled() => return,
                event = receiver.recv() => event,
            };
            match event {
                None => {
                    session.end("the connection closed");
                    return;
                }
                Some(LinkEvent::Closed(reason)) => {
                    session.end(&reason);
                    return;
                }
                Some(LinkEvent::Suspect) => session.suspect.notify_one(),
                Some(LinkEvent::Orphaned(id)) => {
                    if let Some(pending) = lock(&self.pending).remove(&id) {
                        let _ = pending.reply.send(Err(
                            "the server ended its answer stream without answering".into(),
                        ));
                    }
                    session.suspect.notify_one();
                }
                Some(LinkEvent::Message(message)) => self.route(&session, message).await,
            }
        }
    }

    pub(super) async fn route(self: &Arc<Self>, session: &Session, message: Value) {
        match jsonrpc::classify(message) {
            Message::Response { id, mut body } => {
                let Some(id) = id.as_u64() else { return };
                let pending = lock(&self.pending).remove(&id);
                if let Some(pending) = pending {
                    body["id"] = id.into();
                    // The caller may have timed out or been cancelled meanwhile; the answer is then unwanted.
                    let _ = pending.reply.send(Ok(body));
                }
            }
            Message::Request { id, method, .. } => {
                let answer = if method == "ping" {
                    jsonrpc::result(id, json!({}))
                } else {
                    jsonrpc::error(
                        id,
                        jsonrpc::METHOD_NOT_FOUND,
                        &format!("the obsmcp bridge does not offer `{method}`"),
                    )
                };
                let link = Arc::clone(&session.link);
                tokio::spawn(async move {
                    // The server asked; if it cannot hear the answer, the link's own failure ends the session.
                    if let Err(reason) = link.send(&answer).await {
                        tracing::debug!("could not answer the server's request: {reason:?}");
                    }
                });
            }
            Message::Notification { method, params } => match method.as_str() {
                "notifications/tools/list_changed" => self.refresh_catalog(session),
                "notifications/progress" | "notifications/message" => {
                    if let Some(token) = params
                        .as_ref()
                        .and_then(|params| params.get("progressToken"))
                    {
                        let watch = lock(&self.progress).get(&token.to_string()).cloned();
                        if let Some(watch) = watch {
                            watch.notify_one();
                        }
                    }
                    // A closed receiver means the bridge is shutting down.
                    let _ = self
                        .events
                        .send(UpstreamEvent::Forward(jsonrpc::notification(
                            &method, params,
                        )))
                        .await;
                }
                "notifications/resources/list_changed"
                | "notifications/resources/updated"
                | "notifications/prompts/list_changed" => {
                    // A 2026 server tags what it sends on the bridge's listen stream; the bridge tags again for its own.
                    let params = params.map(without_protocol_meta);
                    // A closed receiver means the bridge is shutting down.
                    let _ = self
                        .events
                        .send(UpstreamEvent::Forward(jsonrpc::notification(
                            &method, params,
                        )))
                        .await;
                }
                _ => tracing::debug!("ignored upstream notification `{method}`"),
            },
            Message::Invalid { reason, .. } => {
                tracing::warn!("ignored an invalid upstream message: {reason}")
            }
        }
    }

    /// Fetches the tool list again after a `list_changed`. One fetch runs at a time: notifications that come during it
    /// are served by one more fetch after it, so a flood of them costs two fetches, not one each.
    pub(super) fn refresh_catalog(self: &Arc<Self>, session: &Session) {
        let before = self
            .catalog_refresh
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |state| {
                Some(match state {
                    REFRESH_IDLE => REFRESH_RUNNING,
                    _ => REFRESH_AGAIN,
                })
            })
            .unwrap_or(REFRESH_AGAIN);
        if before != REFRESH_IDLE {
            return;
        }
        let upstream = Arc::clone(self);
        let session = session.clone();
        tokio::spawn(async move {
            loop {
                match upstream.list_tools(&session, HTTP_HANDSHAKE_TIMEOUT).await {
                    // The receiver goes only at shutdown, when no catalog is wanted any more.
                    Ok(tools) => drop(upstream.events.send(UpstreamEvent::Catalog(tools)).await),
                    Err(reason) => tracing::warn!("could not refresh the tool list: {reason}"),
                }
                let finished = upstream.catalog_refresh.compare_exchange(
                    REFRESH_RUNNING,
                    REFRESH_IDLE,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                );
                if finished.is_ok() {
                    return;
                }
                upstream
                    .catalog_refresh
                    .store(REFRESH_RUNNING, Ordering::Release);
            }
        });
    }

    pub(super) fn fail_pending(&self, generation: u64, reason: &str) {
        let mut pending = lock(&self.pending);
        let lost: Vec<u64> = pending
            .iter()
            .filter(|(_, entry)| entry.generation == generation)
            .map(|(id, _)| *id)
            .collect();
        for id in lost {
            if let Some(entry) = pending.remove(&id) {
                let _ = entry.reply.send(Err(reason.to_string()));
            }
        }
    }
}
/// One established session.
#[derive(Clone)]
pub(super) struct Session {
    pub(super) generation: u64,
    pub(super) link: Arc<Link>,
    pub(super) ended: CancellationToken,
    pub(super) end_reason: Arc<Mutex<Option<String>>>,
    pub(super) suspect: Arc<Notify>,
    /// Set when discovery found a 2026-07-28 server: every request then carries the client context in `_meta`.
    pub(super) stateless: Arc<AtomicBool>,
}

impl Session {
    /// Whether the session speaks 2026-07-28 (chosen by discovery when it was opened).
    pub(super) fn is_stateless(&self) -> bool {
        self.stateless.load(Ordering::Relaxed)
    }

    pub(super) fn end(&self, reason: &str) {
        let mut slot = lock(&self.end_reason);
        if slot.is_none() {
            *slot = Some(reason.to_string());
        }
        self.ended.cancel();
    }

    pub(super) fn reason(&self) -> String {
        lock(&self.end_reason)
            .clone()
            .unwrap_or_else(|| "the session ended".into())
    }
}

/// Why a request made by the bridge itself (handshake, ping, catalog) failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(super) enum RequestError {
    /// The server refused the message (an HTTP error status): it is there, but does not take this.
    #[error("{0}")]
    Rejected(String),
    /// No answer within the timeout.
    #[error("{0}")]
    NoAnswer(String),
    /// The session failed underneath.
    #[error("{0}")]
    Failed(String),
}

pub(super) struct Pending {
    pub(super) generation: u64,
    pub(super) reply: oneshot::Sender<Result<Value, String>>,
}

pub(super) const REFRESH_IDLE: u8 = 0;
pub(super) const REFRESH_RUNNING: u8 = 1;
pub(super) const REFRESH_AGAIN: u8 = 2;

/// Takes the protocol's own keys (`io.modelcontextprotocol/…`) out of an object's `_meta`, and `_meta` itself when
/// nothing else is left in it.
pub(super) fn drop_protocol_meta(object: &mut serde_json::Map<String, Value>) {
    if let Some(Value::Object(meta)) = object.get_mut("_meta") {
        meta.retain(|key, _| !key.starts_with("io.modelcontextprotocol/"));
        if meta.is_empty() {
            object.remove("_meta");
        }
    }
}

/// An object without the protocol's own keys in its `_meta`: a request's params lose the downstream client's 2026-era
/// context (the upstream session is the bridge's own, which states its own context), a notification's the tag of the
/// bridge's listen stream. Everything else in `_meta` (a progress token) goes on.
pub(super) fn without_protocol_meta(mut params: Value) -> Value {
    if let Some(params) = params.as_object_mut() {
        drop_protocol_meta(params);
    }
    params
}

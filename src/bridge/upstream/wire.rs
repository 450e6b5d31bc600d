//! What every link speaks in, whatever its transport: the events a link reports ([`LinkEvent`]), what sending a
//! message can tell about its delivery ([`SendError`]), how a reqwest error is told without its URL, and the `_meta`
//! a 2026-07-28 request carries. A leaf: the transports (`http.rs`, `sse.rs`, `child.rs`), the link that dispatches
//! to them (`link.rs`) and the session above it all import it, and it imports none of them.

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::bridge::protocol;

/// An event from one live link.
#[derive(Debug)]
pub(crate) enum LinkEvent {
    /// A message from the server.
    Message(Value),
    /// The answer stream of this request ended without the answer.
    Orphaned(u64),
    /// Something suggests the server may be gone (its event stream ended): check now.
    Suspect,
    /// The link is dead.
    Closed(String),
}

/// Messages a link has read and not yet routed, at most. A link's reader waits while this many are queued, so a
/// server that floods the bridge is read only as fast as the bridge passes its messages on (back-pressure through
/// the pipe or socket) instead of piling up in memory.
pub(crate) const LINK_QUEUE: usize = 64;

/// Where a link sends its events.
pub(crate) type Events = mpsc::Sender<LinkEvent>;

/// How sending one message failed, by what it says about delivery: the variant decides whether the message may be
/// sent again, and the text says why for the person reading the answer or the log.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum SendError {
    /// The server never received it (connection refused, dead child): safe to send again on a new session.
    #[error("{0}")]
    NotDelivered(String),
    /// The server refused it for an unknown session, without running it: re-initialize and send again.
    #[error("{0}")]
    SessionLost(String),
    /// The server refused this message; the session is fine.
    #[error("{0}")]
    Rejected(String),
    /// The connection broke after sending: it may have run.
    #[error("{0}")]
    Unknown(String),
}

/// The `_meta` every request of a 2026-07-28 session carries: the version, and who the bridge is and what it can
/// do as a client (nothing beyond requests: no sampling, roots or elicitation).
pub(super) fn with_client_context(params: Option<Value>) -> Value {
    let mut params = params.unwrap_or_else(|| json!({}));
    if let Some(object) = params.as_object_mut() {
        let meta = object.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(
                "io.modelcontextprotocol/protocolVersion".into(),
                json!(protocol::STATELESS),
            );
            meta.insert(
                "io.modelcontextprotocol/clientCapabilities".into(),
                json!({}),
            );
            meta.insert(
                "io.modelcontextprotocol/clientInfo".into(),
                json!({ "name": "obsmcp-bridge", "version": env!("CARGO_PKG_VERSION") }),
            );
        }
    }
    params
}

/// A reqwest error with its causes, without the URL (which may carry a query token).
pub(crate) fn describe_reqwest_error(error: &reqwest::Error) -> String {
    let mut text = String::new();
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(error);
    if error.is_connect() {
        text.push_str("could not connect");
    } else if error.is_timeout() {
        text.push_str("timed out");
    } else {
        text.push_str("HTTP error");
    }
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

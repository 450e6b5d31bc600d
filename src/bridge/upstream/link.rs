//! One live connection of any transport, as the supervisor and calls see it: what sending a message can tell about
//! its delivery ([`SendError`]), and the events a link reports ([`LinkEvent`]). The transports are `http.rs`
//! (Streamable HTTP), `sse.rs` (legacy HTTP+SSE) and `child.rs` (a stdio server process); tests add an in-memory
//! one (`memory.rs`).

use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;

use super::{child, http, sse};

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

/// Where a link sends its events.
/// Messages a link has read and not yet routed, at most. A link's reader waits while this many are queued, so a
/// server that floods the bridge is read only as fast as the bridge passes its messages on (back-pressure through
/// the pipe or socket) instead of piling up in memory.
pub(crate) const LINK_QUEUE: usize = 64;

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

/// A live connection of any transport.
// One per upstream, for as long as it is connected: a child's handle (416 bytes on Windows) costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub(super) enum Link {
    Http(http::HttpLink),
    Sse(sse::SseLink),
    Child(child::ChildLink),
    /// A server inside a unit test.
    #[cfg(test)]
    Memory(super::memory::MemoryLink),
}

impl Link {
    pub(super) async fn send(&self, message: &Value) -> Result<(), SendError> {
        match self {
            Self::Http(link) => link.send(message).await,
            Self::Sse(link) => link.send(message).await,
            Self::Child(link) => link.send(message).await,
            #[cfg(test)]
            Self::Memory(link) => link.send(message).await,
        }
    }

    pub(super) async fn close(&self) {
        match self {
            Self::Http(link) => link.close().await,
            Self::Sse(link) => link.close(),
            Self::Child(link) => link.close().await,
            #[cfg(test)]
            Self::Memory(link) => link.close(),
        }
    }

    /// Whether a server took part in this link's life (see [`AttemptFailed::server_answered`]).
    pub(super) fn server_answered(&self) -> bool {
        match self {
            Self::Http(link) => link.was_answered(),
            Self::Sse(_) | Self::Child(_) => true,
            #[cfg(test)]
            Self::Memory(_) => true,
        }
    }

    pub(super) fn transport(&self) -> &'static str {
        match self {
            Self::Http(_) => "streamable_http",
            Self::Sse(_) => "legacy_sse",
            Self::Child(_) => "stdio",
            #[cfg(test)]
            Self::Memory(_) => "memory",
        }
    }

    /// How often to ping, how long to wait, and how many misses mean the server is hung.
    pub(super) fn liveness(&self) -> (Duration, Duration, u32) {
        match self {
            // Obsidian can stall its main thread for seconds (indexing, a big paste): tolerate a missed ping.
            Self::Http(_) | Self::Sse(_) => (Duration::from_secs(5), Duration::from_secs(4), 2),
            // A stdio server answers a ping in milliseconds unless it is wedged: the watchdog acts on one miss.
            Self::Child(_) => (Duration::from_secs(2), Duration::from_secs(3), 1),
            #[cfg(test)]
            Self::Memory(_) => (Duration::from_secs(2), Duration::from_secs(3), 1),
        }
    }
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

//! One live connection of any transport, as the supervisor and calls see it. The transports are `http.rs`
//! (Streamable HTTP), `sse.rs` (legacy HTTP+SSE) and `child.rs` (a stdio server process); tests add an in-memory
//! one (`memory.rs`). What they all speak in (what sending can tell about delivery, the events a link reports) is
//! `wire.rs`, one floor down, so that the transports need not import this file that dispatches to them.

use std::time::Duration;

use serde_json::Value;

use super::wire::SendError;
use super::{child, http, sse};

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

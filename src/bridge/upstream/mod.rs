//! The upstream connection, owned by one background task (the supervisor): it connects, performs the MCP handshake,
//! has the catalog fetched, watches liveness, and when the session ends for any reason fails every call still waiting on
//! it, then reconnects forever with a short capped backoff.
//!
//! Calls never touch the connection's lifecycle directly. They wait (boundedly) for a ready session, send, and await
//! their answer in the pending table. A send that provably never reached the server (connection refused, stale
//! session) is retried on the next session; a send whose outcome is unknown is never replayed.

//!
//! The files, by job: `supervisor.rs` (the task that owns the connection), `session.rs` (one session and its
//! pending requests), `forward.rs` (a call's way through), `link.rs` (a connection of any transport) with the
//! transports `http.rs`, `sse.rs` and `child.rs`, and `wire.rs` (what they all speak in, a leaf); `tests.rs` pins
//! the contract with an in-memory link and paused time.

mod child;
pub(crate) mod event_stream;
mod forward;
mod http;
mod link;
#[cfg(test)]
mod memory;
mod session;
mod sse;
mod subscriptions;
mod supervisor;
#[cfg(test)]
mod tests;
mod wire;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use tokio::sync::{Notify, mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::config::{HttpFlavor, UpstreamTarget};
use super::diagnostics::Diagnostics;
use crate::lock::lock;
use session::{Pending, REFRESH_IDLE, Session};

pub(crate) use wire::{Events, LINK_QUEUE, LinkEvent, SendError, describe_reqwest_error};

/// How long the handshake of an HTTP upstream may take; also the bound on the bridge's own small requests to it
/// (catalog refreshes, cancellations, the log level).
const HTTP_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// What the supervisor reports to the rest of the bridge.
#[derive(Debug)]
pub(crate) enum UpstreamEvent {
    /// The live catalog, after each handshake and each `tools/list_changed`.
    Catalog(Vec<Value>),
    /// A notification the client should see (progress, log message).
    Forward(Value),
}

/// The connection's state, as calls and the status tool see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UpstreamState {
    /// A connection attempt or handshake is under way.
    Connecting,
    /// A session is up and answering.
    Ready,
    /// The last attempt failed or the session was lost; another attempt follows shortly.
    Down { last_error: String },
    /// The bridge is shutting down.
    Stopped,
}

impl UpstreamState {
    /// The word used in the status tool.
    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            Self::Connecting => "connecting",
            Self::Ready => "connected",
            Self::Down { .. } => "disconnected",
            Self::Stopped => "stopped",
        }
    }
}

/// Why a request got no answer from the upstream.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum CallError {
    /// No session could be had within the wait; the text is the last connection error.
    #[error("not reachable: {0}")]
    Unreachable(String),
    /// The session ended while the request was out; it may or may not have run.
    #[error("lost with its session: {0}")]
    Lost(String),
    /// No answer within the timeout; a cancellation was sent upstream.
    #[error("no answer within {:.1} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// The server refused the message itself (HTTP error, bad credentials).
    #[error("refused: {0}")]
    Rejected(String),
}

/// Facts about the upstream for the status tool.
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    /// `serverInfo.name` and `.version` from the last handshake.
    pub(crate) server_name: Option<String>,
    pub(crate) server_version: Option<String>,
    /// The protocol version the upstream agreed to.
    pub(crate) protocol_version: Option<String>,
    /// The transport of the last session.
    pub(crate) transport: Option<&'static str>,
    /// Why the upstream is not connected now; `None` while a session is up.
    pub(crate) last_error: Option<String>,
    /// The error that ended the last outage, with when it was seen: kept after recovery, apart from `last_error`, so a
    /// connected bridge never reads as failing.
    pub(crate) previous_error: Option<(String, SystemTime)>,
    /// When `last_error` was seen.
    last_error_at: Option<SystemTime>,
    /// Sessions established after the first one.
    pub(crate) reconnects: u64,
    /// When the state last changed.
    pub(crate) since: Option<SystemTime>,
}

/// Where a forwarded request went, so that a cancellation can follow it.
pub(crate) type RequestSlot = Arc<Mutex<Option<(u64, u64)>>>;

/// The upstream, shared by the supervisor and every call.
pub(crate) struct Upstream {
    target: UpstreamTarget,
    state: watch::Sender<UpstreamState>,
    current: Mutex<Option<Session>>,
    pending: Mutex<HashMap<u64, Pending>>,
    /// Calls waiting for an answer that asked for progress, by progress token: each notification restarts the timeout.
    progress: Mutex<HashMap<String, Arc<Notify>>>,
    next_id: AtomicU64,
    facts: Mutex<Facts>,
    wake: Notify,
    events: mpsc::Sender<UpstreamEvent>,
    flavor: Mutex<Option<HttpFlavor>>,
    log_level: Mutex<Option<Value>>,
    diagnostics: Arc<Diagnostics>,
    shutdown: CancellationToken,
    /// Set while the last attempt failed with a server answering: calls then wait out the backoff and offline reads
    /// go to disk at once, instead of each asking for a fresh attempt.
    server_failing: AtomicBool,
    /// Set from a failed attempt or a lost session until a session is up again: offline reads then answer from disk
    /// at once while a fresh attempt runs beside them (`ready_unless_down`).
    away: AtomicBool,
    /// Since when no session has been up (the bridge's start before the first one), on tokio's clock: a call stops
    /// waiting for a connection once an outage this old refuses a fresh attempt (`wait_ready`).
    away_since: Mutex<tokio::time::Instant>,
    /// The number of the latest connection attempt begun, and of the latest that failed: a waiting call tells by them
    /// an attempt begun after it arrived.
    attempt_begun: AtomicU64,
    attempt_failed: AtomicU64,
    /// Whether a catalog refresh runs, and whether another was asked for meanwhile (`REFRESH_*`).
    catalog_refresh: AtomicU8,
    /// The resource URIs the bridge's clients subscribed to, kept on every session (`subscriptions.rs`).
    subscriptions: Mutex<subscriptions::Subscriptions>,
    /// In unit tests, what opens each link instead of the target (an in-memory server).
    #[cfg(test)]
    connector: Mutex<Option<tests::Connector>>,
}

impl Upstream {
    /// A supervisor-to-be for `target`; start it with [`Upstream::run`].
    pub(crate) fn new(
        target: UpstreamTarget,
        events: mpsc::Sender<UpstreamEvent>,
        diagnostics: Arc<Diagnostics>,
    ) -> Arc<Self> {
        let flavor = match &target {
            UpstreamTarget::Url {
                flavor: HttpFlavor::LegacySse,
                ..
            } => Some(HttpFlavor::LegacySse),
            _ => None,
        };
        Arc::new(Self {
            target,
            state: watch::Sender::new(UpstreamState::Connecting),
            current: Mutex::new(None),
            pending: Mutex::new(HashMap::new()),
            progress: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            facts: Mutex::new(Facts {
                since: Some(SystemTime::now()),
                ..Facts::default()
            }),
            wake: Notify::new(),
            events,
            flavor: Mutex::new(flavor),
            log_level: Mutex::new(None),
            diagnostics,
            shutdown: CancellationToken::new(),
            server_failing: AtomicBool::new(false),
            away: AtomicBool::new(false),
            away_since: Mutex::new(tokio::time::Instant::now()),
            attempt_begun: AtomicU64::new(0),
            attempt_failed: AtomicU64::new(0),
            catalog_refresh: AtomicU8::new(REFRESH_IDLE),
            subscriptions: Mutex::default(),
            #[cfg(test)]
            connector: Mutex::new(None),
        })
    }

    /// The current state.
    pub(crate) fn state(&self) -> UpstreamState {
        self.state.borrow().clone()
    }

    /// A receiver that sees every state change.
    pub(crate) fn watch(&self) -> watch::Receiver<UpstreamState> {
        self.state.subscribe()
    }

    /// Facts for the status tool.
    pub(crate) fn facts(&self) -> Facts {
        lock(&self.facts).clone()
    }

    /// What the upstream is.
    pub(crate) fn target(&self) -> &UpstreamTarget {
        &self.target
    }

    fn set_state(&self, state: UpstreamState) {
        let mut facts = lock(&self.facts);
        match &state {
            UpstreamState::Down { last_error } => {
                facts.last_error = Some(last_error.clone());
                facts.last_error_at = Some(SystemTime::now());
            }
            UpstreamState::Ready => {
                if let Some(error) = facts.last_error.take() {
                    let at = facts.last_error_at.take().unwrap_or_else(SystemTime::now);
                    facts.previous_error = Some((error, at));
                }
            }
            UpstreamState::Connecting | UpstreamState::Stopped => {}
        }
        match state {
            UpstreamState::Down { .. } => {
                self.away.store(true, std::sync::atomic::Ordering::Relaxed)
            }
            UpstreamState::Ready => self.away.store(false, std::sync::atomic::Ordering::Relaxed),
            UpstreamState::Connecting | UpstreamState::Stopped => {}
        }
        // Attempts alternate Connecting and Down every few hundred milliseconds while the server is away; "since" means
        // since the server went away, so only a change between up and not-up moves it.
        let was_ready = *self.state.borrow() == UpstreamState::Ready;
        if was_ready != (state == UpstreamState::Ready) {
            facts.since = Some(SystemTime::now());
            if was_ready {
                *lock(&self.away_since) = tokio::time::Instant::now();
            }
        }
        drop(facts);
        self.state.send_replace(state);
    }
}

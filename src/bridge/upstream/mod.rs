//! The upstream connection, owned by one background task (the supervisor): it connects, performs the MCP handshake,
//! has the catalog fetched, watches liveness, and when the session ends for any reason fails every call still waiting on
//! it, then reconnects forever with a short capped backoff.
//!
//! Calls never touch the connection's lifecycle directly. They wait (boundedly) for a ready session, send, and await
//! their answer in the pending table. A send that provably never reached the server (connection refused, stale
//! session) is retried on the next session; a send whose outcome is unknown is never replayed.

mod child;
pub(crate) mod event_stream;
mod http;
mod sse;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;
use url::Url;

use super::config::{HttpFlavor, UpstreamTarget};
use super::diagnostics::{Diagnostics, Record};
use super::jsonrpc::{self, Message};

/// How long the handshake of an HTTP upstream may take.
const HTTP_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a child process may take to start and answer `initialize` (it may be `npx` fetching a package).
const CHILD_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(60);
/// How far progress notifications may stretch a call: to this many call timeouts in all. Progress restarts the
/// timeout (a long search that reports progress is working, not hung), but a server that reports progress forever must
/// not hold a call forever either.
const PROGRESS_STRETCH: u32 = 10;
/// The longest pause between reconnection attempts.
const BACKOFF_CAP: Duration = Duration::from_millis(500);
/// The shortest, even while calls are waiting: a closed port refuses in microseconds, and a loop must not spin. Each
/// read answered from disk while Obsidian is closed waits for one fresh attempt (so an Obsidian that just came back is
/// used instead), so this spacing is what a burst of offline reads pays per call: 50 ms made them 13 times slower
/// than the offline index itself on the 10,000-note benchmark.
const MIN_SPACING: Duration = Duration::from_millis(5);

/// Why a connection attempt failed.
struct AttemptFailed {
    reason: String,
    /// Whether a server took part (answered with an error, without proof, or died after starting). Only an attempt
    /// that reached nobody (a closed port) may be retried as soon as a call asks: anything else waits out the backoff,
    /// so waiting calls cannot drive requests at a failing server.
    server_answered: bool,
}

impl AttemptFailed {
    fn answered(reason: String) -> Self {
        Self {
            reason,
            server_answered: true,
        }
    }
}

impl From<String> for AttemptFailed {
    fn from(reason: String) -> Self {
        Self {
            reason,
            server_answered: false,
        }
    }
}

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
#[derive(Debug, Clone)]
pub(crate) enum CallError {
    /// No session could be had within the wait; the text is the last connection error.
    Unreachable(String),
    /// The session ended while the request was out; it may or may not have run.
    Lost(String),
    /// No answer within the timeout; a cancellation was sent upstream.
    Timeout(Duration),
    /// The server refused the message itself (HTTP error, bad credentials).
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
    /// The last error seen, kept after recovery.
    pub(crate) last_error: Option<String>,
    /// Sessions established after the first one.
    pub(crate) reconnects: u64,
    /// When the state last changed.
    pub(crate) since: Option<SystemTime>,
}

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

/// How sending one message failed, by what it says about delivery.
#[derive(Debug)]
pub(crate) enum SendError {
    /// The server never received it (connection refused, dead child): safe to send again on a new session.
    NotDelivered(String),
    /// The server refused it for an unknown session, without running it: re-initialize and send again.
    SessionLost(String),
    /// The server refused this message; the session is fine.
    Rejected(String),
    /// The connection broke after sending: it may have run.
    Unknown(String),
}

/// A live connection of any transport.
enum Link {
    Http(http::HttpLink),
    Sse(sse::SseLink),
    Child(child::ChildLink),
}

impl Link {
    async fn send(&self, message: &Value) -> Result<(), SendError> {
        match self {
            Self::Http(link) => link.send(message).await,
            Self::Sse(link) => link.send(message).await,
            Self::Child(link) => link.send(message).await,
        }
    }

    async fn close(&self) {
        match self {
            Self::Http(link) => link.close().await,
            Self::Sse(link) => link.close(),
            Self::Child(link) => link.close().await,
        }
    }

    /// Whether a server took part in this link's life (see [`AttemptFailed::server_answered`]).
    fn server_answered(&self) -> bool {
        match self {
            Self::Http(link) => link.was_answered(),
            Self::Sse(_) | Self::Child(_) => true,
        }
    }

    fn transport(&self) -> &'static str {
        match self {
            Self::Http(_) => "streamable_http",
            Self::Sse(_) => "legacy_sse",
            Self::Child(_) => "stdio",
        }
    }

    /// How often to ping, how long to wait, and how many misses mean the server is hung.
    fn liveness(&self) -> (Duration, Duration, u32) {
        match self {
            // Obsidian can stall its main thread for seconds (indexing, a big paste): tolerate a missed ping.
            Self::Http(_) | Self::Sse(_) => (Duration::from_secs(5), Duration::from_secs(4), 2),
            // A stdio server answers a ping in milliseconds unless it is wedged: the watchdog acts on one miss.
            Self::Child(_) => (Duration::from_secs(2), Duration::from_secs(3), 1),
        }
    }
}

/// One established session.
#[derive(Clone)]
struct Session {
    generation: u64,
    link: Arc<Link>,
    ended: CancellationToken,
    end_reason: Arc<Mutex<Option<String>>>,
    suspect: Arc<Notify>,
}

impl Session {
    fn end(&self, reason: &str) {
        let mut slot = self.end_reason.lock().expect("end reason lock");
        if slot.is_none() {
            *slot = Some(reason.to_string());
        }
        self.ended.cancel();
    }

    fn reason(&self) -> String {
        self.end_reason
            .lock()
            .expect("end reason lock")
            .clone()
            .unwrap_or_else(|| "the session ended".into())
    }
}

/// Why a request made by the bridge itself (handshake, ping, catalog) failed.
#[derive(Debug)]
enum RequestError {
    /// The server refused the message (an HTTP error status): it is there, but does not take this.
    Rejected(String),
    /// No answer within the timeout.
    NoAnswer(String),
    /// The session failed underneath.
    Failed(String),
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Rejected(reason) | Self::NoAnswer(reason) | Self::Failed(reason) => {
                formatter.write_str(reason)
            }
        }
    }
}

impl From<RequestError> for String {
    fn from(error: RequestError) -> Self {
        error.to_string()
    }
}

struct Pending {
    generation: u64,
    reply: oneshot::Sender<Result<Value, String>>,
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
    /// Whether a catalog refresh runs, and whether another was asked for meanwhile (`REFRESH_*`).
    catalog_refresh: AtomicU8,
}

const REFRESH_IDLE: u8 = 0;
const REFRESH_RUNNING: u8 = 1;
const REFRESH_AGAIN: u8 = 2;

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
            catalog_refresh: AtomicU8::new(REFRESH_IDLE),
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
        self.facts.lock().expect("facts lock").clone()
    }

    /// What the upstream is.
    pub(crate) fn target(&self) -> &UpstreamTarget {
        &self.target
    }

    fn set_state(&self, state: UpstreamState) {
        let mut facts = self.facts.lock().expect("facts lock");
        if let UpstreamState::Down { last_error } = &state {
            facts.last_error = Some(last_error.clone());
        }
        // Attempts alternate Connecting and Down every few hundred milliseconds while the server is away; "since" means
        // since the server went away, so only a change between up and not-up moves it.
        let was_ready = *self.state.borrow() == UpstreamState::Ready;
        if was_ready != (state == UpstreamState::Ready) {
            facts.since = Some(SystemTime::now());
        }
        drop(facts);
        self.state.send_replace(state);
    }

    /// The supervisor: runs until [`Upstream::shutdown`].
    pub(crate) async fn run(self: Arc<Self>) {
        let mut generation = 0;
        let mut failures: u32 = 0;
        let mut ever_connected = false;
        while !self.shutdown.is_cancelled() {
            self.set_state(UpstreamState::Connecting);
            generation += 1;
            let started = Instant::now();
            let established = tokio::select! {
                () = self.shutdown.cancelled() => break,
                established = self.establish(generation) => established,
            };
            match established {
                Ok(session) => {
                    failures = 0;
                    self.server_failing.store(false, Ordering::Relaxed);
                    if ever_connected {
                        self.facts.lock().expect("facts lock").reconnects += 1;
                    }
                    ever_connected = true;
                    self.diagnostics.record(&Record {
                        event: "connected",
                        upstream: Some(self.target.kind()),
                        transport: Some(session.link.transport()),
                        duration_ms: Some(millis(started.elapsed())),
                        count: Some(generation - 1),
                        ..Record::default()
                    });
                    *self.current.lock().expect("current lock") = Some(session.clone());
                    self.set_state(UpstreamState::Ready);
                    self.supervise(&session).await;
                    *self.current.lock().expect("current lock") = None;
                    let reason = session.reason();
                    self.fail_pending(session.generation, &reason);
                    session.link.close().await;
                    tracing::info!("upstream session ended: {reason}");
                    self.diagnostics.record(&Record {
                        event: "connection_lost",
                        upstream: Some(self.target.kind()),
                        ..Record::default()
                    });
                    if self.shutdown.is_cancelled() {
                        break;
                    }
                    self.set_state(UpstreamState::Down { last_error: reason });
                    // Reconnect at once: a restarted server is usually back already.
                    continue;
                }
                Err(failed) => {
                    failures = failures.saturating_add(1);
                    tracing::debug!("upstream connection attempt failed: {}", failed.reason);
                    self.server_failing
                        .store(failed.server_answered, Ordering::Relaxed);
                    self.set_state(UpstreamState::Down {
                        last_error: failed.reason,
                    });
                }
            }
            let backoff = Duration::from_millis(50 << failures.min(4)).min(BACKOFF_CAP);
            let earliest = tokio::time::Instant::from_std(started + MIN_SPACING);
            // A waiting call cuts the backoff short, with attempts still spaced, but only while nobody answers on
            // the other end: a failing server gets the whole backoff however many calls wait.
            let wakeable = !self.server_failing.load(Ordering::Relaxed);
            tokio::select! {
                () = self.shutdown.cancelled() => break,
                () = tokio::time::sleep(backoff) => {}
                () = async {
                    self.wake.notified().await;
                    tokio::time::sleep_until(earliest).await;
                }, if wakeable => {}
            }
        }
        self.set_state(UpstreamState::Stopped);
    }

    /// Stops the supervisor and closes the live session (killing a child upstream).
    pub(crate) async fn shutdown(&self) {
        self.shutdown.cancel();
        let session = self.current.lock().expect("current lock").take();
        if let Some(session) = session {
            session.end("the bridge is shutting down");
            session.link.close().await;
        }
    }

    /// Connects, performs the handshake, fetches the catalog.
    async fn establish(self: &Arc<Self>, generation: u64) -> Result<Session, AttemptFailed> {
        let (sender, receiver) = mpsc::channel(LINK_QUEUE);
        let (link, timeout) = self.open_link(sender.clone()).await?;
        let session = Session {
            generation,
            link: Arc::new(link),
            ended: CancellationToken::new(),
            end_reason: Arc::new(Mutex::new(None)),
            suspect: Arc::new(Notify::new()),
        };
        tokio::spawn(Arc::clone(self).pump(session.clone(), receiver));
        match self.handshake(&session, timeout).await {
            Ok(()) => Ok(session),
            Err(reason) => {
                session.end(&reason);
                self.fail_pending(generation, &reason);
                session.link.close().await;
                Err(AttemptFailed {
                    reason,
                    server_answered: session.link.server_answered(),
                })
            }
        }
    }

    async fn open_link(&self, events: Events) -> Result<(Link, Duration), AttemptFailed> {
        match &self.target {
            UpstreamTarget::Vault { path, config_dir } => {
                let data = obsmcp_installer::obsidian::plugin_data::read(path, config_dir).map_err(|error| {
                    format!("the obsmcp plugin's settings could not be read ({error}); run `obsmcp setup` for this vault")
                })?;
                let url = Url::parse(&format!("http://127.0.0.1:{}/mcp", data.port))
                    .expect("a loopback URL parses");
                // No bearer token: whoever holds the port while Obsidian is closed must not learn it.
                let key = crate::plugin_auth::PluginKey::new(&data.token, data.port);
                Ok((
                    Link::Http(http::HttpLink::new(
                        url,
                        reqwest::header::HeaderMap::new(),
                        Some(key),
                        events,
                    )?),
                    HTTP_HANDSHAKE_TIMEOUT,
                ))
            }
            UpstreamTarget::Url { url, headers, .. } => {
                let flavor = *self.flavor.lock().expect("flavor lock");
                if flavor == Some(HttpFlavor::LegacySse) {
                    return sse::SseLink::open(url, headers.clone(), events)
                        .await
                        .map(|link| (Link::Sse(link), HTTP_HANDSHAKE_TIMEOUT))
                        .map_err(|error| match error {
                            sse::OpenError::Unreachable(reason) => reason.into(),
                            sse::OpenError::NotSse(reason) => AttemptFailed::answered(reason),
                        });
                }
                Ok((
                    Link::Http(http::HttpLink::new(
                        url.clone(),
                        headers.clone(),
                        None,
                        events,
                    )?),
                    HTTP_HANDSHAKE_TIMEOUT,
                ))
            }
            UpstreamTarget::Command { program, args } => {
                // A program that cannot start is not retried at once either: each try is a process spawn.
                let link = child::ChildLink::spawn(program, args, events)
                    .map_err(AttemptFailed::answered)?;
                tracing::info!("started the upstream server process (pid {:?})", link.pid());
                Ok((Link::Child(link), CHILD_HANDSHAKE_TIMEOUT))
            }
        }
    }

    async fn handshake(
        self: &Arc<Self>,
        session: &Session,
        timeout: Duration,
    ) -> Result<(), String> {
        let params = json!({
            "protocolVersion": rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE.as_str(),
            "capabilities": {},
            "clientInfo": { "name": "obsmcp-bridge", "version": env!("CARGO_PKG_VERSION") },
        });
        let answer = match self
            .request_on(session, "initialize", Some(params), timeout)
            .await
        {
            Ok(answer) => answer,
            Err(error) => return Err(self.maybe_fall_back_to_sse(session, error)),
        };
        let result = answer
            .get("result")
            .ok_or_else(|| describe_error(&answer, "initialize"))?;
        let protocol = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if let Link::Http(link) = session.link.as_ref() {
            link.set_protocol_version(&protocol);
        }
        {
            let mut facts = self.facts.lock().expect("facts lock");
            facts.server_name = result
                .pointer("/serverInfo/name")
                .and_then(Value::as_str)
                .map(str::to_string);
            facts.server_version = result
                .pointer("/serverInfo/version")
                .and_then(Value::as_str)
                .map(str::to_string);
            facts.protocol_version = Some(protocol);
            facts.transport = Some(session.link.transport());
        }
        self.notify_on(session, "notifications/initialized", None)
            .await?;
        // The session is usable now; the rest runs beside the first calls, so a restarted Obsidian serves them sooner.
        let upstream = Arc::clone(self);
        let session = session.clone();
        tokio::spawn(async move {
            if let Link::Http(link) = session.link.as_ref() {
                link.open_event_stream().await;
            }
            let level = upstream.log_level.lock().expect("log level lock").clone();
            if let Some(level) = level {
                // A server without logging refuses this; the session is still good.
                let _ = upstream
                    .request_on(&session, "logging/setLevel", Some(level), timeout)
                    .await;
            }
            match upstream.list_tools(&session, timeout).await {
                Ok(tools) => {
                    let _ = upstream.events.send(UpstreamEvent::Catalog(tools)).await;
                }
                Err(reason) => tracing::warn!("could not fetch the tool list: {reason}"),
            }
        });
        Ok(())
    }

    /// A `--url` upstream that refused Streamable HTTP is tried as legacy SSE from the next attempt on.
    fn maybe_fall_back_to_sse(&self, session: &Session, error: RequestError) -> String {
        if matches!(self.target, UpstreamTarget::Url { .. })
            && matches!(session.link.as_ref(), Link::Http(_))
            && matches!(error, RequestError::Rejected(_))
        {
            *self.flavor.lock().expect("flavor lock") = Some(HttpFlavor::LegacySse);
            tracing::info!("the server refused Streamable HTTP ({error}); trying legacy SSE");
            self.wake.notify_one();
        }
        error.to_string()
    }

    async fn list_tools(&self, session: &Session, timeout: Duration) -> Result<Vec<Value>, String> {
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        // Bounded: a server that keeps handing out cursors cannot keep the handshake going forever.
        for _ in 0..100 {
            let params = cursor.take().map(|cursor| json!({ "cursor": cursor }));
            let answer = self
                .request_on(session, "tools/list", params, timeout)
                .await
                .map_err(String::from)?;
            let result = answer
                .get("result")
                .ok_or_else(|| describe_error(&answer, "tools/list"))?;
            if let Some(page) = result.get("tools").and_then(Value::as_array) {
                tools.extend(page.iter().cloned());
            }
            match result.get("nextCursor") {
                Some(next) if !next.is_null() => cursor = Some(next.clone()),
                _ => return Ok(tools),
            }
        }
        Ok(tools)
    }

    /// Sends a request on one given session and awaits its answer (handshake, pings, catalog).
    async fn request_on(
        &self,
        session: &Session,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Value, RequestError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (reply, answer) = oneshot::channel();
        self.pending.lock().expect("pending lock").insert(
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
                self.pending.lock().expect("pending lock").remove(&id);
                return Err(no_answer());
            }
        };
        if let Err(error) = sent {
            self.pending.lock().expect("pending lock").remove(&id);
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
                self.pending.lock().expect("pending lock").remove(&id);
                Err(no_answer())
            }
        }
    }

    async fn notify_on(
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
    async fn pump(self: Arc<Self>, session: Session, mut receiver: mpsc::Receiver<LinkEvent>) {
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
                    if let Some(pending) = self.pending.lock().expect("pending lock").remove(&id) {
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

    async fn route(self: &Arc<Self>, session: &Session, message: Value) {
        match jsonrpc::classify(message) {
            Message::Response { id, mut body } => {
                let Some(id) = id.as_u64() else { return };
                let pending = self.pending.lock().expect("pending lock").remove(&id);
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
                        let watch = self
                            .progress
                            .lock()
                            .expect("progress lock")
                            .get(&token.to_string())
                            .cloned();
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
                _ => tracing::debug!("ignored upstream notification `{method}`"),
            },
            Message::Invalid { reason, .. } => {
                tracing::warn!("ignored an invalid upstream message: {reason}")
            }
        }
    }

    /// Fetches the tool list again after a `list_changed`. One fetch runs at a time: notifications that come during it
    /// are served by one more fetch after it, so a flood of them costs two fetches, not one each.
    fn refresh_catalog(self: &Arc<Self>, session: &Session) {
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

    /// Pings on a schedule and when something looks wrong; ends the session when the server is gone or hung.
    async fn supervise(&self, session: &Session) {
        let (interval, timeout, misses_allowed) = session.link.liveness();
        let mut misses = 0;
        let mut stream_reopens = 0;
        loop {
            let suspected = tokio::select! {
                () = session.ended.cancelled() => return,
                () = self.shutdown.cancelled() => {
                    session.end("the bridge is shutting down");
                    return;
                }
                () = tokio::time::sleep(interval) => false,
                () = session.suspect.notified() => true,
            };
            let ping_timeout = if suspected {
                timeout.min(Duration::from_secs(2))
            } else {
                timeout
            };
            match self.request_on(session, "ping", None, ping_timeout).await {
                Ok(_) => {
                    misses = 0;
                    if suspected && stream_reopens < 3 {
                        stream_reopens += 1;
                        if let Link::Http(link) = session.link.as_ref() {
                            link.open_event_stream().await;
                        }
                    }
                }
                Err(RequestError::NoAnswer(reason)) => {
                    misses += 1;
                    if misses >= misses_allowed {
                        tracing::warn!(
                            "the upstream stopped answering pings; restarting the session"
                        );
                        session.end(&format!("the server stopped answering ({reason})"));
                        return;
                    }
                }
                // A server that refuses `ping` over HTTP is still there.
                Err(RequestError::Rejected(_)) => misses = 0,
                Err(RequestError::Failed(reason)) => {
                    session.end(&reason);
                    return;
                }
            }
        }
    }

    fn fail_pending(&self, generation: u64, reason: &str) {
        let mut pending = self.pending.lock().expect("pending lock");
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

    fn ready_session(&self) -> Option<Session> {
        self.current
            .lock()
            .expect("current lock")
            .as_ref()
            .filter(|session| !session.ended.is_cancelled())
            .cloned()
    }

    /// Waits until a session is ready or `deadline` passes.
    async fn wait_ready(&self, deadline: tokio::time::Instant) -> Option<Session> {
        let mut states = self.state.subscribe();
        loop {
            let state = states.borrow_and_update().clone();
            if let Some(session) = self.ready_session() {
                return Some(session);
            }
            match state {
                UpstreamState::Stopped => return None,
                // Skip the rest of the backoff: someone is waiting.
                UpstreamState::Down { .. } => self.wake.notify_one(),
                UpstreamState::Connecting | UpstreamState::Ready => {}
            }
            match tokio::time::timeout_at(deadline, states.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) | Err(_) => return self.ready_session(),
            }
        }
    }

    /// Whether a session is up. When none is, a fresh attempt is asked for at once and awaited (bounded by `limit`):
    /// a closed port fails it in milliseconds, and an Obsidian that just came back is used rather than the disk.
    pub(crate) async fn ready_unless_down(&self, limit: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        let mut states = self.state.subscribe();
        let mut attempt_seen = false;
        loop {
            let state = states.borrow_and_update().clone();
            match state {
                UpstreamState::Ready if self.ready_session().is_some() => return true,
                UpstreamState::Stopped => return false,
                UpstreamState::Down { .. } if attempt_seen => return false,
                // A failing server is not asked again before its backoff ends: the disk answers now.
                UpstreamState::Down { .. } if self.server_failing.load(Ordering::Relaxed) => {
                    return false;
                }
                UpstreamState::Down { .. } => self.wake.notify_one(),
                UpstreamState::Connecting => attempt_seen = true,
                UpstreamState::Ready => {}
            }
            if tokio::time::timeout_at(deadline, states.changed())
                .await
                .is_err()
            {
                return self.ready_session().is_some();
            }
        }
    }

    /// Forwards a client request: waits up to `connect_wait` for a session, then up to `timeout` for the answer, the
    /// whole taking at most `connect_wait + timeout` however often a send must be retried. The timeout covers sending
    /// too: a frozen server accepts the connection (the kernel does) and then never answers, so the POST alone would
    /// wait forever. `slot` receives where the request went, for cancellation.
    pub(crate) async fn forward(
        self: &Arc<Self>,
        method: &str,
        params: Option<Value>,
        connect_wait: Duration,
        timeout: Duration,
        slot: &RequestSlot,
    ) -> Result<Value, CallError> {
        let started = tokio::time::Instant::now();
        let deadline = started + connect_wait;
        let give_up = deadline + timeout;
        let progress = params
            .as_ref()
            .and_then(|params| params.pointer("/_meta/progressToken"))
            .map(|token| ProgressWatch::new(self, token));
        let mut message = jsonrpc::request(0, method, params);
        loop {
            let Some(session) = self.wait_ready(deadline).await else {
                return Err(CallError::Unreachable(
                    self.facts()
                        .last_error
                        .unwrap_or_else(|| "not connected yet".into()),
                ));
            };
            let answer_by = (tokio::time::Instant::now() + timeout).min(give_up);
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            message["id"] = id.into();
            let (reply, answer) = oneshot::channel();
            self.pending.lock().expect("pending lock").insert(
                id,
                Pending {
                    generation: session.generation,
                    reply,
                },
            );
            if session.ended.is_cancelled() {
                // The session ended after `wait_ready` handed it out, and its pending requests may already have been
                // failed: this one, registered too late, would wait out its whole timeout. Not sent yet, so it goes
                // to the next session instead.
                self.pending.lock().expect("pending lock").remove(&id);
                continue;
            }
            *slot.lock().expect("slot lock") = Some((session.generation, id));
            let sent = match tokio::time::timeout_at(answer_by, session.link.send(&message)).await {
                Ok(sent) => sent,
                Err(_) => return Err(self.give_up(&session, id, timeout)),
            };
            match sent {
                Ok(()) => {}
                Err(SendError::NotDelivered(reason) | SendError::SessionLost(reason)) => {
                    // The server never ran it: safe to send again once the supervisor has a new session.
                    self.pending.lock().expect("pending lock").remove(&id);
                    session.end(&reason);
                    continue;
                }
                Err(SendError::Rejected(reason)) => {
                    self.pending.lock().expect("pending lock").remove(&id);
                    return Err(CallError::Rejected(reason));
                }
                Err(SendError::Unknown(reason)) => {
                    self.pending.lock().expect("pending lock").remove(&id);
                    session.end(&reason);
                    return Err(CallError::Lost(reason));
                }
            }
            let stretch_to = started + connect_wait + timeout * PROGRESS_STRETCH;
            let answer = await_answer(answer, answer_by, progress.as_ref(), timeout, stretch_to);
            return match answer.await {
                Some(Ok(Ok(answer))) => Ok(answer),
                Some(Ok(Err(reason))) => Err(CallError::Lost(reason)),
                Some(Err(_)) => Err(CallError::Lost("the session ended".into())),
                None => Err(self.give_up(&session, id, timeout)),
            };
        }
    }

    /// A request out of time: the upstream is told to stop (in the background: a frozen server would hold the
    /// notification as long as it held the request) and the caller gets a timeout at once.
    fn give_up(self: &Arc<Self>, session: &Session, id: u64, after: Duration) -> CallError {
        self.pending.lock().expect("pending lock").remove(&id);
        let upstream = Arc::clone(self);
        let generation = session.generation;
        tokio::spawn(async move {
            upstream
                .cancel(generation, id, "timed out in the obsmcp bridge")
                .await
        });
        CallError::Timeout(after)
    }

    /// Tells the upstream to stop working on a request, if its session is still the live one.
    pub(crate) async fn cancel(&self, generation: u64, id: u64, reason: &str) {
        self.pending.lock().expect("pending lock").remove(&id);
        let Some(session) = self
            .ready_session()
            .filter(|session| session.generation == generation)
        else {
            return;
        };
        let params = json!({ "requestId": id, "reason": reason });
        // Best effort by nature: if the session just died, the request died with it. Bounded: a frozen server holds the
        // POST as long as it stays frozen, and a task per timed-out call must not pile up meanwhile.
        let _ = tokio::time::timeout(
            HTTP_HANDSHAKE_TIMEOUT,
            self.notify_on(&session, "notifications/cancelled", Some(params)),
        )
        .await;
    }

    /// Remembers the client's log level, forwards it now when connected, and replays it after each reconnect.
    pub(crate) async fn set_log_level(&self, params: Value) {
        *self.log_level.lock().expect("log level lock") = Some(params.clone());
        if let Some(session) = self.ready_session()
            && let Err(error) = self
                .request_on(
                    &session,
                    "logging/setLevel",
                    Some(params),
                    HTTP_HANDSHAKE_TIMEOUT,
                )
                .await
        {
            // A server without logging refuses this; the session is still good, and the level is replayed later.
            tracing::debug!("the server did not take the log level: {error:?}");
        }
    }
}

/// Registers a call's progress token for as long as the call waits.
struct ProgressWatch<'upstream> {
    upstream: &'upstream Upstream,
    key: String,
    ticks: Arc<Notify>,
}

impl<'upstream> ProgressWatch<'upstream> {
    fn new(upstream: &'upstream Upstream, token: &Value) -> Self {
        let key = token.to_string();
        let ticks = Arc::new(Notify::new());
        upstream
            .progress
            .lock()
            .expect("progress lock")
            .insert(key.clone(), Arc::clone(&ticks));
        Self {
            upstream,
            key,
            ticks,
        }
    }
}

impl Drop for ProgressWatch<'_> {
    fn drop(&mut self) {
        self.upstream
            .progress
            .lock()
            .expect("progress lock")
            .remove(&self.key);
    }
}

/// Waits for an answer until `answer_by`; each progress notification moves that to `timeout` from now, never past
/// `stretch_to`. `None` when the time ran out.
async fn await_answer<T>(
    answer: oneshot::Receiver<T>,
    mut answer_by: tokio::time::Instant,
    progress: Option<&ProgressWatch<'_>>,
    timeout: Duration,
    stretch_to: tokio::time::Instant,
) -> Option<Result<T, oneshot::error::RecvError>> {
    tokio::pin!(answer);
    loop {
        let ticked = async {
            match progress {
                Some(watch) => watch.ticks.notified().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            answer = &mut answer => return Some(answer),
            () = tokio::time::sleep_until(answer_by) => return None,
            () = ticked => answer_by = answer_by.max((tokio::time::Instant::now() + timeout).min(stretch_to)),
        }
    }
}

/// The message of a JSON-RPC error answer.
fn describe_error(answer: &Value, method: &str) -> String {
    let message = answer
        .pointer("/error/message")
        .and_then(Value::as_str)
        .unwrap_or("no result");
    format!("the server refused `{method}`: {message}")
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

fn millis(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}

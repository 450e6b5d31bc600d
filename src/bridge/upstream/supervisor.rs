//! The supervisor: the one task that owns the connection. It connects, performs the handshake, has the catalog
//! fetched, pings on a schedule and when something looks wrong, and when the session ends fails what waits on it and
//! reconnects, forever, with a short capped backoff that a waiting call cuts short (unless a server is answering
//! with failures: that one gets the whole backoff).
//!
//! The run loop, the handshake and the liveness watch are the one task's life, read top to bottom.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;
use url::Url;

use super::link::Link;
use super::session::{RequestError, Session};
use super::wire::{Events, LINK_QUEUE};
use super::{HTTP_HANDSHAKE_TIMEOUT, Upstream, UpstreamEvent, UpstreamState, child, http, sse};
use crate::bridge::config::{HttpFlavor, UpstreamTarget};
use crate::bridge::diagnostics::Record;
use crate::bridge::protocol;
use crate::lock::lock;

impl Upstream {
    /// The supervisor: runs until [`Upstream::shutdown`].
    pub(crate) async fn run(self: Arc<Self>) {
        let mut generation = 0;
        let mut failures: u32 = 0;
        let mut ever_connected = false;
        while !self.shutdown.is_cancelled() {
            self.set_state(UpstreamState::Connecting);
            generation += 1;
            self.attempt_begun.store(generation, Ordering::SeqCst);
            // Tokio's clock, as every timer here: the spacing below is measured from it.
            let started = tokio::time::Instant::now();
            let established = tokio::select! {
                () = self.shutdown.cancelled() => break,
                established = self.establish(generation) => established,
            };
            match established {
                Ok(session) => {
                    failures = 0;
                    self.server_failing.store(false, Ordering::Relaxed);
                    if ever_connected {
                        lock(&self.facts).reconnects += 1;
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
                    *lock(&self.current) = Some(session.clone());
                    self.set_state(UpstreamState::Ready);
                    self.supervise(&session).await;
                    *lock(&self.current) = None;
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
                    // Before the state changes, so a call woken by the change sees this attempt.
                    self.attempt_failed.store(generation, Ordering::SeqCst);
                    self.set_state(UpstreamState::Down {
                        last_error: failed.reason,
                    });
                }
            }
            let backoff = Duration::from_millis(50 << failures.min(4)).min(BACKOFF_CAP);
            let earliest = started + MIN_SPACING;
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
        let session = lock(&self.current).take();
        if let Some(session) = session {
            session.end("the bridge is shutting down");
            session.link.close().await;
        }
    }

    /// Connects, performs the handshake, fetches the catalog.
    pub(super) async fn establish(
        self: &Arc<Self>,
        generation: u64,
    ) -> Result<Session, AttemptFailed> {
        let (sender, receiver) = mpsc::channel(LINK_QUEUE);
        let (link, timeout) = self.open_link(sender.clone()).await?;
        let session = Session {
            generation,
            link: Arc::new(link),
            ended: CancellationToken::new(),
            end_reason: Arc::new(Mutex::new(None)),
            suspect: Arc::new(Notify::new()),
            stateless: Arc::new(AtomicBool::new(false)),
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

    pub(super) async fn open_link(
        &self,
        events: Events,
    ) -> Result<(Link, Duration), AttemptFailed> {
        #[cfg(test)]
        if let Some(connect) = lock(&self.connector).as_mut() {
            return connect(events).map(|link| (link, HTTP_HANDSHAKE_TIMEOUT));
        }
        match &self.target {
            UpstreamTarget::Vault { path, config_dir } => {
                let data = obsmcp_installer::obsidian_files::plugin_data::read(path, config_dir).map_err(|error| {
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
                let flavor = *lock(&self.flavor);
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

    pub(super) async fn handshake(
        self: &Arc<Self>,
        session: &Session,
        timeout: Duration,
    ) -> Result<(), String> {
        if self.discovers(session) && self.discover(session, timeout).await? {
            return Ok(());
        }
        let params = json!({
            "protocolVersion": protocol::LATEST_WITH_INITIALIZE,
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
            let mut facts = lock(&self.facts);
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
            upstream.resubscribe(&session).await;
            let level = lock(&upstream.log_level).clone();
            if let Some(level) = level {
                // A server without logging refuses this; the session is still good.
                let _ = upstream
                    .request_on(&session, "logging/setLevel", Some(level), timeout)
                    .await;
            }
            upstream.report_catalog(&session, timeout).await;
        });
        Ok(())
    }

    /// Whether a session is opened by discovery first: over stdio and Streamable HTTP. Legacy HTTP+SSE is of the 2025
    /// era by definition.
    fn discovers(&self, session: &Session) -> bool {
        !matches!(session.link.as_ref(), Link::Sse(_))
    }

    /// Asks the server for `server/discover`. A 2026-07-28 server makes the session stateless (no `initialize`, the
    /// client context in every request) and the catalog is fetched: true. A server of the 2025 era answers with an
    /// error (or does not answer within a few seconds): false, and `initialize` follows as before.
    async fn discover(
        self: &Arc<Self>,
        session: &Session,
        timeout: Duration,
    ) -> Result<bool, String> {
        let params = super::session::with_client_context(None);
        let probe = timeout.min(DISCOVERY_WAIT);
        let http = match session.link.as_ref() {
            Link::Http(link) => Some(link),
            _ => None,
        };
        if let Some(link) = http {
            link.set_stateless(true);
        }
        let mut asked_again = false;
        let result = loop {
            match self
                .request_on(session, "server/discover", Some(params.clone()), probe)
                .await
            {
                // A refusal of the version that names it among the supported ones is asked once more, as the spec
                // asks of a client whose first choice was refused.
                Ok(answer) if !asked_again && offers_stateless_again(&answer) => asked_again = true,
                Ok(answer) => break answer.get("result").cloned(),
                // A 2025 server drops what it does not know, or (over HTTP) refuses a request without a session.
                Err(RequestError::NoAnswer(_) | RequestError::Rejected(_)) => break None,
                Err(error) => return Err(error.to_string()),
            }
        };
        let Some(result) = result.filter(|result| lists_stateless(&result["supportedVersions"]))
        else {
            if let Some(link) = http {
                link.set_stateless(false);
            }
            return Ok(false);
        };
        session.stateless.store(true, Ordering::Relaxed);
        {
            let mut facts = lock(&self.facts);
            let info = &result["_meta"]["io.modelcontextprotocol/serverInfo"];
            facts.server_name = info["name"].as_str().map(str::to_string);
            facts.server_version = info["version"].as_str().map(str::to_string);
            facts.protocol_version = Some(protocol::STATELESS.to_string());
            facts.transport = Some(session.link.transport());
        }
        let upstream = Arc::clone(self);
        let session = session.clone();
        tokio::spawn(async move {
            upstream.resubscribe(&session).await;
            if let Link::Http(link) = session.link.as_ref() {
                link.open_event_stream().await;
            }
            upstream.report_catalog(&session, timeout).await;
        });
        Ok(true)
    }

    /// Fetches the session's tool list and hands it to the bridge, after either way of opening the session.
    async fn report_catalog(&self, session: &Session, timeout: Duration) {
        match self.list_tools(session, timeout).await {
            // The receiver goes only at shutdown, when no catalog is wanted any more.
            Ok(tools) => drop(self.events.send(UpstreamEvent::Catalog(tools)).await),
            Err(reason) => tracing::warn!("could not fetch the tool list: {reason}"),
        }
    }

    /// A `--url` upstream that refused Streamable HTTP is tried as legacy SSE from the next attempt on.
    pub(super) fn maybe_fall_back_to_sse(&self, session: &Session, error: RequestError) -> String {
        if matches!(self.target, UpstreamTarget::Url { .. })
            && matches!(session.link.as_ref(), Link::Http(_))
            && matches!(error, RequestError::Rejected(_))
        {
            *lock(&self.flavor) = Some(HttpFlavor::LegacySse);
            tracing::info!("the server refused Streamable HTTP ({error}); trying legacy SSE");
            self.wake.notify_one();
        }
        error.to_string()
    }

    pub(super) async fn list_tools(
        &self,
        session: &Session,
        timeout: Duration,
    ) -> Result<Vec<Value>, String> {
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        // Bounded: a server that keeps handing out cursors cannot keep the handshake going forever.
        for _ in 0..100 {
            let params = cursor.take().map(|cursor| json!({ "cursor": cursor }));
            let answer = self
                .request_on(session, "tools/list", params, timeout)
                .await
                .map_err(|error| error.to_string())?;
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

    /// Pings on a schedule and when something looks wrong; ends the session when the server is gone or hung.
    pub(super) async fn supervise(&self, session: &Session) {
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
            // 2026-07-28 has no ping; discovery is as cheap and has no effect either.
            let probe = if session.is_stateless() {
                "server/discover"
            } else {
                "ping"
            };
            match self.request_on(session, probe, None, ping_timeout).await {
                Ok(_) => {
                    misses = 0;
                    if !suspected {
                        // A whole interval passed quietly: the stream held, so a later loss is reopened again. A
                        // 2026 session lasts as long as the bridge, and its listen stream must not go unheard for good.
                        stream_reopens = 0;
                    } else if stream_reopens < 3 {
                        // At most three reopens in a row: a server that ends every stream at once is not hammered.
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

    /// Remembers the client's log level, forwards it now when connected, and replays it after each reconnect.
    pub(crate) async fn set_log_level(&self, params: Value) {
        *lock(&self.log_level) = Some(params.clone());
        // The 2026 era has no logging/setLevel (a level travels with each request); nothing to replay there.
        if let Some(session) = self
            .ready_session()
            .filter(|session| !session.is_stateless())
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
/// How long a child process may take to start and answer `initialize` (it may be `npx` fetching a package).
pub(super) const CHILD_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest pause between reconnection attempts.
pub(super) const BACKOFF_CAP: Duration = Duration::from_millis(500);
/// The shortest, even while calls are waiting: a closed port refuses in microseconds, and a loop must not spin. Each
/// read answered from disk while Obsidian is closed waits for one fresh attempt (so an Obsidian that just came back is
/// used instead), so this spacing is what a burst of offline reads pays per call: 50 ms made them 13 times slower
/// than the offline index itself on the 10,000-note benchmark.
pub(super) const MIN_SPACING: Duration = Duration::from_millis(5);
/// Whether a discovery answer is the -32022 refusal of a protocol version that still lists 2026-07-28 as supported.
fn offers_stateless_again(answer: &Value) -> bool {
    answer.pointer("/error/code").and_then(Value::as_i64) == Some(-32022)
        && lists_stateless(&answer["error"]["data"]["supported"])
}

/// Whether a list of protocol versions names 2026-07-28.
fn lists_stateless(versions: &Value) -> bool {
    versions.as_array().is_some_and(|versions| {
        versions
            .iter()
            .any(|version| version == protocol::STATELESS)
    })
}

/// How long discovery waits for a stdio server before taking it for one of the 2025 era (which may drop an unknown
/// request without answering); `initialize` then gets the whole handshake time.
const DISCOVERY_WAIT: Duration = Duration::from_secs(5);

/// Why a connection attempt failed.
pub(super) struct AttemptFailed {
    pub(super) reason: String,
    /// Whether a server took part (answered with an error, without proof, or died after starting). Only an attempt
    /// that reached nobody (a closed port) may be retried as soon as a call asks: anything else waits out the backoff,
    /// so waiting calls cannot drive requests at a failing server.
    pub(super) server_answered: bool,
}

impl AttemptFailed {
    pub(super) fn answered(reason: String) -> Self {
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

/// The message of a JSON-RPC error answer.
pub(super) fn describe_error(answer: &Value, method: &str) -> String {
    let message = answer
        .pointer("/error/message")
        .and_then(Value::as_str)
        .unwrap_or("no result");
    format!("the server refused `{method}`: {message}")
}

pub(super) fn millis(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}

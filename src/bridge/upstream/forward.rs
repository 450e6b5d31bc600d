//! Calls through the supervisor's session: waiting (boundedly) for one that is ready, sending with a fresh id,
//! awaiting the answer in the pending table with the timeout that progress may stretch, and what happens at the
//! edges: a send that never arrived goes to the next session, one of unknown outcome is answered as lost and never
//! replayed, and a call out of time is answered at once and cancelled upstream.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Notify, oneshot};

use super::session::{
    Pending, Session, drop_protocol_meta, with_client_context, without_protocol_meta,
};
use super::wire::SendError;
use super::{CallError, HTTP_HANDSHAKE_TIMEOUT, RequestSlot, Upstream, UpstreamState};
use crate::bridge::jsonrpc;
use crate::lock::lock;

/// How long an outage may last before a call stops waiting for it once a fresh attempt fails: longer than a plugin
/// takes to reload (the port is closed for well under a second), shorter than the default `--connect-wait`.
pub(crate) const OUTAGE_GRACE: Duration = Duration::from_secs(1);

impl Upstream {
    pub(super) fn ready_session(&self) -> Option<Session> {
        lock(&self.current)
            .as_ref()
            .filter(|session| !session.ended.is_cancelled())
            .cloned()
    }

    /// Waits until a session is ready or `deadline` passes. An outage older than [`OUTAGE_GRACE`] ends the wait as
    /// soon as an attempt made after the call arrived fails too (or at once, for a server answering with failures,
    /// which is not asked again before its backoff ends): Obsidian is closed, and the caller is told now instead of
    /// after the whole wait. A younger outage (a plugin reloading, Obsidian restarting) is waited out.
    pub(super) async fn wait_ready(&self, deadline: tokio::time::Instant) -> Option<Session> {
        // An attempt already under way when the call arrived may have begun before Obsidian was back.
        let begun_before = self.attempt_begun.load(Ordering::SeqCst);
        let mut states = self.state.subscribe();
        loop {
            let state = states.borrow_and_update().clone();
            if let Some(session) = self.ready_session() {
                return Some(session);
            }
            let long_away = || {
                self.away.load(Ordering::Relaxed)
                    && lock(&self.away_since).elapsed() >= OUTAGE_GRACE
            };
            match state {
                UpstreamState::Stopped => return None,
                UpstreamState::Down { .. }
                    if long_away()
                        && (self.attempt_failed.load(Ordering::SeqCst) > begun_before
                            || self.server_failing.load(Ordering::Relaxed)) =>
                {
                    return None;
                }
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

    /// Whether a session is up, for a call that the disk can answer. While the upstream is away (an attempt failed
    /// or the session was lost, and none has come up since), the answer is no at once: the disk answers now and a
    /// fresh attempt is asked for beside it, so an Obsidian that came back serves the calls after it connects.
    /// Before the first attempt has ended, that attempt is awaited (bounded by `limit`): at start, a running
    /// Obsidian answers in milliseconds, where the disk would first build its index.
    pub(crate) async fn ready_unless_down(&self, limit: Duration) -> bool {
        if self.away.load(Ordering::Relaxed) && self.ready_session().is_none() {
            // A failing server is not asked again before its backoff ends.
            if !self.server_failing.load(Ordering::Relaxed) {
                self.wake.notify_one();
            }
            return false;
        }
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
        let mut message = jsonrpc::request(0, method, params.map(without_protocol_meta));
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
            lock(&self.pending).insert(
                id,
                Pending {
                    generation: session.generation,
                    reply,
                },
            );
            if session.ended.is_cancelled() {
                // The session ended after `wait_ready` handed it out, and its pending requests may already have been
                // failed: this one, registered too late, would wait out its whole timeout. Not sent yet, so it goes
                // to the next session lock(&instead.self.pending).remove(&id);
                continue;
            }
            *lock(slot) = Some((session.generation, id));
            // The bridge's own 2026 context goes on for a stateless session and off for a 2025 one (a send that never
            // arrived may be retried on a session of the other era), in place: a write's content is not copied.
            if session.is_stateless() {
                let params = message.get_mut("params").map(Value::take);
                message["params"] = with_client_context(params);
            } else if let Some(params) = message.get_mut("params") {
                *params = without_protocol_meta(params.take());
            }
            let sent = match tokio::time::timeout_at(answer_by, session.link.send(&message)).await {
                Ok(sent) => sent,
                Err(_) => return Err(self.give_up(&session, id, timeout)),
            };
            match sent {
                Ok(()) => {}
                Err(SendError::NotDelivered(reason) | SendError::SessionLost(reason)) => {
                    // The server never ran it: safe to send again once the supervisor has a new lock(&session.self.pending).remove(&id);
                    session.end(&reason);
                    continue;
                }
                Err(SendError::Rejected(reason)) => {
                    lock(&self.pending).remove(&id);
                    return Err(CallError::Rejected(reason));
                }
                Err(SendError::Unknown(reason)) => {
                    lock(&self.pending).remove(&id);
                    session.end(&reason);
                    return Err(CallError::Lost(reason));
                }
            }
            let stretch_to = started + connect_wait + timeout * PROGRESS_STRETCH;
            let answer = await_answer(answer, answer_by, progress.as_ref(), timeout, stretch_to);
            return match answer.await {
                Some(Ok(Ok(answer))) if session.is_stateless() => {
                    Ok(without_server_context(answer))
                }
                Some(Ok(Ok(answer))) => Ok(answer),
                Some(Ok(Err(reason))) => Err(CallError::Lost(reason)),
                Some(Err(_)) => Err(CallError::Lost("the session ended".into())),
                None => Err(self.give_up(&session, id, timeout)),
            };
        }
    }

    /// A request out of time: the upstream is told to stop (in the background: a frozen server would hold the
    /// notification as long as it held the request) and the caller gets a timeout at once.
    pub(super) fn give_up(
        self: &Arc<Self>,
        session: &Session,
        id: u64,
        after: Duration,
    ) -> CallError {
        lock(&self.pending).remove(&id);
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
        lock(&self.pending).remove(&id);
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
}
/// How far progress notifications may stretch a call: to this many call timeouts in all. Progress restarts the
/// timeout (a long search that reports progress is working, not hung), but a server that reports progress forever must
/// not hold a call forever either.
pub(super) const PROGRESS_STRETCH: u32 = 10;
/// Registers a call's progress token for as long as the call waits.
pub(super) struct ProgressWatch<'upstream> {
    pub(super) upstream: &'upstream Upstream,
    pub(super) key: String,
    pub(super) ticks: Arc<Notify>,
}

impl<'upstream> ProgressWatch<'upstream> {
    pub(super) fn new(upstream: &'upstream Upstream, token: &Value) -> Self {
        let key = token.to_string();
        let ticks = Arc::new(Notify::new());
        lock(&upstream.progress).insert(key.clone(), Arc::clone(&ticks));
        Self {
            upstream,
            key,
            ticks,
        }
    }
}

impl Drop for ProgressWatch<'_> {
    fn drop(&mut self) {
        lock(&self.upstream.progress).remove(&self.key);
    }
}

/// Waits for an answer until `answer_by`; each progress notification moves that to `timeout` from now, never past
/// `stretch_to`. `None` when the time ran out.
pub(super) async fn await_answer<T>(
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

/// An answer from a 2026-07-28 upstream as a 2025 one would have given it: without `resultType: "complete"`, the
/// cache hints and the server's identity in `_meta` (`io.modelcontextprotocol/…`). The upstream's era stays its own
/// business: the downstream era shapes the result again for its client (`server/era.rs`), and results compare
/// equal whichever era the upstream spoke. Any other `resultType` (a multi-round-trip request) is left as it is.
fn without_server_context(mut answer: Value) -> Value {
    if let Some(Value::Object(result)) = answer.get_mut("result") {
        if result.get("resultType").and_then(Value::as_str) == Some("complete") {
            result.remove("resultType");
            result.remove("ttlMs");
            result.remove("cacheScope");
        }
        drop_protocol_meta(result);
    }
    answer
}

//! The supervisor's contract, one test per promise, on an in-memory link with tokio's clock paused: timeouts and
//! backoffs of seconds take no real time, and elapsed times are exact. The soak (`tests/soak/`) proves the same
//! promises against real processes and sockets under random faults; these pin each one alone, in milliseconds.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::link::Link;
use super::memory::{MemoryLink, Sent};
use super::supervisor::AttemptFailed;
use super::wire::{Events, LinkEvent, SendError};
use super::{CallError, RequestSlot, Upstream};
use crate::bridge::config::UpstreamTarget;
use crate::bridge::diagnostics::Diagnostics;
use crate::lock::lock;

/// What opens each link of a test's supervisor.
pub(super) type Connector = Box<dyn FnMut(Events) -> Result<Link, AttemptFailed> + Send>;

/// A message the test's server did not answer by itself, with its session's way back to the bridge.
struct Incoming {
    message: Value,
    delivery: oneshot::Sender<Result<(), SendError>>,
    events: Events,
}

impl Incoming {
    fn method(&self) -> &str {
        self.message["method"].as_str().unwrap_or_default()
    }

    /// Says the message arrived (the server has it).
    fn arrived(self) -> Events {
        self.delivery.send(Ok(())).unwrap();
        self.events
    }

    /// Says the message arrived and answers it with `result`.
    async fn answer(self, result: Value) {
        let id = self.message["id"].clone();
        let events = self.arrived();
        let answer = json!({ "jsonrpc": "2.0", "id": id, "result": result });
        events.send(LinkEvent::Message(answer)).await.unwrap();
    }
}

/// Answers the handshake, `tools/list` and pings of one session by itself, and hands every other message to the
/// test. A `stateless` server answers `server/discover` for 2026-07-28; the others refuse it as a 2025 server does.
fn serve(
    mut sent: mpsc::UnboundedReceiver<Sent>,
    events: Events,
    test: mpsc::UnboundedSender<Incoming>,
    stateless: bool,
) {
    tokio::spawn(async move {
        while let Some(Sent { message, delivery }) = sent.recv().await {
            let result = match message["method"].as_str().unwrap_or_default() {
                "server/discover" if stateless => json!({
                    "resultType": "complete",
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": { "tools": {} },
                    "ttlMs": 0,
                    "cacheScope": "private",
                    "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "memory-2026", "version": "2" } },
                }),
                "server/discover" => {
                    let _ = delivery.send(Ok(())); // as below
                    let refusal = json!({
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "error": { "code": -32601, "message": "Method not found" },
                    });
                    if events.send(LinkEvent::Message(refusal)).await.is_err() {
                        return;
                    }
                    continue;
                }
                "initialize" => json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": { "tools": {} },
                    "serverInfo": { "name": "memory", "version": "1" },
                }),
                "tools/list" => json!({ "tools": [] }),
                "ping" => json!({}),
                "notifications/initialized" => {
                    let _ = delivery.send(Ok(())); // the bridge may have given up on the session meanwhile
                    continue;
                }
                _ => {
                    let events = events.clone();
                    // A test that has finished no longer listens.
                    let _ = test.send(Incoming {
                        message,
                        delivery,
                        events,
                    });
                    continue;
                }
            };
            let _ = delivery.send(Ok(())); // as above
            let answer = json!({ "jsonrpc": "2.0", "id": message["id"], "result": result });
            if events.send(LinkEvent::Message(answer)).await.is_err() {
                return;
            }
        }
    });
}

/// A running supervisor on in-memory links, and what its server hands the test.
struct Harness {
    upstream: Arc<Upstream>,
    incoming: mpsc::UnboundedReceiver<Incoming>,
    attempts: Arc<AtomicUsize>,
    _log: tempfile::TempDir,
}

impl Harness {
    /// A supervisor whose first attempts fail as `failures` says, and whose later ones connect to [`serve`] as a
    /// 2025-era server.
    fn start(failures: Vec<AttemptFailed>) -> Self {
        Self::start_serving(failures.into_iter().map(Some).collect(), false)
    }

    /// A supervisor whose attempts go as `script` says (`None` connects, `Some` fails), and connect after it.
    fn start_script(script: Vec<Option<AttemptFailed>>) -> Self {
        Self::start_serving(script, false)
    }

    /// The same, connecting to a server that speaks 2026-07-28 when discovered.
    fn start_stateless() -> Self {
        Self::start_serving(Vec::new(), true)
    }

    fn start_serving(script: Vec<Option<AttemptFailed>>, stateless: bool) -> Self {
        let log = tempfile::tempdir().unwrap();
        let diagnostics = Arc::new(Diagnostics::open(Some(log.path().join("log.jsonl"))));
        let (events, mut catalog) = mpsc::channel(16);
        tokio::spawn(async move { while catalog.recv().await.is_some() {} });
        let target = UpstreamTarget::Command {
            program: "memory".into(),
            args: Vec::new(),
        };
        let upstream = Upstream::new(target, events, diagnostics);
        let (test, incoming) = mpsc::unbounded_channel();
        let attempts = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&attempts);
        let script = Mutex::new(VecDeque::from(script));
        let connector: Connector = Box::new(move |events| {
            counted.fetch_add(1, Ordering::SeqCst);
            if let Some(Some(failed)) = lock(&script).pop_front() {
                return Err(failed);
            }
            let (sent, received) = mpsc::unbounded_channel();
            serve(received, events, test.clone(), stateless);
            Ok(Link::Memory(MemoryLink { sent }))
        });
        *lock(&upstream.connector) = Some(connector);
        tokio::spawn(Arc::clone(&upstream).run());
        Self {
            upstream,
            incoming,
            attempts,
            _log: log,
        }
    }

    /// The next message the server did not answer by itself.
    async fn next(&mut self) -> Incoming {
        tokio::time::timeout(Duration::from_secs(600), self.incoming.recv())
            .await
            .expect("the server got a message within 10 minutes")
            .expect("the server is running")
    }

    /// A `tools/call` forwarded in the background, as a client's call is.
    fn call(
        &self,
        params: Value,
        connect_wait: Duration,
        timeout: Duration,
    ) -> tokio::task::JoinHandle<Result<Value, CallError>> {
        let upstream = Arc::clone(&self.upstream);
        tokio::spawn(async move {
            let slot = RequestSlot::default();
            upstream
                .forward("tools/call", Some(params), connect_wait, timeout, &slot)
                .await
        })
    }

    fn attempts(&self) -> usize {
        self.attempts.load(Ordering::SeqCst)
    }
}

fn read_call() -> Value {
    json!({ "name": "read_note", "arguments": { "path": "Home" } })
}

fn secs(seconds: f64) -> Duration {
    Duration::from_secs_f64(seconds)
}

#[tokio::test(start_paused = true)]
async fn a_call_whose_session_is_lost_is_answered_at_once() {
    let mut harness = Harness::start(Vec::new());
    let started = Instant::now();
    let call = harness.call(read_call(), secs(3.0), secs(60.0));
    let incoming = harness.next().await;
    assert_eq!(incoming.method(), "tools/call");
    let events = incoming.arrived();
    events
        .send(LinkEvent::Closed("the server went away".into()))
        .await
        .unwrap();
    let outcome = call.await.unwrap();
    assert!(
        matches!(&outcome, Err(CallError::Lost(reason)) if reason == "the server went away"),
        "{outcome:?}"
    );
    assert!(
        started.elapsed() < secs(0.1),
        "answered after {:?}, not at once",
        started.elapsed()
    );
}

#[tokio::test(start_paused = true)]
async fn a_call_of_unknown_outcome_is_answered_as_lost_and_never_sent_again() {
    let mut harness = Harness::start(Vec::new());
    let call = harness.call(read_call(), secs(3.0), secs(60.0));
    let incoming = harness.next().await;
    incoming
        .delivery
        .send(Err(SendError::Unknown(
            "the connection broke after sending".into(),
        )))
        .unwrap();
    let outcome = call.await.unwrap();
    assert!(matches!(outcome, Err(CallError::Lost(_))), "{outcome:?}");
    // The session it went out on is ended and a new one comes up; the call is not on it.
    let replayed = tokio::time::timeout(secs(30.0), harness.incoming.recv()).await;
    assert!(
        replayed.is_err(),
        "a call that may have run was sent again: {:?}",
        replayed.map(|incoming| incoming.map(|incoming| incoming.message))
    );
    assert_eq!(harness.attempts(), 2, "the broken session was replaced");
}

#[tokio::test(start_paused = true)]
async fn a_call_that_never_arrived_is_sent_on_the_next_session() {
    let mut harness = Harness::start(Vec::new());
    let call = harness.call(read_call(), secs(3.0), secs(60.0));
    let first = harness.next().await;
    first
        .delivery
        .send(Err(SendError::NotDelivered("connection refused".into())))
        .unwrap();
    let again = harness.next().await;
    assert_eq!(again.message["params"], read_call());
    assert_eq!(harness.attempts(), 2, "sent again on a new session");
    again.answer(json!({ "content": [] })).await;
    let outcome = call.await.unwrap();
    assert_eq!(outcome.unwrap()["result"], json!({ "content": [] }));
}

#[tokio::test(start_paused = true)]
async fn a_call_out_of_time_is_answered_at_once_and_cancelled_upstream() {
    let mut harness = Harness::start(Vec::new());
    let started = Instant::now();
    let call = harness.call(read_call(), secs(3.0), secs(2.0));
    let incoming = harness.next().await;
    let id = incoming.message["id"].clone();
    let _events = incoming.arrived();
    let outcome = call.await.unwrap();
    assert!(
        matches!(outcome, Err(CallError::Timeout(after)) if after == secs(2.0)),
        "{outcome:?}"
    );
    assert!(
        started.elapsed() >= secs(2.0) && started.elapsed() < secs(2.1),
        "{:?}",
        started.elapsed()
    );
    let cancel = harness.next().await;
    assert_eq!(cancel.method(), "notifications/cancelled");
    assert_eq!(cancel.message["params"]["requestId"], id);
}

/// A server that reports progress on `token` every 1.5 s, `ticks` times (forever when `None`), then answers.
fn report_progress(incoming: Incoming, token: &'static str, ticks: Option<u32>) {
    tokio::spawn(async move {
        let id = incoming.message["id"].clone();
        let events = incoming.arrived();
        let mut sent = 0;
        while ticks.is_none_or(|ticks| sent < ticks) {
            tokio::time::sleep(secs(1.5)).await;
            sent += 1;
            let progress = json!({
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": { "progressToken": token, "progress": sent },
            });
            if events.send(LinkEvent::Message(progress)).await.is_err() {
                return;
            }
        }
        let answer = json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [] } });
        let _ = events.send(LinkEvent::Message(answer)).await; // the call may be gone
    });
}

#[tokio::test(start_paused = true)]
async fn progress_extends_the_timeout_of_a_call() {
    let mut harness = Harness::start(Vec::new());
    let started = Instant::now();
    let params = json!({ "name": "search", "arguments": {}, "_meta": { "progressToken": "p1" } });
    let call = harness.call(params, secs(3.0), secs(2.0));
    report_progress(harness.next().await, "p1", Some(4));
    let outcome = call.await.unwrap();
    assert!(outcome.is_ok(), "{outcome:?}");
    assert!(
        started.elapsed() >= secs(6.0),
        "answered after {:?}, three timeouts in",
        started.elapsed()
    );
}

#[tokio::test(start_paused = true)]
async fn progress_never_holds_a_call_past_ten_timeouts() {
    let mut harness = Harness::start(Vec::new());
    let started = Instant::now();
    let params = json!({ "name": "search", "arguments": {}, "_meta": { "progressToken": "p2" } });
    let call = harness.call(params, secs(3.0), secs(2.0));
    report_progress(harness.next().await, "p2", None);
    let outcome = call.await.unwrap();
    assert!(matches!(outcome, Err(CallError::Timeout(_))), "{outcome:?}");
    // At most the connect wait plus ten timeouts; the last stretch starts within 1.5 s of that bound.
    let elapsed = started.elapsed();
    assert!(
        elapsed <= secs(23.0) && elapsed >= secs(21.0),
        "{elapsed:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_waiting_call_cuts_the_backoff_short() {
    let mut harness = Harness::start(refused(5));
    let started = Instant::now();
    let call = harness.call(read_call(), secs(3.0), secs(60.0));
    harness.next().await.answer(json!({ "content": [] })).await;
    assert!(call.await.unwrap().is_ok());
    assert_eq!(harness.attempts(), 6);
    // Left alone, five failures wait 100 + 200 + 400 + 500 + 500 ms; a waiting call spaces attempts 5 ms apart.
    assert!(
        started.elapsed() < secs(0.1),
        "connected after {:?}",
        started.elapsed()
    );
}

fn refused(count: usize) -> Vec<AttemptFailed> {
    (0..count)
        .map(|_| AttemptFailed::from("connection refused".to_string()))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_call_while_obsidian_has_long_been_closed_is_answered_after_one_fresh_attempt() {
    let harness = Harness::start(refused(1_000));
    // Obsidian closed for a while: the supervisor backs off to one attempt every 500 ms.
    tokio::time::sleep(secs(5.0)).await;
    let before = harness.attempts();
    let started = Instant::now();
    let outcome = harness
        .call(read_call(), secs(3.0), secs(60.0))
        .await
        .unwrap();
    assert!(
        matches!(&outcome, Err(CallError::Unreachable(reason)) if reason == "connection refused"),
        "{outcome:?}"
    );
    assert!(
        started.elapsed() < secs(0.1),
        "answered after {:?}, not once a fresh attempt was refused",
        started.elapsed()
    );
    assert!(
        harness.attempts() > before,
        "the call asked for an attempt of its own"
    );
}

#[tokio::test(start_paused = true)]
async fn a_call_during_a_brief_outage_waits_for_the_reconnect() {
    // Up, then the session is lost (a plugin reloading) and the port refuses three times before it listens again.
    let mut script = vec![None];
    script.extend(refused(3).into_iter().map(Some));
    let mut harness = Harness::start_script(script);
    let first = harness.call(read_call(), secs(3.0), secs(60.0));
    let incoming = harness.next().await;
    let id = incoming.message["id"].clone();
    let events = incoming.arrived();
    let answer = json!({ "jsonrpc": "2.0", "id": id, "result": { "content": [] } });
    events.send(LinkEvent::Message(answer)).await.unwrap();
    assert!(first.await.unwrap().is_ok());
    events
        .send(LinkEvent::Closed("the plugin is reloading".into()))
        .await
        .unwrap();
    tokio::time::sleep(secs(0.001)).await;
    let started = Instant::now();
    let call = harness.call(read_call(), secs(3.0), secs(60.0));
    harness.next().await.answer(json!({ "content": [] })).await;
    assert!(call.await.unwrap().is_ok(), "a reload was waited out");
    assert!(started.elapsed() < secs(1.0), "{:?}", started.elapsed());
    assert_eq!(harness.attempts(), 5);
}

#[tokio::test(start_paused = true)]
async fn status_facts_carry_no_error_while_connected_and_keep_the_last_outages_apart() {
    let mut harness = Harness::start(refused(2));
    let call = harness.call(read_call(), secs(3.0), secs(60.0));
    harness.next().await.answer(json!({ "content": [] })).await;
    assert!(call.await.unwrap().is_ok());
    let facts = harness.upstream.facts();
    assert_eq!(facts.last_error, None, "connected: nothing is failing");
    assert_eq!(
        facts.previous_error.map(|(message, _)| message).as_deref(),
        Some("connection refused")
    );
}

#[tokio::test(start_paused = true)]
async fn a_failing_server_gets_the_whole_backoff_however_many_calls_wait() {
    let failing = (0..100)
        .map(|_| AttemptFailed::answered("the server answered 500".to_string()))
        .collect();
    let harness = Harness::start(failing);
    let calls: Vec<_> = (0..8)
        .map(|_| harness.call(read_call(), secs(1.0), secs(60.0)))
        .collect();
    for call in calls {
        let outcome = call.await.unwrap();
        assert!(
            matches!(&outcome, Err(CallError::Unreachable(reason)) if reason == "the server answered 500"),
            "{outcome:?}"
        );
    }
    // Attempts at 0, 0.1, 0.3 and 0.7 s (backoff 100, 200, 400 ms): eight waiting calls asked for none of their own.
    assert_eq!(harness.attempts(), 4);
}

#[tokio::test(start_paused = true)]
async fn a_2026_clients_context_is_not_sent_to_the_upstream_but_its_progress_token_is() {
    let mut harness = Harness::start(Vec::new());
    let params = json!({
        "name": "read_note",
        "arguments": { "path": "Home" },
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "progressToken": "p3",
        },
    });
    let call = harness.call(params, secs(3.0), secs(60.0));
    let incoming = harness.next().await;
    assert_eq!(
        incoming.message["params"]["_meta"],
        json!({ "progressToken": "p3" })
    );
    assert_eq!(
        incoming.message["params"]["arguments"],
        json!({ "path": "Home" })
    );
    incoming.answer(json!({ "content": [] })).await;
    assert!(call.await.unwrap().is_ok());
}

#[tokio::test(start_paused = true)]
async fn a_server_that_discovers_as_2026_gets_no_initialize_and_every_request_carries_the_context()
{
    let mut harness = Harness::start_stateless();
    let call = harness.call(read_call(), secs(3.0), secs(60.0));
    let incoming = harness.next().await;
    assert_eq!(incoming.method(), "tools/call");
    let meta = &incoming.message["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object());
    assert_eq!(
        meta["io.modelcontextprotocol/clientInfo"]["name"],
        "obsmcp-bridge"
    );
    incoming
        .answer(json!({
            "resultType": "complete",
            "content": [],
            "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "memory-2026" }, "vendor/mark": 1 },
        }))
        .await;
    // The upstream's era marks stay upstream: the result reads as a 2025 one, and other `_meta` keys go on.
    let answer = call.await.unwrap().unwrap();
    assert_eq!(
        answer["result"],
        json!({ "content": [], "_meta": { "vendor/mark": 1 } })
    );
    let facts = harness.upstream.facts();
    assert_eq!(facts.protocol_version.as_deref(), Some("2026-07-28"));
    assert_eq!(facts.server_name.as_deref(), Some("memory-2026"));
    // Liveness: the 2026 era has no ping, so the watch asks server/discover (answered by the server itself).
    tokio::time::sleep(secs(10.0)).await;
    assert_eq!(harness.attempts(), 1, "the session stayed up");
}

#[tokio::test(start_paused = true)]
async fn a_server_that_refuses_discovery_is_opened_with_initialize() {
    let mut harness = Harness::start(Vec::new());
    let call = harness.call(read_call(), secs(3.0), secs(60.0));
    let incoming = harness.next().await;
    assert!(
        incoming.message["params"].get("_meta").is_none(),
        "{}",
        incoming.message
    );
    incoming.answer(json!({ "content": [] })).await;
    assert!(call.await.unwrap().is_ok());
    assert_eq!(
        harness.upstream.facts().protocol_version.as_deref(),
        Some("2025-06-18")
    );
}

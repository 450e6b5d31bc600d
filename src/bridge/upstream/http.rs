//! Streamable HTTP upstream: every message is a POST; a request's answer comes back as one JSON body or on an SSE
//! stream in the response; the session id from `initialize` goes on every later POST. A GET event stream, when the
//! server offers one, carries server notifications and doubles as a liveness signal: when it ends, the supervisor
//! pings at once instead of waiting for the next tick.
//!
//! Every failure is classified by what it says about delivery, because that decides whether a call may be retried:
//! a refused connection or a stale session (404, or 400 naming the session) means the server never ran the message;
//! a connection that broke after sending means nobody knows.
//!
//! A server may close an answer stream before the answer (2025-03-26 and later). When it gave the stream event ids,
//! the stream is asked for again from where it stopped: a GET with `Last-Event-ID`, no sooner than the `retry:` delay
//! it named, at most three times; the answer then comes on the new stream. The GET event stream is reopened the same
//! way when the server made it resumable.
//!
//! A server that discovery found speaking 2026-07-28 is spoken to statelessly: no session id, no GET stream, and the
//! method (and the tool, prompt or resource it names) repeated in the `Mcp-Method` / `Mcp-Name` headers. Such a server
//! refuses a request it will not serve with a 4xx status whose body is the JSON-RPC error: that error is the answer.
//!
//! A 2026-07-28 session hears the server between requests on a `subscriptions/listen` stream of its own (the lists'
//! changes and the resources the bridge's clients subscribed to, `subscriptions.rs`), opened again when it ends.
//!
//! A POST's life (send, classify the status, read the answer) is here; reading and resuming its event stream is
//! `http/stream.rs`'s.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Response, StatusCode};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use url::Url;

use super::{Events, LinkEvent, SendError, describe_reqwest_error};
use crate::bridge::protocol;
use crate::lock::lock;
use crate::plugin_auth::{Challenge, PluginKey};

mod stream;
use stream::{into_messages, read_stream};

const SESSION_HEADER: &str = "mcp-session-id";
const PROTOCOL_HEADER: &str = "mcp-protocol-version";
const LAST_EVENT_ID_HEADER: &str = "last-event-id";
/// 2026-07-28 requests name their method, and the tool, prompt or resource they are about, in headers too.
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";

/// How often one closed stream is asked for again before its request counts as unanswered.
const MAX_RESUMES: u32 = 3;
/// The wait before asking for a closed stream again when the server named no `retry:`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// What every request of the session needs; the stream readers hold it too, to resume a stream.
struct Shared {
    client: reqwest::Client,
    url: Url,
    headers: HeaderMap,
    /// Set for a vault's plugin: every request is signed and every answer must prove it is the plugin's.
    key: Option<PluginKey>,
    session: Mutex<Option<HeaderValue>>,
    protocol: Mutex<Option<HeaderValue>>,
}

impl Shared {
    fn session(&self) -> Option<HeaderValue> {
        lock(&self.session).clone()
    }

    /// A request with this link's headers, signed when the link has a key, and the proof its answer must carry.
    fn request(&self, method: reqwest::Method) -> (reqwest::RequestBuilder, Option<Challenge>) {
        let request = self
            .client
            .request(method, self.url.clone())
            .headers(self.headers.clone());
        match &self.key {
            Some(key) => {
                let (signed, challenge) = key.sign();
                (request.headers(signed), Some(challenge))
            }
            None => (request, None),
        }
    }

    /// The session's GET event stream, from `last_event_id` when given; `None` when the server offers none (405),
    /// answers without the plugin's proof, or cannot be reached.
    async fn event_stream(&self, last_event_id: Option<&str>) -> Option<Response> {
        let session = self.session()?;
        let (request, challenge) = self.request(reqwest::Method::GET);
        let mut request = request
            .header(ACCEPT, "text/event-stream")
            .header(SESSION_HEADER, session);
        if let Some(protocol) = lock(&self.protocol).clone() {
            request = request.header(PROTOCOL_HEADER, protocol);
        }
        if let Some(id) = last_event_id {
            request = request.header(LAST_EVENT_ID_HEADER, id);
        }
        match request.send().await {
            Ok(response)
                if challenge
                    .as_ref()
                    .is_some_and(|challenge| !challenge.is_met_by(response.headers())) =>
            {
                tracing::warn!("GET event stream not opened: the answer is not the plugin's");
                None
            }
            Ok(response) if response.status().is_success() => Some(response),
            Ok(response) => {
                tracing::debug!("no GET event stream (HTTP {})", response.status().as_u16());
                None
            }
            Err(error) => {
                tracing::debug!(
                    "GET event stream failed: {}",
                    describe_reqwest_error(&error)
                );
                None
            }
        }
    }
}

/// One Streamable HTTP session.
pub(crate) struct HttpLink {
    shared: Arc<Shared>,
    events: Events,
    stop: CancellationToken,
    /// Set while the session speaks 2026-07-28: no session id, the method and name headers on every request, no GET
    /// stream.
    stateless: AtomicBool,
    /// Whether any request reached a server (an answer of any status, from anyone, or a connection it then dropped):
    /// not a closed port.
    answered: AtomicBool,
    /// A 2026-07-28 session's `subscriptions/listen` stream: the URIs it asks for, and what stops the open one.
    listen: Mutex<Listen>,
}

#[derive(Default)]
struct Listen {
    uris: Vec<String>,
    stop: Option<CancellationToken>,
    opened: u64,
}

impl HttpLink {
    /// A link that has sent nothing yet; the first message must be `initialize`. With `key`, requests are signed
    /// with it and answers that do not prove they come from that plugin are never read.
    pub(crate) fn new(
        url: Url,
        headers: HeaderMap,
        key: Option<PluginKey>,
        events: Events,
    ) -> Result<Self, String> {
        Ok(Self {
            shared: Arc::new(Shared {
                client: http_client()?,
                url,
                headers,
                key,
                session: Mutex::new(None),
                protocol: Mutex::new(None),
            }),
            events,
            stop: CancellationToken::new(),
            stateless: AtomicBool::new(false),
            answered: AtomicBool::new(false),
            listen: Mutex::default(),
        })
    }

    /// Whether something answered on the port, even with an error or without proof: retrying it at once would hammer
    /// a live server, unlike a closed port.
    pub(crate) fn was_answered(&self) -> bool {
        self.answered.load(Ordering::Relaxed)
    }

    /// Speaks 2026-07-28 from now on (discovery is sent this way), or the 2025 era again (`false`: discovery found a
    /// server of that era).
    pub(crate) fn set_stateless(&self, stateless: bool) {
        self.stateless.store(stateless, Ordering::Relaxed);
        let version = stateless.then(|| HeaderValue::from_static(protocol::STATELESS));
        *lock(&self.shared.protocol) = version;
    }

    /// Sends the negotiated protocol version on every later request, as the spec asks.
    pub(crate) fn set_protocol_version(&self, version: &str) {
        *lock(&self.shared.protocol) = HeaderValue::from_str(version).ok();
    }

    /// Posts one message; a request's answer arrives later as a [`LinkEvent::Message`].
    pub(crate) async fn send(&self, message: &Value) -> Result<(), SendError> {
        let body =
            serde_json::to_vec(message).map_err(|error| SendError::Rejected(error.to_string()))?;
        let request_id = message
            .get("id")
            .and_then(Value::as_u64)
            .filter(|_| message.get("method").is_some());
        let stateless = self.stateless.load(Ordering::Relaxed);
        let session = self.shared.session().filter(|_| !stateless);
        let (request, challenge) = self.post(message, body, stateless, session.as_ref());
        let response = request.send().await.map_err(|error| {
            if error.is_connect() {
                SendError::NotDelivered(describe_reqwest_error(&error))
            } else {
                // Connected, then dropped or silent: a server is there.
                self.answered.store(true, Ordering::Relaxed);
                SendError::Unknown(describe_reqwest_error(&error))
            }
        })?;
        self.answered.store(true, Ordering::Relaxed);
        if let Some(challenge) = challenge
            && !challenge.is_met_by(response.headers())
        {
            // Whoever answered is not the plugin, so the plugin never saw the message: it may go again once the
            // real plugin is back. Nothing of the answer is read.
            return Err(SendError::NotDelivered(challenge.impostor_message()));
        }
        let status = response.status();
        if session.is_none()
            && let Some(given) = response.headers().get(SESSION_HEADER)
        {
            *lock(&self.shared.session) = Some(given.clone());
        }
        if !status.is_success() {
            let text = response.text().await.unwrap_or_default();
            // A 2026-07-28 server answers a request it refuses (an unknown version, a bad envelope, a method it does
            // not have) with a 4xx status and the JSON-RPC error: that error is the answer, for the caller to read.
            if stateless
                && !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
                && let Some(request_id) = request_id
                && let Some(answer) = error_answer(&text, request_id)
            {
                // A closed receiver means the session is over; the caller learns that from the pending table.
                let _ = self.events.send(LinkEvent::Message(answer)).await;
                return Ok(());
            }
            return Err(refusal(status, &text, session.is_some()));
        }
        let Some(request_id) = request_id else {
            return Ok(());
        };
        if status == StatusCode::ACCEPTED {
            return Ok(());
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        if content_type.starts_with("text/event-stream") {
            tokio::spawn(read_stream(
                response,
                Some(request_id),
                // 2026-07-28 streams cannot be resumed: one that ends early loses its answer, and the call is lost.
                !stateless,
                self.events.clone(),
                self.stop.clone(),
                Arc::clone(&self.shared),
            ));
            return Ok(());
        }
        self.deliver_json_answer(response, request_id).await
    }

    /// The POST of one message, with the session, the negotiated protocol version and (2026-07-28) the headers that
    /// repeat its body; and the proof the answer must carry.
    fn post(
        &self,
        message: &Value,
        body: Vec<u8>,
        stateless: bool,
        session: Option<&HeaderValue>,
    ) -> (reqwest::RequestBuilder, Option<Challenge>) {
        let (request, challenge) = self.shared.request(reqwest::Method::POST);
        let mut request = request
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(body);
        if stateless {
            for (name, value) in stateless_headers(message) {
                request = request.header(name, value);
            }
        }
        if let Some(session) = session {
            request = request.header(SESSION_HEADER, session.clone());
        }
        if let Some(protocol) = lock(&self.shared.protocol).clone() {
            request = request.header(PROTOCOL_HEADER, protocol);
        }
        (request, challenge)
    }

    /// Hands on the messages of a JSON answer to request `request_id`; an answer without it orphans the request.
    async fn deliver_json_answer(
        &self,
        response: Response,
        request_id: u64,
    ) -> Result<(), SendError> {
        let bytes = response
            .bytes()
            .await
            .map_err(|error| SendError::Unknown(describe_reqwest_error(&error)))?;
        let value: Value = serde_json::from_slice(&bytes).map_err(|error| {
            SendError::Unknown(format!("the server's answer is not JSON: {error}"))
        })?;
        let mut answered = false;
        for message in into_messages(value) {
            answered |= message.get("id").and_then(Value::as_u64) == Some(request_id);
            // A closed receiver means the session is over; the caller learns that from the pending table.
            let _ = self.events.send(LinkEvent::Message(message)).await;
        }
        if !answered {
            // Same as above: with the session over, the pending table already answered the caller.
            let _ = self.events.send(LinkEvent::Orphaned(request_id)).await;
        }
        Ok(())
    }

    /// The resource URIs the next listen stream of a 2026-07-28 session asks for.
    pub(crate) fn set_listen_uris(&self, uris: Vec<String>) {
        lock(&self.listen).uris = uris;
    }

    /// Opens the server's stream of notifications: a 2025 session's GET event stream, when the server offers one (405
    /// means it does not, which is fine); a 2026-07-28 session's `subscriptions/listen` request, in place of any
    /// listen stream opened before. Either one ending makes the supervisor check the server and open it again.
    pub(crate) async fn open_event_stream(&self) {
        if self.stateless.load(Ordering::Relaxed) {
            self.open_listen().await;
            return;
        }
        if let Some(response) = self.shared.event_stream(None).await {
            tokio::spawn(read_stream(
                response,
                None,
                true,
                self.events.clone(),
                self.stop.clone(),
                Arc::clone(&self.shared),
            ));
        }
    }

    async fn open_listen(&self) {
        let stop = self.stop.child_token();
        let (uris, id) = {
            let mut listen = lock(&self.listen);
            if let Some(previous) = listen.stop.replace(stop.clone()) {
                previous.cancel();
            }
            listen.opened += 1;
            (
                listen.uris.clone(),
                format!("obsmcp-listen-{}", listen.opened),
            )
        };
        let mut notifications = json!({ "toolsListChanged": true, "resourcesListChanged": true, "promptsListChanged": true });
        if !uris.is_empty() {
            notifications["resourceSubscriptions"] = json!(uris);
        }
        let message = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "subscriptions/listen",
            "params": super::wire::with_client_context(Some(json!({ "notifications": notifications }))),
        });
        let (request, challenge) = self.shared.request(reqwest::Method::POST);
        let mut request = request
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(message.to_string());
        for (name, value) in stateless_headers(&message) {
            request = request.header(name, value);
        }
        if let Some(protocol) = lock(&self.shared.protocol).clone() {
            request = request.header(PROTOCOL_HEADER, protocol);
        }
        let response = tokio::select! {
            () = stop.cancelled() => return,
            response = request.send() => response,
        };
        match response {
            Ok(response)
                if challenge
                    .as_ref()
                    .is_some_and(|challenge| !challenge.is_met_by(response.headers())) =>
            {
                tracing::warn!("listen stream not opened: the answer is not the plugin's");
            }
            Ok(response) if response.status().is_success() => {
                tokio::spawn(read_stream(
                    response,
                    None,
                    false,
                    self.events.clone(),
                    stop,
                    Arc::clone(&self.shared),
                ));
            }
            Ok(response) => {
                tracing::debug!("no listen stream (HTTP {})", response.status().as_u16())
            }
            Err(error) => {
                // Not reached (a plugin in the middle of a reload): the supervisor checks the server and opens it
                // again.
                tracing::debug!("listen stream failed: {}", describe_reqwest_error(&error));
                // A closed receiver means the session already ended, and needs no word of it.
                let _ = self.events.send(LinkEvent::Suspect).await;
            }
        }
    }

    /// Ends the session politely (DELETE, bounded) and stops its stream readers.
    pub(crate) async fn close(&self) {
        self.stop.cancel();
        let Some(session) = self.shared.session() else {
            return;
        };
        let (request, _) = self.shared.request(reqwest::Method::DELETE);
        let request = request.header(SESSION_HEADER, session);
        // A server that is gone cannot be told; the session dies with it.
        let _ = tokio::time::timeout(std::time::Duration::from_millis(300), request.send()).await;
    }
}

/// The JSON-RPC error answer to request `id` in a refusal's body, if that is what it holds.
fn error_answer(body: &str, id: u64) -> Option<Value> {
    let answer: Value = serde_json::from_str(body).ok()?;
    (answer.get("id").and_then(Value::as_u64) == Some(id)
        && answer.get("error").is_some_and(Value::is_object))
    .then_some(answer)
}

/// What an HTTP error status on a POST means: the session is gone (404, or a 400 naming the session, while one was
/// in use), the credentials were refused, or the server refused the message; `text` is the body, of which 300
/// characters are kept.
fn refusal(status: StatusCode, text: &str, had_session: bool) -> SendError {
    let text: String = text.chars().take(300).collect();
    let stale = had_session
        && (status == StatusCode::NOT_FOUND
            || (status == StatusCode::BAD_REQUEST && text.to_lowercase().contains("session")));
    if stale {
        SendError::SessionLost(format!(
            "the server no longer knows this session (HTTP {})",
            status.as_u16()
        ))
    } else if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
        SendError::Rejected(format!(
            "the server refused the credentials (HTTP {}): check the token",
            status.as_u16()
        ))
    } else {
        SendError::Rejected(format!(
            "the server answered HTTP {}: {}",
            status.as_u16(),
            text.trim()
        ))
    }
}

/// The headers a 2026-07-28 request repeats from its body: the method, and for a call, prompt or read what it names
/// (as is when it is visible ASCII, else in the spec's `=?base64?…?=` form).
fn stateless_headers(message: &Value) -> Vec<(&'static str, HeaderValue)> {
    let mut headers = Vec::new();
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return headers;
    };
    if let Ok(value) = HeaderValue::from_str(method) {
        headers.push((METHOD_HEADER, value));
    }
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return headers,
    };
    if let Some(name) = message
        .pointer(&format!("/params/{key}"))
        .and_then(Value::as_str)
    {
        let plain = name.bytes().all(|byte| (0x20..0x7f).contains(&byte));
        let text = if plain {
            name.to_string()
        } else {
            use base64::Engine as _;
            format!(
                "=?base64?{}?=",
                base64::engine::general_purpose::STANDARD.encode(name)
            )
        };
        if let Ok(value) = HeaderValue::from_str(&text) {
            headers.push((NAME_HEADER, value));
        }
    }
    headers
}

/// The HTTP client for one session.
pub(crate) fn http_client() -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        // A user's HTTP_PROXY must never capture loopback traffic to Obsidian.
        .no_proxy()
        // No idle connection is reused: a request written into a pooled connection whose server just died fails as
        // "connection closed before message completed", which cannot be told apart from a server dying mid-call, so
        // the call would be reported lost instead of resent. A fresh loopback connection per message costs about
        // 0.1 ms and makes "refused" mean "never delivered".
        .pool_max_idle_per_host(0)
        .connect_timeout(std::time::Duration::from_secs(3))
        .tcp_nodelay(true)
        .build()
        .map_err(|error| format!("could not build an HTTP client: {error}"))
}

#[cfg(test)]
mod tests;

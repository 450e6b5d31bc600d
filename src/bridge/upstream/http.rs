//! Streamable HTTP upstream: every message is a POST; a request's answer comes back as one JSON body or on an SSE
//! stream in the response; the session id from `initialize` goes on every later POST. A GET event stream, when the
//! server offers one, carries server notifications and doubles as a liveness signal: when it ends, the supervisor
//! pings at once instead of waiting for the next tick.
//!
//! Every failure is classified by what it says about delivery, because that decides whether a call may be retried:
//! a refused connection or a stale session (404, or 400 naming the session) means the server never ran the message;
//! a connection that broke after sending means nobody knows.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Response, StatusCode};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use url::Url;

use super::event_stream::Decoder;
use super::{Events, LinkEvent, SendError, describe_reqwest_error};
use crate::plugin_auth::{Challenge, PluginKey};
use crate::sync::lock;

const SESSION_HEADER: &str = "mcp-session-id";
const PROTOCOL_HEADER: &str = "mcp-protocol-version";

/// One Streamable HTTP session.
pub(crate) struct HttpLink {
    client: reqwest::Client,
    url: Url,
    headers: HeaderMap,
    /// Set for a vault's plugin: every request is signed and every answer must prove it is the plugin's.
    key: Option<PluginKey>,
    session: Mutex<Option<HeaderValue>>,
    protocol: Mutex<Option<HeaderValue>>,
    events: Events,
    stop: CancellationToken,
    /// Whether any request reached a server (an answer of any status, from anyone, or a connection it then dropped):
    /// not a closed port.
    answered: AtomicBool,
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
            client: http_client()?,
            url,
            headers,
            key,
            session: Mutex::new(None),
            protocol: Mutex::new(None),
            events,
            stop: CancellationToken::new(),
            answered: AtomicBool::new(false),
        })
    }

    /// Whether something answered on the port, even with an error or without proof: retrying it at once would hammer
    /// a live server, unlike a closed port.
    pub(crate) fn was_answered(&self) -> bool {
        self.answered.load(Ordering::Relaxed)
    }

    /// Sends the negotiated protocol version on every later request, as the spec asks.
    pub(crate) fn set_protocol_version(&self, version: &str) {
        *lock(&self.protocol) = HeaderValue::from_str(version).ok();
    }

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

    /// Posts one message; a request's answer arrives later as a [`LinkEvent::Message`].
    pub(crate) async fn send(&self, message: &Value) -> Result<(), SendError> {
        let body =
            serde_json::to_vec(message).map_err(|error| SendError::Rejected(error.to_string()))?;
        let request_id = message
            .get("id")
            .and_then(Value::as_u64)
            .filter(|_| message.get("method").is_some());
        let session = self.session();
        let (request, challenge) = self.request(reqwest::Method::POST);
        let mut request = request
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(body);
        if let Some(session) = &session {
            request = request.header(SESSION_HEADER, session.clone());
        }
        if let Some(protocol) = lock(&self.protocol).clone() {
            request = request.header(PROTOCOL_HEADER, protocol);
        }
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
            *lock(&self.session) = Some(given.clone());
        }
        if !status.is_success() {
            let text = response.text().await.unwrap_or_default();
            let text: String = text.chars().take(300).collect();
            let stale = session.is_some()
                && (status == StatusCode::NOT_FOUND
                    || (status == StatusCode::BAD_REQUEST
                        && text.to_lowercase().contains("session")));
            return Err(if stale {
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
            });
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
                self.events.clone(),
                self.stop.clone(),
            ));
            return Ok(());
        }
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

    /// Opens the server's GET event stream, when it offers one (405 means it does not, which is fine).
    pub(crate) async fn open_event_stream(&self) {
        let Some(session) = self.session() else {
            return;
        };
        let (request, challenge) = self.request(reqwest::Method::GET);
        let mut request = request
            .header(ACCEPT, "text/event-stream")
            .header(SESSION_HEADER, session);
        if let Some(protocol) = lock(&self.protocol).clone() {
            request = request.header(PROTOCOL_HEADER, protocol);
        }
        match request.send().await {
            Ok(response)
                if challenge
                    .as_ref()
                    .is_some_and(|challenge| !challenge.is_met_by(response.headers())) =>
            {
                tracing::warn!("GET event stream not opened: the answer is not the plugin's");
            }
            Ok(response) if response.status().is_success() => {
                tokio::spawn(read_stream(
                    response,
                    None,
                    self.events.clone(),
                    self.stop.clone(),
                ));
            }
            Ok(response) => {
                tracing::debug!("no GET event stream (HTTP {})", response.status().as_u16())
            }
            Err(error) => tracing::debug!(
                "GET event stream failed: {}",
                describe_reqwest_error(&error)
            ),
        }
    }

    /// Ends the session politely (DELETE, bounded) and stops its stream readers.
    pub(crate) async fn close(&self) {
        self.stop.cancel();
        let Some(session) = self.session() else {
            return;
        };
        let (request, _) = self.request(reqwest::Method::DELETE);
        let request = request.header(SESSION_HEADER, session);
        // A server that is gone cannot be told; the session dies with it.
        let _ = tokio::time::timeout(std::time::Duration::from_millis(300), request.send()).await;
    }
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

/// A JSON body holds one message or (2025-03-26) a batch.
fn into_messages(value: Value) -> Vec<Value> {
    match value {
        Value::Array(messages) => messages,
        message => vec![message],
    }
}

/// Reads an SSE response, passing each message on. `request_id` is the request whose answer this stream carries
/// (none for the GET stream).
pub(crate) async fn read_stream(
    response: Response,
    request_id: Option<u64>,
    events: Events,
    stop: CancellationToken,
) {
    let mut body = response.bytes_stream();
    let mut decoder = Decoder::default();
    let mut answered = false;
    loop {
        let chunk = tokio::select! {
            () = stop.cancelled() => return,
            chunk = body.next() => chunk,
        };
        match chunk {
            Some(Ok(bytes)) => {
                for event in decoder.push(&bytes) {
                    if !(event.kind.is_empty() || event.kind == "message")
                        || event.data.trim().is_empty()
                    {
                        continue;
                    }
                    match serde_json::from_str::<Value>(&event.data) {
                        Ok(value) => {
                            for message in into_messages(value) {
                                answered |= request_id.is_some()
                                    && message.get("id").and_then(Value::as_u64) == request_id;
                                // A closed receiver means the session ended; the pending table answers its callers.
                                let _ = events.send(LinkEvent::Message(message)).await;
                            }
                        }
                        Err(error) => {
                            tracing::warn!("ignored an upstream event that is not JSON: {error}")
                        }
                    }
                }
            }
            Some(Err(error)) => {
                let reason = format!("the connection broke: {}", describe_reqwest_error(&error));
                // As above: a session that already ended needs no word of its broken stream.
                let _ = events
                    .send(if request_id.is_some() && !answered {
                        LinkEvent::Closed(reason)
                    } else {
                        LinkEvent::Suspect
                    })
                    .await;
                return;
            }
            None => {
                let _ = events
                    .send(match request_id {
                        Some(id) if !answered => LinkEvent::Orphaned(id),
                        Some(_) => return,
                        None => LinkEvent::Suspect,
                    })
                    .await;
                return;
            }
        }
    }
}

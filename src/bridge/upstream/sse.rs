//! Legacy HTTP+SSE upstream (protocol 2024-11-05), e.g. the older claude-code-mcp plugin at `…/sse`: a long-lived GET
//! event stream whose first `endpoint` event names the URL to POST messages to; every answer arrives on the stream.
//! There is no resumption, so a stream that ends is a lost session, and the supervisor reconnects from scratch.

use std::time::Duration;

use futures::StreamExt;
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use url::Url;

use super::event_stream::Decoder;
use super::http::http_client;
use super::{Events, LinkEvent, SendError, describe_reqwest_error};

/// How long the server has to name its POST endpoint.
const ENDPOINT_WAIT: Duration = Duration::from_secs(5);

/// One legacy SSE session.
pub(crate) struct SseLink {
    client: reqwest::Client,
    post_url: Url,
    headers: HeaderMap,
    stop: CancellationToken,
}

/// Why a URL could not be opened as legacy SSE.
#[derive(Debug)]
pub(crate) enum OpenError {
    /// Nothing answered.
    Unreachable(String),
    /// Something answered, but not as a legacy SSE server.
    NotSse(String),
}

impl SseLink {
    /// Opens the event stream and waits for the endpoint.
    pub(crate) async fn open(
        url: &Url,
        headers: HeaderMap,
        events: Events,
    ) -> Result<Self, OpenError> {
        let client = http_client().map_err(OpenError::Unreachable)?;
        let response = client
            .get(url.clone())
            .headers(headers.clone())
            .header(ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|error| OpenError::Unreachable(describe_reqwest_error(&error)))?;
        let status = response.status();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            return Err(OpenError::NotSse(format!(
                "the server refused the credentials (HTTP {})",
                status.as_u16()
            )));
        }
        if !status.is_success() || !content_type.starts_with("text/event-stream") {
            return Err(OpenError::NotSse(format!(
                "GET answered HTTP {} `{content_type}`, not an event stream",
                status.as_u16()
            )));
        }
        let stop = CancellationToken::new();
        let (endpoint_sender, endpoint) = oneshot::channel();
        tokio::spawn(read_events(response, endpoint_sender, events, stop.clone()));
        let endpoint = match tokio::time::timeout(ENDPOINT_WAIT, endpoint).await {
            Ok(Ok(endpoint)) => endpoint,
            _ => {
                stop.cancel();
                return Err(OpenError::NotSse(
                    "the event stream named no `endpoint` to post to".into(),
                ));
            }
        };
        let post_url = url
            .join(endpoint.trim())
            .map_err(|error| OpenError::NotSse(format!("bad endpoint: {error}")))?;
        if post_url.origin() != url.origin() {
            stop.cancel();
            return Err(OpenError::NotSse(
                "the endpoint points at another host; refused".into(),
            ));
        }
        Ok(Self {
            client,
            post_url,
            headers,
            stop,
        })
    }

    /// Posts one message; its answer arrives on the event stream.
    pub(crate) async fn send(&self, message: &Value) -> Result<(), SendError> {
        let body =
            serde_json::to_vec(message).map_err(|error| SendError::Rejected(error.to_string()))?;
        let response = self
            .client
            .post(self.post_url.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|error| {
                if error.is_connect() {
                    SendError::NotDelivered(describe_reqwest_error(&error))
                } else {
                    SendError::Unknown(describe_reqwest_error(&error))
                }
            })?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        Err(if status == StatusCode::NOT_FOUND {
            SendError::SessionLost("the server no longer knows this session (HTTP 404)".into())
        } else {
            let text: String = response
                .text()
                .await
                .unwrap_or_default()
                .chars()
                .take(300)
                .collect();
            SendError::Rejected(format!(
                "the server answered HTTP {}: {}",
                status.as_u16(),
                text.trim()
            ))
        })
    }

    /// Stops reading the stream, which ends the session on the server.
    pub(crate) fn close(&self) {
        self.stop.cancel();
    }
}

async fn read_events(
    response: reqwest::Response,
    endpoint: oneshot::Sender<String>,
    events: Events,
    stop: CancellationToken,
) {
    let mut endpoint = Some(endpoint);
    let mut body = response.bytes_stream();
    let mut decoder = Decoder::default();
    let reason = loop {
        let chunk = tokio::select! {
            () = stop.cancelled() => return,
            chunk = body.next() => chunk,
        };
        match chunk {
            Some(Ok(bytes)) => {
                for event in decoder.push(&bytes) {
                    if event.kind == "endpoint" {
                        if let Some(sender) = endpoint.take() {
                            // The opener gave up waiting; the stream is cancelled right after.
                            let _ = sender.send(event.data);
                        }
                        continue;
                    }
                    if !(event.kind.is_empty() || event.kind == "message") {
                        continue;
                    }
                    match serde_json::from_str::<Value>(&event.data) {
                        Ok(message) => {
                            let _ = events.send(LinkEvent::Message(message)).await;
                        }
                        Err(error) => {
                            tracing::warn!("ignored an upstream event that is not JSON: {error}")
                        }
                    }
                }
            }
            Some(Err(error)) => {
                break format!("the event stream broke: {}", describe_reqwest_error(&error));
            }
            None => break "the server closed the event stream".to_string(),
        }
    };
    let _ = events.send(LinkEvent::Closed(reason)).await;
}

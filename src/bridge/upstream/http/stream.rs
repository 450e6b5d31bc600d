//! Reading a Streamable HTTP response's event stream: each message passed on as it comes, a stream that closes
//! without its answer resumed from its last event id where the session allows it (see `http.rs`'s module note).

use std::sync::Arc;

use futures::StreamExt;
use reqwest::Response;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::super::event_stream::Decoder;
use super::super::{Events, LinkEvent, describe_reqwest_error};
use super::{DEFAULT_RETRY, MAX_RESUMES, Shared};

/// A JSON body holds one message or (2025-03-26) a batch.
pub(super) fn into_messages(value: Value) -> Vec<Value> {
    match value {
        Value::Array(messages) => messages,
        message => vec![message],
    }
}

/// How one stream of a reader ended.
enum Ended {
    /// The session is closing.
    Stopped,
    /// The server ended the stream.
    Closed,
    /// The connection broke.
    Broken(String),
}

/// Reads an SSE response, passing each message on. `request_id` is the request whose answer this stream carries
/// (none for the GET stream). A stream that ends without the answer it owes (or the GET stream) is resumed when it
/// `may_resume` (the 2025 era) and the server gave it what resuming needs (see the module note); otherwise, or when
/// resuming fails, the end is reported:
/// a request stream closed without its answer orphans the request, one that broke ends the session, and an ended GET
/// stream makes the supervisor check the server at once.
pub(super) async fn read_stream(
    mut response: Response,
    request_id: Option<u64>,
    may_resume: bool,
    events: Events,
    stop: CancellationToken,
    shared: Arc<Shared>,
) {
    let mut decoder = Decoder::default();
    let mut answered = false;
    let mut resumes = 0;
    loop {
        let ended = read_events(
            response,
            request_id,
            &mut decoder,
            &mut answered,
            &events,
            &stop,
        )
        .await;
        if matches!(ended, Ended::Stopped) {
            return;
        }
        if request_id.is_some() && answered {
            if matches!(ended, Ended::Broken(_)) {
                // The answer came; the broken connection still says the server may be in trouble. A closed
                // receiver means the session already ended, and needs no word of it.
                let _ = events.send(LinkEvent::Suspect).await;
            }
            return;
        }
        let resumable = may_resume
            && (decoder.last_event_id().is_some()
                || (request_id.is_none() && decoder.retry().is_some()));
        if resumable && resumes < MAX_RESUMES {
            resumes += 1;
            let wait = decoder.retry().unwrap_or(DEFAULT_RETRY);
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(wait) => {}
            }
            if let Some(next) = shared.event_stream(decoder.last_event_id()).await {
                decoder.start_resumed_stream();
                response = next;
                continue;
            }
        }
        // A closed receiver means the session ended; the pending table answers its callers.
        let _ = events
            .send(match (ended, request_id) {
                (Ended::Broken(reason), Some(_)) => LinkEvent::Closed(reason),
                (_, Some(id)) => LinkEvent::Orphaned(id),
                (_, None) => LinkEvent::Suspect,
            })
            .await;
        return;
    }
}

/// Reads one response's events until it ends; marks `answered` when the answer to `request_id` passes.
async fn read_events(
    response: Response,
    request_id: Option<u64>,
    decoder: &mut Decoder,
    answered: &mut bool,
    events: &Events,
    stop: &CancellationToken,
) -> Ended {
    let mut body = response.bytes_stream();
    loop {
        let chunk = tokio::select! {
            () = stop.cancelled() => return Ended::Stopped,
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
                                *answered |= request_id.is_some()
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
                // A request's stream has done its job once the answer passed: a resumed one (a GET) may be left open
                // by the server, and read on it would hold the connection and pass on again what the session's own
                // GET stream carries.
                if request_id.is_some() && *answered {
                    return Ended::Closed;
                }
            }
            Some(Err(error)) => {
                return Ended::Broken(format!(
                    "the connection broke: {}",
                    describe_reqwest_error(&error)
                ));
            }
            None => return Ended::Closed,
        }
    }
}

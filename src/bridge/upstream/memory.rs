//! An in-memory link for the supervisor's unit tests: every message the bridge sends reaches the test as a
//! [`Sent`], and the test decides what its delivery says ([`SendError`] or not), as a real transport would learn it.
//! What the server sends back goes in through the link's events, like any transport's reader.

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::SendError;

/// One message on its way to the test's server, with the channel that tells the sender how its delivery went.
pub(super) struct Sent {
    pub(super) message: Value,
    pub(super) delivery: oneshot::Sender<Result<(), SendError>>,
}

/// The bridge's end of an in-memory link.
pub(super) struct MemoryLink {
    pub(super) sent: mpsc::UnboundedSender<Sent>,
}

impl MemoryLink {
    pub(super) async fn send(&self, message: &Value) -> Result<(), SendError> {
        let (delivery, outcome) = oneshot::channel();
        let sent = Sent {
            message: message.clone(),
            delivery,
        };
        if self.sent.send(sent).is_err() {
            return Err(SendError::NotDelivered("the test's server is gone".into()));
        }
        outcome.await.unwrap_or_else(|_| {
            Err(SendError::Unknown(
                "the test's server dropped the message unanswered".into(),
            ))
        })
    }

    pub(super) fn close(&self) {}
}

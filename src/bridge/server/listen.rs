//! `subscriptions/listen` (2026-07-28): how a client of the stateless era asks to hear that the tool list changed.
//!
//! The request stays open until the client cancels it (`notifications/cancelled` naming its id); its first message is
//! `notifications/subscriptions/acknowledged` with the part of the filter the bridge honours, and every notification
//! it carries names the request's id in `_meta["io.modelcontextprotocol/subscriptionId"]`, so a client on the one
//! stdio channel tells its streams apart. The bridge honours `toolsListChanged` (it has nothing else that changes);
//! it never sends a 2026 client a notification type it did not ask for. A client of the 2025 era, which opened with
//! `initialize`, gets `notifications/tools/list_changed` untagged, as before.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::bridge::jsonrpc;

/// Where a notification on a listen stream names the stream.
const SUBSCRIPTION_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// The open listen streams, by request id.
#[derive(Default)]
pub(super) struct Listens {
    streams: HashMap<String, Stream>,
}

struct Stream {
    id: Value,
    tools: bool,
}

impl Listens {
    /// Opens a stream for request `id`: returns the acknowledgement to send, or the error to answer it with.
    pub(super) fn open(&mut self, id: &Value, params: Option<&Value>) -> Result<Value, Value> {
        let Some(Value::Object(asked)) = params.and_then(|params| params.get("notifications"))
        else {
            return Err(jsonrpc::error(
                id.clone(),
                jsonrpc::INVALID_PARAMS,
                "Invalid params: subscriptions/listen needs `notifications`, an object naming what to hear",
            ));
        };
        let key = jsonrpc::id_key(id);
        if self.streams.contains_key(&key) {
            return Err(jsonrpc::error(
                id.clone(),
                jsonrpc::INVALID_REQUEST,
                "a listen stream with this id is still open: give each request its own id",
            ));
        }
        let tools = asked.get("toolsListChanged") == Some(&Value::Bool(true));
        let mut honoured = Map::new();
        if tools {
            honoured.insert("toolsListChanged".into(), json!(true));
        }
        self.streams.insert(
            key,
            Stream {
                id: id.clone(),
                tools,
            },
        );
        Ok(tagged(
            "notifications/subscriptions/acknowledged",
            json!({ "notifications": honoured }),
            id,
        ))
    }

    /// Ends the stream of request `id`, if one is open; true when it was.
    pub(super) fn close(&mut self, id: &Value) -> bool {
        self.streams.remove(&jsonrpc::id_key(id)).is_some()
    }

    /// The notifications that tell every stream that asked for it that the tool list changed.
    pub(super) fn tools_changed(&self) -> Vec<Value> {
        self.streams
            .values()
            .filter(|stream| stream.tools)
            .map(|stream| tagged("notifications/tools/list_changed", json!({}), &stream.id))
            .collect()
    }
}

/// A notification on the stream of request `id`.
fn tagged(method: &str, mut params: Value, id: &Value) -> Value {
    params["_meta"] = json!({ SUBSCRIPTION_KEY: id });
    jsonrpc::notification(method, Some(params))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_hears_only_what_it_asked_for_and_names_itself_until_it_is_closed() {
        let mut listens = Listens::default();
        let ack = listens
            .open(
                &json!("l1"),
                Some(&json!({ "notifications": { "toolsListChanged": true, "promptsListChanged": true } })),
            )
            .unwrap();
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
        assert_eq!(
            ack["params"]["notifications"],
            json!({ "toolsListChanged": true }),
            "prompts are not offered, so not honoured"
        );
        assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_KEY], "l1");
        listens
            .open(
                &json!(2),
                Some(&json!({ "notifications": { "resourcesListChanged": true } })),
            )
            .unwrap();
        let sent = listens.tools_changed();
        assert_eq!(sent.len(), 1, "only the stream that asked: {sent:?}");
        assert_eq!(sent[0]["params"]["_meta"][SUBSCRIPTION_KEY], "l1");
        assert!(
            listens
                .open(&json!("l1"), Some(&json!({ "notifications": {} })))
                .is_err()
        );
        assert!(listens.close(&json!("l1")));
        assert!(!listens.close(&json!("l1")));
        assert!(listens.tools_changed().is_empty());
        let refused = listens.open(&json!(3), Some(&json!({}))).unwrap_err();
        assert_eq!(refused["error"]["code"], jsonrpc::INVALID_PARAMS);
    }
}

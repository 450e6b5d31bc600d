//! `subscriptions/listen` (2026-07-28): how a client of the stateless era asks to hear that the tool, resource or prompt
//! list changed, or that a resource it names changed.
//!
//! The request stays open until the client cancels it (`notifications/cancelled` naming its id); its first message is
//! `notifications/subscriptions/acknowledged` with the part of the filter the bridge honours, and every notification
//! it carries names the request's id in `_meta["io.modelcontextprotocol/subscriptionId"]`, so a client on the one
//! stdio channel tells its streams apart. The bridge honours `toolsListChanged`, `resourcesListChanged`,
//! `promptsListChanged` and `resourceSubscriptions` (URIs, passed on to the upstream's own subscriptions); it never
//! sends a 2026 client a notification type it did not ask for. A client of the 2025 era, which opened with
//! `initialize`, gets the list notifications untagged, as before, and `resources/updated` for what it subscribed to.

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value, json};

use crate::bridge::jsonrpc;

/// Where a notification on a listen stream names the stream.
const SUBSCRIPTION_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// A list whose changes a listen stream may ask to hear, by its filter key and its notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum List {
    Tools,
    Resources,
    Prompts,
}

impl List {
    const ALL: [List; 3] = [List::Tools, List::Resources, List::Prompts];

    fn filter_key(self) -> &'static str {
        match self {
            List::Tools => "toolsListChanged",
            List::Resources => "resourcesListChanged",
            List::Prompts => "promptsListChanged",
        }
    }

    pub(super) fn notification(self) -> &'static str {
        match self {
            List::Tools => "notifications/tools/list_changed",
            List::Resources => "notifications/resources/list_changed",
            List::Prompts => "notifications/prompts/list_changed",
        }
    }

    /// The list a list-changed notification is about.
    pub(super) fn of_notification(method: &str) -> Option<List> {
        List::ALL
            .into_iter()
            .find(|list| list.notification() == method)
    }
}

/// The open listen streams, by request id.
#[derive(Default)]
pub(super) struct Listens {
    streams: HashMap<String, Stream>,
}

struct Stream {
    id: Value,
    lists: Vec<List>,
    uris: BTreeSet<String>,
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
        let mut honoured = Map::new();
        let lists: Vec<List> = List::ALL
            .into_iter()
            .filter(|list| asked.get(list.filter_key()) == Some(&Value::Bool(true)))
            .collect();
        for list in &lists {
            honoured.insert(list.filter_key().into(), json!(true));
        }
        let uris: BTreeSet<String> = asked
            .get("resourceSubscriptions")
            .and_then(Value::as_array)
            .map(|uris| {
                uris.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        if !uris.is_empty() {
            honoured.insert("resourceSubscriptions".into(), json!(uris));
        }
        self.streams.insert(
            key,
            Stream {
                id: id.clone(),
                lists,
                uris,
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

    /// The notifications that tell every stream that asked for it that this list changed.
    pub(super) fn list_changed(&self, list: List) -> Vec<Value> {
        self.streams
            .values()
            .filter(|stream| stream.lists.contains(&list))
            .map(|stream| tagged(list.notification(), json!({}), &stream.id))
            .collect()
    }

    /// The notifications that tell every stream subscribed to `uri` that it changed.
    pub(super) fn resource_updated(&self, uri: &str) -> Vec<Value> {
        self.streams
            .values()
            .filter(|stream| stream.uris.contains(uri))
            .map(|stream| {
                tagged(
                    "notifications/resources/updated",
                    json!({ "uri": uri }),
                    &stream.id,
                )
            })
            .collect()
    }

    /// Every URI some open stream subscribed to.
    pub(super) fn uris(&self) -> BTreeSet<String> {
        self.streams
            .values()
            .flat_map(|stream| stream.uris.iter().cloned())
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
            json!({ "toolsListChanged": true, "promptsListChanged": true })
        );
        assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_KEY], "l1");
        listens
            .open(
                &json!(2),
                Some(&json!({ "notifications": { "resourcesListChanged": true, "resourceSubscriptions": ["obsidian://vault/a.md", 7], "unknownKind": true } })),
            )
            .unwrap();
        let sent = listens.list_changed(List::Tools);
        assert_eq!(sent.len(), 1, "only the stream that asked: {sent:?}");
        assert_eq!(sent[0]["params"]["_meta"][SUBSCRIPTION_KEY], "l1");
        let updated = listens.resource_updated("obsidian://vault/a.md");
        assert_eq!(updated.len(), 1);
        assert_eq!(updated[0]["params"]["uri"], "obsidian://vault/a.md");
        assert_eq!(updated[0]["params"]["_meta"][SUBSCRIPTION_KEY], 2);
        assert!(listens.resource_updated("obsidian://vault/b.md").is_empty());
        assert_eq!(
            listens.uris().into_iter().collect::<Vec<_>>(),
            ["obsidian://vault/a.md"]
        );
        assert!(
            listens
                .open(&json!("l1"), Some(&json!({ "notifications": {} })))
                .is_err()
        );
        assert!(listens.close(&json!("l1")));
        assert!(!listens.close(&json!("l1")));
        assert!(listens.list_changed(List::Tools).is_empty());
        let refused = listens.open(&json!(3), Some(&json!({}))).unwrap_err();
        assert_eq!(refused["error"]["code"], jsonrpc::INVALID_PARAMS);
    }
}

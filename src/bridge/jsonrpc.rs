//! JSON-RPC 2.0 messages as the bridge sees them: plain `serde_json::Value`s sorted into requests, notifications and
//! responses. The bridge forwards most messages untouched, so it keeps them as values instead of typed models: a
//! field this version does not know (a newer `_meta`, a progress token of any shape) passes through intact.

use serde_json::{Map, Value, json};

/// Invalid JSON was received.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid request object.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// The method does not exist or is not offered.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// The server failed while handling the request.
pub(crate) const INTERNAL_ERROR: i64 = -32603;
/// Invalid method parameters.
pub(crate) const INVALID_PARAMS: i64 = -32602;

/// What one line from the client holds.
#[derive(Debug)]
pub(crate) enum Line {
    /// Only whitespace: nothing to answer.
    Blank,
    /// One message, or the members of a non-empty batch in order, each sorted by [`classify`].
    Messages(Vec<Message>),
    /// Not JSON at all; the parser's complaint.
    NotJson(String),
}

/// Parses one line from the client, on bytes. The reader splits on `\n` alone, a byte that never occurs inside a
/// UTF-8 multi-byte character, so a line of any size arrives whole.
pub(crate) fn parse_line(line: &[u8]) -> Line {
    let line = line.trim_ascii();
    if line.is_empty() {
        return Line::Blank;
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Array(batch)) if !batch.is_empty() => {
            Line::Messages(batch.into_iter().map(classify).collect())
        }
        Ok(message) => Line::Messages(vec![classify(message)]),
        Err(error) => Line::NotJson(error.to_string()),
    }
}

/// One incoming message, sorted by what it asks of the receiver.
#[derive(Debug)]
pub(crate) enum Message {
    /// Expects a response with the same id.
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    /// Expects nothing. MCP notifications sometimes carry `"id": null`; they land here too.
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// Answers a request this side sent.
    Response { id: Value, body: Value },
    /// Not a JSON-RPC message; `id` is the request's id when one could be read.
    Invalid { id: Value, reason: &'static str },
}

/// Sorts one parsed JSON value.
pub(crate) fn classify(value: Value) -> Message {
    let Value::Object(mut object) = value else {
        return Message::Invalid {
            id: Value::Null,
            reason: "a JSON-RPC message must be an object",
        };
    };
    let id = object.remove("id").unwrap_or(Value::Null);
    let method = match object.remove("method") {
        Some(Value::String(method)) => Some(method),
        Some(_) => {
            return Message::Invalid {
                id,
                reason: "`method` must be a string",
            };
        }
        None => None,
    };
    match method {
        Some(method) => {
            let params = object.remove("params");
            if id.is_null() {
                Message::Notification { method, params }
            } else if id.is_string() || id.is_number() {
                Message::Request { id, method, params }
            } else {
                Message::Invalid {
                    id: Value::Null,
                    reason: "`id` must be a string or a number",
                }
            }
        }
        None if object.contains_key("result") || object.contains_key("error") => {
            Message::Response {
                id,
                body: Value::Object(object),
            }
        }
        None => Message::Invalid {
            id,
            reason: "a request needs a `method`",
        },
    }
}

/// A request message.
pub(crate) fn request(id: u64, method: &str, params: Option<Value>) -> Value {
    let mut message = Map::new();
    message.insert("jsonrpc".into(), "2.0".into());
    message.insert("id".into(), id.into());
    message.insert("method".into(), method.into());
    if let Some(params) = params {
        message.insert("params".into(), params);
    }
    Value::Object(message)
}

/// A notification message. Built fresh, so it never carries an `id`, not even a null one.
pub(crate) fn notification(method: &str, params: Option<Value>) -> Value {
    let mut message = Map::new();
    message.insert("jsonrpc".into(), "2.0".into());
    message.insert("method".into(), method.into());
    if let Some(params) = params {
        message.insert("params".into(), params);
    }
    Value::Object(message)
}

/// A success response.
pub(crate) fn result(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// An error response.
pub(crate) fn error(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// A key under which a request id can be stored in a map: `1` and `"1"` stay distinct.
pub(crate) fn id_key(id: &Value) -> String {
    id.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notification_with_a_null_id_is_a_notification() {
        let message =
            classify(json!({"jsonrpc": "2.0", "id": null, "method": "notifications/initialized"}));
        assert!(
            matches!(message, Message::Notification { method, .. } if method == "notifications/initialized")
        );
    }

    #[test]
    fn requests_keep_string_and_number_ids() {
        assert!(
            matches!(classify(json!({"id": "a", "method": "ping"})), Message::Request { id, .. } if id == "a")
        );
        assert!(
            matches!(classify(json!({"id": 7, "method": "ping"})), Message::Request { id, .. } if id == 7)
        );
    }

    #[test]
    fn responses_and_garbage_are_told_apart() {
        assert!(matches!(
            classify(json!({"id": 1, "result": {}})),
            Message::Response { .. }
        ));
        assert!(matches!(
            classify(json!({"id": 1, "error": {"code": 1}})),
            Message::Response { .. }
        ));
        assert!(matches!(classify(json!([1, 2])), Message::Invalid { .. }));
        assert!(matches!(classify(json!({"id": 3})), Message::Invalid { id, .. } if id == 3));
        assert!(matches!(
            classify(json!({"id": {}, "method": "x"})),
            Message::Invalid { .. }
        ));
    }

    #[test]
    fn built_notifications_have_no_id() {
        assert!(
            notification("notifications/cancelled", None)
                .get("id")
                .is_none()
        );
    }

    #[test]
    fn id_keys_keep_types_apart() {
        assert_ne!(id_key(&json!(1)), id_key(&json!("1")));
    }
}

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
        Ok(Value::Array(mut batch)) if !batch.is_empty() => {
            if batch.iter().any(has_inexact_id) {
                keep_raw_ids(line, &mut batch);
            }
            Line::Messages(batch.into_iter().map(classify).collect())
        }
        Ok(mut message) => {
            if has_inexact_id(&message) {
                keep_raw_ids(line, std::slice::from_mut(&mut message));
            }
            Line::Messages(vec![classify(message)])
        }
        Err(error) => Line::NotJson(error.to_string()),
    }
}

// Ids as written. A number id beyond 64 bits (or written with a fraction or an exponent) is read as a float and would
// be answered changed (2^70 as 1.1805916207174113e21), so the client could not match its answer. Such an id is
// carried as a string of a marker and the id's exact text, and `restore_raw_id` writes that text back when the
// answer is serialized. The marker holds a per-process random part and a NUL, so no id a client sends can pass for
// one.

/// The marker that starts a carried raw id.
fn raw_id_marker() -> &'static str {
    static MARKER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    MARKER.get_or_init(|| {
        let mut nonce = [0u8; 8];
        // Without randomness the marker is still unlike anything a client sends: it starts with a NUL.
        let _ = getrandom::fill(&mut nonce);
        let hex: String = nonce.iter().map(|byte| format!("{byte:02x}")).collect();
        format!("\u{0}obsmcp-raw-id-{hex}:")
    })
}

fn has_inexact_id(message: &Value) -> bool {
    matches!(message.get("id"), Some(Value::Number(number)) if number.is_f64())
}

/// Replaces each inexact number id in `messages` (parsed from `line`) by a carried raw id.
fn keep_raw_ids(line: &[u8], messages: &mut [Value]) {
    #[derive(serde::Deserialize)]
    struct RawId<'a> {
        #[serde(borrow, default)]
        id: Option<&'a serde_json::value::RawValue>,
    }
    let raws: Vec<Option<String>> =
        match serde_json::from_slice::<Vec<&serde_json::value::RawValue>>(line) {
            Ok(members) => members
                .iter()
                .map(|member| {
                    serde_json::from_str::<RawId>(member.get())
                        .ok()
                        .and_then(|raw| raw.id.map(|id| id.get().to_string()))
                })
                .collect(),
            Err(_) => vec![
                serde_json::from_slice::<RawId>(line)
                    .ok()
                    .and_then(|raw| raw.id.map(|id| id.get().to_string())),
            ],
        };
    for (message, raw) in messages.iter_mut().zip(raws) {
        if let (true, Some(raw)) = (has_inexact_id(message), raw) {
            message["id"] = Value::String(format!("{}{raw}", raw_id_marker()));
        }
    }
}

/// Writes a carried raw id back as the number it was, in a serialized message; other lines are returned unchanged.
pub(crate) fn restore_raw_id(message: &Value, line: Vec<u8>) -> Vec<u8> {
    let Some(Value::String(id)) = message.get("id") else {
        return line;
    };
    let Some(raw) = id.strip_prefix(raw_id_marker()) else {
        return line;
    };
    let quoted = serde_json::to_vec(id).expect("a string serializes");
    let Some(start) = line
        .windows(quoted.len())
        .position(|window| window == quoted.as_slice())
    else {
        return line;
    };
    let mut restored = Vec::with_capacity(line.len());
    restored.extend_from_slice(&line[..start]);
    restored.extend_from_slice(raw.as_bytes());
    restored.extend_from_slice(&line[start + quoted.len()..]);
    restored
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

/// An error response with `data` (what the client needs to recover, such as the versions a server speaks).
pub(crate) fn error_with_data(id: Value, code: i64, message: &str, data: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message, "data": data } })
}

/// A key under which a request id can be stored in a map: `1` and `"1"` stay distinct.
pub(crate) fn id_key(id: &Value) -> String {
    id.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer_line(line: &str) -> String {
        let Line::Messages(mut messages) = parse_line(line.as_bytes()) else {
            panic!("not messages")
        };
        let Message::Request { id, .. } = messages.remove(0) else {
            panic!("not a request")
        };
        let answer = result(id, json!({}));
        let serialized = serde_json::to_vec(&answer).unwrap();
        String::from_utf8(restore_raw_id(&answer, serialized)).unwrap()
    }

    #[test]
    fn ids_beyond_64_bits_or_with_a_fraction_are_answered_exactly_as_written() {
        for id in [
            "1180591620717411303424",
            "-99999999999999999999999",
            "1.50",
            "1e3",
            "7",
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            assert_eq!(
                answer_line(&line),
                format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
            );
        }
        let batch = r#"[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","id":36893488147419103232,"method":"ping"}]"#;
        let Line::Messages(messages) = parse_line(batch.as_bytes()) else {
            panic!()
        };
        let Message::Request { id, .. } = &messages[1] else {
            panic!()
        };
        let answer = result(id.clone(), json!({}));
        let line = restore_raw_id(&answer, serde_json::to_vec(&answer).unwrap());
        assert!(
            String::from_utf8(line)
                .unwrap()
                .contains(r#""id":36893488147419103232,"#)
        );
    }

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

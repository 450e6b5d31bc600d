//! The two protocol eras the bridge serves its client in, decided request by request.
//!
//! - **2025 era** (2024-11-05 to 2025-11-25): the client opens with `initialize`, and requests carry no protocol
//!   version. Results are as they always were.
//! - **2026-07-28** (stateless): the client may probe with `server/discover`, which is answered with the versions,
//!   capabilities and server info; after that, every request names its version and the client's capabilities in
//!   `_meta`. A request naming 2026-07-28 gets a result marked `resultType: "complete"` (lists also get cache hints),
//!   one naming a version the bridge does not speak gets -32022 with the versions it does, and one missing a
//!   required key gets -32602 naming it.
//!
//! Deciding per request, rather than once per process, is what the stateless era means: nothing a request needs is
//! left behind by an earlier one, so one bridge serves whichever era its client chose, and a client that probes with
//! `server/discover` and then falls back to `initialize` (or does neither) is served too.

use serde_json::{Map, Value, json};

use crate::bridge::jsonrpc;
use crate::bridge::protocol::{STATELESS as MODERN, SUPPORTED};

/// The request `_meta` keys of the stateless revision.
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// Where a 2026 result names the server that produced it.
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// -32022: the request names a protocol version the server does not speak.
pub(super) const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// The era one request is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Era {
    /// No version in `_meta`, or one of the `initialize` era.
    Legacy,
    /// 2026-07-28, named in `_meta`.
    Modern,
}

/// The era of a request, or the error to answer it with (an unknown version, a missing required key).
pub(super) fn of_request(id: &Value, params: Option<&Value>) -> Result<Era, Value> {
    let meta = params.and_then(|params| params.get("_meta"));
    let Some(version) = meta.and_then(|meta| meta.get(VERSION_KEY)) else {
        return Ok(Era::Legacy);
    };
    match version.as_str() {
        Some(MODERN) => {}
        Some(version) if SUPPORTED.contains(&version) => return Ok(Era::Legacy),
        _ => {
            return Err(jsonrpc::error_with_data(
                id.clone(),
                UNSUPPORTED_PROTOCOL_VERSION,
                &format!(
                    "Unsupported protocol version {version}: this server speaks {}",
                    SUPPORTED.join(", ")
                ),
                json!({ "requested": version, "supported": SUPPORTED }),
            ));
        }
    }
    if !meta
        .and_then(|meta| meta.get(CAPABILITIES_KEY))
        .is_some_and(Value::is_object)
    {
        return Err(jsonrpc::error(
            id.clone(),
            jsonrpc::INVALID_PARAMS,
            &format!(
                "Invalid params: a {MODERN} request must carry `_meta[\"{CAPABILITIES_KEY}\"]`, an object"
            ),
        ));
    }
    Ok(Era::Modern)
}

/// A result as the request's era shapes it: unchanged for the 2025 era; for 2026, marked complete, and for a list
/// given the cache hints (`cache`: how long it stays fresh, and that it is this client's own).
pub(super) fn shaped(era: Era, result: Value, cache_ms: Option<u64>) -> Value {
    let Era::Modern = era else { return result };
    let Value::Object(fields) = result else {
        return result;
    };
    let mut shaped = Map::new();
    shaped.insert("resultType".into(), json!("complete"));
    shaped.extend(fields);
    if let Some(ttl) = cache_ms {
        shaped.insert("ttlMs".into(), json!(ttl));
        shaped.insert("cacheScope".into(), json!("private"));
    }
    Value::Object(shaped)
}

/// The answer to `server/discover`: what `initialize` would say, for every version at once.
pub(super) fn discover_result(
    capabilities: Value,
    server_info: Value,
    instructions: &str,
) -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": SUPPORTED,
        "capabilities": capabilities,
        "instructions": instructions,
        // What a client learns here holds for the process's life; it may ask again whenever it likes.
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": { SERVER_INFO_KEY: server_info },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(meta: Value) -> Value {
        json!({ "_meta": meta })
    }

    #[test]
    fn a_request_without_a_version_is_of_the_initialize_era() {
        assert_eq!(of_request(&json!(1), None), Ok(Era::Legacy));
        assert_eq!(of_request(&json!(1), Some(&json!({}))), Ok(Era::Legacy));
        let named = meta(json!({ VERSION_KEY: "2025-06-18" }));
        assert_eq!(of_request(&json!(1), Some(&named)), Ok(Era::Legacy));
    }

    #[test]
    fn a_2026_request_needs_the_client_capabilities() {
        let full = meta(json!({ VERSION_KEY: MODERN, CAPABILITIES_KEY: {} }));
        assert_eq!(of_request(&json!(1), Some(&full)), Ok(Era::Modern));
        let missing = meta(json!({ VERSION_KEY: MODERN }));
        let error = of_request(&json!(7), Some(&missing)).unwrap_err();
        assert_eq!(error["id"], 7);
        assert_eq!(error["error"]["code"], jsonrpc::INVALID_PARAMS);
        assert!(
            error["error"]["message"]
                .as_str()
                .unwrap()
                .contains(CAPABILITIES_KEY)
        );
    }

    #[test]
    fn an_unknown_version_is_refused_with_the_supported_ones() {
        for version in [json!("2099-01-01"), json!(20260728)] {
            let named = meta(json!({ VERSION_KEY: version, CAPABILITIES_KEY: {} }));
            let error = of_request(&json!("a"), Some(&named)).unwrap_err();
            assert_eq!(error["error"]["code"], UNSUPPORTED_PROTOCOL_VERSION);
            assert_eq!(error["error"]["data"]["supported"], json!(SUPPORTED));
            assert_eq!(error["error"]["data"]["requested"], version);
        }
    }

    #[test]
    fn modern_results_lead_with_their_type_and_lists_carry_cache_hints() {
        let result = json!({ "tools": [] });
        assert_eq!(shaped(Era::Legacy, result.clone(), Some(0)), result);
        let modern = shaped(Era::Modern, result, Some(0));
        assert_eq!(
            modern.to_string(),
            r#"{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private"}"#
        );
        let call = shaped(Era::Modern, json!({ "content": [], "isError": true }), None);
        assert_eq!(
            call.to_string(),
            r#"{"resultType":"complete","content":[],"isError":true}"#
        );
    }
}

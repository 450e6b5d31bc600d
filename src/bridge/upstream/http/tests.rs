//! The Streamable HTTP upstream's own rules, without a server.

use super::*;

#[test]
fn stateless_requests_repeat_their_method_and_name_in_headers() {
    let call = serde_json::json!({ "method": "tools/call", "params": { "name": "read_note" } });
    let headers = stateless_headers(&call);
    assert_eq!(
        headers[0],
        (METHOD_HEADER, HeaderValue::from_static("tools/call"))
    );
    assert_eq!(
        headers[1],
        (NAME_HEADER, HeaderValue::from_static("read_note"))
    );
    let read = serde_json::json!({ "method": "resources/read", "params": { "uri": "obsidian://vault/Zoë.md" } });
    assert_eq!(
        stateless_headers(&read)[1].1,
        HeaderValue::from_static("=?base64?b2JzaWRpYW46Ly92YXVsdC9ab8OrLm1k?=")
    );
    let list = serde_json::json!({ "method": "tools/list" });
    assert_eq!(stateless_headers(&list).len(), 1);
}

#[test]
fn a_stateless_refusal_is_an_answer_only_when_it_is_the_json_rpc_error_to_that_request() {
    let refusal = r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}"#;
    let answer = error_answer(refusal, 7).expect("the error to request 7");
    assert_eq!(answer["error"]["code"], -32022);
    assert!(
        error_answer(refusal, 8).is_none(),
        "another request's error"
    );
    assert!(error_answer(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#, 7).is_none());
    assert!(error_answer("Bad Request: no session", 7).is_none());
}

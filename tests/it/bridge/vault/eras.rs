//! Both protocol eras through one bridge: a 2026-07-28 client that probes with `server/discover` and then sends
//! stateless requests (its version, capabilities and name in each request's `_meta`, no `initialize`), with Obsidian
//! closed, open, and closing and coming back mid-session, and a 2025 client on the same process; the refusals of the stateless era (a version the bridge
//! does not speak, a request without the client's capabilities).

use super::*;

/// The `_meta` a 2026-07-28 client puts on every request.
fn modern_meta(client: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": client, "version": "1" },
    })
}

fn modern_call(bridge: &mut Bridge, tool: &str, arguments: Value) -> Value {
    bridge.request(
        "tools/call",
        json!({ "name": tool, "arguments": arguments, "_meta": modern_meta("claude-code") }),
    )
}

#[test]
fn a_2026_client_discovers_and_is_served_statelessly_while_obsidian_is_closed() {
    let setup = setup();
    let mut bridge = setup.bridge(&["--connect-wait", "1", "--tools", "all"]);

    let discovered = bridge.request(
        "server/discover",
        json!({ "_meta": modern_meta("claude-code") }),
    );
    let result = &discovered["result"];
    assert_eq!(result["resultType"], "complete", "{discovered}");
    assert_eq!(result["supportedVersions"][0], "2026-07-28", "{discovered}");
    assert!(
        result["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2025-11-25"))
    );
    assert!(result["capabilities"]["tools"].is_object(), "{discovered}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "obsmcp"
    );
    assert!(
        result["instructions"]
            .as_str()
            .unwrap()
            .contains("expected_hash")
    );

    let listed = bridge.request("tools/list", json!({ "_meta": modern_meta("claude-code") }));
    let list = &listed["result"];
    assert_eq!(list["resultType"], "complete", "{listed}");
    assert_eq!(list["ttlMs"], 0);
    assert_eq!(list["cacheScope"], "private");
    let names: Vec<&str> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    for expected in catalog_names() {
        assert!(
            names.contains(&expected.as_str()),
            "{expected} listed: {names:?}"
        );
    }
    assert!(names.contains(&"obsidian_status"));

    let read = modern_call(&mut bridge, "read_note", json!({ "path": "Home" }));
    assert_eq!(read["result"]["resultType"], "complete", "{read}");
    assert!(!is_error(&read), "{read}");
    let header = text_of(&read);
    assert!(
        header
            .lines()
            .next()
            .unwrap()
            .ends_with(" served_from=disk"),
        "{header}"
    );
    let write = modern_call(
        &mut bridge,
        "append",
        json!({ "path": "Home", "content": "x" }),
    );
    assert!(is_error(&write), "a write needs Obsidian: {write}");
    assert_eq!(write["result"]["resultType"], "complete", "{write}");

    // The budget follows the client each request names, as in the 2025 era it follows `initialize`.
    let status = modern_call(&mut bridge, "obsidian_status", json!({}));
    assert_eq!(
        status["result"]["structuredContent"]["client"]["outputBudget"]["for"], "Claude Code",
        "{status}"
    );
}

#[test]
fn stateless_requests_that_cannot_be_served_are_refused_with_what_to_do() {
    let setup = setup();
    let mut bridge = setup.bridge(&["--connect-wait", "1"]);
    let mut meta = modern_meta("some-agent");
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let future = bridge.request("tools/list", json!({ "_meta": meta }));
    assert_eq!(future["error"]["code"], -32022, "{future}");
    assert_eq!(future["error"]["data"]["requested"], "2099-01-01");
    assert_eq!(future["error"]["data"]["supported"][0], "2026-07-28");

    let mut meta = modern_meta("some-agent");
    meta.as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let incomplete = bridge.request(
        "tools/call",
        json!({ "name": "vault_info", "arguments": {}, "_meta": meta }),
    );
    assert_eq!(incomplete["error"]["code"], -32602, "{incomplete}");
    assert!(
        incomplete["error"]["message"]
            .as_str()
            .unwrap()
            .contains("clientCapabilities"),
        "{incomplete}"
    );
    // The refusals end nothing: the same process serves the next request.
    let info = modern_call(&mut bridge, "vault_info", json!({}));
    assert!(!is_error(&info), "{info}");
}

#[test]
fn one_bridge_serves_a_2026_request_and_a_2025_session_with_obsidian_open() {
    let setup = setup();
    let _host = setup.host();
    let mut bridge = setup.bridge(&[]);
    let modern = modern_call(&mut bridge, "read_note", json!({ "path": "Home" }));
    assert_eq!(modern["result"]["resultType"], "complete", "{modern}");
    assert!(
        modern["result"]["_meta"]["obsmcp/source"].is_null(),
        "answered by the plugin: {modern}"
    );

    bridge.initialize();
    let legacy = bridge.call_tool("read_note", json!({ "path": "Home" }));
    assert!(legacy["result"].get("resultType").is_none(), "{legacy}");
    // The same answer in both eras, but for the 2026 mark.
    let mut unmarked = modern["result"].clone();
    unmarked.as_object_mut().unwrap().remove("resultType");
    assert_eq!(unmarked, legacy["result"]);
}

#[test]
fn a_2026_client_is_served_through_obsidian_closing_and_coming_back() {
    let setup = setup();
    let host = setup.host();
    let mut bridge = setup.bridge(&["--connect-wait", "3"]);
    let source = |answer: &Value| answer["result"]["_meta"]["obsmcp/source"].clone();

    let live = modern_call(&mut bridge, "read_note", json!({ "path": "Home" }));
    assert_eq!(live["result"]["resultType"], "complete", "{live}");
    assert!(source(&live).is_null(), "from the plugin: {live}");

    host.stop();
    let closed = modern_call(&mut bridge, "read_note", json!({ "path": "Home" }));
    assert_eq!(closed["result"]["resultType"], "complete", "{closed}");
    assert_eq!(
        source(&closed),
        "disk",
        "from disk while Obsidian is closed: {closed}"
    );
    let write = modern_call(
        &mut bridge,
        "append",
        json!({ "path": "Home", "content": "x" }),
    );
    assert!(is_error(&write), "a write needs Obsidian: {write}");

    let _host = setup.host();
    let back = (0..50)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(100));
            modern_call(&mut bridge, "read_note", json!({ "path": "Home" }))
        })
        .find(|answer| source(answer).is_null())
        .expect("the plugin serves again within 5 s of coming back");
    assert_eq!(back["result"]["resultType"], "complete", "{back}");
    assert_eq!(
        text_of(&back),
        text_of(&live),
        "the same note, from the plugin again"
    );
}

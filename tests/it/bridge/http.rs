//! Against `@modelcontextprotocol/server-everything` over Streamable HTTP (`--url`): a stale session answered with
//! 400 (and, by `sessions.mjs`, with 404), progress forwarded with the caller's token, a slow call cut by the server's death, the catalog cache and
//! `tools/list_changed`, and the older Node bridge's environment variables.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::bridge::{Bridge, is_error, text_of};
use crate::support::{EverythingServer, TempHome, free_port, signal};

#[test]
fn a_session_the_restarted_server_answers_with_400_is_replaced_and_the_call_goes_through() {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let start =
        || Box::new(EverythingServer::start("streamableHttp", port)) as Box<dyn std::any::Any>;
    a_restart_that_forgot_the_session_costs_the_call_nothing(start, &url, 400);
}

/// A 2025-era server forgets its sessions when it restarts and answers the old one with 404 (`sessions.mjs`).
#[test]
fn a_session_the_restarted_server_answers_with_404_is_replaced_and_the_call_goes_through() {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let start = || Box::new(crate::support::start_sessions(port)) as Box<dyn std::any::Any>;
    a_restart_that_forgot_the_session_costs_the_call_nothing(start, &url, 404);
}

/// The bridge is frozen while the server at `url` restarts (`start` starts it; dropping stops it) and so still holds
/// the old session when it next speaks: the server refuses that session with `status`, and the bridge opens a new
/// session and sends the call again (the server never ran it).
fn a_restart_that_forgot_the_session_costs_the_call_nothing(
    start: impl Fn() -> Box<dyn std::any::Any>,
    url: &str,
    status: u16,
) {
    let home = TempHome::new();
    let server = start();
    let mut bridge = Bridge::start(&home, &["--url", url]);
    bridge.initialize();
    let first = bridge.call_tool("echo", json!({ "message": "one" }));
    assert_eq!(text_of(&first), "Echo: one", "{first}");
    signal(bridge.guard.pid(), "STOP");
    drop(server);
    let server = start();
    signal(bridge.guard.pid(), "CONT");
    let answer = bridge.call_tool("echo", json!({ "message": "two" }));
    assert_eq!(text_of(&answer), "Echo: two", "{answer}");
    let stderr = bridge.guard.stderr();
    assert!(
        stderr.contains(&format!("no longer knows this session (HTTP {status})")),
        "the stale session was not what was recovered from:\n{stderr}"
    );
    drop(server);
}

#[test]
fn progress_comes_down_with_the_callers_token_and_a_slow_call_is_answered_when_the_server_dies() {
    let home = TempHome::new();
    let server = EverythingServer::start("streamableHttp", free_port());
    let mut bridge = Bridge::start(&home, &["--url", &server.url()]);
    bridge.initialize();
    let id = bridge.send_request(
        "tools/call",
        json!({ "name": "trigger-long-running-operation", "arguments": { "duration": 1, "steps": 4 }, "_meta": { "progressToken": "my-token-7" } }),
    );
    let answer = bridge.wait_response(&id, Duration::from_secs(10));
    assert!(!is_error(&answer), "{answer}");
    bridge.drain(Duration::from_millis(200));
    let progress: Vec<&Value> = bridge
        .seen
        .iter()
        .filter(|message| message["method"] == "notifications/progress")
        .collect();
    assert!(progress.len() >= 3, "progress notifications: {progress:?}");
    assert!(
        progress
            .iter()
            .all(|message| message["params"]["progressToken"] == "my-token-7"),
        "{progress:?}"
    );

    let id = bridge.send_request("tools/call", json!({ "name": "trigger-long-running-operation", "arguments": { "duration": 8, "steps": 8 } }));
    std::thread::sleep(Duration::from_millis(1500));
    let killed = Instant::now();
    drop(server);
    let answer = bridge.wait_response(&id, Duration::from_secs(5));
    let after = killed.elapsed();
    assert!(
        is_error(&answer) && text_of(&answer).contains("lost"),
        "{answer}"
    );
    assert!(
        after < Duration::from_secs(1),
        "answered {after:?} after the server died"
    );
}

#[test]
fn the_catalog_is_cached_for_the_next_start_and_a_changed_live_catalog_is_announced() {
    let home = TempHome::new();
    let port = free_port();
    let (url, live) = cache_the_catalog(&home, port);

    // Upstream down: the cached catalog answers at once.
    let mut second = Bridge::start(&home, &["--url", &url]);
    second.initialize();
    let started = Instant::now();
    let cached = second.tool_names();
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "tools/list took {:?}",
        started.elapsed()
    );
    assert_eq!(cached, live);
    let status = second.call_tool("obsidian_status", json!({}));
    assert_eq!(
        status["result"]["structuredContent"]["catalog"]["source"], "cached",
        "{status}"
    );
    second.close_stdin();
    second
        .guard
        .wait_exit(Duration::from_secs(3))
        .expect("exit");

    // A cache that no longer matches the server: the client is told once the live catalog arrives.
    forget_echo_in_the_cached_catalog(&home);
    let mut third = Bridge::start(&home, &["--url", &url]);
    third.initialize();
    assert!(!third.tool_names().contains(&"echo".to_string()));
    let _server = EverythingServer::start("streamableHttp", port);
    let changed = third.wait_message(Duration::from_secs(10), |message| {
        message["method"] == "notifications/tools/list_changed"
    });
    assert!(
        changed.is_some(),
        "no tools/list_changed after the live catalog differed"
    );
    assert!(third.tool_names().contains(&"echo".to_string()));
}

/// A bridge run against server-everything on `port`, so that its catalog is cached in `home`; the server is stopped
/// again. Returns the server's URL and the tools it listed.
fn cache_the_catalog(home: &TempHome, port: u16) -> (String, Vec<String>) {
    let server = EverythingServer::start("streamableHttp", port);
    let url = server.url();
    let mut first = Bridge::start(home, &["--url", &url]);
    first.initialize();
    let live = first.tool_names();
    assert!(live.contains(&"echo".to_string()));
    first.close_stdin();
    first.guard.wait_exit(Duration::from_secs(3)).expect("exit");
    drop(server);
    (url, live)
}

/// Makes the catalog cached by an earlier bridge differ from the server's: `echo` is left out of it.
fn forget_echo_in_the_cached_catalog(home: &TempHome) {
    let cache_folder = home.path().join(".cache/obsmcp/catalogs");
    let cache_file = std::fs::read_dir(&cache_folder)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut cache: Value =
        serde_json::from_str(&std::fs::read_to_string(&cache_file).unwrap()).unwrap();
    cache["tools"]
        .as_array_mut()
        .unwrap()
        .retain(|tool| tool["name"] != "echo");
    std::fs::write(&cache_file, cache.to_string()).unwrap();
}

/// A 2026-07-28 client hears of the change on its `subscriptions/listen` stream, tagged with the stream's id, and
/// never untagged (it did not open with `initialize`).
#[test]
fn a_2026_client_hears_a_changed_catalog_on_its_listen_stream_only() {
    let home = TempHome::new();
    let port = free_port();
    let (url, _) = cache_the_catalog(&home, port);
    // The cache no longer matches the server.
    forget_echo_in_the_cached_catalog(&home);

    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut bridge = Bridge::start(&home, &["--url", &url]);
    let listen = bridge.send_request(
        "subscriptions/listen",
        json!({ "notifications": { "toolsListChanged": true, "promptsListChanged": true }, "_meta": meta }),
    );
    let ack = bridge
        .wait_message(Duration::from_secs(5), |message| {
            message["method"] == "notifications/subscriptions/acknowledged"
        })
        .expect("the listen stream is acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        listen
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({ "toolsListChanged": true, "promptsListChanged": true })
    );
    let server = EverythingServer::start("streamableHttp", port);
    let changed = bridge
        .wait_message(Duration::from_secs(10), |message| {
            message["method"] == "notifications/tools/list_changed"
        })
        .expect("tools/list_changed on the listen stream");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], listen,
        "tagged with the stream, never sent untagged to a 2026 client: {changed}"
    );
    bridge.drain(Duration::from_millis(300));
    let untagged = bridge.seen.iter().find(|message| {
        message["method"] == "notifications/tools/list_changed"
            && message.pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId")
                != Some(&listen)
    });
    assert!(untagged.is_none(), "{untagged:?}");
    drop(server);
}

#[test]
fn the_older_bridge_environment_variables_work() {
    let home = TempHome::new();
    let server = EverythingServer::start("streamableHttp", free_port());
    let grace = "5000";
    let mut bridge = Bridge::start_with_env(
        &home,
        &[],
        &[
            ("OBSIDIAN_MCP_URL", &server.url()),
            ("OBSIDIAN_MCP_STARTUP_GRACE_MS", grace),
        ],
    );
    bridge.initialize();
    // No cache yet: tools/list waits (within the grace) for the live catalog instead of answering empty.
    let names = bridge.tool_names();
    assert!(names.contains(&"echo".to_string()), "{names:?}");

    let home = TempHome::new();
    let down = format!("http://127.0.0.1:{}/mcp", free_port());
    let mut bridge = Bridge::start_with_env(
        &home,
        &[],
        &[
            ("OBSIDIAN_MCP_URL", &down),
            ("OBSIDIAN_MCP_STARTUP_GRACE_MS", "300"),
        ],
    );
    bridge.initialize();
    let started = Instant::now();
    let names = bridge.tool_names();
    let waited = started.elapsed();
    assert_eq!(names, ["obsidian_status"]);
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_secs(2),
        "grace took {waited:?}"
    );
}

#[test]
fn log_messages_the_server_sends_on_its_own_come_down_to_the_client() {
    let home = TempHome::new();
    let server = EverythingServer::start("streamableHttp", free_port());
    let mut bridge = Bridge::start(&home, &["--url", &server.url()]);
    bridge.initialize();
    assert_eq!(
        bridge.request("logging/setLevel", json!({ "level": "debug" }))["result"],
        json!({})
    );
    let answer = bridge.call_tool("toggle-simulated-logging", json!({}));
    assert!(!is_error(&answer), "{answer}");
    // Sent outside any request, so it travels on the server's GET event stream.
    let message = bridge.wait_message(Duration::from_secs(12), |message| {
        message["method"] == "notifications/message"
    });
    let message = message.expect("no log message came down within 12 s");
    assert!(
        message["params"]["level"].is_string() && message["params"]["data"].is_string(),
        "{message}"
    );
}

/// Starts `resumable.mjs` in `era` and a bridge `--url` to it, makes one call of its tool, and returns the answer and
/// the server's log of requests.
fn call_on_a_stream_closed_early(era: &str) -> (Value, Vec<Value>) {
    let home = TempHome::new();
    let port = free_port();
    let log = home.path().join("resumable.log");
    let mut command = std::process::Command::new("node");
    command
        .arg(crate::support::repo_root().join("tests/it/support/resumable.mjs"))
        .arg(port.to_string())
        .arg(&log)
        .arg(era);
    let _server = crate::support::start_listener("resumable server", command);
    let mut bridge = Bridge::start(&home, &["--url", &format!("http://127.0.0.1:{port}/mcp")]);
    bridge.initialize();
    let answer = bridge.call_tool("slow", json!({}));
    let requests = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    (answer, requests)
}

/// A server that closes a call's answer stream before the answer (`resumable.mjs`): the bridge waits the `retry:`
/// delay it named, asks for the stream again with `Last-Event-ID`, and the answer comes on the resumed stream.
#[test]
fn an_answer_stream_closed_early_is_resumed_from_its_last_event_after_the_servers_retry_delay() {
    let (answer, requests) = call_on_a_stream_closed_early("2025");
    assert_eq!(text_of(&answer), "resumed answer", "{answer}");
    let resumed = requests
        .iter()
        .find(|request| request["lastEventId"] == "call-1")
        .unwrap_or_else(|| panic!("no GET with Last-Event-ID: {requests:?}"));
    assert_eq!(resumed["http"], "GET");
    let waited = resumed["sinceClose"].as_u64().unwrap();
    assert!(
        waited >= 490,
        "asked again {waited} ms after the stream closed, before the server's retry of 500 ms"
    );
    let calls = requests
        .iter()
        .filter(|request| request["method"] == "tools/call")
        .count();
    assert_eq!(
        calls, 1,
        "the call itself is never sent again: {requests:?}"
    );
}

/// The same server in the 2026-07-28 era, where streams cannot be resumed: the call is answered as lost (its outcome
/// is unknown), and neither resumed nor sent again.
#[test]
fn a_2026_answer_stream_closed_early_is_answered_as_lost_never_resumed_or_replayed() {
    let (answer, requests) = call_on_a_stream_closed_early("2026");
    assert!(is_error(&answer), "{answer}");
    assert!(
        requests
            .iter()
            .all(|request| request["lastEventId"].is_null()),
        "no resumption in the 2026 era: {requests:?}"
    );
    let calls = requests
        .iter()
        .filter(|request| request["method"] == "tools/call")
        .count();
    assert_eq!(calls, 1, "never sent again: {requests:?}");
    assert!(
        requests
            .iter()
            .any(|request| request["method"] == "server/discover")
            && requests
                .iter()
                .all(|request| request["method"] != "initialize"),
        "the session was the stateless one: {requests:?}"
    );
}

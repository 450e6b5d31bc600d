//! Regressions found by the fault soak (`tests/soak/`), each pinned by a focused test against the real bridge and
//! the plugin hosted in Node.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::bridge::{Bridge, is_error, text_of};
use crate::support::{
    PluginHost, TempHome, children_of, fixture_vault, free_port, process_alive, signal, wait_until,
    write_plugin_data,
};

const TOKEN: &str = "faults-token-0123456789abcdef0123456789abcdef";

/// A frozen Obsidian (SIGSTOP: the kernel still accepts connections, nobody answers) used to hold a call for as long
/// as it stayed frozen, because the call timeout only started once the POST had been answered.
#[test]
fn a_call_to_a_frozen_plugin_times_out_within_the_call_timeout() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let port = free_port();
    write_plugin_data(&vault, port, TOKEN);
    let host = PluginHost::start(&vault, port, TOKEN, &[]);
    let mut bridge = Bridge::start(
        &home,
        &[
            "--vault",
            vault.to_str().unwrap(),
            "--call-timeout",
            "2",
            "--connect-wait",
            "1",
        ],
    );
    bridge.initialize();
    let answer = bridge.call_tool("read_note", json!({ "path": "Home.md" }));
    assert!(!is_error(&answer), "{answer}");

    signal(host.guard.pid(), "STOP");
    let called = Instant::now();
    let id = bridge.send_request(
        "tools/call",
        json!({ "name": "append", "arguments": { "path": "Home.md", "content": "x" } }),
    );
    let answer = bridge
        .wait_message(Duration::from_secs(12), |message| message["id"] == id)
        .map(|answer| (answer, called.elapsed()));
    signal(host.guard.pid(), "CONT");
    let (answer, waited) = answer.expect("no answer while the plugin was frozen");
    assert!(is_error(&answer), "{answer}");
    assert!(
        text_of(&answer).contains("did not answer within 2 s"),
        "{answer}"
    );
    // Two seconds of call timeout; the rest is room for a busy machine, far below the 12 s the freeze lasted.
    assert!(waited < Duration::from_secs(6), "answered after {waited:?}");
    assert!(bridge.invalid.is_empty(), "{:?}", bridge.invalid);
}

/// Stdin lines had no size limit: a client that never sent a line break made the bridge hold everything it sent.
#[test]
fn a_line_over_64_mib_gets_an_error_and_the_session_goes_on() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    write_plugin_data(&vault, free_port(), TOKEN);
    let mut bridge = Bridge::start(&home, &["--vault", vault.to_str().unwrap()]);
    bridge.initialize();
    let mut line = br#"{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":""#.to_vec();
    line.resize(line.len() + (64 << 20), b'x');
    line.extend_from_slice(b"\"}}\n");
    bridge.send_raw(&line);
    drop(line);
    let refusal = bridge
        .wait_message(Duration::from_secs(30), |message| {
            message.get("error").is_some()
        })
        .expect("no answer to the oversized line");
    assert_eq!(refusal["id"], json!(null), "{refusal}");
    assert_eq!(refusal["error"]["code"], -32600, "{refusal}");
    let message = refusal["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("over the bridge's limit of 64 MiB"),
        "{message}"
    );
    let answer = bridge.request("ping", json!({}));
    assert_eq!(answer["result"], json!({}), "{answer}");
    assert!(bridge.invalid.is_empty(), "{:?}", bridge.invalid);
}

/// Only the direct child of a command upstream was killed: what it started (here a `sleep` beside the server, as a
/// wrapper script or `npx` would leave) outlived the bridge.
#[test]
fn what_a_child_upstream_started_ends_with_the_bridge() {
    let home = TempHome::new();
    let script = crate::support::everything_script();
    let command = format!("sleep 300 & exec node '{}' stdio", script.display());
    let mut bridge = Bridge::start(&home, &["--", "sh", "-c", &command]);
    bridge.initialize();
    let answer = bridge.call_tool("echo", json!({ "message": "a" }));
    assert_eq!(text_of(&answer), "Echo: a");
    let comm = |pid: u32| std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    let mut sleeper = None;
    assert!(
        wait_until(Duration::from_secs(10), || {
            sleeper = children_of(bridge.guard.pid())
                .into_iter()
                .flat_map(children_of)
                .find(|&pid| comm(pid).trim() == "sleep");
            sleeper.is_some()
        }),
        "no `sleep` under the server"
    );
    let sleeper = sleeper.unwrap();
    bridge.close_stdin();
    let status = bridge.guard.wait_exit(Duration::from_secs(5));
    assert!(status.is_some_and(|status| status.success()), "{status:?}");
    let gone = wait_until(Duration::from_secs(2), || !process_alive(sleeper));
    if !gone {
        signal(sleeper, "KILL");
    }
    assert!(gone, "the server's `sleep` ({sleeper}) outlived the bridge");
}

/// A SIGKILLed bridge cannot end its child, and a child that does not stop at the end of its stdin
/// (here a shell that goes on to `sleep` once the server exits) lived on, orphaned. Linux now kills it with the bridge.
#[cfg(target_os = "linux")]
#[test]
fn a_child_upstream_dies_with_a_sigkilled_bridge() {
    let home = TempHome::new();
    let script = crate::support::everything_script();
    let command = format!("node '{}' stdio; sleep 300", script.display());
    let mut bridge = Bridge::start(&home, &["--", "sh", "-c", &command]);
    bridge.initialize();
    assert_eq!(
        text_of(&bridge.call_tool("echo", json!({ "message": "a" }))),
        "Echo: a"
    );
    let children = children_of(bridge.guard.pid());
    assert_eq!(children.len(), 1, "{children:?}");
    let shell = children[0];
    signal(bridge.guard.pid(), "KILL");
    let gone = wait_until(Duration::from_secs(5), || !process_alive(shell));
    if !gone {
        signal(shell, "KILL");
    }
    assert!(
        gone,
        "the bridge's child ({shell}) outlived a SIGKILLed bridge"
    );
}

/// Progress notifications did not restart the call timeout: a long operation that kept reporting progress was cut off
/// like a hung one.
#[test]
fn progress_restarts_the_call_timeout_and_silence_does_not() {
    let home = TempHome::new();
    let server = crate::support::EverythingServer::start("streamableHttp", free_port());
    let mut bridge = Bridge::start(&home, &["--url", &server.url(), "--call-timeout", "2"]);
    bridge.initialize();
    // 5 s in 10 steps: a progress notification every half second, each well inside the 2 s timeout.
    let answer = bridge.request(
        "tools/call",
        json!({
            "name": "trigger-long-running-operation",
            "arguments": { "duration": 5, "steps": 10 },
            "_meta": { "progressToken": "soak-progress" },
        }),
    );
    assert!(!is_error(&answer), "{answer}");
    // The same operation without a progress token is silent for 5 s, so the timeout ends it.
    let started = Instant::now();
    let answer = bridge.call_tool(
        "trigger-long-running-operation",
        json!({ "duration": 5, "steps": 10 }),
    );
    assert!(is_error(&answer), "{answer}");
    assert!(
        text_of(&answer).contains("did not answer within 2 s"),
        "{answer}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
}

/// The queue to stdout had no bound, so a server flooding notifications at a client that had paused
/// its reading left the bridge at 114–208 MiB. Past 16 MiB queued, notifications are now coalesced or dropped (and
/// counted in one log message), answers are all kept, and memory stays bounded.
#[test]
fn a_notification_flood_at_a_client_that_stopped_reading_keeps_memory_bounded_and_every_answer() {
    let home = TempHome::new();
    let done = home.path().join("flood-done");
    let script = crate::support::repo_root().join("tests/it/support/flood.mjs");
    let mut bridge = Bridge::start_unread(
        &home,
        &[
            "--call-timeout",
            "120",
            "--",
            "node",
            script.to_str().unwrap(),
            done.to_str().unwrap(),
        ],
    );
    bridge.send_request(
        "initialize",
        json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } }),
    );
    bridge.notify("notifications/initialized", json!({}));
    // 3,000 log messages of 100 KB: 300 MB that the client does not read while they come.
    let call = bridge.send_request(
        "tools/call",
        json!({ "name": "flood", "arguments": { "count": 3000, "size": 100000 } }),
    );
    let pid = bridge.guard.pid();
    let mut peak = 0;
    assert!(
        wait_until(Duration::from_secs(120), || {
            peak = peak.max(crate::support::rss_kib(pid).unwrap_or(0));
            done.exists()
        }),
        "the flood did not finish: {}",
        bridge.guard.stderr()
    );
    peak = peak.max(crate::support::rss_kib(pid).unwrap_or(0));
    bridge.start_reading();
    let answer = bridge.wait_response(&call, Duration::from_secs(60));
    assert_eq!(text_of(&answer), "flooded 3000", "{answer}");
    // Everything the client did not get is counted in the bridge's notices, one each time it caught up.
    bridge.drain(Duration::from_secs(2));
    let dropped: u64 = bridge
        .seen
        .iter()
        .filter(|message| message["params"]["logger"] == "obsmcp")
        .map(|message| {
            let text = message["params"]["data"].as_str().unwrap();
            let count = text.strip_prefix("obsmcp dropped ").unwrap_or_default();
            count.split(' ').next().unwrap().parse::<u64>().unwrap()
        })
        .sum();
    let delivered = bridge
        .seen
        .iter()
        .filter(|message| message["params"]["level"] == "info")
        .count() as u64;
    eprintln!(
        "peak VmRSS {peak} KiB; {delivered} of 3000 notifications delivered, {dropped} told dropped"
    );
    assert!(dropped > 0, "the client was never told of drops");
    assert_eq!(
        delivered + dropped,
        3000,
        "every notification is delivered or counted"
    );
    assert!(peak < 120 * 1024, "the bridge grew to {peak} KiB");
    assert!(bridge.invalid.is_empty(), "{:?}", bridge.invalid);
}

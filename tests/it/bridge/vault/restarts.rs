//! The plugin as an upstream that comes and goes: started while Obsidian is closed (reads from disk at once, writes
//! wait, then recovery), no offline mode, twenty restarts under a steady stream of calls, a call in flight when
//! Obsidian dies, a session the restarted plugin no longer knows, and a plugin port that answers 500 or drops
//! connections.

use super::*;

#[test]
fn started_while_obsidian_is_closed_it_answers_at_once_and_recovers_when_obsidian_starts() {
    let setup = setup();
    let started = Instant::now();
    let mut bridge = setup.bridge(&["--connect-wait", "1", "--tools", "all"]);
    let info = bridge.initialize();
    let initialized_after = started.elapsed();
    assert_eq!(info["protocolVersion"], "2025-06-18");
    assert_eq!(info["serverInfo"]["name"], "obsmcp");

    let listed = Instant::now();
    let names = bridge.tool_names();
    let listed_after = listed.elapsed();
    for name in catalog_names() {
        assert!(
            names.contains(&name),
            "`{name}` missing from tools/list while Obsidian is closed: {names:?}"
        );
    }
    assert!(names.contains(&"obsidian_status".to_string()));
    assert!(
        initialized_after < Duration::from_secs(2),
        "initialize took {initialized_after:?}"
    );
    assert!(
        listed_after < Duration::from_millis(500),
        "tools/list took {listed_after:?}"
    );

    // Writes wait for Obsidian (never done from disk), then say plainly what is wrong.
    let called = Instant::now();
    let answer = bridge.call_tool("create_note", json!({ "path": "New.md", "content": "x" }));
    let waited = called.elapsed();
    assert!(is_error(&answer), "{answer}");
    assert!(
        text_of(&answer).contains("Obsidian is not reachable"),
        "{answer}"
    );
    // At most the connect wait: an outage younger than a second (here, the bridge's start) may be a plugin reloading.
    assert!(waited < Duration::from_secs(3), "answered after {waited:?}");
    assert!(!setup.vault.join("New.md").exists());
    // Reads are served from the vault folder meanwhile, marked as such, without the wait.
    let called = Instant::now();
    let answer = bridge.call_tool("read_note", json!({ "path": "Home.md" }));
    assert!(!is_error(&answer), "{answer}");
    assert_eq!(
        answer["result"]["_meta"]["obsmcp/source"], "disk",
        "{answer}"
    );
    assert!(
        called.elapsed() < Duration::from_millis(900),
        "the offline read waited {:?}",
        called.elapsed()
    );

    let _host = setup.host();
    // A write waits for the reconnect it asks for, so the first one after Obsidian started is done by Obsidian.
    let answer = bridge.call_tool("create_note", json!({ "path": "New.md", "content": "x" }));
    assert!(
        !is_error(&answer),
        "the first write after Obsidian started failed: {answer}"
    );
    assert!(setup.vault.join("New.md").exists());
    // Reads answer from disk at once while the bridge is away, and from Obsidian once it is back.
    let answer = served_by_obsidian(&mut bridge, "read_note", json!({ "path": "Home.md" }));
    assert!(!is_error(&answer), "{answer}");
    // The live catalog is fetched right after the handshake, beside the first calls.
    let mut status = Value::Null;
    let live = crate::support::wait_until(Duration::from_secs(5), || {
        status = bridge.call_tool("obsidian_status", json!({}));
        status["result"]["structuredContent"]["catalog"]["source"] == "live"
    });
    assert!(live, "{status}");
    let report = &status["result"]["structuredContent"];
    assert_eq!(report["state"], "connected", "{status}");
    assert_eq!(report["transport"], "streamable_http");
    assert!(report["server"]["name"].is_string(), "{status}");
    assert!(
        !status.to_string().contains(TOKEN),
        "the status tool leaked the token"
    );
    assert!(
        bridge.invalid.is_empty(),
        "non-JSON-RPC on stdout: {:?}",
        bridge.invalid
    );
    eprintln!("initialize {initialized_after:?}, tools/list {listed_after:?} with Obsidian closed");
}

/// Calls a read until Obsidian, not the disk, answers it (within five seconds), and returns that answer: while the
/// bridge is away, reads answer from disk at once and the session comes back beside them.
fn served_by_obsidian(
    bridge: &mut crate::support::bridge::Bridge,
    tool: &str,
    arguments: Value,
) -> Value {
    let mut answer = Value::Null;
    let served = crate::support::wait_until(Duration::from_secs(5), || {
        answer = bridge.call_tool(tool, arguments.clone());
        answer["result"]
            .get("_meta")
            .is_none_or(|meta| meta.get("obsmcp/source").is_none())
    });
    assert!(served, "still answered from disk: {answer}");
    answer
}

#[test]
fn a_write_while_obsidian_has_long_been_closed_is_refused_without_waiting_out_the_connect_wait() {
    let setup = setup();
    let mut bridge = setup.bridge(&["--connect-wait", "20"]);
    bridge.initialize();
    // Closed for longer than a plugin takes to reload: the port refusing a fresh attempt is the answer.
    std::thread::sleep(Duration::from_millis(1500));
    let called = Instant::now();
    let answer = bridge.call_tool("create_note", json!({ "path": "New.md", "content": "x" }));
    let waited = called.elapsed();
    assert!(
        is_error(&answer) && text_of(&answer).contains("Obsidian is not reachable"),
        "{answer}"
    );
    assert!(
        waited < Duration::from_secs(10),
        "answered after {waited:?}: the whole --connect-wait of 20 s"
    );
    assert!(!setup.vault.join("New.md").exists());
    // Once Obsidian is back, obsidian_status names no error, only the one that ended the outage.
    let _host = setup.host();
    let mut status = Value::Null;
    let connected = crate::support::wait_until(Duration::from_secs(10), || {
        status =
            bridge.call_tool("obsidian_status", json!({}))["result"]["structuredContent"].take();
        status["state"] == "connected"
    });
    assert!(connected, "{status}");
    assert_eq!(status["lastError"], Value::Null, "{status}");
    assert!(status["previousError"]["message"].is_string(), "{status}");
}

#[test]
fn without_offline_mode_a_read_says_obsidian_is_not_reachable_within_the_connect_wait() {
    let setup = setup();
    let mut bridge = setup.bridge(&["--connect-wait", "1", "--no-offline"]);
    bridge.initialize();
    let called = Instant::now();
    let answer = bridge.call_tool("read_note", json!({ "path": "Home.md" }));
    let waited = called.elapsed();
    assert!(
        is_error(&answer) && text_of(&answer).contains("Obsidian is not reachable"),
        "{answer}"
    );
    assert!(text_of(&answer).contains("reconnect"), "{answer}");
    assert!(waited < Duration::from_secs(3), "answered after {waited:?}");
}

#[test]
fn twenty_restarts_of_obsidian_during_a_steady_stream_of_calls_leave_no_call_unanswered() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

    let setup = Arc::new(setup());
    let mut bridge = setup.bridge(&["--connect-wait", "2", "--call-timeout", "10"]);
    bridge.initialize();
    let first_host = setup.host();
    // The restarter waits until the current instance has served a call (a restart the bridge never saw would prove
    // nothing), then quits or crashes it and starts the next, while calls keep flowing from this thread. `served`
    // holds the instance (its first request id) that answered: a plain flag set for the instance just before a
    // restart could land after the restarter cleared it and pass for the new one.
    let highest_sent = Arc::new(AtomicU64::new(0));
    let first_of_instance = Arc::new(AtomicU64::new(0));
    let served = Arc::new(AtomicU64::new(u64::MAX));
    let done = Arc::new(AtomicBool::new(false));
    let restarter = {
        let (setup, highest_sent, first_of_instance, served, done) = (
            Arc::clone(&setup),
            Arc::clone(&highest_sent),
            Arc::clone(&first_of_instance),
            Arc::clone(&served),
            Arc::clone(&done),
        );
        std::thread::spawn(move || {
            let mut host = first_host;
            for restart in 0..20 {
                let waiting = Instant::now();
                // Generous: on a loaded machine a restart can take seconds to be seen, and the reconnect count
                // below only holds if every instance was.
                while served.load(Ordering::SeqCst) != first_of_instance.load(Ordering::SeqCst)
                    && waiting.elapsed() < Duration::from_secs(60)
                {
                    std::thread::sleep(Duration::from_millis(10));
                }
                std::thread::sleep(Duration::from_millis(50));
                // Alternate a clean quit and a crash.
                if restart % 2 == 0 {
                    host.stop();
                } else {
                    let mut guard = host.guard;
                    guard.kill();
                }
                first_of_instance.store(highest_sent.load(Ordering::SeqCst), Ordering::SeqCst);
                host = setup.host();
            }
            done.store(true, Ordering::SeqCst);
            host
        })
    };
    let mut sent = Vec::new();
    let started = Instant::now();
    while !done.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(600) {
        let id = bridge.send_request(
            "tools/call",
            json!({ "name": "read_note", "arguments": { "path": "Home.md" } }),
        );
        highest_sent.store(id.as_u64().unwrap(), Ordering::SeqCst);
        sent.push(id);
        bridge.drain(Duration::from_millis(40));
        let since = first_of_instance.load(Ordering::SeqCst);
        let from_plugin = |answer: &Value| {
            !is_error(answer) && answer["result"]["_meta"]["obsmcp/source"] != "disk"
        };
        if bridge
            .unclaimed()
            .iter()
            .any(|answer| answer["id"].as_u64().is_some_and(|id| id > since) && from_plugin(answer))
        {
            served.store(since, Ordering::SeqCst);
        }
    }
    let _host = restarter.join().unwrap();
    let mut ok = 0;
    let mut errors = 0;
    for id in &sent {
        let answer = bridge.wait_response(id, Duration::from_secs(15));
        assert!(
            answer.get("result").is_some(),
            "a call got a protocol error instead of a result: {answer}"
        );
        if is_error(&answer) {
            errors += 1
        } else {
            ok += 1
        }
    }
    // Reads answer from disk while the bridge is away; the reconnect they ask for brings Obsidian back.
    let answer = served_by_obsidian(&mut bridge, "read_note", json!({ "path": "Home.md" }));
    assert!(!is_error(&answer), "after the restarts: {answer}");
    let status = bridge.call_tool("obsidian_status", json!({}));
    let reconnects = status["result"]["structuredContent"]["reconnects"]
        .as_u64()
        .unwrap();
    assert!(reconnects >= 20, "{status}");
    assert!(
        bridge.invalid.is_empty(),
        "non-JSON-RPC on stdout: {:?}",
        bridge.invalid
    );
    assert!(
        bridge.guard.child.try_wait().unwrap().is_none(),
        "the bridge exited"
    );
    eprintln!(
        "{} calls over 20 restarts in {:?}: {ok} succeeded, {errors} isError, {reconnects} reconnects",
        sent.len(),
        started.elapsed()
    );
    assert!(ok > 20, "too few calls succeeded: {ok} of {}", sent.len());
}

#[test]
fn a_call_in_flight_when_obsidian_dies_is_answered_at_once() {
    let setup = setup();
    let mut bridge = setup.bridge(&["--call-timeout", "30"]);
    bridge.initialize();
    let host = setup.host();
    let answer = served_by_obsidian(&mut bridge, "vault_info", json!({}));
    assert!(!is_error(&answer), "{answer}");
    // Freeze the host so the call is certainly in flight, then kill it.
    signal(host.guard.pid(), "STOP");
    // A write: offline mode could answer a read from disk, and a write's lost outcome is what matters most.
    let id = bridge.send_request(
        "tools/call",
        json!({ "name": "create_note", "arguments": { "path": "Racing.md", "content": "x" } }),
    );
    std::thread::sleep(Duration::from_millis(500));
    let killed = Instant::now();
    let mut guard = host.guard;
    guard.kill();
    let answer = bridge.wait_response(&id, Duration::from_secs(5));
    let after = killed.elapsed();
    assert!(is_error(&answer), "{answer}");
    assert!(text_of(&answer).contains("lost"), "{answer}");
    assert!(
        after < Duration::from_secs(1),
        "answered {after:?} after the kill"
    );
    eprintln!("in-flight call answered {after:?} after the host was killed");
}

#[test]
fn a_plugin_restarted_while_the_bridge_was_frozen_costs_the_next_call_nothing() {
    let setup = setup();
    let mut bridge = setup.bridge(&[]);
    bridge.initialize();
    let host = setup.host();
    let answer = served_by_obsidian(&mut bridge, "vault_info", json!({}));
    assert!(!is_error(&answer), "{answer}");
    // Freeze the bridge across the restart: the plugin speaks 2026-07-28, so there is no session to have lost.
    signal(bridge.guard.pid(), "STOP");
    host.stop();
    let _host = setup.host();
    signal(bridge.guard.pid(), "CONT");
    let answer = bridge.call_tool("read_note", json!({ "path": "Home.md" }));
    assert!(!is_error(&answer), "{answer}");
    assert!(
        answer["result"]["_meta"]["obsmcp/source"].is_null(),
        "answered by the restarted plugin, not from disk: {answer}"
    );
}

/// With the plugin's port answering 500 or dropping every connection, each waiting call asked for a
/// fresh attempt, about 162 requests a second at a server that was already failing. Calls now wait out the
/// supervisor's backoff (at most one attempt per 500 ms once it has ramped up), and reads go to disk meanwhile.
#[test]
fn calls_do_not_drive_requests_at_a_plugin_that_answers_500_or_drops_connections() {
    for mode in ["500", "close"] {
        let setup = setup();
        let log = setup.home.path().join("failing.log");
        let _server = crate::support::start_failing(setup.port, mode, &log);
        let mut bridge = setup.bridge(&["--connect-wait", "1"]);
        bridge.initialize();
        let started = Instant::now();
        let mut calls = 0;
        while started.elapsed() < Duration::from_secs(4) {
            let answer = bridge.call_tool("read_note", json!({ "path": "Home.md" }));
            assert!(
                !is_error(&answer) && answer["result"]["_meta"]["obsmcp/source"] == "disk",
                "{mode}: reads are served from disk meanwhile: {answer}"
            );
            calls += 1;
        }
        let elapsed = started.elapsed().as_secs_f64();
        let requests = std::fs::read_to_string(&log).unwrap().lines().count();
        eprintln!("{mode}: {requests} requests during {calls} calls in {elapsed:.1} s");
        // The backoff allows about 12 attempts in this time (100, 200, 400, then 500 ms apart), however many calls.
        assert!(
            requests <= 30,
            "{mode}: {requests} requests reached the failing server during {calls} calls in {elapsed:.1} s"
        );
        assert!(requests >= 2, "{mode}: the bridge kept trying ({requests})");
    }
}

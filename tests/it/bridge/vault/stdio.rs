//! The client's side of the bridge's stdio: odd clients (discover first, null ids, garbage lines, a 20 MB note), a
//! second request with an id still in flight, ids beyond 64 bits, stdout closed by the client, and stdin EOF with a
//! diagnostics log that keeps no paths or content.

use super::*;

#[test]
fn odd_clients_discover_first_null_ids_garbage_lines_and_a_20_mb_note() {
    let setup = setup();
    let _host = setup.host();
    let mut bridge = setup.bridge(&[]);
    // A client that probes with server/discover and then opens the 2025 way anyway is served both ways.
    let answer = bridge.request("server/discover", json!({}));
    assert!(
        answer["result"]["supportedVersions"]
            .as_array()
            .is_some_and(|versions| versions.contains(&json!("2025-06-18"))),
        "{answer}"
    );
    bridge.initialize();
    bridge.send(&json!({ "jsonrpc": "2.0", "id": null, "method": "notifications/initialized" }));
    bridge.send_raw(b"{ this is not json\n");
    let parse_error = bridge
        .wait_message(Duration::from_secs(5), |message| {
            message["error"]["code"] == -32700
        })
        .expect("a parse error");
    assert_eq!(parse_error["id"], Value::Null);
    bridge.send_raw(b"[1,2]\n");
    assert!(
        bridge
            .wait_message(Duration::from_secs(5), |message| message["error"]["code"]
                == -32600)
            .is_some()
    );

    let unit = "é✓日本語🙂";
    let content = unit.repeat(20 * 1024 * 1024 / unit.len() + 1);
    let started = Instant::now();
    let answer = bridge.call_tool(
        "create_note",
        json!({ "path": "Big.md", "content": content }),
    );
    let took = started.elapsed();
    assert!(
        !is_error(&answer),
        "{}",
        &answer.to_string()[..answer.to_string().len().min(500)]
    );
    let on_disk = std::fs::read_to_string(setup.vault.join("Big.md")).unwrap();
    assert!(
        on_disk == content,
        "the 20 MB note arrived changed ({} bytes on disk, {} sent)",
        on_disk.len(),
        content.len()
    );
    let read = bridge.call_tool(
        "read_note",
        json!({ "path": "Big.md", "max_chars": 200000 }),
    );
    assert!(
        text_of(&read).contains(&unit.repeat(100)),
        "read back differs"
    );
    assert!(
        bridge.invalid.is_empty(),
        "non-JSON-RPC on stdout: {:?}",
        bridge.invalid
    );
    let stray: Vec<&Value> = bridge
        .seen
        .iter()
        .filter(|message| message.get("id") == Some(&Value::Null))
        .filter(|message| message["error"]["code"] != -32700 && message["error"]["code"] != -32600)
        .collect();
    assert!(
        stray.is_empty(),
        "the null-id notification got an answer: {stray:?}"
    );
    eprintln!("20 MB multi-byte note written through the bridge in {took:?}");
}

#[test]
fn stdin_eof_exits_zero_within_a_second_and_the_log_keeps_no_paths_or_content() {
    let setup = setup();
    let _host = setup.host();
    let mut bridge = setup.bridge(&[]);
    bridge.initialize();
    assert!(!is_error(
        &bridge.call_tool("read_note", json!({ "path": "Home.md" }))
    ));
    bridge.close_stdin();
    let closed = Instant::now();
    let status = bridge
        .guard
        .wait_exit(Duration::from_secs(3))
        .expect("the bridge did not exit after stdin EOF");
    let took = closed.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(1), "exit took {took:?}");

    let log = std::fs::read_to_string(&bridge.log_file)
        .expect("a diagnostics log in $XDG_STATE_HOME/obsmcp");
    assert!(log.lines().count() >= 3);
    for line in log.lines() {
        let record: Value = serde_json::from_str(line).expect("each log line is JSON");
        assert!(record["event"].is_string());
    }
    assert!(
        log.contains("\"tool\":\"read_note\"") && log.contains("\"trace\":"),
        "{log}"
    );
    let home_note = std::fs::read_to_string(setup.vault.join("Home.md")).unwrap();
    let first_line = home_note
        .lines()
        .find(|line| line.trim().len() > 8)
        .unwrap();
    assert!(!log.contains(first_line.trim()), "note content in the log");
    assert!(
        !log.contains("Home.md") && !log.contains(setup.vault.to_str().unwrap()),
        "a path in the log"
    );
    assert!(!log.contains(TOKEN));
    // Windows has no mode bits: the log is in the user's own local app-data folder there.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&bridge.log_file)
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o600
        );
    }
}

/// Two requests in flight with one id got one answer between them.
#[test]
fn a_second_request_with_an_id_still_in_flight_is_refused_and_the_first_is_answered() {
    let setup = setup();
    let mut bridge = setup.bridge(&["--connect-wait", "2", "--no-offline"]);
    bridge.initialize();
    let call = json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
        "params": {"name": "read_note", "arguments": {"path": "Home.md"}}});
    bridge.send(&call);
    bridge.send(&call);
    let first = bridge.wait_response(&json!(77), Duration::from_secs(1));
    assert_eq!(first["error"]["code"], -32600, "{first}");
    assert!(
        first["error"]["message"]
            .as_str()
            .unwrap()
            .contains("still in flight"),
        "{first}"
    );
    let second = bridge.wait_response(&json!(77), Duration::from_secs(10));
    assert!(
        second.get("result").is_some(),
        "the first request is answered: {second}"
    );
}

/// An id beyond 64 bits came back changed (2^70 as 1.1805916207174113e21), so the client could not
/// match its answer.
#[test]
fn ids_beyond_64_bits_come_back_exactly_as_sent() {
    use std::io::{BufRead as _, Write as _};
    let setup = setup();
    let mut guard = setup.raw_bridge();
    let mut stdin = guard.child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(guard.child.stdout.take().unwrap());
    let ids = ["1180591620717411303424", "-36893488147419103233", "2.5"];
    for (index, id) in ids.iter().enumerate() {
        let method = if index == 0 { "initialize" } else { "ping" };
        let params = r#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}"#;
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#
        )
        .unwrap();
    }
    let lines: Vec<String> = stdout.lines().take(ids.len()).map(Result::unwrap).collect();
    for (id, line) in ids.iter().zip(&lines) {
        assert!(
            line.contains(&format!(r#""id":{id},"#)),
            "the answer to id {id} does not carry it as sent: {line}"
        );
    }
}

/// With its stdout closed by the client, the bridge kept running.
#[test]
fn the_bridge_exits_when_the_client_closes_its_stdout() {
    use std::io::Write as _;
    let setup = setup();
    let mut guard = setup.raw_bridge();
    drop(guard.child.stdout.take());
    let mut stdin = guard.child.stdin.take().unwrap();
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    writeln!(stdin, "{request}").unwrap();
    stdin.flush().unwrap();
    let status = guard.wait_exit(Duration::from_secs(5));
    assert!(
        status.is_some(),
        "still running with stdout closed: {}",
        guard.stderr()
    );
    drop(stdin);
}

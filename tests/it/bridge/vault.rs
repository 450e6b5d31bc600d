//! Against the obsmcp plugin hosted in Node (`--vault`): Obsidian closed, restarted, killed mid-call, sessions gone
//! stale, read-only, legacy SSE, shutdown.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::bridge::{Bridge, is_error, text_of};
use crate::support::{PluginHost, TempHome, fixture_vault, free_port, signal, write_plugin_data};

const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn catalog_names() -> Vec<String> {
    let text =
        std::fs::read_to_string(crate::support::repo_root().join("obsidian-plugin/catalog.json"))
            .unwrap();
    let catalog: Value = serde_json::from_str(&text).unwrap();
    catalog["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect()
}

struct Setup {
    home: TempHome,
    vault: std::path::PathBuf,
    port: u16,
}

fn setup() -> Setup {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let port = free_port();
    write_plugin_data(&vault, port, TOKEN);
    Setup { home, vault, port }
}

impl Setup {
    fn host(&self) -> PluginHost {
        PluginHost::start(&self.vault, self.port, TOKEN, &[])
    }

    /// `obsmcp bridge --vault` with piped stdio and no test client on it, for tests that read or close its raw
    /// streams themselves.
    fn raw_bridge(&self) -> crate::support::ChildGuard {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_obsmcp"));
        command
            .args(["bridge", "--vault", self.vault.to_str().unwrap()])
            .envs(self.home.env())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        crate::support::ChildGuard::spawn("bridge", command)
    }

    fn bridge(&self, extra: &[&str]) -> Bridge {
        let mut args = vec!["--vault", self.vault.to_str().unwrap()];
        args.extend_from_slice(extra);
        Bridge::start(&self.home, &args)
    }
}

#[test]
fn started_while_obsidian_is_closed_it_answers_at_once_and_recovers_when_obsidian_starts() {
    let setup = setup();
    let started = Instant::now();
    let mut bridge = setup.bridge(&["--connect-wait", "1"]);
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
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(3),
        "answered after {waited:?}"
    );
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
    let answer = bridge.call_tool("read_note", json!({ "path": "Home.md" }));
    assert!(
        !is_error(&answer),
        "the first call after Obsidian started failed: {answer}"
    );
    assert!(
        answer["result"]
            .get("_meta")
            .is_none_or(|meta| meta.get("obsmcp/source").is_none()),
        "still from disk: {answer}"
    );
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
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(3),
        "answered after {waited:?}"
    );
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
    let answer = bridge.call_tool("read_note", json!({ "path": "Home.md" }));
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
    assert!(!is_error(&bridge.call_tool("vault_info", json!({}))));
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
fn a_session_the_restarted_plugin_no_longer_knows_404_is_replaced_and_the_call_goes_through() {
    let setup = setup();
    let mut bridge = setup.bridge(&[]);
    bridge.initialize();
    let host = setup.host();
    assert!(!is_error(&bridge.call_tool("vault_info", json!({}))));
    // Freeze the bridge across the restart so it still holds the old session when it next speaks.
    signal(bridge.guard.pid(), "STOP");
    host.stop();
    let _host = setup.host();
    signal(bridge.guard.pid(), "CONT");
    let answer = bridge.call_tool("read_note", json!({ "path": "Home.md" }));
    assert!(!is_error(&answer), "{answer}");
    let stderr = bridge.guard.stderr();
    assert!(
        stderr.contains("no longer knows this session (HTTP 404)"),
        "the stale session was not what was recovered from:\n{stderr}"
    );
}

#[test]
fn odd_clients_discover_first_null_ids_garbage_lines_and_a_20_mb_note() {
    let setup = setup();
    let _host = setup.host();
    let mut bridge = setup.bridge(&[]);
    let answer = bridge.request("server/discover", json!({}));
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
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
fn read_only_hides_write_tools_and_refuses_them() {
    let setup = setup();
    let _host = setup.host();
    let mut bridge = setup.bridge(&["--read-only"]);
    bridge.initialize();
    let answer = bridge.request("tools/list", json!({}));
    let tools = answer["result"]["tools"].as_array().unwrap();
    assert!(tools.iter().any(|tool| tool["name"] == "read_note"));
    for tool in tools {
        assert_eq!(
            tool["annotations"]["readOnlyHint"], true,
            "a tool that can write is listed: {}",
            tool["name"]
        );
    }
    let answer = bridge.call_tool(
        "create_note",
        json!({ "path": "Sneaky.md", "content": "x" }),
    );
    assert!(
        is_error(&answer) && text_of(&answer).contains("--read-only"),
        "{answer}"
    );
    assert!(
        !setup.vault.join("Sneaky.md").exists(),
        "a write went through in read-only mode"
    );
    assert!(!is_error(
        &bridge.call_tool("read_note", json!({ "path": "Home.md" }))
    ));
}

#[test]
fn the_plugin_legacy_sse_endpoint_works_as_an_upstream() {
    let setup = setup();
    let _host = setup.host();
    let url = format!("http://127.0.0.1:{}/sse", setup.port);
    let mut bridge = Bridge::start_with_env(
        &setup.home,
        &["--url", &url, "--token-env", "VAULT_TOKEN"],
        &[("VAULT_TOKEN", TOKEN)],
    );
    bridge.initialize();
    let names = bridge.tool_names();
    assert!(names.contains(&"read_note".to_string()), "{names:?}");
    let answer = bridge.call_tool("read_note", json!({ "path": "Home.md" }));
    assert!(!is_error(&answer), "{answer}");
    let status = bridge.call_tool("obsidian_status", json!({}));
    assert_eq!(
        status["result"]["structuredContent"]["transport"], "legacy_sse",
        "{status}"
    );
    let listing = format!(
        "{:?}",
        std::fs::read_to_string(format!("/proc/{}/cmdline", bridge.guard.pid()))
            .unwrap_or_default()
    );
    assert!(
        !listing.contains(TOKEN),
        "the token is visible in the process list"
    );
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

/// Issue 12, finding 4: the bridge sent `Authorization: Bearer <token>` to whoever held the plugin's port (496 times
/// in one probe) and would have taken its answers for the vault's.
#[test]
fn an_impostor_on_the_port_never_gets_the_token_and_its_answers_are_ignored() {
    let setup = setup();
    let log = setup.home.path().join("impostor.log");
    let _impostor = crate::support::start_impostor(setup.port, &log);
    let mut bridge = setup.bridge(&["--connect-wait", "1"]);
    bridge.initialize();
    let answer = bridge.call_tool("read_note", json!({ "path": "Home.md" }));
    assert!(
        !text_of(&answer).contains("IMPOSTOR-ANSWER"),
        "the impostor's answer was taken: {answer}"
    );
    assert!(
        !is_error(&answer) && answer["result"]["_meta"]["obsmcp/source"] == "disk",
        "the read is served from disk meanwhile: {answer}"
    );
    let status = text_of(&bridge.call_tool("obsidian_status", json!({})));
    assert!(
        status.contains("is not this vault's obsmcp plugin"),
        "obsidian_status names the impostor: {status}"
    );
    let seen = std::fs::read_to_string(&log).unwrap();
    assert!(
        seen.contains("obsmcp-challenge"),
        "the bridge tried: {seen}"
    );
    assert!(
        !seen.contains(TOKEN),
        "the token reached the impostor: {seen}"
    );
    assert!(
        !seen.contains("Home.md"),
        "no call went to an unproven listener: {seen}"
    );
}

/// Issue 12 (low): with the plugin's port answering 500 or dropping every connection, each waiting call asked for a
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

/// Issue 12, finding 11: `batch` ran the tools `--deny-tool` and `--allow-tool` kept from direct calls.
#[test]
fn batch_meets_the_allow_and_deny_lists_for_every_call_it_holds() {
    let setup = setup();
    let calls = json!({"calls": [
        {"tool": "outline", "arguments": {"path": "Home.md"}},
        {"tool": "read_note", "arguments": {"path": "Home.md"}}]});
    for (flags, word) in [
        (vec!["--deny-tool", "read_note"], "--deny-tool"),
        (
            vec!["--allow-tool", "batch", "--allow-tool", "outline"],
            "--allow-tool",
        ),
    ] {
        let mut bridge = setup.bridge(&flags);
        bridge.initialize();
        let answer = bridge.call_tool("batch", calls.clone());
        assert!(is_error(&answer), "{flags:?}: {answer}");
        let text = text_of(&answer);
        assert!(
            text.contains("call 2 (read_note)") && text.contains(word),
            "{text}"
        );
        assert!(!text.contains("Welcome to the fixture vault"), "{text}");
    }
    let mut open = setup.bridge(&["--deny-tool", "create_note"]);
    open.initialize();
    let answer = open.call_tool("batch", calls);
    assert!(!is_error(&answer), "{answer}");
}

/// Issue 12 (low): two requests in flight with one id got one answer between them.
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

/// Issue 12 (low): an id beyond 64 bits came back changed (2^70 as 1.1805916207174113e21), so the client could not
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

/// Issue 12 (low): with its stdout closed by the client, the bridge kept running.
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

#[test]
fn obsidian_status_counts_the_hidden_path_rules_and_never_names_them() {
    let setup = setup();
    let data = setup.vault.join(".obsidian/plugins/obsmcp/data.json");
    let mut stored: Value = serde_json::from_str(&std::fs::read_to_string(&data).unwrap()).unwrap();
    stored["hiddenPaths"] = json!([
        "Therapy",
        "Finance/Statements",
        "# a comment",
        "*.private.md"
    ]);
    std::fs::write(&data, stored.to_string()).unwrap();
    let mut bridge = setup.bridge(&["--connect-wait", "1"]);
    bridge.initialize();
    let status = bridge.call_tool("obsidian_status", json!({}));
    assert_eq!(
        status["result"]["structuredContent"]["upstream"]["hiddenPathRules"], 3,
        "{status}"
    );
    let text = text_of(&status);
    for private in ["Therapy", "Finance", "private.md"] {
        assert!(!text.contains(private), "{text}");
    }
}

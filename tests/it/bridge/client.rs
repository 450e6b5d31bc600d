//! What the bridge does with its own command line and with clients, whatever the upstream.

use std::time::Duration;

use serde_json::json;

use crate::support::TempHome;
use crate::support::bridge::Bridge;

#[test]
fn bad_flags_are_refused_with_the_reason_and_a_hint() {
    let home = TempHome::new();
    for (args, expected) in [
        (vec![], "no upstream given"),
        (
            vec!["--url", "http://127.0.0.1:1/mcp", "--header", "no colon"],
            "is not of the form 'Name: value'",
        ),
        (
            vec![
                "--url",
                "http://127.0.0.1:1/mcp",
                "--token-env",
                "OBSMCP_TEST_UNSET_VARIABLE",
            ],
            "OBSMCP_TEST_UNSET_VARIABLE",
        ),
        (
            vec!["--url", "ftp://127.0.0.1/"],
            "not an http:// or https:// URL",
        ),
        (
            vec!["--url", "http://127.0.0.1:1/mcp", "--connect-wait=-1"],
            "--connect-wait must be a positive number",
        ),
    ] {
        let mut bridge = Bridge::start(&home, &args);
        let status = bridge
            .guard
            .wait_exit(Duration::from_secs(5))
            .expect("exits");
        let stderr = bridge.guard.stderr();
        assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(expected) && stderr.contains("hint:"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn unknown_methods_and_odd_messages_get_json_rpc_errors_and_the_session_goes_on() {
    let home = TempHome::new();
    let mut bridge = Bridge::start(
        &home,
        &[
            "--url",
            &format!("http://127.0.0.1:{}/mcp", crate::support::free_port()),
        ],
    );
    bridge.initialize();
    assert_eq!(
        bridge.request("no/such-method", json!({}))["error"]["code"],
        -32601
    );
    bridge.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}\n");
    assert!(
        bridge
            .wait_message(Duration::from_secs(5), |message| message["error"]["code"]
                == -32600)
            .is_some()
    );
    bridge.send_raw(b"\xff\xfe garbage\r\n");
    assert!(
        bridge
            .wait_message(Duration::from_secs(5), |message| message["error"]["code"]
                == -32700)
            .is_some()
    );
    bridge.send_raw(b"[{\"jsonrpc\":\"2.0\",\"id\":\"p1\",\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":\"p2\",\"method\":\"ping\"}]\n");
    assert!(
        bridge
            .wait_message(Duration::from_secs(5), |message| message["id"] == "p2")
            .is_some()
    );
    assert_eq!(bridge.request("ping", json!({}))["result"], json!({}));
    assert!(bridge.invalid.is_empty(), "{:?}", bridge.invalid);
}

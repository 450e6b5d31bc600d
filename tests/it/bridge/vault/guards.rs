//! What the bridge refuses or keeps back: write tools in read-only mode, `batch` calls the allow and deny lists
//! forbid, the token to an impostor on the plugin's port or in the process list (the legacy SSE upstream), and the
//! names of hidden-path rules in `obsidian_status`.

use super::*;

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

/// `batch` ran the tools `--deny-tool` and `--allow-tool` kept from direct calls.
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

/// The bridge sent `Authorization: Bearer <token>` to whoever held the plugin's port (496 times
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

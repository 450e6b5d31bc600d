//! Doctor's client checks on client files in temporary homes.

use super::*;
use serde_json::json;

#[test]
fn an_entry_is_ours_when_it_runs_obsmcp_bridge() {
    let ours = ServerEntry::from_value(
        "obsidian",
        &json!({"command": "/opt/bin/obsmcp", "args": ["bridge", "--vault", "/v"]}),
    );
    assert!(ours.is_obsmcp());
    assert_eq!(ours.flag("--vault"), Some("/v"));
    let theirs = ServerEntry::from_value(
        "obsidian",
        &json!({"command": "npx", "args": ["mcp-remote", "http://localhost:22360/sse"]}),
    );
    assert!(!theirs.is_obsmcp());
    assert!(theirs.runs_mcp_remote() && theirs.reaches_port(22360));
}

#[test]
fn opencode_command_lists_are_split() {
    let entry = ServerEntry::from_value(
        "obsidian",
        &json!({"type": "local", "command": ["/b/obsmcp", "bridge", "--vault=/v"], "environment": {"A": "1"}}),
    );
    assert!(entry.is_obsmcp());
    assert_eq!(entry.flag("--vault"), Some("/v"));
    assert_eq!(entry.env["A"], "1");
}

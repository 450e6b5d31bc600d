//! Output budgets through the real bridge: a client named as Codex gets every read tool's answer under the size at
//! which Codex cuts, with the limit and the call that gets the rest at the start; Claude Code's tool entries carry
//! the `_meta` key that keeps long results out of a file; an explicit `max_chars` is honoured up to the client's
//! ceiling. Each runs against the plugin hosted in Node and against offline mode (Obsidian closed), which must fit
//! the same way.

use serde_json::{Value, json};

use crate::support::bridge::{Bridge, is_error, text_of};
use crate::support::{PluginHost, TempHome, fixture_vault, free_port, write_plugin_data};

const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
/// Where Codex cuts a result for a model it does not know (its bundled models cut at 10,000 tokens, which is more).
const CODEX_CUT_BYTES: usize = 10_000;

struct Vault {
    home: TempHome,
    path: std::path::PathBuf,
    port: u16,
}

/// The fixture vault plus enough to overflow every listing: 300 linked, tagged notes with unresolved links, a note
/// of 3,000 short lines under many headings, and one of wide characters (3 bytes each in UTF-8).
fn big_vault() -> Vault {
    let home = TempHome::new();
    let path = fixture_vault(&home);
    let generated = path.join("Gen");
    std::fs::create_dir_all(&generated).unwrap();
    for index in 0..300 {
        let text = format!(
            "---\ntags: [gen, gen/t{index}]\n---\n# Note {index}\nlorem ipsum [[Home]] and [[Missing {index}]] \
             {}\n",
            "dolor sit amet ".repeat(20)
        );
        std::fs::write(generated.join(format!("Note {index:03}.md")), text).unwrap();
    }
    let mut long = String::new();
    for line in 0..3_000 {
        if line % 10 == 0 {
            long.push_str(&format!("## Part {line} [[Gen/Note {:03}]]\n", line % 300));
        } else {
            long.push_str(&format!("l{line}\n"));
        }
    }
    std::fs::write(path.join("Long.md"), long).unwrap();
    std::fs::write(path.join("Wide.md"), "漢字かな交じり文\n".repeat(2_000)).unwrap();
    let port = free_port();
    write_plugin_data(&path, port, TOKEN);
    Vault { home, path, port }
}

impl Vault {
    fn host(&self) -> PluginHost {
        PluginHost::start(&self.path, self.port, TOKEN, &[])
    }

    /// A bridge whose client introduces itself as `client`.
    fn bridge(&self, client: &str, extra: &[&str]) -> Bridge {
        let mut args = vec![
            "--vault",
            self.path.to_str().unwrap(),
            "--connect-wait",
            "1",
        ];
        args.extend_from_slice(extra);
        let mut bridge = Bridge::start(&self.home, &args);
        bridge.initialize_as(client);
        bridge
    }
}

/// One call of every read tool, each able to answer more than Codex takes.
fn every_read() -> Vec<(&'static str, Value)> {
    vec![
        ("vault_info", json!({})),
        ("list_files", json!({})),
        ("read_note", json!({"path": "Long"})),
        ("read_note", json!({"path": "Wide"})),
        ("search", json!({"query": "lorem", "limit": 500})),
        ("note_metadata", json!({"path": "Long", "limit": 500})),
        ("outline", json!({"path": "Long", "limit": 500})),
        ("backlinks", json!({"path": "Home", "limit": 500})),
        ("outgoing_links", json!({"path": "Long", "limit": 500})),
        ("unresolved_links", json!({"limit": 500})),
        ("orphans", json!({"limit": 500})),
        ("tags", json!({"limit": 500})),
        ("files_by_tag", json!({"tag": "gen", "limit": 500})),
        ("recent_files", json!({"limit": 500})),
        (
            "batch",
            json!({"calls": [
                {"tool": "read_note", "arguments": {"path": "Wide"}},
                {"tool": "read_note", "arguments": {"path": "Long"}},
                {"tool": "outline", "arguments": {"path": "Long"}},
            ]}),
        ),
    ]
}

/// Whether a result says at its very start that it was limited: a read's first line, or the first JSON key
/// (`truncated`, after offline mode's notice of unread notes when there is one).
fn limited_at_start(text: &str) -> bool {
    if text.starts_with("[lines ") {
        return text.lines().next().unwrap().contains(" truncated=true");
    }
    let value: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("not JSON: {text}"));
    let first = value
        .as_object()
        .unwrap()
        .iter()
        .find(|(key, _)| *key != "skipped_notes");
    matches!(first, Some((key, Value::Bool(true))) if key == "truncated")
}

/// The call a limited result names to get the rest, when it names one.
fn continuation(text: &str) -> Option<Value> {
    if text.starts_with("[lines ") {
        let header = text.lines().next().unwrap();
        let start = header.find(" continue_with=")? + " continue_with=".len();
        let end = header.find(" served_from=").unwrap_or(header.len());
        return Some(serde_json::from_str(&header[start..end]).unwrap());
    }
    let value: Value = serde_json::from_str(text).unwrap();
    value.get("continue_with").cloned()
}

/// Calls every read as Codex and checks each answer fits and says so when limited; returns how many were limited.
fn every_read_fits_codex(bridge: &mut Bridge, mode: &str) -> usize {
    let mut limited = 0;
    for (tool, arguments) in every_read() {
        let answer = bridge.call_tool(tool, arguments.clone());
        assert!(!is_error(&answer), "{mode} {tool} {arguments}: {answer}");
        let text = text_of(&answer);
        assert!(
            text.len() <= CODEX_CUT_BYTES,
            "{mode} {tool} {arguments}: {} bytes is more than Codex shows whole",
            text.len()
        );
        let says_limited = limited_at_start(&text);
        let mentions_limit = text.contains("truncated=true") || text.contains("\"truncated\":true");
        assert_eq!(
            says_limited,
            mentions_limit,
            "{mode} {tool}: a limit must be said at the start, not only further in: {}",
            &text[..text.len().min(400)]
        );
        if says_limited {
            limited += 1;
            // A paged listing or a read names the exact call for the rest; that call fits too.
            if let Some(next) = continuation(&text) {
                let name = next["tool"].as_str().unwrap();
                let again = bridge.call_tool(name, next["arguments"].clone());
                assert!(
                    !is_error(&again),
                    "{mode} continuing {tool} with {next}: {again}"
                );
                assert!(text_of(&again).len() <= CODEX_CUT_BYTES);
                assert_ne!(
                    text_of(&again),
                    text,
                    "{mode} {tool}: the next part is another part"
                );
            } else {
                assert!(
                    matches!(tool, "note_metadata" | "recent_files" | "batch"),
                    "{mode} {tool} was limited but names no call for the rest: {}",
                    &text[..text.len().min(400)]
                );
            }
        }
    }
    limited
}

#[test]
fn a_client_named_as_codex_gets_every_read_under_its_cut_with_the_limit_said_first() {
    let vault = big_vault();
    let host = vault.host();
    let mut bridge = vault.bridge("codex-mcp-client", &[]);
    let live = every_read_fits_codex(&mut bridge, "live");
    assert!(
        live >= 12,
        "only {live} reads were limited: the vault no longer overflows the budget"
    );
    host.stop();
    // Obsidian closed: the same calls from disk fit the same way.
    let mut bridge = vault.bridge("codex-mcp-client", &[]);
    let offline = every_read_fits_codex(&mut bridge, "offline");
    assert_eq!(
        offline, live,
        "offline mode limits as many reads as the plugin"
    );
}

#[test]
fn claude_code_sees_the_result_size_key_on_reads_that_can_pass_50000_characters_and_codex_does_not()
{
    let vault = big_vault();
    let tools_of = |client: &str| -> Vec<Value> {
        let mut bridge = vault.bridge(client, &[]);
        let listed = bridge.request("tools/list", json!({}));
        listed["result"]["tools"].as_array().unwrap().clone()
    };
    let claude = tools_of("claude-code");
    let read_note = claude
        .iter()
        .find(|tool| tool["name"] == "read_note")
        .unwrap();
    let size = read_note["_meta"]["anthropic/maxResultSizeChars"]
        .as_u64()
        .expect("read_note carries anthropic/maxResultSizeChars for Claude Code");
    assert!(size > 50_000 && size <= 500_000, "{size}");
    for tool in &claude {
        let takes_max_chars = tool["inputSchema"]["properties"].get("max_chars").is_some();
        let read = tool["annotations"]["readOnlyHint"] == true;
        assert_eq!(
            tool.pointer("/_meta/anthropic~1maxResultSizeChars")
                .is_some(),
            takes_max_chars && read,
            "{}",
            tool["name"]
        );
    }
    let codex = tools_of("codex-mcp-client");
    assert!(codex.iter().all(|tool| tool.get("_meta").is_none()));
}

#[test]
fn an_explicit_max_chars_is_honoured_up_to_the_clients_ceiling_and_max_chars_overrides_the_budget()
{
    let vault = big_vault();
    let _host = vault.host();
    let content_of = |bridge: &mut Bridge, max_chars: u64| -> usize {
        let answer = bridge.call_tool("read_note", json!({"path": "Long", "max_chars": max_chars}));
        let text = text_of(&answer);
        text.split_once('\n').unwrap().1.len()
    };
    let mut claude = vault.bridge("claude-code", &[]);
    // The note has about 14,000 characters: Claude Code gets all of it when it asks, Codex at most its ceiling.
    let whole = std::fs::read_to_string(vault.path.join("Long.md"))
        .unwrap()
        .trim_end()
        .len();
    assert_eq!(content_of(&mut claude, 50_000), whole);
    let mut codex = vault.bridge("codex-mcp-client", &[]);
    let capped = content_of(&mut codex, 50_000);
    assert!(capped <= 9_000 && capped > 8_500, "{capped}");
    assert!(
        content_of(&mut codex, 2_000) <= 2_000,
        "a smaller ask is kept"
    );
    let default = text_of(&codex.call_tool("read_note", json!({"path": "Long"})));
    assert!(
        default.len() <= 8_600,
        "the default is Codex's budget: {}",
        default.len()
    );
    // `--max-chars` replaces the client's budget: its value by default and as the ceiling.
    let mut overridden = vault.bridge("codex-mcp-client", &["--max-chars", "12000"]);
    let text = text_of(&overridden.call_tool("read_note", json!({"path": "Long"})));
    let content = text.split_once('\n').unwrap().1.len();
    assert!(content > 11_500 && content <= 12_000, "{content}");
    assert!(content_of(&mut overridden, 100_000) <= 12_000);
    let status = overridden.call_tool("obsidian_status", json!({}));
    let report = &status["result"]["structuredContent"]["client"];
    assert_eq!(report["name"], "codex-mcp-client");
    assert_eq!(report["outputBudget"]["defaultMaxChars"], 12_000);
    assert_eq!(report["outputBudget"]["setBy"], "--max-chars");
}

#[test]
fn a_request_naming_its_client_in_meta_gets_that_clients_budget() {
    let vault = big_vault();
    let _host = vault.host();
    let mut bridge = vault.bridge("some-agent", &[]);
    let plain = text_of(&bridge.call_tool("read_note", json!({"path": "Long"})));
    let answer = bridge.request(
        "tools/call",
        json!({"name": "read_note", "arguments": {"path": "Long"},
               "_meta": {"io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2"}}}),
    );
    let as_claude = text_of(&answer);
    assert!(
        plain.len() <= 8_600,
        "an unknown client gets the careful default"
    );
    assert!(
        as_claude.len() > 13_000,
        "Claude Code's default of 20,000 holds the whole note"
    );
}

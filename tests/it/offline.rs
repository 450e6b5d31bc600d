//! Offline mode against the plugin itself, both through the real bridge as a client runs it (`obsmcp bridge
//! --vault`). The parity tests run one list of read calls while the plugin (its committed `main.js` hosted in Node on
//! the fake Obsidian) serves the vault, stop the plugin as Obsidian quitting would, run the same calls again, now
//! answered from disk, and compare the two field by field; every difference is reported at once. Then safety:
//! escapes, symlinks out of the vault, app-only tools, hidden paths and the 20 MB note.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::bridge::Bridge;
use crate::support::{PluginHost, TempHome, fixture_vault, free_port, node, write_plugin_data};

/// The token the tests' plugin hosts run with.
const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// A client's bridge on the vault, after the handshake, and where its answers must come from.
struct Client {
    bridge: Bridge,
    from_disk: bool,
}

impl Client {
    /// A bridge while the plugin runs: every answer must come from it.
    fn live(home: &TempHome, vault: &Path) -> Self {
        Self::start(home, vault, false)
    }

    /// A bridge while Obsidian is closed (nothing listens on the plugin's port): every answer must come from disk.
    fn offline(home: &TempHome, vault: &Path) -> Self {
        if !vault.join(".obsidian/plugins/obsmcp/data.json").exists() {
            write_plugin_data(vault, free_port(), TOKEN);
        }
        Self::start(home, vault, true)
    }

    fn start(home: &TempHome, vault: &Path, from_disk: bool) -> Self {
        let mut bridge = Bridge::start(
            home,
            &["--vault", vault.to_str().unwrap(), "--connect-wait", "1"],
        );
        bridge.initialize();
        Self { bridge, from_disk }
    }

    /// The result of one tool call.
    fn call(&mut self, tool: &str, arguments: &Value) -> Value {
        let answer = self.bridge.call_tool(tool, arguments.clone());
        let source = &answer["result"]["_meta"]["obsmcp/source"];
        assert_eq!(
            source == "disk",
            self.from_disk,
            "{tool} {arguments} was answered from the wrong side: {answer}"
        );
        answer["result"].clone()
    }
}

/// The plugin hosted in Node on `vault`, with the tests' token.
fn start_host(vault: &Path) -> PluginHost {
    PluginHost::start(vault, free_port(), TOKEN, &[])
}

/// One call of the parity list.
struct Call {
    tool: &'static str,
    arguments: Value,
}

fn call(tool: &'static str, arguments: Value) -> Call {
    Call { tool, arguments }
}

/// Field-by-field differences between two JSON values, as `path: live … offline …` lines.
fn diff(path: &str, live: &Value, offline: &Value, out: &mut Vec<String>) {
    match (live, offline) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                match b.get(key) {
                    Some(other) => diff(&format!("{path}.{key}"), value, other, out),
                    None => out.push(format!("{path}.{key}: live {value} / offline missing")),
                }
            }
            for key in b.keys().filter(|key| !a.contains_key(*key)) {
                out.push(format!("{path}.{key}: live missing / offline {}", b[key]));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                out.push(format!(
                    "{path}: live has {} items / offline {}",
                    a.len(),
                    b.len()
                ));
            }
            for (index, (x, y)) in a.iter().zip(b).enumerate() {
                diff(&format!("{path}[{index}]"), x, y, out);
            }
        }
        _ if live != offline => out.push(format!("{path}: live {live} / offline {offline}")),
        _ => {}
    }
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("")
}

/// Compares one call's two results; returns the differences.
fn compare(live: &Value, offline: &Value) -> Vec<String> {
    let offline = without_disk_marks(offline);
    let mut out = Vec::new();
    let live_error = live["isError"] == json!(true);
    let offline_error = offline["isError"] == json!(true);
    if live_error != offline_error {
        out.push(format!(
            "isError: live {live_error} ({}) / offline {offline_error} ({})",
            text_of(live),
            text_of(&offline)
        ));
        return out;
    }
    let (a, b) = (text_of(live), text_of(&offline));
    if live_error {
        // Argument validation is the MCP SDK's (zod) wording live; offline names the same tool and field.
        // Documented differences: the SDK lists every bad argument, offline the first one; a regex that does not
        // compile is explained by JavaScript's engine live and by Rust's `regex` offline.
        let validation = "MCP error -32602: Input validation error: Invalid arguments for tool ";
        let bad_regex = "invalid regular expression ";
        if a.starts_with(validation) {
            if !(b.starts_with(validation)
                && a.contains(b.rsplit_once(": ").map_or(b, |(_, issue)| issue)))
            {
                out.push(format!("validation error: live {a:?} / offline {b:?}"));
            }
        } else if a.starts_with(bad_regex) {
            if a.split(": ").next() != b.split(": ").next() {
                out.push(format!("regex error: live {a:?} / offline {b:?}"));
            }
        } else if a != b {
            out.push(format!("error text: live {a:?} / offline {b:?}"));
        }
        return out;
    }
    match (
        serde_json::from_str::<Value>(a),
        serde_json::from_str::<Value>(b),
    ) {
        (Ok(x), Ok(y)) if x.is_object() => diff("", &x, &y, &mut out),
        _ if a != b => {
            let (ha, hb) = (
                a.lines().next().unwrap_or(""),
                b.lines().next().unwrap_or(""),
            );
            if ha != hb {
                out.push(format!("header: live {ha:?} / offline {hb:?}"));
            } else {
                out.push(format!("body differs ({} vs {} chars)", a.len(), b.len()));
            }
        }
        _ => {}
    }
    out
}

/// An offline result as the plugin would have sent it: without `_meta` and the `served_from` mark (the last field of
/// a JSON result, or the end of a read's header line).
fn without_disk_marks(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(object) = result.as_object_mut() {
        object.remove("_meta");
    }
    let text = text_of(&result).to_string();
    let plain = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(mut object)) if object.get("served_from") == Some(&json!("disk")) => {
            object.remove("served_from");
            Value::Object(object).to_string()
        }
        _ => {
            let (header, body) = text
                .split_once('\n')
                .map_or((text.as_str(), None), |(h, b)| (h, Some(b)));
            let header = header.strip_suffix(" served_from=disk").unwrap_or(header);
            body.map_or_else(|| header.to_string(), |body| format!("{header}\n{body}"))
        }
    };
    if result["content"][0]["text"].is_string() {
        result["content"][0]["text"] = json!(plain);
    }
    result
}

/// Markdown notes of a vault folder (vault paths), hidden folders skipped.
fn notes_of(root: &Path) -> Vec<String> {
    fn walk(root: &Path, folder: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(folder).unwrap().map(Result::unwrap) {
            let name = entry.file_name().into_string().unwrap();
            if name.starts_with('.') {
                continue;
            }
            if entry.file_type().unwrap().is_dir() {
                walk(root, &entry.path(), out);
            } else if name.ends_with(".md") {
                out.push(
                    entry
                        .path()
                        .strip_prefix(root)
                        .unwrap()
                        .to_str()
                        .unwrap()
                        .replace('\\', "/"),
                );
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// The fixed part of the parity list: every read tool with default, edge and failing arguments.
fn fixed_calls() -> Vec<Call> {
    vec![
        call("vault_info", json!({})),
        call("list_files", json!({})),
        call("list_files", json!({"folder": "Notes"})),
        call(
            "list_files",
            json!({"folder": "Notes/", "recursive": false, "include_folders": true}),
        ),
        call(
            "list_files",
            json!({"include_folders": true, "recursive": false}),
        ),
        call("list_files", json!({"extension": ".PNG"})),
        call("list_files", json!({"limit": 3})),
        call("list_files", json!({"limit": 3, "cursor": "3"})),
        call("list_files", json!({"max_chars": 300})),
        call("list_files", json!({"cursor": "bogus"})),
        call("list_files", json!({"folder": "Missing"})),
        call("list_files", json!({"folder": "../"})),
        call("list_files", json!({"folder": ".obsidian"})),
        call("list_files", json!({"limit": 0})),
        call("read_note", json!({"path": "Home"})),
        call("read_note", json!({"path": "[[Home]]"})),
        call("read_note", json!({"path": "home"})),
        call("read_note", json!({"path": "Note"})),
        call("read_note", json!({"path": "Archive/Note"})),
        call("read_note", json!({"path": "Über uns"})),
        call("read_note", json!({"path": "Home", "max_chars": 100})),
        call(
            "read_note",
            json!({"path": "Home", "start_line": 3, "end_line": 6}),
        ),
        call("read_note", json!({"path": "Home", "start_line": 2})),
        call("read_note", json!({"path": "Home", "start_line": 999})),
        call(
            "read_note",
            json!({"path": "Home", "start_line": 5, "end_line": 2}),
        ),
        call("read_note", json!({"path": "Home", "heading": "nope"})),
        call(
            "read_note",
            json!({"path": "Home", "heading": "x", "block": "y"}),
        ),
        call("read_note", json!({"path": "Empty"})),
        call("read_note", json!({"path": "Empty", "start_line": 1})),
        call(
            "read_note",
            json!({"path": "Windows CRLF", "max_chars": 120}),
        ),
        call("read_note", json!({"path": "No trailing newline.md"})),
        call("read_note", json!({"path": "Attachments/diagram.png"})),
        call("read_note", json!({"path": "Notes"})),
        call("read_note", json!({"path": "Missing note"})),
        call("read_note", json!({"path": "../outside"})),
        call("read_note", json!({"path": "/etc/passwd"})),
        call("read_note", json!({"path": "%2e%2e/x"})),
        call("read_note", json!({"path": ".obsidian/app.json"})),
        call("read_note", json!({"path": ".hidden/Secret"})),
        call("read_note", json!({"path": "a\u{0}b"})),
        call("read_note", json!({"path": ""})),
        call("read_note", json!({"path": "#Heading"})),
        call("read_note", json!({})),
        call("search", json!({"query": "link"})),
        call("search", json!({"query": "NOTE"})),
        call("search", json!({"query": "Note", "case_sensitive": true})),
        call(
            "search",
            json!({"query": "\\[\\[[^\\]]+\\]\\]", "regex": true}),
        ),
        call("search", json!({"query": "^#+ \\w", "regex": true})),
        call("search", json!({"query": "(", "regex": true})),
        call(
            "search",
            json!({"query": "link", "context_lines": 2, "max_per_file": 1}),
        ),
        call("search", json!({"query": "e", "limit": 5})),
        call("search", json!({"query": "e", "max_chars": 400})),
        call("search", json!({"query": "link", "path_prefix": "Notes/"})),
        call("search", json!({"query": "link", "path_prefix": "Notes"})),
        call("search", json!({"query": "link", "path_prefix": "../"})),
        call("search", json!({"query": "日本"})),
        call("search", json!({"query": "über"})),
        call("search", json!({"query": "secret"})),
        call("search", json!({"query": "link", "cursor": "nonsense"})),
        call("search", json!({"query": ""})),
        call("tags", json!({})),
        call("tags", json!({"sort": "name"})),
        call("tags", json!({"prefix": "todo"})),
        call("tags", json!({"prefix": "#Project"})),
        call("tags", json!({"limit": 2})),
        call("tags", json!({"limit": 2, "cursor": "2"})),
        call("tags", json!({"sort": "size"})),
        call("files_by_tag", json!({"tag": "#"})),
        call("files_by_tag", json!({"tag": "a b"})),
        call("files_by_tag", json!({"tag": "nothing-has-this"})),
        call("unresolved_links", json!({})),
        call("unresolved_links", json!({"max_sources": 1})),
        call("unresolved_links", json!({"limit": 1})),
        call("unresolved_links", json!({"limit": 1, "cursor": "1"})),
        call("orphans", json!({})),
        call("orphans", json!({"folder": "Notes"})),
        call("orphans", json!({"limit": 1})),
        call("orphans", json!({"folder": "../x"})),
        call("backlinks", json!({"path": "Home", "snippets": false})),
        call(
            "backlinks",
            json!({"path": "Home", "max_lines_per_note": 1, "limit": 1}),
        ),
        call(
            "backlinks",
            json!({"path": "Home", "limit": 1, "cursor": "1"}),
        ),
        call("backlinks", json!({"path": "Home", "max_chars": 300})),
        call("backlinks", json!({"path": "Attachments/diagram.png"})),
        call(
            "outgoing_links",
            json!({"path": "Home", "unresolved_only": true}),
        ),
        call("outgoing_links", json!({"path": "Home", "limit": 2})),
        call("note_metadata", json!({"path": "Home", "limit": 1})),
        call("outline", json!({"path": "Home", "limit": 1})),
        call(
            "outline",
            json!({"path": "Home", "limit": 1, "cursor": "1"}),
        ),
        call(
            "outgoing_links",
            json!({"path": "Home", "limit": 2, "cursor": "2"}),
        ),
        call("search", json!({"query": "ÜBER uns"})),
        call("search", json!({"query": "a.b"})),
        call("search", json!({"query": "two\nlines"})),
        call("search", json!({"query": "(a+)+", "regex": true})),
        call("daily_note", json!({"date": "2026-03-14"})),
        call(
            "daily_note",
            json!({"date": "2026-03-14", "max_chars": 100}),
        ),
        call("daily_note", json!({"date": "2026-03-15"})),
        call("daily_note", json!({"date": "14/03/2026"})),
        call("recent_files", json!({})),
        call("recent_files", json!({"limit": 3})),
        call(
            "batch",
            json!({"calls": [
                {"tool": "read_note", "arguments": {"path": "Home"}},
                {"tool": "search", "arguments": {"query": "link"}},
                {"tool": "outline", "arguments": {"path": "Nope"}},
                {"tool": "read_note", "arguments": {"path": 3}},
                {"tool": "create_note", "arguments": {"path": "x"}},
                {"tool": "batch", "arguments": {}},
                {"tool": "tags"},
                {"tool": "daily_note", "arguments": {"date": "2026-03-14"}}
            ], "max_chars": 3000}),
        ),
        call("batch", json!({"calls": []})),
    ]
}

/// Calls derived from the vault's content: every note through every per-note tool, each heading and block read.
fn per_note_calls(vault: &Path, client: &mut Client) -> Vec<Call> {
    let mut calls = Vec::new();
    for note in notes_of(vault) {
        for tool in [
            "read_note",
            "note_metadata",
            "outline",
            "backlinks",
            "outgoing_links",
        ] {
            calls.push(call(tool, json!({"path": note})));
        }
        calls.push(call(
            "search",
            json!({"query": note.trim_end_matches(".md").rsplit('/').next().unwrap()}),
        ));
        let metadata = client.call("note_metadata", &json!({"path": note}));
        if metadata["isError"] == json!(true) {
            // A note that is refused (a symlink out of the vault) has no headings or blocks to read.
            continue;
        }
        let metadata: Value = serde_json::from_str(text_of(&metadata)).unwrap();
        for heading in metadata["headings"].as_array().unwrap() {
            calls.push(call(
                "read_note",
                json!({"path": note, "heading": heading["heading"]}),
            ));
        }
        for block in metadata["blocks"].as_array().unwrap() {
            calls.push(call(
                "read_note",
                json!({"path": note, "block": block["id"]}),
            ));
            calls.push(call(
                "read_note",
                json!({"path": format!("{note}#^{}", block["id"].as_str().unwrap())}),
            ));
        }
    }
    let tags = client.call("tags", &json!({"limit": 500}));
    let tags: Value = serde_json::from_str(text_of(&tags)).unwrap();
    for tag in tags["tags"].as_array().unwrap() {
        calls.push(call("files_by_tag", json!({"tag": tag["tag"]})));
    }
    calls
}

/// Runs every call through a bridge while the plugin serves the vault, stops the plugin, and runs them again through
/// a bridge answering from disk; returns the number of calls and the differences.
fn run_parity(
    home: &TempHome,
    vault: &Path,
    host: PluginHost,
    calls: &[Call],
) -> (usize, Vec<String>) {
    let mut client = Client::live(home, vault);
    let live: Vec<Value> = calls
        .iter()
        .map(|Call { tool, arguments }| client.call(tool, arguments))
        .collect();
    drop(client);
    host.stop();
    let mut offline = Client::offline(home, vault);
    let mut differences = Vec::new();
    for (Call { tool, arguments }, live) in calls.iter().zip(&live) {
        let disk = offline.call(tool, arguments);
        for difference in compare(live, &disk) {
            differences.push(format!("{tool} {arguments}: {difference}"));
        }
    }
    (calls.len(), differences)
}

/// Fails with every difference when the plugin and offline mode did not answer alike.
fn assert_same(count: usize, differences: &[String]) {
    assert!(
        differences.is_empty(),
        "{} of {count} calls differ:\n{}",
        differences.len(),
        differences.join("\n")
    );
}

#[test]
fn offline_results_equal_the_plugins_on_the_fixture_vault() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let host = start_host(&vault);
    let mut client = Client::live(&home, &vault);

    let mut calls = fixed_calls();
    calls.extend(per_note_calls(&vault, &mut client));
    // A search cursor from the plugin must resume the same way offline.
    let first = client.call("search", &json!({"query": "e", "limit": 4}));
    let first: Value = serde_json::from_str(text_of(&first)).unwrap();
    let cursor = first["next_cursor"]
        .as_str()
        .expect("a 4-match page of \"e\" has a next page")
        .to_string();
    calls.push(Call {
        tool: "search",
        arguments: json!({"query": "e", "limit": 4, "cursor": cursor}),
    });

    drop(client);
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert!(count > 150, "the parity list is too short: {count} calls");
    assert_same(count, &differences);
    eprintln!("parity: {count} calls, no difference");
}

#[test]
fn offline_results_equal_the_plugins_on_the_20mb_note() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let script = format!(
        "import {{ makeBigNote }} from './obsidian-plugin/test/fixtures/make-big-note.mjs'; \
         console.log(JSON.stringify(makeBigNote({})));",
        serde_json::to_string(vault.to_str().unwrap()).unwrap()
    );
    let made: Value =
        serde_json::from_str(node(&["--input-type=module", "-e", &script]).trim()).unwrap();
    let path = made["path"].as_str().unwrap().to_string();
    let host = start_host(&vault);
    let calls = vec![
        call("read_note", json!({"path": path})),
        call(
            "read_note",
            json!({"path": path, "max_chars": 200_000, "start_line": 1000, "end_line": 5000}),
        ),
        call(
            "read_note",
            json!({"path": path, "heading": "Abschnitt 700 – Übersicht 📦"}),
        ),
        call("note_metadata", json!({"path": path, "limit": 5})),
        call("outline", json!({"path": path, "limit": 3})),
        call("search", json!({"query": "Abschnitt 1234 "})),
        call(
            "search",
            json!({"query": "🦊", "limit": 3, "context_lines": 1}),
        ),
        call(
            "search",
            json!({"query": "Straßen", "path_prefix": "Big/", "max_per_file": 100, "limit": 500}),
        ),
        call(
            "backlinks",
            json!({"path": "Home", "max_lines_per_note": 20}),
        ),
        call("tags", json!({"prefix": "big-note"})),
    ];
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
    let read = Client::offline(&home, &vault).call("read_note", &json!({"path": path}));
    assert!(
        text_of(&read).len() < 100_000,
        "a default read stays bounded"
    );
}

#[test]
fn offline_results_equal_the_plugins_on_a_generated_vault() {
    let home = TempHome::new();
    let vault = home.path().join("vault");
    node(&[
        "obsidian-plugin/test/gen-vault.mjs",
        vault.to_str().unwrap(),
        "--notes",
        "1500",
        "--seed",
        "7",
    ]);
    let host = start_host(&vault);
    let mut client = Client::live(&home, &vault);
    let mut calls = vec![
        call("vault_info", json!({})),
        call(
            "list_files",
            json!({"limit": 500, "include_folders": true, "max_chars": 200_000}),
        ),
        call(
            "list_files",
            json!({"limit": 500, "cursor": "500", "max_chars": 200_000}),
        ),
        call("tags", json!({"limit": 500})),
        call("unresolved_links", json!({"limit": 500, "max_sources": 50})),
        call("orphans", json!({"limit": 500})),
        call(
            "backlinks",
            json!({"path": "Hub", "limit": 500, "max_chars": 200_000, "max_lines_per_note": 20}),
        ),
        call("note_metadata", json!({"path": "Hub", "limit": 500})),
        call("outgoing_links", json!({"path": "Hub", "limit": 500})),
        call(
            "search",
            json!({"query": "harbor", "limit": 500, "max_chars": 200_000, "context_lines": 1}),
        ),
        call(
            "search",
            json!({"query": "[[hub", "limit": 500, "max_per_file": 100, "max_chars": 200_000}),
        ),
        call(
            "search",
            json!({"query": "^- \\[[ x]\\]", "regex": true, "limit": 500, "max_chars": 200_000}),
        ),
        call("recent_files", json!({"limit": 500})),
    ];
    let tags = client.call("tags", &json!({"limit": 500}));
    drop(client);
    let tags: Value = serde_json::from_str(text_of(&tags)).unwrap();
    for tag in tags["tags"].as_array().unwrap().iter().take(12) {
        calls.push(call(
            "files_by_tag",
            json!({"tag": tag["tag"], "limit": 500, "max_chars": 200_000}),
        ));
    }
    // Every 25th note through the per-note tools.
    for note in notes_of(&vault).iter().step_by(25) {
        for tool in [
            "read_note",
            "note_metadata",
            "outline",
            "backlinks",
            "outgoing_links",
        ] {
            calls.push(call(tool, json!({"path": note})));
        }
    }
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
    eprintln!("parity on a generated vault: {count} calls, no difference");
}

/// A word that only the notes outside the vault hold.
const SECRET_WORD: &str = "ZEBRACORN";

/// Calls over many notes at once, where a note outside the vault could leak its text, links or tags.
fn calls_over_many_notes() -> Vec<Call> {
    vec![
        call(
            "backlinks",
            json!({"path": "Home", "limit": 500, "max_lines_per_note": 20, "max_chars": 200_000}),
        ),
        call("note_metadata", json!({"path": "Home", "limit": 500})),
        call("tags", json!({"limit": 500})),
        call("files_by_tag", json!({"tag": "smuggled"})),
        call("unresolved_links", json!({"limit": 500, "max_sources": 50})),
        call(
            "batch",
            json!({"calls": [
                {"tool": "backlinks", "arguments": {"path": "Home"}},
                {"tool": "tags", "arguments": {"prefix": "smuggled"}}
            ]}),
        ),
    ]
}

/// Asserts that no live answer holds the secret word or names `leak` as a linking note.
fn assert_nothing_leaks(client: &mut Client, leak: &str) {
    let found = client.call(
        "search",
        &json!({"query": SECRET_WORD, "limit": 500, "max_chars": 200_000}),
    );
    assert!(
        text_of(&found).contains(r#""results":[],"total_matches":0"#),
        "{found}"
    );
    for Call { tool, arguments } in calls_over_many_notes() {
        let result = client.call(tool, &arguments);
        let text = text_of(&result);
        assert!(!text.contains(SECRET_WORD), "{tool} {arguments}: {text}");
        if tool == "files_by_tag" {
            // The answer repeats the tag asked for; what matters is that no note carries it.
            assert!(text.contains(r#""total":0"#), "{tool} {arguments}: {text}");
        } else {
            assert!(!text.contains("smuggled"), "{tool} {arguments}: {text}");
        }
        assert!(
            !text.contains("Nowhere outside"),
            "{tool} {arguments}: {text}"
        );
        if tool == "backlinks" {
            assert!(!text.contains(leak), "{tool} {arguments}: {text}");
        }
    }
}

/// The fixture vault plus `Leak.md`, a symlink to a note outside the vault (secret word, a link to `Home`, a tag),
/// and `Shortcut.md`, a symlink to a note inside it: offline and the plugin both list the first and never read it,
/// and treat the second as an ordinary note. Every fixture call and every per-note call is compared.
#[cfg(unix)]
#[test]
fn offline_results_equal_the_plugins_with_a_note_symlinked_out_of_the_vault() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.md"),
        format!("# Secret\n{SECRET_WORD} see [[Home]] and [[Nowhere outside]]\n#smuggled\n"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), vault.join("Leak.md")).unwrap();
    std::os::unix::fs::symlink(vault.join("Archive/Old plan.md"), vault.join("Shortcut.md"))
        .unwrap();
    let host = start_host(&vault);
    let mut client = Client::live(&home, &vault);
    assert_nothing_leaks(&mut client, "Leak.md");
    let listing = client.call("list_files", &json!({"limit": 500}));
    assert!(
        text_of(&listing).contains(r#""path":"Leak.md""#),
        "listed, though never read: {listing}"
    );
    let shortcut = client.call("read_note", &json!({"path": "Shortcut"}));
    assert_ne!(
        shortcut["isError"], true,
        "a symlink inside the vault is read: {shortcut}"
    );

    let mut calls = fixed_calls();
    calls.extend(per_note_calls(&vault, &mut client));
    drop(client);
    calls.extend(calls_over_many_notes());
    calls.extend([
        call("search", json!({"query": SECRET_WORD})),
        call(
            "search",
            json!({"query": ".", "regex": true, "limit": 500, "max_chars": 200_000}),
        ),
        call("orphans", json!({"limit": 500})),
        call("list_files", json!({"limit": 500})),
        call("read_note", json!({"path": "Leak"})),
        call("outgoing_links", json!({"path": "Leak"})),
        call("read_note", json!({"path": "Shortcut"})),
        call("backlinks", json!({"path": "Shortcut"})),
    ]);
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
    assert_nothing_leaks(&mut Client::offline(&home, &vault), "Leak.md");
}

/// A symlinked folder that leads out of the vault, holding a note with the secret word, a link to `Home` and a tag.
/// Offline lists the folder without entering it; the plugin (as Obsidian) lists what is inside too, so listings
/// differ, but neither reads the note: the calls over many notes agree.
#[cfg(unix)]
#[test]
fn offline_results_equal_the_plugins_with_a_folder_symlinked_out_of_the_vault() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("inner.md"),
        format!("{SECRET_WORD} in a folder, see [[Home]] and [[Nowhere outside]] #smuggled/deep\n"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), vault.join("Linked folder")).unwrap();
    let host = start_host(&vault);
    let mut client = Client::live(&home, &vault);
    assert_nothing_leaks(&mut client, "Linked folder/inner.md");
    for path in ["Linked folder/inner", "Linked folder/inner.md"] {
        let result = client.call("read_note", &json!({"path": path}));
        assert_eq!(result["isError"], true, "{path}: {result}");
    }
    drop(client);
    let (count, differences) = run_parity(&home, &vault, host, &calls_over_many_notes());
    assert_same(count, &differences);
    assert_nothing_leaks(
        &mut Client::offline(&home, &vault),
        "Linked folder/inner.md",
    );
}

/// Issue 12, finding 1: `cfglink -> .obsidian` gave offline `read_note` the bearer token in the plugin's data.json.
#[cfg(unix)]
#[test]
fn offline_never_reads_the_config_folder_through_a_symlink() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let secret = r#"{"token":"0123456789abcdef0123456789abcdef"}"#;
    let plugin = vault.join(".obsidian/plugins/secretive");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::write(plugin.join("data.json"), secret).unwrap();
    std::fs::write(vault.join(".obsidian/note.md"), "CONFIGWORD [[Home]]\n").unwrap();
    std::os::unix::fs::symlink(".obsidian", vault.join("cfglink")).unwrap();
    std::os::unix::fs::symlink(
        ".obsidian/plugins/secretive/data.json",
        vault.join("token.json"),
    )
    .unwrap();
    std::os::unix::fs::symlink(".obsidian/note.md", vault.join("Alias.md")).unwrap();
    let mut offline = Client::offline(&home, &vault);
    for path in [
        "cfglink/plugins/secretive/data.json",
        "token.json",
        "Alias",
        "[[Alias]]",
        "cfglink/note.md",
    ] {
        let result = offline.call("read_note", &json!({"path": path}));
        assert_eq!(result["isError"], true, "{path}: {result}");
        assert!(
            !result.to_string().contains("0123456789abcdef"),
            "{path}: {result}"
        );
    }
    for (tool, arguments) in [
        ("search", json!({"query": "CONFIGWORD"})),
        ("search", json!({"query": "token", "limit": 500})),
        ("backlinks", json!({"path": "Home"})),
        ("list_files", json!({"limit": 500})),
        (
            "batch",
            json!({"calls": [{"tool": "read_note", "arguments": {"path": "token.json"}}]}),
        ),
    ] {
        let result = offline.call(tool, &arguments);
        let text = result.to_string();
        assert!(
            !text.contains("0123456789abcdef"),
            "{tool} {arguments}: {text}"
        );
        assert!(
            !text.contains("CONFIGWORD [["),
            "{tool} {arguments}: {text}"
        );
        assert!(!text.contains("cfglink/"), "{tool} {arguments}: {text}");
    }
}

/// Issue 12, finding 8: one 512 MB note took the bridge to 2 GiB and delayed every answer. A file over the limit is
/// listed, never read; a read says why, and a search says at its start which notes it passed over.
#[test]
fn offline_lists_a_huge_note_but_never_reads_it_and_says_so() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let huge = std::fs::File::create(vault.join("Huge export.md")).unwrap();
    // Sparse: 600 MB on paper, almost nothing on disk.
    huge.set_len(600 * 1024 * 1024).unwrap();
    drop(huge);
    let mut offline = Client::offline(&home, &vault);
    let read = offline.call("read_note", &json!({"path": "Huge export"}));
    assert_eq!(read["isError"], true, "{read}");
    assert!(
        text_of(&read).contains("600.0 MB, over the 32 MB that offline mode reads of one file"),
        "{read}"
    );
    for (tool, arguments) in [
        ("search", json!({"query": "anything"})),
        ("tags", json!({})),
        ("orphans", json!({})),
        ("backlinks", json!({"path": "Home"})),
    ] {
        let found = offline.call(tool, &arguments);
        let text = text_of(&found);
        assert!(
            text.starts_with(r#"{"skipped_notes":"1 note(s) over the 32 MB"#)
                && text.contains("Huge export.md"),
            "{tool}: {text}"
        );
    }
    let listing = offline.call("list_files", &json!({"limit": 500}));
    assert!(text_of(&listing).contains("Huge export.md"), "{listing}");
}

#[test]
fn offline_refuses_escapes_and_never_reads_outside_the_vault() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "TOPSECRET [[Home]]\n").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path().join("secret.md"), vault.join("Leak.md"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path(), vault.join("Linked folder")).unwrap();
    }
    let mut offline = Client::offline(&home, &vault);
    for path in [
        "Leak",
        "Leak.md",
        "Linked folder/secret",
        "../secret",
        "/etc/hostname",
        "..%2fsecret",
        ".obsidian/app.json",
    ] {
        let result = offline.call("read_note", &json!({"path": path}));
        assert_eq!(result["isError"], true, "{path}: {result}");
    }
    let found = offline.call("search", &json!({"query": "TOPSECRET"}));
    assert!(
        text_of(&found).contains(r#""results":[],"total_matches":0"#),
        "{found}"
    );
    let everything = offline.call(
        "search",
        &json!({"query": ".", "regex": true, "limit": 500, "max_chars": 200_000}),
    );
    assert!(!text_of(&everything).contains("TOPSECRET"));
    let backlinks = offline.call("backlinks", &json!({"path": "Home"}));
    assert!(
        !text_of(&backlinks).contains("Leak.md"),
        "a note outside the vault is never read, so never links"
    );
    let folder = offline.call("list_files", &json!({"folder": "Linked folder"}));
    assert_eq!(folder["isError"], true, "{folder}");
    let listing = offline.call(
        "list_files",
        &json!({"limit": 500, "include_folders": true}),
    );
    let listing = text_of(&listing);
    assert!(
        !listing.contains(".obsidian") && !listing.contains(".hidden"),
        "{listing}"
    );
    assert!(
        listing.contains(r#""path":"Linked folder","type":"folder""#),
        "{listing}"
    );
    assert!(
        !listing.contains("Linked folder/secret.md"),
        "a folder outside the vault is never entered: {listing}"
    );
}

#[test]
fn offline_never_writes_and_says_obsidian_is_not_reachable() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let before = std::fs::read(vault.join("Home.md")).unwrap();
    let mut offline = Client::offline(&home, &vault);
    for (tool, arguments) in [
        (
            "str_replace",
            json!({"path": "Home", "old": "a", "new": "b"}),
        ),
        ("append", json!({"path": "Home", "content": "x"})),
        (
            "set_property",
            json!({"path": "Home", "key": "k", "value": 1}),
        ),
        ("move_note", json!({"path": "Home", "new_path": "Moved"})),
        ("delete_note", json!({"path": "Home"})),
        ("create_daily_note", json!({"date": "2030-01-01"})),
        ("active_note", json!({})),
    ] {
        // Tools that need the app are not answered from disk: the bridge says Obsidian is not reachable.
        let answer = offline.bridge.call_tool(tool, arguments);
        let result = &answer["result"];
        assert_eq!(result["isError"], true, "{tool}: {answer}");
        assert!(
            text_of(result).starts_with("Obsidian is not reachable")
                && text_of(result).contains("Is Obsidian open"),
            "{tool}: {answer}"
        );
    }
    // Inside a batch answered from disk, the one such tool a batch takes says so in its own words.
    let batch = offline.call(
        "batch",
        &json!({"calls": [{"tool": "active_note"}, {"tool": "vault_info"}]}),
    );
    let batch = text_of(&batch);
    assert!(
        batch.contains("active_note needs Obsidian to be open") && batch.contains("\"ok\":true"),
        "{batch}"
    );
    assert_eq!(std::fs::read(vault.join("Home.md")).unwrap(), before);
    assert!(!vault.join("Daily/2030-01-01.md").exists() && !vault.join("Moved.md").exists());
}

/// The calls of the hidden-paths test: every offline read tool, and every way of naming a hidden note.
fn hidden_path_calls() -> Vec<(&'static str, Value)> {
    let mut calls = vec![
        ("vault_info", json!({})),
        ("list_files", json!({"limit": 500, "include_folders": true})),
        ("list_files", json!({"folder": "Private"})),
        ("list_files", json!({"folder": "private"})),
        ("list_files", json!({"folder": "Shortcut"})),
        ("list_files", json!({"folder": "Journal"})),
        (
            "list_files",
            json!({"folder": "Archive", "include_folders": true}),
        ),
        ("search", json!({"query": "SECRETWORD", "limit": 500})),
        (
            "search",
            json!({"query": "secret", "limit": 500, "max_chars": 200_000}),
        ),
        (
            "search",
            json!({"query": ".", "regex": true, "limit": 500, "max_chars": 200_000}),
        ),
        ("search", json!({"query": "a", "path_prefix": "Private/"})),
        ("tags", json!({})),
        ("files_by_tag", json!({"tag": "secret-tag"})),
        ("files_by_tag", json!({"tag": "welcome"})),
        ("backlinks", json!({"path": "Home"})),
        ("backlinks", json!({"path": "Orphan"})),
        ("note_metadata", json!({"path": "Home"})),
        ("note_metadata", json!({"path": "Orphan"})),
        ("outgoing_links", json!({"path": "Notes/Links to hidden"})),
        ("orphans", json!({"limit": 500})),
        ("unresolved_links", json!({"limit": 500})),
        ("recent_files", json!({"limit": 500})),
        ("recent_files", json!({"source": "opened"})),
        ("daily_note", json!({"date": "2026-03-14"})),
        (
            "batch",
            json!({"calls": [
                {"tool": "read_note", "arguments": {"path": "Secret"}},
                {"tool": "list_files", "arguments": {"folder": "Private"}},
                {"tool": "search", "arguments": {"query": "SECRETWORD"}},
                {"tool": "backlinks", "arguments": {"path": "Home"}},
                {"tool": "vault_info"},
            ]}),
        ),
    ];
    for reference in [
        "Private/Secret.md",
        "Private/Secret",
        "private/secret.md",
        "PRIVATE/SECRET",
        "Secret",
        "[[Secret]]",
        "![[Secret|shown]]",
        "[[Private/Secret#Secret]]",
        "Hush",
        "Shortcut/Secret.md",
        "Shortcut/Secret",
        "alias.md",
        "alias",
        "Journal/Th\u{e9}rapie",
        "Journal/The\u{301}rapie.md",
        "journal/TH\u{c9}RAPIE",
        "The\u{301}rapie",
        "Archive/Note",
        "Old plan",
        "Daily/2026-03-14",
    ] {
        for tool in ["read_note", "note_metadata", "outline"] {
            calls.push((tool, json!({"path": reference})));
        }
    }
    calls
}

/// Runs the calls through `obsmcp bridge --vault` while Obsidian is closed (nothing listens on the plugin's port).
fn offline_answers(home: &TempHome, vault: &Path, calls: &[(&'static str, Value)]) -> Vec<Value> {
    let mut offline = Client::offline(home, vault);
    calls
        .iter()
        .map(|(tool, arguments)| offline.call(tool, arguments))
        .collect()
}

/// Writes a file of a test vault, making its folders.
fn write_into(vault: &Path, path: &str, text: &str) {
    let full = vault.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

/// The plugin's `data.json` text for `port` and `token`, plus `rules` (its hidden-path keys).
fn plugin_data(port: u16, token: &str, rules: Value) -> String {
    let mut data = json!({"port": port, "token": token, "readOnly": false});
    for (key, value) in rules.as_object().unwrap() {
        data[key] = value.clone();
    }
    data.to_string()
}

/// The fixture vault with private notes hidden every way the rules allow (a folder rule, a name rule in another case
/// and Unicode form, Obsidian's excluded files by prefix and by regex) and reachable every way a caller might try (a
/// symlinked folder and note, links, an alias, workspace history); `data.json` holds `port` and `token`.
#[cfg(unix)]
fn hide_private_notes(vault: &Path, port: u16, token: &str) {
    let write = |path: &str, text: &str| write_into(vault, path, text);
    write(
        "Private/Secret.md",
        "---\naliases: [Hush]\ntags: [secret-tag]\n---\n# Secret\nSECRETWORD [[Home]] [[Orphan]] #secret-inline\n",
    );
    write(
        "Journal/The\u{301}rapie.md",
        "SECRETWORD [[Home]] #secret-inline\n",
    );
    write(
        "Notes/Links to hidden.md",
        "[[Secret]] [[Private/Secret]] [[Th\u{e9}rapie]] [[Hush]] [[Old plan]] ![[alias]]\n",
    );
    // A visible note of the same name, longer than the hidden one: Obsidian's own resolution picks the hidden note,
    // so links and names must fall back to this one, as in a vault without the hidden note.
    write("Notes/Deeper/Secret.md", "the visible namesake\n");
    std::os::unix::fs::symlink("Private", vault.join("Shortcut")).unwrap();
    std::os::unix::fs::symlink("Private/Secret.md", vault.join("alias.md")).unwrap();
    write(
        ".obsidian/workspace.json",
        r#"{"lastOpenFiles": ["Private/Secret.md", "alias.md", "Home.md", "Journal/The\u0301rapie.md", "Archive/Note.md"]}"#,
    );
    let mut app: Value =
        serde_json::from_str(&std::fs::read_to_string(vault.join(".obsidian/app.json")).unwrap())
            .unwrap();
    app["userIgnoreFilters"] = json!(["Archive/", "/^Daily\\/2026-/", ""]);
    write(".obsidian/app.json", &app.to_string());
    write(
        ".obsidian/plugins/obsmcp/data.json",
        &plugin_data(
            port,
            token,
            json!({"hiddenPaths": ["/Private/", "  TH\u{c9}RAPIE  ", "# Diary", ""], "hideExcludedFiles": true}),
        ),
    );
}

/// Hidden paths through the real bridge with Obsidian closed: for every offline read tool, hidden notes and folders
/// (by a folder rule, a name rule in another case and Unicode form, Obsidian's excluded files by prefix and by
/// regex) do not exist, however they are named: another case, the decomposed `é`, a symlink to the hidden folder or
/// note, a `[[link]]` or name that would resolve to them, inside `batch`. The proof: the same calls, made again
/// after the hidden files are moved out of the vault and the rules dropped, get the very same answers, errors
/// included.
#[cfg(unix)]
#[test]
fn hidden_paths_do_not_exist_for_any_offline_tool_of_the_bridge() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    let port = free_port();
    hide_private_notes(&vault, port, token);
    let write = |path: &str, text: &str| write_into(&vault, path, text);
    let calls = hidden_path_calls();
    let hidden = offline_answers(&home, &vault, &calls);
    let leaks = [
        "SECRETWORD",
        "secret-tag",
        "secret-inline",
        "Private/Secret.md",
        "Shortcut",
        "alias.md",
        "rapie.md",
        "Archive/Note.md",
        "Archive/Old plan.md",
        "Daily/2026-03-14.md",
    ];
    for ((tool, arguments), answer) in calls.iter().zip(&hidden) {
        let text = answer["content"][0]["text"].as_str().unwrap_or_default();
        if answer["isError"] == json!(true) {
            assert!(
                text.starts_with("note not found: ")
                    || text.starts_with("folder not found: ")
                    || text.starts_with("no daily note for 2026-03-14"),
                "{tool} {arguments}: {text}"
            );
        } else {
            // A result may echo its own arguments (a search's query, a tag asked for).
            for leak in leaks
                .iter()
                .filter(|leak| !arguments.to_string().contains(*leak))
            {
                assert!(
                    !text.contains(leak),
                    "{tool} {arguments} shows {leak}: {text}"
                );
            }
        }
    }
    let unresolved = &hidden[calls
        .iter()
        .position(|(tool, _)| *tool == "unresolved_links")
        .unwrap()];
    let unresolved = unresolved["content"][0]["text"].as_str().unwrap();
    // `[[Secret]]` finds the visible namesake, as it would in a vault without the hidden note.
    let outgoing = &hidden[calls
        .iter()
        .position(|(tool, _)| *tool == "outgoing_links")
        .unwrap()];
    assert!(
        outgoing["content"][0]["text"].as_str().unwrap().contains(
            r#"{"link":"Secret","line":1,"embed":false,"resolved":"Notes/Deeper/Secret.md"}"#
        ),
        "{outgoing}"
    );
    for link in [
        "\"Private/Secret\"",
        "\"Th\u{e9}rapie\"",
        "\"alias\"",
        "\"Old plan\"",
    ] {
        assert!(
            unresolved.contains(link),
            "a link to a hidden note is unresolved: {link} in {unresolved}"
        );
    }

    let moved = home.path().join("moved");
    std::fs::create_dir_all(&moved).unwrap();
    for (index, path) in [
        "Private",
        "Journal/The\u{301}rapie.md",
        // The excluded-files filter `Archive/` hides the folder itself too.
        "Archive",
        "Daily/2026-03-14.md",
    ]
    .into_iter()
    .enumerate()
    {
        std::fs::rename(vault.join(path), moved.join(index.to_string())).unwrap();
    }
    write(
        ".obsidian/plugins/obsmcp/data.json",
        &plugin_data(port, token, json!({})),
    );
    let absent = offline_answers(&home, &vault, &calls);
    let differences: Vec<String> = calls
        .iter()
        .zip(hidden.iter().zip(&absent))
        .filter(|(_, (hidden, absent))| hidden != absent)
        .map(|((tool, arguments), (hidden, absent))| {
            format!("{tool} {arguments}:\n  hidden: {hidden}\n  absent: {absent}")
        })
        .collect();
    assert!(
        differences.is_empty(),
        "{} of {} calls differ from a vault without the hidden files:\n{}",
        differences.len(),
        calls.len(),
        differences.join("\n")
    );
}

/// The plugin and offline mode agree on a vault with hidden paths: the same calls, every way of naming a hidden note
/// included, give the same answers live (the plugin under Node, with Obsidian's own link resolution in the fake) and
/// from disk.
#[cfg(unix)]
#[test]
fn offline_results_equal_the_plugins_with_hidden_paths() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    hide_private_notes(&vault, free_port(), &"e".repeat(64));
    let host = start_host(&vault);
    let mut client = Client::live(&home, &vault);
    let mut calls: Vec<Call> = hidden_path_calls()
        .into_iter()
        .map(|(tool, arguments)| Call { tool, arguments })
        .collect();
    calls.extend(fixed_calls());
    // The plugin hides as offline mode does: nothing private in any answer.
    for Call { tool, arguments } in &calls {
        let text = text_of(&client.call(tool, arguments)).to_string();
        for leak in ["SECRETWORD", "secret-tag", "secret-inline"] {
            if !arguments.to_string().contains(leak) {
                assert!(
                    !text.contains(leak),
                    "{tool} {arguments} shows {leak}: {text}"
                );
            }
        }
    }
    drop(client);
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
    eprintln!("hidden-path parity: {count} calls, no difference");
}

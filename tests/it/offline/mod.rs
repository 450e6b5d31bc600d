//! Offline mode against the plugin itself, both through the real bridge as a client runs it (`obsmcp bridge
//! --vault`). The parity tests run one list of read calls while the plugin (its committed `main.js` hosted in Node on
//! the fake Obsidian) serves the vault, stop the plugin as Obsidian quitting would, run the same calls again, now
//! answered from disk, and compare the two field by field; every difference is reported at once. Then safety:
//! escapes, symlinks out of the vault, app-only tools, hidden paths and the 20 MB note. This file holds the harness (a
//! client's bridge, the field-by-field comparison, the parity run); the tests are grouped by what they guard, one
//! file each.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::bridge::Bridge;
use crate::support::{PluginHost, TempHome, fixture_vault, free_port, node, write_plugin_data};

mod hidden;
mod index;
mod parity;
mod resources;
mod safety;
mod structures;
mod symlinks;
mod vectors;

/// The token the tests' plugin hosts run with.
pub(super) const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// A client's bridge on the vault, after the handshake, and where its answers must come from.
pub(super) struct Client {
    pub(super) bridge: Bridge,
    side: Side,
    /// The tools its index answers, as `obsidian_status` lists them (`indexed`); the parity test in `index.rs` checks
    /// by count that each one it calls was answered so.
    from_index: Vec<String>,
}

/// Which side a client's bridge must have answered from.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    /// The plugin, every call (`--index-search never`).
    Plugin,
    /// The vault folder, every call: Obsidian is closed.
    Disk,
    /// The plugin, but text searches from the bridge's index (`--index-search always`, once it is ready).
    PluginAndIndex,
}

impl Client {
    /// A bridge while the plugin runs: every answer must come from it.
    pub(super) fn live(home: &TempHome, vault: &Path) -> Self {
        Self::start(home, vault, Side::Plugin, "never")
    }

    /// A bridge while the plugin runs that answers searches from its own index (`--index-search` `when`: `always`,
    /// or `auto` with a saved index): its answers must come from the plugin, the searches' from the index. Returns
    /// once the index answers searches.
    pub(super) fn indexed(home: &TempHome, vault: &Path, when: &str) -> Self {
        let mut client = Self::start(home, vault, Side::PluginAndIndex, when);
        let started = std::time::Instant::now();
        loop {
            let status = client.bridge.call_tool("obsidian_status", json!({}));
            let index = &status["result"]["structuredContent"]["indexSearch"];
            if index["answersSearches"] == true {
                client.from_index = index["tools"]
                    .as_array()
                    .map(|tools| {
                        tools
                            .iter()
                            .filter_map(|tool| tool.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                return client;
            }
            assert!(
                started.elapsed() < std::time::Duration::from_secs(60),
                "the index never came to answer searches: {index}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// A bridge while Obsidian is closed (nothing listens on the plugin's port): every answer must come from disk.
    pub(super) fn offline(home: &TempHome, vault: &Path) -> Self {
        if !vault.join(".obsidian/plugins/obsmcp/data.json").exists() {
            write_plugin_data(vault, free_port(), TOKEN);
        }
        Self::start(home, vault, Side::Disk, "auto")
    }

    fn start(home: &TempHome, vault: &Path, side: Side, index_search: &str) -> Self {
        let mut bridge = Bridge::start(
            home,
            &[
                "--vault",
                vault.to_str().unwrap(),
                "--connect-wait",
                "1",
                "--index-search",
                index_search,
            ],
        );
        bridge.initialize();
        if side != Side::Disk {
            until_obsidian_indexed(&mut bridge);
        }
        Self {
            bridge,
            side,
            from_index: Vec::new(),
        }
    }

    /// The result of one tool call.
    pub(super) fn call(&mut self, tool: &str, arguments: &Value) -> Value {
        let answer = self.bridge.call_tool(tool, arguments.clone());
        let source = answer["result"]["_meta"]["obsmcp/source"].as_str();
        let expected = match self.side {
            Side::Plugin => None,
            Side::Disk => Some("disk"),
            Side::PluginAndIndex if self.from_index.iter().any(|listed| listed == tool) => {
                Some("index")
            }
            Side::PluginAndIndex => None,
        };
        assert_eq!(
            source, expected,
            "{tool} {arguments} was answered from the wrong side: {answer}"
        );
        answer["result"].clone()
    }
}

/// Waits until the plugin says Obsidian's metadata cache is complete (`obsidian_status`'s `obsidianIndex`), as a
/// client that wants complete answers would: the host, like Obsidian, listens while it still indexes, and parity is
/// about complete answers (the incomplete ones are tested in `bridge::vault::startup`).
fn until_obsidian_indexed(bridge: &mut Bridge) {
    let started = std::time::Instant::now();
    loop {
        let status = bridge.call_tool("obsidian_status", json!({}));
        let index = &status["result"]["structuredContent"]["obsidianIndex"];
        if index["state"] == "resolved" {
            return;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "Obsidian's index never completed: {status}"
        );
        // Not connected yet: any call brings the session up (vault_info answers at once).
        if index.is_null() {
            bridge.call_tool("vault_info", json!({}));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A vault of `notes` generated notes (`obsidian-plugin/test/gen-vault.mjs`, seeded), in the home.
pub(super) fn generated_vault(home: &TempHome, notes: usize, seed: u32) -> std::path::PathBuf {
    let vault = home.path().join("vault");
    let (notes, seed) = (notes.to_string(), seed.to_string());
    node(&[
        "obsidian-plugin/test/gen-vault.mjs",
        vault.to_str().unwrap(),
        "--notes",
        &notes,
        "--seed",
        &seed,
    ]);
    vault
}

/// The plugin hosted in Node on `vault`, with the tests' token.
pub(super) fn start_host(vault: &Path) -> PluginHost {
    PluginHost::start(vault, free_port(), TOKEN, &[])
}

/// One call of the parity list.
pub(super) struct Call {
    pub(super) tool: &'static str,
    pub(super) arguments: Value,
}

pub(super) fn call(tool: &'static str, arguments: Value) -> Call {
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

pub(super) fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("")
}

/// Compares one call's two results; returns the differences.
pub(super) fn compare(live: &Value, offline: &Value) -> Vec<String> {
    let offline = without_disk_marks(offline);
    let mut out = Vec::new();
    // An attachment's image, audio or resource block follows its text block.
    let rest = |result: &Value| {
        result["content"]
            .as_array()
            .map(|content| content.iter().skip(1).cloned().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    diff(
        ".content[1..]",
        &json!(rest(live)),
        &json!(rest(&offline)),
        &mut out,
    );
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
            // Syntax neither engine has (look-around, backreferences) is refused in the same words by both.
            let shared =
                a.contains("patterns are RE2 syntax") || b.contains("patterns are RE2 syntax");
            if (shared && a != b) || a.split(": ").next() != b.split(": ").next() {
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

/// An offline (or index) result as the plugin would have sent it: without `_meta` and the `served_from` mark (the last field of
/// a JSON result, or the end of a read's header line).
fn without_disk_marks(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(object) = result.as_object_mut() {
        object.remove("_meta");
    }
    let text = text_of(&result).to_string();
    let plain = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(mut object))
            if matches!(
                object.get("served_from").and_then(Value::as_str),
                Some("disk" | "index")
            ) =>
        {
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
pub(super) fn notes_of(root: &Path) -> Vec<String> {
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

/// Runs every call through a bridge while the plugin serves the vault, stops the plugin, and runs them again through
/// a bridge answering from disk; returns the number of calls and the differences.
pub(super) fn run_parity(
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
pub(super) fn assert_same(count: usize, differences: &[String]) {
    assert!(
        differences.is_empty(),
        "{} of {count} calls differ:\n{}",
        differences.len(),
        differences.join("\n")
    );
}

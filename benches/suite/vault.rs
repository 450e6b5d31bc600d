//! Measure 8, obsmcp only: search, backlinks, listing, `resources/list`, path completion, tasks, properties and a
//! Bases view on a generated 10,000-note vault
//! (`obsidian-plugin/test/gen-vault.mjs`, deterministic), three ways in one run — straight to the plugin over HTTP,
//! through `obsmcp bridge` to the plugin, and through `obsmcp bridge` from disk with the plugin down (offline mode).
//! The peers have no offline mode, and through the plugin they would add only their per-call overhead (measure 3).
//!
//! Each case runs as many rounds as the plan says and reports medians; a case that pages (`list_files` of the whole
//! vault) counts the pages, which must agree on all three paths. The cold offline figure is a fresh bridge's first
//! answer with Obsidian closed: spawn, `initialize` and a search that scans every note, index build included.

use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use super::Plan;
use super::bridges::{BridgeKind, TOKEN};
use super::direct::Direct;
use super::stats::{median, millis, peak_rss_mb};
use crate::support::bridge::Bridge;
use crate::support::{PluginHost, TempHome, free_port, repo_root, write_plugin_data};

/// One measured case: a tool call, or (`list_all`) `list_files` paged to the end, (`resources_all`) `resources/list`
/// paged to the end, or (`complete`) `completion/complete` of the file template's path with `arguments.value`.
struct Case {
    label: &'static str,
    tool: &'static str,
    arguments: Value,
}

fn cases() -> Vec<Case> {
    // Each call names the plugin's default `max_chars`: the bridge gives a call without one its client's budget, and
    // the plugin's answer it passes on must be the one the direct call gets.
    let case = |label, tool, mut arguments: Value| {
        if !matches!(tool, "list_all" | "resources_all" | "complete") {
            arguments["max_chars"] = json!(20_000);
        }
        Case {
            label,
            tool,
            arguments,
        }
    };
    vec![
        case(
            "search text, common word",
            "search",
            json!({"query": "harbor", "mode": "phrase"}),
        ),
        case(
            "search text, absent (scans all)",
            "search",
            json!({"query": "zqxjv absent", "mode": "phrase"}),
        ),
        case(
            "search words, three anywhere in a note",
            "search",
            json!({"query": "harbor lantern quartz"}),
        ),
        case(
            "search words, ranked question (BM25)",
            "search",
            json!({"query": "how does the harbor lantern guide the glacier", "rank": true}),
        ),
        case(
            "search words, operators",
            "search",
            json!({"query": "tag:status -tag:status/done line:(river stone)"}),
        ),
        case(
            "search regex, common",
            "search",
            json!({"query": "ledger\\s+\\w+", "regex": true}),
        ),
        case(
            "search regex, absent (scans all)",
            "search",
            json!({"query": "zqx[0-9]+jv", "regex": true}),
        ),
        case("backlinks of Hub", "backlinks", json!({"path": "Hub"})),
        case(
            "list_files, one page of 500",
            "list_files",
            json!({"limit": 500}),
        ),
        case("list_files, whole vault (all pages)", "list_all", json!({})),
        case("resources/list, every page", "resources_all", json!({})),
        case(
            "completion, \"note 1\" (name prefix)",
            "complete",
            json!({"value": "note 1"}),
        ),
        case("tasks, whole vault (open, first page)", "tasks", json!({})),
        case(
            "tasks, done ones sorted by date",
            "tasks",
            json!({"status": "done", "sort": "date"}),
        ),
        case("properties, every name", "properties", json!({})),
        case(
            "properties, values of status",
            "properties",
            json!({"name": "status"}),
        ),
        case(
            "bases, a view over every note (filter, formula, sort)",
            "bases",
            json!({"base": "Bench.base"}),
        ),
        case(
            "completion, \"hbrldg\" (letters in order)",
            "complete",
            json!({"value": "hbrldg"}),
        ),
        case(
            "completion, nothing typed (newest first)",
            "complete",
            json!({"value": ""}),
        ),
    ]
}

/// The label of the case that the summary rows report: the worst case for search, a scan of every note.
pub const WORST_SEARCH: &str = "search text, absent (scans all)";

/// Medians of one case on each path, in ms.
#[derive(Clone)]
pub struct CaseFigures {
    pub label: &'static str,
    pub pages: usize,
    pub direct_ms: f64,
    pub bridge_ms: f64,
    pub offline_ms: f64,
}

/// Everything measure 8 found.
#[derive(Clone)]
pub struct VaultFigures {
    /// The generator's summary line.
    pub vault: String,
    pub notes: usize,
    pub rounds: usize,
    pub generate_ms: f64,
    /// Plugin host start (it loads and indexes the vault) until `listening`.
    pub host_start_ms: f64,
    pub cases: Vec<CaseFigures>,
    /// A fresh bridge with the plugin down: spawn → first offline search answered.
    pub offline_cold_ms: f64,
    /// The same for the next bridge, which starts from the index the first one saved.
    pub offline_saved_ms: f64,
    /// Peak RSS of the offline bridge after all its cases.
    pub offline_rss_mb: Option<f64>,
}

/// The cases of the large vault: what must stay fast at 100,000 notes, resources and completion.
fn large_cases() -> Vec<Case> {
    cases()
        .into_iter()
        .filter(|case| matches!(case.tool, "resources_all" | "complete"))
        .collect()
}

/// Runs measure 8; progress goes to stderr.
pub fn measure(plan: &Plan) -> VaultFigures {
    measure_vault(plan.notes, plan.rounds, &cases())
}

/// Measure 8 on the large vault (100,000 notes), for resources and completion.
pub fn measure_large(plan: &Plan) -> VaultFigures {
    measure_vault(plan.large_notes, plan.large_rounds, &large_cases())
}

fn measure_vault(notes: usize, rounds: usize, cases: &[Case]) -> VaultFigures {
    let home = TempHome::new();
    let vault = home.path().join("Vault");
    let started = Instant::now();
    let summary = generate(&vault, notes);
    let generate_ms = millis(started.elapsed());
    // A base for the `bases` case: every note is tested against the filter, each row computes a formula.
    let base = r#"filters:
  and:
    - file.ext == "md"
    - 'file.hasTag("project") || status == "active"'
formulas:
  words: "file.size / 6"
views:
  - type: table
    name: Active projects
    order: [file.name, status, formula.words]
    sort:
      - property: file.mtime
        direction: DESC
"#;
    std::fs::write(vault.join("Bench.base"), base).unwrap();
    eprintln!("[vault] {summary}");
    let port = free_port();
    write_plugin_data(&vault, port, TOKEN);

    let started = Instant::now();
    // Obsidian open a while: the plugin's answers are complete from the first timed call.
    let host = PluginHost::start(&vault, port, TOKEN, &["--wait-indexed"]);
    let host_start_ms = millis(started.elapsed());
    let direct = Direct::connect(port);
    let mut bridge = BridgeKind::Obsmcp.start(&home, &vault, port);
    bridge.initialize();

    let mut online = Vec::new();
    for case in cases {
        // The first round is a warm-up, and checks that the bridge passes the plugin's answer on unchanged.
        let from_plugin = run_case(case, |method, params| direct.request(method, params));
        let through = run_case(case, |method, params| request(&mut bridge, method, params));
        assert_eq!(
            from_plugin, through,
            "{}: the bridge changed the plugin's answer",
            case.label
        );
        let (mut straight, mut bridged) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            straight.push(timed(|| {
                run_case(case, |method, params| direct.request(method, params))
            }));
            bridged.push(timed(|| {
                run_case(case, |method, params| request(&mut bridge, method, params))
            }));
        }
        eprintln!(
            "[vault] {}: plugin {:.1} ms, through obsmcp {:.1} ms",
            case.label,
            median(&straight),
            median(&bridged)
        );
        online.push((from_plugin.len(), median(&straight), median(&bridged)));
    }
    drop(bridge);
    drop(direct);
    host.stop();

    let started = Instant::now();
    let mut offline = BridgeKind::Obsmcp.start(&home, &vault, port);
    offline.initialize();
    let first = request(
        &mut offline,
        "tools/call",
        &json!({"name": "search", "arguments": {"query": "zqxjv absent"}}),
    );
    let offline_cold_ms = millis(started.elapsed());
    assert_eq!(
        first["_meta"]["obsmcp/source"], "disk",
        "with the plugin down, the bridge answers from disk: {first}"
    );
    eprintln!("[vault] offline cold (spawn -> first search answered): {offline_cold_ms:.0} ms");
    let mut figures = Vec::new();
    for (case, (pages, direct_ms, bridge_ms)) in cases.iter().zip(online) {
        let answered = run_case(case, |method, params| request(&mut offline, method, params));
        assert_eq!(
            answered.len(),
            pages,
            "{}: pages offline and from the plugin",
            case.label
        );
        let disk: Vec<f64> = (0..rounds)
            .map(|_| {
                timed(|| run_case(case, |method, params| request(&mut offline, method, params)))
            })
            .collect();
        eprintln!("[vault] {}: offline {:.1} ms", case.label, median(&disk));
        figures.push(CaseFigures {
            label: case.label,
            pages,
            direct_ms,
            bridge_ms,
            offline_ms: median(&disk),
        });
    }
    let offline_rss_mb = peak_rss_mb(offline.guard.pid());
    drop(offline);

    let started = Instant::now();
    let mut next = BridgeKind::Obsmcp.start(&home, &vault, port);
    next.initialize();
    let first = request(
        &mut next,
        "tools/call",
        &json!({"name": "search", "arguments": {"query": "zqxjv absent"}}),
    );
    let offline_saved_ms = millis(started.elapsed());
    assert_eq!(first["_meta"]["obsmcp/source"], "disk", "{first}");
    eprintln!(
        "[vault] offline from the saved index (spawn -> first search answered): {offline_saved_ms:.0} ms"
    );
    drop(next);

    VaultFigures {
        vault: summary,
        notes,
        rounds,
        generate_ms,
        host_start_ms,
        cases: figures,
        offline_cold_ms,
        offline_saved_ms,
        offline_rss_mb,
    }
}

/// Generates the vault with the plugin's deterministic generator; returns its summary line, less the folder's path
/// (a temporary folder of this machine, which has no place in committed results).
pub fn generate(vault: &Path, notes: usize) -> String {
    generate_with_prose(vault, notes, 0)
}

/// [`generate`] with `prose` sentences added to each section: 0 gives notes of about 0.8 KB, 9 of about 2.4 KB.
pub fn generate_with_prose(vault: &Path, notes: usize, prose: u32) -> String {
    let output = std::process::Command::new("node")
        .arg(repo_root().join("obsidian-plugin/test/gen-vault.mjs"))
        .arg(vault)
        .args(["--notes", &notes.to_string()])
        .args(["--prose", &prose.to_string()])
        .output()
        .expect("node runs");
    assert!(
        output.status.success(),
        "gen-vault.mjs failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = String::from_utf8_lossy(&output.stdout).trim().to_string();
    let folder = format!(" under {}", vault.display());
    summary.replacen(&folder, "", 1)
}

/// A request through a bridge; returns the `result`, which must be neither an error nor a tool error.
fn request(bridge: &mut Bridge, method: &str, params: &Value) -> Value {
    let answer = bridge.request(method, params.clone());
    let result = answer["result"].clone();
    assert!(
        result.is_object() && result.get("isError").is_none(),
        "{method}: {answer}"
    );
    result
}

fn timed<T>(run: impl FnOnce() -> T) -> f64 {
    let started = Instant::now();
    run();
    millis(started.elapsed())
}

/// Runs one case through `request` (a JSON-RPC method and its params, to the result) and returns the text of each
/// page (one page for a plain call) without offline marks.
fn run_case(case: &Case, mut request: impl FnMut(&str, &Value) -> Value) -> Vec<String> {
    let tool = |request: &mut dyn FnMut(&str, &Value) -> Value, name: &str, arguments: &Value| {
        text_of(&request(
            "tools/call",
            &json!({ "name": name, "arguments": arguments }),
        ))
    };
    match case.tool {
        "list_all" => {
            let mut pages = Vec::new();
            let mut cursor: Option<String> = None;
            loop {
                let mut arguments = json!({"limit": 500, "max_chars": 200_000});
                if let Some(cursor) = &cursor {
                    arguments["cursor"] = json!(cursor);
                }
                let page = tool(&mut request, "list_files", &arguments);
                let listing: Value = serde_json::from_str(&page).expect("list_files answers JSON");
                cursor = listing["next_cursor"].as_str().map(str::to_string);
                pages.push(page);
                if cursor.is_none() {
                    return pages;
                }
            }
        }
        "resources_all" => {
            let mut pages = Vec::new();
            let mut cursor: Option<String> = None;
            loop {
                let params = cursor
                    .as_ref()
                    .map_or_else(|| json!({}), |cursor| json!({ "cursor": cursor }));
                let page = without_meta(request("resources/list", &params));
                cursor = page["nextCursor"].as_str().map(str::to_string);
                pages.push(page.to_string());
                if cursor.is_none() {
                    return pages;
                }
            }
        }
        "complete" => {
            let params = json!({
                "ref": {"type": "ref/resource", "uri": "obsidian://vault/{+path}"},
                "argument": {"name": "path", "value": case.arguments["value"]},
            });
            vec![without_meta(request("completion/complete", &params)).to_string()]
        }
        name => vec![tool(&mut request, name, &case.arguments)],
    }
}

/// A result without its `_meta` (where offline mode marks its answers).
fn without_meta(mut result: Value) -> Value {
    if let Some(object) = result.as_object_mut() {
        object.remove("_meta");
    }
    result
}

fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

//! Offline mode against the plugin on the generated 10,000-note vault, side by side in one run: medians of search
//! (text and regex, a common word that fills a page early and a missing word that scans every note), backlinks of
//! the hub note and file listing, plus the cold index build time and the memory it takes.
//!
//! Run (release build, prints a table on stderr):
//!   cargo test --release --test it offline_benchmark -- --ignored --nocapture
//! `OBSMCP_BENCH_NOTES` changes the note count (default 10000), `OBSMCP_BENCH_ROUNDS` the rounds (default 15).
//! The plugin is timed through its MCP endpoint (one HTTP round trip per call); offline mode through
//! `OfflineVault::call_tool` with its default refresh interval (the folder is checked at most once a second), and
//! once more with the folder checked on every call.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::offline_impl::OfflineVault;
use super::support::{self, Client, Host};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Resident memory of this process in KiB (Linux), for the index's footprint.
fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("")
}

/// Runs the benchmark and prints the table.
pub fn run() {
    let notes = env_number("OBSMCP_BENCH_NOTES", 10_000);
    let rounds = env_number("OBSMCP_BENCH_ROUNDS", 15).max(1);
    let dir = tempfile::Builder::new()
        .prefix("obsmcp-bench-")
        .tempdir()
        .unwrap();
    let vault = dir.path().join("vault");
    let summary = support::node(&[
        "obsidian-plugin/test/gen-vault.mjs",
        vault.to_str().unwrap(),
        "--notes",
        &notes.to_string(),
    ]);
    eprintln!("vault: {}", summary.trim());

    let rss_before = rss_kib();
    let offline = OfflineVault::open(&vault, None).unwrap();
    let (cold, stats) = offline.warm();
    let rss_after = rss_kib();
    let (warm_refresh, _) = offline.warm();
    eprintln!(
        "offline cold index build: {:.0} ms for {} files / {} notes ({:.1} MB of text); refresh of the unchanged vault: {:.1} ms",
        ms(cold),
        stats.files,
        stats.notes,
        stats.text_bytes as f64 / 1e6,
        ms(warm_refresh)
    );
    if let (Some(before), Some(after)) = (rss_before, rss_after) {
        eprintln!(
            "offline index memory: +{:.1} MB RSS",
            after.saturating_sub(before) as f64 / 1024.0
        );
    }

    // A second index that checks the folder on every call, to show what that check costs.
    let checking = OfflineVault::open(&vault, None)
        .unwrap()
        .with_refresh_interval(Duration::ZERO);
    checking.warm();

    let started = Instant::now();
    let host = Host::start(&vault);
    let mut client = Client::connect(&host);
    eprintln!(
        "plugin host start (loads and indexes the vault): {:.0} ms",
        ms(started.elapsed())
    );

    let cases: Vec<(&str, &str, Value)> = vec![
        (
            "search text, common word",
            "search",
            json!({"query": "harbor"}),
        ),
        (
            "search text, absent (scans all)",
            "search",
            json!({"query": "zqxjv absent"}),
        ),
        (
            "search regex, common",
            "search",
            json!({"query": "ledger\\s+\\w+", "regex": true}),
        ),
        (
            "search regex, absent (scans all)",
            "search",
            json!({"query": "zqx[0-9]+jv", "regex": true}),
        ),
        ("backlinks of Hub", "backlinks", json!({"path": "Hub"})),
        (
            "list_files, one page of 500",
            "list_files",
            json!({"limit": 500}),
        ),
        ("list_files, whole vault (all pages)", "list_all", json!({})),
    ];

    eprintln!(
        "\n| operation | plugin median (ms) | offline median (ms) | speed-up | offline, folder checked every call (ms) |"
    );
    eprintln!("| --- | ---: | ---: | ---: | ---: |");
    for (label, tool, arguments) in cases {
        let mut live = Vec::new();
        let mut disk = Vec::new();
        let mut checked = Vec::new();
        for _ in 0..rounds {
            let started = Instant::now();
            let pages_live = run_case(tool, &arguments, |name, args| client.call(name, args));
            live.push(started.elapsed());
            let started = Instant::now();
            let pages_disk = run_case(tool, &arguments, |name, args| {
                offline.call_tool(name, args.clone()).unwrap()
            });
            disk.push(started.elapsed());
            assert_eq!(
                pages_live, pages_disk,
                "{label}: both sides returned the same number of pages"
            );
            let started = Instant::now();
            run_case(tool, &arguments, |name, args| {
                checking.call_tool(name, args.clone()).unwrap()
            });
            checked.push(started.elapsed());
        }
        let (live, disk, checked) = (median(live), median(disk), median(checked));
        eprintln!(
            "| {label} | {:.2} | {:.2} | {:.1}x | {:.2} |",
            ms(live),
            ms(disk),
            ms(live) / ms(disk).max(1e-6),
            ms(checked)
        );
    }
}

/// Runs one benchmark case; `list_all` pages through the whole listing. Returns the number of pages.
fn run_case(tool: &str, arguments: &Value, mut call: impl FnMut(&str, &Value) -> Value) -> usize {
    if tool != "list_all" {
        let result = call(tool, arguments);
        assert!(
            result.get("isError").is_none(),
            "{tool}: {}",
            text_of(&result)
        );
        return 1;
    }
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut args = json!({"limit": 500, "max_chars": 200_000});
        if let Some(cursor) = &cursor {
            args["cursor"] = json!(cursor);
        }
        let result = call("list_files", &args);
        let page: Value = serde_json::from_str(text_of(&result)).expect("list_files answers JSON");
        pages += 1;
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => return pages,
        }
    }
}

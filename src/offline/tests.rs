//! `OfflineVault` end to end on vault folders: the marks, the refresh, the memory budget and the refusals (through
//! its private state, hence here beside it).

use std::time::Instant;

use super::*;
use crate::lock::lock;

/// A vault folder holding `files` (path, text), opened offline.
pub(super) fn vault(files: &[(&str, &str)]) -> (tempfile::TempDir, OfflineVault) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    let offline = OfflineVault::open(dir.path(), None).unwrap();
    (dir, offline)
}

pub(super) fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap()
}

#[test]
fn results_are_marked_as_served_from_disk() {
    let (_dir, offline) = vault(&[("a.md", "# A\n[[b]]\n"), ("b.md", "x")]);
    let listing = offline.call_tool("list_files", json!({})).unwrap();
    assert!(
        text(&listing).ends_with(r#","served_from":"disk"}"#),
        "{}",
        text(&listing)
    );
    assert_eq!(listing["_meta"][SOURCE_META_KEY], "disk");
    assert!(listing.get("isError").is_none());
    let read = offline
        .call_tool("read_note", json!({"path": "a"}))
        .unwrap();
    let header = text(&read).lines().next().unwrap();
    assert!(
        header.starts_with("[lines 1-2 of 2] path=\"a.md\" sha256=")
            && header.ends_with(" served_from=disk"),
        "{header}"
    );
    let plain = strip_disk_marks(&read);
    assert!(!text(&plain).contains("served_from=disk") && plain.get("_meta").is_none());
}

/// A vault whose index passes the memory budget degrades by saying so: the word index goes, every
/// search reads every note and finds exactly what it found with the index, and opens with a notice; status
/// says why.
#[test]
fn an_index_over_its_memory_budget_drops_its_word_index_and_says_so() {
    let files: Vec<(String, String)> = (0..200)
        .map(|i| {
            (
                format!("n{i}.md"),
                format!("note {i} words alpha{i} shared\n"),
            )
        })
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let (_dir, roomy) = vault(&files);
    let (_other, tight) = vault(&files);
    let tight = tight.with_memory_budget_mb(0);
    for query in ["shared", "alpha17", "absent"] {
        let arguments = json!({"query": query});
        let with_index: Value =
            serde_json::from_str(text(&roomy.call_tool("search", arguments.clone()).unwrap()))
                .unwrap();
        let without: Value =
            serde_json::from_str(text(&tight.call_tool("search", arguments).unwrap())).unwrap();
        let mut fields = without.as_object().unwrap().clone();
        let (first, notice) = fields
            .iter()
            .next()
            .map(|(k, v)| (k.clone(), v.clone()))
            .unwrap();
        assert_eq!(
            first, INDEX_LIMITED_KEY,
            "the notice comes first: {without}"
        );
        assert!(
            notice.as_str().unwrap().contains("--index-memory-mb"),
            "{notice}"
        );
        fields.remove(INDEX_LIMITED_KEY);
        assert_eq!(
            Value::Object(fields),
            with_index,
            "the same matches for {query}"
        );
    }
    assert!(
        !text(
            &roomy
                .call_tool("search", json!({"query": "shared"}))
                .unwrap()
        )
        .contains(INDEX_LIMITED_KEY)
    );
    let status = tight.describe().unwrap();
    assert!(
        status["wordIndex"].as_str().unwrap().starts_with("dropped"),
        "{status}"
    );
    assert_eq!(status["memoryBudgetMB"], 0);
    let roomy = roomy.describe().unwrap();
    assert!(
        roomy["wordIndex"].as_str().unwrap().starts_with("kept"),
        "{roomy}"
    );
    assert_eq!(roomy["notes"], 200);
}

#[test]
fn app_only_tools_say_obsidian_must_be_open() {
    let (dir, offline) = vault(&[("a.md", "x")]);
    for (name, arguments) in [
        ("active_note", json!({})),
        ("create_note", json!({"path": "new", "content": "x"})),
        ("append", json!({"path": "a", "content": "y"})),
        ("delete_note", json!({"path": "a"})),
    ] {
        let result = offline.call_tool(name, arguments).unwrap();
        assert_eq!(result["isError"], true, "{name}");
        assert!(
            text(&result).contains("needs Obsidian to be open"),
            "{name}: {}",
            text(&result)
        );
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.md")).unwrap(),
        "x",
        "nothing was written"
    );
    assert!(!dir.path().join("new.md").exists());
    assert!(offline.call_tool("obsidian_status", json!({})).is_none());
}

#[test]
fn edits_on_disk_are_seen_by_the_next_call() {
    let (dir, offline) = vault(&[("a.md", "old [[b]]"), ("b.md", "")]);
    let offline = offline.with_refresh_interval(Duration::ZERO);
    let first = offline
        .call_tool("backlinks", json!({"path": "b"}))
        .unwrap();
    assert!(text(&first).contains(r#""total":1"#), "{}", text(&first));
    std::fs::write(dir.path().join("a.md"), "new text, no link, longer").unwrap();
    let second = offline
        .call_tool("backlinks", json!({"path": "b"}))
        .unwrap();
    assert!(text(&second).contains(r#""total":0"#), "{}", text(&second));
    std::fs::write(dir.path().join("c.md"), "[[b]]").unwrap();
    let third = offline
        .call_tool("backlinks", json!({"path": "b"}))
        .unwrap();
    assert!(
        text(&third).contains(r#""path":"c.md""#),
        "{}",
        text(&third)
    );
}

#[test]
fn search_finds_the_words_an_edit_brings_and_forgets_the_ones_it_takes() {
    let (dir, offline) = vault(&[("a.md", "alpha beta"), ("b.md", "gamma")]);
    let offline = offline.with_refresh_interval(Duration::ZERO);
    let matches = |query: &str| {
        let result = offline
            .call_tool("search", json!({"query": query}))
            .unwrap();
        let parsed: Value = serde_json::from_str(text(&result)).unwrap();
        parsed["total_matches"].as_u64().unwrap()
    };
    assert_eq!((matches("alpha"), matches("delta")), (1, 0));
    // Each edit changes the size, so that it is seen even within one tick of the clock.
    for round in 0..40 {
        let text = format!("delta {round} and more text{}", "!".repeat(round));
        std::fs::write(dir.path().join("a.md"), text).unwrap();
        assert_eq!(matches("delta"), 1, "round {round}");
    }
    assert_eq!(matches("alpha"), 0, "the old words are gone");
    assert_eq!(matches(&format!("delta {}", 39)), 1);
    std::fs::remove_file(dir.path().join("a.md")).unwrap();
    assert_eq!((matches("delta"), matches("gamma")), (0, 1));
}

/// The next call that sees `expected` in `text(call())`, within five seconds: a watcher learns of a change a
/// moment after it is made.
pub(super) fn eventually(call: impl Fn() -> Value, expected: &str) -> Value {
    let started = Instant::now();
    loop {
        let result = call();
        if text(&result).contains(expected) || started.elapsed() > Duration::from_secs(5) {
            return result;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[cfg(unix)]
#[test]
fn the_watcher_does_not_follow_a_symlink_out_of_the_vault() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("elsewhere.md"), "x").unwrap();
    let (dir, offline) = vault(&[("a.md", "one")]);
    std::os::unix::fs::symlink(outside.path(), dir.path().join("linked")).unwrap();
    let search = || {
        offline
            .call_tool("search", json!({"query": "one"}))
            .unwrap()
    };
    let _ = search();
    assert!(lock(&offline.state).watch.is_some());
    // The walk the first build owes (the bridge runs it beside the first answer).
    offline.fresh_snapshot(false).unwrap();
    let checked = lock(&offline.state).checked;
    std::fs::write(outside.path().join("elsewhere.md"), "changed outside").unwrap();
    std::fs::write(outside.path().join("new.md"), "new outside").unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let _ = search();
    assert_eq!(
        lock(&offline.state).checked,
        checked,
        "a change outside the vault made the index walk it again"
    );
}

#[test]
fn with_the_watcher_an_unchanged_vault_is_never_walked_and_every_change_is_seen() {
    let (dir, offline) = vault(&[("a.md", "one [[b]]"), ("b.md", "two")]);
    let search = |query: &str| {
        offline
            .call_tool("search", json!({"query": query}))
            .unwrap()
    };
    assert!(text(&search("one")).contains(r#""total_matches":1"#));
    assert!(
        lock(&offline.state).watch.is_some(),
        "{:?}",
        lock(&offline.state).watch_trouble
    );
    // The walk the first build owes (the bridge runs it beside the first answer).
    offline.fresh_snapshot(false).unwrap();
    let checked = lock(&offline.state).checked;
    std::thread::sleep(Duration::from_millis(1100));
    let _ = search("one");
    assert_eq!(
        lock(&offline.state).checked,
        checked,
        "a pause longer than the refresh interval did not make the next call walk the vault"
    );

    // Created, edited, renamed, deleted: each seen by a following call.
    std::fs::write(dir.path().join("c.md"), "three one").unwrap();
    let created = eventually(|| search("three"), r#""total_matches":1"#);
    assert!(
        text(&created).contains(r#""path":"c.md""#),
        "{}",
        text(&created)
    );
    std::fs::write(dir.path().join("c.md"), "four, longer than before").unwrap();
    let edited = eventually(|| search("four"), r#""total_matches":1"#);
    assert!(
        text(&edited).contains(r#""path":"c.md""#),
        "{}",
        text(&edited)
    );
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::rename(dir.path().join("c.md"), dir.path().join("sub/d.md")).unwrap();
    let renamed = eventually(|| search("four"), r#""path":"sub/d.md""#);
    assert!(
        text(&renamed).contains(r#""total_matches":1"#),
        "{}",
        text(&renamed)
    );
    std::fs::remove_file(dir.path().join("sub/d.md")).unwrap();
    let deleted = eventually(|| search("four"), r#""total_matches":0"#);
    assert!(
        text(&deleted).contains(r#""total_matches":0"#),
        "{}",
        text(&deleted)
    );
    std::fs::write(dir.path().join("a.md"), "no link now").unwrap();
    let backlinks = eventually(
        || {
            offline
                .call_tool("backlinks", json!({"path": "b"}))
                .unwrap()
        },
        r#""total":0"#,
    );
    assert!(
        text(&backlinks).contains(r#""total":0"#),
        "{}",
        text(&backlinks)
    );
}

#[test]
fn the_watcher_sees_folders_made_after_start_and_rules_in_the_config_folder() {
    let (dir, offline) = vault(&[("a.md", "one")]);
    let search = |query: &str| {
        offline
            .call_tool("search", json!({"query": query}))
            .unwrap()
    };
    let seen = |query: &str, expected: &str| {
        let result = eventually(|| search(query), expected);
        assert!(
            text(&result).contains(expected),
            "{query}: {}",
            text(&result)
        );
    };
    let checked = || lock(&offline.state).checked;
    // After a change in the vault, the next call walks it (and so watches the folders it finds).
    let walked_after = |change: &dyn Fn()| {
        let before = checked();
        change();
        std::thread::sleep(Duration::from_millis(100));
        let _ = search("one");
        assert_ne!(checked(), before, "a change was not seen");
    };
    let _ = search("one");
    assert!(lock(&offline.state).watch.is_some());
    // Folders made while the bridge runs, two deep, then files in the deepest.
    walked_after(&|| std::fs::create_dir_all(dir.path().join("new/deeper")).unwrap());
    std::fs::write(dir.path().join("new/deeper/n.md"), "nested").unwrap();
    seen("nested", r#""path":"new/deeper/n.md""#);
    std::fs::write(dir.path().join("new/deeper/m.md"), "nested again").unwrap();
    seen("again", r#""path":"new/deeper/m.md""#);
    // A folder removed and made again under the same name is watched again.
    std::fs::remove_dir_all(dir.path().join("new")).unwrap();
    seen("nested", r#""total_matches":0"#);
    walked_after(&|| std::fs::create_dir_all(dir.path().join("new/deeper")).unwrap());
    std::fs::write(dir.path().join("new/deeper/o.md"), "back").unwrap();
    seen("back", r#""path":"new/deeper/o.md""#);
    // A folder renamed, then a note inside it edited.
    walked_after(&|| std::fs::rename(dir.path().join("new"), dir.path().join("moved")).unwrap());
    std::fs::write(
        dir.path().join("moved/deeper/o.md"),
        "edited after the move",
    )
    .unwrap();
    seen("edited", r#""path":"moved/deeper/o.md""#);
    walked_after(&|| std::fs::rename(dir.path().join("moved"), dir.path().join("new")).unwrap());
    seen("edited", r#""path":"new/deeper/o.md""#);
    // The hidden-path rules, in a plugin folder that did not exist at start.
    let plugin = dir.path().join(".obsidian/plugins/obsmcp");
    walked_after(&|| std::fs::create_dir_all(&plugin).unwrap());
    std::fs::write(plugin.join("data.json"), r#"{"hiddenPaths":["new"]}"#).unwrap();
    seen("edited", r#""total_matches":0"#);
    // Churn in a folder Obsidian never lists does not make the index walk the vault.
    walked_after(&|| std::fs::create_dir(dir.path().join(".git")).unwrap());
    let before = checked();
    std::fs::write(dir.path().join(".git/index"), "x").unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let _ = search("one");
    if cfg!(target_os = "linux") {
        assert_eq!(
            checked(),
            before,
            "a write in .git made the index walk the vault"
        );
    }
}

#[test]
fn the_index_is_trusted_for_the_refresh_interval_then_checked() {
    let (dir, offline) = vault(&[("a.md", "one")]);
    let offline = offline.with_refresh_interval(Duration::from_millis(300));
    assert!(
        text(
            &offline
                .call_tool("search", json!({"query": "one"}))
                .unwrap()
        )
        .contains(r#""total_matches":1"#)
    );
    std::fs::write(dir.path().join("b.md"), "one more").unwrap();
    let soon = offline
        .call_tool("search", json!({"query": "one"}))
        .unwrap();
    assert!(
        text(&soon).contains(r#""total_matches":1"#),
        "within the interval: {}",
        text(&soon)
    );
    std::thread::sleep(Duration::from_millis(350));
    let later = offline
        .call_tool("search", json!({"query": "one"}))
        .unwrap();
    assert!(
        text(&later).contains(r#""total_matches":2"#),
        "after the interval: {}",
        text(&later)
    );
}

#[test]
fn bad_arguments_and_escapes_are_errors_that_lose_nothing() {
    let (_dir, offline) = vault(&[("a.md", "x")]);
    for arguments in [
        json!({}),
        json!({"path": 3}),
        json!({"path": "../etc/passwd"}),
        json!({"path": "/etc/passwd"}),
        json!({"path": ".obsidian/app.json"}),
    ] {
        let result = offline.call_tool("read_note", arguments.clone()).unwrap();
        assert_eq!(result["isError"], true, "{arguments}");
    }
}

fn write_settings(dir: &std::path::Path, data_json: &str, app_json: &str) {
    let config = dir.join(".obsidian");
    std::fs::create_dir_all(config.join("plugins/obsmcp")).unwrap();
    std::fs::write(config.join("plugins/obsmcp/data.json"), data_json).unwrap();
    std::fs::write(config.join("app.json"), app_json).unwrap();
}

fn listed(offline: &OfflineVault) -> String {
    text(
        &offline
            .call_tool("list_files", json!({"include_folders": true}))
            .unwrap(),
    )
    .to_string()
}

#[test]
fn hidden_paths_are_read_again_at_every_check_of_the_folder() {
    let (dir, offline) = vault(&[("a.md", "[[x]]"), ("Private/x.md", "secret")]);
    let offline = offline.with_refresh_interval(Duration::ZERO);
    assert!(listed(&offline).contains("Private/x.md"));
    write_settings(
        dir.path(),
        r#"{"port":1,"token":"t","hiddenPaths":["Private"]}"#,
        "{}",
    );
    let hidden = listed(&offline);
    assert!(!hidden.contains("Private"), "{hidden}");
    write_settings(
        dir.path(),
        r#"{"port":1,"token":"t","hideExcludedFiles":true}"#,
        r#"{"userIgnoreFilters":["a.md"]}"#,
    );
    let excluded = listed(&offline);
    assert!(
        excluded.contains("Private/x.md") && !excluded.contains("\"a.md\""),
        "{excluded}"
    );
    write_settings(
        dir.path(),
        r#"{"port":1,"token":"t"}"#,
        r#"{"userIgnoreFilters":["a.md"]}"#,
    );
    assert!(listed(&offline).contains("\"a.md\""));
}

#[test]
fn rules_that_cannot_be_applied_refuse_every_tool_until_they_can() {
    let (dir, offline) = vault(&[("a.md", "x"), ("Old/b.md", "y")]);
    let offline = offline.with_refresh_interval(Duration::ZERO);
    write_settings(
        dir.path(),
        r#"{"port":1,"token":"t","hideExcludedFiles":true}"#,
        r#"{"userIgnoreFilters":["/^(?!Old)x/"]}"#,
    );
    for (name, arguments) in [
        ("list_files", json!({})),
        ("vault_info", json!({})),
        ("read_note", json!({"path": "a"})),
        ("search", json!({"query": "y"})),
        ("recent_files", json!({})),
        ("batch", json!({"calls": [{"tool": "list_files"}]})),
    ] {
        let result = offline.call_tool(name, arguments).unwrap();
        assert_eq!(result["isError"], true, "{name}: {result}");
        assert!(
            text(&result).contains(r#"excluded-files filter (Obsidian's userIgnoreFilters, hidden because hideExcludedFiles is on) "/^(?!Old)x/" cannot be applied offline"#)
                && text(&result).contains("Open the vault in Obsidian"),
            "{name}: {}",
            text(&result)
        );
    }
    write_settings(
        dir.path(),
        r#"{"port":1,"token":"t","hideExcludedFiles":true}"#,
        r#"{"userIgnoreFilters":["/^Old/"]}"#,
    );
    let fixed = listed(&offline);
    assert!(
        fixed.contains("\"a.md\"") && !fixed.contains("Old"),
        "{fixed}"
    );
    write_settings(dir.path(), r#"{"hiddenPaths": ["#, "{}");
    let broken = offline.call_tool("list_files", json!({})).unwrap();
    assert!(
        text(&broken).contains("settings (.obsidian/plugins/obsmcp/data.json) is not JSON"),
        "{}",
        text(&broken)
    );
}

#[test]
fn a_hidden_note_or_folder_fails_exactly_like_one_that_does_not_exist() {
    let (dir, offline) = vault(&[
        ("Home.md", "[[Secret]]"),
        ("Private/Secret.md", "# Title\n[[Home]]"),
    ]);
    let offline = offline.with_refresh_interval(Duration::ZERO);
    write_settings(
        dir.path(),
        r#"{"port":1,"token":"t","hiddenPaths":["Private/"]}"#,
        "{}",
    );
    let calls = [
        ("read_note", json!({"path": "Private/Secret.md"})),
        ("read_note", json!({"path": "[[Secret]]"})),
        ("read_note", json!({"path": "private/secret"})),
        ("note_metadata", json!({"path": "Secret"})),
        ("outline", json!({"path": "Secret#Title"})),
        ("backlinks", json!({"path": "Home"})),
        ("outgoing_links", json!({"path": "Home"})),
        ("list_files", json!({"folder": "Private"})),
        ("unresolved_links", json!({})),
        ("vault_info", json!({})),
    ];
    let hidden: Vec<Value> = calls
        .iter()
        .map(|(name, arguments)| offline.call_tool(name, arguments.clone()).unwrap())
        .collect();
    std::fs::remove_dir_all(dir.path().join("Private")).unwrap();
    write_settings(dir.path(), r#"{"port":1,"token":"t"}"#, "{}");
    for ((name, arguments), hidden) in calls.iter().zip(&hidden) {
        let missing = offline.call_tool(name, arguments.clone()).unwrap();
        assert_eq!(hidden, &missing, "{name} {arguments}");
    }
    assert_eq!(hidden[0]["isError"], true);
}

#[test]
fn a_missing_vault_is_a_clear_error() {
    let error = OfflineVault::open("/nonexistent/obsmcp-vault", None)
        .err()
        .unwrap();
    assert!(error.to_string().contains("cannot be opened"), "{error}");
}

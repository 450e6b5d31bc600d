//! Parity with the offline index in use, on a generated 10,000-note vault: a bridge with Obsidian closed builds the
//! index and saves it in the state folder; while it runs, a note is created, one edited, one renamed and one deleted
//! on disk, and its watcher must make the next calls see each change; then the plugin answers the parity list, and
//! both the watched bridge and a new bridge (which reloads the saved index and checks what changed) must answer it
//! alike, field by field. A bridge that answers searches from its index while the plugin runs must too, and must
//! see notes created, edited, moved and deleted through Obsidian in the very next search.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Call, Client, TOKEN, assert_same, call, compare, generated_vault, notes_of, text_of};
use crate::support::{PluginHost, TempHome, free_port, write_plugin_data};

/// The saved index files in the home's state folder.
fn saved_indexes(home: &TempHome) -> Vec<PathBuf> {
    let folder = home.path().join(".local/state/obsmcp/index");
    std::fs::read_dir(&folder)
        .map(|entries| entries.map(|entry| entry.unwrap().path()).collect())
        .unwrap_or_default()
}

/// The text of the first call of `tool` that contains `expected`, within five seconds: the watcher learns of a
/// change a few milliseconds after it is made, so this is a bound on a broken watcher, not a wait for a slow one.
fn seen(client: &mut Client, tool: &str, arguments: &Value, expected: &str) -> String {
    let started = Instant::now();
    loop {
        let text = text_of(&client.call(tool, arguments)).to_string();
        if text.contains(expected) {
            return text;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{tool} {arguments} never showed {expected:?}; last answer: {text}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The calls whose answers all three sides must agree on, the changed notes' own included.
fn calls(created: &str, edited: &str, renamed: &str, old_path: &str, deleted: &str) -> Vec<Call> {
    let big = |mut arguments: Value| {
        arguments["max_chars"] = json!(200_000);
        arguments
    };
    let mut calls = vec![
        call("vault_info", json!({})),
        call("list_files", big(json!({"limit": 500}))),
        call("list_files", big(json!({"limit": 500, "cursor": "9500"}))),
        call("tags", json!({"limit": 500})),
        call("unresolved_links", json!({"limit": 500, "max_sources": 50})),
        call("orphans", json!({"limit": 500})),
        call("backlinks", big(json!({"path": "Hub", "limit": 500}))),
        call("search", big(json!({"query": "harbor", "limit": 500}))),
        call("search", json!({"query": "quokkaword"})),
        call("search", json!({"query": "wombatword"})),
        call("search", json!({"query": "zqxjv absent"})),
        call(
            "search",
            big(json!({"query": "harbor", "rank": true, "limit": 300})),
        ),
        call(
            "search",
            big(json!({"query": "harbor", "mode": "phrase", "rank": true, "limit": 300})),
        ),
        call(
            "search",
            big(json!({"query": "harbor lantern -tag:idea line:(river OR stone)", "limit": 500})),
        ),
        call(
            "search",
            big(
                json!({"query": "how does the harbor lantern guide the quokkaword", "rank": true, "limit": 300}),
            ),
        ),
        call("tasks", big(json!({"limit": 500}))),
        call("properties", json!({"limit": 500})),
        call("bases", big(json!({"base": CHANGED_BASE, "limit": 500}))),
    ];
    for path in [created, edited, renamed, old_path, deleted] {
        for tool in ["read_note", "note_metadata", "backlinks", "outgoing_links"] {
            calls.push(call(tool, json!({"path": path})));
        }
    }
    calls
}

/// Each call's result through `client`.
fn answers(client: &mut Client, calls: &[Call]) -> Vec<Value> {
    calls
        .iter()
        .map(|Call { tool, arguments }| client.call(tool, arguments))
        .collect()
}

fn differences(calls: &[Call], live: &[Value], offline: &[Value], side: &str) -> Vec<String> {
    let mut out = Vec::new();
    for ((Call { tool, arguments }, live), offline) in calls.iter().zip(live).zip(offline) {
        for difference in compare(live, offline) {
            out.push(format!("{side}: {tool} {arguments}: {difference}"));
        }
    }
    out
}

fn append(vault: &Path, path: &str, text: &str) {
    let full = vault.join(path);
    let mut content = std::fs::read_to_string(&full).unwrap();
    content.push_str(text);
    std::fs::write(full, content).unwrap();
}

/// A line of a note's text that a search can find it by (no heading).
fn first_long_line(text: &str) -> String {
    text.lines()
        .find(|line| line.len() > 30 && !line.starts_with('#'))
        .expect("a generated note has a line of prose")
        .trim()
        .to_string()
}

/// A search after an edit: a whole line is looked for as written (phrase mode), a single word in word mode (the
/// default).
fn searched(query: &str) -> (&'static str, Value) {
    let mode = if query.contains(' ') {
        "phrase"
    } else {
        "words"
    };
    (
        "search",
        json!({"query": query, "limit": 500, "mode": mode}),
    )
}

/// How many searches and vault-wide reads `edits_through_obsidian` compares.
const EDIT_SEARCHES: usize = 8 + 8;

/// A Bases view over the notes the tests create, move and edit, and the generated notes of one status; sorted by
/// modification time, so that an edit moves its note, and with a formula on the file's size, which an edit changes.
const CHANGED_BASE: &str = "Changed.base";
const CHANGED_BASE_TEXT: &str = r#"filters:
  or:
    - file.inFolder("Fresh")
    - file.inFolder("Moved")
    - file.inFolder("Elsewhere")
    - 'status == "active" && file.hasTag("project")'
formulas:
  kb: "file.size / 1000"
views:
  - type: table
    name: Changed
    order: [file.name, status, formula.kb]
    sort:
      - property: file.mtime
        direction: DESC
"#;

/// Notes created, edited, moved and deleted through Obsidian (the plugin's tools, through the indexed bridge): each
/// search right after must see the change from the index, with the plugin's answer (through `live`); the
/// differences.
fn edits_through_obsidian(indexed: &mut Client, live: &mut Client, vault: &Path) -> Vec<String> {
    let notes = notes_of(vault);
    let (edited, moved, deleted) = (&notes[400], &notes[500], &notes[600]);
    let mut out = Vec::new();
    // A call through both bridges right after an edit: the index's answer must be the plugin's, and hold (or not)
    // what the edit brought.
    let mut compare_call =
        |indexed: &mut Client, (tool, arguments): (&str, Value), expected: &str, present: bool| {
            let from_index = indexed.call(tool, &arguments);
            let from_plugin = live.call(tool, &arguments);
            if text_of(&from_index).contains(expected) != present {
                out.push(format!(
                    "the index's {tool} {arguments} right after the edit {} {expected:?}: {}",
                    if present { "missed" } else { "still had" },
                    text_of(&from_index)
                ));
            }
            for difference in compare(&from_plugin, &from_index) {
                out.push(format!("after an edit: {tool} {arguments}: {difference}"));
            }
        };
    let write = |client: &mut Client, tool: &str, arguments: Value| {
        let result = client.call(tool, &arguments);
        assert_ne!(result["isError"], true, "{tool} {arguments}: {result}");
    };
    write(
        indexed,
        "create_note",
        json!({
            "path": "Fresh/Through Obsidian.md",
            "content": format!(
                "---\nplatypus_kind: monotreme\n---\nA platypusword line, #platypus-tag.\n- [ ] feed the platypus\n{}\n",
                // Often enough to be among the first unresolved links, which are sorted by count.
                "[[Nowhere platypus]] ".repeat(40)
            ),
        }),
    );
    compare_call(
        indexed,
        searched("platypusword"),
        "Fresh/Through Obsidian.md",
        true,
    );
    // The vault-wide reads see the new note in their very next answer too.
    for (tool, arguments, expected) in [
        ("tags", json!({"limit": 500}), "#platypus-tag"),
        (
            "files_by_tag",
            json!({"tag": "platypus-tag"}),
            "Through Obsidian",
        ),
        (
            "tasks",
            json!({"path_prefix": "Fresh"}),
            "feed the platypus",
        ),
        (
            "orphans",
            json!({"folder": "Fresh"}),
            "Fresh/Through Obsidian.md",
        ),
        (
            "unresolved_links",
            json!({"limit": 500}),
            "Nowhere platypus",
        ),
        ("properties", json!({"limit": 500}), "platypus_kind"),
        ("list_files", json!({"folder": "Fresh"}), "Through Obsidian"),
        (
            "bases",
            json!({"base": CHANGED_BASE, "limit": 500}),
            "Through Obsidian",
        ),
    ] {
        compare_call(indexed, (tool, arguments), expected, true);
    }
    write(
        indexed,
        "append",
        json!({"path": edited, "content": "An echidnaword line."}),
    );
    compare_call(indexed, searched("echidnaword"), edited, true);
    let phrase = first_long_line(&std::fs::read_to_string(vault.join(moved)).unwrap());
    write(
        indexed,
        "move_note",
        json!({"path": moved, "new_path": "Elsewhere/Moved through Obsidian.md"}),
    );
    compare_call(
        indexed,
        searched(&phrase),
        "Elsewhere/Moved through Obsidian.md",
        true,
    );
    compare_call(indexed, searched(&phrase), &format!("\"{moved}\""), false);
    let deleted_phrase = first_long_line(&std::fs::read_to_string(vault.join(deleted)).unwrap());
    write(indexed, "delete_note", json!({"path": deleted}));
    compare_call(
        indexed,
        searched(&deleted_phrase),
        &format!("\"{deleted}\""),
        false,
    );
    // The same edits seen again a moment later (the watcher's events have all come by now).
    std::thread::sleep(Duration::from_millis(200));
    compare_call(
        indexed,
        searched("platypusword"),
        "Fresh/Through Obsidian.md",
        true,
    );
    compare_call(indexed, searched("echidnaword"), edited, true);
    compare_call(
        indexed,
        searched(&phrase),
        "Elsewhere/Moved through Obsidian.md",
        true,
    );
    out
}

#[test]
fn the_saved_and_watched_index_answers_as_the_plugin_after_notes_change() {
    let home = TempHome::new();
    let vault = generated_vault(&home, 10_000, 3);
    std::fs::write(vault.join(CHANGED_BASE), CHANGED_BASE_TEXT).unwrap();
    let port = free_port();
    write_plugin_data(&vault, port, TOKEN);

    // Obsidian closed: the first bridge builds the index and saves it beside its answers.
    let mut watched = Client::offline(&home, &vault);
    watched.call("search", &json!({"query": "zqxjv absent"}));
    let started = Instant::now();
    while saved_indexes(&home).is_empty() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let saved = saved_indexes(&home);
    assert_eq!(saved.len(), 1, "one saved index: {saved:?}");
    assert!(
        !saved[0].starts_with(&vault),
        "the index is never saved in the vault"
    );

    // Four changes on disk while it runs.
    let notes = notes_of(&vault);
    let (edited, old_path, deleted) = (&notes[100], &notes[200], &notes[300]);
    let created = "Fresh/Arrival.md";
    let renamed = "Moved/Renamed note.md";
    std::fs::create_dir_all(vault.join("Fresh")).unwrap();
    std::fs::write(
        vault.join(created),
        "# Arrival\n\nA quokkaword line that links [[Hub]] and #fresh-tag.\n- [ ] a new task\n",
    )
    .unwrap();
    append(
        &vault,
        edited,
        "\nA wombatword line, and a link to [[Arrival]].\n",
    );
    std::fs::create_dir_all(vault.join("Moved")).unwrap();
    std::fs::rename(vault.join(old_path), vault.join(renamed)).unwrap();
    std::fs::remove_file(vault.join(deleted)).unwrap();

    let search = |query: &str| json!({"query": query});
    seen(&mut watched, "search", &search("quokkaword"), created);
    seen(&mut watched, "search", &search("wombatword"), edited);
    seen(
        &mut watched,
        "read_note",
        &json!({"path": renamed}),
        "sha256=",
    );
    let gone = text_of(&watched.call("read_note", &json!({"path": deleted}))).to_string();
    assert!(gone.contains("not found"), "{gone}");
    seen(&mut watched, "tags", &json!({"limit": 500}), "#fresh-tag");

    let calls = calls(created, edited, renamed, old_path, deleted);
    let from_watched = answers(&mut watched, &calls);
    drop(watched);

    // Obsidian open: the plugin answers the same list, and so does a bridge that answers searches from its index.
    let host = PluginHost::start(&vault, port, TOKEN, &[]);
    let mut live = Client::live(&home, &vault);
    let from_plugin = answers(&mut live, &calls);
    let mut indexed = Client::indexed(&home, &vault, "always");
    let from_indexed = answers(&mut indexed, &calls);
    let mut out = differences(&calls, &from_plugin, &from_indexed, "indexed");
    drop((live, indexed));
    host.stop();

    // Obsidian closed again: a new bridge starts from the saved index, which predates the changes.
    let mut reloaded = Client::offline(&home, &vault);
    let from_reloaded = answers(&mut reloaded, &calls);

    out.extend(differences(&calls, &from_plugin, &from_watched, "watched"));
    out.extend(differences(
        &calls,
        &from_plugin,
        &from_reloaded,
        "reloaded",
    ));

    // Obsidian open again: a default bridge loads the saved index, and edits through Obsidian are in its very next
    // search.
    drop(reloaded);
    let host = PluginHost::start(&vault, port, TOKEN, &[]);
    let mut live = Client::live(&home, &vault);
    let mut indexed = Client::indexed(&home, &vault, "auto");
    out.extend(edits_through_obsidian(&mut indexed, &mut live, &vault));
    // Each side's `obsidian_status` counts the calls it answered, and says why the plain one never uses its index.
    let index_status = |client: &mut Client| {
        let status = client.bridge.call_tool("obsidian_status", json!({}));
        status["result"]["structuredContent"]["indexSearch"].clone()
    };
    let indexed_status = index_status(&mut indexed);
    assert_eq!(
        indexed_status["callsAnswered"],
        json!({"byIndex": EDIT_SEARCHES, "byObsidian": 0}),
        "{indexed_status}"
    );
    let live_status = index_status(&mut live);
    assert_eq!(
        live_status["callsAnswered"],
        json!({"byIndex": 0, "byObsidian": EDIT_SEARCHES}),
        "{live_status}"
    );
    assert_eq!(live_status["whyNot"], "off (--index-search never)");
    drop((live, indexed));
    host.stop();
    assert_same(calls.len() * 3 + EDIT_SEARCHES, &out);
}

/// Every offline bridge ended its run with "unable to remove watch descriptor from inotify: … Invalid argument" at
/// info on stderr, which a client shows in its log: the file watcher's library reports so a watch the system had
/// already dropped, which it calls no real error. Its records show from warnings up now, unless debugging.
#[test]
fn an_offline_session_ends_without_the_watchers_noise_on_stderr() {
    let home = TempHome::new();
    let vault = crate::support::fixture_vault(&home);
    let mut offline = Client::offline(&home, &vault);
    offline.call("search", &json!({"query": "project"}));
    offline.bridge.close_stdin();
    offline
        .bridge
        .guard
        .wait_exit(Duration::from_secs(10))
        .expect("the bridge exits when stdin closes");
    let stderr = offline.bridge.guard.stderr();
    assert!(stderr.contains("stdin closed"), "{stderr}");
    assert!(!stderr.contains("watch descriptor"), "{stderr}");
}

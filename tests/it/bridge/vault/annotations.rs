//! The tools' annotations stay true. Clients act on them: Codex's `writes` approval mode skips the confirmation of a
//! tool marked `readOnlyHint`, and Claude Desktop's per-tool policy reads `readOnlyHint` and `destructiveHint`, so a
//! wrong hint is a silent write. Every tool marked read-only is called, on its happy path and on its error paths,
//! through the plugin, offline and inside `batch`, and the whole home (the vault, its config folder and obsmcp's state
//! folder) must be as it was, byte for byte; the tools that can delete or overwrite what the user wrote must say so;
//! no tool reaches outside the vault.

use std::collections::BTreeMap;
use std::path::Path;

use super::*;

/// Every file under `root` with its bytes, and every folder (as `None`); the bridge's diagnostics log left out (it
/// records connection events, never content).
pub(super) fn tree(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn walk(root: &Path, folder: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            let name = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if name.ends_with(".log") {
                continue;
            }
            if path.is_dir() {
                out.insert(name, None);
                walk(root, &path, out);
            } else {
                out.insert(name, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Waits until the bridge's saved index (saved in the background after the first offline build) is on disk and no
/// longer changing.
fn wait_for_the_saved_index(home: &Path) {
    let folder = home.join(".local/state/obsmcp/index");
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut last = None;
    while Instant::now() < deadline {
        let now = tree(home)
            .into_iter()
            .filter(|(path, _)| path.ends_with(".bin"))
            .collect::<Vec<_>>();
        if !now.is_empty() && last.as_ref() == Some(&now) {
            return;
        }
        last = Some(now);
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("no saved index settled in {}", folder.display());
}

/// What changed between two trees, by path.
pub(super) fn changes(
    before: &BTreeMap<String, Option<Vec<u8>>>,
    after: &BTreeMap<String, Option<Vec<u8>>>,
) -> Vec<String> {
    let mut changed: Vec<String> = before
        .iter()
        .filter(|(path, bytes)| after.get(path.as_str()) != Some(bytes))
        .map(|(path, _)| format!("changed or removed: {path}"))
        .collect();
    changed.extend(
        after
            .keys()
            .filter(|path| !before.contains_key(path.as_str()))
            .map(|path| format!("created: {path}")),
    );
    changed
}

/// Arguments for each tool marked read-only: the happy path on the fixture vault, then error paths (a note that is
/// not there, a path outside the vault or in a hidden folder, an argument of the wrong type).
fn read_calls() -> BTreeMap<&'static str, Vec<Value>> {
    let missing = json!({"path": "Nowhere at all.md"});
    let outside = json!({"path": "../outside.md"});
    let hidden = json!({"path": ".hidden/Secret.md"});
    let wrong = json!({"path": 7, "limit": "many"});
    let on_a_note = |extra: Value| {
        let mut happy = json!({"path": "Home.md"});
        happy
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        vec![
            happy,
            missing.clone(),
            outside.clone(),
            hidden.clone(),
            wrong.clone(),
        ]
    };
    BTreeMap::from([
        ("vault_info", vec![json!({}), json!({"unknown": true})]),
        (
            "list_files",
            vec![
                json!({}),
                json!({"folder": "Notes"}),
                json!({"folder": "../"}),
                json!({"folder": ".hidden"}),
            ],
        ),
        ("read_note", on_a_note(json!({"heading": "Home"}))),
        (
            "read_attachment",
            vec![
                json!({"path": "Attachments/diagram.png"}),
                missing.clone(),
                outside.clone(),
            ],
        ),
        (
            "search",
            vec![
                json!({"query": "note"}),
                json!({"query": "how do we plan the meeting", "rank": true}),
                json!({"query": "plan", "mode": "phrase", "rank": true}),
                json!({"query": "(unclosed"}),
                json!({"query": "[a-", "regex": true}),
                json!({"query": "x", "path_prefix": "../"}),
            ],
        ),
        ("note_metadata", on_a_note(json!({}))),
        ("outline", on_a_note(json!({}))),
        ("backlinks", on_a_note(json!({"snippets": true}))),
        ("outgoing_links", on_a_note(json!({}))),
        ("unresolved_links", vec![json!({}), json!({"limit": 0})]),
        ("orphans", vec![json!({}), json!({"folder": "../"})]),
        ("tags", vec![json!({}), json!({"sort": "sideways"})]),
        (
            "files_by_tag",
            vec![json!({"tag": "project"}), json!({"tag": ""})],
        ),
        (
            "tasks",
            vec![
                json!({}),
                json!({"status": "done", "sort": "due"}),
                json!({"date": "not a date"}),
            ],
        ),
        (
            "properties",
            vec![json!({}), json!({"name": "status"}), json!({"name": 3})],
        ),
        ("active_note", vec![json!({}), json!({"max_chars": 1})]),
        (
            "daily_note",
            vec![
                json!({}),
                json!({"date": "2026-03-14"}),
                json!({"date": "someday"}),
            ],
        ),
        (
            "recent_files",
            vec![
                json!({}),
                json!({"source": "opened"}),
                json!({"source": "rumour"}),
            ],
        ),
        ("bookmarks", vec![json!({}), json!({"limit": -1})]),
        ("templates", vec![json!({}), json!({"cursor": "garbage"})]),
        (
            "canvas",
            vec![
                json!({"path": "Board.canvas"}),
                missing.clone(),
                outside.clone(),
            ],
        ),
        (
            "bases",
            vec![
                json!({}),
                json!({"base": "Views.base"}),
                json!({"base": "Nowhere.base"}),
            ],
        ),
        (
            "batch",
            vec![
                json!({"calls": [
                    {"tool": "read_note", "arguments": {"path": "Home.md"}},
                    {"tool": "search", "arguments": {"query": "note"}},
                    {"tool": "tasks"},
                    {"tool": "backlinks", "arguments": {"path": "Notes/Note.md"}},
                ]}),
                // A write inside a batch is refused, not run.
                json!({"calls": [
                    {"tool": "create_note", "arguments": {"path": "Made by batch.md", "content": "x"}},
                    {"tool": "delete_note", "arguments": {"path": "Home.md"}},
                    {"tool": "read_note", "arguments": {"path": "../outside.md"}},
                ]}),
                json!({"calls": []}),
            ],
        ),
        (
            "obsidian_status",
            vec![json!({}), json!({"verbose": "yes"})],
        ),
    ])
}

/// The tools that can delete or overwrite what the user wrote: `destructiveHint` must say so.
const DESTRUCTIVE: [&str; 6] = [
    "create_note", // with `overwrite`
    "str_replace",
    "patch_section",
    "set_property",
    "delete_property",
    "delete_note",
];

/// Calls every read-only tool with each of its arguments and fails on any change to the home.
fn calls_change_nothing(
    setup: &Setup,
    bridge: &mut Bridge,
    read_only: &[String],
    side: &str,
) -> usize {
    let calls = read_calls();
    let mut made = 0;
    for name in read_only {
        let arguments = calls.get(name.as_str()).unwrap_or_else(|| {
            panic!("{name} is marked read-only but has no calls here: add them to read_calls")
        });
        for arguments in arguments {
            let before = tree(setup.home.path());
            let answer = bridge.call_tool(name, arguments.clone());
            assert!(
                answer.get("result").is_some() || answer.get("error").is_some(),
                "{side}: {name} {arguments}: {answer}"
            );
            let changed = changes(&before, &tree(setup.home.path()));
            assert!(
                changed.is_empty(),
                "{side}: {name} is marked read-only, but {arguments} changed the home: {changed:?}"
            );
            made += 1;
        }
    }
    made
}

#[test]
fn tools_marked_read_only_change_nothing_and_the_others_say_what_they_do() {
    let setup = setup();
    std::fs::write(
        setup.vault.join("Board.canvas"),
        r#"{"nodes":[{"id":"a","type":"text","text":"hello","x":0,"y":0,"width":100,"height":50}],"edges":[]}"#,
    )
    .unwrap();
    std::fs::write(
        setup.vault.join("Views.base"),
        "views:\n  - type: table\n    name: All\n    order:\n      - file.name\n",
    )
    .unwrap();
    let host = setup.host();
    // Every tool listed: `obsidian_tools`, which the default core list adds, is checked in `profiles.rs`.
    let mut bridge = setup.bridge(&["--connect-wait", "5", "--tools", "all"]);

    let listed = bridge.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap().clone();
    assert!(tools.len() >= 38, "{listed}");
    let mut read_only = Vec::new();
    for tool in &tools {
        let name = tool["name"].as_str().unwrap().to_string();
        let hints = &tool["annotations"];
        assert_eq!(
            hints["openWorldHint"], false,
            "{name} says it may reach outside the vault: {hints}"
        );
        let marked_read_only = hints["readOnlyHint"] == true;
        let destructive = DESTRUCTIVE.contains(&name.as_str());
        if marked_read_only {
            assert!(
                !destructive,
                "{name} can delete or overwrite, yet is marked read-only"
            );
            assert_ne!(hints["destructiveHint"], true, "{name}: {hints}");
            read_only.push(name);
        } else {
            assert_eq!(
                hints["readOnlyHint"], false,
                "{name} says nothing of writing: {hints}"
            );
            assert_eq!(
                hints["destructiveHint"] == true,
                destructive,
                "{name}'s destructiveHint: {hints}"
            );
        }
    }
    // Every tool this test knows as a read is marked so, and the test knows every tool that is.
    let known: Vec<&str> = read_calls().into_keys().collect();
    let mut marked: Vec<&str> = read_only.iter().map(String::as_str).collect();
    marked.sort_unstable();
    assert_eq!(
        marked, known,
        "the read-only tools and the calls this test makes of them"
    );

    // Warm up once through the plugin, so that what a first call may set up for good is in place before the first
    // snapshot.
    bridge.call_tool("vault_info", json!({}));
    let through_plugin =
        calls_change_nothing(&setup, &mut bridge, &read_only, "through the plugin");

    host.stop();
    let answer = bridge.call_tool("vault_info", json!({}));
    assert_eq!(
        answer["result"]["_meta"]["obsmcp/source"], "disk",
        "{answer}"
    );
    // The first offline call builds and saves the index: obsmcp's own cache, done before the snapshots.
    bridge.call_tool("search", json!({"query": "note"}));
    wait_for_the_saved_index(setup.home.path());
    let offline = calls_change_nothing(&setup, &mut bridge, &read_only, "offline");
    let planned: usize = read_calls().values().map(Vec::len).sum();
    assert_eq!((through_plugin, offline), (planned, planned));
}

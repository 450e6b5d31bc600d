//! Hidden paths (the plugin's folder and name rules, Obsidian's excluded files): with Obsidian closed, hidden notes do
//! not exist for any offline read tool however they are named, and the plugin and offline mode hide alike. The calls
//! and the vault that hides its private notes every way the rules allow live here.
//!
//! Unix only: these vaults reach notes through symlinks, which Windows makes for administrators only.
#![cfg(unix)]

use super::parity::fixed_calls;
use super::*;

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
        ("tasks", json!({"status": "all", "limit": 500})),
        ("tasks", json!({"tag": "secret-tag", "status": "all"})),
        ("properties", json!({})),
        ("properties", json!({"name": "secretprop"})),
        ("properties", json!({"name": "tags"})),
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
        "---\naliases: [Hush]\ntags: [secret-tag]\nsecretprop: SECRETWORD\n---\n# Secret\nSECRETWORD [[Home]] [[Orphan]] #secret-inline\n- [ ] SECRETWORD task\n",
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
    // A bookmark of a hidden path is left out (listing it as missing would show its name), so bookmarks are not in
    // the list above, whose answers must equal those of a vault without the hidden files; here they must agree.
    write_into(
        &vault,
        ".obsidian/bookmarks.json",
        &json!({"items": [
            {"type": "file", "path": "Home.md"},
            {"type": "file", "path": "Private/Secret.md", "title": "SECRETWORD bookmark"},
            {"type": "folder", "path": "Private", "title": "SECRETWORD folder"},
            {"type": "file", "path": "private/secret.md", "title": "SECRETWORD case"},
            {"type": "folder", "path": "Shortcut", "title": "SECRETWORD symlinked folder"},
            {"type": "file", "path": "alias.md", "title": "SECRETWORD symlinked note"},
            {"type": "file", "path": "Journal/Th\u{e9}rapie.md", "title": "SECRETWORD composed"},
            {"type": "file", "path": "Archive/Note.md", "title": "SECRETWORD excluded"},
            {"type": "group", "title": "Group", "items": [
                {"type": "heading", "path": "Private/Secret.md", "subpath": "#Secret", "title": "SECRETWORD heading"},
                {"type": "file", "path": "Notes/Gone.md"}
            ]}
        ]})
        .to_string(),
    );
    calls.push(Call {
        tool: "bookmarks",
        arguments: json!({}),
    });
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

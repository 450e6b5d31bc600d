//! Parity of the plugin and offline mode on whole vaults: the fixture vault through every read tool with default,
//! edge and failing arguments and through every note, the 20 MB note, and a generated vault of 1,500 notes. The
//! fixed call list lives here and is reused by the symlink and hidden-path parity tests.

use super::*;

/// The fixed part of the parity list: every read tool with default, edge and failing arguments.
pub(super) fn fixed_calls() -> Vec<Call> {
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
        call(
            "read_attachment",
            json!({"path": "Attachments/diagram.png"}),
        ),
        call("read_attachment", json!({"path": "diagram.png"})),
        call("read_attachment", json!({"path": "![[diagram.png]]"})),
        call("read_attachment", json!({"path": "Home"})),
        call("read_attachment", json!({"path": "nope.png"})),
        call("read_attachment", json!({})),
        call(
            "batch",
            json!({"calls": [{"tool": "read_attachment", "arguments": {"path": "diagram.png"}}]}),
        ),
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
        call("search", json!({"query": "(?<=a)b", "regex": true})),
        call("search", json!({"query": "x(?!y)", "regex": true})),
        call("search", json!({"query": "(l)\\1", "regex": true})),
        call("search", json!({"query": "[(?=]ink", "regex": true})),
        call(
            "search",
            json!({"query": "link", "context_lines": 2, "max_per_file": 1}),
        ),
        call("search", json!({"query": "e", "limit": 5})),
        call("search", json!({"query": "e", "max_chars": 400})),
        call("search", json!({"query": "link", "path_prefix": "Notes/"})),
        call("search", json!({"query": "link", "rank": true})),
        call("search", json!({"query": "e", "rank": true, "limit": 5})),
        call(
            "search",
            json!({"query": "^#+ \\w", "regex": true, "rank": true, "max_per_file": 1}),
        ),
        call(
            "search",
            json!({"query": "link", "rank": true, "path_prefix": "Notes/"}),
        ),
        call(
            "search",
            json!({"query": "e", "rank": true, "cursor": "1:nowhere.md"}),
        ),
        call("search", json!({"query": "link", "path_prefix": "Notes"})),
        call("search", json!({"query": "link", "path_prefix": "../"})),
        call("search", json!({"query": "日本"})),
        call("search", json!({"query": "über"})),
        call("search", json!({"query": "secret"})),
        call("search", json!({"query": "link", "cursor": "nonsense"})),
        call("search", json!({"query": ""})),
        // Word mode: every operator, the errors and their positions, quoting and case.
        call("search", json!({"query": "fixture small keep"})),
        call(
            "search",
            json!({"query": "fixture, small? keep. ... team:", "rank": true}),
        ),
        call("search", json!({"query": "anna bernd", "context_lines": 1})),
        call("search", json!({"query": "\"the fixture\" -small"})),
        call("search", json!({"query": "meeting OR über team"})),
        call(
            "search",
            json!({"query": "(meeting OR home) -(decisions action)"}),
        ),
        call("search", json!({"query": "file:note path:Archive"})),
        call("search", json!({"query": "file:.md -path:Notes/"})),
        call("search", json!({"query": "content:2026 -file:2026"})),
        call("search", json!({"query": "tag:#projekt"})),
        call(
            "search",
            json!({"query": "tag:status tag:\"nested/deeper\""}),
        ),
        call("search", json!({"query": "tag:日本語 OR tag:todo"})),
        call(
            "search",
            json!({"query": "line:(anna bernd) OR line:(write generator)"}),
        ),
        call(
            "search",
            json!({"query": "block:(keep small) block:(decisions small)"}),
        ),
        call("search", json!({"query": "section:(decisions fixture)"})),
        call("search", json!({"query": "section:(welcome links)"})),
        call(
            "search",
            json!({"query": "task:generator task-todo:write -task-done:write"}),
        ),
        call("search", json!({"query": "task-done:commit"})),
        call("search", json!({"query": "[status]"})),
        call("search", json!({"query": "[status:active] [rating:4]"})),
        call("search", json!({"query": "[aliases:start OR about]"})),
        call(
            "search",
            json!({"query": "[attendees:\"Bernd\"] [tags:meet]"}),
        ),
        call("search", json!({"query": "/^- \\[[ x]\\]/ write"})),
        call("search", json!({"query": "/20\\d\\d-\\d\\d/ -daily"})),
        call(
            "search",
            json!({"query": "match-case:Anna match-case:anna"}),
        ),
        call(
            "search",
            json!({"query": "match-case:Anna ignore-case:BERND", "case_sensitive": true}),
        ),
        call("search", json!({"query": "Anna", "case_sensitive": true})),
        call("search", json!({"query": "[[hub"})),
        call("search", json!({"query": "wir sind team", "match": "any"})),
        call("search", json!({"query": "team über -tag:projekt"})),
        call("search", json!({"query": "-e"})),
        call("search", json!({"query": "e", "limit": 3})),
        call(
            "search",
            json!({"query": "e", "limit": 3, "cursor": "0:Daily/2026-03-14.md"}),
        ),
        call(
            "search",
            json!({"query": "note", "limit": 2, "cursor": "3:Home.md"}),
        ),
        call("search", json!({"query": "e", "max_chars": 300})),
        call(
            "search",
            json!({"query": "fixture meeting team home", "rank": true}),
        ),
        call(
            "search",
            json!({"query": "how do we keep the fixture small", "rank": true}),
        ),
        call(
            "search",
            json!({"query": "start welcome", "rank": true, "match": "all"}),
        ),
        call(
            "search",
            json!({"query": "decisions tag:meeting", "rank": true}),
        ),
        call(
            "search",
            json!({"query": "team anna", "rank": true, "limit": 2}),
        ),
        call(
            "search",
            json!({"query": "team anna", "rank": true, "limit": 2, "cursor": "1:Projekte/Über uns.md"}),
        ),
        call(
            "search",
            json!({"query": "Team", "rank": true, "case_sensitive": true}),
        ),
        // Words outside ASCII are counted from the word index too, case folded as JavaScript's `i` flag folds.
        call("search", json!({"query": "ÜBER uns team", "rank": true})),
        call("search", json!({"query": "link", "mode": "phrase"})),
        call(
            "search",
            json!({"query": "link", "mode": "phrase", "rank": true}),
        ),
        call("search", json!({"query": "x", "mode": "sentence"})),
        call("search", json!({"query": "x", "match": "some"})),
        call("search", json!({"query": "a \"b c"})),
        call("search", json!({"query": "😀 /x"})),
        call("search", json!({"query": "(a b"})),
        call("search", json!({"query": "a) b"})),
        call("search", json!({"query": "OR a"})),
        call("search", json!({"query": "a OR OR b"})),
        call("search", json!({"query": "a -"})),
        call("search", json!({"query": "file: x"})),
        call("search", json!({"query": "a ()"})),
        call("search", json!({"query": "[status"})),
        call("search", json!({"query": "[ ]"})),
        call("search", json!({"query": "tag:(a)"})),
        call("search", json!({"query": "\"\""})),
        call("search", json!({"query": "//"})),
        call("search", json!({"query": "x /(?<=a)b/"})),
        call("search", json!({"query": "  \t "})),
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
pub(super) fn per_note_calls(vault: &Path, client: &mut Client) -> Vec<Call> {
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

#[test]
fn offline_results_equal_the_plugins_on_the_fixture_vault() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let host = start_host(&vault);
    let mut client = Client::live(&home, &vault);

    let mut calls = fixed_calls();
    calls.extend(per_note_calls(&vault, &mut client));
    // A search cursor from the plugin must resume the same way offline, in path order and in ranked order.
    for arguments in [
        json!({"query": "e", "limit": 4}),
        json!({"query": "e", "limit": 4, "rank": true}),
    ] {
        let first = client.call("search", &arguments);
        let first: Value = serde_json::from_str(text_of(&first)).unwrap();
        let mut arguments = arguments;
        arguments["cursor"] = first["next_cursor"].clone();
        assert!(
            arguments["cursor"].is_string(),
            "a 4-match page of \"e\" has a next page"
        );
        calls.push(Call {
            tool: "search",
            arguments,
        });
    }

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
    let vault = generated_vault(&home, 1_500, 7);
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
        call(
            "search",
            json!({"query": "harbor", "rank": true, "limit": 500, "max_chars": 200_000}),
        ),
        call(
            "search",
            json!({"query": "[[hub", "rank": true, "max_per_file": 2, "limit": 300}),
        ),
        call(
            "search",
            json!({"query": "harbor lantern -hub", "limit": 500, "max_chars": 200_000}),
        ),
        call(
            "search",
            json!({"query": "harbor lantern OR tag:area", "rank": true, "limit": 500, "max_chars": 200_000}),
        ),
        call(
            "search",
            json!({"query": "line:(harbor hub) section:(harbor)", "limit": 500, "max_chars": 200_000}),
        ),
        call(
            "search",
            json!({"query": "how is the harbor linked to the hub", "rank": true, "limit": 50}),
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

#[test]
fn word_search_equals_the_plugins_on_10000_generated_notes() {
    let home = TempHome::new();
    let vault = generated_vault(&home, 10_000, 11);
    let host = start_host(&vault);
    let wide = |query: &str, more: Value| {
        let mut arguments = json!({"query": query, "limit": 500, "max_chars": 200_000});
        for (key, value) in more.as_object().unwrap() {
            arguments[key] = value.clone();
        }
        call("search", arguments)
    };
    let calls = vec![
        wide("harbor lantern", json!({})),
        wide("harbor lantern -quartz", json!({"max_per_file": 1})),
        wide(
            "\"river stone\" OR (ember glacier)",
            json!({"max_per_file": 1}),
        ),
        wide("tag:status -tag:status/done path:Projects", json!({})),
        wide("line:(harbor lantern) [tags:meeting]", json!({})),
        wide("section:(summit orbit) task-todo:market", json!({})),
        wide("/ledger \\d+/ café", json!({})),
        wide("zürich kraków łódź", json!({"rank": true})),
        wide(
            "how does the harbor lantern guide the glacier",
            json!({"rank": true, "max_per_file": 1}),
        ),
        wide(
            "Hub index everything",
            json!({"rank": true, "match": "all"}),
        ),
        wide(
            "meadow",
            json!({"rank": true, "limit": 50, "cursor": "1:Hub.md"}),
        ),
    ];
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
    eprintln!("word search parity on 10,000 generated notes: {count} calls, no difference");
}

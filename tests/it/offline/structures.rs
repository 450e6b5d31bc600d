//! Parity of the plugin and offline mode on Obsidian's own structures: tasks on the fixture vault with the tasks
//! fixture (emoji and Dataview dates, custom statuses from the Tasks plugin's settings, CRLF, nested and numbered
//! items), properties with the properties fixture (types.json, names in two spellings, lists, nested values, empty
//! ones), periodic notes (Periodic Notes settings, its defaults, the core daily notes), bookmarks (groups, every item
//! type, missing targets), bases (every expression form of the subset and its refusals), canvases (groups, cut text, hidden files' nodes, paging), templates (the core plugin's settings and folder, Templater ones marked), and tasks and properties on a generated 10,000-note
//! vault; every filter and failing argument.

use super::*;
use crate::support::{copy_dir, repo_root};

/// The fixture vault with `obsidian-plugin/test/fixtures/NAME` copied in.
fn fixture_with(home: &TempHome, name: &str) -> std::path::PathBuf {
    let vault = fixture_vault(home);
    copy_dir(
        &repo_root().join("obsidian-plugin/test/fixtures").join(name),
        &vault,
    );
    vault
}

fn task_calls() -> Vec<Call> {
    vec![
        call("tasks", json!({})),
        call("tasks", json!({"status": "all"})),
        call("tasks", json!({"status": "done"})),
        call("tasks", json!({"status": "cancelled"})),
        call("tasks", json!({"status": "?"})),
        call("tasks", json!({"status": "X"})),
        call("tasks", json!({"status": "xy"})),
        call("tasks", json!({"status": ""})),
        call("tasks", json!({"path_prefix": "Tasks/", "status": "all"})),
        call(
            "tasks",
            json!({"path_prefix": "Notes/Meeting notes 2026.md"}),
        ),
        call("tasks", json!({"path_prefix": "../x"})),
        call("tasks", json!({"tag": "todo"})),
        call("tasks", json!({"tag": "#project", "status": "all"})),
        call("tasks", json!({"tag": "finance"})),
        call("tasks", json!({"tag": "two words"})),
        call("tasks", json!({"tag": "#"})),
        call("tasks", json!({"from": "2026-12-01", "to": "2026-12-31"})),
        call("tasks", json!({"date": "scheduled", "from": "2026-12-01"})),
        call(
            "tasks",
            json!({"date": "done", "status": "all", "to": "2026-11-30"}),
        ),
        call(
            "tasks",
            json!({"date": "start", "sort": "date", "status": "all"}),
        ),
        call("tasks", json!({"sort": "date", "status": "all"})),
        call("tasks", json!({"from": "2026-12-31", "to": "2026-12-01"})),
        call("tasks", json!({"from": "1 Dec"})),
        call("tasks", json!({"date": "created"})),
        call("tasks", json!({"sort": "due"})),
        call("tasks", json!({"status": "all", "limit": 4})),
        call("tasks", json!({"status": "all", "limit": 4, "cursor": "4"})),
        call("tasks", json!({"status": "all", "cursor": "99"})),
        call("tasks", json!({"status": "all", "cursor": "x"})),
        call("tasks", json!({"status": "all", "max_chars": 300})),
        call("tasks", json!({"limit": 0})),
        call(
            "batch",
            json!({"calls": [
                {"tool": "tasks", "arguments": {"status": "done"}},
                {"tool": "tasks", "arguments": {"from": "bad"}},
                {"tool": "set_task", "arguments": {"path": "Tasks/Project plan.md", "line": 10, "status": "x"}}
            ]}),
        ),
    ]
}

#[test]
fn offline_tasks_equal_the_plugins_on_the_fixture_vault() {
    let home = TempHome::new();
    let vault = fixture_with(&home, "tasks");
    let host = start_host(&vault);
    let calls = task_calls();
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
}

fn property_calls() -> Vec<Call> {
    let mut calls = vec![
        call("properties", json!({})),
        call("properties", json!({"sort": "name"})),
        call("properties", json!({"limit": 2})),
        call("properties", json!({"limit": 2, "cursor": "2"})),
        call("properties", json!({"max_chars": 300})),
        call("properties", json!({"value": "x"})),
        call("properties", json!({"name": "  "})),
        call("properties", json!({"name": ""})),
        call("properties", json!({"name": 5})),
        call("properties", json!({"name": "status", "value": {"a": 1}})),
        call("properties", json!({"name": "status", "value": null})),
        call(
            "properties",
            json!({"name": "status", "value": "x".repeat(1001)}),
        ),
        call("properties", json!({"name": "nothing-has-this"})),
        call("properties", json!({"name": "status", "value": "ACTIVE"})),
        call("properties", json!({"name": "priority", "value": 3})),
        call("properties", json!({"name": "priority", "value": "2"})),
        call("properties", json!({"name": "reviewed", "value": false})),
        call("properties", json!({"name": "rating", "value": 4.5})),
        call(
            "properties",
            json!({"name": "related", "value": "[[alpha]]"}),
        ),
        call("properties", json!({"name": "owners", "value": "anna"})),
        call("properties", json!({"name": "status", "cursor": "bad"})),
        call(
            "batch",
            json!({"calls": [
                {"tool": "properties", "arguments": {"name": "owners"}},
                {"tool": "properties", "arguments": {"name": "status", "value": []}}
            ]}),
        ),
    ];
    for name in [
        "status",
        "STATUS",
        "priority",
        "due",
        "owners",
        "reviewed",
        "rating",
        "started",
        "notes",
        "meta",
        "related",
        "tags",
        "aliases",
        "date",
        "attendees",
    ] {
        calls.push(call("properties", json!({"name": name})));
        calls.push(call("properties", json!({"name": name, "sort": "name"})));
    }
    calls
}

#[test]
fn offline_properties_equal_the_plugins_on_the_fixture_vault() {
    let home = TempHome::new();
    let vault = fixture_with(&home, "properties");
    let host = start_host(&vault);
    let (count, differences) = run_parity(&home, &vault, host, &property_calls());
    assert_same(count, &differences);
}

#[test]
fn offline_periodic_notes_equal_the_plugins() {
    let home = TempHome::new();
    let vault = fixture_with(&home, "periodic");
    let host = start_host(&vault);
    let mut calls = Vec::new();
    for date in [
        "2026-11-28",
        "2026-11-29",
        "2026-12-06",
        "2026-11-15",
        "2027-01-01",
        "2026-03-14",
        "today",
        "bad",
    ] {
        for period in ["day", "week", "month", "quarter", "year"] {
            calls.push(call("daily_note", json!({"date": date, "period": period})));
        }
    }
    calls.push(call("daily_note", json!({"period": "decade"})));
    calls.push(call("daily_note", json!({"period": 7})));
    calls.push(call(
        "batch",
        json!({"calls": [{"tool": "daily_note", "arguments": {"date": "2026-11-15", "period": "month"}}]}),
    ));
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
}

#[test]
fn offline_templates_equal_the_plugins() {
    let home = TempHome::new();
    let vault = fixture_with(&home, "templates");
    let host = start_host(&vault);
    let calls = vec![
        call("templates", json!({})),
        call("templates", json!({"limit": 1})),
        call("templates", json!({"limit": 1, "cursor": "1"})),
        call("templates", json!({"max_chars": 450})),
        call("templates", json!({"cursor": "x"})),
        call("batch", json!({"calls": [{"tool": "templates"}]})),
    ];
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
}

#[test]
fn offline_canvases_equal_the_plugins() {
    let home = TempHome::new();
    let vault = fixture_with(&home, "canvas");
    std::fs::create_dir_all(vault.join("Private")).unwrap();
    std::fs::write(vault.join("Private/Diary.md"), "# Diary\n").unwrap();
    std::fs::create_dir_all(vault.join(".obsidian/plugins/obsmcp")).unwrap();
    std::fs::write(
        vault.join(".obsidian/plugins/obsmcp/data.json"),
        r#"{"hiddenPaths": ["Private"]}"#,
    )
    .unwrap();
    let host = start_host(&vault);
    let mut calls = Vec::new();
    for path in [
        "Boards/Plan.canvas",
        "Boards/Plan",
        "Boards/Compact.canvas",
        "Boards/Empty.canvas",
        "Boards/Broken.canvas",
        "Home",
        "Boards/Missing.canvas",
    ] {
        calls.push(call("canvas", json!({"path": path})));
    }
    for limit in [1, 2, 3, 5] {
        calls.push(call(
            "canvas",
            json!({"path": "Boards/Plan.canvas", "limit": limit}),
        ));
        calls.push(call(
            "canvas",
            json!({"path": "Boards/Plan.canvas", "limit": limit, "cursor": limit.to_string()}),
        ));
    }
    calls.push(call(
        "canvas",
        json!({"path": "Boards/Plan.canvas", "max_chars": 500}),
    ));
    calls.push(call(
        "canvas",
        json!({"path": "Boards/Plan.canvas", "max_chars": 1500}),
    ));
    calls.push(call(
        "batch",
        json!({"calls": [{"tool": "canvas", "arguments": {"path": "Boards/Compact.canvas"}}]}),
    ));
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
}

#[test]
fn offline_bases_equal_the_plugins() {
    let home = TempHome::new();
    let vault = fixture_with(&home, "bases");
    std::fs::create_dir_all(vault.join("Private")).unwrap();
    std::fs::write(
        vault.join("Private/Secret.base"),
        "views: [{name: Secret}]\n",
    )
    .unwrap();
    std::fs::write(
        vault.join("Private/Hidden book.md"),
        "---\nstatus: read\ntags: [book]\n---\n",
    )
    .unwrap();
    std::fs::create_dir_all(vault.join(".obsidian/plugins/obsmcp")).unwrap();
    std::fs::write(
        vault.join(".obsidian/plugins/obsmcp/data.json"),
        r#"{"hiddenPaths": ["Private"]}"#,
    )
    .unwrap();
    // Every expression form of the subset, and the refusals, as one view each.
    let mut views = String::from("views:\n");
    for (index, filter) in [
        "file.name.startsWith(\"D\") || file.basename.endsWith(\"ma\")",
        "year >= 1900 && year < 1960",
        "!(rating > 4)",
        "-rating < -4",
        "(year % 100) * 2 / 4 == 7.5",
        "title.lower() == \"dune\" || author.upper().contains(\"ASIMOV\")",
        "tags.contains(\"BOOK\")",
        "[1, 2, 3].length == 3 && title.length > 4",
        "file.hasTag(\"#scifi\")",
        "file.hasTag(\"scifi\", \"nothing\")",
        "file.hasProperty(\"PAGES\")",
        "file.inFolder(\"/Library/\") && file.ext == \"md\"",
        "file.hasLink(\"[[Foundation]]\")",
        "file.size > 100",
        "file.mtime > date(\"2020-01-01\") && file.mtime < now()",
        "today() > date(\"2020-01-01T10:30\")",
        "date(\"2024-13-01\") == date(\"2025-01-01\")",
        "if(year < 1900, true) == true",
        "note[\"status\"] == \"read\"",
        "pages + 1 > 400",
        "title + year == \"Dune1965\"",
        "status != null",
        "missing == null",
        "year > \"1900\"",
        "date(5)",
        "file.hasTag()",
        "nope(1)",
        "title.reverse()",
        "title +",
        "'unterminated",
        "title # 3",
        "if(1)",
        "year.length",
        "-title",
        "title - 1",
    ]
    .iter()
    .enumerate()
    {
        views.push_str(&format!(
            "  - {{name: \"v{index}\", filters: '{}', order: [file.name, title, year, formula.f], sort: [{{property: year, direction: DESC}}]}}\n",
            filter.replace('\'', "''")
        ));
    }
    std::fs::write(
        vault.join("Library/Forms.base"),
        format!("formulas:\n  f: 'year / 10'\n  loop: 'formula.loop + 1'\n{views}  - {{name: loop, order: [formula.loop]}}\n"),
    )
    .unwrap();
    let deep_views = deep_base_views(&vault);
    let host = start_host(&vault);
    let mut calls = vec![
        call("bases", json!({})),
        call("bases", json!({"limit": 1})),
        call("bases", json!({"view": "x"})),
        call("bases", json!({"base": "Library/Empty.base"})),
        call("bases", json!({"base": "Library/Broken.base"})),
        call("bases", json!({"base": "Library/Dune"})),
        call("bases", json!({"base": "Private/Secret.base"})),
        call(
            "bases",
            json!({"base": "Library/Books.base", "view": "Nope"}),
        ),
        call(
            "bases",
            json!({"base": "Library/Books.base", "limit": 1, "cursor": "1"}),
        ),
        call(
            "bases",
            json!({"base": "Library/Forms.base", "view": "loop"}),
        ),
    ];
    for name in [
        "All books",
        "Unread",
        "Top rated",
        "By status",
        "Linked",
        "Unsupported",
        "Bad formula",
        "Broken expression",
    ] {
        calls.push(call(
            "bases",
            json!({"base": "Library/Books.base", "view": name}),
        ));
    }
    for index in 0..35 {
        calls.push(call(
            "bases",
            json!({"base": "Library/Forms.base", "view": format!("v{index}")}),
        ));
    }
    for view in deep_views {
        calls.push(call(
            "bases",
            json!({"base": "Library/Deep.base", "view": view}),
        ));
    }
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
}

/// Writes `Library/Deep.base`: each hostile nesting (which overflowed the offline reader's stack before parsing was
/// bounded) just inside the bound of 100 levels and far past it, and chains of formulas that pass it together; returns
/// its views' names. Both readers must accept and refuse the same ones with the same words.
fn deep_base_views(vault: &std::path::Path) -> Vec<String> {
    let forms = |n: usize| -> Vec<(&str, String)> {
        vec![
            ("sum", vec!["1"; n + 1].join("+")),
            (
                "parentheses",
                format!("{}1{}", "(".repeat(n), ")".repeat(n)),
            ),
            ("negations", format!("{}true", "!".repeat(n))),
            ("minus", format!("{}1", "-".repeat(n))),
            ("lists", format!("{}1{}", "[".repeat(n), "]".repeat(n))),
            ("chain", format!("\"a\"{}", ".lower()".repeat(n))),
            (
                "calls",
                format!("{}1{}", "if(true,".repeat(n), ")".repeat(n)),
            ),
        ]
    };
    let mut text = String::from("formulas:\n");
    for (prefix, length) in [("short", 40), ("long", 60)] {
        for i in 0..length {
            let body = if i + 1 < length {
                format!("formula.{prefix}{} + 1", i + 1)
            } else {
                "1".to_string()
            };
            text.push_str(&format!("  {prefix}{i}: '{body}'\n"));
        }
    }
    text.push_str("views:\n");
    let mut names = Vec::new();
    for n in [98, 99, 100, 101, 20_000] {
        for (form, source) in forms(n) {
            let name = format!("{form} {n}");
            text.push_str(&format!("  - name: {name}\n    filters: '{source}'\n"));
            names.push(name);
        }
    }
    for chain in ["short0", "long0", "long30"] {
        text.push_str(&format!(
            "  - name: {chain}\n    order: [formula.{chain}]\n"
        ));
        names.push(chain.to_string());
    }
    std::fs::write(vault.join("Library/Deep.base"), text).unwrap();
    names
}

#[test]
fn offline_bookmarks_equal_the_plugins() {
    let home = TempHome::new();
    let vault = fixture_with(&home, "bookmarks");
    let host = start_host(&vault);
    let calls = vec![
        call("bookmarks", json!({})),
        call("bookmarks", json!({"limit": 3})),
        call("bookmarks", json!({"limit": 3, "cursor": "3"})),
        call("bookmarks", json!({"max_chars": 300})),
        call("bookmarks", json!({"cursor": "x"})),
        call("batch", json!({"calls": [{"tool": "bookmarks"}]})),
    ];
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
}

#[test]
fn offline_tasks_properties_and_bases_equal_the_plugins_on_a_generated_vault() {
    let home = TempHome::new();
    let vault = generated_vault(&home, 10_000, 11);
    std::fs::write(
        vault.join("Generated.base"),
        "filters: 'file.ext == \"md\"'\nformulas:\n  kb: 'file.size / 1024'\nviews:\n  - name: Projects\n    \
         filters:\n      or:\n        - 'file.hasTag(\"project\")'\n        - 'status == \"active\" && file.hasLink(\"Hub\")'\n    \
         order: [file.path, status, formula.kb, file.tags]\n    sort:\n      - property: status\n        direction: DESC\n    \
         groupBy:\n      property: file.folder\n",
    )
    .unwrap();
    let host = start_host(&vault);
    let big = |arguments: Value| {
        let mut arguments = arguments;
        arguments["limit"] = json!(500);
        arguments["max_chars"] = json!(400_000);
        call("tasks", arguments)
    };
    let calls = vec![
        big(json!({"status": "all"})),
        big(json!({"status": "all", "cursor": "500"})),
        big(json!({})),
        big(json!({"status": "done", "sort": "date"})),
        big(json!({"path_prefix": "Projects/", "status": "all"})),
        big(json!({"tag": "todo", "status": "all"})),
        call("properties", json!({"limit": 500, "max_chars": 400_000})),
        call(
            "properties",
            json!({"name": "tags", "limit": 500, "max_chars": 400_000}),
        ),
        call(
            "properties",
            json!({"name": "status", "limit": 500, "max_chars": 400_000}),
        ),
        call(
            "properties",
            json!({"name": "status", "value": "active", "limit": 500, "max_chars": 400_000}),
        ),
        call("bases", json!({})),
        call(
            "bases",
            json!({"base": "Generated.base", "limit": 500, "max_chars": 400_000}),
        ),
        call(
            "bases",
            json!({"base": "Generated.base", "limit": 500, "cursor": "500", "max_chars": 400_000}),
        ),
    ];
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
}

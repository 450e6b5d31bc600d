//! Parity of the plugin and offline mode on Obsidian's own structures (issue-18 tools): tasks on the fixture vault
//! with the tasks fixture (emoji and Dataview dates, custom statuses from the Tasks plugin's settings, CRLF, nested
//! and numbered items) and on a generated 10,000-note vault, every filter and failing argument.

use super::*;
use crate::support::{copy_dir, repo_root};

/// The fixture vault with the task notes and the Tasks plugin's settings of `test/fixtures/tasks` copied in.
fn task_vault(home: &TempHome) -> std::path::PathBuf {
    let vault = fixture_vault(home);
    copy_dir(
        &repo_root().join("obsidian-plugin/test/fixtures/tasks"),
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
    let vault = task_vault(&home);
    let host = start_host(&vault);
    let calls = task_calls();
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
}

#[test]
fn offline_tasks_equal_the_plugins_on_a_generated_vault() {
    let home = TempHome::new();
    let vault = generated_vault(&home, 10_000, 11);
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
    ];
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
}

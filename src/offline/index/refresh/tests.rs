//! A check after notes were edited in place: the watcher names them, they alone are stat'ed again (no walk), and the
//! index comes out as a walk would have made it.

use serde_json::json;

use crate::lock::lock;
use crate::offline::obsidian::metadata::Snapshot;
use crate::offline::obsidian::vault::{relisted, walk};
use crate::offline::plugin::vault::hidden::HiddenRules;
use crate::offline::tests::{eventually, text, vault};

/// What the tools read of a snapshot's listing and links, to compare two snapshots of the same folder.
fn shape(snapshot: &Snapshot) -> String {
    let backlinks: Vec<Vec<(&str, usize)>> = snapshot
        .files
        .iter()
        .map(|file| snapshot.backlink_sources(&file.path).collect())
        .collect();
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{backlinks:?}",
        snapshot.files,
        snapshot.folders,
        snapshot.sorted_notes,
        snapshot.sorted_entries().collect::<Vec<_>>()
    )
}

#[test]
fn an_edit_in_place_is_checked_without_a_walk_and_gives_what_a_walk_gives() {
    let (dir, offline) = vault(&[
        ("a.md", "alpha [[b]]"),
        ("b.md", "beta"),
        ("sub/c.md", "gamma [[a]]"),
        (".obsidian/workspace.json", "{}"),
    ]);
    let search = |query: &str| {
        offline
            .call_tool("search", json!({"query": query}))
            .unwrap()
    };
    assert!(text(&search("alpha")).contains(r#""total_matches":1"#));
    assert!(lock(&offline.state).watch.is_some());
    // The walk the first build owes (the bridge runs it beside the first answer).
    offline.fresh_snapshot(false).unwrap();
    let walks = lock(&offline.state).walks;

    // New words and a new link, written in place as Obsidian writes a note.
    std::fs::write(
        dir.path().join("a.md"),
        "alpha delta [[sub/c]], no longer b",
    )
    .unwrap();
    let edited = eventually(|| search("delta"), r#""total_matches":1"#);
    assert!(
        text(&edited).contains(r#""path":"a.md""#),
        "{}",
        text(&edited)
    );
    let b = offline
        .call_tool("backlinks", json!({"path": "b"}))
        .unwrap();
    assert!(text(&b).contains(r#""total":0"#), "{}", text(&b));
    assert_eq!(
        lock(&offline.state).walks,
        walks,
        "the edit made the index walk the vault"
    );
    let snapshot = lock(&offline.state).snapshot.clone().unwrap();
    let walked = Snapshot::refresh(dir.path(), &offline.real, None);
    assert_eq!(shape(&snapshot), shape(&walked));

    // After a call through Obsidian that may have written, the next call waits for the watcher to catch up, then
    // checks what it saw: the edit is there at once, still without a walk.
    std::fs::write(dir.path().join("sub/c.md"), "gamma theta [[a]]").unwrap();
    offline.vault_may_have_changed();
    assert!(text(&search("theta")).contains(r#""total_matches":1"#));
    assert_eq!(
        lock(&offline.state).walks,
        walks,
        "a write through Obsidian made the index walk the vault"
    );

    // Obsidian's own files in the config folder change nothing listed; the files of the hidden-path rules may.
    std::fs::write(
        dir.path().join(".obsidian/workspace.json"),
        r#"{"active":"a"}"#,
    )
    .unwrap();
    std::fs::write(dir.path().join("b.md"), "beta epsilon").unwrap();
    let _ = eventually(|| search("epsilon"), r#""total_matches":1"#);
    assert_eq!(
        lock(&offline.state).walks,
        walks,
        "workspace.json made the index walk the vault"
    );
    std::fs::write(dir.path().join(".obsidian/app.json"), "{}").unwrap();
    let started = std::time::Instant::now();
    while lock(&offline.state).walks == walks && started.elapsed().as_secs() < 5 {
        let _ = search("alpha");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(
        lock(&offline.state).walks > walks,
        "a change of app.json was not checked by a walk"
    );
    let walks = lock(&offline.state).walks;

    // Anything else (here a new note) is checked by a walk.
    std::fs::write(dir.path().join("sub/e.md"), "zeta").unwrap();
    let created = eventually(|| search("zeta"), r#""total_matches":1"#);
    assert!(
        text(&created).contains(r#""path":"sub/e.md""#),
        "{}",
        text(&created)
    );
    assert!(lock(&offline.state).walks > walks);
}

#[test]
fn only_a_plain_file_inside_the_vault_and_nowhere_else_in_it_is_relisted() {
    let (dir, offline) = vault(&[("a.md", "one"), ("b.md", "two"), ("c.md", "three")]);
    let root = dir.path();
    let listed = || walk(root, &offline.real, &HiddenRules::default(), &|_, _| {});
    let index_of = |files: &[crate::offline::obsidian::vault::FileEntry], path: &str| {
        files.iter().position(|file| file.path == path).unwrap()
    };

    // Edited in place: the same listing as a walk gives.
    let before = listed();
    std::fs::write(root.join("b.md"), "two, and more").unwrap();
    let b = index_of(&before.files, "b.md");
    let after = relisted(root, &before.files, &before.folders, &[b]).unwrap();
    let now = listed();
    assert_eq!((&after.files, &after.folders), (&now.files, &now.folders));

    // A file that is gone, or a symlink now, needs a walk.
    let before = listed();
    let c = index_of(&before.files, "c.md");
    std::fs::remove_file(root.join("c.md")).unwrap();
    assert!(relisted(root, &before.files, &before.folders, &[c]).is_none());
    std::os::unix::fs::symlink(root.join("a.md"), root.join("c.md")).unwrap();
    assert!(relisted(root, &before.files, &before.folders, &[c]).is_none());

    // A hard link in the vault: the other path holds the same file, which the watcher does not name.
    std::fs::remove_file(root.join("c.md")).unwrap();
    std::fs::hard_link(root.join("a.md"), root.join("c.md")).unwrap();
    let before = listed();
    let a = index_of(&before.files, "a.md");
    assert!(relisted(root, &before.files, &before.folders, &[a]).is_none());
}

/// Waits (up to five seconds) until `done` holds.
fn wait_until(done: impl Fn() -> bool) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(5) {
        if done() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    false
}

/// The text of a search's answer.
fn searched(offline: &crate::offline::OfflineVault, query: &str) -> String {
    let answer = offline.call_tool("search", json!({ "query": query }));
    text(&answer.unwrap()).to_string()
}

#[test]
fn the_first_answer_does_not_wait_for_the_walk_a_build_owes_and_that_walk_sees_what_the_build_missed()
 {
    let (dir, offline) = vault(&[("a.md", "alpha"), ("b.md", "beta")]);
    let offline = std::sync::Arc::new(offline);
    assert!(searched(&offline, "alpha").contains(r#""total_matches":1"#));
    {
        let state = lock(&offline.state);
        assert_eq!(state.walks, 1, "the first answer came after one walk");
        assert!(
            state.catch_up && state.watch.is_some(),
            "a walk with the watcher on is owed"
        );
    }
    // Written after the build's walk and before the watcher watches the folder: only the owed walk can see it.
    std::fs::write(dir.path().join("c.md"), "gamma").unwrap();
    offline.catch_up_in_background();
    assert!(
        wait_until(|| !lock(&offline.state).catch_up),
        "the owed walk ran"
    );
    assert_eq!(lock(&offline.state).walks, 2);
    assert!(
        searched(&offline, "gamma").contains(r#""total_matches":1"#),
        "the walk found the note written meanwhile"
    );
    offline.catch_up_in_background();
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(lock(&offline.state).walks, 2, "nothing more was owed");

    // Without the walk beside the first answer, the next call makes it.
    let (dir, offline) = vault(&[("a.md", "alpha")]);
    assert!(searched(&offline, "alpha").contains(r#""total_matches":1"#));
    std::fs::write(dir.path().join("d.md"), "delta").unwrap();
    let found = searched(&offline, "delta");
    assert!(found.contains(r#""total_matches":1"#), "{found}");
    let state = lock(&offline.state);
    assert_eq!((state.walks, state.catch_up), (2, false));
}

#[test]
fn closing_stops_the_watcher_even_while_another_thread_holds_the_index() {
    let (dir, offline) = vault(&[("a.md", "alpha")]);
    let offline = std::sync::Arc::new(offline);
    assert!(searched(&offline, "alpha").contains(r#""total_matches":1"#));
    let marks = {
        let state = lock(&offline.state);
        let watch = state
            .watch
            .as_ref()
            .expect("watching after the first answer");
        watch.marks().expect("a folder of marks").to_path_buf()
    };
    assert!(marks.is_dir());
    // As the walk a first build owes does, beside the answer: a thread keeps the index past the bridge's own end.
    let held = std::sync::Arc::clone(&offline);
    offline.close(std::time::Duration::from_secs(5));
    assert!(lock(&held.state).watch.is_none(), "the watcher stopped");
    assert!(!marks.exists(), "its marks are gone");
    // A check after the close starts none again.
    std::fs::write(dir.path().join("b.md"), "beta").unwrap();
    assert!(searched(&held, "beta").contains(r#""total_matches":1"#));
    assert!(lock(&held.state).watch.is_none());
}

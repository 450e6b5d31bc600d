//! The saved index's tests: sessions that save and load, damaged and foreign files, hidden notes and budgets.

use serde_json::{Value, json};

use crate::lock::lock;
use crate::offline::OfflineVault;

fn write(dir: &std::path::Path, path: &str, text: &str) {
    let full = dir.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

/// A bridge's vault: saving to `state`, its answers compared as the agent sees them.
fn session(vault: &std::path::Path, state: &std::path::Path) -> OfflineVault {
    OfflineVault::open(vault, None)
        .unwrap()
        .with_saved_index(state)
}

fn answer(offline: &OfflineVault, tool: &str, arguments: Value) -> String {
    offline.call_tool(tool, arguments).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

fn notes_read(offline: &OfflineVault) -> usize {
    lock(&offline.state).snapshot.as_ref().unwrap().notes_read
}

/// The answers to every one of [`calls`].
fn answers(offline: &OfflineVault) -> Vec<String> {
    calls()
        .into_iter()
        .map(|(tool, arguments)| answer(offline, tool, arguments))
        .collect()
}

fn calls() -> Vec<(&'static str, Value)> {
    vec![
        ("search", json!({"query": "alpha"})),
        ("search", json!({"query": "changed words"})),
        ("backlinks", json!({"path": "b"})),
        ("tags", json!({})),
        ("tasks", json!({"status": "all"})),
        ("properties", json!({})),
        ("unresolved_links", json!({})),
    ]
}

/// Thirty notes with tags, a task and links (to `b`, and to a note that does not exist), and `b`.
fn thirty_notes_and_b(vault: &std::path::Path) {
    for i in 0..30 {
        write(
            vault,
            &format!("n{i}.md"),
            &format!(
                "---\ntags: [t{}]\n---\nalpha {i} [[b]] [[gone]]\n- [ ] task {i} 📅 2026-12-0{}\n",
                i % 3,
                i % 9 + 1
            ),
        );
    }
    write(vault, "b.md", "# B\nbeta");
}

/// A saved index whose word index was dropped under a tighter budget is built again under a roomier one, from the
/// listing the walk beside its decoding found (the saved one, when the walk found the folder as saved).
#[test]
fn a_saved_index_built_under_another_budget_is_built_again_from_the_folder() {
    for change in ["none", "a note added"] {
        let vault = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        thirty_notes_and_b(vault.path());
        let tight = session(vault.path(), state.path()).with_memory_budget_mb(0);
        answers(&tight);
        let file = saved_file(&tight);
        // As a bridge that ends: the save under way finishes first (dropped alone, it may not have written yet).
        tight.finish_saving(std::time::Duration::from_secs(30));
        drop(tight);
        assert!(file.exists(), "saved under the tight budget");
        if change != "none" {
            write(vault.path(), "new.md", "alpha again [[b]]");
        }
        let roomy = session(vault.path(), state.path());
        let after = answers(&roomy);
        assert_eq!(
            notes_read(&roomy),
            31 + usize::from(change != "none"),
            "{change}"
        );
        let fresh = OfflineVault::open(vault.path(), None).unwrap();
        assert_eq!(after, answers(&fresh), "{change}");
    }
}

#[test]
fn the_next_session_reads_only_what_changed_and_answers_the_same_as_a_fresh_build() {
    let vault = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    thirty_notes_and_b(vault.path());
    let first = session(vault.path(), state.path());
    let before = answers(&first);
    assert_eq!(notes_read(&first), 31);
    first.finish_saving(std::time::Duration::from_secs(30));
    drop(first);

    let unchanged = session(vault.path(), state.path());
    let again = answers(&unchanged);
    assert_eq!(
        notes_read(&unchanged),
        0,
        "every note came from the saved index"
    );
    assert_eq!(again, before);
    drop(unchanged);

    // Between sessions: one note edited (its size changes), one deleted, one added.
    write(
        vault.path(),
        "n1.md",
        "changed words, no link, longer than it was",
    );
    std::fs::remove_file(vault.path().join("n2.md")).unwrap();
    write(vault.path(), "new.md", "alpha again [[b]]");
    let edited = session(vault.path(), state.path());
    let after = answers(&edited);
    assert_eq!(notes_read(&edited), 2, "the edited note and the new one");
    let fresh = OfflineVault::open(vault.path(), None).unwrap();
    let expected = answers(&fresh);
    assert_eq!(
        after, expected,
        "the same answers as an index built from nothing"
    );
    assert!(after[1].contains(r#""path":"n1.md""#), "{}", after[1]);
}

#[test]
fn a_start_from_the_saved_index_makes_the_search_tables_before_the_first_search() {
    let vault = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    thirty_notes_and_b(vault.path());
    let first = session(vault.path(), state.path());
    answer(&first, "tags", json!({}));
    assert!(
        !lock(&first.state).snapshot.as_ref().unwrap().search_ready(),
        "a small build leaves them to the first search"
    );
    first.finish_saving(std::time::Duration::from_secs(30));
    drop(first);

    let again = session(vault.path(), state.path());
    answer(&again, "tags", json!({}));
    assert_eq!(notes_read(&again), 0, "started from the saved index");
    assert!(
        lock(&again.state).snapshot.as_ref().unwrap().search_ready(),
        "made beside the walk, before any search"
    );
}

#[test]
fn a_damaged_or_foreign_file_is_ignored_and_replaced() {
    let vault = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    write(vault.path(), "a.md", "alpha");
    let offline = session(vault.path(), state.path());
    let file = offline.saved.as_ref().unwrap().file.clone();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let damaged = b"\x01\x02 not an index".as_slice();
    std::fs::write(&file, damaged).unwrap();
    assert!(answer(&offline, "search", json!({"query": "alpha"})).contains(r#""total_matches":1"#));
    // As a bridge that ends: the save of the small build, under way in the background, finishes first.
    offline.finish_saving(Duration::from_secs(30));
    drop(offline);
    assert_ne!(std::fs::read(&file).unwrap(), damaged);
    let next = session(vault.path(), state.path());
    assert!(answer(&next, "search", json!({"query": "alpha"})).contains(r#""total_matches":1"#));
    assert_eq!(notes_read(&next), 0, "the replaced file was used");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "readable by its owner only");
    }
    // Another vault, another file.
    let other = tempfile::tempdir().unwrap();
    write(other.path(), "a.md", "alpha");
    let elsewhere = session(other.path(), state.path());
    assert_ne!(elsewhere.saved.as_ref().unwrap().file, file);
    assert_eq!(
        answer(&elsewhere, "search", json!({"query": "alpha"})),
        answer(&next, "search", json!({"query": "alpha"}))
    );
}

use std::time::Duration;

fn saved_file(offline: &OfflineVault) -> std::path::PathBuf {
    offline.saved.as_ref().unwrap().file.clone()
}

/// Waits up to five seconds for `done`.
fn wait_for(done: impl Fn() -> bool) -> bool {
    let started = std::time::Instant::now();
    while !done() {
        if started.elapsed() > std::time::Duration::from_secs(5) {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    true
}

#[test]
fn a_same_length_edit_inside_the_saved_file_is_not_trusted() {
    let vault = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    write(vault.path(), "a.md", "---\ntags: [alphatag]\n---\nx");
    write(vault.path(), "b.md", "beta");
    let first = session(vault.path(), state.path());
    let tags = answer(&first, "tags", json!({}));
    let file = saved_file(&first);
    // As a bridge that ends: the save under way finishes first.
    first.finish_saving(Duration::from_secs(5));
    drop(first);
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes
        .windows(8)
        .position(|window| window == b"alphatag")
        .expect("the tag is saved");
    bytes[at..at + 8].copy_from_slice(b"omegatag");
    std::fs::write(&file, &bytes).unwrap();
    let next = session(vault.path(), state.path());
    assert_eq!(
        answer(&next, "tags", json!({})),
        tags,
        "the edit is not believed"
    );
    assert_eq!(
        notes_read(&next),
        2,
        "the index was built from the notes again"
    );
}

#[test]
fn a_note_hidden_after_a_save_leaves_the_saved_file_at_once() {
    let vault = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    write(vault.path(), "Private/secret.md", "zebrafinch");
    write(vault.path(), "a.md", "alpha");
    let offline = session(vault.path(), state.path()).with_refresh_interval(Duration::ZERO);
    answer(&offline, "search", json!({"query": "alpha"}));
    let file = saved_file(&offline);
    let holds_secret = || {
        std::fs::read(&file)
            .map(|bytes| {
                bytes
                    .windows(10)
                    .any(|window| window.eq_ignore_ascii_case(b"zebrafinch"))
            })
            .unwrap_or(false)
    };
    assert!(wait_for(holds_secret), "the first save holds the note");
    write(
        vault.path(),
        ".obsidian/plugins/obsmcp/data.json",
        r#"{"hiddenPaths": ["Private"]}"#,
    );
    let found = answer(&offline, "search", json!({"query": "zebrafinch"}));
    assert!(found.contains(r#""total_matches":0"#), "{found}");
    assert!(
        !holds_secret(),
        "the hidden note's words left the saved file with the check"
    );
    drop(offline);
    assert!(!holds_secret(), "and the next save has none of them");
}

#[cfg(unix)]
#[test]
fn the_index_folder_is_kept_private_and_never_written_through_a_link() {
    use std::os::unix::fs::PermissionsExt;
    let vault = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    write(vault.path(), "a.md", "alpha");
    // A folder someone opened to everyone is made the owner's again by the next save.
    let folder = state.path().join("index");
    std::fs::create_dir(&folder).unwrap();
    let state = folder.clone();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o777)).unwrap();
    let offline = session(vault.path(), &state);
    answer(&offline, "search", json!({"query": "alpha"}));
    // Saved in the background: waited for, so the checks below see what the save did.
    offline.finish_saving(std::time::Duration::from_secs(10));
    drop(offline);
    let mode = std::fs::metadata(&folder).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    // A folder that is a link to elsewhere is neither written through nor read.
    std::fs::remove_dir_all(&folder).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), &folder).unwrap();
    let offline = session(vault.path(), &state);
    answer(&offline, "search", json!({"query": "alpha"}));
    offline.finish_saving(std::time::Duration::from_secs(10));
    drop(offline);
    assert_eq!(
        std::fs::read_dir(elsewhere.path()).unwrap().count(),
        0,
        "nothing written through the link"
    );
}

/// A save while another bridge reads the saved file still replaces it. Linux always allows this; Windows refuses to
/// rename over an open file without POSIX semantics (and Wine, where the Windows build's tests run, never has them),
/// which `replace` waits out.
#[test]
fn a_save_replaces_a_file_another_process_holds_open() {
    let state = tempfile::tempdir().unwrap();
    let file = state.path().join("index").join("held.bin");
    super::write_private(&file, |out| std::io::Write::write_all(out, b"before")).unwrap();
    let held = std::fs::File::open(&file).unwrap();
    let reader = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        drop(held);
    });
    super::write_private(&file, |out| std::io::Write::write_all(out, b"after")).unwrap();
    reader.join().unwrap();
    assert_eq!(std::fs::read(&file).unwrap(), b"after");
}

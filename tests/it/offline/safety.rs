//! What offline mode refuses: a note too big to read (listed, never read, and said so), escapes out of the vault by
//! any spelling, and every tool that writes or needs the app.

use super::*;

/// One 512 MB note took the bridge to 2 GiB and delayed every answer. A file over the limit is
/// listed, never read; a read says why, and a search says at its start which notes it passed over.
#[test]
fn offline_lists_a_huge_note_but_never_reads_it_and_says_so() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let huge = std::fs::File::create(vault.join("Huge export.md")).unwrap();
    // Sparse: 600 MB on paper, almost nothing on disk.
    huge.set_len(600 * 1024 * 1024).unwrap();
    drop(huge);
    let mut offline = Client::offline(&home, &vault);
    let read = offline.call("read_note", &json!({"path": "Huge export"}));
    assert_eq!(read["isError"], true, "{read}");
    assert!(
        text_of(&read).contains("600.0 MB, over the 32 MB that offline mode reads of one file"),
        "{read}"
    );
    for (tool, arguments) in [
        ("search", json!({"query": "anything"})),
        ("tags", json!({})),
        ("orphans", json!({})),
        ("backlinks", json!({"path": "Home"})),
    ] {
        let found = offline.call(tool, &arguments);
        let text = text_of(&found);
        assert!(
            text.starts_with(r#"{"skipped_notes":"1 note(s) over the 32 MB"#)
                && text.contains("Huge export.md"),
            "{tool}: {text}"
        );
    }
    let listing = offline.call("list_files", &json!({"limit": 500}));
    assert!(text_of(&listing).contains("Huge export.md"), "{listing}");
}

#[test]
fn offline_refuses_escapes_and_never_reads_outside_the_vault() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "TOPSECRET [[Home]]\n").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path().join("secret.md"), vault.join("Leak.md"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path(), vault.join("Linked folder")).unwrap();
    }
    let mut offline = Client::offline(&home, &vault);
    for path in [
        "Leak",
        "Leak.md",
        "Linked folder/secret",
        "../secret",
        "/etc/hostname",
        "..%2fsecret",
        ".obsidian/app.json",
    ] {
        let result = offline.call("read_note", &json!({"path": path}));
        assert_eq!(result["isError"], true, "{path}: {result}");
    }
    let found = offline.call("search", &json!({"query": "TOPSECRET"}));
    assert!(
        text_of(&found).contains(r#""results":[],"total_matches":0"#),
        "{found}"
    );
    let everything = offline.call(
        "search",
        &json!({"query": ".", "regex": true, "limit": 500, "max_chars": 200_000}),
    );
    assert!(!text_of(&everything).contains("TOPSECRET"));
    let backlinks = offline.call("backlinks", &json!({"path": "Home"}));
    assert!(
        !text_of(&backlinks).contains("Leak.md"),
        "a note outside the vault is never read, so never links"
    );
    let folder = offline.call("list_files", &json!({"folder": "Linked folder"}));
    assert_eq!(folder["isError"], true, "{folder}");
    let listing = offline.call(
        "list_files",
        &json!({"limit": 500, "include_folders": true}),
    );
    let listing = text_of(&listing);
    assert!(
        !listing.contains(".obsidian") && !listing.contains(".hidden"),
        "{listing}"
    );
    assert!(
        listing.contains(r#""path":"Linked folder","type":"folder""#),
        "{listing}"
    );
    assert!(
        !listing.contains("Linked folder/secret.md"),
        "a folder outside the vault is never entered: {listing}"
    );
}

#[test]
fn offline_never_writes_and_says_obsidian_is_not_reachable() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let before = std::fs::read(vault.join("Home.md")).unwrap();
    let mut offline = Client::offline(&home, &vault);
    for (tool, arguments) in [
        (
            "str_replace",
            json!({"path": "Home", "old": "a", "new": "b"}),
        ),
        ("append", json!({"path": "Home", "content": "x"})),
        (
            "set_property",
            json!({"path": "Home", "key": "k", "value": 1}),
        ),
        ("move_note", json!({"path": "Home", "new_path": "Moved"})),
        ("delete_note", json!({"path": "Home"})),
        ("create_daily_note", json!({"date": "2030-01-01"})),
        ("active_note", json!({})),
    ] {
        // Tools that need the app are not answered from disk: the bridge says Obsidian is not reachable.
        let answer = offline.bridge.call_tool(tool, arguments);
        let result = &answer["result"];
        assert_eq!(result["isError"], true, "{tool}: {answer}");
        assert!(
            text_of(result).starts_with("Obsidian is not reachable")
                && text_of(result).contains("Is Obsidian open"),
            "{tool}: {answer}"
        );
    }
    // Inside a batch answered from disk, the one such tool a batch takes says so in its own words.
    let batch = offline.call(
        "batch",
        &json!({"calls": [{"tool": "active_note"}, {"tool": "vault_info"}]}),
    );
    let batch = text_of(&batch);
    assert!(
        batch.contains("active_note needs Obsidian to be open") && batch.contains("\"ok\":true"),
        "{batch}"
    );
    assert_eq!(std::fs::read(vault.join("Home.md")).unwrap(), before);
    assert!(!vault.join("Daily/2030-01-01.md").exists() && !vault.join("Moved.md").exists());
}

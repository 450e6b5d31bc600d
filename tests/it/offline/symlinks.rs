//! Symlinks that lead out of the vault or into its config folder: a note and a folder linked from outside, whose
//! text, links and tags must never reach an answer live or offline, and `.obsidian` reached through a link, whose
//! plugin data holds the bearer token.
//!
//! Unix only: these vaults reach notes through symlinks, which Windows makes for administrators only.
#![cfg(unix)]

use super::parity::{fixed_calls, per_note_calls};
use super::*;

/// A word that only the notes outside the vault hold.
const SECRET_WORD: &str = "ZEBRACORN";

/// Calls over many notes at once, where a note outside the vault could leak its text, links or tags.
fn calls_over_many_notes() -> Vec<Call> {
    vec![
        call(
            "backlinks",
            json!({"path": "Home", "limit": 500, "max_lines_per_note": 20, "max_chars": 200_000}),
        ),
        call("note_metadata", json!({"path": "Home", "limit": 500})),
        call("tags", json!({"limit": 500})),
        call("files_by_tag", json!({"tag": "smuggled"})),
        call("unresolved_links", json!({"limit": 500, "max_sources": 50})),
        call(
            "batch",
            json!({"calls": [
                {"tool": "backlinks", "arguments": {"path": "Home"}},
                {"tool": "tags", "arguments": {"prefix": "smuggled"}}
            ]}),
        ),
    ]
}

/// Asserts that no live answer holds the secret word or names `leak` as a linking note.
fn assert_nothing_leaks(client: &mut Client, leak: &str) {
    let found = client.call(
        "search",
        &json!({"query": SECRET_WORD, "limit": 500, "max_chars": 200_000}),
    );
    assert!(
        text_of(&found).contains(r#""results":[],"total_matches":0"#),
        "{found}"
    );
    for Call { tool, arguments } in calls_over_many_notes() {
        let result = client.call(tool, &arguments);
        let text = text_of(&result);
        assert!(!text.contains(SECRET_WORD), "{tool} {arguments}: {text}");
        if tool == "files_by_tag" {
            // The answer repeats the tag asked for; what matters is that no note carries it.
            assert!(text.contains(r#""total":0"#), "{tool} {arguments}: {text}");
        } else {
            assert!(!text.contains("smuggled"), "{tool} {arguments}: {text}");
        }
        assert!(
            !text.contains("Nowhere outside"),
            "{tool} {arguments}: {text}"
        );
        if tool == "backlinks" {
            assert!(!text.contains(leak), "{tool} {arguments}: {text}");
        }
    }
}

/// The fixture vault plus `Leak.md`, a symlink to a note outside the vault (secret word, a link to `Home`, a tag),
/// and `Shortcut.md`, a symlink to a note inside it: offline and the plugin both list the first and never read it,
/// and treat the second as an ordinary note. Every fixture call and every per-note call is compared.
#[cfg(unix)]
#[test]
fn offline_results_equal_the_plugins_with_a_note_symlinked_out_of_the_vault() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.md"),
        format!("# Secret\n{SECRET_WORD} see [[Home]] and [[Nowhere outside]]\n#smuggled\n"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), vault.join("Leak.md")).unwrap();
    std::os::unix::fs::symlink(vault.join("Archive/Old plan.md"), vault.join("Shortcut.md"))
        .unwrap();
    let host = start_host(&vault);
    let mut client = Client::live(&home, &vault);
    assert_nothing_leaks(&mut client, "Leak.md");
    let listing = client.call("list_files", &json!({"limit": 500}));
    assert!(
        text_of(&listing).contains(r#""path":"Leak.md""#),
        "listed, though never read: {listing}"
    );
    let shortcut = client.call("read_note", &json!({"path": "Shortcut"}));
    assert_ne!(
        shortcut["isError"], true,
        "a symlink inside the vault is read: {shortcut}"
    );

    let mut calls = fixed_calls();
    calls.extend(per_note_calls(&vault, &mut client));
    drop(client);
    calls.extend(calls_over_many_notes());
    calls.extend([
        call("search", json!({"query": SECRET_WORD})),
        call(
            "search",
            json!({"query": ".", "regex": true, "limit": 500, "max_chars": 200_000}),
        ),
        call("orphans", json!({"limit": 500})),
        call("list_files", json!({"limit": 500})),
        call("read_note", json!({"path": "Leak"})),
        call("outgoing_links", json!({"path": "Leak"})),
        call("read_note", json!({"path": "Shortcut"})),
        call("backlinks", json!({"path": "Shortcut"})),
    ]);
    let (count, differences) = run_parity(&home, &vault, host, &calls);
    assert_same(count, &differences);
    assert_nothing_leaks(&mut Client::offline(&home, &vault), "Leak.md");
}

/// A symlinked folder that leads out of the vault, holding a note with the secret word, a link to `Home` and a tag.
/// Offline lists the folder without entering it; the plugin (as Obsidian) lists what is inside too, so listings
/// differ, but neither reads the note: the calls over many notes agree.
#[cfg(unix)]
#[test]
fn offline_results_equal_the_plugins_with_a_folder_symlinked_out_of_the_vault() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("inner.md"),
        format!("{SECRET_WORD} in a folder, see [[Home]] and [[Nowhere outside]] #smuggled/deep\n"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), vault.join("Linked folder")).unwrap();
    let host = start_host(&vault);
    let mut client = Client::live(&home, &vault);
    assert_nothing_leaks(&mut client, "Linked folder/inner.md");
    for path in ["Linked folder/inner", "Linked folder/inner.md"] {
        let result = client.call("read_note", &json!({"path": path}));
        assert_eq!(result["isError"], true, "{path}: {result}");
    }
    drop(client);
    let (count, differences) = run_parity(&home, &vault, host, &calls_over_many_notes());
    assert_same(count, &differences);
    assert_nothing_leaks(
        &mut Client::offline(&home, &vault),
        "Linked folder/inner.md",
    );
}

/// `cfglink -> .obsidian` gave offline `read_note` the bearer token in the plugin's data.json.
#[cfg(unix)]
#[test]
fn offline_never_reads_the_config_folder_through_a_symlink() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let secret = r#"{"token":"0123456789abcdef0123456789abcdef"}"#;
    let plugin = vault.join(".obsidian/plugins/secretive");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::write(plugin.join("data.json"), secret).unwrap();
    std::fs::write(vault.join(".obsidian/note.md"), "CONFIGWORD [[Home]]\n").unwrap();
    std::os::unix::fs::symlink(".obsidian", vault.join("cfglink")).unwrap();
    std::os::unix::fs::symlink(
        ".obsidian/plugins/secretive/data.json",
        vault.join("token.json"),
    )
    .unwrap();
    std::os::unix::fs::symlink(".obsidian/note.md", vault.join("Alias.md")).unwrap();
    let mut offline = Client::offline(&home, &vault);
    for path in [
        "cfglink/plugins/secretive/data.json",
        "token.json",
        "Alias",
        "[[Alias]]",
        "cfglink/note.md",
    ] {
        let result = offline.call("read_note", &json!({"path": path}));
        assert_eq!(result["isError"], true, "{path}: {result}");
        assert!(
            !result.to_string().contains("0123456789abcdef"),
            "{path}: {result}"
        );
    }
    for (tool, arguments) in [
        ("search", json!({"query": "CONFIGWORD"})),
        ("search", json!({"query": "token", "limit": 500})),
        ("backlinks", json!({"path": "Home"})),
        ("list_files", json!({"limit": 500})),
        (
            "batch",
            json!({"calls": [{"tool": "read_note", "arguments": {"path": "token.json"}}]}),
        ),
    ] {
        let result = offline.call(tool, &arguments);
        let text = result.to_string();
        assert!(
            !text.contains("0123456789abcdef"),
            "{tool} {arguments}: {text}"
        );
        assert!(
            !text.contains("CONFIGWORD [["),
            "{tool} {arguments}: {text}"
        );
        assert!(!text.contains("cfglink/"), "{tool} {arguments}: {text}");
    }
}

//! Doctor on edits of large notes that were interrupted: the plugin keeps a large note's text while it edits it
//! (`obsidian-plugin/src/vault/kept.ts`); a record left behind by a crash is judged against the note, a note that may
//! be cut gets its kept text put beside it by `--fix`, and a leftover whose note is whole is cleared.

use super::*;
use crate::support::bridge::Bridge;
use crate::support::signal;

/// A note of about 20 MB: keeping it, writing it and reading it back take long enough to stop Obsidian mid-edit.
fn big_note() -> String {
    format!(
        "# Big\n{}",
        "a line of a large note, written again and again.\n".repeat(400_000)
    )
}

fn kept_folder(vault: &Path) -> PathBuf {
    vault.join(".obsidian/plugins/obsmcp/kept")
}

fn kept_files(vault: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(kept_folder(vault))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn an_edit_cut_by_a_crash_is_found_and_the_text_from_before_is_put_beside_the_note() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));
    let before = big_note();
    std::fs::write(machine.vault.join("Big.md"), &before).unwrap();
    let host = PluginHost::start(&machine.vault, port, TOKEN, &[]);
    let mut bridge = Bridge::start(&machine.home, &["--vault", machine.vault.to_str().unwrap()]);
    bridge.initialize();
    bridge.send(&json!({
        "jsonrpc": "2.0", "id": 99, "method": "tools/call",
        "params": {"name": "append", "arguments": {"path": "Big.md", "content": "one more line\n"}}
    }));
    // Obsidian dies while the edit runs: its record is there, its note not yet released.
    let started = Instant::now();
    while !kept_files(&machine.vault)
        .iter()
        .any(|name| name.ends_with(".json"))
    {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no record appeared in the kept folder"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    signal(host.guard.pid(), "KILL");
    drop(bridge);
    // What a crash inside Obsidian's in-place write leaves: the note cut short.
    std::fs::write(machine.vault.join("Big.md"), &before[..before.len() / 3]).unwrap();

    let run = machine.doctor(&["--json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_check(
        &run.json(),
        "notes.interrupted_edits",
        "fail",
        &["`Big.md`", "may be cut short"],
        &["obsmcp doctor --fix", "Big (before an interrupted edit).md"],
    );

    let fixed = machine.doctor(&["--json", "--fix"]);
    assert!(
        checks(&fixed.json(), "notes.interrupted_edits").is_empty(),
        "{}",
        fixed.stdout
    );
    assert_eq!(
        std::fs::read_to_string(machine.vault.join("Big (before an interrupted edit).md")).unwrap(),
        before,
        "the text from before the edit, whole, beside the note"
    );
    assert_eq!(
        std::fs::read_to_string(machine.vault.join("Big.md"))
            .unwrap()
            .len(),
        before.len() / 3,
        "the note itself is left as it is"
    );
    assert!(
        kept_files(&machine.vault).is_empty(),
        "{:?}",
        kept_files(&machine.vault)
    );
}

#[test]
fn a_leftover_whose_note_is_whole_is_cleared_and_a_record_naming_a_path_outside_is_ignored() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));
    let text = "# Whole\nwhole\n";
    std::fs::write(machine.vault.join("Whole.md"), text).unwrap();
    let kept = kept_folder(&machine.vault);
    std::fs::create_dir_all(&kept).unwrap();
    let hash = |text: &str| {
        use sha2::Digest as _;
        sha2::Sha256::digest(text.as_bytes())
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect::<String>()
    };
    std::fs::write(kept.join("1-a.md"), text).unwrap();
    std::fs::write(
        kept.join("1-a.json"),
        json!({"path": "Whole.md", "before": hash(text), "after": null}).to_string(),
    )
    .unwrap();
    // A synced vault can bring any record: one naming a path outside the vault is never followed.
    std::fs::write(kept.join("2-b.md"), "planted").unwrap();
    std::fs::write(
        kept.join("2-b.json"),
        json!({"path": "../outside.md", "before": "0", "after": null}).to_string(),
    )
    .unwrap();

    let run = machine.doctor(&["--json"]);
    assert_check(
        &run.json(),
        "notes.interrupted_edits",
        "warn",
        &["2 leftover copies", "every note is whole"],
        &["obsmcp doctor --fix"],
    );
    machine.doctor(&["--json", "--fix"]);
    assert!(kept_files(&machine.vault).is_empty());
    assert_eq!(
        std::fs::read_to_string(machine.vault.join("Whole.md")).unwrap(),
        text
    );
    let outside = machine.vault.parent().unwrap();
    assert!(
        !outside
            .join("outside (before an interrupted edit).md")
            .exists()
            && !outside.join("outside.md").exists(),
        "nothing written outside the vault"
    );
}

//! One entry for every vault: setup writes one `obsidian` entry that names each vault, brings the entries of one vault
//! each that an older setup wrote into it (even for vaults not in this run), splits it again with
//! `--entry-per-vault`, keeps a vault unlike the others (`--read-only` for it alone) in an entry of its own, and
//! uninstall of one vault takes that vault out of the entry and leaves the others.

use std::path::Path;

use super::*;
use crate::setup::Run;

const CLIENTS: [&str; 4] = ["--client", "claude-code", "--client", "codex"];

/// The obsmcp entries of Claude Code, by name, each with the vaults it names.
fn claude_entries(machine: &Machine) -> Vec<(String, Vec<String>)> {
    let claude: Value = serde_json::from_str(&machine.read(".claude.json")).unwrap();
    let mut found: Vec<(String, Vec<String>)> = claude["mcpServers"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, entry)| {
            let args: Vec<&str> = entry["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|arg| arg.as_str().unwrap())
                .collect();
            let vaults = args
                .windows(2)
                .filter(|pair| pair[0] == "--vault")
                .map(|pair| pair[1].to_owned())
                .collect();
            (name.clone(), vaults)
        })
        .collect();
    found.sort();
    found
}

fn setup(machine: &Machine, vaults: &[&Path], extra: &[&str]) -> Run {
    let paths: Vec<String> = vaults
        .iter()
        .map(|vault| vault.to_str().unwrap().to_owned())
        .collect();
    let mut args = vec!["setup"];
    for path in &paths {
        args.extend(["--vault", path]);
    }
    args.extend(CLIENTS);
    args.extend(["--yes"]);
    args.extend_from_slice(extra);
    let run = machine.obsmcp(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run
}

#[test]
fn one_entry_serves_every_vault_older_entries_come_into_it_and_it_splits_again() {
    let machine = Machine::new();
    let notes = machine.vault.clone();
    let work = machine.home().join("Work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("Plan.md"), "the work plan\n").unwrap();
    let (notes_text, work_text) = (
        notes.to_str().unwrap().to_owned(),
        work.to_str().unwrap().to_owned(),
    );
    let before = without_backups(machine.tree());

    // An older layout: an entry per vault.
    setup(&machine, &[&notes, &work], &["--entry-per-vault"]);
    assert_eq!(
        claude_entries(&machine),
        [
            ("obsidian".to_owned(), vec![notes_text.clone()]),
            ("obsidian-work".to_owned(), vec![work_text.clone()])
        ]
    );

    // Setup for one of them brings the other's entry in as well: one entry, both vaults.
    let run = setup(&machine, &[&notes], &[]);
    assert!(
        run.stderr
            .contains("brought `obsidian-work` into `obsidian`"),
        "{}",
        run.stderr
    );
    assert_eq!(
        claude_entries(&machine),
        [(
            "obsidian".to_owned(),
            vec![notes_text.clone(), work_text.clone()]
        )]
    );
    let codex = machine.read(".codex/config.toml");
    assert!(!codex.contains("obsidian-work"), "{codex}");
    assert!(
        codex.contains(&format!(
            "\"--vault\", {}",
            serde_json::to_string(&work_text).unwrap()
        )),
        "{codex}"
    );
    // Running it again changes nothing.
    let again = setup(&machine, &[&notes, &work], &[]);
    assert!(
        again.stderr.contains("already configured"),
        "{}",
        again.stderr
    );

    // The entry's bridge serves both vaults; a plain search goes to the first.
    let entry_args = ["bridge", "--vault", &notes_text, "--vault", &work_text];
    let answer = machine.search_in_vault_through_bridge(&entry_args, "work plan", Some("Work"));
    assert!(answer.contains("Plan.md"), "{answer}");

    // Doctor checks each vault behind the one entry.
    let doctor = machine.obsmcp(&["doctor", "--json"]);
    let report: Value = serde_json::from_str(&doctor.stdout).unwrap();
    let entry_checks: Vec<String> = report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|section| section["checks"].as_array().unwrap().iter())
        .filter(|check| check["id"] == "client.entry" && check["status"] == "ok")
        .map(|check| check["finding"].as_str().unwrap().to_owned())
        .collect();
    for vault in [&notes_text, &work_text] {
        assert!(
            entry_checks
                .iter()
                .any(|finding| finding.contains(&format!("vault `{vault}`"))),
            "{entry_checks:?}"
        );
    }

    // One entry per vault again, on request.
    let run = setup(&machine, &[&notes], &["--entry-per-vault"]);
    assert!(run.stderr.contains("split `obsidian`"), "{}", run.stderr);
    assert_eq!(
        claude_entries(&machine),
        [
            ("obsidian".to_owned(), vec![notes_text.clone()]),
            ("obsidian-work".to_owned(), vec![work_text.clone()])
        ]
    );

    // Together again, then one vault uninstalled: the entry keeps the other, and only that vault loses the plugin.
    setup(&machine, &[&notes, &work], &[]);
    let run = machine.obsmcp(&["uninstall", "--vault", &work_text, "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        claude_entries(&machine),
        [("obsidian".to_owned(), vec![notes_text.clone()])]
    );
    assert!(!work.join(".obsidian/plugins/obsmcp").exists());
    assert!(notes.join(".obsidian/plugins/obsmcp/main.js").is_file());
    let claude: Value = serde_json::from_str(&machine.read(".claude.json")).unwrap();
    assert_eq!(
        claude["mcpServers"]["obsidian"]["type"], "stdio",
        "the entry's other keys stay"
    );

    // Uninstall of the rest leaves the home as it was.
    let run = machine.obsmcp(&["uninstall", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let after = without_backups(machine.tree());
    // The bridge this test ran wrote its log in the state folder: the bridge's, not setup's.
    let differences: Vec<String> = tree_diff(&before, &after)
        .into_iter()
        .filter(|difference| !difference.ends_with("bridge.log"))
        .filter(|difference| {
            !matches!(
                difference.as_str(),
                "new: .local" | "new: .local/state" | "new: .local/state/obsmcp"
            )
        })
        .collect();
    assert!(differences.is_empty(), "{differences:#?}");
}

#[test]
fn a_vault_set_up_read_only_keeps_an_entry_of_its_own() {
    let machine = Machine::new();
    let notes = machine.vault.clone();
    let private = machine.home().join("Private");
    std::fs::create_dir_all(&private).unwrap();
    setup(&machine, &[&notes], &[]);
    setup(&machine, &[&private], &["--read-only"]);
    let entries = claude_entries(&machine);
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert_eq!(
        entries[0],
        (
            "obsidian".to_owned(),
            vec![notes.to_str().unwrap().to_owned()]
        )
    );
    assert_eq!(entries[1].1, vec![private.to_str().unwrap().to_owned()]);
    let claude: Value = serde_json::from_str(&machine.read(".claude.json")).unwrap();
    let args = claude["mcpServers"][&entries[1].0]["args"].to_string();
    assert!(args.contains("--read-only"), "{args}");
    assert!(
        !claude["mcpServers"]["obsidian"]["args"]
            .to_string()
            .contains("--read-only")
    );
}

#[test]
fn a_vault_moved_away_keeps_its_record_through_a_run_for_another_and_leaves_nothing_at_uninstall() {
    let machine = Machine::new();
    let notes = machine.vault.clone();
    let personal = machine.home().join("Vaults/Personal");
    std::fs::create_dir_all(&personal).unwrap();
    setup(&machine, &[&notes, &personal], &[]);
    // The vault moves; a run for the other one changes something (splits the entry) before the move is followed.
    let private = machine.home().join("Vaults/Private");
    std::fs::rename(&personal, &private).unwrap();
    setup(&machine, &[&notes], &["--entry-per-vault"]);
    setup(&machine, &[&private], &[]);
    let run = machine.obsmcp(&["uninstall", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !private.join(".obsidian").exists(),
        "the folders setup created in the vault are gone with the plugin"
    );
}

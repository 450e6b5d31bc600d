//! Vaults move and get renamed. Setup recognises the same vault at its new place (the plugin token it
//! recorded, Obsidian's id, the folder name) and re-points its entries in place under their names; doctor names one
//! command that ends with doctor passing; a re-run without `--vault` sets up the vaults set up before, not every vault
//! Obsidian lists; and uninstall after a move leaves nothing of obsmcp's, in the vault or in the state folder.

use std::path::{Path, PathBuf};

use obsmcp_installer::clients::{self, EntryKind};
use serde_json::Value;

use super::{Machine, Run, tree_diff};

const CLIENTS: [(&str, &str); 3] = [
    ("claude-code", ".claude.json"),
    ("codex", ".codex/config.toml"),
    ("hermes", ".hermes/config.yaml"),
];

/// Each client's obsmcp entries, as (client, name, vault): an entry of several vaults once for each.
fn entries(machine: &Machine) -> Vec<(String, String, PathBuf)> {
    let mut found = Vec::new();
    for (id, file) in CLIENTS {
        let Ok(text) = std::fs::read_to_string(machine.home().join(file)) else {
            continue;
        };
        let spec = clients::find(id).unwrap();
        for (name, entry) in clients::read_servers(spec, &text).unwrap() {
            if let EntryKind::Obsmcp { vaults, .. } = clients::describe_entry(spec, &entry) {
                for vault in vaults {
                    found.push((id.to_owned(), name.clone(), vault));
                }
            }
        }
    }
    found
}

fn doctor_failures(machine: &Machine) -> (Run, Vec<Value>) {
    let run = machine.obsmcp(&["doctor", "--json"]);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}\n{}", run.stdout, run.stderr));
    let failures = report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|section| section["checks"].as_array().unwrap().clone())
        .filter(|check| check["status"] == "fail")
        .collect();
    (run, failures)
}

fn assert_doctor_passes(machine: &Machine) {
    let (run, failures) = doctor_failures(machine);
    assert!(
        failures.is_empty() && run.code == 0,
        "doctor still fails: {failures:#?}"
    );
}

fn setup_all(machine: &Machine, vault: &Path) -> Run {
    let vault = vault.to_str().unwrap();
    machine.obsmcp(&[
        "setup",
        "--vault",
        vault,
        "--client",
        "claude-code",
        "--client",
        "codex",
        "--client",
        "hermes",
        "--yes",
    ])
}

/// Nothing of obsmcp's is left: the home, with the vault put back where it was, is as it was before setup.
fn assert_nothing_left(
    machine: &Machine,
    before: &std::collections::BTreeMap<PathBuf, Option<Vec<u8>>>,
    now_at: &Path,
    was_at: &Path,
) {
    std::fs::rename(now_at, was_at).unwrap();
    // The folder the test moved the vault into, when the test made it.
    let _ = std::fs::remove_dir(now_at.parent().unwrap());
    let left = tree_diff(before, &machine.tree());
    assert!(left.is_empty(), "left behind:\n{}", left.join("\n"));
}

#[test]
fn a_moved_vault_keeps_its_entries_under_their_names_and_the_printed_fix_ends_with_doctor_passing()
{
    let machine = Machine::new().with_client_fixtures();
    let before = machine.tree();
    let old = machine.vault.clone();
    let run = setup_all(&machine, &old);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let new = machine.home().join("Elsewhere/My Notes");
    std::fs::create_dir_all(new.parent().unwrap()).unwrap();
    std::fs::rename(&old, &new).unwrap();

    // Doctor names the way out: setup at the new folder, for the clients whose entries are dead.
    let (_, failures) = doctor_failures(&machine);
    let entry = failures
        .iter()
        .find(|check| check["id"] == "client.entry")
        .unwrap_or_else(|| panic!("{failures:#?}"));
    let fix = entry["fix"].as_str().unwrap();
    assert!(
        fix.contains(
            "setup --vault <its folder now> --client claude-code --client codex --client hermes"
        ),
        "{fix}"
    );
    assert!(fix.contains("uninstall --vault"), "{fix}");

    // Following it re-points every entry in place, under its name; no second entry, no dead one.
    let run = setup_all(&machine, &new);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("recognised by its plugin token"),
        "{}",
        run.stderr
    );
    let now = entries(&machine);
    assert_eq!(now.len(), 3, "{now:?}");
    for (client, name, vault) in &now {
        assert_eq!(
            (name.as_str(), vault.as_path()),
            ("obsidian", new.as_path()),
            "{client}"
        );
    }
    assert_doctor_passes(&machine);

    // A full uninstall then leaves nothing, in the moved vault or in obsmcp's state folder.
    let run = machine.obsmcp(&["uninstall", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("obsmcp is uninstalled."),
        "{}",
        run.stderr
    );
    assert_nothing_left(&machine, &before, &new, &old);
}

#[test]
fn with_the_new_place_in_obsidians_list_doctor_names_it_and_fix_repoints_there() {
    let machine = Machine::new().with_client_fixtures();
    let old = machine.vault.clone();
    machine.register_vaults(&[("0a1b2c3d4e5f6071", &old)]);
    assert_eq!(setup_all(&machine, &old).code, 0);
    let new = machine.home().join("Archive/My Notes");
    std::fs::create_dir_all(new.parent().unwrap()).unwrap();
    std::fs::rename(&old, &new).unwrap();
    // Opened again in Obsidian at its new place: a new id, as "Open folder as vault" gives.
    machine.register_vaults(&[("0a1b2c3d4e5f6071", &old), ("99aa88bb77cc66dd", &new)]);

    let (_, failures) = doctor_failures(&machine);
    let fixes: Vec<&str> = failures
        .iter()
        .filter_map(|check| check["fix"].as_str())
        .collect();
    let expected = format!("setup --vault '{}'", new.display());
    assert!(
        fixes.iter().any(|fix| fix.contains(&expected)),
        "{fixes:#?}"
    );

    machine.obsmcp(&["doctor", "--fix"]);
    assert_eq!(entries(&machine).len(), 3);
    for (client, name, vault) in entries(&machine) {
        assert_eq!(
            (name.as_str(), vault.as_path()),
            ("obsidian", new.as_path()),
            "{client}"
        );
    }
    assert_doctor_passes(&machine);
}

#[test]
fn a_renamed_vault_keeps_its_name_and_a_rerun_without_vault_sets_up_no_vault_never_chosen() {
    let machine = Machine::new();
    machine.write(".claude.json", "{}\n");
    let personal = machine.home().join("Documents/Personal");
    let work = machine.home().join("Documents/Work");
    for vault in [&personal, &work] {
        std::fs::create_dir_all(vault.join(".obsidian")).unwrap();
    }
    machine.register_vaults(&[("1111aaaa2222bbbb", &personal), ("3333cccc4444dddd", &work)]);
    let run = machine.obsmcp(&[
        "setup",
        "--vault",
        personal.to_str().unwrap(),
        "--client",
        "claude-code",
        "--yes",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);

    // Renamed in Obsidian's vault switcher: the folder and the path under the same id change.
    let journal = machine.home().join("Documents/Journal");
    std::fs::rename(&personal, &journal).unwrap();
    machine.register_vaults(&[("1111aaaa2222bbbb", &journal), ("3333cccc4444dddd", &work)]);

    let run = machine.obsmcp(&["setup", "--client", "claude-code", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let now = entries(&machine);
    assert_eq!(
        now,
        vec![(
            "claude-code".to_owned(),
            "obsidian".to_owned(),
            journal.clone()
        )],
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("Work"),
        "the vault not set up is named: {}",
        run.stderr
    );
    assert!(
        !work.join(".obsidian/plugins").exists(),
        "Work was never chosen"
    );
    assert_doctor_passes(&machine);
}

#[test]
fn without_anything_recorded_a_renamed_vault_is_not_guessed_and_its_dead_entry_is_named() {
    let machine = Machine::new();
    machine.write(".claude.json", "{}\n");
    let old = machine.vault.clone();
    assert_eq!(
        machine
            .obsmcp(&[
                "setup",
                "--vault",
                old.to_str().unwrap(),
                "--client",
                "claude-code",
                "--yes"
            ])
            .code,
        0
    );
    // Another vault of another name, whose token is not the one recorded: a different vault.
    let stranger = machine.home().join("Vaults/Journal");
    std::fs::rename(&old, machine.home().join("gone")).unwrap();
    std::fs::create_dir_all(&stranger).unwrap();
    let run = machine.obsmcp(&[
        "setup",
        "--vault",
        stranger.to_str().unwrap(),
        "--client",
        "claude-code",
        "--yes",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let names: Vec<(String, PathBuf)> = entries(&machine)
        .into_iter()
        .map(|(_, name, vault)| (name, vault))
        .collect();
    // The old vault keeps its place in the entry (the stranger is not taken for it), and the stranger joins it.
    assert!(
        names.contains(&("obsidian".to_owned(), old.clone())),
        "the old name stays with its vault: {names:?}"
    );
    assert!(
        names.contains(&("obsidian".to_owned(), stranger.clone())),
        "{names:?}"
    );
    let quoted = format!("uninstall --vault '{}'", old.display());
    assert!(
        run.stderr.contains(&quoted),
        "the dead entry is named with its removal: {}",
        run.stderr
    );
    let run = machine.obsmcp(&["uninstall", "--vault", old.to_str().unwrap(), "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_doctor_passes(&machine);
}

#[test]
fn uninstall_after_a_move_takes_the_plugin_from_the_new_place_and_leaves_no_backup_in_the_vault() {
    let machine = Machine::new().with_client_fixtures();
    let old = machine.vault.clone();
    // The config folder and its plugin list exist before setup, as in a vault used with Obsidian.
    machine.write(
        "Vaults/My Notes/.obsidian/community-plugins.json",
        "[\n  \"dataview\"\n]",
    );
    let before = machine.tree();
    assert_eq!(setup_all(&machine, &old).code, 0);
    let renamed = machine.home().join("Vaults/Journal");
    std::fs::rename(&old, &renamed).unwrap();

    let run = machine.obsmcp(&["uninstall", "--vault", renamed.to_str().unwrap(), "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("reload the vault Journal"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("vault My Notes"), "{}", run.stderr);
    assert!(entries(&machine).is_empty(), "{:?}", entries(&machine));
    assert_nothing_left(&machine, &before, &renamed, &old);
}

#[test]
fn removing_one_client_says_what_was_removed_and_what_stays() {
    let machine = Machine::new().with_client_fixtures();
    assert_eq!(setup_all(&machine, &machine.vault.clone()).code, 0);
    let run = machine.obsmcp(&["uninstall", "--client", "codex", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !run.stderr.contains("obsmcp is uninstalled."),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("obsmcp stays set up for the rest:"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("vault My Notes") && run.stderr.contains("Claude Code, Hermes Agent"),
        "{}",
        run.stderr
    );
    let run = machine.obsmcp(&["uninstall", "--yes"]);
    assert!(
        run.stderr.contains("obsmcp is uninstalled."),
        "{}",
        run.stderr
    );
}

/// How a test stops uninstall from editing a client's file: read-only, which uninstall sees and refuses while
/// planning, or immutable (`chattr +i`, root only), which fails the write itself.
#[cfg(unix)]
#[derive(Clone, Copy)]
enum Lock {
    ReadOnly,
    Immutable,
}

/// Locks `file` the way `lock` says, or unlocks it; false where this run may not (`chattr` needs root).
#[cfg(unix)]
fn set_locked(file: &Path, lock: Lock, locked: bool) -> bool {
    use std::os::unix::fs::PermissionsExt;
    match lock {
        Lock::ReadOnly => {
            let mode = if locked { 0o444 } else { 0o644 };
            std::fs::set_permissions(file, std::fs::Permissions::from_mode(mode)).unwrap();
            true
        }
        Lock::Immutable => super::set_immutable(file, locked),
    }
}

/// Moves the vault set up at `old` to `Elsewhere/`, and opens it in Obsidian there; its new place.
#[cfg(unix)]
fn move_and_open(machine: &Machine, old: &Path) -> PathBuf {
    let new = machine.home().join("Elsewhere/My Notes");
    std::fs::create_dir_all(new.parent().unwrap()).unwrap();
    std::fs::rename(old, &new).unwrap();
    machine.register_vaults(&[("5e0c1d2e3f405162", &new)]);
    new
}

/// The full uninstall succeeds, and with the vault back at `old` in Obsidian's list, nothing of obsmcp's is left.
#[cfg(unix)]
fn uninstall_leaves_nothing(
    machine: &Machine,
    before: &std::collections::BTreeMap<PathBuf, Option<Vec<u8>>>,
    new: &Path,
    old: &Path,
) {
    let run = machine.obsmcp(&["uninstall", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(entries(machine).is_empty(), "{:?}", entries(machine));
    machine.register_vaults(&[("5e0c1d2e3f405162", old)]);
    assert_nothing_left(machine, before, new, old);
}

#[cfg(unix)]
#[test]
fn an_uninstall_one_client_stopped_after_a_move_leaves_the_next_one_all_to_remove() {
    for lock in [Lock::ReadOnly, Lock::Immutable] {
        stopped_after_a_move(lock);
    }
}

#[cfg(unix)]
fn stopped_after_a_move(lock: Lock) {
    let machine = Machine::new().with_client_fixtures();
    let old = machine.vault.clone();
    machine.register_vaults(&[("5e0c1d2e3f405162", &old)]);
    let before = machine.tree();
    assert_eq!(setup_all(&machine, &old).code, 0);
    let new = move_and_open(&machine, &old);
    let codex = machine.home().join(".codex/config.toml");
    if !set_locked(&codex, lock, true) {
        return;
    }
    let run = machine.obsmcp(&["uninstall", "--yes"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("kept the plugin: Codex still uses it"),
        "{}",
        run.stderr
    );
    set_locked(&codex, lock, false);
    // What setup created at the vault's old place (its config folder, the plugin list) is still known as setup's at
    // the new one, so the second uninstall removes it rather than editing it.
    uninstall_leaves_nothing(&machine, &before, &new, &old);
}

#[cfg(unix)]
#[test]
fn an_uninstall_one_client_stopped_keeps_the_vaults_identity_for_a_later_rename() {
    for lock in [Lock::ReadOnly, Lock::Immutable] {
        stopped_then_renamed(lock);
    }
}

#[cfg(unix)]
fn stopped_then_renamed(lock: Lock) {
    let machine = Machine::new().with_client_fixtures();
    let old = machine.vault.clone();
    machine.register_vaults(&[("5e0c1d2e3f405162", &old)]);
    assert_eq!(setup_all(&machine, &old).code, 0);
    let codex = machine.home().join(".codex/config.toml");
    if !set_locked(&codex, lock, true) {
        return;
    }
    assert_eq!(machine.obsmcp(&["uninstall", "--yes"]).code, 1);
    set_locked(&codex, lock, false);

    // Renamed in Obsidian: Codex's entry, which uninstall could not remove, names the old place.
    let renamed = machine.home().join("Vaults/Renamed");
    std::fs::rename(&old, &renamed).unwrap();
    machine.register_vaults(&[("5e0c1d2e3f405162", &renamed)]);
    let run = machine.obsmcp(&[
        "setup",
        "--vault",
        renamed.to_str().unwrap(),
        "--client",
        "claude-code",
        "--client",
        "codex",
        "--yes",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut now = entries(&machine);
    now.sort();
    assert_eq!(
        now,
        vec![
            (
                "claude-code".to_owned(),
                "obsidian".to_owned(),
                renamed.clone()
            ),
            ("codex".to_owned(), "obsidian".to_owned(), renamed.clone()),
        ],
        "{}",
        run.stderr
    );
    assert_doctor_passes(&machine);
}

#[cfg(unix)]
#[test]
fn a_setup_stopped_after_a_move_leaves_the_uninstall_all_to_remove() {
    for lock in [Lock::ReadOnly, Lock::Immutable] {
        setup_stopped_after_a_move(lock);
    }
}

/// Setup at a vault's new place, with the only client's file it must write locked: the vault moved all the same, so
/// the record of what setup created there follows it even though no entry could be re-pointed.
#[cfg(unix)]
fn setup_stopped_after_a_move(lock: Lock) {
    let machine = Machine::new().with_client_fixtures();
    let old = machine.vault.clone();
    machine.register_vaults(&[("5e0c1d2e3f405162", &old)]);
    let before = machine.tree();
    let setup = |vault: &Path| {
        machine.obsmcp(&[
            "setup",
            "--vault",
            vault.to_str().unwrap(),
            "--client",
            "codex",
            "--yes",
        ])
    };
    assert_eq!(setup(&old).code, 0);
    let new = move_and_open(&machine, &old);
    let codex = machine.home().join(".codex/config.toml");
    if !set_locked(&codex, lock, true) {
        return;
    }
    let run = setup(&new);
    assert_eq!(run.code, 1, "{}", run.stderr);
    set_locked(&codex, lock, false);
    uninstall_leaves_nothing(&machine, &before, &new, &old);
}

//! `obsmcp doctor --deep` against the real plugin hosted in Node on a copy of the fixture vault: the self-test passes
//! and leaves the vault byte for byte as it was (a before/after tree of every file and folder, hidden ones included);
//! a note changed on disk behind the plugin's back (its metadata cache keeps the old links, the offline reader reads
//! the new ones) is reported by path and field, without its content unless `--show-content` asks; the write half is
//! refused while the plugin is read-only; without Obsidian it says it could not run. The 10,000-note run is
//! `#[ignore]`d (a minute of generation and indexing): `cargo test --test it doctor::deep -- --ignored`.

use std::collections::BTreeMap;

use super::*;
use crate::support::{fixture_vault, node};

/// Every file (with its bytes) and folder under `root`, by relative path.
fn tree(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn walk(root: &Path, folder: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        for entry in std::fs::read_dir(folder).unwrap().map(Result::unwrap) {
            let path = entry.path();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if entry.file_type().unwrap().is_dir() {
                out.insert(format!("{relative}/"), None);
                walk(root, &path, out);
            } else {
                out.insert(relative, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// What changed between two trees, one line per path.
fn tree_diff(
    before: &BTreeMap<String, Option<Vec<u8>>>,
    after: &BTreeMap<String, Option<Vec<u8>>>,
) -> Vec<String> {
    let mut changes = Vec::new();
    for (path, content) in before {
        match after.get(path) {
            None => changes.push(format!("removed {path}")),
            Some(now) if now != content => changes.push(format!("changed {path}")),
            Some(_) => {}
        }
    }
    for path in after.keys().filter(|path| !before.contains_key(*path)) {
        changes.push(format!("added {path}"));
    }
    changes
}

/// A machine whose vault is a copy of the fixture vault, set up and served by the plugin host.
fn fixture_machine(extra: &[&str]) -> (Machine, PluginHost) {
    let home = TempHome::new();
    std::fs::create_dir_all(home.path().join("bin")).unwrap();
    let vault = fixture_vault(&home);
    let machine = Machine { home, vault };
    let port = Machine::ready(&machine.vault, TOKEN);
    let host = PluginHost::start(&machine.vault, port, TOKEN, extra);
    (machine, host)
}

fn deep(machine: &Machine, extra: &[&str]) -> Run {
    let vault = machine.vault.to_str().unwrap().to_owned();
    let mut args = vec!["--deep", "--json", "--vault", &vault];
    args.extend_from_slice(extra);
    machine.doctor(&args)
}

/// Waits (bounded) until the plugin says Obsidian's index is complete, as doctor's handshake check reports it.
fn until_indexed(machine: &Machine) {
    let vault = machine.vault.to_str().unwrap().to_owned();
    let indexed = crate::support::wait_until(Duration::from_secs(20), || {
        let report = machine.doctor(&["--json", "--vault", &vault]).json();
        check(&report, "obsidian.handshake")["finding"]
            .as_str()
            .unwrap_or_default()
            .contains("index complete")
    });
    assert!(indexed, "the plugin never reported a complete index");
}

#[test]
fn deep_on_the_fixture_vault_passes_and_leaves_the_vault_as_it_was() {
    let (machine, host) = fixture_machine(&[]);
    let before = tree(&machine.vault);
    let run = deep(&machine, &[]);
    let after = tree(&machine.vault);
    let report = run.json();
    let deep = &report["deep"][0];
    eprintln!(
        "doctor --deep on the fixture vault: {} ms in all, self-test {} ms ({} parity calls)",
        run.elapsed.as_millis(),
        deep["elapsed_ms"],
        deep["parity"]["calls"]
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(deep["verdict"], "ok", "{deep:#}");
    assert_eq!(deep["parity"]["calls_differing"], 0, "{deep:#}");
    assert_eq!(
        deep["parity"]["notes_compared"],
        deep["parity"]["notes_in_vault"]
    );
    let steps: Vec<&str> = deep["exercise"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        steps,
        [
            "create",
            "edit",
            "links",
            "search",
            "tasks",
            "properties",
            "canvas",
            "rename",
            "trash"
        ]
    );
    let folder = deep["exercise"]["folder"].as_str().unwrap();
    assert!(folder.starts_with("obsmcp-selftest-"), "{folder}");
    let removed = deep["exercise"]["cleanup"]["removed"].to_string();
    assert!(
        removed.contains(folder) && removed.contains(".trash/"),
        "{removed}"
    );
    assert_eq!(deep["exercise"]["cleanup"]["left"], json!([]));
    assert_eq!(
        tree_diff(&before, &after),
        Vec::<String>::new(),
        "the self-test touched the vault outside its scratch folder, or left that folder behind"
    );
    host.stop();
}

/// The planted divergence: a link in `Home.md` retargeted on disk with the size and modification time kept, as a
/// sync tool's write that Obsidian's watcher missed would leave it: the plugin's metadata cache still resolves
/// `[[Archive/Note]]`, the offline reader reads `[[Archive/Nope]]`, which resolves to nothing.
#[test]
fn deep_reports_a_note_changed_behind_the_plugins_back_by_path_without_its_content() {
    let (machine, host) = fixture_machine(&[]);
    until_indexed(&machine);
    let home_note = machine.vault.join("Home.md");
    let modified = std::fs::metadata(&home_note).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(&home_note).unwrap();
    assert!(text.contains("[[Archive/Note]]"));
    std::fs::write(
        &home_note,
        text.replace("[[Archive/Note]]", "[[Archive/Nope]]"),
    )
    .unwrap();
    std::fs::File::options()
        .write(true)
        .open(&home_note)
        .unwrap()
        .set_modified(modified)
        .unwrap();

    let run = deep(&machine, &[]);
    let report = run.json();
    let deep = &report["deep"][0];
    assert_eq!(run.code, 1, "a difference fails the run: {}", run.stdout);
    assert_eq!(deep["verdict"], "fail");
    assert_eq!(deep["parity"]["status"], "fail");
    let differences = deep["parity"]["differences"].as_array().unwrap();
    let link = differences
        .iter()
        .find(|difference| {
            difference["tool"] == "outgoing_links"
                && difference["subject"] == "Home.md"
                && difference["field"].as_str().unwrap().ends_with(".resolved")
        })
        .unwrap_or_else(|| panic!("no outgoing_links difference on Home.md: {deep:#}"));
    assert_eq!(link["live"], "Archive/Note.md", "a path is shown: {link:#}");
    assert_eq!(link["offline"], Value::Null);
    assert!(
        differences
            .iter()
            .any(|difference| difference["tool"] == "backlinks"
                && difference["subject"] == "Archive/Note.md"),
        "the note that lost its backlink differs too: {deep:#}"
    );
    assert!(
        !run.stdout.contains("Nope") && !run.stdout.contains("Welcome to the fixture vault"),
        "note content in the report without --show-content:\n{}",
        run.stdout
    );
    assert_eq!(
        deep["exercise"]["status"], "ok",
        "the exercise still runs: {deep:#}"
    );

    let shown = deep_run_text(&machine, &["--show-content"]);
    assert!(shown.contains("\"Archive/Nope\""), "{shown}");
    let text = deep_run_text(&machine, &[]);
    assert!(
        text.contains("outgoing_links Home.md: .links[") && !text.contains("Nope"),
        "{text}"
    );
    host.stop();
}

/// A step that fails halfway (a hidden-path rule of the user's makes the plugin refuse `move_note` into `Moved/`):
/// the later steps do not run, and cleanup still removes everything the earlier ones made.
#[test]
fn a_failed_step_still_leaves_the_vault_as_it_was() {
    let home = TempHome::new();
    std::fs::create_dir_all(home.path().join("bin")).unwrap();
    let vault = fixture_vault(&home);
    let machine = Machine { home, vault };
    let port = Machine::ready(&machine.vault, TOKEN);
    let data = Machine::plugin_dir(&machine.vault).join("data.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&data).unwrap()).unwrap();
    settings["hiddenPaths"] = json!(["Moved"]);
    std::fs::write(&data, settings.to_string()).unwrap();
    Machine::restrict(&data);
    let host = PluginHost::start(&machine.vault, port, TOKEN, &[]);
    let before = tree(&machine.vault);
    let run = deep(&machine, &[]);
    let report = run.json();
    let exercise = &report["deep"][0]["exercise"];
    assert_eq!(run.code, 1, "{}", run.stdout);
    let steps = exercise["steps"].as_array().unwrap();
    let last = steps.last().unwrap();
    assert_eq!(
        (last["id"].as_str(), last["status"].as_str()),
        (Some("rename"), Some("fail")),
        "{exercise:#}"
    );
    assert!(
        last["finding"]
            .as_str()
            .unwrap()
            .contains("move_note failed"),
        "{last:#}"
    );
    assert_eq!(exercise["cleanup"]["left"], json!([]));
    assert_eq!(
        tree_diff(&before, &tree(&machine.vault)),
        Vec::<String>::new()
    );
    host.stop();
}

fn deep_run_text(machine: &Machine, extra: &[&str]) -> String {
    let vault = machine.vault.to_str().unwrap().to_owned();
    let mut args = vec!["--deep", "--vault", &vault];
    args.extend_from_slice(extra);
    machine.doctor(&args).stdout
}

/// A note reached through a symbolic link that leads outside the vault is read by the plugin and not by the offline
/// reader, as documented: it is left out of the sample and named. (Its links and tags would still show in other
/// notes' backlinks and in `tags`, as that documented difference says; this one has none.)
#[cfg(unix)]
#[test]
fn a_note_linked_from_outside_the_vault_is_left_out_and_named() {
    let home = TempHome::new();
    std::fs::create_dir_all(home.path().join("bin")).unwrap();
    let vault = fixture_vault(&home);
    let outside = home.path().join("Elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("Outside.md"), "Plain text only.\n").unwrap();
    std::os::unix::fs::symlink(outside.join("Outside.md"), vault.join("Linked outside.md"))
        .unwrap();
    let machine = Machine { home, vault };
    let port = Machine::ready(&machine.vault, TOKEN);
    let host = PluginHost::start(&machine.vault, port, TOKEN, &[]);
    let run = deep(&machine, &[]);
    let report = run.json();
    let parity = &report["deep"][0]["parity"];
    assert_eq!(
        parity["notes_outside"],
        json!(["Linked outside.md"]),
        "{parity:#}"
    );
    assert_eq!(parity["calls_differing"], 0, "{parity:#}");
    assert_eq!(run.code, 0, "{}", run.stdout);
    host.stop();
}

#[test]
fn deep_is_refused_in_read_only_mode_and_writes_nothing() {
    let (machine, host) = fixture_machine(&["--read-only"]);
    let before = tree(&machine.vault);
    let run = deep(&machine, &[]);
    let report = run.json();
    let deep = &report["deep"][0];
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(deep["exercise"]["status"], "fail");
    let refused = deep["exercise"]["refused"].as_str().unwrap();
    assert!(
        refused.contains("read-only") && refused.contains("nothing was written"),
        "{refused}"
    );
    assert_eq!(deep["exercise"]["steps"], json!([]));
    assert_eq!(
        deep["parity"]["calls_differing"], 0,
        "the read-only half runs: {deep:#}"
    );
    assert_eq!(
        tree_diff(&before, &tree(&machine.vault)),
        Vec::<String>::new()
    );
    let text = deep_run_text(&machine, &[]);
    assert!(
        text.contains("exercise refused: the plugin is read-only"),
        "{text}"
    );
    host.stop();
}

/// With nothing to test the run fails; one closed vault beside an open one is passed over.
#[test]
fn deep_without_obsidian_says_it_could_not_run() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let run = deep(&machine, &[]);
    let report = run.json();
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(report["deep"][0]["verdict"], "skip", "{report:#}");
    let why = report["deep"][0]["not_run"].as_str().unwrap();
    assert!(
        why.contains("did not answer") && why.contains("open this vault in Obsidian"),
        "{why}"
    );
}

#[test]
fn a_closed_vault_beside_an_open_one_is_passed_over() {
    let (machine, host) = fixture_machine(&[]);
    let closed = machine.home.path().join("Closed");
    Machine::make_vault(&closed);
    Machine::ready(&closed, OTHER_TOKEN);
    let run = machine.doctor(&[
        "--deep",
        "--json",
        "--vault",
        machine.vault.to_str().unwrap(),
        "--vault",
        closed.to_str().unwrap(),
    ]);
    let report = run.json();
    let verdicts: Vec<&str> = report["deep"]
        .as_array()
        .unwrap()
        .iter()
        .map(|deep| deep["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["ok", "skip"], "{report:#}");
    assert_eq!(run.code, 0, "{}", run.stdout);
    host.stop();
}

/// Runtime on a generated 10,000-note vault (obsidian-plugin/test/gen-vault.mjs), with the same tree check.
#[test]
#[ignore = "generates and indexes 10,000 notes: run with --ignored to measure"]
fn deep_on_ten_thousand_notes() {
    let home = TempHome::new();
    std::fs::create_dir_all(home.path().join("bin")).unwrap();
    let vault = home.path().join("Big");
    node(&[
        "obsidian-plugin/test/gen-vault.mjs",
        vault.to_str().unwrap(),
        "--notes",
        "10000",
    ]);
    std::fs::create_dir_all(vault.join(".obsidian")).unwrap();
    let machine = Machine { home, vault };
    let port = Machine::ready(&machine.vault, TOKEN);
    let host = PluginHost::start(&machine.vault, port, TOKEN, &[]);
    let before = tree(&machine.vault);
    let run = deep(&machine, &[]);
    let report = run.json();
    let deep = &report["deep"][0];
    eprintln!(
        "doctor --deep on 10,000 notes: {} ms in all, self-test {} ms (waited {} ms for the index; parity {} ms, {} calls: plugin {} ms, offline {} ms)",
        run.elapsed.as_millis(),
        deep["elapsed_ms"],
        deep["waited_for_index_ms"],
        deep["parity"]["elapsed_ms"],
        deep["parity"]["calls"],
        deep["parity"]["plugin_ms"],
        deep["parity"]["offline_ms"]
    );
    assert_eq!(deep["verdict"], "ok", "{deep:#}");
    assert_eq!(
        tree_diff(&before, &tree(&machine.vault)),
        Vec::<String>::new()
    );
    host.stop();
}

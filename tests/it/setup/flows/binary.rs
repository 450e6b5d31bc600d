//! Where client entries find obsmcp: run from a build folder (as `cargo run` and these tests' own build
//! are), setup installs a copy in `~/.local/bin` and the entries run that copy; a second run changes nothing, a dry
//! run copies nothing, `--version` says what the entries run, a plain `obsmcp bridge` finds the vault setup set up,
//! and uninstall removes the copy with the last entry. What the user keeps at that path themselves (a script, a link
//! to their own tool) is neither replaced by setup or `doctor --fix` nor removed by uninstall.

use std::path::Path;

use super::*;

/// The build the tests compiled: it lives in Cargo's `target/`, a build folder that `cargo clean` empties.
fn build() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_obsmcp"))
}

/// The `command` of Codex's `obsidian` entry (setup writes it as one `command = "…"` line).
fn codex_command(machine: &Machine) -> String {
    let text = machine.read(".codex/config.toml");
    let line = text
        .lines()
        .find(|line| line.starts_with("command = "))
        .unwrap_or_else(|| panic!("no command in:\n{text}"));
    serde_json::from_str(line.trim_start_matches("command = ")).unwrap()
}

#[test]
fn from_a_build_folder_setup_installs_a_copy_that_lasts_and_uninstall_removes_it() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let stable = machine.home().join(".local/bin/obsmcp");
    let setup = [
        "setup", "--vault", &vault, "--client", "codex", "--yes", "--json",
    ];

    let dry = machine.obsmcp_at(
        build(),
        &["setup", "--vault", &vault, "--client", "codex", "--dry-run"],
    );
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(!stable.exists(), "a dry run copies nothing");
    assert!(dry.stderr.contains(".local/bin/obsmcp"), "{}", dry.stderr);

    let run = machine.obsmcp_at(build(), &setup);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let item = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["subject"] == "binary that client entries run")
        .unwrap_or_else(|| panic!("no binary item: {}", run.stdout));
    assert_eq!(item["change"], "added");
    assert!(
        report["notes"].to_string().contains("build folder"),
        "the report says why: {}",
        run.stdout
    );
    assert_eq!(
        std::fs::read(&stable).unwrap(),
        std::fs::read(build()).unwrap()
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&stable).unwrap().permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "executable: {mode:o}");
    }
    assert_eq!(codex_command(&machine), stable.to_str().unwrap());

    let again = machine.obsmcp_at(build(), &setup);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let report: Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(report["outcome"], "already-configured", "{}", again.stdout);

    let version = machine.obsmcp_at(&stable, &["--version"]);
    assert_eq!(version.code, 0, "{}", version.stderr);
    let first = version.stdout.lines().next().unwrap();
    assert!(first.starts_with("obsmcp 0."), "{first}");
    assert!(
        version.stdout.contains(&format!(
            "client entries (Codex) run: {} (this binary)",
            stable.display()
        )),
        "{}",
        version.stdout
    );
    let asked = machine.obsmcp_with(&["--version"], &[("OBSMCP_VERSION_BRIEF", "1")]);
    assert_eq!(asked.stdout.lines().count(), 1, "{}", asked.stdout);

    let uninstall = machine.obsmcp_at(build(), &["uninstall", "--yes"]);
    assert_eq!(uninstall.code, 0, "{}", uninstall.stderr);
    assert!(!stable.exists(), "the copy goes with the last entry");
    assert!(
        !machine.home().join(".codex/config.toml").exists(),
        "the config setup created goes too"
    );
}

#[test]
fn a_copy_setup_made_stays_while_another_client_still_runs_it() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let stable = machine.home().join(".local/bin/obsmcp");
    let run = machine.obsmcp_at(
        build(),
        &[
            "setup",
            "--vault",
            &vault,
            "--client",
            "codex",
            "--client",
            "claude-code",
            "--yes",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = machine.obsmcp_at(build(), &["uninstall", "--client", "codex", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(stable.is_file(), "Claude Code's entry still runs it");
    let run = machine.obsmcp_at(build(), &["uninstall", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!stable.exists());
}

#[test]
fn a_plain_bridge_serves_every_vault_setup_set_up() {
    let machine = Machine::new();
    std::fs::write(machine.vault.join("Plain.md"), "found by a plain bridge\n").unwrap();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.setup(&["--vault", &vault]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let answer = machine.search_through_bridge(&["bridge"], "plain bridge");
    assert!(answer.contains("Plain.md"), "{answer}");

    let second = machine.home().join("Second");
    std::fs::create_dir_all(&second).unwrap();
    std::fs::write(second.join("Other.md"), "found in the second vault\n").unwrap();
    let run = machine.setup(&["--vault", second.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Both vaults, by name; without one, the first setup set up (in the order of its record).
    let answer =
        machine.search_in_vault_through_bridge(&["bridge"], "second vault", Some("Second"));
    assert!(answer.contains("Other.md"), "{answer}");
    let answer =
        machine.search_in_vault_through_bridge(&["bridge"], "plain bridge", Some("My Notes"));
    assert!(answer.contains("Plain.md"), "{answer}");
}

/// A script of the user's own, where setup would put its copy.
const USER_SCRIPT: &str = "#!/bin/sh\n# my own wrapper\nexec my-obsidian-tool \"$@\"\n";

/// Writes `content` at `path` as an executable file.
fn write_executable(path: &Path, content: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// Asserts that a run was refused for the file at the stable path, with the hint that frees it.
fn assert_refused_for(run: &super::super::Run, what: &str) {
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains(what), "{}", run.stderr);
    assert!(run.stderr.contains("nothing was changed"), "{}", run.stderr);
    assert!(
        run.stderr.contains("hint: move `") && run.stderr.contains("aside"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_build_carries_the_marker_by_which_setup_knows_its_own_copies() {
    let bytes = std::fs::read(build()).unwrap();
    assert!(
        obsmcp_installer::plan::binary::carries_marker(&bytes),
        "the built obsmcp lacks its marker: setup would refuse to update its own copies"
    );
}

#[test]
fn regression_setup_refuses_to_replace_a_users_script_at_the_stable_path_and_uninstall_keeps_it() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let stable = machine.home().join(".local/bin/obsmcp");
    write_executable(&stable, USER_SCRIPT.as_bytes());
    let before = machine.tree();

    let dry = machine.obsmcp_at(
        build(),
        &["setup", "--vault", &vault, "--client", "codex", "--dry-run"],
    );
    assert_refused_for(&dry, "is not an obsmcp binary");
    let run = machine.obsmcp_at(
        build(),
        &[
            "setup", "--vault", &vault, "--client", "codex", "--yes", "--json",
        ],
    );
    assert_refused_for(&run, "is not an obsmcp binary");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["outcome"], "failed", "{}", run.stdout);
    assert!(
        report["hint"].as_str().unwrap().contains("aside"),
        "{}",
        run.stdout
    );
    assert_eq!(
        tree_diff(&before, &machine.tree()),
        Vec::<String>::new(),
        "a refused setup writes nothing"
    );

    // A setup from a binary that lasts needs no copy and leaves the script alone; uninstall then must not take it.
    let run = machine.obsmcp(&["setup", "--vault", &vault, "--client", "codex", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = machine.obsmcp_at(build(), &["uninstall", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&stable).unwrap(), USER_SCRIPT);
}

#[cfg(unix)]
#[test]
fn regression_setup_refuses_to_write_through_a_symlink_at_the_stable_path() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let stable = machine.home().join(".local/bin/obsmcp");
    let tool = machine.home().join("tools/my-obsmcp");
    write_executable(&tool, USER_SCRIPT.as_bytes());
    std::fs::create_dir_all(stable.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&tool, &stable).unwrap();

    let run = machine.obsmcp_at(
        build(),
        &["setup", "--vault", &vault, "--client", "codex", "--yes"],
    );
    assert_refused_for(&run, "is a symbolic link to");
    assert_eq!(std::fs::read_link(&stable).unwrap(), tool);
    assert_eq!(std::fs::read_to_string(&tool).unwrap(), USER_SCRIPT);
    assert!(!machine.home().join(".codex/config.toml").exists());
}

#[cfg(unix)]
#[test]
fn regression_uninstall_keeps_what_the_user_put_where_setups_copy_was() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let stable = machine.home().join(".local/bin/obsmcp");
    let setup = ["setup", "--vault", &vault, "--client", "codex", "--yes"];
    let tool = machine.home().join("tools/my-obsmcp");
    write_executable(&tool, USER_SCRIPT.as_bytes());

    for replace in [
        // The user's own script in place of setup's copy.
        |stable: &Path, _tool: &Path| write_executable(stable, USER_SCRIPT.as_bytes()),
        // A link to their own tool in its place.
        |stable: &Path, tool: &Path| std::os::unix::fs::symlink(tool, stable).unwrap(),
    ] {
        let run = machine.obsmcp_at(build(), &setup);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(stable.is_file(), "setup installed its copy");
        std::fs::remove_file(&stable).unwrap();
        replace(&stable, &tool);
        let before = std::fs::symlink_metadata(&stable).unwrap().file_type();

        let run = machine.obsmcp_at(build(), &["uninstall", "--yes"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stderr.contains(": kept, since"), "{}", run.stderr);
        assert_eq!(
            std::fs::symlink_metadata(&stable).unwrap().file_type(),
            before
        );
        assert_eq!(std::fs::read_to_string(&stable).unwrap(), USER_SCRIPT);
        // The record may stay for `~/.local/bin`, which setup created and the user's file now keeps.
        let record =
            std::fs::read_to_string(machine.home().join(".local/state/obsmcp/installed.json"))
                .unwrap_or_default();
        assert!(
            !record.contains("installed_binary"),
            "the record forgets the copy it no longer owns: {record}"
        );
        std::fs::remove_file(&stable).unwrap();
    }
}

#[test]
fn an_older_obsmcp_copy_setup_put_there_is_still_updated_and_removed() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let stable = machine.home().join(".local/bin/obsmcp");
    let setup = [
        "setup", "--vault", &vault, "--client", "codex", "--yes", "--json",
    ];
    let run = machine.obsmcp_at(build(), &setup);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // An older build stands in for the copy: other bytes, the same marker.
    let mut older = std::fs::read(&stable).unwrap();
    older.extend_from_slice(b"an older build");
    write_executable(&stable, &older);

    let run = machine.obsmcp_at(build(), &setup);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let item = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["subject"] == "binary that client entries run")
        .unwrap_or_else(|| panic!("no binary item: {}", run.stdout));
    assert_eq!(item["change"], "updated", "{}", run.stdout);
    assert_eq!(
        std::fs::read(&stable).unwrap(),
        std::fs::read(build()).unwrap()
    );

    let run = machine.obsmcp_at(build(), &["uninstall", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!stable.exists(), "the copy goes with the last entry");
}

#[test]
fn regression_doctor_fix_refuses_to_replace_a_users_script_at_the_stable_path() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let stable = machine.home().join(".local/bin/obsmcp");
    let run = machine.obsmcp(&["setup", "--vault", &vault, "--client", "codex", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The entry runs the build in Cargo's `target/`: doctor's fix would copy it where it lasts.
    let config = machine.read(".codex/config.toml").replace(
        machine.binary().to_str().unwrap(),
        build().to_str().unwrap(),
    );
    machine.write(".codex/config.toml", &config);
    write_executable(&stable, USER_SCRIPT.as_bytes());

    let run = machine.obsmcp_at(build(), &["doctor", "--fix", "--json"]);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}\n{}", run.stdout, run.stderr));
    let refusal = report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|section| section["checks"].as_array().unwrap())
        .find(|check| check["id"] == "fix.failed")
        .unwrap_or_else(|| panic!("no failed fix: {report:#}"));
    assert!(
        refusal["finding"]
            .as_str()
            .unwrap()
            .contains("is not an obsmcp binary"),
        "{refusal:#}"
    );
    assert!(
        refusal["fix"].as_str().unwrap().contains("aside"),
        "{refusal:#}"
    );
    assert_eq!(std::fs::read_to_string(&stable).unwrap(), USER_SCRIPT);
    assert_eq!(
        machine.read(".codex/config.toml"),
        config,
        "the entry is not pointed at a copy that was not made"
    );
}

//! Where client entries find obsmcp (issue 20): run from a build folder (as `cargo run` and these tests' own build
//! are), setup installs a copy in `~/.local/bin` and the entries run that copy; a second run changes nothing, a dry
//! run copies nothing, `--version` says what the entries run, a plain `obsmcp bridge` finds the vault setup set up,
//! and uninstall removes the copy with the last entry.

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
fn a_plain_bridge_serves_the_one_vault_setup_set_up() {
    let machine = Machine::new();
    std::fs::write(machine.vault.join("Plain.md"), "found by a plain bridge\n").unwrap();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.setup(&["--vault", &vault]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let answer = machine.search_through_bridge(&["bridge"], "plain bridge");
    assert!(answer.contains("Plain.md"), "{answer}");

    let second = machine.home().join("Second");
    std::fs::create_dir_all(&second).unwrap();
    let run = machine.setup(&["--vault", second.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = machine.obsmcp(&["bridge"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("set up several"), "{}", run.stderr);
    assert!(run.stderr.contains("OBSMCP_VAULT"), "{}", run.stderr);
}

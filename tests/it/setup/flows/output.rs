//! What a run prints and when it refuses: dry runs (diffs, a hidden token, nothing written), the JSON report and its
//! failures, the refusal without a terminal or of an unknown client, `--help`, next steps that follow what changed,
//! the doctor step naming the binary, and a reader that closes stdout early.

use super::*;

#[test]
fn dry_run_prints_diffs_and_writes_nothing() {
    let machine = Machine::new().with_client_fixtures();
    let before = machine.tree();
    let run = machine.setup(&["--dry-run"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("Dry run: nothing was written."),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("+++ ") && run.stdout.contains("+[mcp_servers.obsidian]"),
        "{}",
        run.stdout
    );
    let differences = tree_diff(&before, &machine.tree());
    assert!(
        differences.is_empty(),
        "a dry run wrote:\n{}",
        differences.join("\n")
    );
    let uninstall = machine.obsmcp(&["uninstall", "--dry-run"]);
    assert_eq!(uninstall.code, 0);
    assert!(
        uninstall.stderr.contains("Nothing of obsmcp's was found"),
        "{}",
        uninstall.stderr
    );
}

#[test]
fn dry_run_without_a_terminal_needs_no_yes_and_hides_the_token() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.obsmcp(&["setup", "--vault", &vault, "--client", "codex", "--dry-run"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("\"token\": \"<redacted>\""),
        "{}",
        run.stdout
    );
}

#[test]
fn json_report_is_machine_readable() {
    let machine = Machine::new().with_client_fixtures();
    let run = machine.setup(&["--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["outcome"], "changed");
    assert_eq!(report["vaults"][0]["server_name"], "obsidian");
    let servers: Vec<&Value> = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["subject"].as_str().unwrap().starts_with("server"))
        .collect();
    assert_eq!(servers.len(), 3);
    assert!(servers.iter().all(|item| item["change"] == "added"));
    let again: Value = serde_json::from_str(&machine.setup(&["--json"]).stdout).unwrap();
    assert_eq!(again["outcome"], "already-configured");
}

#[test]
fn no_terminal_and_no_yes_fails_with_a_hint_naming_the_flags() {
    let machine = Machine::new();
    let before = machine.tree();
    let run = machine.obsmcp(&["setup"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("hint:")
            && run.stderr.contains("--yes")
            && run.stderr.contains("--vault"),
        "{}",
        run.stderr
    );
    let uninstall = machine.obsmcp(&["uninstall"]);
    assert_eq!(uninstall.code, 2);
    assert!(uninstall.stderr.contains("--yes"), "{}", uninstall.stderr);
    assert!(tree_diff(&before, &machine.tree()).is_empty());
}

#[test]
fn unknown_client_is_refused_with_the_known_ones() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.obsmcp(&["setup", "--vault", &vault, "--client", "emacs", "--yes"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("unknown client `emacs`") && run.stderr.contains("claude-code"),
        "{}",
        run.stderr
    );
}

/// The next steps ignored what happened: "Restart Obsidian" and "start a new Codex session"
/// after a run that changed nothing, and a Codex step after Codex was refused.
#[test]
fn next_steps_follow_what_changed() {
    let machine = Machine::new().with_client_fixtures();
    let first = machine.setup(&[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(
        first.stderr.contains("Open Obsidian on the vault My Notes"),
        "{}",
        first.stderr
    );
    assert!(
        first.stderr.contains("Codex: start a new Codex session"),
        "{}",
        first.stderr
    );
    let again = machine.setup(&[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let next = &again.stderr[again.stderr.find("Next:").expect("next steps")..];
    assert!(
        !next.contains("Obsidian on the vault")
            && !next.contains("Codex:")
            && !next.contains("Claude Code:"),
        "{next}"
    );
    assert!(next.contains("doctor"), "{next}");

    let machine = Machine::new().with_client_fixtures();
    machine.write(".codex/config.toml", "[mcp_servers.github\n");
    let refused = machine.setup(&[]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    let next = &refused.stderr[refused.stderr.find("Next:").expect("next steps")..];
    assert!(!next.contains("Codex:"), "{next}");
    assert!(next.contains("Claude Code:"), "{next}");
}

/// `setup --help` named no client, a failed `--json` run printed nothing on stdout, and a quoted
/// `~/…` vault was not found.
#[test]
fn help_names_the_clients_json_failures_are_reported_and_a_quoted_tilde_is_home() {
    let machine = Machine::new();
    let help = machine.obsmcp(&["setup", "--help"]);
    for client in [
        "claude-code",
        "codex",
        "hermes",
        "gemini",
        "opencode",
        "zed",
    ] {
        assert!(
            help.stdout.contains(client),
            "{client} missing from:\n{}",
            help.stdout
        );
    }
    let failed = machine.obsmcp(&["setup", "--json", "--vault", "~/Nowhere", "--yes"]);
    assert_ne!(failed.code, 0);
    let report: serde_json::Value =
        serde_json::from_str(failed.stdout.trim()).expect("a JSON report on stdout");
    assert_eq!(report["outcome"], "failed", "{report}");
    assert!(
        report["error"].as_str().unwrap().contains("Nowhere"),
        "{report}"
    );
    let refused = machine.obsmcp(&["setup", "--json"]);
    let report: serde_json::Value =
        serde_json::from_str(refused.stdout.trim()).expect("a JSON report on stdout");
    assert!(
        report["hint"].as_str().unwrap().contains("--yes"),
        "{report}"
    );
    let run = machine.obsmcp(&[
        "setup",
        "--vault",
        "~/Vaults/My Notes",
        "--client",
        "codex",
        "--yes",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        machine
            .vault
            .join(".obsidian/plugins/obsmcp/main.js")
            .is_file()
    );
}

#[test]
fn the_doctor_step_names_the_binary_that_ran_unless_path_runs_the_same_one() {
    let machine = Machine::new();
    let binary = machine.binary();
    let binary = binary.to_str().unwrap();
    let run = machine.setup(&[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("Run `{binary} doctor`")),
        "obsmcp is not on this PATH, so the step must name the binary:\n{}",
        run.stderr
    );
    let json = machine.setup(&["--json"]);
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    let last = report["next_steps"].as_array().unwrap().last().unwrap();
    assert!(
        last.as_str()
            .unwrap()
            .contains(&format!("`{binary} doctor`")),
        "{last}"
    );

    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(binary, machine.home().join("bin/obsmcp")).unwrap();
        let run = machine.setup(&[]);
        assert!(
            run.stderr.contains("Run `obsmcp doctor`") && !run.stderr.contains(binary),
            "PATH runs this binary, so the plain name is right:\n{}",
            run.stderr
        );
    }
}

#[test]
fn a_reader_that_closes_stdout_early_ends_setup_and_uninstall_quietly() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let runs: [&[&str]; 3] = [
        &[
            "setup",
            "--vault",
            &vault,
            "--client",
            "claude-code",
            "--yes",
            "--json",
        ],
        &[
            "setup",
            "--vault",
            &vault,
            "--client",
            "codex",
            "--yes",
            "--dry-run",
        ],
        &["uninstall", "--yes", "--json"],
    ];
    for args in runs {
        let mut child = machine
            .command(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The reader is gone before anything is written, as with `| head -0`; `| head -3` races the same way.
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !stderr.contains("Broken pipe") && !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
    }
    assert!(
        !machine.home().join(".claude.json").exists(),
        "the uninstall ran to the end"
    );
}

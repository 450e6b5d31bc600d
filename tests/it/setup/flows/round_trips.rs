//! Setup and uninstall as a pair: the agent one-liner on realistic client files (snapshots of its output and of each
//! edited file), a second run that changes no byte, uninstall restoring every file byte for byte (also with one vault
//! of two, with `--keep-plugin`, from an empty home, for every client's entry shape), and a write that fails keeping
//! the file, its backup and the record.

use super::*;

#[test]
fn agent_run_configures_every_client_and_snapshots_the_edits() {
    let machine = Machine::new().with_client_fixtures();
    let run = machine.setup(&[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!("agent_run_output", machine.redact(&run.stderr));
    insta::assert_snapshot!(
        "agent_run_claude_json",
        machine.redact(&machine.read(".claude.json"))
    );
    insta::assert_snapshot!(
        "agent_run_claude_settings",
        machine.redact(&machine.read(".claude/settings.json"))
    );
    insta::assert_snapshot!(
        "agent_run_codex_toml",
        machine.redact(&machine.read(".codex/config.toml"))
    );
    insta::assert_snapshot!(
        "agent_run_hermes_yaml",
        machine.redact(&machine.read(".hermes/config.yaml"))
    );

    let vault = machine.vault.join(".obsidian/plugins/obsmcp");
    assert_eq!(
        std::fs::read(vault.join("main.js")).unwrap(),
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("obsidian-plugin/main.js")
        )
        .unwrap()
    );
    let data: Value =
        serde_json::from_str(&std::fs::read_to_string(vault.join("data.json")).unwrap()).unwrap();
    let token = data["token"].as_str().unwrap();
    assert_eq!(token.len(), 64);
    assert!(token.chars().all(|c| c.is_ascii_hexdigit()));
    assert!(![22360, 27123, 27124].contains(&data["port"].as_u64().unwrap()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(vault.join("data.json"))
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o600
        );
    }
    let enabled: Value = serde_json::from_str(
        &std::fs::read_to_string(machine.vault.join(".obsidian/community-plugins.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(enabled, serde_json::json!(["obsmcp"]));
}

#[test]
fn second_run_changes_no_byte_and_says_already_configured() {
    let machine = Machine::new().with_client_fixtures();
    assert_eq!(machine.setup(&[]).code, 0);
    let after_first = machine.tree();
    let second = machine.setup(&[]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(
        second.stderr.contains("already configured"),
        "{}",
        second.stderr
    );
    let differences = tree_diff(&after_first, &machine.tree());
    assert!(
        differences.is_empty(),
        "the second run changed files:\n{}",
        differences.join("\n")
    );
}

#[test]
fn uninstall_restores_every_pre_existing_file_byte_for_byte() {
    let machine = Machine::new().with_client_fixtures();
    let before = machine.tree();
    assert_eq!(machine.setup(&[]).code, 0);
    assert_ne!(without_backups(machine.tree()), before);
    let run = machine.obsmcp(&["uninstall", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    insta::assert_snapshot!("uninstall_output", machine.redact(&run.stderr));
    let differences = tree_diff(&before, &machine.tree());
    assert!(
        differences.is_empty(),
        "uninstall did not restore the home:\n{}",
        differences.join("\n")
    );
}

#[test]
fn setup_from_nothing_then_uninstall_leaves_nothing_behind() {
    let machine = Machine::new();
    let before = machine.tree();
    let run = machine.setup(&[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(machine.home().join(".claude.json").is_file());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(machine.home().join(".claude.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "Claude keeps ~/.claude.json private");
    }
    let run = machine.obsmcp(&["uninstall", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let differences = tree_diff(&before, &machine.tree());
    assert!(
        differences.is_empty(),
        "left behind:\n{}",
        differences.join("\n")
    );
}

#[test]
fn keep_plugin_removes_only_the_client_entries() {
    let machine = Machine::new().with_client_fixtures();
    assert_eq!(machine.setup(&[]).code, 0);
    let run = machine.obsmcp(&["uninstall", "--yes", "--keep-plugin"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        machine
            .vault
            .join(".obsidian/plugins/obsmcp/main.js")
            .is_file()
    );
    assert!(!machine.read(".claude.json").contains("obsmcp"));
    assert_eq!(
        machine.read(".codex/config.toml"),
        include_str!("../fixtures/config.toml")
    );
}

#[test]
fn a_one_line_claude_json_and_a_commented_vscode_file_come_back_exactly() {
    let machine = Machine::new();
    machine.write(
        ".claude.json",
        r#"{"numStartups":3,"mcpServers":{"a":{"command":"a"}},"projects":{}}"#,
    );
    let vscode = "{\n  // my servers\n  \"servers\": {\n    \"a\": {\"type\": \"stdio\", \"command\": \"a\"}, // keep\n  },\n  \"inputs\": [],\n}\n";
    machine.write(".config/Code/User/mcp.json", vscode);
    let before = machine.tree();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.obsmcp(&[
        "setup",
        "--vault",
        &vault,
        "--client",
        "claude-code",
        "--client",
        "vscode",
        "--yes",
        "--no-claude-permissions",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let edited = machine.read(".config/Code/User/mcp.json");
    assert!(
        edited.contains("// my servers")
            && edited.contains("// keep")
            && edited.contains("\"obsidian\": {"),
        "{edited}"
    );
    assert_eq!(machine.obsmcp(&["uninstall", "--yes"]).code, 0);
    let differences = tree_diff(&before, &machine.tree());
    assert!(
        differences.is_empty(),
        "not restored:\n{}",
        differences.join("\n")
    );
}

#[test]
fn uninstall_of_one_vault_keeps_the_other() {
    let machine = Machine::new().with_client_fixtures();
    let other = machine.home().join("Work");
    std::fs::create_dir_all(&other).unwrap();
    let (first, second) = (
        machine.vault.to_str().unwrap().to_owned(),
        other.to_str().unwrap().to_owned(),
    );
    let run = machine.obsmcp(&[
        "setup",
        "--vault",
        &first,
        "--vault",
        &second,
        "--client",
        "codex",
        "--client",
        "claude-code",
        "--yes",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = machine.obsmcp(&["uninstall", "--vault", &second, "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let codex = machine.read(".codex/config.toml");
    assert!(
        codex.contains("[mcp_servers.obsidian]") && !codex.contains("obsidian-work"),
        "{codex}"
    );
    let settings = machine.read(".claude/settings.json");
    assert!(
        settings.contains("mcp__obsidian__read_note") && !settings.contains("mcp__obsidian-work__"),
        "{settings}"
    );
    assert!(
        machine
            .vault
            .join(".obsidian/plugins/obsmcp/main.js")
            .is_file()
    );
    assert!(!other.join(".obsidian/plugins/obsmcp").exists());
    assert!(
        !other.join(".obsidian").exists(),
        "the config folder setup created in the second vault is gone"
    );
}

#[test]
fn every_client_gets_its_own_entry_shape_and_uninstall_takes_it_back() {
    let machine = Machine::new();
    // Folders that make each client look installed (Claude Desktop has no official Linux build: its usual folder).
    for folder in [
        ".claude",
        ".codex",
        ".hermes",
        ".config/Claude",
        ".gemini",
        ".cursor",
        ".config/Code/User",
        ".codeium/windsurf",
        ".config/zed",
        ".config/opencode",
    ] {
        std::fs::create_dir_all(machine.home().join(folder)).unwrap();
    }
    let before = machine.tree();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.obsmcp(&[
        "setup",
        "--vault",
        &vault,
        "--yes",
        "--no-claude-permissions",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let files = [
        ".claude.json",
        ".codex/config.toml",
        ".hermes/config.yaml",
        ".config/Claude/claude_desktop_config.json",
        ".gemini/settings.json",
        ".cursor/mcp.json",
        ".config/Code/User/mcp.json",
        ".codeium/windsurf/mcp_config.json",
        ".config/zed/settings.json",
        ".config/opencode/opencode.json",
    ];
    let written: Vec<String> = files
        .iter()
        .map(|file| format!("==> {file}\n{}", machine.redact(&machine.read(file))))
        .collect();
    insta::assert_snapshot!("every_client_entry", written.join("\n"));
    assert!(
        machine
            .obsmcp(&[
                "setup",
                "--vault",
                &vault,
                "--yes",
                "--no-claude-permissions"
            ])
            .stderr
            .contains("already configured")
    );
    assert_eq!(machine.obsmcp(&["uninstall", "--yes"]).code, 0);
    let differences = tree_diff(&before, &machine.tree());
    assert!(
        differences.is_empty(),
        "left behind:\n{}",
        differences.join("\n")
    );
}

/// Makes a file immutable (`chattr +i`), which even its owner cannot replace; false where that needs privileges this
/// run lacks.
fn make_immutable(path: &std::path::Path, immutable: bool) -> bool {
    std::process::Command::new("chattr")
        .arg(if immutable { "+i" } else { "-i" })
        .arg(path)
        .output()
        .is_ok_and(|output| output.status.success())
}

/// When uninstall could not write a config (an immutable file) it deleted that file's backup
/// anyway, and the error named no reason. A failed write now keeps the file, its backup and the record as they were,
/// and says why with the hint that fixes it; setup's failed write leaves no backup behind either.
#[test]
fn a_write_that_fails_keeps_the_file_its_backup_and_the_record_and_says_why() {
    let machine = Machine::new().with_client_fixtures();
    let config = machine.home().join(".codex/config.toml");
    if !make_immutable(&config, true) {
        eprintln!("skipped: chattr +i needs root or CAP_LINUX_IMMUTABLE here");
        return;
    }
    let original = std::fs::read(&config).unwrap();
    let run = machine.setup(&[]);
    make_immutable(&config, false);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("Operation not permitted") && run.stderr.contains("lsattr"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&config).unwrap(), original);
    let backup = machine.home().join(".codex/config.toml.obsmcp-backup");
    assert!(!backup.exists(), "a failed setup write left a backup");

    let run = machine.setup(&[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let configured = std::fs::read(&config).unwrap();
    let backed_up = std::fs::read(&backup).unwrap();
    let record = machine.read(".local/state/obsmcp/installed.json");
    assert!(make_immutable(&config, true));
    let run = machine.obsmcp(&["uninstall", "--client", "codex", "--yes"]);
    make_immutable(&config, false);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("Operation not permitted"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&config).unwrap(), configured);
    assert_eq!(
        std::fs::read(&backup).unwrap(),
        backed_up,
        "the backup must survive a failed write"
    );
    assert_eq!(machine.read(".local/state/obsmcp/installed.json"), record);

    let run = machine.obsmcp(&["uninstall", "--client", "codex", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read(&config).unwrap(), original);
    assert!(!backup.exists());
}

//! Whole runs: the agent one-liner, second runs, uninstall, dry runs, JSON, vault discovery, several vaults,
//! migration of an existing `obsidian` entry, and the refusal without a terminal.

use serde_json::Value;

use super::{Machine, tree_diff, without_backups};

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
        include_str!("fixtures/config.toml")
    );
}

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

#[test]
fn vaults_come_from_obsidians_registry_and_get_distinct_ports_and_names() {
    let machine = Machine::new();
    let second = machine.home().join("Work Vault");
    std::fs::create_dir_all(second.join(".obsidian")).unwrap();
    let registry = serde_json::json!({"vaults": {
        "0123456789abcdef": {"path": machine.vault, "ts": 1, "open": true},
        "fedcba9876543210": {"path": second, "ts": 2},
        "aaaaaaaaaaaaaaaa": {"path": machine.home().join("gone"), "ts": 3}
    }});
    // The Flatpak location, to check that it is read too.
    machine.write(
        ".var/app/md.obsidian.Obsidian/config/obsidian/obsidian.json",
        registry.to_string(),
    );
    let run = machine.obsmcp(&["setup", "--client", "codex", "--yes", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let vaults = report["vaults"].as_array().unwrap();
    assert_eq!(vaults.len(), 2);
    assert_ne!(vaults[0]["port"], vaults[1]["port"]);
    let names: Vec<&str> = vaults
        .iter()
        .map(|vault| vault["server_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["obsidian", "obsidian-work-vault"]);
    let codex = machine.read(".codex/config.toml");
    assert!(
        codex.contains("[mcp_servers.obsidian]")
            && codex.contains("[mcp_servers.obsidian-work-vault]"),
        "{codex}"
    );
    let again = machine.obsmcp(&["setup", "--client", "codex", "--yes"]);
    assert!(
        again.stderr.contains("already configured"),
        "{}",
        again.stderr
    );
}

#[test]
fn an_existing_obsidian_entry_is_kept_under_another_name_unless_replace_existing() {
    let machine = Machine::new();
    let original = r#"{"mcpServers": {"obsidian": {"command": "npx", "args": ["mcp-remote", "http://localhost:22360/sse"]}}}"#;
    machine.write(".claude.json", original);
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.obsmcp(&[
        "setup",
        "--vault",
        &vault,
        "--client",
        "claude-code",
        "--yes",
        "--no-claude-permissions",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("npx mcp-remote http://localhost:22360/sse"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("used `obsidian-my-notes` instead"),
        "{}",
        run.stderr
    );
    let claude: Value = serde_json::from_str(&machine.read(".claude.json")).unwrap();
    assert_eq!(claude["mcpServers"]["obsidian"]["command"], "npx");
    assert_eq!(
        claude["mcpServers"]["obsidian-my-notes"]["args"][0],
        "bridge"
    );

    let replaced = machine.obsmcp(&[
        "setup",
        "--vault",
        &vault,
        "--client",
        "claude-code",
        "--yes",
        "--no-claude-permissions",
        "--replace-existing",
    ]);
    assert_eq!(replaced.code, 0, "{}", replaced.stderr);
    let claude: Value = serde_json::from_str(&machine.read(".claude.json")).unwrap();
    assert_eq!(
        claude["mcpServers"]["obsidian-my-notes"]["args"][0], "bridge",
        "the name in use is kept"
    );
    assert_eq!(
        claude["mcpServers"]["obsidian"]["command"], "npx",
        "an entry already ours is reused, nothing else replaced"
    );
}

#[test]
fn replace_existing_replaces_a_foreign_entry_whole() {
    let machine = Machine::new();
    // The older Node bridge's variable: kept beside `--vault`, it would stop `obsmcp bridge` from starting.
    machine.write(".codex/config.toml", "[mcp_servers.obsidian]\nurl = \"http://localhost:22360/sse\"\nbearer_token_env_var = \"X\"\nenv = { OBSIDIAN_MCP_URL = \"http://localhost:22360/mcp\" }\n");
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.obsmcp(&[
        "setup",
        "--vault",
        &vault,
        "--client",
        "codex",
        "--yes",
        "--replace-existing",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let codex = machine.read(".codex/config.toml");
    assert!(
        !codex.contains("url =")
            && !codex.contains("bearer_token_env_var")
            && !codex.contains("OBSIDIAN_MCP_URL"),
        "{codex}"
    );
    assert!(codex.contains("args = [\"bridge\""), "{codex}");
}

#[test]
fn read_only_config_dir_and_permission_flags_shape_the_entry() {
    let machine = Machine::new();
    std::fs::create_dir_all(machine.vault.join(".obsidian-laptop/plugins")).unwrap();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.obsmcp(&[
        "setup",
        "--vault",
        &vault,
        "--client",
        "claude-code",
        "--yes",
        "--read-only",
        "--no-claude-permissions",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let claude: Value = serde_json::from_str(&machine.read(".claude.json")).unwrap();
    let args = &claude["mcpServers"]["obsidian"]["args"];
    assert_eq!(
        args,
        &serde_json::json!([
            "bridge",
            "--vault",
            vault,
            "--config-dir",
            ".obsidian-laptop",
            "--read-only"
        ])
    );
    assert!(
        machine
            .vault
            .join(".obsidian-laptop/plugins/obsmcp/main.js")
            .is_file()
    );
    assert!(!machine.vault.join(".obsidian").exists());
    assert!(!machine.home().join(".claude/settings.json").exists());
}

#[test]
fn permission_rules_name_only_read_only_tools() {
    let machine = Machine::new().with_client_fixtures();
    assert_eq!(machine.setup(&[]).code, 0);
    let settings: Value = serde_json::from_str(&machine.read(".claude/settings.json")).unwrap();
    let rules: Vec<&str> = settings["permissions"]["allow"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| rule.as_str().unwrap())
        .collect();
    let catalog: Value =
        serde_json::from_str(include_str!("../../../obsidian-plugin/catalog.json")).unwrap();
    for tool in catalog["tools"].as_array().unwrap() {
        let rule = format!("mcp__obsidian__{}", tool["name"].as_str().unwrap());
        assert_eq!(
            rules.contains(&rule.as_str()),
            tool["annotations"]["readOnlyHint"] == true,
            "{rule}"
        );
    }
    assert!(
        rules.contains(&"Bash(npm run test:*)"),
        "the user's rules stay"
    );
}

#[test]
fn existing_plugin_data_keeps_its_token_and_port_and_upgrade_replaces_the_files() {
    let machine = Machine::new();
    let plugin = machine.vault.join(".obsidian/plugins/obsmcp");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::write(plugin.join("main.js"), "// an older obsmcp\n").unwrap();
    let data = "{\n  \"port\": 23456,\n  \"token\": \"keep-me\",\n  \"readOnly\": true,\n  \"futureSetting\": [1]\n}";
    std::fs::write(plugin.join("data.json"), data).unwrap();
    std::fs::write(
        machine.vault.join(".obsidian/community-plugins.json"),
        "[\n  \"dataview\",\n  \"obsmcp\"\n]",
    )
    .unwrap();
    std::fs::create_dir_all(machine.vault.join(".obsidian/plugins/claude-code-mcp")).unwrap();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.obsmcp(&[
        "setup", "--vault", &vault, "--client", "codex", "--yes", "--json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(plugin.join("data.json")).unwrap(),
        data
    );
    assert_eq!(
        std::fs::read_to_string(machine.vault.join(".obsidian/community-plugins.json")).unwrap(),
        "[\n  \"dataview\",\n  \"obsmcp\"\n]"
    );
    assert_ne!(
        std::fs::read_to_string(plugin.join("main.js")).unwrap(),
        "// an older obsmcp\n"
    );
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["vaults"][0]["port"], 23456);
    let main_js = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["subject"] == "plugin main.js")
        .unwrap();
    assert_eq!(main_js["change"], "updated");
    assert!(
        run.stdout.contains("claude-code-mcp"),
        "the older plugin is mentioned"
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

/// Issue 13, problem 5: the next steps ignored what happened: "Restart Obsidian" and "start a new Codex session"
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

/// Issue 13, problem 6: `setup --help` named no client, a failed `--json` run printed nothing on stdout, and a quoted
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

/// Makes a file immutable (`chattr +i`), which even its owner cannot replace; false where that needs privileges this
/// run lacks.
fn make_immutable(path: &std::path::Path, immutable: bool) -> bool {
    std::process::Command::new("chattr")
        .arg(if immutable { "+i" } else { "-i" })
        .arg(path)
        .output()
        .is_ok_and(|output| output.status.success())
}

/// Issue 13, problem 4: when uninstall could not write a config (an immutable file) it deleted that file's backup
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

/// Issue 13, problem 3: `uninstall --client hermes` removed the plugin from the vault, and Claude Code and Codex were
/// left pointing at a vault without it. The plugin now goes with the last entry that uses it.
#[test]
fn uninstalling_one_client_keeps_the_plugin_while_other_clients_use_the_vault() {
    let machine = Machine::new().with_client_fixtures();
    let run = machine.setup(&[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let plugin = machine.vault.join(".obsidian/plugins/obsmcp/main.js");
    let run = machine.obsmcp(&["uninstall", "--client", "hermes", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("kept the plugin: Claude Code and Codex still use this vault"),
        "{}",
        run.stderr
    );
    assert!(
        plugin.is_file(),
        "the plugin went while Claude Code and Codex still use it"
    );
    assert!(!machine.read(".hermes/config.yaml").contains("obsmcp"));
    let run = machine.obsmcp(&[
        "uninstall",
        "--client",
        "claude-code",
        "--client",
        "codex",
        "--yes",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !plugin.exists(),
        "the plugin stays after its last client went: {}",
        run.stderr
    );
}

/// Issue 13, problem 1: setup run again from another copy of the binary (the README's `cargo install`, then setup
/// once more) gave every client a second entry per vault, `obsidian` beside `obsidian-my-notes`.
#[test]
fn setup_from_another_copy_of_obsmcp_re_points_each_entry_in_place_under_its_name() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let setup = [
        "setup",
        "--vault",
        &vault,
        "--client",
        "claude-code",
        "--client",
        "codex",
        "--client",
        "hermes",
        "--yes",
    ];
    let first = machine.install_binary("build/target/release/obsmcp");
    let installed = machine.install_binary(".cargo/bin/obsmcp");
    let run = machine.obsmcp_at(&first, &setup);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = machine.obsmcp_at(&installed, &setup);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for client in ["Claude Code", "Codex", "Hermes Agent"] {
        assert!(
            run.stderr.contains(&format!(
                "{client}: re-pointed `obsidian` from `{}` to `{}`",
                first.display(),
                installed.display()
            )),
            "{client}: {}",
            run.stderr
        );
    }
    for file in [".claude.json", ".codex/config.toml", ".hermes/config.yaml"] {
        let text = machine.read(file);
        assert!(
            !text.contains("obsidian-my-notes"),
            "{file} got a second entry:\n{text}"
        );
        assert!(
            !text.contains(first.to_str().unwrap()),
            "{file} still runs the first copy:\n{text}"
        );
        assert_eq!(
            text.matches(installed.to_str().unwrap()).count(),
            1,
            "{file}:\n{text}"
        );
    }
}

/// Entries a setup before this fix doubled (`obsidian` and `obsidian-my-notes` for one vault) become one again.
#[test]
fn a_second_entry_for_the_same_vault_is_removed_and_the_first_name_kept() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    machine.write(
        ".codex/config.toml",
        format!(
            "[mcp_servers.obsidian]\ncommand = \"/opt/old/obsmcp\"\nargs = [\"bridge\", \"--vault\", {vault:?}]\n\n[mcp_servers.obsidian-my-notes]\ncommand = \"/elsewhere/obsmcp\"\nargs = [\"bridge\", \"--vault\", {vault:?}]\n"
        ),
    );
    let run = machine.obsmcp(&["setup", "--vault", &vault, "--client", "codex", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("removed `obsidian-my-notes`, a second entry for this vault"),
        "{}",
        run.stderr
    );
    let codex = machine.read(".codex/config.toml");
    assert!(
        codex.contains("[mcp_servers.obsidian]") && !codex.contains("obsidian-my-notes"),
        "{codex}"
    );
    assert!(
        !codex.contains("/opt/old/obsmcp") && !codex.contains("/elsewhere/obsmcp"),
        "{codex}"
    );
}

/// Another program's entry under the name obsmcp would use is still replaced only with consent.
#[test]
fn another_programs_entry_is_replaced_only_with_consent() {
    for replace in [false, true] {
        let machine = Machine::new();
        let vault = machine.vault.to_str().unwrap().to_owned();
        machine.write(
            ".codex/config.toml",
            "[mcp_servers.obsidian]\ncommand = \"npx\"\nargs = [\"mcp-remote\", \"http://localhost:22360/sse\"]\n",
        );
        let mut args = vec!["setup", "--vault", &vault, "--client", "codex", "--yes"];
        if replace {
            args.push("--replace-existing");
        }
        let run = machine.obsmcp(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let codex = machine.read(".codex/config.toml");
        assert_eq!(codex.contains("mcp-remote"), !replace, "{codex}");
        assert_eq!(
            codex.contains("[mcp_servers.obsidian-my-notes]"),
            !replace,
            "{codex}"
        );
    }
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

#[test]
fn the_doctor_step_names_the_binary_that_ran_unless_path_runs_the_same_one() {
    let machine = Machine::new();
    let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_obsmcp")).unwrap();
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

#[test]
fn uninstall_after_doctor_fix_reenabled_the_plugin_leaves_no_backup_behind() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let before = machine.tree();
    let list = machine.vault.join(".obsidian/community-plugins.json");
    let setup = ["setup", "--vault", &vault, "--client", "codex", "--yes"];
    assert_eq!(machine.obsmcp(&setup).code, 0);
    // The user turns obsmcp off in Obsidian, and `doctor --fix` turns it back on (backing up the `[]`).
    std::fs::write(&list, "[]").unwrap();
    let fix = machine.obsmcp(&["doctor", "--fix"]);
    assert!(
        std::fs::read_to_string(&list).unwrap().contains("obsmcp"),
        "{}",
        fix.stdout
    );
    let run = machine.obsmcp(&["uninstall", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let differences = tree_diff(&before, &machine.tree());
    assert!(
        differences.is_empty(),
        "left behind:\n{}",
        differences.join("\n")
    );

    // A backup that still holds something the user had is theirs: it stays.
    assert_eq!(machine.obsmcp(&setup).code, 0);
    std::fs::write(&list, "[\"dataview\"]").unwrap();
    machine.obsmcp(&["doctor", "--fix"]);
    std::fs::write(&list, "[\"obsmcp\"]").unwrap();
    assert_eq!(machine.obsmcp(&["uninstall", "--yes"]).code, 0);
    // Kept in obsmcp's state folder: a backup in the vault would be spread by sync.
    assert!(
        !machine
            .vault
            .join(".obsidian/community-plugins.json.obsmcp-backup")
            .exists()
    );
    let backup = obsmcp_installer::plan::write::vault_backup_path(
        &machine.home().join(".local/state/obsmcp"),
        &list,
    );
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), "[\"dataview\"]");
}

#[test]
fn hide_adds_rules_to_the_plugin_settings_keeps_the_users_and_shows_their_count_not_their_paths() {
    let machine = Machine::new();
    let data = ".obsidian/plugins/obsmcp/data.json";
    let data_path = machine.vault.join(data);
    let read_data = || -> Value {
        serde_json::from_str(&std::fs::read_to_string(&data_path).unwrap()).unwrap()
    };
    let first = machine.setup(&[
        "--hide",
        " Therapy ",
        "--hide",
        "Finance/Statements",
        "--hide",
        "  ",
    ]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let stored = read_data();
    assert_eq!(
        stored["hiddenPaths"],
        serde_json::json!(["Therapy", "Finance/Statements"])
    );
    assert!(stored.get("hideExcludedFiles").is_none());
    // The user adds a rule in Obsidian; setup again with one known rule and the excluded files keeps all of them.
    let mut edited = stored.clone();
    edited["hiddenPaths"] = serde_json::json!(["Therapy", "Finance/Statements", "Diary"]);
    std::fs::write(&data_path, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
    let second = machine.setup(&[
        "--hide",
        "Therapy",
        "--hide",
        "Health",
        "--hide-excluded-files",
    ]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    let stored = read_data();
    assert_eq!(
        stored["hiddenPaths"],
        serde_json::json!(["Therapy", "Finance/Statements", "Diary", "Health"])
    );
    assert_eq!(stored["hideExcludedFiles"], true);
    assert_eq!(stored["token"], edited["token"], "the token is kept");
    let again = machine.setup(&["--hide", "Health"]);
    assert!(
        again.stderr.contains("already configured"),
        "{}",
        again.stderr
    );
    // Doctor says how many rules are in force, never which paths.
    let vault = machine.vault.to_str().unwrap().to_owned();
    let doctor = machine.obsmcp(&["doctor", "--vault", &vault]);
    assert!(
        doctor.stdout.contains("4 hidden-path rules"),
        "{}",
        doctor.stdout
    );
    for private in ["Therapy", "Diary", "Health", "Finance"] {
        assert!(
            !doctor.stdout.contains(private),
            "doctor shows {private}: {}",
            doctor.stdout
        );
    }
    // Rules stored in a shape setup cannot add to: the vault is left alone and the run says why.
    let mut odd = stored.clone();
    odd["hiddenPaths"] = serde_json::json!("Therapy");
    let odd_text = serde_json::to_string_pretty(&odd).unwrap();
    std::fs::write(&data_path, &odd_text).unwrap();
    let refused = machine.setup(&["--hide", "Health"]);
    assert!(
        format!("{}{}", refused.stdout, refused.stderr).contains("cannot add to"),
        "{}\n{}",
        refused.stdout,
        refused.stderr
    );
    assert_eq!(std::fs::read_to_string(&data_path).unwrap(), odd_text);
}

#[test]
fn the_skill_is_installed_for_each_client_that_reads_skills_kept_current_and_removed_with_its_last_entry()
 {
    let machine = Machine::new();
    let skill = |client: &str| {
        machine.home().join(match client {
            "claude-code" => ".claude/skills/obsmcp/SKILL.md",
            "codex" => ".agents/skills/obsmcp/SKILL.md",
            _ => ".hermes/skills/obsmcp/SKILL.md",
        })
    };
    let text = include_str!("../../../templates/skill/SKILL.md");
    // A skill the user wrote under our name is kept aside and put back on uninstall.
    let users = "---\nname: obsmcp\ndescription: mine\n---\nmy own notes\n";
    machine.write(".hermes/skills/obsmcp/SKILL.md", users);
    let before = machine.tree();
    let run = machine.setup(&["--always-load"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for client in ["claude-code", "codex", "hermes"] {
        assert_eq!(
            std::fs::read_to_string(skill(client)).unwrap(),
            text,
            "{client}"
        );
    }
    let claude: Value = serde_json::from_str(&machine.read(".claude.json")).unwrap();
    assert_eq!(claude["mcpServers"]["obsidian"]["alwaysLoad"], true);
    let again = machine.setup(&["--always-load"]);
    assert!(
        again.stderr.contains("already configured"),
        "{}",
        again.stderr
    );
    // Without the flag a second run keeps alwaysLoad: it is the user's choice now.
    let again = machine.setup(&[]);
    assert!(
        again.stderr.contains("already configured"),
        "{}",
        again.stderr
    );
    let doctor = machine.obsmcp(&["doctor"]);
    assert!(
        doctor
            .stdout
            .contains("the obsmcp skill is installed and current"),
        "{}",
        doctor.stdout
    );
    std::fs::write(skill("codex"), "an older skill\n").unwrap();
    let doctor = machine.obsmcp(&["doctor"]);
    assert!(
        doctor.stdout.contains("the obsmcp skill differs"),
        "{}",
        doctor.stdout
    );
    assert!(machine.setup(&[]).code == 0);
    assert_eq!(
        std::fs::read_to_string(skill("codex")).unwrap(),
        text,
        "setup puts the current skill back"
    );
    // Removing one client takes only its skill; removing the rest leaves the machine as it was.
    let run = machine.obsmcp(&["uninstall", "--client", "codex", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!skill("codex").exists(), "{}", run.stderr);
    assert!(!machine.home().join(".agents").exists(), "{}", run.stderr);
    assert!(skill("claude-code").exists());
    let run = machine.obsmcp(&["uninstall", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let differences = tree_diff(&without_backups(before), &without_backups(machine.tree()));
    assert!(
        differences.is_empty(),
        "left behind:\n{}",
        differences.join("\n")
    );
    assert_eq!(machine.read(".hermes/skills/obsmcp/SKILL.md"), users);
    // --no-skill installs none.
    let run = machine.setup(&["--no-skill"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!skill("claude-code").exists() && !skill("codex").exists());
}

//! Doctor on the AI clients' entries: malformed configs, conflicting entries, client timeouts and deny lists, a
//! client without an entry, a server switched off, Hermes without its MCP SDK, an entry for a vault that is gone.

use super::*;

#[test]
fn a_malformed_client_config_fails_and_is_never_touched() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let broken = "{\n  // Claude does not accept comments\n  \"mcpServers\": {}\n}\n";
    std::fs::write(machine.claude_json(), broken).unwrap();
    let vault = machine.vault.to_str().unwrap();

    let run = machine.doctor(&["--json", "--vault", vault]);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_check(
        &report,
        "client.config",
        "fail",
        &["does not parse", ".claude.json"],
        &["fix that line by hand"],
    );
    assert_eq!(check(&report, "client.config")["fixable"], false);

    let after_fix = machine.doctor(&["--json", "--fix", "--vault", vault]);
    assert_eq!(after_fix.code, 1);
    assert_eq!(
        std::fs::read_to_string(machine.claude_json()).unwrap(),
        broken
    );
    assert!(
        !machine
            .home
            .path()
            .join(".claude.json.obsmcp-backup")
            .exists()
    );
}

#[test]
fn mcp_remote_to_the_older_plugin_and_a_second_entry_for_the_same_vault_are_conflicts() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({
        "obsidian": Machine::our_entry(&machine.vault),
        "obsidian-old": {"command": "npx", "args": ["-y", "mcp-remote", "http://localhost:22360/sse"]},
        "notes-again": Machine::our_entry(&machine.vault),
    }));
    let run = machine.doctor(&["--json"]);
    assert_eq!(run.code, 0, "conflicts are warnings: {}", run.stdout);
    assert_check(
        &run.json(),
        "client.conflicts",
        "warn",
        &[
            "`obsidian-old`",
            "22360",
            "mcp-remote",
            "same vault",
            "tools twice",
        ],
        &["remove `obsidian-old` and `notes-again`", ".claude.json"],
    );
}

#[test]
fn a_short_claude_mcp_timeout_is_a_warning_from_the_environment_or_settings() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));

    let mut command = machine.command(&["--json"]);
    command.env("MCP_TIMEOUT", "1000");
    let report = machine.doctor_with(command).json();
    assert_check(
        &report,
        "client.timeouts",
        "warn",
        &["MCP_TIMEOUT=1000", "the environment"],
        &["at least 5000"],
    );

    std::fs::create_dir_all(machine.home.path().join(".claude")).unwrap();
    std::fs::write(
        machine.home.path().join(".claude/settings.json"),
        r#"{"env": {"MCP_TIMEOUT": "2000"}}"#,
    )
    .unwrap();
    let report = machine.doctor(&["--json"]).json();
    assert_check(
        &report,
        "client.timeouts",
        "warn",
        &["MCP_TIMEOUT=2000", "settings.json"],
        &[],
    );
}

#[test]
fn a_claude_deny_list_naming_our_server_fails() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));
    std::fs::create_dir_all(machine.home.path().join(".claude")).unwrap();
    std::fs::write(
        machine.home.path().join(".claude/settings.json"),
        r#"{"deniedMcpServers": [{"serverName": "obsidian"}]}"#,
    )
    .unwrap();
    let run = machine.doctor(&["--json"]);
    assert_eq!(run.code, 1);
    assert_check(
        &run.json(),
        "client.gates",
        "fail",
        &["deniedMcpServers"],
        &["remove obsmcp's entry from deniedMcpServers"],
    );
}

#[test]
fn a_short_codex_startup_timeout_is_a_warning() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let codex = machine.home.path().join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    let vault = machine.vault.to_str().unwrap();
    std::fs::write(
        codex.join("config.toml"),
        format!("# mine\n[mcp_servers.obsidian]\ncommand = \"{}\"\nargs = [\"bridge\", \"--vault\", \"{vault}\"]\nstartup_timeout_sec = 1\n", obsmcp_binary()),
    )
    .unwrap();
    let report = machine.doctor(&["--json"]).json();
    assert_check(&report, "client.entry", "ok", &["`obsidian`"], &[]);
    assert_check(
        &report,
        "client.timeouts",
        "warn",
        &["startup_timeout_sec = 1"],
        &["config.toml"],
    );
}

#[test]
fn a_client_without_an_entry_is_a_warning_when_another_has_one() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));
    std::fs::create_dir_all(machine.home.path().join(".codex")).unwrap();
    let report = machine.doctor(&["--json"]).json();
    let codex = report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|section| section["client"] == "codex")
        .expect("codex is detected");
    let entry = codex["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["id"] == "client.entry")
        .unwrap();
    assert_eq!(entry["status"], "warn", "{entry:#}");
    assert_eq!(
        entry["fix"],
        format!("{} setup --client codex", typed_binary())
    );
}

#[test]
fn a_server_switched_off_for_the_current_project_in_claude_fails() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let project = project(&machine);
    let real = std::fs::canonicalize(&project).unwrap();
    let config = json!({
        "mcpServers": {"obsidian": Machine::our_entry(&machine.vault)},
        "projects": {real.to_str().unwrap(): {"disabledMcpServers": ["obsidian"]}},
    });
    std::fs::write(machine.claude_json(), config.to_string()).unwrap();
    let mut command = machine.command(&["--json"]);
    command.current_dir(project.join(".git"));
    let run = machine.doctor_with(command);
    assert_eq!(run.code, 1);
    assert_check(
        &run.json(),
        "client.gates",
        "fail",
        &["switched off for the project", "disabledMcpServers"],
        &["/mcp"],
    );

    let elsewhere = machine.doctor(&["--json"]);
    assert_check(&elsewhere.json(), "client.gates", "ok", &[], &[]);
}

#[cfg(unix)]
#[test]
fn hermes_without_the_mcp_sdk_is_a_failure() {
    use std::os::unix::fs::PermissionsExt as _;
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let hermes_home = machine.home.path().join(".hermes");
    std::fs::create_dir_all(&hermes_home).unwrap();
    std::fs::write(hermes_home.join("config.yaml"), "mcp_servers: {}\n").unwrap();
    // A Python stand-in that lacks the SDK the way a plain `pip install hermes-agent` does, and a hermes script run by it.
    let bin = machine.home.path().join("bin");
    let python = bin.join("python-without-mcp");
    std::fs::write(
        &python,
        "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'mcp'\" >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        bin.join("hermes"),
        format!("#!{}\nimport sys\n", python.display()),
    )
    .unwrap();
    std::fs::set_permissions(bin.join("hermes"), std::fs::Permissions::from_mode(0o755)).unwrap();

    let run = machine.doctor(&["--json", "--vault", machine.vault.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    assert_check(
        &run.json(),
        "client.runtime",
        "fail",
        &["cannot import the MCP SDK"],
        &["hermes-agent[mcp]"],
    );

    std::fs::write(&python, "#!/bin/sh\nexit 0\n").unwrap();
    let run = machine.doctor(&["--json", "--vault", machine.vault.to_str().unwrap()]);
    assert_check(
        &run.json(),
        "client.runtime",
        "ok",
        &["imports the MCP SDK"],
        &[],
    );
}

#[test]
fn an_entry_for_a_vault_that_is_gone_fails_at_the_entry_and_the_vault() {
    let machine = Machine::new();
    let gone = machine.home.path().join("Moved away");
    machine.claude(json!({"obsidian": Machine::our_entry(&gone)}));
    let run = machine.doctor(&["--json"]);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_check(
        &report,
        "client.entry",
        "fail",
        &["Moved away", "does not exist"],
        &[
            "--vault <its folder now> --client claude-code",
            "uninstall --vault '",
        ],
    );
    assert_check(
        &report,
        "vault.folder",
        "fail",
        &["Moved away", "does not exist"],
        &["obsmcp setup --vault"],
    );
}

#[test]
fn run_from_the_home_folder_the_user_codex_config_is_not_also_checked_as_a_project_config() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    write_codex_entry(&machine.home.path().join(".codex"), &machine.vault);
    let mut command = machine.command(&["--json"]);
    command.current_dir(machine.home.path());
    let report = machine.doctor_with(command).json();
    let codex_sections: Vec<&Value> = report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|section| section["client"] == "codex")
        .collect();
    assert_eq!(
        codex_sections.len(),
        1,
        "one Codex section, not a second 'project' one: {report:#}"
    );
    assert!(
        !report.to_string().contains("not trusted"),
        "the user's own config needs no project trust: {report:#}"
    );
}

#[test]
fn one_client_entry_is_counted_in_the_singular() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));
    let report = machine.doctor(&["--json"]).json();
    assert_check(
        &report,
        "client.config",
        "ok",
        &["parses, 1 MCP server entry"],
        &[],
    );
    assert!(
        !check(&report, "client.config")["finding"]
            .as_str()
            .unwrap()
            .contains("entries"),
        "{report:#}"
    );
}

//! Doctor on project-scoped configs and folder trust: Claude Code's approval of `.mcp.json`, Codex's trusted projects,
//! Gemini's folder trust, Hermes' safe mode.

use super::*;

#[test]
fn a_project_mcp_json_entry_waits_for_claude_approval_until_approved() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let project = project(&machine);
    let servers = json!({"mcpServers": {"notes": Machine::our_entry(&machine.vault)}});
    std::fs::write(project.join(".mcp.json"), servers.to_string()).unwrap();

    let mut command = machine.command(&["--json"]);
    command.current_dir(&project);
    let report = machine.doctor_with(command).json();
    assert_check(
        &report,
        "client.gates",
        "warn",
        &["`notes`", ".mcp.json", "Pending approval"],
        &["enabledMcpjsonServers"],
    );
    assert_check(&report, "client.entry", "ok", &["`notes`"], &[]);

    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.local.json"),
        r#"{"enabledMcpjsonServers": ["notes"]}"#,
    )
    .unwrap();
    let mut command = machine.command(&["--json"]);
    command.current_dir(&project);
    assert_check(
        &machine.doctor_with(command).json(),
        "client.gates",
        "ok",
        &["approved"],
        &[],
    );
}

#[test]
fn a_project_codex_config_needs_a_trusted_project() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let project = project(&machine);
    write_codex_entry(&project.join(".codex"), &machine.vault);
    let run_in_project = || {
        let mut command = machine.command(&["--json"]);
        command.current_dir(&project);
        machine.doctor_with(command).json()
    };
    assert_check(
        &run_in_project(),
        "client.gates",
        "warn",
        &["only for trusted projects"],
        &["trust_level = \"trusted\""],
    );

    let user = machine.home.path().join(".codex");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("config.toml"),
        format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            project.display()
        ),
    )
    .unwrap();
    let report = run_in_project();
    let gates = checks(&report, "client.gates");
    assert!(
        gates.iter().any(|check| check["status"] == "ok"
            && check["finding"].as_str().unwrap().contains("Codex trusts")),
        "{report:#}"
    );
}

#[test]
fn gemini_folder_trust_hides_servers_outside_trusted_folders() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let project = project(&machine);
    let gemini = machine.home.path().join(".gemini");
    std::fs::create_dir_all(&gemini).unwrap();
    let settings = json!({"security": {"folderTrust": {"enabled": true}}, "mcpServers": {"obsidian": Machine::our_entry(&machine.vault)}});
    std::fs::write(gemini.join("settings.json"), format!("// mine\n{settings}")).unwrap();
    let run_in_project = || {
        let mut command = machine.command(&["--json"]);
        command.current_dir(&project);
        machine.doctor_with(command).json()
    };
    assert_check(
        &run_in_project(),
        "client.gates",
        "warn",
        &["only in trusted folders", "code/app"],
        &["/permissions"],
    );

    std::fs::write(
        gemini.join("trustedFolders.json"),
        json!({project.parent().unwrap().to_str().unwrap(): "TRUST_FOLDER"}).to_string(),
    )
    .unwrap();
    assert_check(&run_in_project(), "client.gates", "ok", &["trusts"], &[]);
}

/// With `security.folderTrust` absent doctor said "folder trust is off … All good" while
/// `gemini mcp list` showed the servers Disabled: Gemini CLI 0.61 turns folder trust on when the setting is absent.
/// The real `gemini` agrees with these verdicts in `tests/clients/check.sh`.
#[test]
fn gemini_folder_trust_is_on_when_its_setting_is_absent_and_the_longest_rule_wins() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let project = project(&machine);
    let gemini = machine.home.path().join(".gemini");
    std::fs::create_dir_all(&gemini).unwrap();
    let servers = json!({"obsidian": Machine::our_entry(&machine.vault)});
    std::fs::write(
        gemini.join("settings.json"),
        json!({ "mcpServers": servers }).to_string(),
    )
    .unwrap();
    let run_in_project = |vars: &[(&str, &str)]| {
        let mut command = machine.command(&["--json"]);
        command.current_dir(&project).envs(vars.iter().copied());
        machine.doctor_with(command).json()
    };
    assert_check(
        &run_in_project(&[]),
        "client.gates",
        "warn",
        &["only in trusted folders"],
        &["/permissions"],
    );
    // A parent trusted, the project itself not: the longer rule wins, as in Gemini CLI.
    std::fs::write(
        gemini.join("trustedFolders.json"),
        json!({ machine.home.path().to_str().unwrap(): "TRUST_FOLDER", project.to_str().unwrap(): "DO_NOT_TRUST" }).to_string(),
    )
    .unwrap();
    assert_check(
        &run_in_project(&[]),
        "client.gates",
        "warn",
        &["DO_NOT_TRUST"],
        &["/permissions"],
    );
    assert_check(
        &run_in_project(&[("GEMINI_CLI_TRUST_WORKSPACE", "true")]),
        "client.gates",
        "ok",
        &["trusts every folder"],
        &[],
    );
    let off = json!({ "security": { "folderTrust": { "enabled": false } }, "mcpServers": servers });
    std::fs::write(gemini.join("settings.json"), off.to_string()).unwrap();
    assert_check(
        &run_in_project(&[]),
        "client.gates",
        "ok",
        &["folder trust is off"],
        &[],
    );
}

#[test]
fn hermes_safe_mode_starts_no_server() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let hermes = machine.home.path().join(".hermes");
    std::fs::create_dir_all(&hermes).unwrap();
    let vault = machine.vault.to_str().unwrap();
    std::fs::write(
        hermes.join("config.yaml"),
        format!("# mine\nmcp_servers:\n  \"obsidian\":\n    command: {}\n    args: [bridge, --vault, {vault}]\n", obsmcp_binary()),
    )
    .unwrap();
    let mut command = machine.command(&["--json"]);
    command.env("HERMES_SAFE_MODE", "1");
    let run = machine.doctor_with(command);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_check(&report, "client.entry", "ok", &["`obsidian`"], &[]);
    assert_check(
        &report,
        "client.gates",
        "fail",
        &["HERMES_SAFE_MODE"],
        &["unset HERMES_SAFE_MODE"],
    );
}

//! Doctor on the binary each entry runs: missing, of another version or not executable, found through PATH, and how
//! the fixes name it.

use super::*;

#[test]
fn a_missing_binary_in_a_client_entry_fails_and_fix_points_the_entry_at_this_obsmcp() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let mut entry = Machine::our_entry(&machine.vault);
    let gone = machine.home.path().join("old/bin/obsmcp");
    entry["command"] = json!(gone);
    machine.claude(json!({"obsidian": entry, "other": {"command": "/usr/bin/env", "args": []}}));

    let run = machine.doctor(&["--json"]);
    assert_eq!(run.code, 1);
    assert_check(
        &run.json(),
        "client.binary",
        "fail",
        &["does not exist", "old/bin/obsmcp"],
        &["obsmcp doctor --fix"],
    );

    let fixed = machine.doctor(&["--json", "--fix"]);
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    assert_check(
        &fixed.json(),
        "client.binary",
        "ok",
        &[obsmcp_binary()],
        &[],
    );
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(machine.claude_json()).unwrap()).unwrap();
    assert_eq!(config["mcpServers"]["obsidian"]["command"], obsmcp_binary());
    assert_eq!(
        config["mcpServers"]["other"]["command"], "/usr/bin/env",
        "other servers survive"
    );
    assert_eq!(config["numStartups"], 3, "other keys survive");
}

#[test]
fn user_keys_in_an_entry_survive_fix_pointing_it_at_this_obsmcp() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let claude = |command: &str| {
        format!(
            "{{\n  \"numStartups\": 3,\n  \"mcpServers\": {{\n    \"obsidian\": {{\n      \"type\": \"stdio\",\n      \"command\": {},\n      \"args\": [\"bridge\", \"--vault\", {}],\n      \"env\": {{\"OBSMCP_LOG\": \"debug\"}},\n      \"timeout\": 600000\n    }}\n  }}\n}}\n",
            json!(command),
            json!(machine.vault)
        )
    };
    let gone = machine.home.path().join("old/bin/obsmcp");
    std::fs::write(machine.claude_json(), claude(gone.to_str().unwrap())).unwrap();

    let fixed = machine.doctor(&["--json", "--fix"]);
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    assert_check(
        &fixed.json(),
        "client.binary",
        "ok",
        &[obsmcp_binary()],
        &[],
    );
    assert_eq!(
        std::fs::read_to_string(machine.claude_json()).unwrap(),
        claude(obsmcp_binary())
    );
}

/// Of two entries for one vault, doctor told the user to remove the one running the installed
/// copy and keep the one into a build folder. It now keeps the one running the `obsmcp` on `PATH`.
#[test]
fn of_two_entries_for_one_vault_doctor_keeps_the_one_running_the_obsmcp_on_path() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let copy = |relative: &str| {
        let path = machine.home.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::copy(obsmcp_binary(), &path).unwrap();
        path
    };
    let built = copy("src/obsmcp/target/release/obsmcp");
    let installed = copy("bin/obsmcp");
    let entry = |binary: &Path| json!({"type": "stdio", "command": binary, "args": ["bridge", "--vault", machine.vault]});
    machine.claude(json!({ "obsidian": entry(&built), "obsidian-notes": entry(&installed) }));
    let run = machine.doctor(&["--json"]);
    assert_check(
        &run.json(),
        "client.conflicts",
        "warn",
        &["same vault", "keep `obsidian-notes`"],
        &["remove `obsidian` from"],
    );
}

#[cfg(unix)]
#[test]
fn an_entry_binary_of_another_version_or_not_executable_is_reported() {
    use std::os::unix::fs::PermissionsExt as _;
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let older = machine.home.path().join("old/obsmcp");
    std::fs::create_dir_all(older.parent().unwrap()).unwrap();
    std::fs::write(&older, "#!/bin/sh\necho 'obsmcp 0.0.1 (plugin 0.0.1)'\n").unwrap();
    std::fs::set_permissions(&older, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut entry = Machine::our_entry(&machine.vault);
    entry["command"] = json!(older);
    machine.claude(json!({"obsidian": entry}));

    let run = machine.doctor(&["--json"]);
    assert_eq!(run.code, 0, "another version is a warning: {}", run.stdout);
    assert_check(
        &run.json(),
        "client.binary",
        "warn",
        &["is obsmcp 0.0.1", "this doctor is"],
        &["obsmcp doctor --fix"],
    );

    std::fs::set_permissions(&older, std::fs::Permissions::from_mode(0o644)).unwrap();
    let run = machine.doctor(&["--json"]);
    assert_eq!(run.code, 1);
    assert_check(
        &run.json(),
        "client.binary",
        "fail",
        &["not executable"],
        &["chmod +x"],
    );
}

#[test]
fn an_entry_that_finds_obsmcp_through_path_is_a_warning_and_fix_makes_it_absolute() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let mut entry = Machine::our_entry(&machine.vault);
    entry["command"] = json!("obsmcp");
    machine.claude(json!({"obsidian": entry}));
    let run = machine.doctor(&["--json"]);
    assert_eq!(run.code, 0);
    assert_check(
        &run.json(),
        "client.binary",
        "warn",
        &["through PATH", "shorter PATH"],
        &["absolute path"],
    );

    let fixed = machine.doctor(&["--json", "--fix"]);
    assert_check(
        &fixed.json(),
        "client.binary",
        "ok",
        &[obsmcp_binary()],
        &[],
    );
}

/// The `fix` of the check with `id`.
fn fix_of(report: &Value, id: &str) -> String {
    check(report, id)["fix"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn fixes_name_the_binary_by_its_path_unless_path_runs_the_same_one() {
    // After `cargo run --release -- setup` the binary sits in target/release, off PATH: `obsmcp …` would be
    // `command not found`. Machine's PATH is an empty bin folder, as there.
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    std::fs::write(machine.vault.join(".obsidian/community-plugins.json"), "[]").unwrap();
    let vault = machine.vault.to_str().unwrap();
    let binary = &typed_binary();

    let report = machine.doctor(&["--json", "--vault", vault]).json();
    let fix = fix_of(&report, "plugin.enabled");
    assert!(
        fix.starts_with(&format!("{binary} doctor --fix")),
        "not on PATH: {fix}"
    );
    let fix = fix_of(&report, "clients.found");
    assert!(
        fix.contains(&format!("`{binary} setup --client claude-code`")),
        "not on PATH: {fix}"
    );
    let text = machine.doctor(&["--vault", vault]).stdout;
    assert!(
        text.contains(&format!("`{binary} doctor --fix` can repair 1 of them")),
        "not on PATH, the summary line: {text}"
    );

    // A different `obsmcp` first on PATH would run instead of this one.
    let on_path = machine.home.path().join("bin/obsmcp");
    std::fs::write(&on_path, "#!/bin/sh\necho obsmcp 0.0.1\n").unwrap();
    let report = machine.doctor(&["--json", "--vault", vault]).json();
    let fix = fix_of(&report, "plugin.enabled");
    assert!(
        fix.starts_with(&format!("{binary} doctor --fix")),
        "another obsmcp on PATH: {fix}"
    );

    #[cfg(unix)]
    {
        std::fs::remove_file(&on_path).unwrap();
        std::os::unix::fs::symlink(binary, &on_path).unwrap();
        let report = machine.doctor(&["--json", "--vault", vault]).json();
        for id in ["plugin.enabled", "clients.found"] {
            let fix = fix_of(&report, id);
            assert!(
                fix.contains("obsmcp ") && !fix.contains(binary),
                "PATH runs this binary, so `{id}` should name plain obsmcp: {fix}"
            );
        }
        assert!(fix_of(&report, "plugin.enabled").starts_with("obsmcp doctor --fix"));
        let text = machine.doctor(&["--vault", vault]).stdout;
        assert!(
            text.contains("`obsmcp doctor --fix` can repair 1 of them"),
            "{text}"
        );
    }
}

/// After an update through another channel, the `obsmcp` on PATH can be newer than the one the entries
/// run; doctor warns and `--version` says so. A binary the entries run from a build folder warns too.
#[cfg(unix)]
#[test]
fn a_newer_obsmcp_on_path_and_an_entry_binary_that_will_not_last_are_reported() {
    use std::os::unix::fs::PermissionsExt as _;
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let newer = machine.home.path().join("bin/obsmcp");
    std::fs::write(&newer, "#!/bin/sh\necho 'obsmcp 99.0.0 (plugin 99.0.0)'\n").unwrap();
    std::fs::set_permissions(&newer, std::fs::Permissions::from_mode(0o755)).unwrap();
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));

    let run = machine.doctor(&["--json"]);
    assert_check(
        &run.json(),
        "binary.path",
        "warn",
        &["99.0.0", "newer than this one"],
        &["obsmcp setup"],
    );
    // `command` names the subcommand `doctor` first: a fresh command with the same environment asks --version.
    let doctor = machine.command(&[]);
    let mut plain = std::process::Command::new(obsmcp_binary());
    plain.arg("--version").env_clear();
    for (name, value) in doctor.get_envs() {
        if let Some(value) = value {
            plain.env(name, value);
        }
    }
    let output = plain.output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains(&format!(
            "on PATH: {} (obsmcp 99.0.0, newer than this binary)",
            newer.display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "client entries (Claude Code) run: {} (this binary)",
            obsmcp_binary()
        )),
        "{text}"
    );

    // An entry that runs the build in Cargo's target folder works today and is gone after `cargo clean`.
    machine.claude(json!({"obsidian": {"type": "stdio", "command": env!("CARGO_BIN_EXE_obsmcp"), "args": ["bridge", "--vault", machine.vault]}}));
    let run = machine.doctor(&["--json"]);
    assert_check(
        &run.json(),
        "client.binary",
        "warn",
        &["will not last", "build folder"],
        &["doctor --fix", ".local/bin/obsmcp"],
    );
}

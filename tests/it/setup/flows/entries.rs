//! The entries setup writes into client configs: names and ports from Obsidian's vault registry, an existing
//! `obsidian` entry kept under another name or replaced only with consent, the read-only and permission flags, Claude
//! Code's permission rules, and entries re-pointed in place (not doubled) when another copy of obsmcp runs setup.

use super::*;

#[test]
fn vaults_come_from_obsidians_registry_and_get_distinct_ports_and_one_entry() {
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
    // One entry serves both vaults.
    assert_eq!(names, ["obsidian", "obsidian"]);
    let codex = machine.read(".codex/config.toml");
    assert!(
        codex.contains("[mcp_servers.obsidian]") && !codex.contains("obsidian-work-vault"),
        "{codex}"
    );
    let both = format!(
        "args = [\"bridge\", \"--vault\", {}, \"--vault\", {}]",
        serde_json::to_string(&machine.vault).unwrap(),
        serde_json::to_string(&second).unwrap()
    );
    assert!(codex.contains(&both), "{codex}");
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
            "--read-only",
            "--tools",
            "all"
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
fn claude_code_lists_every_tool_and_a_profile_the_user_chose_survives_setup() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let setup = || {
        let run = machine.obsmcp(&[
            "setup",
            "--vault",
            &vault,
            "--client",
            "claude-code",
            "--client",
            "codex",
            "--yes",
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let claude: Value = serde_json::from_str(&machine.read(".claude.json")).unwrap();
        claude["mcpServers"]["obsidian"]["args"].clone()
    };
    // Claude Code keeps MCP tools behind its tool search: its entry lists them all; Codex's gets the core.
    assert_eq!(
        setup(),
        serde_json::json!(["bridge", "--vault", vault, "--tools", "all"])
    );
    assert!(machine.read(".codex/config.toml").contains(&format!(
        "args = [\"bridge\", \"--vault\", {}]",
        serde_json::to_string(&vault).unwrap()
    )));

    // The user's own choice in the entry is kept by a later setup.
    let chosen = machine
        .read(".claude.json")
        .replace("\"--tools\", \"all\"", "\"--tools\", \"core\"");
    std::fs::write(machine.home().join(".claude.json"), chosen).unwrap();
    assert_eq!(
        setup(),
        serde_json::json!(["bridge", "--vault", vault, "--tools", "core"])
    );
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
        serde_json::from_str(include_str!("../../../../obsidian-plugin/catalog.json")).unwrap();
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

/// Setup run again from another copy of the binary (the README's `cargo install`, then setup
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

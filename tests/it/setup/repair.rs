//! Repairing obsmcp's own entry (a moved or older binary, a missing `--read-only`): only the keys obsmcp owns change,
//! and what the user added to the entry survives byte for byte, in every format.

use serde_json::Value;

use super::Machine;

/// The binary setup writes into entries (the running one, symlinks resolved).
fn binary(machine: &Machine) -> String {
    machine.binary().to_str().unwrap().to_owned()
}

/// A string as a JSON, TOML or YAML double-quoted scalar (the vault path has a space).
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

#[test]
fn user_keys_in_claudes_entry_survive_replacing_a_moved_binary_and_adding_read_only() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let claude = |command: &str, args: &str| {
        format!(
            "{{\n  \"numStartups\": 7,\n  \"mcpServers\": {{\n    \"obsidian\": {{\n      \"type\": \"stdio\",\n      \"command\": {},\n      \"args\": {args},\n      \"env\": {{\"OBSMCP_LOG\": \"debug\", \"HTTPS_PROXY\": \"\"}},\n      \"timeout\": 600000,\n      \"x-mine\": [1, 2.50]\n    }}\n  }}\n}}\n",
            quoted(command)
        )
    };
    machine.write(
        ".claude.json",
        claude(
            "/opt/old/obsmcp",
            &format!("[\"bridge\", \"--vault\", {}]", quoted(&vault)),
        ),
    );
    let run = machine.obsmcp(&[
        "setup",
        "--vault",
        &vault,
        "--client",
        "claude-code",
        "--yes",
        "--replace-existing",
        "--read-only",
        "--no-claude-permissions",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        machine.read(".claude.json"),
        claude(
            &binary(&machine),
            // Claude Code's entry lists every tool (it keeps MCP tools behind its tool search).
            &format!(
                "[\"bridge\", \"--vault\", {}, \"--read-only\", \"--tools\", \"all\"]",
                quoted(&vault)
            )
        )
    );
}

#[test]
fn user_keys_in_opencodes_entry_survive_and_a_disabled_entry_stays_disabled() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let opencode = |command: &str| {
        format!(
            "{{\n  // mine\n  \"mcp\": {{\n    \"obsidian\": {{\n      \"type\": \"local\",\n      \"command\": [{}, \"bridge\", \"--vault\", {}],\n      \"enabled\": false, // not today\n      \"environment\": {{ \"OBSMCP_LOG\": \"debug\" }},\n      \"timeout\": 9000,\n    }},\n  }},\n}}\n",
            quoted(command),
            quoted(&vault)
        )
    };
    machine.write(
        ".config/opencode/opencode.jsonc",
        opencode("/opt/old/obsmcp"),
    );
    let run = machine.obsmcp(&[
        "setup",
        "--vault",
        &vault,
        "--client",
        "opencode",
        "--yes",
        "--replace-existing",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        machine.read(".config/opencode/opencode.jsonc"),
        opencode(&binary(&machine))
    );
}

#[test]
fn user_keys_in_codex_entry_survive_replacing_an_older_binary() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let entry = |command: &str| {
        format!(
            "# Codex, by hand.\nmodel = \"o3\"\n\n# my notes\n[mcp_servers.obsidian]\ncommand = {}   # moved since\nargs = [\"bridge\", \"--vault\", {}]\nstartup_timeout_sec = 45.0   # the vault is on a slow disk\nenabled_tools = [\"read_note\", \"search\"]\nenv = {{ OBSMCP_LOG = \"debug\" }}\n\n[mcp_servers.obsidian.tools.read_note]\napproval_mode = \"approve\"\n",
            quoted(command),
            quoted(&vault)
        )
    };
    machine.write(".codex/config.toml", entry("/opt/old/obsmcp"));
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
    assert_eq!(machine.read(".codex/config.toml"), entry(&binary(&machine)));
}

#[test]
fn user_keys_in_hermes_entry_survive_replacing_an_older_binary_and_adding_read_only() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let head = "# Hermes\nmcp_servers:\n  # my notes, through obsmcp\n  obsidian:\n";
    let tail = "    timeout: 600   # long searches\n    env:\n      OBSMCP_LOG: debug\n    tools:\n      include: [read_note, search]\nterminal:\n  backend: local\n";
    let original = format!(
        "{head}    command: /opt/old/obsmcp   # moved since\n    args: [\"bridge\", \"--vault\", {}]\n{tail}",
        quoted(&vault)
    );
    machine.write(".hermes/config.yaml", &original);
    let run = machine.obsmcp(&[
        "setup",
        "--vault",
        &vault,
        "--client",
        "hermes",
        "--yes",
        "--replace-existing",
        "--read-only",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let edited = machine.read(".hermes/config.yaml");
    assert!(edited.starts_with(head), "{edited}");
    assert!(edited.ends_with(tail), "{edited}");
    let config: Value = yaml_serde::from_str(&edited).unwrap();
    let entry = &config["mcp_servers"]["obsidian"];
    assert_eq!(entry["command"], binary(&machine).as_str());
    assert_eq!(
        entry["args"],
        serde_json::json!(["bridge", "--vault", vault, "--read-only"])
    );
    assert_eq!(entry["timeout"], 600);
    assert_eq!(entry["env"]["OBSMCP_LOG"], "debug");
}

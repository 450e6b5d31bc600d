//! How setup treats difficult files: CRLF, no final newline, empty, malformed, read-only, symlinked, and a
//! `~/.claude.json` locked by a running Claude Code.

use std::time::{Duration, Instant};

use super::{Machine, tree_diff};

#[test]
fn crlf_missing_newline_and_empty_files_survive_setup_and_uninstall() {
    let machine = Machine::new();
    let claude = include_str!("fixtures/claude.json").replace('\n', "\r\n");
    machine.write(".claude.json", claude.trim_end());
    machine.write(
        ".codex/config.toml",
        "model = \"o3\"\r\n[profiles.x]\r\nmodel = \"o4\"",
    );
    machine.write(".hermes/config.yaml", "");
    let before = machine.tree();
    let run = machine.setup(&["--no-claude-permissions"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let edited = machine.read(".claude.json");
    assert!(
        !edited.replace("\r\n", "").contains('\n'),
        "a bare LF in a CRLF file"
    );
    assert!(!edited.ends_with('\n'), "a final newline was added");
    let codex = machine.read(".codex/config.toml");
    assert!(
        codex.contains("[mcp_servers.obsidian]\r\n") && !codex.ends_with('\n'),
        "{codex:?}"
    );
    assert!(
        machine
            .read(".hermes/config.yaml")
            .contains("\"obsidian\":")
    );
    assert_eq!(machine.setup(&["--no-claude-permissions"]).code, 0);
    assert_eq!(machine.obsmcp(&["uninstall", "--yes"]).code, 0);
    let differences = tree_diff(&before, &machine.tree());
    assert!(
        differences.is_empty(),
        "not restored:\n{}",
        differences.join("\n")
    );
}

#[test]
fn a_malformed_file_is_refused_with_its_path_and_left_untouched_while_others_proceed() {
    let machine = Machine::new().with_client_fixtures();
    let broken = "[mcp_servers.github\ncommand = \"npx\"\n";
    machine.write(".codex/config.toml", broken);
    let run = machine.setup(&[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    insta::assert_snapshot!("malformed_codex_output", machine.redact(&run.stderr));
    assert_eq!(machine.read(".codex/config.toml"), broken);
    assert!(
        !machine
            .home()
            .join(".codex/config.toml.obsmcp-backup")
            .exists()
    );
    assert!(
        machine.read(".claude.json").contains("\"obsidian\""),
        "other clients are still configured"
    );
}

#[test]
fn a_hermes_config_whose_servers_are_an_alias_is_refused_with_a_hand_edit_hint() {
    let machine = Machine::new().with_client_fixtures();
    let aliased = "shared: &servers\n  github:\n    command: npx\nmcp_servers: *servers\n";
    machine.write(".hermes/config.yaml", aliased);
    let run = machine.setup(&[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("YAML reads, but obsmcp's editor cannot take it apart")
            && run
                .stderr
                .contains("`mcp_servers` is an alias (`*servers`)")
            && run.stderr.contains("add the entry by hand"),
        "{}",
        run.stderr
    );
    assert_eq!(machine.read(".hermes/config.yaml"), aliased);
    assert!(
        machine.read(".claude.json").contains("\"obsidian\""),
        "other clients are still configured"
    );
}

#[test]
fn strict_json_with_comments_is_refused() {
    let machine = Machine::new();
    let text = "{\n  // Claude cannot read this\n  \"mcpServers\": {}\n}\n";
    machine.write(".claude.json", text);
    let run = machine.setup(&["--no-claude-permissions"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains(".claude.json") && run.stderr.contains("left untouched"),
        "{}",
        run.stderr
    );
    assert_eq!(machine.read(".claude.json"), text);
}

#[test]
fn a_servers_key_of_the_wrong_shape_is_refused() {
    let machine = Machine::new();
    machine.write(".hermes/config.yaml", "mcp_servers:\n  - github\n");
    let run = machine.setup(&[]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("config.yaml"), "{}", run.stderr);
    assert_eq!(
        machine.read(".hermes/config.yaml"),
        "mcp_servers:\n  - github\n"
    );
}

#[cfg(unix)]
#[test]
fn a_read_only_file_is_refused_and_untouched() {
    use std::os::unix::fs::PermissionsExt;
    let machine = Machine::new().with_client_fixtures();
    let path = machine.home().join(".hermes/config.yaml");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let run = machine.setup(&[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("read-only") && run.stderr.contains("hint:"),
        "{}",
        run.stderr
    );
    assert_eq!(
        machine.read(".hermes/config.yaml"),
        include_str!("fixtures/config.yaml")
    );
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o444
    );
}

#[cfg(unix)]
#[test]
fn modes_are_kept_and_symlinks_followed() {
    use std::os::unix::fs::PermissionsExt;
    let machine = Machine::new().with_client_fixtures();
    let codex = machine.home().join(".codex/config.toml");
    std::fs::set_permissions(&codex, std::fs::Permissions::from_mode(0o640)).unwrap();
    let real = machine.write("dotfiles/hermes.yaml", include_str!("fixtures/config.yaml"));
    std::fs::remove_file(machine.home().join(".hermes/config.yaml")).unwrap();
    std::os::unix::fs::symlink(&real, machine.home().join(".hermes/config.yaml")).unwrap();
    let run = machine.setup(&[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::metadata(&codex).unwrap().permissions().mode() & 0o777,
        0o640
    );
    assert!(
        std::fs::symlink_metadata(machine.home().join(".hermes/config.yaml"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&real)
            .unwrap()
            .contains("\"obsidian\":")
    );
}

#[test]
fn claudes_lock_is_waited_for_and_left_released() {
    let machine = Machine::new().with_client_fixtures();
    let lock = machine.home().join(".claude.json.lock");
    std::fs::create_dir(&lock).unwrap();
    let releaser = {
        let lock = lock.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(1500));
            std::fs::remove_dir(&lock).unwrap();
        })
    };
    let started = Instant::now();
    let run = machine.setup(&[]);
    let waited = started.elapsed();
    releaser.join().unwrap();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        waited >= Duration::from_millis(1400),
        "setup wrote while another Claude held the lock ({waited:?})"
    );
    assert!(!lock.exists(), "obsmcp left Claude's lock behind");
    assert!(machine.read(".claude.json").contains("\"obsidian\""));
}

#[test]
fn a_stale_claude_lock_is_stolen_like_claude_does() {
    let machine = Machine::new().with_client_fixtures();
    let lock = machine.home().join(".claude.json.lock");
    std::fs::create_dir(&lock).unwrap();
    std::fs::File::open(&lock)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - Duration::from_secs(60))
        .unwrap();
    let started = Instant::now();
    let run = machine.setup(&[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(started.elapsed() < Duration::from_secs(8));
    assert!(!lock.exists());
}

#[test]
fn claude_config_dir_codex_home_and_hermes_profile_are_honoured() {
    let machine = Machine::new();
    let claude_dir = machine.home().join("claude-config");
    let codex_home = machine.home().join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    machine.write(".hermes/active_profile", "work\n");
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.obsmcp_with(
        &[
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
        ],
        &[
            ("CLAUDE_CONFIG_DIR", claude_dir.to_str().unwrap()),
            ("CODEX_HOME", codex_home.to_str().unwrap()),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(claude_dir.join(".claude.json").is_file());
    assert!(claude_dir.join("settings.json").is_file());
    assert!(!machine.home().join(".claude.json").exists());
    assert!(codex_home.join("config.toml").is_file());
    assert!(
        machine
            .read(".hermes/profiles/work/config.yaml")
            .contains("\"obsidian\":")
    );
    assert!(!machine.home().join(".hermes/config.yaml").exists());
}

#[test]
fn a_missing_codex_home_is_an_error_for_codex_only() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.obsmcp_with(
        &[
            "setup", "--vault", &vault, "--client", "codex", "--client", "hermes", "--yes",
        ],
        &[("CODEX_HOME", "/nonexistent/codex")],
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("CODEX_HOME points to"),
        "{}",
        run.stderr
    );
    assert!(
        machine
            .read(".hermes/config.yaml")
            .contains("\"obsidian\":")
    );
}

#[test]
fn empty_json_files_come_back_empty() {
    let machine = Machine::new();
    machine.write(".cursor/mcp.json", "");
    machine.write(".gemini/settings.json", "");
    let before = machine.tree();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.obsmcp(&[
        "setup", "--vault", &vault, "--client", "cursor", "--client", "gemini", "--yes",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(machine.read(".cursor/mcp.json").contains("\"obsidian\""));
    assert_eq!(machine.obsmcp(&["uninstall", "--yes"]).code, 0);
    let differences = tree_diff(&before, &machine.tree());
    assert!(
        differences.is_empty(),
        "not restored:\n{}",
        differences.join("\n")
    );
}

#[test]
fn an_empty_hermes_servers_section_is_restored_as_written() {
    let machine = Machine::new();
    let original = "# Hermes\nmcp_servers:\n# none yet\nterminal:\n  backend: local\n";
    machine.write(".hermes/config.yaml", original);
    let before = machine.tree();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let run = machine.obsmcp(&["setup", "--vault", &vault, "--client", "hermes", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(machine.obsmcp(&["uninstall", "--yes"]).code, 0);
    let differences = tree_diff(&before, &machine.tree());
    assert!(
        differences.is_empty(),
        "uninstall did not restore the home:\n{}",
        differences.join("\n")
    );
}

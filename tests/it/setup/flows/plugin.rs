//! What setup puts in the vault and beside the clients, and when uninstall takes it away: existing plugin data kept
//! over an upgrade, the plugin kept while another client still uses the vault, no backup left after `doctor --fix`,
//! hidden-path rules added to the plugin's settings, the skill for each client that reads skills, and a `data.json`
//! others could read made private again.

use super::*;

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

/// A second setup left a `data.json` other users could read (it holds the token) and said "nothing changed",
/// while doctor reported the mode. Setup now plans the mode fix like any change: shown by `--dry-run`, applied, reported.
#[cfg(unix)]
#[test]
fn regression_a_second_setup_makes_a_world_readable_data_json_private_and_says_so() {
    use std::os::unix::fs::PermissionsExt;
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap().to_owned();
    let setup = [
        "setup", "--vault", &vault, "--client", "codex", "--yes", "--json",
    ];
    let data = machine.vault.join(".obsidian/plugins/obsmcp/data.json");
    let mode = || std::fs::metadata(&data).unwrap().permissions().mode() & 0o777;
    let run = machine.obsmcp(&setup);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(mode(), 0o600, "a new data.json is private");
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o644)).unwrap();
    let content = std::fs::read(&data).unwrap();

    let dry = machine.obsmcp(&["setup", "--vault", &vault, "--client", "codex", "--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(
        dry.stdout.contains("old mode 100644\nnew mode 100600\n"),
        "{}",
        dry.stdout
    );
    assert!(dry.stderr.contains("mode 0644"), "{}", dry.stderr);
    assert_eq!(mode(), 0o644, "a dry run changes nothing");

    let run = machine.obsmcp(&setup);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["outcome"], "changed", "{}", run.stdout);
    let item = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["subject"] == "data.json (port and token)")
        .unwrap_or_else(|| panic!("no data.json item: {}", run.stdout));
    assert_eq!(item["change"], "updated", "{}", run.stdout);
    assert!(
        report["notes"]
            .to_string()
            .contains("its mode becomes 0600"),
        "{}",
        run.stdout
    );
    assert_eq!(mode(), 0o600);
    assert_eq!(
        std::fs::read(&data).unwrap(),
        content,
        "only the mode changed"
    );

    let again = machine.obsmcp(&setup);
    let report: Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(report["outcome"], "already-configured", "{}", again.stdout);
}

/// `uninstall --client hermes` removed the plugin from the vault, and Claude Code and Codex were
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
    let text = include_str!("../../../../templates/skill/SKILL.md");
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

/// Runs one bridge on `vault` with Obsidian closed until it has answered a search from disk, then ends it: the
/// bridge saves its offline index on the way out.
fn save_an_offline_index(machine: &Machine, vault: &str) {
    let answer = machine.search_through_bridge(&["bridge", "--vault", vault], "x");
    assert!(answer.contains("served_from"), "{answer}");
}

#[test]
fn uninstall_removes_the_saved_offline_index_with_the_plugin() {
    let machine = Machine::new();
    let other = machine.home().join("Work");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(machine.vault.join("a.md"), "x marks it\n").unwrap();
    std::fs::write(other.join("b.md"), "x too\n").unwrap();
    let (first, second) = (
        machine.vault.to_str().unwrap().to_owned(),
        other.to_str().unwrap().to_owned(),
    );
    let run = machine.obsmcp(&[
        "setup", "--vault", &first, "--vault", &second, "--client", "codex", "--yes",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let folder = machine.home().join(".local/state/obsmcp/index");
    let indexes = || -> Vec<std::path::PathBuf> {
        let mut files: Vec<_> = std::fs::read_dir(&folder)
            .map(|entries| entries.map(|entry| entry.unwrap().path()).collect())
            .unwrap_or_default();
        files.sort();
        files
    };
    save_an_offline_index(&machine, &first);
    let first_index = indexes();
    save_an_offline_index(&machine, &second);
    assert_eq!(indexes().len(), 2, "{:?}", indexes());
    // A vault that moved away leaves its index behind under a name no vault has now.
    let stray = folder.join("0123456789abcdef.bin");
    std::fs::write(&stray, b"an index of a vault that moved").unwrap();

    let run = machine.obsmcp(&["uninstall", "--vault", &second, "--yes", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut left = first_index.clone();
    left.push(stray.clone());
    left.sort();
    assert_eq!(indexes(), left, "only the second vault's index goes");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(
        report["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|item| item["subject"] == "saved offline index" && item["change"] == "removed"),
        "{}",
        run.stdout
    );

    let run = machine.obsmcp(&["uninstall", "--yes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !folder.exists(),
        "with no vault left set up, every saved index and the folder go: {:?}",
        indexes()
    );
    assert!(
        !run.stderr.contains("obsmcp: start a new session"),
        "{}",
        run.stderr
    );
}

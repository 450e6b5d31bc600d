//! `obsmcp doctor` on temporary homes: one test per check, each driving the real failure (a foreign server on the
//! port, a wrong token, a stale plugin, a missing binary, a malformed config, …) and asserting the finding and the
//! fix; `--fix` repairing a broken setup until doctor exits 0; the support bundle opened and inspected; a snapshot of
//! the JSON report.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{ChildGuard, PluginHost, TempHome, free_port, repo_root};

const TOKEN: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
const OTHER_TOKEN: &str = "ffffeeeeddddccccbbbbaaaa99998888777766665555444433332222111100ab";

fn obsmcp_binary() -> &'static str {
    env!("CARGO_BIN_EXE_obsmcp")
}

/// How doctor's fixes name this binary under `Machine`, whose PATH does not hold it: by its path, symlinks resolved.
fn typed_binary() -> String {
    let binary = std::fs::canonicalize(obsmcp_binary()).unwrap();
    binary.to_str().unwrap().to_owned()
}

/// A temporary home with one vault folder (`Notes`) in it, and the means to break things in it.
struct Machine {
    home: TempHome,
    vault: PathBuf,
}

/// One doctor run.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|error| panic!("not JSON ({error}):\n{}\n{}", self.stdout, self.stderr))
    }
}

impl Machine {
    fn new() -> Self {
        let home = TempHome::new();
        std::fs::create_dir_all(home.path().join("bin")).unwrap();
        let vault = home.path().join("Notes");
        Self::make_vault(&vault);
        Self { home, vault }
    }

    fn make_vault(vault: &Path) {
        std::fs::create_dir_all(vault.join(".obsidian")).unwrap();
        std::fs::write(vault.join("Welcome.md"), "# Welcome\n").unwrap();
    }

    fn plugin_dir(vault: &Path) -> PathBuf {
        vault.join(".obsidian/plugins/obsmcp")
    }

    /// The plugin's files as setup writes them (copied from the bundled sources).
    fn install_plugin(vault: &Path) {
        let dir = Self::plugin_dir(vault);
        std::fs::create_dir_all(&dir).unwrap();
        for file in ["main.js", "manifest.json", "styles.css"] {
            std::fs::copy(
                repo_root().join("obsidian-plugin").join(file),
                dir.join(file),
            )
            .unwrap();
        }
    }

    fn enable(vault: &Path) {
        std::fs::write(
            vault.join(".obsidian/community-plugins.json"),
            "[\n  \"obsmcp\"\n]",
        )
        .unwrap();
    }

    fn write_data(vault: &Path, port: u16, token: &str) {
        let text =
            serde_json::to_string_pretty(&json!({"port": port, "token": token, "readOnly": false}))
                .unwrap();
        let path = Self::plugin_dir(vault).join("data.json");
        std::fs::write(&path, text).unwrap();
        // As setup writes it: the token is for its owner only.
        Self::restrict(&path);
    }

    fn restrict(path: &Path) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
    }

    /// A vault set up completely, with its port (nothing listens there yet).
    fn ready(vault: &Path, token: &str) -> u16 {
        let port = free_port();
        Self::install_plugin(vault);
        Self::enable(vault);
        Self::write_data(vault, port, token);
        port
    }

    fn our_entry(vault: &Path) -> Value {
        json!({"type": "stdio", "command": obsmcp_binary(), "args": ["bridge", "--vault", vault]})
    }

    fn claude_json(&self) -> PathBuf {
        self.home.path().join(".claude.json")
    }

    fn claude(&self, servers: Value) {
        let text = serde_json::to_string_pretty(&json!({"numStartups": 3, "mcpServers": servers}))
            .unwrap();
        std::fs::write(self.claude_json(), text).unwrap();
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(obsmcp_binary());
        command
            .env_clear()
            .envs(self.home.env())
            .env("PATH", self.home.path().join("bin"))
            .arg("doctor")
            .args(args);
        command.stdin(Stdio::null());
        command
    }

    fn doctor(&self, args: &[&str]) -> Run {
        self.doctor_with(self.command(args))
    }

    fn doctor_with(&self, mut command: Command) -> Run {
        let started = Instant::now();
        let output = command.output().expect("obsmcp runs");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
            elapsed: started.elapsed(),
        }
    }
}

/// Every check with `id`, across sections.
fn checks<'a>(report: &'a Value, id: &str) -> Vec<&'a Value> {
    report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|section| section["checks"].as_array().unwrap())
        .filter(|check| check["id"] == id)
        .collect()
}

/// The one check with `id`; fails the test when there is none or several.
fn check<'a>(report: &'a Value, id: &str) -> &'a Value {
    let found = checks(report, id);
    assert_eq!(found.len(), 1, "expected one `{id}` check in {report:#}");
    found[0]
}

fn assert_check(report: &Value, id: &str, status: &str, finding: &[&str], fix: &[&str]) {
    let check = check(report, id);
    assert_eq!(check["status"], status, "{check:#}");
    let text = check["finding"].as_str().unwrap();
    for word in finding {
        assert!(text.contains(word), "`{id}` finding lacks {word:?}: {text}");
    }
    let fix_text = check["fix"].as_str().unwrap_or_default();
    for word in fix {
        assert!(
            fix_text.contains(word),
            "`{id}` fix lacks {word:?}: {fix_text}"
        );
    }
}

fn catalog_size() -> usize {
    let catalog: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("obsidian-plugin/catalog.json")).unwrap(),
    )
    .unwrap();
    catalog["tools"].as_array().unwrap().len()
}

#[test]
fn a_healthy_setup_with_the_real_plugin_up_reports_every_link_ok() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));
    let host = PluginHost::start(&machine.vault, port, TOKEN, &[]);

    let run = machine.doctor(&["--json"]);
    let report = run.json();
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(report["verdict"], "ok");
    assert_check(
        &report,
        "obsidian.identity",
        "ok",
        &["obsmcp plugin", &port.to_string()],
        &[],
    );
    let tools = format!("{} tools", catalog_size());
    assert_check(
        &report,
        "obsidian.handshake",
        "ok",
        &["plugin 0.", &tools, "read-write"],
        &[],
    );
    assert_check(&report, "obsidian.restricted_mode", "ok", &[], &[]);
    assert_check(&report, "client.entry", "ok", &["`obsidian`", "Notes"], &[]);
    assert_check(&report, "client.binary", "ok", &["version"], &[]);
    assert_check(&report, "client.conflicts", "ok", &[], &[]);
    host.stop();
}

#[test]
fn read_only_plugin_is_reported_as_read_only() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let host = PluginHost::start(&machine.vault, port, TOKEN, &["--read-only"]);
    let report = machine
        .doctor(&["--json", "--vault", machine.vault.to_str().unwrap()])
        .json();
    assert_check(&report, "obsidian.handshake", "ok", &["read-only"], &[]);
    host.stop();
}

#[test]
fn obsidian_down_is_a_warning_with_the_restricted_mode_click_path_and_the_run_is_fast() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));

    let run = machine.doctor(&["--json"]);
    let report = run.json();
    assert_eq!(run.code, 0, "warnings alone exit 0: {}", run.stdout);
    assert!(
        run.elapsed < Duration::from_secs(3),
        "doctor took {:?} with Obsidian down",
        run.elapsed
    );
    assert_check(
        &report,
        "obsidian.port",
        "warn",
        &["nothing answers", &port.to_string()],
        &["open the vault in Obsidian"],
    );
    assert_check(
        &report,
        "obsidian.restricted_mode",
        "warn",
        &["cannot be read from a file"],
        &["Settings → Community plugins"],
    );
    assert_eq!(check(&report, "obsidian.handshake")["status"], "skip");
}

#[test]
fn a_wrong_token_is_called_a_token_mismatch() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let host = PluginHost::start(&machine.vault, port, TOKEN, &[]);
    // The plugin keeps the token it loaded; data.json now says something else, as after an edit behind its back.
    Machine::write_data(&machine.vault, port, OTHER_TOKEN);

    let run = machine.doctor(&["--json", "--vault", machine.vault.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_check(
        &report,
        "obsidian.identity",
        "fail",
        &["token mismatch", "refuses the token"],
        &["turn obsmcp off and on"],
    );
    host.stop();
}

/// Issue 12, finding 4: doctor sent `Authorization: Bearer <token>` to whatever held the port.
#[test]
fn an_impostor_on_the_port_never_gets_the_token_and_is_named_as_unproven() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let log = machine.home.path().join("impostor.log");
    let _impostor = crate::support::start_impostor(port, &log);
    let run = machine.doctor(&["--json", "--vault", machine.vault.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_check(
        &report,
        "obsidian.identity",
        "fail",
        &[
            "cannot prove it knows this vault's token",
            "posing as the plugin",
        ],
        &["setup"],
    );
    let seen = std::fs::read_to_string(&log).unwrap();
    assert!(seen.contains("obsmcp-challenge"), "doctor asked: {seen}");
    assert!(
        !seen.contains(TOKEN),
        "the token reached the impostor: {seen}"
    );
}

/// Starts a Node one-liner server on `port` and waits for it to say it listens.
fn node_server(name: &str, script: &str, port: u16) -> ChildGuard {
    let mut command = Command::new("node");
    command.args(["-e", script, &port.to_string()]);
    crate::support::start_listener(name, command)
}

#[test]
fn a_plain_web_server_on_the_port_is_named_as_something_else() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let _server = node_server(
        "web server",
        "require('http').createServer((q, s) => { s.writeHead(404, {server: 'PlainWeb'}); s.end('no'); })\
         .listen(+process.argv[1], '127.0.0.1', () => console.log('up'))",
        port,
    );
    let run = machine.doctor(&["--json", "--vault", machine.vault.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_check(&report, "obsidian.port", "ok", &["answers"], &[]);
    assert_check(
        &report,
        "obsidian.identity",
        "fail",
        &[
            "another program, not the obsmcp plugin",
            "HTTP 404",
            "PlainWeb",
        ],
        &["Port"],
    );
}

#[test]
fn a_listener_that_does_not_speak_http_is_named_as_such() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let _server = node_server(
        "raw tcp server",
        "require('net').createServer(c => c.end('garbage\\r\\n\\r\\n'))\
         .listen(+process.argv[1], '127.0.0.1', () => console.log('up'))",
        port,
    );
    let report = machine
        .doctor(&["--json", "--vault", machine.vault.to_str().unwrap()])
        .json();
    assert_check(
        &report,
        "obsidian.identity",
        "fail",
        &["does not speak HTTP"],
        &["free the port"],
    );
}

#[test]
fn a_stale_plugin_is_outdated_and_fix_updates_it() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let manifest = Machine::plugin_dir(&machine.vault).join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let bundled: Value = serde_json::from_str(&text).unwrap();
    std::fs::write(
        &manifest,
        text.replace(bundled["version"].as_str().unwrap(), "0.0.1"),
    )
    .unwrap();
    std::fs::write(
        Machine::plugin_dir(&machine.vault).join("main.js"),
        "// an older build\n",
    )
    .unwrap();
    let vault = machine.vault.to_str().unwrap();

    let run = machine.doctor(&["--json", "--vault", vault]);
    assert_eq!(run.code, 1);
    assert_check(
        &run.json(),
        "plugin.files",
        "fail",
        &["0.0.1", "outdated"],
        &["obsmcp doctor --fix"],
    );
    assert_eq!(check(&run.json(), "plugin.files")["fixable"], true);

    let fixed = machine.doctor(&["--json", "--fix", "--vault", vault]);
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    // ok means the manifest's version and main.js's bytes both equal what the binary carries.
    assert_check(
        &fixed.json(),
        "plugin.files",
        "ok",
        &["the version this obsmcp bundles"],
        &[],
    );
    let manifest_after: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    assert_eq!(manifest_after["version"], bundled["version"]);
}

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

/// Issue 13, problem 1: of two entries for one vault, doctor told the user to remove the one running the installed
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

#[test]
fn two_vaults_on_one_port_clash() {
    let machine = Machine::new();
    let second = machine.home.path().join("Work");
    Machine::make_vault(&second);
    let port = Machine::ready(&machine.vault, TOKEN);
    Machine::ready(&second, OTHER_TOKEN);
    Machine::write_data(&second, port, OTHER_TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault), "obsidian-work": Machine::our_entry(&second)}));

    let run = machine.doctor(&["--json"]);
    assert_eq!(run.code, 1);
    assert_check(
        &run.json(),
        "vaults.port_clash",
        "fail",
        &[
            &format!("port {port}"),
            "Notes",
            "Work",
            "only one plugin can listen",
        ],
        &["Settings → obsmcp → Port"],
    );
}

#[test]
fn a_disabled_plugin_fails_and_fix_enables_it_keeping_the_others() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let list = machine.vault.join(".obsidian/community-plugins.json");
    std::fs::write(&list, "[\n  \"dataview\"\n]").unwrap();
    let vault = machine.vault.to_str().unwrap();

    let run = machine.doctor(&["--json", "--vault", vault]);
    assert_eq!(run.code, 1);
    assert_check(
        &run.json(),
        "plugin.enabled",
        "fail",
        &["not enabled"],
        &["Settings → Community plugins", "--fix"],
    );

    let fixed = machine.doctor(&["--json", "--fix", "--vault", vault]);
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    let ids: Vec<String> = serde_json::from_str(&std::fs::read_to_string(&list).unwrap()).unwrap();
    assert_eq!(ids, ["dataview", "obsmcp"]);
    let fixed_lines = fixed.json()["fixed"].as_array().unwrap().clone();
    assert!(
        fixed_lines
            .iter()
            .any(|line| line.as_str().unwrap().contains("community-plugins.json")),
        "{fixed_lines:?}"
    );
}

#[test]
fn a_broken_data_json_fails_and_fix_rewrites_it_keeping_the_token() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let data = Machine::plugin_dir(&machine.vault).join("data.json");
    let truncated =
        format!("{{\n  \"port\": {port},\n  \"token\": \"{TOKEN}\",\n  \"readOnly\": fa");
    std::fs::write(&data, &truncated).unwrap();
    let vault = machine.vault.to_str().unwrap();

    let run = machine.doctor(&["--json", "--vault", vault]);
    assert_eq!(run.code, 1);
    assert_check(
        &run.json(),
        "plugin.data",
        "fail",
        &["is broken"],
        &["keeping the token"],
    );

    let fixed = machine.doctor(&["--json", "--fix", "--vault", vault]);
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    let repaired: Value = serde_json::from_str(&std::fs::read_to_string(&data).unwrap()).unwrap();
    assert_eq!(repaired["token"], TOKEN);
    assert_eq!(repaired["port"], port);
    // Kept in obsmcp's state folder, not in the vault, where sync would spread it.
    assert!(
        !Machine::plugin_dir(&machine.vault)
            .join("data.json.obsmcp-backup")
            .exists()
    );
    let state_home = machine.home.path().join(".local/state/obsmcp");
    let backup = obsmcp_installer::plan::write::vault_backup_path(&state_home, &data);
    assert_eq!(
        std::fs::read_to_string(&backup).unwrap(),
        truncated,
        "the broken file is kept"
    );
    assert!(
        fixed.stdout.contains(&backup.display().to_string()),
        "the report says where: {}",
        fixed.stdout
    );
}

/// Issue 12, finding 7: `--fix` turned read-only off when it rebuilt a truncated data.json.
#[test]
fn fix_keeps_read_only_on_when_it_rebuilds_a_truncated_data_json() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let data = Machine::plugin_dir(&machine.vault).join("data.json");
    let vault = machine.vault.to_str().unwrap();
    for (truncated, read_only) in [
        (
            format!(
                "{{\n  \"port\": {port},\n  \"token\": \"{TOKEN}\",\n  \"readOnly\": true,\n  \"x"
            ),
            true,
        ),
        (
            format!("{{\n  \"port\": {port},\n  \"token\": \"{TOKEN}\",\n  \"rea"),
            true,
        ),
        (
            format!("{{\n  \"readOnly\": false,\n  \"port\": {port},\n  \"token\": \"{TOKEN}\",\n"),
            false,
        ),
    ] {
        std::fs::write(&data, &truncated).unwrap();
        let fixed = machine.doctor(&["--json", "--fix", "--vault", vault]);
        assert_eq!(fixed.code, 0, "{}", fixed.stdout);
        let repaired: Value =
            serde_json::from_str(&std::fs::read_to_string(&data).unwrap()).unwrap();
        assert_eq!(repaired["readOnly"], read_only, "{truncated}");
        assert_eq!(repaired["token"], TOKEN);
    }
}

/// Issue 12, finding 7: a data.json other users can read (0644, as a plugin's own save may leave it) was never
/// reported, though it holds the token.
#[cfg(unix)]
#[test]
fn a_data_json_other_users_can_read_fails_and_fix_makes_it_the_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let data = Machine::plugin_dir(&machine.vault).join("data.json");
    let before = std::fs::read(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o644)).unwrap();
    let vault = machine.vault.to_str().unwrap();
    let run = machine.doctor(&["--json", "--vault", vault]);
    assert_eq!(run.code, 1);
    assert_check(
        &run.json(),
        "plugin.data",
        "fail",
        &["can be read by other users", "0644"],
        &["chmod 600", "--fix"],
    );
    let fixed = machine.doctor(&["--json", "--fix", "--vault", vault]);
    assert_eq!(fixed.code, 0, "{}", fixed.stdout);
    assert_eq!(
        std::fs::metadata(&data).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        std::fs::read(&data).unwrap(),
        before,
        "only the mode changed"
    );
}

#[test]
fn another_plugin_set_to_the_same_port_is_a_warning() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let rival = machine.vault.join(".obsidian/plugins/claude-code-mcp");
    std::fs::create_dir_all(&rival).unwrap();
    std::fs::write(
        rival.join("data.json"),
        format!("{{\"mcpServerPort\": {port}, \"enabled\": true}}"),
    )
    .unwrap();
    std::fs::write(
        machine.vault.join(".obsidian/community-plugins.json"),
        "[\"obsmcp\", \"claude-code-mcp\"]",
    )
    .unwrap();

    let report = machine
        .doctor(&["--json", "--vault", machine.vault.to_str().unwrap()])
        .json();
    assert_check(
        &report,
        "plugin.port_rivals",
        "warn",
        &["claude-code-mcp (enabled)", &port.to_string()],
        &["another port"],
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
fn probe_bridge_runs_the_exact_entry_and_reports_what_the_client_would_see() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let mut broken = Machine::our_entry(&machine.vault);
    broken["args"]
        .as_array_mut()
        .unwrap()
        .push(json!("--no-such-flag"));
    machine
        .claude(json!({"obsidian": Machine::our_entry(&machine.vault), "obsidian-broken": broken}));
    let host = PluginHost::start(&machine.vault, port, TOKEN, &[]);

    let bundle = machine.home.path().join("probe.zip");
    let run = machine.doctor(&[
        "--json",
        "--probe-bridge",
        "--bundle",
        bundle.to_str().unwrap(),
    ]);
    let report = run.json();
    let probes = checks(&report, "client.probe");
    assert_eq!(probes.len(), 2, "{report:#}");
    let good = probes
        .iter()
        .find(|check| check["finding"].as_str().unwrap().starts_with("`obsidian`"))
        .unwrap();
    assert_eq!(good["status"], "ok", "{good:#}");
    let listed: usize = good["finding"]
        .as_str()
        .unwrap()
        .split("listed ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        listed >= catalog_size(),
        "the bridge lists at least the plugin's catalog: {good:#}"
    );
    let bad = probes
        .iter()
        .find(|check| {
            check["finding"]
                .as_str()
                .unwrap()
                .starts_with("`obsidian-broken`")
        })
        .unwrap();
    assert_eq!(bad["status"], "fail");
    assert!(
        bad["finding"].as_str().unwrap().contains("--no-such-flag"),
        "the child's own error is quoted: {bad:#}"
    );
    assert_eq!(run.code, 1);
    // The probed bridge wrote its own diagnostics log into the temporary home; the bundle carries its tail.
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&bundle).unwrap()).unwrap();
    let mut tail = String::new();
    archive
        .by_name("diagnostics-log-tail.jsonl")
        .unwrap()
        .read_to_string(&mut tail)
        .unwrap();
    assert!(
        tail.lines()
            .any(|line| line.contains("\"event\":\"start\"")),
        "{tail}"
    );
    assert!(!tail.contains(TOKEN));
    host.stop();
}

#[test]
fn fix_repairs_a_broken_setup_from_nothing_then_doctor_exits_zero() {
    let machine = Machine::new();
    std::fs::write(machine.claude_json(), "{\"numStartups\": 1}").unwrap();
    let vault = machine.vault.to_str().unwrap();

    let before = machine.doctor(&["--json", "--vault", vault]);
    assert_eq!(before.code, 1);
    for id in ["plugin.files", "plugin.enabled", "client.entry"] {
        assert_eq!(check(&before.json(), id)["status"], "fail", "{id}");
    }

    let fixed = machine.doctor(&["--fix", "--vault", vault]);
    assert_eq!(fixed.code, 0, "{}\n{}", fixed.stdout, fixed.stderr);
    assert!(
        fixed.stdout.contains("Repaired by --fix:"),
        "{}",
        fixed.stdout
    );

    let after = machine.doctor(&["--json"]);
    assert_eq!(after.code, 0, "{}", after.stdout);
    let report = after.json();
    assert_eq!(report["summary"]["fail"], 0);
    assert_check(&report, "client.entry", "ok", &["`obsidian`", vault], &[]);
    let data: Value = serde_json::from_str(
        &std::fs::read_to_string(Machine::plugin_dir(&machine.vault).join("data.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(data["token"].as_str().unwrap().len(), 64);
    for file in ["main.js", "manifest.json", "styles.css"] {
        assert_eq!(
            std::fs::read(Machine::plugin_dir(&machine.vault).join(file)).unwrap(),
            std::fs::read(repo_root().join("obsidian-plugin").join(file)).unwrap(),
            "{file} is the bundled one"
        );
    }
}

#[test]
fn a_plugin_installed_without_styles_css_is_a_warning_and_fix_writes_it() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let styles = Machine::plugin_dir(&machine.vault).join("styles.css");
    std::fs::remove_file(&styles).unwrap();
    let vault = machine.vault.to_str().unwrap();

    let run = machine.doctor(&["--json", "--vault", vault]);
    assert_check(
        &run.json(),
        "plugin.files",
        "warn",
        &["styles.css is missing"],
        &["obsmcp doctor --fix"],
    );

    let fixed = machine.doctor(&["--json", "--fix", "--vault", vault]);
    assert_check(
        &fixed.json(),
        "plugin.files",
        "ok",
        &["the version this obsmcp bundles"],
        &[],
    );
    assert_eq!(
        std::fs::read(&styles).unwrap(),
        std::fs::read(repo_root().join("obsidian-plugin/styles.css")).unwrap()
    );
}

#[test]
fn text_output_marks_read_without_colour_and_end_with_a_summary() {
    let machine = Machine::new();
    let vault = machine.vault.to_str().unwrap();
    Machine::install_plugin(&machine.vault);
    let mut command = machine.command(&["--vault", vault]);
    command.env("NO_COLOR", "1");
    let run = machine.doctor_with(command);
    assert_eq!(run.code, 1);
    let text = &run.stdout;
    assert!(!text.contains('\u{1b}'), "no colour codes: {text}");
    assert!(text.contains("Vault ~/Notes (.obsidian)"), "{text}");
    assert!(text.contains("  ✓ vault.folder"), "{text}");
    assert!(text.contains("  ✗ plugin.enabled"), "{text}");
    assert!(text.contains("  ! clients.found"), "{text}");
    let binary = typed_binary();
    assert!(
        text.contains(&format!("fix: {binary} doctor --fix")),
        "{text}"
    );
    let summary = text.lines().last().unwrap();
    assert!(summary.starts_with("Problems found: 2 failed"), "{summary}");
    assert!(
        summary.contains(&format!("`{binary} doctor --fix` can repair 2")),
        "{summary}"
    );
}

#[test]
fn the_json_report_keeps_its_shape() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    std::fs::write(machine.vault.join(".obsidian/community-plugins.json"), "[]").unwrap();
    machine.claude(json!({
        "obsidian": Machine::our_entry(&machine.vault),
        "legacy": {"command": "npx", "args": ["mcp-remote", "http://127.0.0.1:22360/sse"]},
    }));
    let run = machine.doctor(&["--json"]);
    let home = machine.home.path().to_str().unwrap();
    let version: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("obsidian-plugin/manifest.json")).unwrap(),
    )
    .unwrap();
    let normalized = run
        .stdout
        .replace(&typed_binary(), "[OBSMCP]")
        .replace(obsmcp_binary(), "[OBSMCP]")
        .replace(home, "[HOME]")
        .replace(&port.to_string(), "[PORT]")
        .replace(
            &format!("\"{}\"", env!("CARGO_PKG_VERSION")),
            "\"[VERSION]\"",
        )
        .replace(
            &format!(
                "{} (plugin {})",
                env!("CARGO_PKG_VERSION"),
                version["version"].as_str().unwrap()
            ),
            "[VERSION]",
        )
        .replace(
            &format!("plugin {} installed", version["version"].as_str().unwrap()),
            "plugin [PLUGIN] installed",
        )
        .replace(
            &format!("\"{}\"", version["version"].as_str().unwrap()),
            "\"[PLUGIN]\"",
        );
    insta::assert_snapshot!("doctor_json_report", normalized);
}

#[test]
fn the_bundle_holds_the_report_entries_and_log_tail_with_secrets_redacted() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let mut entry = Machine::our_entry(&machine.vault);
    entry["env"] = json!({"OBSIDIAN_API_KEY": "sekrit-api-key-value", "LANG": "C.UTF-8", "NOTE": format!("t={TOKEN}")});
    machine.claude(json!({
        "obsidian": entry,
        "unrelated": {"command": "/usr/bin/unrelated-server", "env": {"GITHUB_TOKEN": "ghp-unrelated"}},
    }));
    let log_dir = machine.home.path().join(".local/state/obsmcp");
    std::fs::create_dir_all(&log_dir).unwrap();
    let log: String = (0..300)
        .map(|index| {
            json!({"ts": index, "event": "call", "tool": "read_note", "content": "Secret note body", "trace": format!("x{TOKEN}")})
                .to_string()
                + "\n"
        })
        .collect();
    std::fs::write(log_dir.join("bridge.log"), log).unwrap();
    let bundle = machine.home.path().join("report.zip");

    let run = machine.doctor(&["--json", "--bundle", bundle.to_str().unwrap()]);
    assert!(
        run.stderr.contains("Support bundle written"),
        "{}",
        run.stderr
    );
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&bundle).unwrap()).unwrap();
    let mut files: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    for index in 0..archive.len() {
        let mut file = archive.by_index(index).unwrap();
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        files.insert(file.name().unwrap().into_owned(), text);
    }
    for name in [
        "report.json",
        "versions.json",
        "clients/claude-code.json",
        "diagnostics-log-tail.jsonl",
        "README.txt",
    ] {
        assert!(
            files.contains_key(name),
            "{name} missing from {:?}",
            files.keys()
        );
    }
    for (name, text) in &files {
        for secret in [
            TOKEN,
            "sekrit-api-key-value",
            "Secret note body",
            "ghp-unrelated",
        ] {
            assert!(!text.contains(secret), "{name} leaks {secret:?}");
        }
    }
    let report: Value = serde_json::from_str(&files["report.json"]).unwrap();
    assert_eq!(
        report,
        run.json(),
        "the bundled report is the one --json printed"
    );
    let client: Value = serde_json::from_str(&files["clients/claude-code.json"]).unwrap();
    let bundled_entry = &client["config_state"]["obsidian_entries"]["obsidian"];
    assert_eq!(bundled_entry["env"]["OBSIDIAN_API_KEY"], "<redacted>");
    assert_eq!(bundled_entry["env"]["LANG"], "C.UTF-8");
    assert_eq!(bundled_entry["command"], obsmcp_binary());
    assert!(
        client["config_state"]["obsidian_entries"]
            .get("unrelated")
            .is_none(),
        "only Obsidian entries are bundled"
    );
    let tail: Vec<&str> = files["diagnostics-log-tail.jsonl"].lines().collect();
    assert_eq!(tail.len(), 200);
    assert!(
        tail.last().unwrap().contains("\"ts\":299") && tail.last().unwrap().contains("read_note")
    );
    let versions: Value = serde_json::from_str(&files["versions.json"]).unwrap();
    assert_eq!(versions["obsmcp"], env!("CARGO_PKG_VERSION"));
}

/// Writes a Codex `config.toml` in `folder` holding only obsmcp's entry for `vault`.
fn write_codex_entry(folder: &Path, vault: &Path) {
    std::fs::create_dir_all(folder).unwrap();
    let entry = format!(
        "[mcp_servers.obsidian]\ncommand = \"{}\"\nargs = [\"bridge\", \"--vault\", \"{}\"]\n",
        obsmcp_binary(),
        vault.to_str().unwrap()
    );
    std::fs::write(folder.join("config.toml"), entry).unwrap();
}

/// A project folder (a git root) inside the temporary home, for project-scope configs and folder trust.
fn project(machine: &Machine) -> PathBuf {
    let project = machine.home.path().join("code/app");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    project
}

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

/// Issue 13, problem 2: with `security.folderTrust` absent doctor said "folder trust is off … All good" while
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

#[test]
fn vaults_come_from_obsidians_registry_and_none_at_all_is_a_failure() {
    let machine = Machine::new();
    let nothing = machine.doctor(&["--json"]);
    assert_eq!(nothing.code, 1);
    assert_check(
        &nothing.json(),
        "vaults.found",
        "fail",
        &["no vault to check"],
        &["obsmcp setup --vault"],
    );

    Machine::ready(&machine.vault, TOKEN);
    let other = machine.home.path().join("Unrelated");
    Machine::make_vault(&other);
    let registry = machine.home.path().join(".config/obsidian");
    std::fs::create_dir_all(&registry).unwrap();
    let vaults = json!({"vaults": {
        "0123456789abcdef": {"path": machine.vault, "ts": 1, "open": true},
        "fedcba9876543210": {"path": other, "ts": 2},
    }});
    std::fs::write(registry.join("obsidian.json"), vaults.to_string()).unwrap();
    let report = machine.doctor(&["--json"]).json();
    assert_check(
        &report,
        "vaults.found",
        "ok",
        &["1 vault", "with the plugin, from Obsidian's vault list"],
        &[],
    );
    let paths: Vec<&str> = report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|section| section["path"].as_str())
        .collect();
    assert_eq!(
        paths,
        [machine.vault.to_str().unwrap()],
        "a registered vault without the plugin is not checked"
    );
}

#[test]
fn a_running_plugin_that_differs_from_the_files_on_disk_asks_for_a_reload() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let host = PluginHost::start(&machine.vault, port, TOKEN, &[]);
    let manifest = Machine::plugin_dir(&machine.vault).join("manifest.json");
    let mut files: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    files["version"] = json!("0.0.9");
    std::fs::write(&manifest, files.to_string()).unwrap();

    let report = machine
        .doctor(&["--json", "--vault", machine.vault.to_str().unwrap()])
        .json();
    assert_check(
        &report,
        "obsidian.handshake",
        "warn",
        &["files on disk are 0.0.9", "not reloaded"],
        &["turn obsmcp off and on"],
    );
    assert_check(&report, "plugin.files", "fail", &["0.0.9", "outdated"], &[]);
    host.stop();
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
fn plugin_settings_the_plugin_would_refuse_are_warnings_and_fix_makes_a_token() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let vault = machine.vault.to_str().unwrap();
    Machine::write_data(&machine.vault, 22360, TOKEN);
    let report = machine.doctor(&["--json", "--vault", vault]).json();
    assert_check(
        &report,
        "plugin.data",
        "warn",
        &["22360", "claude-code-mcp", "falls back"],
        &["Settings → obsmcp → Port"],
    );

    let port = free_port();
    Machine::write_data(&machine.vault, port, "short");
    let run = machine.doctor(&["--json", "--vault", vault]);
    assert_check(
        &run.json(),
        "plugin.data",
        "warn",
        &["not one the plugin accepts"],
        &["--fix"],
    );
    let fixed = machine.doctor(&["--json", "--fix", "--vault", vault]);
    assert_check(
        &fixed.json(),
        "plugin.data",
        "ok",
        &[&port.to_string()],
        &[],
    );
    let data: Value = serde_json::from_str(
        &std::fs::read_to_string(Machine::plugin_dir(&machine.vault).join("data.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(data["token"].as_str().unwrap().len(), 64);
    assert_eq!(data["readOnly"], false, "other settings are kept");
}

#[test]
fn fix_leaves_a_read_only_file_alone_and_says_so() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let list = machine.vault.join(".obsidian/community-plugins.json");
    std::fs::write(&list, "[\"dataview\"]").unwrap();
    let mut permissions = std::fs::metadata(&list).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&list, permissions).unwrap();

    let run = machine.doctor(&[
        "--json",
        "--fix",
        "--vault",
        machine.vault.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_check(
        &report,
        "fix.failed",
        "fail",
        &["community-plugins.json", "read-only"],
        &["by hand"],
    );
    assert_check(&report, "plugin.enabled", "fail", &["not enabled"], &[]);
    assert_eq!(std::fs::read_to_string(&list).unwrap(), "[\"dataview\"]");
}

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
fn a_port_that_accepts_but_never_answers_is_reported_within_the_time_limit() {
    let machine = Machine::new();
    let port = Machine::ready(&machine.vault, TOKEN);
    let _server = node_server(
        "silent server",
        "require('net').createServer(() => {}).listen(+process.argv[1], '127.0.0.1', () => console.log('up'))",
        port,
    );
    let run = machine.doctor(&["--json", "--vault", machine.vault.to_str().unwrap()]);
    assert!(
        run.elapsed < Duration::from_secs(3),
        "took {:?}",
        run.elapsed
    );
    let report = run.json();
    assert_check(
        &report,
        "obsidian.port",
        "fail",
        &["does not answer in time"],
        &["restart"],
    );
    assert_eq!(check(&report, "obsidian.handshake")["status"], "skip");
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
fn a_hanging_entry_command_is_bounded_and_killed() {
    use std::os::unix::fs::PermissionsExt as _;
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let pids = machine.home.path().join("pids");
    let hanging = machine.home.path().join("stuck/obsmcp");
    std::fs::create_dir_all(hanging.parent().unwrap()).unwrap();
    std::fs::write(
        &hanging,
        format!(
            "#!/bin/sh\necho $$ >> {}\nexec /bin/sleep 60\n",
            pids.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&hanging, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut entry = Machine::our_entry(&machine.vault);
    entry["command"] = json!(hanging);
    machine.claude(json!({"obsidian": entry}));

    let run = machine.doctor(&["--json", "--probe-bridge"]);
    assert!(
        run.elapsed < Duration::from_secs(8),
        "took {:?}",
        run.elapsed
    );
    let report = run.json();
    assert_check(
        &report,
        "client.binary",
        "fail",
        &["does not run", "no answer within 2 s"],
        &["--fix"],
    );
    assert_check(
        &report,
        "client.probe",
        "fail",
        &["did not finish initialize + tools/list within 5 s"],
        &[],
    );
    let started = std::fs::read_to_string(&pids).unwrap();
    let pids: Vec<u32> = started.lines().map(|pid| pid.parse().unwrap()).collect();
    assert_eq!(pids.len(), 2, "one --version run and one probe");
    for pid in pids {
        assert!(
            crate::support::wait_until(Duration::from_secs(2), || !crate::support::process_alive(
                pid
            )),
            "child {pid} was left running"
        );
    }
}

#[test]
fn a_bundle_that_cannot_be_written_is_a_clear_error() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    let target = machine.home.path().join("no/such/folder/report.zip");
    let run = machine.doctor(&[
        "--vault",
        machine.vault.to_str().unwrap(),
        "--bundle",
        target.to_str().unwrap(),
    ]);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("could not write the support bundle"),
        "{}",
        run.stderr
    );
    assert!(!target.exists());
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
        &["--vault <the vault's folder>"],
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
fn a_broken_obsidian_vault_list_is_a_warning_and_the_rest_goes_on() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));
    let registry = machine.home.path().join(".config/obsidian");
    std::fs::create_dir_all(&registry).unwrap();
    std::fs::write(registry.join("obsidian.json"), "{\"vaults\": {").unwrap();
    let run = machine.doctor(&["--json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    assert_check(
        &report,
        "vaults.registry",
        "warn",
        &["obsidian.json", "not valid"],
        &["open Obsidian once"],
    );
    assert_check(&report, "vaults.found", "ok", &["1 vault"], &[]);
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

#[test]
fn a_reader_that_closes_stdout_early_ends_doctor_quietly() {
    let machine = Machine::new();
    Machine::ready(&machine.vault, TOKEN);
    machine.claude(json!({"obsidian": Machine::our_entry(&machine.vault)}));
    for format in [&["--json"][..], &[]] {
        let mut command = machine.command(format);
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("obsmcp runs");
        // The reader goes away before doctor has written anything, as `obsmcp doctor | head -0` would.
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !stderr.contains("Broken pipe") && !stderr.contains("panicked"),
            "{format:?}: {stderr}"
        );
        assert!(
            output.status.code().is_some(),
            "{format:?}: killed by a signal"
        );
    }
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

//! `obsmcp doctor` on temporary homes: one test per check, each driving the real failure (a foreign server on the
//! port, a wrong token, a stale plugin, a missing binary, a malformed config, …) and asserting the finding and the
//! fix; `--fix` repairing a broken setup until doctor exits 0; the support bundle opened and inspected; a snapshot of
//! the JSON report. This file holds the harness (a temporary machine with the real binary); the tests are grouped by
//! the link of the chain they break, one file each.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{ChildGuard, PluginHost, TempHome, free_port, repo_root};

mod binaries;
mod deep;
mod entries;
mod kept;
mod output;
mod plugin;
mod projects;
mod runs;
mod settings;

pub(super) const TOKEN: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
pub(super) const OTHER_TOKEN: &str =
    "ffffeeeeddddccccbbbbaaaa99998888777766665555444433332222111100ab";

/// The binary these tests run and write into entries: a hard link of the build outside Cargo's `target/` (a build
/// folder, which doctor rightly calls a place that does not last), made once per test process. It sits in the
/// system's temporary folder, which the doctor runs here do not take for theirs (`Machine::command` gives them the
/// home's own `tmp`), so it stands for a binary installed in a folder of the user's.
pub(super) fn obsmcp_binary() -> &'static str {
    static LINK: std::sync::OnceLock<(tempfile::TempDir, String)> = std::sync::OnceLock::new();
    let (_, path) = LINK.get_or_init(|| {
        let folder = tempfile::Builder::new()
            .prefix("obsmcp-it-bin-")
            .tempdir()
            .unwrap();
        let link = std::fs::canonicalize(folder.path()).unwrap().join("obsmcp");
        if std::fs::hard_link(env!("CARGO_BIN_EXE_obsmcp"), &link).is_err() {
            std::fs::copy(env!("CARGO_BIN_EXE_obsmcp"), &link).unwrap();
        }
        (folder, link.to_str().unwrap().to_owned())
    });
    path
}

/// How doctor's fixes name this binary under `Machine`, whose PATH does not hold it: by its path, symlinks resolved.
pub(super) fn typed_binary() -> String {
    let binary = std::fs::canonicalize(obsmcp_binary()).unwrap();
    binary.to_str().unwrap().to_owned()
}

/// A temporary home with one vault folder (`Notes`) in it, and the means to break things in it.
pub(super) struct Machine {
    pub(super) home: TempHome,
    pub(super) vault: PathBuf,
}

/// One doctor run.
pub(super) struct Run {
    pub(super) code: i32,
    pub(super) stdout: String,
    pub(super) stderr: String,
    pub(super) elapsed: Duration,
}

impl Run {
    pub(super) fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|error| panic!("not JSON ({error}):\n{}\n{}", self.stdout, self.stderr))
    }
}

impl Machine {
    pub(super) fn new() -> Self {
        let home = TempHome::new();
        std::fs::create_dir_all(home.path().join("bin")).unwrap();
        let vault = home.path().join("Notes");
        Self::make_vault(&vault);
        Self { home, vault }
    }

    pub(super) fn make_vault(vault: &Path) {
        std::fs::create_dir_all(vault.join(".obsidian")).unwrap();
        std::fs::write(vault.join("Welcome.md"), "# Welcome\n").unwrap();
    }

    pub(super) fn plugin_dir(vault: &Path) -> PathBuf {
        vault.join(".obsidian/plugins/obsmcp")
    }

    /// The plugin's files as setup writes them (copied from the bundled sources).
    pub(super) fn install_plugin(vault: &Path) {
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

    pub(super) fn enable(vault: &Path) {
        std::fs::write(
            vault.join(".obsidian/community-plugins.json"),
            "[\n  \"obsmcp\"\n]",
        )
        .unwrap();
    }

    pub(super) fn write_data(vault: &Path, port: u16, token: &str) {
        let text =
            serde_json::to_string_pretty(&json!({"port": port, "token": token, "readOnly": false}))
                .unwrap();
        let path = Self::plugin_dir(vault).join("data.json");
        std::fs::write(&path, text).unwrap();
        // As setup writes it: the token is for its owner only.
        Self::restrict(&path);
    }

    /// Owner-only access, as setup gives the token's file (Unix mode bits; Windows has none to set).
    pub(super) fn restrict(path: &Path) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        #[cfg(not(unix))]
        let _ = path;
    }

    /// A vault set up completely, with its port (nothing listens there yet).
    pub(super) fn ready(vault: &Path, token: &str) -> u16 {
        let port = free_port();
        Self::install_plugin(vault);
        Self::enable(vault);
        Self::write_data(vault, port, token);
        port
    }

    pub(super) fn our_entry(vault: &Path) -> Value {
        json!({"type": "stdio", "command": obsmcp_binary(), "args": ["bridge", "--vault", vault]})
    }

    pub(super) fn claude_json(&self) -> PathBuf {
        self.home.path().join(".claude.json")
    }

    pub(super) fn claude(&self, servers: Value) {
        let text = serde_json::to_string_pretty(&json!({"numStartups": 3, "mcpServers": servers}))
            .unwrap();
        std::fs::write(self.claude_json(), text).unwrap();
    }

    pub(super) fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(obsmcp_binary());
        let tmp = self.home.path().join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        command
            .env_clear()
            .envs(self.home.env())
            .env("TMPDIR", tmp)
            .env("PATH", self.home.path().join("bin"))
            .arg("doctor")
            .args(args);
        command.stdin(Stdio::null());
        command
    }

    pub(super) fn doctor(&self, args: &[&str]) -> Run {
        self.doctor_with(self.command(args))
    }

    pub(super) fn doctor_with(&self, mut command: Command) -> Run {
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
pub(super) fn checks<'a>(report: &'a Value, id: &str) -> Vec<&'a Value> {
    report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|section| section["checks"].as_array().unwrap())
        .filter(|check| check["id"] == id)
        .collect()
}

/// The one check with `id`; fails the test when there is none or several.
pub(super) fn check<'a>(report: &'a Value, id: &str) -> &'a Value {
    let found = checks(report, id);
    assert_eq!(found.len(), 1, "expected one `{id}` check in {report:#}");
    found[0]
}

pub(super) fn assert_check(report: &Value, id: &str, status: &str, finding: &[&str], fix: &[&str]) {
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

pub(super) fn catalog_size() -> usize {
    let catalog: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("obsidian-plugin/catalog.json")).unwrap(),
    )
    .unwrap();
    catalog["tools"].as_array().unwrap().len()
}
/// Writes a Codex `config.toml` in `folder` holding only obsmcp's entry for `vault`.
pub(super) fn write_codex_entry(folder: &Path, vault: &Path) {
    std::fs::create_dir_all(folder).unwrap();
    let entry = format!(
        "[mcp_servers.obsidian]\ncommand = \"{}\"\nargs = [\"bridge\", \"--vault\", \"{}\"]\n",
        obsmcp_binary(),
        vault.to_str().unwrap()
    );
    std::fs::write(folder.join("config.toml"), entry).unwrap();
}

/// A project folder (a git root) inside the temporary home, for project-scope configs and folder trust.
pub(super) fn project(machine: &Machine) -> PathBuf {
    let project = machine.home.path().join("code/app");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    project
}

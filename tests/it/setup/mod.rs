//! `obsmcp setup` and `obsmcp uninstall` through the real binary on temporary homes: realistic client files in,
//! byte-exact checks out (second runs change nothing, uninstall restores), and snapshots of output and edited files.

mod broken_config;
mod edits;
mod flows;
mod managed;
mod moves;
mod repair;
mod sequences;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

/// A fake machine: a temporary home with a vault in it, and nothing from the developer's environment.
pub struct Machine {
    home: tempfile::TempDir,
    /// The vault folder (its name has a space, as real ones often do).
    pub vault: PathBuf,
}

/// What a run printed.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Machine {
    pub fn new() -> Self {
        let home = tempfile::Builder::new()
            .prefix("obsmcp-setup-")
            .tempdir()
            .unwrap();
        let home_path = std::fs::canonicalize(home.path()).unwrap();
        let vault = home_path.join("Vaults/My Notes");
        std::fs::create_dir_all(&vault).unwrap();
        std::fs::write(vault.join("Welcome.md"), "# Welcome\n").unwrap();
        std::fs::create_dir_all(home_path.join("bin")).unwrap();
        std::fs::create_dir_all(home_path.join("tmp")).unwrap();
        // The binary runs from a place that lasts, as after `cargo install` (a build folder would make setup install
        // a copy first: `installing_from_a_build_folder…` tests that), and not on PATH.
        let binary = home_path.join(".cargo/bin/obsmcp");
        std::fs::create_dir_all(binary.parent().unwrap()).unwrap();
        if std::fs::hard_link(env!("CARGO_BIN_EXE_obsmcp"), &binary).is_err() {
            std::fs::copy(env!("CARGO_BIN_EXE_obsmcp"), &binary).unwrap();
        }
        Self { home, vault }
    }

    /// The binary the tests run: `~/.cargo/bin/obsmcp`, a hard link of the build.
    pub fn binary(&self) -> PathBuf {
        self.home().join(".cargo/bin/obsmcp")
    }

    /// The home folder.
    pub fn home(&self) -> PathBuf {
        std::fs::canonicalize(self.home.path()).unwrap()
    }

    /// Writes a file under the home folder, creating its folders.
    pub fn write(&self, relative: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.home().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        path
    }

    /// Reads a file under the home folder.
    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.home().join(relative))
            .unwrap_or_else(|error| panic!("{relative}: {error}"))
    }

    /// The realistic client files: Claude Code (with settings.json), Codex and Hermes.
    pub fn with_client_fixtures(self) -> Self {
        self.write(".claude.json", include_str!("fixtures/claude.json"));
        self.write(
            ".claude/settings.json",
            include_str!("fixtures/settings.json"),
        );
        self.write(".codex/config.toml", include_str!("fixtures/config.toml"));
        self.write(".hermes/config.yaml", include_str!("fixtures/config.yaml"));
        self
    }

    /// Writes Obsidian's vault list with these (id, folder) pairs, as Obsidian keeps it.
    pub fn register_vaults(&self, vaults: &[(&str, &Path)]) {
        let listed: serde_json::Map<String, serde_json::Value> = vaults
            .iter()
            .map(|(id, path)| {
                (
                    (*id).to_owned(),
                    serde_json::json!({ "path": path, "ts": 1 }),
                )
            })
            .collect();
        self.write(
            ".config/obsidian/obsidian.json",
            serde_json::to_string(&serde_json::json!({ "vaults": listed })).unwrap(),
        );
    }

    /// Runs `obsmcp` with only this machine's environment (no terminal: stdin is empty).
    pub fn obsmcp(&self, args: &[&str]) -> Run {
        self.obsmcp_with(args, &[])
    }

    /// An `obsmcp` command that sees only this machine's environment, for tests that drive the process themselves.
    pub fn command(&self, args: &[&str]) -> std::process::Command {
        self.command_of(&self.binary(), args)
    }

    /// Copies the binary to `relative` under home (as `cargo install` or a move would put it there); its path.
    pub fn install_binary(&self, relative: &str) -> PathBuf {
        let path = self.home().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // Never a copy onto an existing name: `~/.cargo/bin/obsmcp` is a hard link of the build, which the copy would
        // empty.
        let _ = std::fs::remove_file(&path);
        std::fs::copy(env!("CARGO_BIN_EXE_obsmcp"), &path).unwrap();
        path
    }

    /// Runs the `obsmcp` binary at `binary` with only this machine's environment.
    pub fn obsmcp_at(&self, binary: &Path, args: &[&str]) -> Run {
        run(self.command_of(binary, args), &[])
    }

    fn command_of(&self, binary: &Path, args: &[&str]) -> std::process::Command {
        let home = self.home();
        let mut command = std::process::Command::new(binary);
        command
            .args(args)
            .env_clear()
            .env("HOME", &home)
            .env("PATH", home.join("bin"))
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            // The system's temporary folder is the home's own: the copies of the binary the tests put in other
            // temporary folders stand for copies in lasting places (a folder in /tmp would not last).
            .env("TMPDIR", home.join("tmp"))
            .env("NO_COLOR", "1")
            .current_dir(&home);
        command
    }

    /// Starts `obsmcp <args>` (a bridge) on this machine, asks it one text search, and ends it once it answered
    /// (closing its stdin, as a client does); the answer's JSON-RPC line. Obsidian is never up here, so the answer
    /// comes from disk.
    pub fn search_through_bridge(&self, args: &[&str], query: &str) -> String {
        self.search_in_vault_through_bridge(args, query, None)
    }

    /// As [`Self::search_through_bridge`], in the vault named (a bridge of several vaults).
    pub fn search_in_vault_through_bridge(
        &self,
        args: &[&str],
        query: &str,
        vault: Option<&str>,
    ) -> String {
        use std::io::{BufRead, Write};
        let mut bridge = self
            .command(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = bridge.stdin.take().unwrap();
        let mut call = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": query}}});
        if let Some(vault) = vault {
            call["params"]["arguments"]["vault"] = serde_json::json!(vault);
        }
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
            call.to_string(),
        ] {
            writeln!(stdin, "{line}").unwrap();
        }
        let mut stdout = std::io::BufReader::new(bridge.stdout.take().unwrap());
        let mut line = String::new();
        while !line.contains(r#""id":2"#) {
            line.clear();
            assert_ne!(stdout.read_line(&mut line).unwrap(), 0, "the bridge ended");
        }
        drop(stdin);
        assert!(bridge.wait().unwrap().success());
        line
    }

    /// Runs `obsmcp` with extra environment variables.
    pub fn obsmcp_with(&self, args: &[&str], vars: &[(&str, &str)]) -> Run {
        run(self.command(args), vars)
    }

    /// `setup --vault <vault> --client claude-code --client codex --client hermes --yes` plus `extra`.
    pub fn setup(&self, extra: &[&str]) -> Run {
        let vault = self.vault.to_str().unwrap().to_owned();
        let mut args = vec![
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
        args.extend_from_slice(extra);
        self.obsmcp(&args)
    }

    /// Every file and folder under home, with the bytes of each file (of a symbolic link, where it points).
    pub fn tree(&self) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
        fn walk(root: &Path, folder: &Path, into: &mut BTreeMap<PathBuf, Option<Vec<u8>>>) {
            for entry in std::fs::read_dir(folder).unwrap().flatten() {
                let path = entry.path();
                let relative = path.strip_prefix(root).unwrap().to_owned();
                let kind = entry.file_type().unwrap();
                if kind.is_dir() {
                    into.insert(relative, None);
                    walk(root, &path, into);
                } else if kind.is_symlink() {
                    // A link by where it points: a link replaced by a file, or pointed elsewhere, is a difference.
                    let target = std::fs::read_link(&path).unwrap();
                    into.insert(
                        relative,
                        Some(format!("-> {}", target.display()).into_bytes()),
                    );
                } else {
                    into.insert(relative, Some(std::fs::read(&path).unwrap()));
                }
            }
        }
        let mut tree = BTreeMap::new();
        walk(&self.home(), &self.home(), &mut tree);
        tree
    }

    /// Output with this machine's paths, the binary's path and tokens made stable for snapshots.
    pub fn redact(&self, text: &str) -> String {
        let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_obsmcp")).unwrap();
        let mut text = text
            .replace(self.binary().to_str().unwrap(), "<obsmcp>")
            .replace(binary.to_str().unwrap(), "<obsmcp>")
            .replace(self.home().to_str().unwrap(), "~");
        while let Some(start) = find_token(&text) {
            text.replace_range(start..start + 64, "<token>");
        }
        // The port setup picks depends on what else listens at the moment (tests run side by side).
        let mut redacted = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find("port ") {
            let (head, tail) = rest.split_at(at + "port ".len());
            redacted.push_str(head);
            let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits > 0 {
                redacted.push_str("<port>");
            }
            rest = &tail[digits..];
        }
        redacted.push_str(rest);
        redacted
    }
}

/// The start of a 64-hex-character run (a token setup generated).
fn find_token(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len().saturating_sub(63)).find(|&start| {
        bytes[start..start + 64].iter().all(u8::is_ascii_hexdigit)
            && bytes[start..start + 64]
                .iter()
                .any(|byte| byte.is_ascii_alphabetic())
            && (start == 0 || !bytes[start - 1].is_ascii_hexdigit())
    })
}

/// Runs `command` with `vars` added, bounded to a minute, and collects what it printed.
fn run(command: std::process::Command, vars: &[(&str, &str)]) -> Run {
    let output: Output = assert_cmd::Command::from_std(command)
        .envs(vars.iter().copied())
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// `chattr +i` / `-i`; false where this run may not (not root): the unwritable steps are then left out.
pub fn set_immutable(path: &Path, immutable: bool) -> bool {
    std::process::Command::new("chattr")
        .arg(if immutable { "+i" } else { "-i" })
        .arg(path)
        .output()
        .is_ok_and(|output| output.status.success())
}

/// The differences between two trees, for failure messages.
pub fn tree_diff(
    before: &BTreeMap<PathBuf, Option<Vec<u8>>>,
    after: &BTreeMap<PathBuf, Option<Vec<u8>>>,
) -> Vec<String> {
    let mut differences = Vec::new();
    for (path, content) in before {
        match after.get(path) {
            None => differences.push(format!("gone: {}", path.display())),
            Some(now) if now != content => differences.push(format!(
                "changed: {}\n--- before\n{}\n--- after\n{}",
                path.display(),
                String::from_utf8_lossy(content.as_deref().unwrap_or_default()),
                String::from_utf8_lossy(now.as_deref().unwrap_or_default())
            )),
            Some(_) => {}
        }
    }
    for path in after.keys().filter(|path| !before.contains_key(*path)) {
        differences.push(format!("new: {}", path.display()));
    }
    differences
}

/// Drops obsmcp's backups from a tree (they are the one thing setup leaves beside pre-existing files).
pub fn without_backups(
    mut tree: BTreeMap<PathBuf, Option<Vec<u8>>>,
) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    tree.retain(|path, _| !path.to_string_lossy().ends_with(".obsmcp-backup"));
    tree
}

//! Issue 13: sequences of what users really do, generated from a seed and run with the real binary on temporary
//! homes: setup from one copy of the binary or another, for a subset of clients; uninstall of a subset; `doctor --fix`;
//! the binary moved away or deleted; a client rewriting its own file (new keys, another layout, as Claude Code does);
//! a config made unwritable for a step. After every step the invariants hold:
//! - at most one obsmcp entry per client for the vault, always named `obsidian`;
//! - after setup or `doctor --fix`, every entry's command exists;
//! - the plugin is in the vault exactly when some client's obsmcp entry serves it;
//! - a refused or failed write leaves that file and its backup byte for byte as they were;
//!
//! and at the end, after a full uninstall, the files obsmcp created are gone, untouched files are back byte for byte,
//! and files a client rewrote keep the client's keys with only obsmcp's entries removed.
//!
//! `OBSMCP_SEQUENCE_SEED` replays one run (each sequence's seed derives from it); `OBSMCP_SEQUENCES` sets how many.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use obsmcp_installer::clients::{self, EntryKind};

use super::{Machine, Run};
use crate::soak::rng::Rng;

/// The clients the sequences use, by id, with their config file under home.
const CLIENTS: [(&str, &str); 3] = [
    ("claude-code", ".claude.json"),
    ("codex", ".codex/config.toml"),
    ("hermes", ".hermes/config.yaml"),
];

/// The copies of the binary a user ends up with: a build folder's, an installed one, and one from a release archive
/// under its archive name.
const COPIES: [&str; 3] = [
    "src/obsmcp/target/release/obsmcp",
    ".cargo/bin/obsmcp",
    "Downloads/obsmcp-0.1.0-x86_64-linux",
];

/// One generated sequence and what its model knows.
struct Sequence {
    machine: Machine,
    /// Where the copies of the binary live: outside home, so that reading home's files stays cheap.
    bin: tempfile::TempDir,
    rng: Rng,
    /// The copies that exist now, by index into `COPIES`.
    present: [bool; 3],
    /// Files as they were before obsmcp first touched them, and whether a client rewrote each since.
    originals: Vec<(PathBuf, Vec<u8>)>,
    rewritten: BTreeSet<PathBuf>,
    /// Every file under home before the first step.
    tree: std::collections::BTreeMap<PathBuf, Option<Vec<u8>>>,
    log: Vec<String>,
}

impl Sequence {
    fn new(seed: u64) -> Self {
        let machine = Machine::new().with_client_fixtures();
        // Beside the build, so that a copy can be a hard link (a few hundred sequences would copy gigabytes).
        let bin = tempfile::Builder::new()
            .prefix("obsmcp-bin-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        for copy in COPIES {
            install(bin.path(), copy);
        }
        let originals = CLIENTS
            .iter()
            .map(|(_, file)| {
                let path = machine.home().join(file);
                let bytes = std::fs::read(&path).unwrap();
                (path, bytes)
            })
            .collect();
        let tree = machine.tree();
        Self {
            tree,
            bin,
            machine,
            rng: Rng::new(seed),
            present: [true; 3],
            originals,
            rewritten: BTreeSet::new(),
            log: Vec::new(),
        }
    }

    fn binary(&self, copy: usize) -> PathBuf {
        std::fs::canonicalize(self.bin.path())
            .unwrap()
            .join(COPIES[copy])
    }

    /// A copy of the binary that exists, reinstalled when none does (as the user would, to run anything).
    fn some_copy(&mut self) -> usize {
        let copy = self.rng.below(COPIES.len() as u64) as usize;
        if !self.present[copy] {
            install(self.bin.path(), COPIES[copy]);
            self.present[copy] = true;
            self.log.push(format!("reinstall {}", COPIES[copy]));
        }
        copy
    }

    fn some_clients(&mut self) -> Vec<&'static str> {
        loop {
            let picked: Vec<&str> = CLIENTS
                .iter()
                .filter(|_| self.rng.below(2) == 0)
                .map(|(id, _)| *id)
                .collect();
            if !picked.is_empty() {
                return picked;
            }
        }
    }

    fn run(&mut self, copy: usize, args: &[&str]) -> Run {
        let binary = self.binary(copy);
        self.log
            .push(format!("{} {}", COPIES[copy], args.join(" ")));
        self.machine.obsmcp_at(&binary, args)
    }

    fn setup(&mut self, clients: &[&str]) -> Run {
        let copy = self.some_copy();
        let vault = self.machine.vault.to_str().unwrap().to_owned();
        let mut args = vec!["setup", "--vault", &vault, "--yes"];
        for client in clients {
            args.extend(["--client", client]);
        }
        self.run(copy, &args)
    }

    fn uninstall(&mut self, clients: &[&str]) -> Run {
        let copy = self.some_copy();
        let mut args = vec!["uninstall", "--yes"];
        for client in clients {
            args.extend(["--client", client]);
        }
        self.run(copy, &args)
    }

    fn fail(&self, what: String) -> ! {
        panic!("{what}\nsteps so far:\n  {}", self.log.join("\n  "));
    }

    /// The obsmcp entries of one client, as (name, command).
    fn entries(&self, client: &str) -> Vec<(String, String)> {
        let spec = clients::find(client).unwrap();
        let file = self.file_of(client);
        let Ok(text) = std::fs::read_to_string(&file) else {
            return Vec::new();
        };
        let servers = clients::read_servers(spec, &text).unwrap_or_else(|error| {
            self.fail(format!("{client}'s file no longer parses: {error}\n{text}"))
        });
        servers
            .iter()
            .filter_map(|(name, entry)| match clients::describe_entry(spec, entry) {
                EntryKind::Obsmcp {
                    command,
                    vault: Some(vault),
                    ..
                } if same(&vault, &self.machine.vault) => Some((name.clone(), command)),
                _ => None,
            })
            .collect()
    }

    fn file_of(&self, client: &str) -> PathBuf {
        let (_, file) = CLIENTS.iter().find(|(id, _)| *id == client).unwrap();
        self.machine.home().join(file)
    }

    fn plugin_installed(&self) -> bool {
        self.machine
            .vault
            .join(".obsidian/plugins/obsmcp/main.js")
            .is_file()
    }

    /// The invariants that hold after every step; `commands_exist` after setup and `doctor --fix`.
    fn check(&self, commands_exist: bool) {
        let mut served = false;
        for (client, _) in CLIENTS {
            let entries = self.entries(client);
            if entries.len() > 1 {
                self.fail(format!(
                    "{client} has {} entries for the vault: {entries:?}",
                    entries.len()
                ));
            }
            if let Some((name, command)) = entries.first() {
                served = true;
                if name != "obsidian" {
                    self.fail(format!(
                        "{client}'s entry is named `{name}`, not `obsidian`"
                    ));
                }
                if commands_exist && !Path::new(command).is_file() {
                    self.fail(format!(
                        "{client}'s entry runs `{command}`, which does not exist"
                    ));
                }
            }
        }
        if served != self.plugin_installed() {
            self.fail(format!(
                "the plugin is {} while {} entry serves the vault",
                if self.plugin_installed() {
                    "installed"
                } else {
                    "missing"
                },
                if served { "an" } else { "no" }
            ));
        }
    }

    /// A client rewrites its own file: a key of its own added, and (Claude Code) the JSON laid out anew.
    fn client_rewrites(&mut self, client: &str) {
        let file = self.file_of(client);
        let Ok(text) = std::fs::read_to_string(&file) else {
            return;
        };
        let rewritten = match client {
            "claude-code" => {
                let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
                value["lastSession"] =
                    serde_json::json!(format!("session-{}", self.rng.below(1000)));
                serde_json::to_string(&value).unwrap()
            }
            "codex" => format!(
                "{text}\n# added by codex\n[profiles.fast{}]\nmodel = \"o4-mini\"\n",
                self.log.len()
            ),
            _ => format!(
                "{text}\n# added by hermes\nlast_update_check_{}: 1\n",
                self.log.len()
            ),
        };
        std::fs::write(&file, rewritten).unwrap();
        self.rewritten.insert(file);
        self.log.push(format!("{client} rewrites its file"));
    }

    /// One step with `client`'s file made unwritable: the run may fail for it, but must leave it and its backup as
    /// they were.
    fn while_unwritable(&mut self, client: &'static str, step: impl FnOnce(&mut Self) -> Run) {
        let file = self.file_of(client);
        let backup = obsmcp_installer::plan::write::backup_path(&file);
        let (before, backup_before) = (std::fs::read(&file).ok(), std::fs::read(&backup).ok());
        if before.is_none() || !set_immutable(&file, true) {
            return;
        }
        self.log.push(format!("{client}'s file made immutable"));
        let run = step(self);
        set_immutable(&file, false);
        self.log.push(format!("{client}'s file writable again"));
        if std::fs::read(&file).ok() != before {
            self.fail(format!(
                "{client}'s unwritable file changed: {}",
                run.stderr
            ));
        }
        if std::fs::read(&backup).ok() != backup_before {
            self.fail(format!(
                "the backup of {client}'s unwritable file changed: {}",
                run.stderr
            ));
        }
    }

    fn step(&mut self) {
        match self.rng.below(100) {
            0..35 => {
                let clients = self.some_clients();
                let run = self.setup(&clients);
                if run.code != 0 {
                    self.fail(format!("setup failed: {}", run.stderr));
                }
                self.check(true);
            }
            35..55 => {
                let clients = self.some_clients();
                let run = self.uninstall(&clients);
                if run.code != 0 {
                    self.fail(format!("uninstall failed: {}", run.stderr));
                }
                for client in clients {
                    if !self.entries(client).is_empty() {
                        self.fail(format!("{client} still has an entry after its uninstall"));
                    }
                }
                self.check(false);
            }
            55..67 => {
                let copy = self.some_copy();
                self.run(copy, &["doctor", "--fix"]);
                self.check(true);
            }
            67..77 => {
                let copy = self.rng.below(COPIES.len() as u64) as usize;
                if self.present[copy] {
                    let path = self.binary(copy);
                    if self.rng.below(2) == 0 {
                        std::fs::rename(&path, path.with_file_name("obsmcp-moved")).unwrap();
                        self.log.push(format!("move {} away", COPIES[copy]));
                    } else {
                        std::fs::remove_file(&path).unwrap();
                        self.log.push(format!("delete {}", COPIES[copy]));
                    }
                    self.present[copy] = false;
                }
                self.check(false);
            }
            77..90 => {
                let client = CLIENTS[self.rng.below(3) as usize].0;
                self.client_rewrites(client);
                self.check(false);
            }
            _ => {
                let client = CLIENTS[self.rng.below(3) as usize].0;
                let clients = self.some_clients();
                if self.rng.below(2) == 0 {
                    self.while_unwritable(client, |sequence| sequence.setup(&clients));
                } else {
                    self.while_unwritable(client, |sequence| sequence.uninstall(&clients));
                }
                self.check(false);
            }
        }
    }

    /// The full uninstall at the end, and what it must leave.
    fn finish(&mut self) {
        let run = self.uninstall(&[]);
        if run.code != 0 {
            self.fail(format!("the final uninstall failed: {}", run.stderr));
        }
        self.check(false);
        for (path, original) in &self.originals {
            let now = std::fs::read(path).unwrap_or_default();
            let text = String::from_utf8_lossy(&now);
            if text.contains("obsmcp") {
                self.fail(format!("{} still mentions obsmcp:\n{text}", path.display()));
            }
            if !self.rewritten.contains(path) && now != *original {
                self.fail(format!(
                    "{} is not back byte for byte:\n{text}",
                    path.display()
                ));
            }
            if self.rewritten.contains(path)
                && !(text.contains("lastSession") || text.contains("added by"))
            {
                self.fail(format!(
                    "{} lost the client's own edit:\n{text}",
                    path.display()
                ));
            }
        }
        if self.machine.vault.join(".obsidian").exists() {
            self.fail("the config folder setup created in the vault is still there".to_owned());
        }
        // Nothing else is left: what differs is files clients rewrote, and the backups of those (they hold the file as it was, which the rewritten file no longer does).
        let home = self.machine.home();
        let explained = |line: &String| {
            let path = line
                .split_once(": ")
                .map_or("", |(_, path)| path)
                .lines()
                .next()
                .unwrap_or_default();
            let full = home.join(path);
            self.rewritten.contains(&full)
                || self
                    .rewritten
                    .iter()
                    .any(|file| obsmcp_installer::plan::write::backup_path(file) == full)
                || [".local", ".local/state", ".local/state/obsmcp"].contains(&path)
        };
        let left: Vec<String> = super::tree_diff(&self.tree, &self.machine.tree())
            .into_iter()
            .filter(|line| !explained(line))
            .collect();
        if !left.is_empty() {
            self.fail(format!(
                "left behind after the full uninstall:\n{}",
                left.join("\n")
            ));
        }
    }
}

/// Puts a copy of the binary at `relative` under `folder`: a hard link where the file system allows one (the binary
/// then knows itself by that path, as a copy would), a real copy otherwise.
fn install(folder: &Path, relative: &str) {
    let path = folder.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    // Never a copy onto an existing name: if that name were a hard link of the build, the copy would empty both.
    let _ = std::fs::remove_file(&path);
    if let Err(error) = std::fs::hard_link(env!("CARGO_BIN_EXE_obsmcp"), &path) {
        eprintln!("hard link failed ({error}); copying");
        std::fs::copy(env!("CARGO_BIN_EXE_obsmcp"), &path).unwrap();
    }
}

fn same(a: &Path, b: &Path) -> bool {
    a == b || std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
}

/// `chattr +i` / `-i`; false where this run may not (not root): the unwritable steps are then left out.
fn set_immutable(path: &Path, immutable: bool) -> bool {
    std::process::Command::new("chattr")
        .arg(if immutable { "+i" } else { "-i" })
        .arg(path)
        .output()
        .is_ok_and(|output| output.status.success())
}

#[test]
fn generated_sequences_of_setup_uninstall_fix_moves_and_client_edits_keep_every_invariant() {
    let seed: u64 = std::env::var("OBSMCP_SEQUENCE_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    let count: u64 = std::env::var("OBSMCP_SEQUENCES")
        .ok()
        .and_then(|count| count.parse().ok())
        .unwrap_or(300);
    eprintln!(
        "sequences: seed {seed} (replay with OBSMCP_SEQUENCE_SEED={seed}), {count} sequences"
    );
    let mut seeds = Rng::new(seed);
    for index in 0..count {
        let sequence_seed = seeds.next();
        let mut sequence = Sequence::new(sequence_seed);
        sequence
            .log
            .push(format!("sequence {index}, seed {sequence_seed}"));
        let steps = 3 + sequence.rng.below(5);
        for _ in 0..steps {
            sequence.step();
        }
        sequence.finish();
    }
}

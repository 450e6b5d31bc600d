//! Sequences of what users really do, generated from a seed and run with the real binary on temporary
//! homes: setup from one copy of the binary or another, for a subset of clients; uninstall of a subset; `doctor --fix`;
//! the binary moved away or deleted; a client rewriting its own file (new keys, another layout, as Claude Code does);
//! a config made unwritable for a step; the vault moved or renamed; in one home of four, obsmcp installed by pipx or
//! `uv tool`, whose link on PATH the user runs most. After every step the invariants hold:
//! - at most one obsmcp entry per client for the vault (at its place now or one it left), always named `obsidian`;
//! - after setup or `doctor --fix`, every entry's command exists and every entry names the vault's place now;
//! - the plugin is in the vault exactly when some client's obsmcp entry serves it;
//! - a refused or failed write leaves that file and its backup byte for byte as they were;
//! - with pipx's or uv's install, every entry runs the manager's copy, whichever copy of the same build setup ran from
//!   (a different build is refused rather than put where the manager's link is: `managed.rs`);
//!
//! and at the end, after a full uninstall, the files obsmcp created are gone, untouched files are back byte for byte,
//! and files a client rewrote keep the client's keys with only obsmcp's entries removed.
//!
//! `OBSMCP_SEQUENCE_SEED` replays one run (each sequence's seed derives from it); `OBSMCP_SEQUENCES` sets how many;
//! `OBSMCP_SEQUENCE` replays the one sequence whose seed a failure printed.
//!
//! This file holds a sequence's model (its machine, its copies of the binary, what it has done) and the test; what a
//! step does is `steps.rs`, the invariants checked after each step and at the end `invariants.rs`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use obsmcp_installer::clients::{self, EntryKind};

use super::{Machine, Run, set_immutable, tree_diff};
use crate::support::rng::Rng;

mod invariants;
mod steps;

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

/// The package managers a home may have installed obsmcp with: where each keeps the binary under home, and whether
/// its tools folder is marked as a cache (uv's is). Their link is `~/.local/bin/obsmcp`.
const MANAGERS: [(&str, &str, bool); 2] = [
    ("pipx", ".local/share/pipx/venvs/obsmcp/bin/obsmcp", false),
    ("uv tool", ".local/share/uv/tools/obsmcp/bin/obsmcp", true),
];

/// The index of the manager's link among the copies, after [`COPIES`].
const LINK: usize = COPIES.len();

/// One generated sequence and what its model knows.
struct Sequence {
    machine: Machine,
    /// Where the copies of the binary live: outside home, so that reading home's files stays cheap.
    bin: tempfile::TempDir,
    rng: Rng,
    /// The copies that exist now, by index into `COPIES`.
    present: [bool; 3],
    /// pipx or `uv tool`, when this home has obsmcp from one: its name and where it keeps the binary.
    manager: Option<(&'static str, PathBuf)>,
    /// Files as they were before obsmcp first touched them, and whether a client rewrote each since.
    originals: Vec<(PathBuf, Vec<u8>)>,
    rewritten: BTreeSet<PathBuf>,
    /// Every file under home before the first step.
    tree: std::collections::BTreeMap<PathBuf, Option<Vec<u8>>>,
    /// Where the vault was before its first move, and the places it has left since (entries may still name them).
    first_place: PathBuf,
    former: Vec<PathBuf>,
    /// How many times the vault moved, for fresh names.
    moves: usize,
    log: Vec<String>,
}

/// Obsidian's id for the sequences' vault.
const VAULT_ID: &str = "5e0c1d2e3f405162";

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
        // Obsidian lists the vault, as it does once the vault was opened; a move updates the list (`steps.rs`).
        machine.register_vaults(&[(VAULT_ID, &machine.vault)]);
        let mut rng = Rng::new(seed);
        let manager = match rng.below(8) {
            pick @ 0..2 => {
                let (name, kept_at, cache) = MANAGERS[pick as usize];
                install(&machine.home(), kept_at);
                if cache {
                    machine.write(
                        ".local/share/uv/tools/CACHEDIR.TAG",
                        "Signature: 8a477f597d28d172789f06886806bc55",
                    );
                }
                let tool = machine.home().join(kept_at);
                let link = machine.home().join(".local/bin/obsmcp");
                std::fs::create_dir_all(link.parent().unwrap()).unwrap();
                symlink(&tool, &link);
                Some((name, tool))
            }
            _ => None,
        };
        let tree = machine.tree();
        let first_place = machine.vault.clone();
        Self {
            tree,
            first_place,
            former: Vec::new(),
            moves: 0,
            bin,
            machine,
            rng,
            present: [true; 3],
            manager,
            originals,
            rewritten: BTreeSet::new(),
            log: Vec::new(),
        }
    }

    fn binary(&self, copy: usize) -> PathBuf {
        if copy == LINK {
            return self.machine.home().join(".local/bin/obsmcp");
        }
        std::fs::canonicalize(self.bin.path())
            .unwrap()
            .join(COPIES[copy])
    }

    /// How the log names a copy.
    fn copy_name(&self, copy: usize) -> String {
        match &self.manager {
            Some((manager, _)) if copy == LINK => format!(".local/bin/obsmcp ({manager}'s link)"),
            _ => COPIES[copy].to_owned(),
        }
    }

    /// A copy of the binary that exists, reinstalled when none does (as the user would, to run anything); with a
    /// manager's install, its link on PATH half the time.
    fn some_copy(&mut self) -> usize {
        if self.manager.is_some() && self.rng.below(2) == 0 {
            return LINK;
        }
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
            .push(format!("{} {}", self.copy_name(copy), args.join(" ")));
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

    fn file_of(&self, client: &str) -> PathBuf {
        let (_, file) = CLIENTS.iter().find(|(id, _)| *id == client).unwrap();
        self.machine.home().join(file)
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

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[cfg(windows)]
fn symlink(target: &Path, link: &Path) {
    std::os::windows::fs::symlink_file(target, link).unwrap();
}

fn same(a: &Path, b: &Path) -> bool {
    a == b || std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
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
    // One sequence alone, by the seed its failure printed.
    let only: Option<u64> = std::env::var("OBSMCP_SEQUENCE")
        .ok()
        .and_then(|seed| seed.parse().ok());
    let mut seeds = Rng::new(seed);
    for index in 0..count {
        let sequence_seed = seeds.next();
        let sequence_seed = match only {
            Some(only) if index == 0 => only,
            Some(_) => break,
            None => sequence_seed,
        };
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

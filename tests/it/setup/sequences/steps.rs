//! What one step of a sequence does, drawn from its seed: setup or uninstall of a subset of clients from some copy of
//! the binary, `doctor --fix`, a copy moved away or deleted, a client rewriting its own file, the vault moved or
//! renamed, or a step with a config made unwritable.

use super::*;

impl Sequence {
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

    /// The vault moves to another folder or is renamed, and Obsidian's list follows: a rename in Obsidian keeps the
    /// vault's id, a move in a file manager then "Open folder as vault" adds a new one. The entries now name a place
    /// the vault left, until setup or `doctor --fix` re-points them.
    fn vault_moves(&mut self) {
        self.moves += 1;
        let home = self.machine.home();
        let new = if self.rng.below(2) == 0 {
            home.join(format!("Moved {}/My Notes", self.moves))
        } else {
            home.join(format!("Vaults/Renamed {}", self.moves))
        };
        std::fs::create_dir_all(new.parent().unwrap()).unwrap();
        std::fs::rename(&self.machine.vault, &new).unwrap();
        let old = std::mem::replace(&mut self.machine.vault, new.clone());
        if self.rng.below(2) == 0 {
            self.machine.register_vaults(&[(VAULT_ID, &new)]);
            self.log
                .push(format!("rename the vault in Obsidian to {}", new.display()));
        } else {
            self.machine
                .register_vaults(&[(VAULT_ID, &old), ("7f6e5d4c3b2a1908", &new)]);
            self.log.push(format!(
                "move the vault to {} and open it there",
                new.display()
            ));
        }
        self.former.push(old);
        self.check(false);
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

    pub(super) fn step(&mut self) {
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
                        self.log.push(format!("move {} away", self.copy_name(copy)));
                    } else {
                        std::fs::remove_file(&path).unwrap();
                        self.log.push(format!("delete {}", self.copy_name(copy)));
                    }
                    self.present[copy] = false;
                }
                self.check(false);
            }
            77..84 => self.vault_moves(),
            84..90 => {
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
}

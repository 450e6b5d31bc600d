//! The invariants of a sequence: after every step, at most one entry per client for the vault, named `obsidian`,
//! whose command exists after setup and `doctor --fix`, and the plugin in the vault exactly when an entry serves it;
//! after the final uninstall, nothing of obsmcp's left and every file back as it was or as its client rewrote it.

use super::*;

impl Sequence {
    /// The obsmcp entries of one client for the vault, at its place now or at one it left, as (name, command, vault).
    pub(super) fn entries(&self, client: &str) -> Vec<(String, String, PathBuf)> {
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
            .flat_map(|(name, entry)| match clients::describe_entry(spec, entry) {
                EntryKind::Obsmcp {
                    command, vaults, ..
                } => vaults
                    .into_iter()
                    .filter(|vault| same(vault, &self.machine.vault) || self.former.contains(vault))
                    .map(|vault| (name.clone(), command.clone(), vault))
                    .collect(),
                EntryKind::Other { .. } => Vec::new(),
            })
            .collect()
    }

    fn plugin_installed(&self) -> bool {
        self.machine
            .vault
            .join(".obsidian/plugins/obsmcp/main.js")
            .is_file()
    }

    /// The invariants that hold after every step; `commands_exist` after setup and `doctor --fix`.
    pub(super) fn check(&self, commands_exist: bool) {
        let mut served = false;
        for (client, _) in CLIENTS {
            let entries = self.entries(client);
            if entries.len() > 1 {
                self.fail(format!(
                    "{client} has {} entries for the vault: {entries:?}",
                    entries.len()
                ));
            }
            if let Some((name, command, vault)) = entries.first() {
                served = true;
                if name != "obsidian" {
                    self.fail(format!(
                        "{client}'s entry is named `{name}`, not `obsidian`"
                    ));
                }
                if let Some((manager, tool)) = &self.manager
                    && commands_exist
                    && !same(Path::new(command), tool)
                {
                    self.fail(format!(
                        "{client}'s entry runs `{command}`, not {manager}'s copy `{}`",
                        tool.display()
                    ));
                }
                if commands_exist && !Path::new(command).is_file() {
                    self.fail(format!(
                        "{client}'s entry runs `{command}`, which does not exist"
                    ));
                }
                if commands_exist && !same(vault, &self.machine.vault) {
                    self.fail(format!(
                        "{client}'s entry still names `{}`, a place the vault left",
                        vault.display()
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

    /// The full uninstall at the end, and what it must leave.
    pub(super) fn finish(&mut self) {
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
        // The vault goes back where it was and Obsidian's list with it: what differs then is obsmcp's.
        let last_place = self.machine.vault.clone();
        if last_place != self.first_place {
            std::fs::rename(&last_place, &self.first_place).unwrap();
            self.machine.vault = self.first_place.clone();
        }
        self.machine
            .register_vaults(&[(VAULT_ID, &self.first_place)]);
        for place in self.former.iter().chain([&last_place]) {
            // The folders the moves made, now empty; `remove_dir` leaves any other.
            let _ = std::fs::remove_dir(place.parent().unwrap());
        }
        // Nothing else is left, `~/.local` included: what differs is files clients rewrote, and the backups of those (they
        // hold the file as it was, which the rewritten file no longer does).
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

//! Vaults that moved or were renamed since setup: a place obsmcp knows a vault by (setup's record, a client's entry)
//! whose folder is gone, matched with a folder that is that same vault now. Setup then re-points the vault's entries
//! in place under their names, uninstall finds the plugin at the new place, and doctor names the one command that
//! mends it.
//!
//! What makes two places one vault, strongest first: the plugin token in the vault's `data.json` (it moves with the
//! folder; setup records its digest), Obsidian's id for the vault (Obsidian keeps it when it renames or moves a vault
//! itself; setup records it), and, for a place recorded before obsmcp kept either, the same folder name (a move to
//! another parent) when no other place or folder shares it. A recorded token that differs from the folder's is a
//! different vault, whatever its name.

use std::path::{Path, PathBuf};

use crate::environment::Environment;
use crate::obsidian_files::plugin_data;
use crate::obsidian_files::registry::{self, RegisteredVault};
use crate::plan::state::{State, VaultIdentity};
use crate::plan::write;

/// A vault known at `from`, which is gone, found at `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    /// The place obsmcp knew it by.
    pub from: PathBuf,
    /// Where it is now.
    pub to: PathBuf,
    /// What recognised it ("its plugin token", "Obsidian's id for it", "its folder name", "your answer").
    pub by: &'static str,
}

impl Move {
    /// The sentence that tells the user about it.
    pub fn describe(&self) -> String {
        format!(
            "the vault set up at `{}` is now `{}` (recognised by {})",
            self.from.display(),
            self.to.display(),
            self.by
        )
    }
}

/// The places obsmcp knows vaults by whose folder is gone: setup's record and every client's obsmcp entries.
pub fn gone_places(environment: &Environment, state: &State) -> Vec<PathBuf> {
    let mut places: Vec<PathBuf> = state.vaults.keys().cloned().collect();
    for (vault, _) in crate::clients::served_vaults(environment, |_| true) {
        if !places.iter().any(|known| write::same_path(known, &vault)) {
            places.push(vault);
        }
    }
    places.retain(|place| place.is_absolute() && !place.is_dir());
    places.sort();
    places
}

/// The identity of the vault at `path` now, as setup records it.
pub fn identity_of(path: &Path, config_dir: &str, registered: &[RegisteredVault]) -> VaultIdentity {
    VaultIdentity {
        token: plugin_data::read(path, config_dir)
            .ok()
            .filter(|data| !data.token.is_empty())
            .map(|data| VaultIdentity::digest(&data.token)),
        obsidian_id: registered
            .iter()
            .find(|vault| write::same_path(&vault.path, path))
            .map(|vault| vault.id.clone()),
    }
}

/// Matches each gone place with the folder among `candidates` (path and config folder) that is the same vault.
pub fn find(
    environment: &Environment,
    state: &State,
    candidates: &[(PathBuf, String)],
) -> Vec<Move> {
    let gone = gone_places(environment, state);
    if gone.is_empty() {
        return Vec::new();
    }
    let (registered, _) = registry::discover(environment);
    let present: Vec<(&PathBuf, VaultIdentity)> = candidates
        .iter()
        .filter(|(path, _)| path.is_dir())
        .map(|(path, config_dir)| (path, identity_of(path, config_dir, &registered)))
        .collect();
    let name = |path: &Path| registry::vault_name(path);
    let mut moves = Vec::new();
    for from in &gone {
        let recorded = state
            .identities
            .iter()
            .find(|(place, _)| write::same_path(place, from))
            .map(|(_, identity)| identity);
        let by_identity = recorded.and_then(|recorded| {
            present.iter().find_map(|(to, now)| {
                if recorded.token.is_some() && recorded.token == now.token {
                    Some(((*to).clone(), "its plugin token"))
                } else if recorded.obsidian_id.is_some() && recorded.obsidian_id == now.obsidian_id
                {
                    Some(((*to).clone(), "Obsidian's id for it"))
                } else {
                    None
                }
            })
        });
        if let Some((to, by)) = by_identity {
            moves.push(Move {
                from: from.clone(),
                to,
                by,
            });
            continue;
        }
        // The folder name alone, only where it is unambiguous and no recorded token says otherwise.
        let shares_name = |path: &Path| name(path) == name(from);
        if gone.iter().filter(|other| shares_name(other)).count() != 1 {
            continue;
        }
        let named: Vec<&(&PathBuf, VaultIdentity)> =
            present.iter().filter(|(to, _)| shares_name(to)).collect();
        if let [(to, now)] = named.as_slice() {
            let contradicted = recorded.is_some_and(|recorded| {
                recorded.token.is_some() && now.token.is_some() && recorded.token != now.token
            });
            if !contradicted {
                moves.push(Move {
                    from: from.clone(),
                    to: (*to).clone(),
                    by: "its folder name",
                });
            }
        }
    }
    moves
}

/// The config folder a gone place had: setup's record, or the usual one.
pub fn config_dir_of(state: &State, place: &Path) -> String {
    state
        .vaults
        .iter()
        .find(|(known, _)| write::same_path(known, place))
        .map_or_else(
            || plugin_data::DEFAULT_CONFIG_DIR.to_owned(),
            |(_, config_dir)| config_dir.clone(),
        )
}

/// Moves the backups of a vault's files in obsmcp's state folder along with the vault, so that uninstall still
/// restores them; a backup already at the new place wins. Failures leave the old backups where they were.
pub fn move_backups(state_home: &Path, from: &Path, to: &Path) {
    let old = write::vault_backup_folder(state_home, from);
    let new = write::vault_backup_folder(state_home, to);
    if !old.is_dir() || new.exists() {
        return;
    }
    if let Some(parent) = new.parent()
        && std::fs::create_dir_all(parent).is_ok()
        && std::fs::rename(&old, &new).is_ok()
    {
        let backups = state_home.join("backups");
        let mut folder = old.parent();
        while let Some(current) = folder.filter(|current| current.starts_with(&backups)) {
            if !super::state::remove_dir_if_empty(current) {
                break;
            }
            folder = current.parent();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state_with(place: &Path, identity: Option<VaultIdentity>) -> State {
        let mut state = State::default();
        state
            .vaults
            .insert(place.to_owned(), ".obsidian".to_owned());
        if let Some(identity) = identity {
            state.identities.insert(place.to_owned(), identity);
        }
        state
    }

    fn vault_with_token(path: &Path, token: &str) {
        let folder = path.join(".obsidian/plugins/obsmcp");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("data.json"),
            format!(r#"{{"port":22401,"token":"{token}"}}"#),
        )
        .unwrap();
    }

    fn environment(home: &Path) -> Environment {
        Environment::new(crate::environment::Os::Linux, home)
    }

    #[test]
    fn a_renamed_vault_is_recognised_by_its_token_and_a_stranger_with_its_name_is_not() {
        let home = tempfile::tempdir().unwrap();
        let gone = home.path().join("Documents/Personal");
        let renamed = home.path().join("Documents/Journal");
        let namesake = home.path().join("Elsewhere/Personal");
        vault_with_token(&renamed, "secret-one");
        vault_with_token(&namesake, "secret-two");
        let identity = VaultIdentity {
            token: Some(VaultIdentity::digest("secret-one")),
            obsidian_id: None,
        };
        let state = state_with(&gone, Some(identity));
        let candidates = [
            (namesake.clone(), ".obsidian".to_owned()),
            (renamed.clone(), ".obsidian".to_owned()),
        ];
        let moves = find(&environment(home.path()), &state, &candidates);
        assert_eq!(
            moves,
            vec![Move {
                from: gone.clone(),
                to: renamed,
                by: "its plugin token"
            }]
        );
        // Without the renamed folder, the namesake's other token says it is another vault.
        let moves = find(&environment(home.path()), &state, &candidates[..1]);
        assert_eq!(moves, Vec::new());
    }

    #[test]
    fn a_place_recorded_without_identity_follows_a_unique_folder_name_only() {
        let home = tempfile::tempdir().unwrap();
        let gone = home.path().join("Documents/Personal");
        let moved = home.path().join("Vaults/Personal");
        std::fs::create_dir_all(&moved).unwrap();
        let state = state_with(&gone, None);
        let candidates = vec![(moved.clone(), ".obsidian".to_owned())];
        let moves = find(&environment(home.path()), &state, &candidates);
        assert_eq!(moves.len(), 1);
        assert_eq!(
            (moves[0].to.as_path(), moves[0].by),
            (moved.as_path(), "its folder name")
        );
        // Two folders of that name: no guess.
        let other = home.path().join("Backup/Personal");
        std::fs::create_dir_all(&other).unwrap();
        let both = vec![candidates[0].clone(), (other, ".obsidian".to_owned())];
        assert_eq!(find(&environment(home.path()), &state, &both), Vec::new());
    }

    #[test]
    fn moving_a_vault_in_the_record_moves_every_path_under_it_and_nothing_else() {
        let from = Path::new("/home/u/Documents/Personal");
        let to = Path::new("/home/u/Vaults/Personal");
        let mut state = state_with(from, Some(VaultIdentity::default()));
        state.created_dirs.insert(from.join(".obsidian/plugins"));
        state
            .created_dirs
            .insert(PathBuf::from("/home/u/Documents/PersonalNotes"));
        state
            .created_files
            .insert(from.join(".obsidian/community-plugins.json"));
        state.move_vault(from, to);
        assert!(state.vaults.contains_key(to) && !state.vaults.contains_key(from));
        assert!(state.identities.contains_key(to) && state.identities.contains_key(from));
        assert!(state.created_dirs.contains(&to.join(".obsidian/plugins")));
        assert!(
            state
                .created_dirs
                .contains(Path::new("/home/u/Documents/PersonalNotes"))
        );
        assert!(
            state
                .created_files
                .contains(&to.join(".obsidian/community-plugins.json"))
        );
    }
}

//! obsmcp's entries in the clients not being set up: re-pointed at this binary when theirs is gone, and at a vault's
//! new place when it moved, the rest of each entry (its other vaults, flags and keys) as it was.

use std::path::{Path, PathBuf};

use super::edits::Edits;
use super::entries::{bridge_entry, is_former_place, update_own_entry};
use super::layout;
use super::{SetupRequest, VaultTarget};
use crate::clients::{ClientSpec, EntryKind, describe_entry, read_servers};
use crate::plan::Note;
use crate::plan::write;

/// obsmcp's entries for `vault` in the clients not being set up, whose binary is gone (moved, deleted, `cargo clean`):
/// re-pointed at this binary, since nothing else can make them work again. Entries whose binary still exists are
/// left to the user's choice of clients; a file that cannot be read or parsed is left alone.
pub(super) fn repoint_broken_entries(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    edits: &mut Edits,
    notes: &mut Vec<Note>,
) {
    let chosen = |client: &ClientSpec| request.clients.iter().any(|wanted| wanted.id == client.id);
    for client in crate::clients::CLIENTS
        .iter()
        .filter(|client| !chosen(client))
    {
        let location = client.locate(request.environment);
        let path = write::resolve(&location.config);
        let Ok(Some(text)) = write::read_text(&path) else {
            continue;
        };
        let Ok(servers) = read_servers(client, &text) else {
            continue;
        };
        for (name, entry) in &servers {
            let EntryKind::Obsmcp {
                command,
                vaults,
                config_dir,
                read_only,
                tools,
            } = describe_entry(client, entry)
            else {
                continue;
            };
            let moved_from = vaults.iter().find(|place| is_former_place(vault, place));
            let binary_exists = Path::new(&command).is_file();
            if !(moved_from.is_some() || layout::holds(&vaults, &vault.path) && !binary_exists) {
                continue;
            }
            let message = if let Some(from) = moved_from {
                format!(
                    "re-pointed `{name}` from `{}` to the vault's new place",
                    from.display()
                )
            } else {
                format!(
                    "re-pointed `{name}` from `{command}`, which is gone, to `{}`",
                    request.binary.display()
                )
            };
            notes.push(Note {
                scope: client.name.to_owned(),
                message,
            });
            // Only what is broken changes: the entry keeps its own `--read-only` and `--tools`, whatever this run
            // was asked, and its own binary while that exists.
            let binary = if binary_exists {
                PathBuf::from(&command)
            } else {
                request.binary.clone()
            };
            // Its other vaults stay; the one that moved is named where it is now.
            let places: Vec<PathBuf> = vaults
                .iter()
                .map(|place| {
                    if is_former_place(vault, place) {
                        vault.path.clone()
                    } else {
                        place.clone()
                    }
                })
                .collect();
            let config_dir = config_dir.unwrap_or_else(|| vault.config_dir.clone());
            let wanted = bridge_entry(
                client,
                &binary,
                &places,
                &config_dir,
                read_only,
                tools.as_deref(),
            );
            for operation in update_own_entry(client, &client.entry_path(name), &wanted) {
                edits.add_operation(
                    &path,
                    client.format,
                    operation,
                    client.claude_lock,
                    client.new_file_mode,
                    vec![client.servers_path()],
                );
            }
        }
    }
}

//! How obsmcp's entries hold vaults. By default one entry, `obsidian`, serves every vault alike (`--vault` repeated in
//! its arguments): one bridge, one copy of the tool list in each session. Setup brings the entries of one vault each
//! that an older setup wrote into it. `--entry-per-vault` keeps one entry per vault (for a policy per vault), and
//! splits a shared entry. A repair (`doctor --fix`) leaves the layout as it is.
//!
//! Vaults are alike when their entries would read the same but for `--vault`: the same `--read-only`, and the default
//! config folder (a vault with another keeps an entry of its own, which names it with `--config-dir`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{SetupRequest, VaultTarget};
use crate::clients::{ClientSpec, EntryKind, describe_entry};
use crate::obsidian_files::plugin_data::DEFAULT_CONFIG_DIR;
use crate::plan::write;

/// How setup lays out obsmcp's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EntryLayout {
    /// One entry serves every vault alike; entries of one vault each are brought into it.
    #[default]
    Shared,
    /// One entry per vault (`--entry-per-vault`); a shared entry is split.
    PerVault,
    /// Each entry stays as it is, its vaults brought up to date where they are (a repair).
    AsIs,
}

/// Whether `vault` may join `entry`, an obsmcp entry of other vaults, under this request's layout.
pub(super) fn may_join(request: &SetupRequest<'_>, vault: &VaultTarget, entry: &EntryKind) -> bool {
    let EntryKind::Obsmcp {
        vaults,
        config_dir,
        read_only,
        ..
    } = entry
    else {
        return false;
    };
    request.layout == EntryLayout::Shared
        && !vaults.is_empty()
        && *read_only == request.read_only
        && config_dir.is_none()
        && vault.config_dir == DEFAULT_CONFIG_DIR
}

/// The vaults obsmcp's entry for `vault` serves after setup: the entry's own (`existing`; a place the vault left
/// replaced by where it is now) with `vault` added, and the vaults of the entries it takes in; only `vault` when the
/// layout is one per vault.
pub(super) fn vaults_of_entry(
    request: &SetupRequest<'_>,
    vault: &VaultTarget,
    existing: &[PathBuf],
    taken_in: &[PathBuf],
) -> Vec<PathBuf> {
    if request.layout == EntryLayout::PerVault {
        return vec![vault.path.clone()];
    }
    let mut vaults: Vec<PathBuf> = Vec::new();
    let here_or_now = |place: &PathBuf| {
        if vault
            .moved_from
            .iter()
            .any(|former| write::same_path(former, place))
        {
            vault.path.clone()
        } else {
            place.clone()
        }
    };
    for place in existing
        .iter()
        .map(here_or_now)
        .chain([vault.path.clone()])
        .chain(taken_in.iter().cloned())
    {
        if !vaults.iter().any(|known| write::same_path(known, &place)) {
            vaults.push(place);
        }
    }
    vaults
}

/// The vaults an obsmcp entry serves, or none for another entry.
pub(super) fn vaults_in(client: &ClientSpec, entry: &Value) -> Vec<PathBuf> {
    match describe_entry(client, entry) {
        EntryKind::Obsmcp { vaults, .. } => vaults,
        EntryKind::Other { .. } => Vec::new(),
    }
}

/// Whether `vaults` holds `place`.
pub(super) fn holds(vaults: &[PathBuf], place: &Path) -> bool {
    vaults.iter().any(|known| write::same_path(known, place))
}

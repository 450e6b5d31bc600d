//! Whole runs: the agent one-liner, second runs, uninstall, dry runs, JSON, vault discovery, several vaults,
//! migration of an existing `obsidian` entry, and the refusal without a terminal. The machine is the parent's; the
//! tests are grouped by what they check, one file each: the setup and uninstall pair, what runs print, the entries in
//! client configs, and what lands in the vault.

use serde_json::Value;

use super::{Machine, tree_diff, without_backups};

mod binary;
mod entries;
mod output;
mod plugin;
mod round_trips;
mod shared;

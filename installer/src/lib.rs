//! Everything obsmcp reads or edits on the user's machine: vault discovery, the plugin's files, and one adapter
//! per AI client. Every lookup of a home folder or environment variable goes through an injected environment so that
//! tests never touch the real home. No network.
//!
//! The pieces, from the bottom up:
//! - [`environment::Environment`]: home, variables and OS, injected everywhere.
//! - [`document`]: lossless JSON / JSONC / TOML / YAML editing as a list of [`document::Operation`]s, checked by
//!   reading the result back.
//! - [`files`]: symlink resolution, atomic writes that keep the mode, one backup, Claude Code's lock.
//! - [`vaults`]: Obsidian's registry on every OS, config folder detection, server-name slugs.
//! - [`clients`]: the AI clients as data ([`clients::CLIENTS`]); `locate`, [`clients::read_servers`] and
//!   [`clients::describe_entry`] are what `doctor` needs to find and judge an entry.
//! - [`plan`]: planned file changes (diffs, added / updated / unchanged / removed), applied under the right lock.
//! - [`setup`] and [`uninstall`]: the two plans; [`state`]: the record of what setup created.

pub mod clients;
pub mod document;
pub mod environment;
pub mod files;
pub mod plan;
pub mod plugin;
pub mod plugin_data;
pub mod setup;
pub mod skill;
pub mod state;
pub mod template;
pub mod uninstall;
pub mod vaults;

//! Everything obsmcp reads or edits on the user's machine: vault discovery, the plugin's files, and one adapter
//! per AI client. Every lookup of a home folder or environment variable goes through an injected environment so that
//! tests never touch the real home. No network.
//!
//! The wings, from the bottom up; each uses only those above it in this list, except that [`clients`] reads the
//! clients' configs through [`plan::write`] to find the vaults they serve:
//! - [`environment::Environment`]: home, variables and OS, injected everywhere.
//! - [`document`]: lossless JSON / JSONC / TOML / YAML editing as a list of [`document::Operation`]s, checked by
//!   reading the result back.
//! - [`obsidian_files`]: what Obsidian keeps on the machine: its vault [`obsidian_files::registry`] on every OS with
//!   config folder detection and server-name slugs, and the obsmcp [`obsidian_files::plugin`] inside a vault with its
//!   [`obsidian_files::plugin_data`].
//! - [`clients`]: the AI clients as data ([`clients::CLIENTS`]), their entry [`clients::template`]s and the companion
//!   [`clients::skill`]; `locate`, [`clients::read_servers`] and [`clients::describe_entry`] are what `doctor` needs
//!   to find and judge an entry.
//! - [`plan`]: planned file changes (diffs, added / updated / unchanged / removed) and the notes and problems met
//!   while planning; [`plan::write`] is how they reach the disk (symlinks resolved, atomic writes that keep the mode,
//!   one backup, Claude Code's lock), and [`plan::state`] records what setup created.
//! - [`setup`] and [`uninstall`]: the two plans.

pub mod clients;
pub mod document;
pub mod environment;
pub mod obsidian_files;
pub mod plan;
pub mod setup;
pub mod uninstall;

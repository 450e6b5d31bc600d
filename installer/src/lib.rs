//! Everything obsmcp reads or edits on the user's machine: vault discovery, the plugin's files, and one adapter
//! per AI client. Every lookup of a home folder or environment variable goes through an injected environment so that
//! tests never touch the real home. No network.

pub mod clients;
pub mod document;
pub mod environment;
pub mod files;
pub mod plan;
pub mod plugin;
pub mod plugin_data;
pub mod setup;
pub mod state;
pub mod template;
pub mod uninstall;
pub mod vaults;

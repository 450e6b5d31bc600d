//! What Obsidian keeps on the user's machine, as obsmcp needs it: the registry of vaults and each vault's config
//! folder ([`registry`]), and inside a vault the obsmcp plugin's files and enablement ([`plugin`]) and its settings
//! file ([`plugin_data`]). Kept apart from the AI clients: these are Obsidian's files, which Obsidian itself also
//! reads and rewrites.

pub mod plugin;
pub mod plugin_data;
pub mod registry;

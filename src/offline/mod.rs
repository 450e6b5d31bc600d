//! Offline mode: the vault's read tools answered straight from the vault folder while Obsidian is closed.

mod markdown;
mod paths;
mod sections;
mod text;
mod vault;

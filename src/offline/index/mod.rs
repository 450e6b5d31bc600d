//! The index engine, which has no twin in the plugin (Obsidian keeps its own): the word index (`words`), the index
//! saved between bridge processes (`saved`, its bytes read by `raw_bytes`), the file watcher that says when the
//! folder changed (`watch`), and text search from the index while Obsidian is open (`search`).

pub(crate) mod raw_bytes;
pub(crate) mod refresh;
pub(crate) mod saved;
pub(crate) mod search;
pub(crate) mod watch;
pub(crate) mod words;

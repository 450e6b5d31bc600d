//! The plugin's twin: each file here redoes the file of the same name under `obsidian-plugin/src/` (`tools/` ↔
//! `tools/`, `resources/` ↔ `resources/`, `prompts/` ↔ `prompts/`, `vault/` ↔ `vault/`), so that a change to one has
//! an obvious place in the other and the parity tests compare the two through the bridge. `requests.rs` answers the
//! requests other than tool calls (the plugin's `server/mcp.ts` routes them).

pub(crate) mod prompts;
mod requests;
pub(crate) mod resources;
pub(crate) mod tools;
pub(crate) mod vault;

//! What Obsidian itself computes for a vault, done again from disk: the listing of files and folders, and the metadata
//! cache (links, tags, headings, sections, blocks, frontmatter) with its resolved and unresolved link maps. Obsidian's
//! own code is closed, so this follows the fake `obsidian` module the plugin is tested on
//! (`obsidian-plugin/test/fake-obsidian/*.cjs`) rule for rule, each file named after its original: `vault.rs` ↔
//! `vault.cjs` (the listing), `metadata.rs` ↔ `metadata.cjs` (the index; `note.rs` what it keeps of one note,
//! `lookup.rs` its lookups by path and name, `backlinks.rs` its reverse link index, `names.rs` what ranking reads of
//! every note), `markdown/` ↔ `markdown.cjs`; `properties.rs` (aliases and tags from
//! frontmatter) ↔ the plugin's own `src/vault/links.ts`.

mod backlinks;
pub(crate) mod lookup;
pub(crate) mod markdown;
pub(crate) mod metadata;
pub(crate) mod names;
pub(crate) mod note;
pub(crate) mod properties;
pub(crate) mod read;
pub(crate) mod vault;

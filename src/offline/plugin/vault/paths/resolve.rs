//! A tool's note and folder arguments resolved as the plugin resolves them (`vault/resolve.ts` `resolveNote`,
//! `resolveMarkdown`, `resolveFolder`, `newNotePath`): an exact path, the path plus `.md`, or a link name.

use crate::offline::js::js_trim;
use crate::offline::obsidian::markdown::NoteMetadata;
use crate::offline::obsidian::vault::FileEntry;
use crate::offline::plugin::tools::{Context, ToolError};
use crate::offline::plugin::vault::paths::{self, is_in_config_dir, quote};

/// `newNotePath`: a vault path for a note about to exist.
pub(crate) fn new_note_path(ctx: &Context<'_>, raw: &str, what: &str) -> Result<String, ToolError> {
    if js_trim(raw).ends_with('/') {
        return Err(ToolError(format!(
            "{what} {} ends with \"/\": give the note's file name",
            quote(raw)
        )));
    }
    let mut path = ctx.clean(js_trim(raw), what)?;
    if path.is_empty() {
        return Err(ToolError(format!("{what} is empty")));
    }
    if !path.to_lowercase().ends_with(".md") {
        path.push_str(".md");
    }
    if path.contains(['*', '"', '<', '>', ':', '|', '?']) {
        return Err(ToolError(format!(
            "{what} {}: Obsidian file and folder names cannot contain * \" < > : | ?",
            quote(raw)
        )));
    }
    let name = path.rsplit('/').next().unwrap_or(&path);
    if name.contains(['[', ']', '#', '^']) {
        return Err(ToolError(format!(
            "{what} {}: a note name cannot contain [ ] # ^ (links could not reach it)",
            quote(raw)
        )));
    }
    if is_in_config_dir(&path, ctx.config_dir) {
        return Err(ToolError(format!(
            "{what} {} is inside the config folder",
            quote(raw)
        )));
    }
    ctx.assert_inside(&path)?;
    Ok(path)
}
/// Extensions a note-reading tool accepts.
const TEXT_EXTENSIONS: [&str; 6] = ["md", "canvas", "base", "txt", "csv", "json"];

/// A resolved note argument: the file and the `#heading` / `#^block` part of the reference.
pub(crate) struct NoteRef<'a> {
    pub(crate) file: &'a FileEntry,
    pub(crate) subpath: String,
}

/// Strips `[[…]]`, a leading `!` and an `|alias`, leaving linktext such as `Note#Heading`.
fn linktext_of(raw: &str) -> &str {
    let mut text = js_trim(raw);
    text = text.strip_prefix('!').unwrap_or(text);
    if text.starts_with("[[") && text.ends_with("]]") && text.len() >= 4 {
        text = &text[2..text.len() - 2];
    }
    if let Some(bar) = text.find('|') {
        text = &text[..bar];
    }
    js_trim(text)
}

impl<'a> Context<'a> {
    pub(crate) fn clean(&self, raw: &str, what: &str) -> Result<String, ToolError> {
        paths::clean_vault_path(raw, self.config_dir, what)
    }

    fn inside(&self, path: &str) -> bool {
        paths::is_inside_vault_on_disk(self.root, self.real, path)
    }

    fn assert_inside(&self, path: &str) -> Result<(), ToolError> {
        if self.inside(path) {
            Ok(())
        } else {
            Err(outside_vault(path))
        }
    }

    /// `resolveNote`: an exact path, the path plus `.md`, or a link name resolved as Obsidian resolves links.
    pub(crate) fn resolve_note(
        &self,
        raw: &str,
        text_only: bool,
    ) -> Result<NoteRef<'a>, ToolError> {
        let snapshot = self.snapshot;
        let linktext = linktext_of(raw);
        if linktext.is_empty() {
            return Err(ToolError::new("path is empty"));
        }
        let mut subpath = String::new();
        let exact = self.clean(linktext, "path")?;
        let file = match snapshot.file(&exact) {
            Some(file) => file,
            None => {
                let (linkpath, sub) = match linktext.find('#') {
                    Some(hash) => (&linktext[..hash], js_trim(&linktext[hash + 1..])),
                    None => (linktext, ""),
                };
                subpath = sub.to_string();
                let path = self.clean(linkpath, "path")?;
                let with_extension = if path.to_lowercase().ends_with(".md") {
                    None
                } else {
                    snapshot.file(&format!("{path}.md"))
                };
                if let Some(direct) = snapshot.file(&path) {
                    direct
                } else if let Some(with_extension) = with_extension {
                    with_extension
                } else if snapshot.is_folder(&path) {
                    return Err(ToolError(format!(
                        "{} is a folder, not a note",
                        quote(&path)
                    )));
                } else {
                    let found = if path.is_empty() {
                        None
                    } else {
                        snapshot.first_linkpath_dest(&path, "")
                    };
                    match found {
                        Some(index) => &snapshot.files[index],
                        None => {
                            return Err(ToolError(format!(
                                "note not found: {} (no such path and no note with that link name)",
                                quote(raw)
                            )));
                        }
                    }
                }
            }
        };
        if paths::is_in_config_dir(&file.path, self.config_dir) {
            return Err(ToolError(format!(
                "{} is inside the config folder",
                quote(raw)
            )));
        }
        self.assert_inside(&file.path)?;
        if text_only && !TEXT_EXTENSIONS.contains(&file.extension().to_lowercase().as_str()) {
            return Err(ToolError(format!(
                "{} is not a text note (extension .{})",
                file.path,
                file.extension()
            )));
        }
        Ok(NoteRef { file, subpath })
    }

    /// `resolveMarkdown`: a note argument that must name a Markdown note.
    pub(crate) fn resolve_markdown(&self, raw: &str) -> Result<NoteRef<'a>, ToolError> {
        let note = self.resolve_note(raw, true)?;
        if note.file.extension().to_lowercase() != "md" {
            return Err(ToolError(format!(
                "{} is not a Markdown note",
                note.file.path
            )));
        }
        Ok(note)
    }

    /// `cleanFolderPath`: a folder argument; `""` and a lone `/` (Obsidian's name for the root) are the root.
    pub(crate) fn clean_folder(&self, raw: &str) -> Result<String, ToolError> {
        if js_trim(raw) == "/" {
            Ok(String::new())
        } else {
            self.clean(raw, "folder")
        }
    }

    /// `resolveFolder`: a folder argument (`""` or `/` is the root); returns its normalized path.
    pub(crate) fn resolve_folder(&self, raw: &str) -> Result<String, ToolError> {
        let path = self.clean_folder(raw)?;
        if !self.snapshot.is_folder(&path) {
            return Err(ToolError(format!("folder not found: {}", quote(raw))));
        }
        self.assert_inside(&path)?;
        Ok(path)
    }

    /// The current text of a file, read from disk (inside the vault only): the index keeps no note's text.
    pub(crate) fn text_of(&self, file: &FileEntry) -> Result<String, ToolError> {
        if !file.inside {
            return Err(outside_vault(&file.path));
        }
        paths::read_verified(&paths::full_path(self.root, &file.path), file.identity)
            .map(crate::offline::obsidian::read::text_of_bytes)
            .map_err(|refusal| refusal.into_tool_error(&file.path))
    }

    /// A note's current text and its whole metadata, read and parsed again: for the tools that show one note's
    /// positions, headings or blocks, which the index does not keep. `None` for a file the index has no note for
    /// (outside the vault, unreadable, too large), as the index's own answer would be.
    pub(crate) fn parsed(&self, file: &FileEntry) -> Option<(String, NoteMetadata)> {
        let text = self.note_text(file)?;
        let meta = crate::offline::obsidian::markdown::parse(&text);
        Some((text, meta))
    }

    /// A note's current text, for a file the index has a note for (as [`Self::parsed`], without the parse).
    pub(crate) fn note_text(&self, file: &FileEntry) -> Option<String> {
        self.snapshot.note(&file.path)?;
        self.text_of(file).ok()
    }

    /// The bytes of any file (inside the vault only), refused as `TooLarge` above `limit` before anything is read.
    pub(crate) fn bytes_of(&self, file: &FileEntry, limit: u64) -> Result<Vec<u8>, BytesRefusal> {
        if !file.inside {
            return Err(BytesRefusal::Refused(outside_vault(&file.path)));
        }
        if file.size > limit {
            return Err(BytesRefusal::TooLarge(file.size));
        }
        paths::read_verified(&paths::full_path(self.root, &file.path), file.identity)
            .map_err(|refusal| BytesRefusal::Refused(refusal.into_tool_error(&file.path)))
    }

    /// The index of a file by path.
    pub(crate) fn file(&self, path: &str) -> Option<&'a FileEntry> {
        self.snapshot.file(path)
    }
}

/// Why `bytes_of` read nothing.
pub(crate) enum BytesRefusal {
    /// The file is this many bytes, over the caller's limit.
    TooLarge(u64),
    Refused(ToolError),
}

/// The refusal of a file whose real location is outside the vault (`outsideVault` in `vault/disk.ts`).
pub(crate) fn outside_vault(path: &str) -> ToolError {
    ToolError(format!(
        "{} resolves (through a symlink) to a location outside the vault or inside its config folder",
        quote(path)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linktext_strips_brackets_bang_and_alias() {
        assert_eq!(linktext_of(" ![[Note#H|shown]] "), "Note#H");
        assert_eq!(linktext_of("Folder/Note"), "Folder/Note");
    }
}

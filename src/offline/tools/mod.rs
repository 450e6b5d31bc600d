//! The read tools, answered from the index with the plugin's argument schemas, result shapes, limits and messages
//! (`obsidian-plugin/src/tools/**`). Each tool returns its result text exactly as the plugin would; marking the
//! result as served from disk happens once, in `super::OfflineVault::call_tool`.

mod args;
mod links;
mod read;
mod search;
mod workspace;

use std::path::Path;

use serde_json::{Map, Value};

use super::paths::{self, ToolError, quote};
use super::vault::{FileEntry, Snapshot};

pub(crate) use args::Args;
pub(crate) use search::{first_line, translate_javascript_regex};

/// What a tool run may use.
pub(crate) struct Context<'a> {
    pub(crate) snapshot: &'a Snapshot,
    pub(crate) root: &'a Path,
    pub(crate) real: &'a paths::RealVault,
    pub(crate) config_dir: &'a str,
    pub(crate) read_only: bool,
}

/// What a tool produced: compact JSON, or a note read (`[lines a-b of N]` header and text).
pub(crate) enum Output {
    Json(Value),
    Read { header: String, body: String },
}

impl Output {
    /// The text the plugin would send.
    pub(crate) fn text(&self) -> String {
        match self {
            Output::Json(value) => serde_json::to_string(value).unwrap_or_default(),
            Output::Read { header, body } => format!("{header}\n{body}"),
        }
    }
}

/// How a tool is served offline.
pub(crate) enum Served {
    /// Answered from disk.
    Disk,
    /// Needs the running app: answered with an error saying so.
    NeedsObsidian,
}

/// Every tool of the catalog and how offline mode serves it; tools not listed are not served offline.
pub(crate) fn served(name: &str) -> Option<Served> {
    Some(match name {
        "vault_info" | "list_files" | "read_note" | "search" | "note_metadata" | "outline"
        | "backlinks" | "outgoing_links" | "unresolved_links" | "orphans" | "tags"
        | "files_by_tag" | "daily_note" | "recent_files" | "batch" => Served::Disk,
        "active_note" | "create_note" | "create_daily_note" | "str_replace" | "patch_section"
        | "append" | "insert_at_line" | "set_property" | "delete_property" | "move_note"
        | "delete_note" => Served::NeedsObsidian,
        _ => return None,
    })
}

/// Whether a tool's answer depends on the text, links or tags of notes other than one it was given, so that notes
/// too large to read from disk leave it incomplete.
pub(crate) fn reads_every_note(name: &str) -> bool {
    matches!(
        name,
        "search"
            | "backlinks"
            | "outgoing_links"
            | "unresolved_links"
            | "orphans"
            | "tags"
            | "files_by_tag"
            | "note_metadata"
            | "outline"
            | "batch"
    )
}

/// The message of a tool that cannot run while Obsidian is closed.
pub(crate) fn needs_obsidian(name: &str) -> String {
    let why = if name == "active_note" {
        "it reports what is open in Obsidian's editor"
    } else {
        "writes go through Obsidian so that its index and link updates stay right"
    };
    format!(
        "{name} needs Obsidian to be open: the vault is being served from disk because the obsmcp plugin is not \
         reachable, and {why}. Open the vault in Obsidian and retry; read tools keep working meanwhile."
    )
}

/// Runs one disk-served tool.
pub(crate) fn run(ctx: &Context<'_>, name: &str, arguments: Value) -> Result<Output, ToolError> {
    let args = Args::new(name, arguments)?;
    match name {
        "vault_info" => read::vault_info(ctx),
        "list_files" => read::list_files(ctx, &args),
        "read_note" => read::read_note(ctx, &args),
        "note_metadata" => read::note_metadata(ctx, &args),
        "outline" => read::outline(ctx, &args),
        "search" => search::search(ctx, &args),
        "backlinks" => links::backlinks(ctx, &args),
        "outgoing_links" => links::outgoing_links(ctx, &args),
        "unresolved_links" => links::unresolved_links(ctx, &args),
        "orphans" => links::orphans(ctx, &args),
        "tags" => links::tags(ctx, &args),
        "files_by_tag" => links::files_by_tag(ctx, &args),
        "recent_files" => workspace::recent_files(ctx, &args),
        "daily_note" => workspace::daily_note(ctx, &args),
        "batch" => workspace::batch(ctx, &args),
        other => Err(ToolError(needs_obsidian(other))),
    }
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
    let mut text = super::text::js_trim(raw);
    text = text.strip_prefix('!').unwrap_or(text);
    if text.starts_with("[[") && text.ends_with("]]") && text.len() >= 4 {
        text = &text[2..text.len() - 2];
    }
    if let Some(bar) = text.find('|') {
        text = &text[..bar];
    }
    super::text::js_trim(text)
}

impl<'a> Context<'a> {
    fn clean(&self, raw: &str, what: &str) -> Result<String, ToolError> {
        paths::clean_vault_path(raw, self.config_dir, what)
    }

    fn inside(&self, path: &str) -> bool {
        paths::is_inside_vault_on_disk(self.root, self.real, path)
    }

    fn assert_inside(&self, path: &str) -> Result<(), ToolError> {
        if self.inside(path) {
            Ok(())
        } else {
            Err(ToolError(format!(
                "{} resolves (through a symlink) to a location outside the vault or inside its config folder",
                quote(path)
            )))
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
                    Some(hash) => (
                        &linktext[..hash],
                        super::text::js_trim(&linktext[hash + 1..]),
                    ),
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
        if text_only && !TEXT_EXTENSIONS.contains(&file.extension.to_lowercase().as_str()) {
            return Err(ToolError(format!(
                "{} is not a text note (extension .{})",
                file.path, file.extension
            )));
        }
        Ok(NoteRef { file, subpath })
    }

    /// `resolveMarkdown`: a note argument that must name a Markdown note.
    pub(crate) fn resolve_markdown(&self, raw: &str) -> Result<NoteRef<'a>, ToolError> {
        let note = self.resolve_note(raw, true)?;
        if note.file.extension.to_lowercase() != "md" {
            return Err(ToolError(format!(
                "{} is not a Markdown note",
                note.file.path
            )));
        }
        Ok(note)
    }

    /// `cleanFolderPath`: a folder argument; `""` and a lone `/` (Obsidian's name for the root) are the root.
    pub(crate) fn clean_folder(&self, raw: &str) -> Result<String, ToolError> {
        if super::text::js_trim(raw) == "/" {
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

    /// The current text of a file: the index's copy for notes, else read from disk (inside the vault only).
    pub(crate) fn text_of(&self, file: &FileEntry) -> Result<String, ToolError> {
        if let Some(note) = self.snapshot.note(&file.path) {
            return Ok(note.text.clone());
        }
        if !file.inside {
            return Err(ToolError(format!(
                "{} resolves (through a symlink) to a location outside the vault or inside its config folder",
                quote(&file.path)
            )));
        }
        paths::read_verified(&paths::full_path(self.root, &file.path), file.identity)
            .map(super::vault::text_of_bytes)
            .map_err(|refusal| refusal.into_tool_error(&file.path))
    }

    /// The index of a file by path.
    pub(crate) fn file(&self, path: &str) -> Option<&'a FileEntry> {
        self.snapshot.file(path)
    }
}

/// `isoTime`: milliseconds since the epoch as `toISOString` writes them.
pub(crate) fn iso_time(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rest = ms.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    let (hour, minute, second, millis) = (
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000,
    );
    if (0..=9999).contains(&year) {
        format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{millis:03}Z")
    } else {
        let sign = if year < 0 { '-' } else { '+' };
        format!(
            "{sign}{:06}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{millis:03}Z",
            year.abs()
        )
    }
}

/// Year, month, day of a count of days since 1970-01-01 (proleptic Gregorian).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `{total, <key>: page, truncated, next_cursor}` for an offset-paginated list.
pub(crate) fn paged(offset: usize, shown: usize, total: usize) -> (bool, Value) {
    let next = offset + shown;
    let truncated = next < total;
    (
        truncated,
        if truncated {
            Value::String(next.to_string())
        } else {
            Value::Null
        },
    )
}

/// A tool of the plugin's catalog (embedded in the binary, parsed once), for the schema order and defaults of its
/// arguments.
pub(crate) fn tool_schema(name: &str) -> Option<&'static Value> {
    static TOOLS: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    TOOLS
        .get_or_init(|| {
            serde_json::from_str::<Value>(include_str!("../../../obsidian-plugin/catalog.json"))
                .ok()
                .and_then(|catalog| catalog.get("tools")?.as_array().cloned())
                .unwrap_or_default()
        })
        .iter()
        .find(|tool| tool.get("name").and_then(Value::as_str) == Some(name))
}

/// `pageHead`: the keys a paged result starts with (whether it was limited, the next page's cursor and, when
/// limited, the exact call that gets that page), followed by `rest`'s keys.
pub(crate) fn paged_result(args: &Args<'_>, next_cursor: Value, rest: Value) -> Value {
    let mut head = Map::new();
    head.insert("truncated".into(), Value::Bool(!next_cursor.is_null()));
    if !next_cursor.is_null() {
        head.insert("next_cursor".into(), next_cursor.clone());
        head.insert(
            "continue_with".into(),
            args.next_call(vec![("cursor", next_cursor)], &[]),
        );
    } else {
        head.insert("next_cursor".into(), Value::Null);
    }
    led_by(head, rest)
}

/// An object with `head`'s keys first, then `rest`'s.
pub(crate) fn led_by(mut head: Map<String, Value>, rest: Value) -> Value {
    if let Value::Object(rest) = rest {
        head.extend(rest);
    }
    Value::Object(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_times_match_javascript() {
        assert_eq!(iso_time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_time(1_773_446_400_123), "2026-03-14T00:00:00.123Z");
        assert_eq!(iso_time(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso_time(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn linktext_strips_brackets_bang_and_alias() {
        assert_eq!(linktext_of(" ![[Note#H|shown]] "), "Note#H");
        assert_eq!(linktext_of("Folder/Note"), "Folder/Note");
    }

    #[test]
    fn every_catalog_tool_has_an_offline_answer() {
        let catalog: Value =
            serde_json::from_str(include_str!("../../../obsidian-plugin/catalog.json")).unwrap();
        let tools = catalog["tools"]
            .as_array()
            .or_else(|| catalog.as_array())
            .expect("catalog lists tools");
        assert!(tools.len() >= 20, "catalog has {} tools", tools.len());
        for tool in tools {
            let name = tool["name"].as_str().unwrap();
            let read_only = tool["annotations"]["readOnlyHint"] == Value::Bool(true);
            match served(name) {
                Some(Served::Disk) => {}
                Some(Served::NeedsObsidian) => assert!(
                    !read_only || name == "active_note",
                    "{name} is a read tool but is not served from disk"
                ),
                None => panic!("{name} is in the catalog but offline mode does not know it"),
            }
        }
    }
}

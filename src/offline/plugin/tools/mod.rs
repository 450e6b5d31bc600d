//! The read tools, answered from the index with the plugin's argument schemas, result shapes, limits and messages
//! (`obsidian-plugin/src/tools/**`). Each tool returns its result text exactly as the plugin would; marking the
//! result as served from disk happens once, in `crate::offline::OfflineVault::call_tool`.

mod args;
mod attachments;
mod bases;
mod batch;
mod bookmarks;
mod canvas;
mod common;
mod links;
mod properties;
mod read;
mod search;
mod tags;
mod tasks;
mod templates;
mod types;
mod workspace;

use serde_json::Value;

pub(crate) use crate::offline::plugin::vault::errors::ToolError;
pub(crate) use args::Args;
pub(crate) use common::{
    hidden_path, iso_time, led_by, page_of, page_of_window, paged, paged_result, render_read,
};
pub(crate) use search::ranked_by_words;
pub(crate) use types::{Context, MeaningSearch, Output};

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
        "vault_info" | "list_files" | "read_note" | "read_attachment" | "search"
        | "note_metadata" | "outline" | "backlinks" | "outgoing_links" | "unresolved_links"
        | "orphans" | "tags" | "files_by_tag" | "tasks" | "properties" | "daily_note"
        | "recent_files" | "bookmarks" | "templates" | "canvas" | "bases" | "batch" => Served::Disk,
        "active_note"
        | "create_note"
        | "create_daily_note"
        | "str_replace"
        | "patch_section"
        | "append"
        | "insert_at_line"
        | "set_property"
        | "delete_property"
        | "set_task"
        | "edit_canvas"
        | "move_note"
        | "delete_note"
        | "open_note"
        | "create_from_template" => Served::NeedsObsidian,
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
            | "tasks"
            | "properties"
            | "note_metadata"
            | "outline"
            | "batch"
    )
}

/// The message of a tool that cannot run while Obsidian is closed.
pub(crate) fn needs_obsidian(name: &str) -> String {
    let why = if name == "active_note" {
        "it reports what is open in Obsidian's editor"
    } else if name == "open_note" {
        "it shows the note in Obsidian's window"
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
    // A search in a mode the plugin does not have (by meaning), inside a batch as well as alone.
    if name == "search"
        && let Some(meaning) = ctx.meaning
        && meaning.answers(&arguments)
    {
        return meaning.search(arguments);
    }
    let args = Args::new(name, arguments)?;
    match name {
        "vault_info" => read::vault_info(ctx),
        "list_files" => read::list_files(ctx, &args),
        "read_note" => read::read_note(ctx, &args),
        "read_attachment" => attachments::read_attachment(ctx, &args),
        "note_metadata" => read::note_metadata(ctx, &args),
        "outline" => read::outline(ctx, &args),
        "search" => search::search(ctx, &args),
        "backlinks" => links::backlinks(ctx, &args),
        "outgoing_links" => links::outgoing_links(ctx, &args),
        "unresolved_links" => links::unresolved_links(ctx, &args),
        "orphans" => links::orphans(ctx, &args),
        "tags" => tags::tags(ctx, &args),
        "files_by_tag" => tags::files_by_tag(ctx, &args),
        "tasks" => tasks::tasks(ctx, &args),
        "properties" => properties::properties(ctx, &args),
        "recent_files" => workspace::recent_files(ctx, &args),
        "bookmarks" => bookmarks::bookmarks(ctx, &args),
        "templates" => templates::templates(ctx, &args),
        "canvas" => canvas::canvas(ctx, &args),
        "bases" => bases::bases(ctx, &args),
        "daily_note" => workspace::daily_note(ctx, &args),
        "batch" => batch::batch(ctx, &args),
        other => Err(ToolError(needs_obsidian(other))),
    }
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
        assert_eq!(iso_time(253_402_300_800_000), "+010000-01-01T00:00:00.000Z");
        assert_eq!(iso_time(-62_167_219_200_000), "0000-01-01T00:00:00.000Z");
        assert_eq!(iso_time(-62_198_755_200_000), "-000001-01-01T00:00:00.000Z");
        assert_eq!(
            iso_time(8_640_000_000_000_000),
            "+275760-09-13T00:00:00.000Z"
        );
    }

    #[test]
    fn every_catalog_tool_has_an_offline_answer() {
        let tools = crate::assets::catalog_tools();
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

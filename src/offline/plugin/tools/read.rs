//! `vault_info`, `list_files`, `read_note`, `note_metadata` and `outline` (plugin: `src/tools/read.ts`).

use serde_json::{Map, Value, json};

use crate::offline::obsidian::metadata::Entry;
use crate::offline::obsidian::properties::frontmatter_aliases;
use crate::offline::plugin::tools::{
    Args, Context, Output, ToolError, iso_time, paged, paged_result, render_read,
};
use crate::offline::plugin::vault::daily::daily_note_settings;
use crate::offline::plugin::vault::hash::content_hash;
use crate::offline::plugin::vault::limits::{count_within_budget, offset_from_cursor};
use crate::offline::plugin::vault::lines::split_lines;
use crate::offline::plugin::vault::links::resolve_link;
use crate::offline::plugin::vault::paths::is_in_config_dir;
use crate::offline::plugin::vault::sections::{
    find_block, find_heading, find_headings, heading_section_end,
};

pub(super) fn vault_info(ctx: &Context<'_>) -> Result<Output, ToolError> {
    let snapshot = ctx.snapshot;
    let outside_config = |path: &str| !is_in_config_dir(path, ctx.config_dir);
    // `path.resolve(vault).basename`: the folder's own name, even when the vault was given as "." or a relative path.
    let absolute = std::path::absolute(ctx.root).unwrap_or_else(|_| ctx.real.root().to_path_buf());
    let name = absolute
        .file_name()
        .or_else(|| ctx.real.root().file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Output::Json(json!({
        "name": name,
        "notes": snapshot.markdown_files().filter(|f| outside_config(&f.path)).count(),
        "files": snapshot.files.iter().filter(|f| outside_config(&f.path)).count(),
        "folders": snapshot.folders.iter().filter(|f| outside_config(f)).count(),
        "config_dir": ctx.config_dir,
        "read_only": ctx.read_only,
        "daily_notes": daily_note_settings(ctx).to_json(),
    })))
}

pub(super) fn list_files(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let folder_arg = args.string("folder", "", 0, usize::MAX)?;
    let extension = args.opt_string("extension", 0, 20)?;
    let recursive = args.boolean("recursive", true)?;
    let include_folders = args.boolean("include_folders", false)?;
    let limit = args.limit(200)?;
    let cursor = args.cursor()?;
    let max_chars = args.max_chars()?;

    let folder = ctx.resolve_folder(&folder_arg)?;
    let extension = extension.map(|e| e.strip_prefix('.').unwrap_or(&e).to_lowercase());
    let folder_prefix = format!("{folder}/");
    let under = |path: &str| -> bool {
        let parent = crate::offline::obsidian::metadata::parent_path(path);
        let parent = if parent == "/" { "" } else { parent };
        if recursive {
            folder.is_empty() || path.starts_with(&folder_prefix)
        } else {
            parent == folder
        }
    };
    // The snapshot keeps every entry in path order. One pass counts the matches and turns only the requested window
    // into JSON: collecting every match first held 2.4 MB at 100,000 notes, on every call, just to page it.
    let snapshot = ctx.snapshot;
    let offset = offset_from_cursor(cursor.as_deref())?;
    let mut total = 0;
    let mut window: Vec<Value> = Vec::with_capacity(limit.min(1024));
    for entry in snapshot.sorted_entries() {
        let (path, file) = match entry {
            Entry::Folder(_) if !include_folders => continue,
            Entry::Folder(_) => (snapshot.entry_path(entry), None),
            Entry::File(index) => {
                let file = &snapshot.files[index];
                let wanted = extension.as_ref().is_none_or(|wanted| {
                    let own = file.extension();
                    // `wanted` is lower-cased already: an ASCII extension compares without a lower-cased copy.
                    if own.is_ascii() {
                        own.eq_ignore_ascii_case(wanted)
                    } else {
                        own.to_lowercase() == *wanted
                    }
                });
                if !wanted {
                    continue;
                }
                (file.path.as_str(), Some(file))
            }
        };
        if !under(path) || is_in_config_dir(path, ctx.config_dir) {
            continue;
        }
        if total >= offset && total - offset < limit {
            window.push(match file {
                Some(file) => json!({"path": path, "type": "file", "size": file.size, "mtime": iso_time(file.mtime)}),
                None => json!({"path": path, "type": "folder"}),
            });
        }
        total += 1;
    }
    let count = count_within_budget(&window, max_chars.saturating_sub(200));
    let page: Vec<Value> = window.into_iter().take(count).collect();
    let (_, next_cursor) = paged(offset, page.len(), total);
    Ok(Output::Json(paged_result(
        args,
        json!(next_cursor),
        json!({
        "folder": folder,
        "total": total,
        "entries": page,
        }),
    )))
}

pub(super) fn read_note(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let path = args.required_string("path", 1, usize::MAX)?;
    let mut heading = args.opt_string("heading", 0, usize::MAX)?;
    let mut block = args.opt_string("block", 0, usize::MAX)?;
    let start_line = args.opt_int("start_line", 1, i64::MAX)?;
    let end_line = args.opt_int("end_line", 1, i64::MAX)?;
    let max_chars = args.max_chars()?;

    let note = ctx.resolve_note(&path, true)?;
    let text = ctx.text_of(note.file)?;
    let lines = split_lines(&text);
    if heading.is_none() && block.is_none() && !note.subpath.is_empty() {
        if note.subpath.starts_with('^') {
            block = Some(note.subpath.clone());
        } else {
            heading = Some(note.subpath.clone());
        }
    }
    let (mut start, mut end) = match (&heading, &block) {
        (Some(_), Some(_)) => return Err(ToolError::new("pass heading or block, not both")),
        (Some(wanted), None) => {
            let headings = find_headings(&lines);
            let index = find_heading(&lines, &headings, wanted)?;
            (
                headings[index].line,
                heading_section_end(&headings, index, lines.len()),
            )
        }
        (None, Some(id)) => {
            let range = find_block(&lines, id)?;
            (range.start, range.end)
        }
        (None, None) => (0, lines.len()),
    };
    if start_line.is_some() || end_line.is_some() {
        if heading.is_some() || block.is_some() {
            return Err(ToolError::new(
                "pass either heading/block or start_line/end_line, not both",
            ));
        }
        let first = start_line.unwrap_or(1);
        start = (first - 1) as usize;
        end = (end_line.map_or(lines.len(), |e| e as usize)).min(lines.len());
        if start >= lines.len() && !lines.is_empty() {
            return Err(ToolError(format!(
                "start_line {first} is past the end: {} has {} lines",
                note.file.path,
                lines.len()
            )));
        }
        if end <= start && !lines.is_empty() {
            return Err(ToolError::new("end_line must not be before start_line"));
        }
    }
    Ok(render_read(
        &note.file.path,
        &text,
        start,
        end,
        max_chars,
        None,
    ))
}

/// Caps a list, remembering its name when it was cut.
fn capped(items: Vec<Value>, limit: usize, name: &str, cut: &mut Vec<String>) -> Vec<Value> {
    if items.len() > limit {
        cut.push(name.to_string());
    }
    items.into_iter().take(limit).collect()
}

pub(super) fn note_metadata(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let path = args.required_string("path", 1, usize::MAX)?;
    let limit = args.limit(200)?;
    let note = ctx.resolve_markdown(&path)?;
    let file = note.file;
    let entry = ctx.snapshot.note(&file.path);
    let parsed = ctx.parsed(file);
    let text = match &parsed {
        Some((text, _)) => text.clone(),
        None => ctx.text_of(file)?,
    };
    let meta = parsed.as_ref().map(|(_, meta)| meta);
    let mut cut = Vec::new();
    let reference = |link: &crate::offline::obsidian::markdown::LinkRef| json!({"link": link.link, "line": link.position.start.line + 1, "resolved": resolve_link(ctx, &link.link, &file.path)});
    let links: Vec<Value> = meta
        .map(|m| m.links.iter().map(reference).collect())
        .unwrap_or_default();
    let embeds: Vec<Value> = meta
        .map(|m| m.embeds.iter().map(reference).collect())
        .unwrap_or_default();
    let headings: Vec<Value> = meta
        .map(|m| {
            m.headings
                .iter()
                .map(|h| json!({"level": h.level, "heading": h.heading, "line": h.position.start.line + 1}))
                .collect()
        })
        .unwrap_or_default();
    let blocks: Vec<Value> = meta
        .map(|m| {
            m.blocks
                .iter()
                .map(|(_, b)| json!({"id": b.id, "line": b.position.start.line + 1}))
                .collect()
        })
        .unwrap_or_default();
    let tags: Vec<Value> = entry
        .map(|n| n.tags().into_iter().map(|tag| json!(tag)).collect())
        .unwrap_or_default();
    let frontmatter = entry.and_then(|n| n.frontmatter());
    let mut out = Map::new();
    // Filled in once the lists are capped: first, so that a client cutting the end still shows that lists were cut.
    out.insert("truncated".into(), Value::Bool(false));
    out.insert("truncated_lists".into(), json!([]));
    out.insert("path".into(), json!(file.path));
    out.insert("size".into(), json!(file.size));
    out.insert("ctime".into(), json!(iso_time(file.ctime)));
    out.insert("mtime".into(), json!(iso_time(file.mtime)));
    out.insert("lines".into(), json!(split_lines(&text).len()));
    out.insert("sha256".into(), json!(content_hash(&text)));
    out.insert(
        "frontmatter".into(),
        frontmatter.clone().map_or(Value::Null, Value::Object),
    );
    out.insert(
        "tags".into(),
        Value::Array(capped(tags, limit, "tags", &mut cut)),
    );
    out.insert(
        "aliases".into(),
        json!(frontmatter_aliases(frontmatter.as_ref())),
    );
    out.insert(
        "headings".into(),
        Value::Array(capped(headings, limit, "headings", &mut cut)),
    );
    out.insert(
        "links".into(),
        Value::Array(capped(links, limit, "links", &mut cut)),
    );
    out.insert(
        "embeds".into(),
        Value::Array(capped(embeds, limit, "embeds", &mut cut)),
    );
    out.insert(
        "blocks".into(),
        Value::Array(capped(blocks, limit, "blocks", &mut cut)),
    );
    out.insert(
        "backlinks".into(),
        json!(ctx.snapshot.backlink_sources(&file.path).count()),
    );
    out.insert("truncated".into(), json!(!cut.is_empty()));
    out.insert("truncated_lists".into(), json!(cut));
    Ok(Output::Json(Value::Object(out)))
}

pub(super) fn outline(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let path = args.required_string("path", 1, usize::MAX)?;
    let limit = args.limit(300)?;
    let cursor = args.cursor()?;
    let note = ctx.resolve_markdown(&path)?;
    let headings: Vec<Value> = match ctx.parsed(note.file) {
        Some((_, meta)) => meta
            .headings
            .iter()
            .map(|h| json!({"level": h.level, "heading": h.heading, "line": h.position.start.line + 1}))
            .collect(),
        None => {
            let text = ctx.text_of(note.file)?;
            find_headings(&split_lines(&text))
                .into_iter()
                .map(|h| json!({"level": h.level, "heading": h.text, "line": h.line + 1}))
                .collect()
        }
    };
    let total = headings.len();
    let offset = offset_from_cursor(cursor.as_deref())?;
    let page: Vec<Value> = headings.into_iter().skip(offset).take(limit).collect();
    let (_, next_cursor) = paged(offset, page.len(), total);
    Ok(Output::Json(paged_result(
        args,
        json!(next_cursor),
        json!({
        "path": note.file.path,
        "headings": page,
        "total": total,
        }),
    )))
}

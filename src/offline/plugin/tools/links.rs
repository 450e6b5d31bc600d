//! Link tools: `backlinks`, `outgoing_links`, `unresolved_links`, `orphans` (plugin: `src/tools/links.ts`; the helpers
//! they share are in `../links.rs`, as `src/vault/links.ts`).

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value, json};

use crate::offline::js::js_cmp;
use crate::offline::obsidian::markdown::NoteMetadata;
use crate::offline::plugin::tools::{Args, Context, Output, ToolError, paged, paged_result};
use crate::offline::plugin::vault::limits::{
    SNIPPET_CHARS, count_within_budget, offset_from_cursor, snippet,
};
use crate::offline::plugin::vault::lines::split_lines;
use crate::offline::plugin::vault::links::resolve_link;
use crate::offline::plugin::vault::paths::is_in_config_dir;

/// Every link-like reference of a note: (link, embed, 0-based line or None in frontmatter).
fn references(meta: &NoteMetadata) -> Vec<(&str, bool, Option<usize>)> {
    let mut refs = Vec::new();
    refs.extend(
        meta.links
            .iter()
            .map(|l| (l.link.as_str(), false, Some(l.position.start.line))),
    );
    refs.extend(
        meta.embeds
            .iter()
            .map(|l| (l.link.as_str(), true, Some(l.position.start.line))),
    );
    refs.extend(
        meta.frontmatter_links
            .iter()
            .map(|l| (l.link.as_str(), false, None)),
    );
    refs
}

pub(super) fn backlinks(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let path = args.required_string("path", 1, usize::MAX)?;
    let snippets = args.boolean("snippets", true)?;
    let max_lines = args.int("max_lines_per_note", 3, 1, 20)? as usize;
    let limit = args.limit(50)?;
    let cursor = args.cursor()?;
    let max_chars = args.max_chars()?;
    let note = ctx.resolve_markdown(&path)?;
    let target = &note.file.path;
    let sources: Vec<(&str, usize)> = ctx.snapshot.backlink_sources(target).collect();
    let offset = offset_from_cursor(cursor.as_deref())?;
    let entries: Vec<Value> = sources
        .iter()
        .skip(offset)
        .take(limit)
        .map(|(source, count)| {
            let mut entry = Map::new();
            entry.insert("path".into(), json!(source));
            entry.insert("count".into(), json!(count));
            if snippets
                && let Some(file) = ctx.snapshot.file(source)
                && let Some((source_text, source_meta)) = ctx.parsed(file)
            {
                let lines: BTreeSet<usize> = references(&source_meta)
                    .into_iter()
                    .filter_map(|(link, _, line)| {
                        let line = line?;
                        (resolve_link(ctx, link, source).as_deref() == Some(target.as_str())).then_some(line)
                    })
                    .collect();
                let text_lines = split_lines(&source_text);
                let quoted: Vec<Value> = lines
                    .into_iter()
                    .take(max_lines)
                    .filter(|line| *line < text_lines.len())
                    .map(|line| json!({"line": line + 1, "text": snippet(text_lines[line], SNIPPET_CHARS)}))
                    .collect();
                entry.insert("lines".into(), Value::Array(quoted));
            }
            Value::Object(entry)
        })
        .collect();
    let count = count_within_budget(&entries, max_chars.saturating_sub(300));
    let page: Vec<Value> = entries.into_iter().take(count).collect();
    let (_, next_cursor) = paged(offset, page.len(), sources.len());
    Ok(Output::Json(paged_result(
        args,
        json!(next_cursor),
        json!({
        "path": target,
        "total": sources.len(),
        "backlinks": page,
        }),
    )))
}

pub(super) fn outgoing_links(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let path = args.required_string("path", 1, usize::MAX)?;
    let unresolved_only = args.boolean("unresolved_only", false)?;
    let limit = args.limit(200)?;
    let cursor = args.cursor()?;
    let note = ctx.resolve_markdown(&path)?;
    let source = &note.file.path;
    let links: Vec<Value> = ctx
        .parsed(note.file)
        .map(|(_, meta)| {
            references(&meta)
                .into_iter()
                .map(|(link, embed, line)| {
                    json!({"link": link, "line": line.map(|l| l + 1), "embed": embed, "resolved": resolve_link(ctx, link, source)})
                })
                .filter(|link| !unresolved_only || link["resolved"].is_null())
                .collect()
        })
        .unwrap_or_default();
    let unresolved = links
        .iter()
        .filter(|link| link["resolved"].is_null())
        .count();
    let offset = offset_from_cursor(cursor.as_deref())?;
    let page: Vec<&Value> = links.iter().skip(offset).take(limit).collect();
    let (_, next_cursor) = paged(offset, page.len(), links.len());
    Ok(Output::Json(paged_result(
        args,
        json!(next_cursor),
        json!({
        "path": source,
        "total": links.len(),
        "unresolved": unresolved,
        "links": page,
        }),
    )))
}

pub(super) fn unresolved_links(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let max_sources = args.int("max_sources", 5, 1, 50)? as usize;
    let limit = args.limit(100)?;
    let cursor = args.cursor()?;
    let mut by_target: HashMap<String, (usize, Vec<String>)> = HashMap::new();
    for &index in &ctx.snapshot.sorted_notes {
        let source = &ctx.snapshot.files[index].path;
        if is_in_config_dir(source, ctx.config_dir) {
            continue;
        }
        let Some(links) = ctx.snapshot.links_of(source) else {
            continue;
        };
        for (target, count) in links.unresolved() {
            let entry = by_target.entry(target.to_string()).or_default();
            entry.0 += count;
            entry.1.push(source.clone());
        }
    }
    let mut all: Vec<(String, usize, Vec<String>)> = by_target
        .into_iter()
        .map(|(link, (count, sources))| (link, count, sources))
        .collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| js_cmp(&a.0, &b.0)));
    let offset = offset_from_cursor(cursor.as_deref())?;
    let page: Vec<Value> = all
        .iter()
        .skip(offset)
        .take(limit)
        .map(|(link, count, sources)| {
            json!({"link": link, "count": count, "notes": sources.len(), "sources": sources.iter().take(max_sources).collect::<Vec<_>>()})
        })
        .collect();
    let (_, next_cursor) = paged(offset, page.len(), all.len());
    Ok(Output::Json(paged_result(
        args,
        next_cursor,
        json!({"total": all.len(), "unresolved": page}),
    )))
}

pub(super) fn orphans(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let folder = args.string("folder", "", 0, usize::MAX)?;
    let limit = args.limit(200)?;
    let cursor = args.cursor()?;
    // By file index.
    let files = &ctx.snapshot.files;
    let mut linked = vec![false; files.len()];
    let mut outgoing = vec![false; files.len()];
    for (source, links) in ctx.snapshot.all_links() {
        for &(target, _) in &links.resolved {
            if target as usize != source {
                linked[target as usize] = true;
            }
        }
        outgoing[source] = !links.resolved.is_empty() || !links.unresolved.is_empty();
    }
    let prefix = ctx.clean_folder(&folder)?;
    let folder_prefix = format!("{prefix}/");
    let all: Vec<usize> = ctx
        .snapshot
        .sorted_notes
        .iter()
        .copied()
        .filter(|&index| {
            let path = &files[index].path;
            !linked[index]
                && !is_in_config_dir(path, ctx.config_dir)
                && (prefix.is_empty() || path.starts_with(&folder_prefix))
        })
        .collect();
    let offset = offset_from_cursor(cursor.as_deref())?;
    let page: Vec<Value> = all
        .iter()
        .skip(offset)
        .take(limit)
        .map(|&index| json!({"path": files[index].path, "has_outgoing": outgoing[index]}))
        .collect();
    let (_, next_cursor) = paged(offset, page.len(), all.len());
    Ok(Output::Json(paged_result(
        args,
        next_cursor,
        json!({"total": all.len(), "orphans": page}),
    )))
}

//! Link and tag tools: `backlinks`, `outgoing_links`, `unresolved_links`, `orphans`, `tags`, `files_by_tag`
//! (plugin: `src/tools/links.ts`, `src/tools/tags.ts`, helpers in `src/vault/links.ts`).

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::super::markdown::NoteMetadata;
use super::super::paths::{ToolError, is_in_config_dir, quote};
use super::super::text::{
    SNIPPET_CHARS, count_within_budget, is_js_space, js_trim, snippet, split_lines,
};
use super::super::vault::js_cmp;
use super::args::offset_from_cursor;
use super::read::resolve_link;
use super::{Args, Context, Output, paged, paged_result};

/// `tagMatches`: `tag` is `wanted` or nested under it, case-insensitively.
fn tag_matches(tag: &str, wanted: &str) -> bool {
    let a = tag.to_lowercase();
    let b = wanted.to_lowercase();
    let a = a.strip_prefix('#').unwrap_or(&a);
    let b = b.strip_prefix('#').unwrap_or(&b);
    a == b || a.starts_with(&format!("{b}/"))
}

/// `backlinkSources`: notes other than the target that link to it, with counts, sorted by path.
pub(crate) fn backlink_sources(ctx: &Context<'_>, target: &str) -> Vec<(String, usize)> {
    ctx.snapshot.backlink_sources(target).to_vec()
}

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
    let sources = backlink_sources(ctx, target);
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
                && let Some(source_note) = ctx.snapshot.note(source)
            {
                let lines: BTreeSet<usize> = references(&source_note.meta)
                    .into_iter()
                    .filter_map(|(link, _, line)| {
                        let line = line?;
                        (resolve_link(ctx, link, source).as_deref() == Some(target.as_str())).then_some(line)
                    })
                    .collect();
                let text_lines = split_lines(&source_note.text);
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
        .snapshot
        .note(source)
        .map(|entry| {
            references(&entry.meta)
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
    let sources: Vec<String> = ctx
        .snapshot
        .sorted_notes
        .iter()
        .map(|&index| ctx.snapshot.files[index].path.clone())
        .filter(|path| ctx.snapshot.links.contains_key(path))
        .collect();
    let mut by_target: HashMap<String, (usize, Vec<String>)> = HashMap::new();
    for source in &sources {
        if is_in_config_dir(source, ctx.config_dir) {
            continue;
        }
        for (target, count) in &ctx.snapshot.links[source].unresolved {
            let entry = by_target.entry(target.clone()).or_default();
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
    let mut linked: HashSet<&str> = HashSet::new();
    let mut outgoing: HashSet<&str> = HashSet::new();
    for (source, links) in &ctx.snapshot.links {
        for (target, _) in &links.resolved {
            if target != source {
                linked.insert(target);
            }
            outgoing.insert(source);
        }
        if !links.unresolved.is_empty() {
            outgoing.insert(source);
        }
    }
    let prefix = ctx.clean_folder(&folder)?;
    let folder_prefix = format!("{prefix}/");
    let all: Vec<String> = ctx
        .snapshot
        .sorted_notes
        .iter()
        .map(|&index| &ctx.snapshot.files[index])
        .filter(|note| {
            !linked.contains(note.path.as_str()) && !is_in_config_dir(&note.path, ctx.config_dir)
        })
        .filter(|note| prefix.is_empty() || note.path.starts_with(&folder_prefix))
        .map(|note| note.path.clone())
        .collect();
    let offset = offset_from_cursor(cursor.as_deref())?;
    let page: Vec<Value> = all
        .iter()
        .skip(offset)
        .take(limit)
        .map(|path| json!({"path": path, "has_outgoing": outgoing.contains(path.as_str())}))
        .collect();
    let (_, next_cursor) = paged(offset, page.len(), all.len());
    Ok(Output::Json(paged_result(
        args,
        next_cursor,
        json!({"total": all.len(), "orphans": page}),
    )))
}

/// Every Markdown note outside the config folder with its tags, in path order.
fn tagged_notes(ctx: &Context<'_>) -> Vec<(String, Vec<String>)> {
    ctx.snapshot
        .sorted_notes
        .iter()
        .map(|&index| &ctx.snapshot.files[index])
        .filter(|file| !is_in_config_dir(&file.path, ctx.config_dir))
        .map(|file| {
            (
                file.path.clone(),
                ctx.snapshot
                    .note(&file.path)
                    .map(|n| n.tags.clone())
                    .unwrap_or_default(),
            )
        })
        .collect()
}

pub(super) fn tags(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let prefix = args.opt_string("prefix", 0, 200)?;
    let sort = args.choice("sort", &["count", "name"], "count")?;
    let limit = args.limit(200)?;
    let cursor = args.cursor()?;
    let mut order: Vec<String> = Vec::new();
    let mut counts: HashMap<String, (String, usize)> = HashMap::new();
    for (_, tags) in tagged_notes(ctx) {
        for tag in tags {
            let key = tag.to_lowercase();
            let entry = counts.entry(key.clone()).or_insert_with(|| {
                order.push(key);
                (tag.clone(), 0)
            });
            entry.1 += 1;
        }
    }
    let mut all: Vec<(String, usize)> = order
        .into_iter()
        .map(|key| counts.remove(&key).expect("every key was counted"))
        .filter(|(tag, _)| {
            prefix
                .as_ref()
                .is_none_or(|prefix| tag_matches(tag, prefix))
        })
        .collect();
    let by_name =
        |a: &(String, usize), b: &(String, usize)| js_cmp(&a.0.to_lowercase(), &b.0.to_lowercase());
    if sort == "name" {
        all.sort_by(by_name);
    } else {
        all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| by_name(a, b)));
    }
    let offset = offset_from_cursor(cursor.as_deref())?;
    let page: Vec<Value> = all
        .iter()
        .skip(offset)
        .take(limit)
        .map(|(tag, count)| json!({"tag": tag, "count": count}))
        .collect();
    let (_, next_cursor) = paged(offset, page.len(), all.len());
    Ok(Output::Json(paged_result(
        args,
        next_cursor,
        json!({"total": all.len(), "tags": page}),
    )))
}

pub(super) fn files_by_tag(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let raw = args.required_string("tag", 1, 200)?;
    let limit = args.limit(200)?;
    let cursor = args.cursor()?;
    let max_chars = args.max_chars()?;
    let wanted = js_trim(&raw).trim_start_matches('#').to_string();
    if wanted.is_empty() || wanted.contains(is_js_space) {
        return Err(ToolError(format!("tag {} is not a valid tag", quote(&raw))));
    }
    let all: Vec<Value> = tagged_notes(ctx)
        .into_iter()
        .map(|(path, tags)| {
            (
                path,
                tags.into_iter()
                    .filter(|tag| tag_matches(tag, &wanted))
                    .collect::<Vec<_>>(),
            )
        })
        .filter(|(_, tags)| !tags.is_empty())
        .map(|(path, tags)| json!({"path": path, "tags": tags}))
        .collect();
    let offset = offset_from_cursor(cursor.as_deref())?;
    let window: Vec<Value> = all.iter().skip(offset).take(limit).cloned().collect();
    let count = count_within_budget(&window, max_chars.saturating_sub(200));
    let page: Vec<Value> = window.into_iter().take(count).collect();
    let (_, next_cursor) = paged(offset, page.len(), all.len());
    Ok(Output::Json(paged_result(
        args,
        json!(next_cursor),
        json!({
        "tag": format!("#{wanted}"),
        "total": all.len(),
        "notes": page,
        }),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_tags_match_their_parents_only() {
        assert!(tag_matches("#Project/Alpha", "project"));
        assert!(tag_matches("#project", "#PROJECT"));
        assert!(!tag_matches("#projects", "project"));
        assert!(!tag_matches("#project", ""));
    }
}

//! `tags` and `files_by_tag` (`tools/tags.ts`).

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::offline::js::js_cmp;
use crate::offline::js::{is_js_space, js_trim};
use crate::offline::plugin::tools::{
    Args, Context, Output, ToolError, page_of, paged, paged_result,
};
use crate::offline::plugin::vault::limits::offset_from_cursor;
use crate::offline::plugin::vault::links::tag_matches;
use crate::offline::plugin::vault::paths::{is_in_config_dir, quote};

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
                    .map(|n| n.tags().into_iter().map(String::from).collect())
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
    let total = all.len();
    let (page, next_cursor) = page_of(all, offset, limit, max_chars, 200);
    Ok(Output::Json(paged_result(
        args,
        json!(next_cursor),
        json!({
        "tag": format!("#{wanted}"),
        "total": total,
        "notes": page,
        }),
    )))
}

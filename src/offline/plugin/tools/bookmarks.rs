//! `bookmarks` (`tools/bookmarks.ts`): the core Bookmarks plugin's `<configDir>/bookmarks.json`, flattened in pane
//! order with each item's group path.

use serde_json::{Map, Value, json};

use crate::offline::plugin::tools::{
    Args, Context, Output, ToolError, hidden_path, page_of, paged_result,
};
use crate::offline::plugin::vault::hidden::HiddenRules;
use crate::offline::plugin::vault::limits::offset_from_cursor;
use crate::offline::plugin::vault::paths::is_in_config_dir;

/// The saved items, or `None` when there is no bookmarks.json; one that cannot be read is an error.
fn saved_items(ctx: &Context<'_>) -> Result<Option<Vec<Value>>, ToolError> {
    let text = match std::fs::read_to_string(ctx.root.join(ctx.config_dir).join("bookmarks.json")) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            let code = match error.kind() {
                std::io::ErrorKind::PermissionDenied => "EACCES",
                std::io::ErrorKind::IsADirectory => "EISDIR",
                _ => "error",
            };
            return Err(ToolError(format!(
                "{}/bookmarks.json cannot be read ({code}), so the bookmarks cannot be listed",
                ctx.config_dir
            )));
        }
    };
    let saved: Value = serde_json::from_str(&text).map_err(|_| {
        ToolError(format!(
            "{}/bookmarks.json is not valid JSON, so the bookmarks cannot be read; Obsidian rewrites it when a bookmark changes",
            ctx.config_dir
        ))
    })?;
    Ok(Some(
        saved
            .get("items")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
    ))
}

/// Whether a bookmarked path is one the plugin would not show: inside the config folder, or hidden.
fn unseen(ctx: &Context<'_>, hidden: &HiddenRules, path: &str) -> bool {
    is_in_config_dir(path, ctx.config_dir) || hidden_path(ctx, hidden, path)
}

/// `flatten`: a group's items in order, each group followed by what it holds.
fn flatten(
    ctx: &Context<'_>,
    hidden: &HiddenRules,
    items: &[Value],
    group: &str,
    out: &mut Vec<Value>,
) {
    for item in items {
        let Some(saved) = item.as_object() else {
            continue;
        };
        let text = |key: &str| saved.get(key).and_then(Value::as_str);
        let kind = text("type").unwrap_or("unknown");
        let mut row = Map::new();
        row.insert("type".into(), json!(kind));
        row.insert("group".into(), json!(group));
        if let Some(title) = text("title").filter(|title| !title.is_empty()) {
            row.insert("title".into(), json!(title));
        }
        if let Some(path) = text("path") {
            let target = path.trim_start_matches('/');
            if unseen(ctx, hidden, target) {
                continue;
            }
            row.insert("path".into(), json!(target));
            let exists = ctx.snapshot.file(target).is_some() || ctx.snapshot.is_folder(target);
            if !exists && !target.is_empty() {
                row.insert("missing".into(), json!(true));
            }
        }
        if let Some(subpath) = text("subpath").filter(|subpath| !subpath.is_empty()) {
            row.insert("subpath".into(), json!(subpath));
        }
        for key in ["query", "url"] {
            if let Some(value) = text(key) {
                row.insert(key.into(), json!(value));
            }
        }
        let name = text("title")
            .filter(|title| !title.is_empty())
            .unwrap_or("")
            .to_string();
        out.push(Value::Object(row));
        if kind == "group"
            && let Some(inner) = saved.get("items").and_then(Value::as_array)
        {
            let path = if group.is_empty() {
                name
            } else {
                format!("{group}/{name}")
            };
            flatten(ctx, hidden, inner, &path, out);
        }
    }
}

pub(super) fn bookmarks(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let limit = args.limit(200)?;
    let cursor = args.cursor()?;
    let max_chars = args.max_chars()?;
    let items = saved_items(ctx)?;
    let mut all = Vec::new();
    if let Some(items) = &items {
        // Rules that cannot be applied have already made offline mode refuse every tool.
        let hidden = HiddenRules::load(ctx.root, ctx.config_dir).unwrap_or_default();
        flatten(ctx, &hidden, items, "", &mut all);
    }
    let offset = offset_from_cursor(cursor.as_deref())?;
    let total = all.len();
    let (page, next_cursor) = page_of(all, offset, limit, max_chars, 300);
    let mut body = Map::new();
    if items.is_none() {
        body.insert(
            "note".into(),
            json!("no bookmarks.json: the vault has no bookmarks (or the Bookmarks core plugin was never used)"),
        );
    }
    body.insert("total".into(), json!(total));
    body.insert("bookmarks".into(), json!(page));
    Ok(Output::Json(paged_result(
        args,
        next_cursor,
        Value::Object(body),
    )))
}

//! `templates` (`tools/templates.ts`): the core Templates plugin's settings and the templates in its folder.
//! `create_from_template` needs Obsidian.

use serde_json::{Map, Value, json};

use crate::offline::js::js_trim;
use crate::offline::plugin::tools::{Args, Context, Output, ToolError, page_of, paged_result};
use crate::offline::plugin::vault::daily::read_config_json;
use crate::offline::plugin::vault::limits::offset_from_cursor;

/// `templateSettings`: enabled in `core-plugins.json` (a list or a map), `templates.json`'s folder and formats.
fn template_settings(ctx: &Context<'_>) -> Value {
    let enabled = match read_config_json(ctx, "core-plugins.json") {
        Value::Array(ids) => ids.iter().any(|id| id == "templates"),
        Value::Object(map) => map.get("templates") == Some(&Value::Bool(true)),
        _ => false,
    };
    let saved = read_config_json(ctx, "templates.json");
    let text = |key: &str| {
        saved
            .get(key)
            .and_then(Value::as_str)
            .map(js_trim)
            .unwrap_or("")
            .to_string()
    };
    let or = |value: String, default: &str| {
        if value.is_empty() {
            default.to_string()
        } else {
            value
        }
    };
    json!({
        "enabled": enabled,
        "folder": text("folder").trim_matches('/'),
        "date_format": or(text("dateFormat"), "YYYY-MM-DD"),
        "time_format": or(text("timeFormat"), "HH:mm"),
    })
}

pub(super) fn templates(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let limit = args.limit(200)?;
    let cursor = args.cursor()?;
    let max_chars = args.max_chars()?;
    let settings = template_settings(ctx);
    let folder = settings["folder"].as_str().unwrap_or("").to_string();
    let folder = if folder.is_empty() {
        folder
    } else {
        ctx.clean_folder(&folder)?
    };
    let mut all = Vec::new();
    if !folder.is_empty() {
        let prefix = format!("{folder}/");
        for &index in &ctx.snapshot.sorted_notes {
            let file = &ctx.snapshot.files[index];
            if !file.path.starts_with(&prefix)
                || crate::offline::plugin::vault::paths::is_in_config_dir(
                    &file.path,
                    ctx.config_dir,
                )
            {
                continue;
            }
            let mut entry = Map::new();
            entry.insert("path".into(), json!(file.path));
            entry.insert("name".into(), json!(file.title()));
            // A template whose real file is outside the vault is listed but never read.
            if ctx.note_text(file).is_some_and(|text| text.contains("<%")) {
                entry.insert("templater".into(), json!(true));
            }
            all.push(Value::Object(entry));
        }
    }
    let offset = offset_from_cursor(cursor.as_deref())?;
    let total = all.len();
    let (page, next_cursor) = page_of(all, offset, limit, max_chars, 400);
    let mut body = Map::new();
    body.insert("settings".into(), settings);
    if folder.is_empty() {
        body.insert(
            "note".into(),
            json!("no templates folder is set in the Templates plugin's settings"),
        );
    }
    body.insert("total".into(), json!(total));
    body.insert("templates".into(), json!(page));
    Ok(Output::Json(paged_result(
        args,
        next_cursor,
        Value::Object(body),
    )))
}

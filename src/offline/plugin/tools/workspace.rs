//! `recent_files` and `daily_note` (read only) (plugin: `src/tools/workspace.ts`). "Recently opened" comes from
//! `workspace.json`, where Obsidian saves its last open files; the daily-note rules are in `../daily.rs`.

use serde_json::{Value, json};

use crate::offline::js::js_cmp;
use crate::offline::plugin::tools::{Args, Context, Output, ToolError, iso_time, render_read};
use crate::offline::plugin::vault::daily::{
    PERIODS, format_day, parse_daily_date, period_start, periodic_settings,
};
use crate::offline::plugin::vault::lines::split_lines;
use crate::offline::plugin::vault::paths::{is_in_config_dir, new_note_path, quote};

pub(super) fn recent_files(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let source = args.choice("source", &["modified", "opened"], "modified")?;
    let limit = args.limit(20)?;
    if source == "opened" {
        let files: Vec<Value> = last_open_files(ctx)
            .iter()
            .filter_map(|path| ctx.file(path))
            .filter(|file| !is_in_config_dir(&file.path, ctx.config_dir))
            .take(limit)
            .map(|file| json!({"path": file.path, "mtime": iso_time(file.mtime)}))
            .collect();
        return Ok(Output::Json(json!({"source": "opened", "files": files})));
    }
    let mut notes: Vec<&crate::offline::obsidian::vault::FileEntry> = ctx
        .snapshot
        .markdown_files()
        .filter(|file| !is_in_config_dir(&file.path, ctx.config_dir))
        .collect();
    notes.sort_by(|a, b| b.mtime.cmp(&a.mtime).then_with(|| js_cmp(&a.path, &b.path)));
    let files: Vec<Value> = notes
        .iter()
        .take(limit)
        .map(|file| json!({"path": file.path, "mtime": iso_time(file.mtime)}))
        .collect();
    Ok(Output::Json(json!({
        "truncated": notes.len() > limit,
        "source": "modified",
        "files": files,
        "total": notes.len(),
    })))
}

/// Obsidian's recently opened files, as it saves them in `<config>/workspace.json`.
fn last_open_files(ctx: &Context<'_>) -> Vec<String> {
    let text = std::fs::read_to_string(ctx.root.join(ctx.config_dir).join("workspace.json"))
        .unwrap_or_default();
    let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    value["lastOpenFiles"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn daily_note(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let date = args.string("date", "today", 0, 40)?;
    let period = args.choice("period", &PERIODS, "day")?;
    let max_chars = args.max_chars()?;
    let (settings, noun) = periodic_settings(ctx, &period);
    let day = period_start(parse_daily_date(&date)?, &period);
    let name = format_day(day, &settings.format);
    let raw = if settings.folder.is_empty() {
        format!("{name}.md")
    } else {
        format!("{}/{name}.md", settings.folder)
    };
    let path = new_note_path(ctx, &raw, &format!("{noun} note path"))?;
    if ctx.snapshot.is_folder(&path) {
        return Err(ToolError(format!("{path} is a folder, not a {noun} note")));
    }
    let Some(file) = ctx.file(&path) else {
        let what = if period == "day" {
            format_day(day, "YYYY-MM-DD")
        } else {
            format!("the {period} starting {}", format_day(day, "YYYY-MM-DD"))
        };
        return Err(ToolError(format!(
            "no {noun} note for {what} (it would be {}); create_daily_note creates it",
            quote(&path)
        )));
    };
    let text = ctx.text_of(file)?;
    let lines = split_lines(&text).len();
    Ok(render_read(&file.path, &text, 0, lines, max_chars, None))
}

//! `tasks` (`tools/tasks.ts`): the index's task items, with the line's text, heading, tags and dates. `set_task`
//! needs Obsidian.

use serde_json::{Map, Value, json};

use crate::offline::js::{is_js_space, js_cmp, js_trim};
use crate::offline::obsidian::properties::frontmatter_tags;
use crate::offline::plugin::tools::args::invalid;
use crate::offline::plugin::tools::{
    Args, Context, Output, ToolError, page_of_window, paged_result,
};
use crate::offline::plugin::vault::daily::read_config_json;
use crate::offline::plugin::vault::limits::offset_from_cursor;
use crate::offline::plugin::vault::links::tag_matches;
use crate::offline::plugin::vault::paths::quote;
use crate::offline::plugin::vault::tasks::{
    DATE_FIELDS, Task, TaskStatus, kind_of_symbol, statuses_from_settings,
};

/// `vaultStatuses`: the Tasks plugin's data.json when present and JSON, else the defaults.
fn vault_statuses(ctx: &Context<'_>) -> Vec<TaskStatus> {
    statuses_from_settings(&read_config_json(
        ctx,
        "plugins/obsidian-tasks-plugin/data.json",
    ))
}

/// A task row, its keys in the plugin's order (optional ones only when present).
fn row_of(path: &str, task: &Task, statuses: &[TaskStatus]) -> Value {
    let mut row = Map::new();
    row.insert("path".into(), json!(path));
    row.insert("line".into(), json!(task.line + 1));
    row.insert("status".into(), json!(task.status));
    row.insert("type".into(), json!(kind_of_symbol(statuses, &task.status)));
    row.insert("text".into(), json!(task.text));
    if let Some(heading) = &task.heading {
        row.insert("heading".into(), json!(heading));
    }
    for (field, date) in DATE_FIELDS.iter().zip(&task.dates) {
        if let Some(date) = date {
            row.insert((*field).into(), json!(date));
        }
    }
    if !task.tags.is_empty() {
        row.insert("tags".into(), json!(task.tags));
    }
    Value::Object(row)
}

/// `statusFilter`: which tasks the `status` argument keeps.
enum StatusFilter<'a> {
    All,
    Open,
    Kind(&'a str),
    Symbol(&'a str),
}

impl<'a> StatusFilter<'a> {
    fn new(wanted: &'a str) -> Result<Self, ToolError> {
        Ok(match wanted {
            "all" => Self::All,
            "open" => Self::Open,
            "done" | "cancelled" => Self::Kind(wanted),
            _ if wanted.chars().count() == 1 => Self::Symbol(wanted),
            _ => {
                return Err(ToolError(format!(
                    "status {} is not \"open\", \"done\", \"cancelled\", \"all\" or one checkbox character",
                    quote(wanted)
                )));
            }
        })
    }

    fn passes(&self, task: &Task, statuses: &[TaskStatus]) -> bool {
        let kind = || kind_of_symbol(statuses, &task.status);
        match self {
            Self::All => true,
            Self::Open => matches!(kind(), "todo" | "in_progress"),
            Self::Kind(wanted) => kind() == *wanted,
            Self::Symbol(wanted) => &*task.status == *wanted,
        }
    }
}

/// A `from` / `to` argument: YYYY-MM-DD (zod's regex check, with its message).
fn date_arg(args: &Args<'_>, key: &str) -> Result<Option<String>, ToolError> {
    let value = args.opt_string(key, 0, usize::MAX)?;
    if let Some(date) = &value {
        let bytes = date.as_bytes();
        let shaped = bytes.len() == 10
            && bytes.iter().enumerate().all(|(i, byte)| {
                if i == 4 || i == 7 {
                    *byte == b'-'
                } else {
                    byte.is_ascii_digit()
                }
            });
        if !shaped {
            return Err(invalid(
                "tasks",
                key,
                &format!("{key} must be a date as YYYY-MM-DD"),
            ));
        }
    }
    Ok(value)
}

pub(super) fn tasks(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let status = args.string("status", "open", 1, 20)?;
    let path_prefix = args.string("path_prefix", "", 0, usize::MAX)?;
    let tag = args.opt_string("tag", 0, 200)?;
    let field = args.choice("date", &DATE_FIELDS, "due")?;
    let from = date_arg(args, "from")?;
    let to = date_arg(args, "to")?;
    let sort = args.choice("sort", &["path", "date"], "path")?;
    let limit = args.limit(100)?;
    let cursor = args.cursor()?;
    let max_chars = args.max_chars()?;

    let filter = StatusFilter::new(&status)?;
    let prefix = if path_prefix.is_empty() {
        String::new()
    } else {
        ctx.clean(&path_prefix, "path_prefix")? + if path_prefix.ends_with('/') { "/" } else { "" }
    };
    let wanted_tag = tag
        .as_ref()
        .map(|raw| js_trim(raw).trim_start_matches('#').to_string());
    if let (Some(raw), Some(wanted)) = (&tag, &wanted_tag)
        && (wanted.is_empty() || wanted.contains(is_js_space))
    {
        return Err(ToolError(format!("tag {} is not a valid tag", quote(raw))));
    }
    if let (Some(from), Some(to)) = (&from, &to)
        && from > to
    {
        return Err(ToolError(format!("from {from} is after to {to}")));
    }
    let field_at = DATE_FIELDS
        .iter()
        .position(|known| *known == field.as_str())
        .unwrap_or(0);
    let date_of = |task: &Task| task.dates[field_at].clone();
    let in_range = |task: &Task| {
        if from.is_none() && to.is_none() {
            return true;
        }
        date_of(task).is_some_and(|date| {
            from.as_deref().is_none_or(|from| &*date >= from)
                && to.as_deref().is_none_or(|to| &*date <= to)
        })
    };
    let statuses = vault_statuses(ctx);
    let mut all: Vec<(&str, Task)> = Vec::new();
    // A note whose real file is outside the vault has no text here, so no tasks (the plugin does not read it).
    for (file, note) in ctx.snapshot.notes_under(&prefix, ctx.config_dir) {
        let tasks = note.tasks();
        if tasks.is_empty() {
            continue;
        }
        let note_tagged = wanted_tag.as_ref().is_some_and(|wanted| {
            frontmatter_tags(note.frontmatter().as_ref())
                .iter()
                .any(|tag| tag_matches(tag, wanted))
        });
        for task in tasks {
            if !filter.passes(&task, &statuses) || !in_range(&task) {
                continue;
            }
            if let Some(wanted) = &wanted_tag
                && !note_tagged
                && !task.tags.iter().any(|tag| tag_matches(tag, wanted))
            {
                continue;
            }
            all.push((&file.path, task));
        }
    }
    if sort == "date" {
        // Stable, as the plugin's sort: the same date (or none) keeps path and line order.
        all.sort_by(|a, b| match (date_of(&a.1), date_of(&b.1)) {
            (Some(x), Some(y)) => js_cmp(&x, &y),
            (None, None) => std::cmp::Ordering::Equal,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(_), None) => std::cmp::Ordering::Less,
        });
    }
    let offset = offset_from_cursor(cursor.as_deref())?;
    let total = all.len();
    let window: Vec<Value> = all
        .iter()
        .skip(offset)
        .take(limit)
        .map(|(path, task)| row_of(path, task, &statuses))
        .collect();
    let (page, next_cursor) = page_of_window(window, total, offset, max_chars, 200);
    Ok(Output::Json(paged_result(
        args,
        next_cursor,
        json!({"total": total, "tasks": page}),
    )))
}

//! `bases` (`tools/bases.ts`): the vault's `.base` files and their views, or one view's rows over the index.

use serde_json::{Map, Value, json};

use crate::offline::js::{js_cmp, js_trim};
use crate::offline::obsidian::markdown::parse_yaml;
use crate::offline::obsidian::metadata::parent_path;
use crate::offline::plugin::tools::{Args, Context, Output, ToolError, page_of, paged_result};
use crate::offline::plugin::vault::bases::{BaseFile, FileFacts, base_of, run_view};
use crate::offline::plugin::vault::limits::offset_from_cursor;
use crate::offline::plugin::vault::paths::is_in_config_dir;

fn read_base(
    ctx: &Context<'_>,
    file: &crate::offline::obsidian::vault::FileEntry,
) -> Result<BaseFile, ToolError> {
    let text = ctx.text_of(file)?;
    let yaml = if js_trim(&text).is_empty() {
        Value::Null
    } else {
        parse_yaml(&text).ok_or_else(|| {
            ToolError(format!(
                "{} is not valid YAML, so not a base; open it in Obsidian to see what is wrong",
                file.path
            ))
        })?
    };
    base_of(&file.path, &yaml)
}

/// `vaultFacts`: every visible file outside the config folder, in path order.
fn vault_facts(ctx: &Context<'_>) -> Vec<FileFacts> {
    let mut files: Vec<&crate::offline::obsidian::vault::FileEntry> = ctx
        .snapshot
        .files
        .iter()
        .filter(|file| !is_in_config_dir(&file.path, ctx.config_dir))
        .collect();
    files.sort_by(|a, b| js_cmp(&a.path, &b.path));
    files
        .into_iter()
        .map(|file| {
            // A note whose real file is outside the vault has no properties, tags or links here.
            let note = if file.extension() == "md" {
                ctx.snapshot.note(&file.path)
            } else {
                None
            };
            let name = file.name().to_string();
            let basename = if file.extension().is_empty() {
                name.clone()
            } else {
                name[..name.len() - file.extension().len() - 1].to_string()
            };
            let links = match (note, ctx.snapshot.links_of(&file.path)) {
                (Some(_), Some(links)) => links
                    .resolved()
                    .chain(links.unresolved())
                    .map(|(target, _)| target.to_string())
                    .collect(),
                _ => Vec::new(),
            };
            FileFacts {
                path: file.path.clone(),
                basename,
                name,
                folder: parent_path(&file.path).to_string(),
                ext: file.extension().to_string(),
                size: file.size,
                ctime: file.ctime,
                mtime: file.mtime,
                tags: note
                    .map(|note| {
                        note.tags()
                            .iter()
                            .map(|tag| tag.trim_start_matches('#').to_string())
                            .collect()
                    })
                    .unwrap_or_default(),
                links,
                properties: note.and_then(|note| note.frontmatter()).unwrap_or_default(),
            }
        })
        .collect()
}

pub(super) fn bases(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let base = args.opt_string("base", 1, 1024)?;
    let view = args.opt_string("view", 0, 200)?;
    let limit = args.limit(100)?;
    let cursor = args.cursor()?;
    let max_chars = args.max_chars()?;
    let offset = offset_from_cursor(cursor.as_deref())?;
    let Some(base) = base else {
        if view.is_some() {
            return Err(ToolError::new(
                "view needs base: the base whose view to run",
            ));
        }
        let mut files: Vec<&crate::offline::obsidian::vault::FileEntry> = ctx
            .snapshot
            .files
            .iter()
            .filter(|file| {
                file.extension() == "base" && !is_in_config_dir(&file.path, ctx.config_dir)
            })
            .collect();
        files.sort_by(|a, b| js_cmp(&a.path, &b.path));
        let mut all = Vec::new();
        for file in files {
            if !file.inside {
                all.push(json!({"path": file.path, "error": "its real file is outside the vault, so it is not read"}));
                continue;
            }
            all.push(match read_base(ctx, file) {
                Ok(base) => json!({"path": file.path, "views": base.views.iter().map(|view| json!({"name": view.name, "type": view.kind})).collect::<Vec<_>>()}),
                Err(error) => json!({"path": file.path, "error": error.0}),
            });
        }
        let total = all.len();
        let (page, next) = page_of(all, offset, limit, max_chars, 200);
        return Ok(Output::Json(paged_result(
            args,
            next,
            json!({"total": total, "bases": page}),
        )));
    };
    let file = ctx.resolve_note(&base, true)?.file;
    if file.extension() != "base" {
        return Err(ToolError(format!(
            "{} is not a base (.base file)",
            file.path
        )));
    }
    let parsed = read_base(ctx, file)?;
    if parsed.views.is_empty() {
        return Err(ToolError(format!("{} has no views", file.path)));
    }
    let chosen = match &view {
        None => &parsed.views[0],
        Some(name) => parsed
            .views
            .iter()
            .find(|candidate| &candidate.name == name)
            .ok_or_else(|| {
                let names: Vec<String> = parsed
                    .views
                    .iter()
                    .map(|v| crate::offline::plugin::vault::paths::quote(&v.name))
                    .collect();
                ToolError(format!(
                    "{} has no view {}; its views: {}",
                    file.path,
                    crate::offline::plugin::vault::paths::quote(name),
                    names.join(", ")
                ))
            })?,
    };
    let now = jiff::Timestamp::now().as_millisecond() as f64;
    let result = run_view(&parsed, chosen, &vault_facts(ctx), now, &file.path)?;
    let total = result.rows.len();
    let reserve = 400 + Value::from(result.columns.clone()).to_string().len();
    let (page, next) = page_of(result.rows, offset, limit, max_chars, reserve);
    let mut body = Map::new();
    body.insert("path".into(), json!(file.path));
    body.insert("view".into(), json!(chosen.name));
    body.insert("type".into(), json!(chosen.kind));
    if !result.unshown.is_empty() {
        body.insert("not_shown".into(), json!(result.unshown));
    }
    body.insert("columns".into(), json!(result.columns));
    body.insert("total".into(), json!(total));
    body.insert("rows".into(), json!(page));
    Ok(Output::Json(paged_result(args, next, Value::Object(body))))
}

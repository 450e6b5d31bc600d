//! `bases` (`tools/bases.ts`): the vault's `.base` files and their views, or one view's rows over the index.

use std::borrow::Cow;
use std::cell::OnceCell;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::offline::js::{js_cmp, js_trim};
use crate::offline::obsidian::markdown::parse_yaml;
use crate::offline::obsidian::metadata::LinksOf;
use crate::offline::obsidian::metadata::parent_path;
use crate::offline::obsidian::note::Note;
use crate::offline::obsidian::vault::FileEntry;
use crate::offline::plugin::tools::{
    Args, Context, Output, ToolError, page_of, page_of_window, paged_result,
};
use crate::offline::plugin::vault::bases::{
    BaseFile, FileFacts, NoteFacts, Properties, base_of, run_view,
};
use crate::offline::plugin::vault::limits::offset_from_cursor;
use crate::offline::plugin::vault::paths::is_in_config_dir;

fn read_base(ctx: &Context<'_>, file: &FileEntry) -> Result<BaseFile, ToolError> {
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

/// A note's tags, links and properties, each read from the index the first time a view asks for it.
struct LazyNote<'c> {
    note: &'c Note,
    links: Option<LinksOf<'c>>,
    tags: OnceCell<Vec<&'c str>>,
    targets: OnceCell<Vec<&'c str>>,
    properties: OnceCell<Properties<'c>>,
}

impl NoteFacts for Option<LazyNote<'_>> {
    fn tags(&self) -> &[&str] {
        let Some(lazy) = self else { return &[] };
        lazy.tags.get_or_init(|| {
            let tags = lazy.note.tags();
            tags.into_iter()
                .map(|tag| tag.trim_start_matches('#'))
                .collect()
        })
    }

    fn links(&self) -> &[&str] {
        let Some(lazy) = self else { return &[] };
        lazy.targets.get_or_init(|| {
            lazy.links.as_ref().map_or_else(Vec::new, |links| {
                links
                    .resolved()
                    .chain(links.unresolved())
                    .map(|(target, _)| target)
                    .collect()
            })
        })
    }

    fn properties(&self) -> &[(Cow<'_, str>, &RawValue)] {
        let Some(lazy) = self else { return &[] };
        lazy.properties
            .get_or_init(|| lazy.note.frontmatter_entries().unwrap_or_default())
    }
}

/// `vaultFacts`: every visible file outside the config folder, in path order. Made one at a time as the view reads
/// them, borrowing from the index: at 100,000 notes, owned facts for every file at once made allocating and freeing
/// them half of a view's time.
fn vault_facts<'c>(
    ctx: &'c Context<'_>,
) -> impl Iterator<Item = FileFacts<'c, Option<LazyNote<'c>>>> + 'c {
    let mut files: Vec<(usize, &FileEntry)> = ctx
        .snapshot
        .files
        .iter()
        .enumerate()
        .filter(|(_, file)| !is_in_config_dir(&file.path, ctx.config_dir))
        .collect();
    files.sort_by(|(_, a), (_, b)| js_cmp(&a.path, &b.path));
    files.into_iter().map(|(index, file)| {
        // A note whose real file is outside the vault has no properties, tags or links here.
        let note = if file.extension() == "md" {
            ctx.snapshot.note_at(index)
        } else {
            None
        };
        let (name, ext) = (file.name(), file.extension());
        FileFacts {
            path: &file.path,
            basename: if ext.is_empty() {
                name
            } else {
                &name[..name.len() - ext.len() - 1]
            },
            name,
            folder: parent_path(&file.path),
            ext,
            size: file.size,
            ctime: file.ctime,
            mtime: file.mtime,
            note: note.map(|note| LazyNote {
                note,
                links: ctx.snapshot.links_at(index),
                tags: OnceCell::new(),
                targets: OnceCell::new(),
                properties: OnceCell::new(),
            }),
        }
    })
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
        let mut files: Vec<&FileEntry> = ctx
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
    let result = run_view(&parsed, chosen, vault_facts(ctx), now, &file.path)?;
    let total = result.rows.len();
    let reserve = 400 + Value::from(result.columns.clone()).to_string().len();
    let window = result
        .rows
        .iter()
        .skip(offset)
        .take(limit)
        .map(|row| row.to_json())
        .collect();
    let (page, next) = page_of_window(window, total, offset, max_chars, reserve);
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

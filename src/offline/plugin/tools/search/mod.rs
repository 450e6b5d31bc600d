//! `search` (plugin: `src/tools/search.ts`). Word mode, the default, reads the query in Obsidian's search syntax
//! (`query.rs`), tests it on each note (`note.rs`) and ranks with BM25 over terms (`rank.rs`); phrase mode and regexes
//! are the line search from before (`phrase.rs`). Rules: `obsidian-plugin/src/tools/README.md`, search.
//!
//! The index keeps no note's text: the word index (`crate::offline::index::words`, through `known.rs`) says which notes may
//! hold each word or phrase, so a note that cannot match is passed over without being read, and only notes that may
//! match are read from disk; ranking a query of plain words reads only the notes its page shows (`rank.rs`).

mod known;
mod note;
mod page;
mod phrase;
mod query;
mod rank;
#[cfg(test)]
mod tests;

use serde_json::{Map, Value, json};

use crate::offline::js::{js_cmp, js_number};
use crate::offline::obsidian::vault::FileEntry;
use crate::offline::plugin::tools::{Args, Context, Output, ToolError, paged_result};
use crate::offline::plugin::vault::limits::cut_chars;
use crate::offline::plugin::vault::lines::split_lines;
use crate::offline::plugin::vault::paths::quote;

use known::Known;
use note::NoteView;
use page::{Page, parse_cursor};
use query::Query;

/// What a word-mode search was asked.
struct Asked {
    query: String,
    case_sensitive: bool,
    prefix: String,
    rank: bool,
    any: bool,
    context_lines: usize,
    max_per_file: usize,
    limit: usize,
    resume: Option<(usize, String)>,
    max_chars: usize,
}

pub(super) fn search(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    // Read in the schema's order, so that the first bad argument is the one the plugin names.
    let query = args.required_string("query", 1, 1000)?;
    let mode = args.choice("mode", &["words", "phrase"], "words")?;
    let regex = args.boolean("regex", false)?;
    let case_sensitive = args.boolean("case_sensitive", false)?;
    let path_prefix = args.string("path_prefix", "", 0, usize::MAX)?;
    let rank = args.boolean("rank", false)?;
    let matching = args.choice("match", &["all", "any"], if rank { "any" } else { "all" })?;
    let context_lines = args.int("context_lines", 0, 0, 10)? as usize;
    let max_per_file = args.int("max_per_file", 10, 1, 100)? as usize;
    let limit = args.int("limit", 100, 1, 500)? as usize;
    let cursor = args.cursor()?;
    let max_chars = args.max_chars()?;
    if mode == "phrase" || regex {
        return phrase::search(ctx, args);
    }
    let prefix = if path_prefix.is_empty() {
        String::new()
    } else {
        ctx.clean(&path_prefix, "path_prefix")? + if path_prefix.ends_with('/') { "/" } else { "" }
    };
    let asked = Asked {
        case_sensitive,
        prefix,
        rank,
        any: matching == "any",
        context_lines,
        max_per_file,
        limit,
        resume: parse_cursor(cursor.as_deref())?,
        max_chars,
        query,
    };
    let parsed = query::parse(&asked.query, asked.case_sensitive)?;
    let (next, rest) = words_search(ctx, &asked, &parsed)?;
    Ok(Output::Json(paged_result(args, next, rest)))
}

/// The first `depth` notes `rank: true` would list for `query` (word mode, any word), best first with their BM25
/// scores, and how many match in all: the word half of hybrid search (`offline/semantic/answer.rs`).
pub(crate) fn ranked_by_words(
    ctx: &Context<'_>,
    query: &str,
    prefix: &str,
    depth: usize,
) -> Result<(Vec<(String, f64)>, usize), ToolError> {
    let parsed = query::parse(query, false)?;
    let notes = Scope::of(ctx, prefix);
    let known = Known::new(ctx, &parsed);
    let (mut ranked, _) = rank::rank_notes(ctx, true, &parsed, &notes, &known);
    let first = ranked
        .range(0, depth)
        .map(|(file, score)| (file.path.clone(), score))
        .collect();
    Ok((first, ranked.len()))
}

/// The notes a search looks at, in path order, by their index in the snapshot's files: for a search of the whole vault,
/// the snapshot's own list (a list of its own, with each note's file, was 1.6 MB of a ranked search's peak at 100,000
/// notes).
pub(super) struct Scope<'c> {
    files: &'c [FileEntry],
    indexes: std::borrow::Cow<'c, [usize]>,
}

impl<'c> Scope<'c> {
    /// The notes outside the config folder whose path starts with `prefix`.
    fn of(ctx: &'c Context<'_>, prefix: &str) -> Scope<'c> {
        let files = &ctx.snapshot.files[..];
        let outside = ctx.snapshot.notes_outside(ctx.config_dir);
        let indexes = if prefix.is_empty() {
            outside
        } else {
            outside
                .iter()
                .copied()
                .filter(|&index| files[index].path.starts_with(prefix))
                .collect::<Vec<usize>>()
                .into()
        };
        Scope { files, indexes }
    }

    pub(super) fn len(&self) -> usize {
        self.indexes.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.indexes.is_empty()
    }

    /// The notes' indexes, in path order.
    pub(super) fn indexes(&self) -> &[usize] {
        &self.indexes
    }

    /// The snapshot's files, which the indexes point into.
    pub(super) fn files(&self) -> &'c [FileEntry] {
        self.files
    }

    /// Each note's index and file, in path order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, &'c FileEntry)> + '_ {
        let files = self.files;
        self.indexes
            .iter()
            .map(move |&index| (index, &files[index]))
    }
}

/// The result's `next_cursor` and the rest of its fields.
fn words_search(
    ctx: &Context<'_>,
    asked: &Asked,
    parsed: &Query,
) -> Result<(Value, Value), ToolError> {
    let terms = note::terms(parsed);
    let written: Vec<&str> = terms
        .iter()
        .map(|&at| parsed.atoms[at].written.as_str())
        .collect();
    let mut head = json!({
        "query": cut_chars(&asked.query, 200),
        "mode": "words",
        "match": if asked.any { "any" } else { "all" },
    });
    if asked.rank {
        head["order"] = json!("relevance");
    }
    head["terms"] = json!(written);
    let head = head.as_object().cloned().unwrap_or_default();
    let notes = Scope::of(ctx, &asked.prefix);
    let known = Known::new(ctx, parsed);
    let mut page = Page::new(
        asked.max_per_file,
        asked.limit,
        asked.context_lines,
        asked.max_chars,
    );
    let skip_for = |path: &str| match &asked.resume {
        Some((line, resumed)) if resumed == path => Some(*line),
        _ => None,
    };
    // Adds a matching note to the page; true when the page is full.
    let add = |page: &mut Page,
               shown: &[usize],
               path: &str,
               text: &str,
               mut entry: Map<String, Value>| {
        let view = NoteView::new(path, text, ctx.snapshot.note(path).map(|note| &**note));
        entry.insert(
            "terms_matched".into(),
            json!(note::terms_matched(parsed, &terms, &view)),
        );
        let find = |line: &str| note::hit(parsed, shown, line);
        if view.lines().iter().any(|line| find(line).is_some()) {
            page.add_note(
                find,
                path,
                &split_lines(text),
                skip_for(path).unwrap_or(0),
                entry,
            )
        } else if skip_for(path).is_none() {
            page.add_bare(path, entry)
        } else {
            false
        }
    };

    if asked.rank {
        let (mut ranked, shown) = rank::rank_notes(ctx, asked.any, parsed, &notes, &known);
        let mut start = 0;
        if let Some((_, path)) = &asked.resume {
            start = ranked.position(path).ok_or_else(|| {
                ToolError(format!(
                    "the cursor's note {} no longer matches (it changed meanwhile): search again without cursor",
                    quote(path)
                ))
            })?;
        }
        // In steps, so that only the notes a page reads are put in order.
        let step = asked.limit + 16;
        'page: while start < ranked.len() {
            for (file, score) in ranked.range(start, start + step) {
                let Ok(text) = ctx.text_of(file) else {
                    continue;
                };
                let mut entry = page::entry(&file.path);
                entry.insert("score".into(), js_number(phrase::round_score(score)));
                if add(&mut page, &shown, &file.path, &text, entry) {
                    break 'page;
                }
            }
            start += step;
        }
        return Ok(page.finish(head, notes.len(), Some(ranked.len())));
    }

    let mut searched = 0;
    for (index, file) in notes.iter().filter(|(_, file)| {
        asked
            .resume
            .as_ref()
            .is_none_or(|(_, path)| js_cmp(&file.path, path).is_ge())
    }) {
        searched += 1;
        let Some(doc) = known.doc(ctx, index) else {
            continue;
        };
        let holds = |at: usize, content_only: bool| {
            known.holds(parsed, (index, file, doc), at, content_only)
        };
        if note::decide(parsed, asked.any, &holds) == Some(false) {
            continue;
        }
        let (Some(indexed), Ok(text)) = (ctx.snapshot.note_at(index), ctx.text_of(file)) else {
            continue;
        };
        if !note::qualifies(
            parsed,
            asked.any,
            &NoteView::new(&file.path, &text, Some(indexed)),
        ) {
            continue;
        }
        if add(
            &mut page,
            &terms,
            &file.path,
            &text,
            page::entry(&file.path),
        ) {
            break;
        }
    }
    Ok(page.finish(head, searched, None))
}

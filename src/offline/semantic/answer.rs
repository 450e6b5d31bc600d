//! `search` in modes `semantic` and `hybrid`, which the bridge answers from its own index whether Obsidian is open or
//! closed (the plugin has no such modes). Each result is a passage: the note, the section's heading and its lines
//! (for `read_note`'s `heading` or `start_line`/`end_line`), a short excerpt and scores.
//!
//! Hybrid fuses the two rankings by weighted reciprocal rank: each note scores 1 / (k + its rank) in the word ranking
//! (BM25, as `rank: true` gives) plus 0.7 / (k + its rank) in the meaning ranking (by its best passage), with k = 10.
//! Ranks, not scores, because BM25's scale depends on the query and cosine's on the model; a note found by one side
//! only still counts. The constants are measured (`benches/search-quality`): the textbook k = 60 with equal weights
//! lost to BM25 alone on the Cargo Book; weighting the weaker side less and the first ranks more beat BM25 on every
//! labelled set but the 16-note fixture (see `results.md`).

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::vectors::Hit;
use super::{Readiness, Semantic};
use crate::offline::js::js_number;
use crate::offline::plugin::tools::{self, Args, Context, Output, ToolError, paged_result};
use crate::offline::plugin::vault::limits::cut_chars;
use crate::offline::plugin::vault::lines::split_lines;
use crate::offline::plugin::vault::sections::find_headings;

/// The modes answered here.
pub(crate) const MODES: [&str; 2] = ["semantic", "hybrid"];
/// Reciprocal rank fusion's constant: how much a first rank outweighs a tenth (measured; Cormack et al. use 60).
const FUSION_K: f64 = 10.0;
/// The meaning ranking's weight against the word ranking's 1 (measured).
const MEANING_WEIGHT: f64 = 0.7;
/// How many notes each side ranks for the fusion.
const FUSION_DEPTH: usize = 200;
/// The excerpt's length, in characters.
const EXCERPT_CHARS: usize = 240;

/// Whether a `search` call asks for a mode answered here.
pub(crate) fn asks_for_meaning(arguments: &Value) -> bool {
    arguments
        .get("mode")
        .and_then(Value::as_str)
        .is_some_and(|mode| MODES.contains(&mode))
}

/// Whether a `batch` call holds a `search` in a mode answered here.
pub(crate) fn batch_asks_for_meaning(arguments: &Value) -> bool {
    arguments
        .get("calls")
        .and_then(Value::as_array)
        .is_some_and(|calls| {
            calls.iter().any(|call| {
                call.get("tool").and_then(Value::as_str) == Some("search")
                    && call.get("arguments").is_some_and(asks_for_meaning)
            })
        })
}

/// What a call asked.
struct Asked {
    query: String,
    hybrid: bool,
    prefix: String,
    limit: usize,
    per_note: usize,
    offset: usize,
    max_chars: usize,
    fallback: bool,
}

fn asked(ctx: &Context<'_>, args: &Args<'_>) -> Result<Asked, ToolError> {
    let query = args.required_string("query", 1, 1000)?;
    let mode = args.choice("mode", &["words", "phrase", MODES[0], MODES[1]], "words")?;
    let path_prefix = args.string("path_prefix", "", 0, usize::MAX)?;
    let per_note = args.int("max_per_file", 1, 1, 100)? as usize;
    let limit = args.int("limit", 10, 1, 500)? as usize;
    let offset = match args.cursor()? {
        None => 0,
        Some(cursor) => cursor
            .strip_prefix("m:")
            .and_then(|offset| offset.parse().ok())
            .ok_or_else(|| {
                ToolError(format!(
                    "cursor `{}` is not one this search gave: search again without cursor",
                    cut_chars(&cursor, 40)
                ))
            })?,
    };
    let prefix = if path_prefix.is_empty() {
        String::new()
    } else {
        ctx.clean(&path_prefix, "path_prefix")? + if path_prefix.ends_with('/') { "/" } else { "" }
    };
    Ok(Asked {
        query,
        hybrid: mode == MODES[1],
        prefix,
        limit,
        per_note,
        offset,
        max_chars: args.max_chars()?,
        fallback: args.boolean("fallback", false)?,
    })
}

/// Answers a semantic or hybrid `search`, the store being at `readiness`.
pub(crate) fn search(
    ctx: &Context<'_>,
    semantic: &Semantic,
    readiness: &Readiness,
    args: &Args<'_>,
) -> Result<Output, ToolError> {
    let asked = asked(ctx, args)?;
    let mut head = Map::new();
    match readiness {
        Readiness::Building {
            done,
            total,
            retry_after_seconds,
        } => {
            let state = format!(
                "the embedding index of this vault is being built ({done} of {total} notes embedded)"
            );
            if !asked.fallback {
                return Err(ToolError(format!(
                    "index_building: {state}; search by meaning answers in about {retry_after_seconds} s \
                     (retry_after_seconds={retry_after_seconds}). Call again then, or pass fallback: true to get \
                     word search (BM25) now."
                )));
            }
            head.insert(
                "fallback".into(),
                json!(format!(
                    "{state}: these are word-search (BM25) results; search by meaning answers in about \
                     {retry_after_seconds} s"
                )),
            );
            return words_only(ctx, &asked, head, args);
        }
        Readiness::Updating { pending } => {
            head.insert(
                "embedding_pending".into(),
                json!(format!(
                    "{pending} changed notes are still being embedded: until then they are found by their \
                     earlier text"
                )),
            );
        }
        Readiness::Ready => {}
    }
    let Some(query) = semantic.model().embed(&asked.query) else {
        return Err(ToolError(format!(
            "the query has no word the embedding model knows: {}; try other words, or mode \"words\"",
            cut_chars(&asked.query, 80)
        )));
    };
    let vectors = semantic.vectors();
    let in_scope =
        |path: &str| path.starts_with(&asked.prefix) && ctx.snapshot.note(path).is_some();
    let wanted = asked.offset + asked.limit + 1;
    let rows: Vec<Row<'_>> = if asked.hybrid {
        // The two rankings at once: the word ranking is the longer, and the nearest passages take a core beside it.
        let (meaning, words) = std::thread::scope(|scope| {
            let meaning =
                scope.spawn(|| vectors.nearest(&query, in_scope, FUSION_DEPTH.max(wanted), 1));
            let words = tools::ranked_by_words(ctx, &asked.query, &asked.prefix, FUSION_DEPTH);
            (meaning.join().expect("the meaning ranking panicked"), words)
        });
        let (words, _) = words?;
        fuse(&meaning, &words, |path| vectors.best_of(path, &query))
    } else {
        vectors
            .nearest(
                &query,
                in_scope,
                wanted * asked.per_note.max(1),
                asked.per_note,
            )
            .into_iter()
            .map(|hit| Row {
                hit,
                score: f64::from(hit.score),
                words: None,
            })
            .collect()
    };
    head.insert("query".into(), json!(cut_chars(&asked.query, 200)));
    head.insert(
        "mode".into(),
        json!(if asked.hybrid { MODES[1] } else { MODES[0] }),
    );
    head.insert("order".into(), json!("relevance"));
    head.insert("model".into(), json!(semantic.model().name()));
    page(ctx, &asked, head, &rows, args)
}

/// A result: a passage and its scores.
struct Row<'a> {
    hit: Hit<'a>,
    /// The order's score: cosine similarity, or the fused score.
    score: f64,
    /// Hybrid: the note's BM25 score, when the word ranking has it.
    words: Option<f64>,
}

/// Reciprocal rank fusion of the meaning ranking (best passage per note) and the word ranking; `best` gives the best
/// passage of a note only the words found.
fn fuse<'a>(
    meaning: &[Hit<'a>],
    words: &[(String, f64)],
    best: impl Fn(&str) -> Option<Hit<'a>>,
) -> Vec<Row<'a>> {
    let mut fused: HashMap<&str, (f64, Option<Hit<'a>>, Option<f64>)> = HashMap::new();
    for (rank, hit) in meaning.iter().enumerate() {
        let entry = fused.entry(hit.path).or_insert((0.0, None, None));
        entry.0 += MEANING_WEIGHT / (FUSION_K + rank as f64 + 1.0);
        entry.1 = Some(*hit);
    }
    for (rank, (path, score)) in words.iter().enumerate() {
        let entry = fused.entry(path.as_str()).or_insert((0.0, None, None));
        entry.0 += 1.0 / (FUSION_K + rank as f64 + 1.0);
        entry.2 = Some(*score);
    }
    let mut rows: Vec<Row<'a>> = fused
        .into_iter()
        .filter_map(|(path, (score, hit, words))| {
            let hit = hit.or_else(|| best(path))?;
            Some(Row { hit, score, words })
        })
        .collect();
    rows.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.hit.path.cmp(b.hit.path))
    });
    rows
}

/// While the store is first built, with `fallback`: the word ranking alone, one row per note.
fn words_only(
    ctx: &Context<'_>,
    asked: &Asked,
    mut head: Map<String, Value>,
    args: &Args<'_>,
) -> Result<Output, ToolError> {
    let end = asked.offset + asked.limit;
    let (words, matching) = tools::ranked_by_words(ctx, &asked.query, &asked.prefix, end)?;
    head.insert("query".into(), json!(cut_chars(&asked.query, 200)));
    head.insert("mode".into(), json!("words"));
    head.insert("order".into(), json!("relevance"));
    let results: Vec<Value> = words
        .iter()
        .skip(asked.offset)
        .take(asked.limit)
        .map(|(path, score)| json!({"path": path, "score": js_number(round(*score))}))
        .collect();
    let next = if matching > end {
        json!(format!("m:{end}"))
    } else {
        Value::Null
    };
    head.insert("results".into(), Value::Array(results));
    Ok(Output::Json(paged_result(args, next, Value::Object(head))))
}

/// The page of rows from the cursor on, cut to `limit` and to `max_chars`, saying where the rest starts.
fn page(
    ctx: &Context<'_>,
    asked: &Asked,
    mut head: Map<String, Value>,
    rows: &[Row<'_>],
    args: &Args<'_>,
) -> Result<Output, ToolError> {
    let mut results = Vec::new();
    let mut size = serde_json::to_string(&head).map_or(0, |text| text.len()) + 200;
    let mut next = Value::Null;
    for (at, row) in rows.iter().enumerate().skip(asked.offset) {
        let entry = entry(ctx, row);
        let grown = size + serde_json::to_string(&entry).map_or(0, |text| text.len()) + 1;
        if results.len() == asked.limit || (grown > asked.max_chars && !results.is_empty()) {
            next = json!(format!("m:{at}"));
            break;
        }
        size = grown;
        results.push(entry);
    }
    head.insert("results".into(), Value::Array(results));
    Ok(Output::Json(paged_result(args, next, Value::Object(head))))
}

/// One result as the agent sees it.
fn entry(ctx: &Context<'_>, row: &Row<'_>) -> Value {
    let hit = row.hit;
    let (heading, excerpt) = read_passage(ctx, hit.path, hit.start_line, hit.end_line);
    let mut entry = json!({
        "path": hit.path,
        "heading": heading,
        "start_line": hit.start_line,
        "end_line": hit.end_line,
        "score": js_number(round(row.score)),
    });
    if row.words.is_some() || row.score != f64::from(hit.score) {
        entry["meaning_score"] = js_number(round(f64::from(hit.score)));
        entry["word_score"] = row
            .words
            .map_or(Value::Null, |score| js_number(round(score)));
    }
    if let Some(excerpt) = excerpt {
        entry["excerpt"] = json!(excerpt);
    }
    entry
}

/// The passage's section heading (the last heading at or before its first line, empty before the first heading;
/// the store keeps none, the note's text says it) and its first words, white space collapsed, heading lines left
/// out.
fn read_passage(ctx: &Context<'_>, path: &str, start: u32, end: u32) -> (String, Option<String>) {
    let Some(text) = ctx
        .snapshot
        .file(path)
        .and_then(|file| ctx.text_of(file).ok())
    else {
        return (String::new(), None);
    };
    let lines = split_lines(&text);
    let from = (start as usize).saturating_sub(1);
    let heading = find_headings(&lines)
        .into_iter()
        .take_while(|heading| heading.line <= from)
        .last()
        .map(|heading| heading.text)
        .unwrap_or_default();
    let to = (end as usize).min(lines.len());
    let mut out = String::new();
    for line in lines.get(from..to).unwrap_or_default() {
        let line = line.trim();
        if line.is_empty() || line == "---" || line.starts_with('#') {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(line.split_whitespace().flat_map(|word| [word, " "]));
        out.pop();
        if out.chars().count() > EXCERPT_CHARS {
            break;
        }
    }
    let excerpt = (!out.is_empty()).then(|| cut_chars(&out, EXCERPT_CHARS).to_owned());
    (heading, excerpt)
}

/// Four decimals: enough to order by, short to read.
fn round(score: f64) -> f64 {
    (score * 10_000.0).round() / 10_000.0
}

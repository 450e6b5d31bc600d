//! `search` in phrase mode (plugin: `src/tools/search-phrase.ts`): per-line text or regex search over the notes in path
//! order, with the plugin's cursor (`line:path` of the last match returned), per-file and total limits and character
//! budget; and the matcher word mode uses for its words, phrases and regexes.
//!
//! The index keeps no note's text: a text query first asks the word index (`../words.rs`) which notes can hold it
//! and reads only those from disk; a regex reads every note. Case-insensitive text search compares
//! lower-cased text as the plugin does; for an ASCII query on text without the two characters whose lower case is
//! ASCII (KELVIN SIGN, LATIN CAPITAL I WITH DOT ABOVE) an ASCII-only case-insensitive byte search gives the same
//! answer much faster. Regexes are RE2's in the plugin (RE2JS) and Rust's `regex` here (`../regex.rs`).

use regex::Regex;
use serde_json::{Map, json};

use super::page::{Page, parse_cursor};
use crate::offline::js::utf16_len;
use crate::offline::js::{js_case_class, js_cmp, js_number};
use crate::offline::obsidian::vault::FileEntry;
use crate::offline::plugin::tools::{Args, Context, Output, ToolError, paged_result};
use crate::offline::plugin::vault::limits::cut_chars;
use crate::offline::plugin::vault::lines::split_lines;
use crate::offline::plugin::vault::paths::quote;
use crate::offline::plugin::vault::regex::{first_line, translate_js_regex};

/// Finds the first match in a line: its UTF-16 index.
pub(super) enum Matcher {
    Exact(String),
    /// An ASCII query ignoring case: `(?i-u)` on bytes folds ASCII letters only, exactly as a JavaScript regex with
    /// the `i` flag and no `u` flag does (it never folds a non-ASCII character to an ASCII one).
    AsciiFold(regex::bytes::Regex),
    /// Any other query ignoring case: each character as the class of characters JavaScript's `i` flag equates with it.
    Folded(Regex),
    /// The line regex, and the same pattern in multi-line mode to skip notes with no match at all.
    Pattern(Regex, Option<Regex>),
}

/// The query as a pattern matching what `new RegExp(escaped, "i")` matches.
fn js_ignore_case_pattern(query: &str) -> String {
    let mut pattern = String::new();
    for c in query.chars() {
        let members = js_case_class(c);
        if members.len() == 1 {
            pattern.push_str(&regex::escape(&c.to_string()));
        } else {
            pattern.push('[');
            for member in members {
                pattern.push_str(&regex::escape(&member.to_string()));
            }
            pattern.push(']');
        }
    }
    pattern
}

impl Matcher {
    pub(super) fn new(query: &str, regex: bool, case_sensitive: bool) -> Result<Self, ToolError> {
        if regex {
            return Self::pattern(query, case_sensitive).map_err(|reason| {
                ToolError(format!(
                    "invalid regular expression {}: {reason}",
                    quote(query)
                ))
            });
        }
        if case_sensitive {
            return Ok(Matcher::Exact(query.to_string()));
        }
        let failed = |error: regex::Error| {
            ToolError(format!(
                "search query cannot be used: {}",
                first_line(&error.to_string())
            ))
        };
        if query.is_ascii() {
            let pattern = format!("(?i-u){}", regex::escape(query));
            return regex::bytes::RegexBuilder::new(&pattern)
                .unicode(false)
                .build()
                .map(Matcher::AsciiFold)
                .map_err(failed);
        }
        Regex::new(&js_ignore_case_pattern(query))
            .map(Matcher::Folded)
            .map_err(failed)
    }

    /// A regex as both readers run it, or why it cannot be used.
    pub(super) fn pattern(query: &str, case_sensitive: bool) -> Result<Self, String> {
        if let Some(reason) = crate::offline::plugin::vault::regex::unsupported_syntax(query) {
            return Err(reason.to_string());
        }
        let pattern = translate_js_regex(query);
        let built = regex::RegexBuilder::new(&pattern)
            .case_insensitive(!case_sensitive)
            .build();
        // A match inside one line is a match of the whole text in multi-line mode (`^`, `$` and `\b` see a line
        // break as a line edge), so a note the whole-text test rejects has no matching line. Not for `\A` / `\z`,
        // which mean the line's edges when tested per line.
        let whole = (!query.contains("\\A") && !query.contains("\\z"))
            .then(|| {
                regex::RegexBuilder::new(&pattern)
                    .case_insensitive(!case_sensitive)
                    .multi_line(true)
                    .build()
                    .ok()
            })
            .flatten();
        built
            .map(|line| Matcher::Pattern(line, whole))
            .map_err(|error| first_line(&error.to_string()))
    }

    /// Whether a text holds a match: for a literal anywhere in it, for a regex in one of its lines.
    pub(super) fn matches(&self, text: &str) -> bool {
        match self {
            Matcher::Pattern(..) => {
                self.may_match(text)
                    && split_lines(text)
                        .iter()
                        .any(|line| self.find(line.strip_suffix('\r').unwrap_or(line)).is_some())
            }
            _ => self.may_match(text),
        }
    }

    /// How many times a literal occurs in a text at the start of a word (the text's start, or after a character that
    /// is neither alphabetic nor numeric), matches found without overlaps, left to right: what ranking counts.
    pub(super) fn count_word_starts(&self, text: &str) -> usize {
        let starts_word = |at: usize| {
            text[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphabetic() || c.is_numeric()))
        };
        match self {
            Matcher::Exact(query) => text
                .match_indices(query.as_str())
                .filter(|(at, _)| starts_word(*at))
                .count(),
            Matcher::AsciiFold(regex) => regex
                .find_iter(text.as_bytes())
                .filter(|found| starts_word(found.start()))
                .count(),
            Matcher::Folded(regex) | Matcher::Pattern(regex, _) => regex
                .find_iter(text)
                .filter(|found| starts_word(found.start()))
                .count(),
        }
    }

    /// Whether it is a literal compared ignoring case, the comparison the word index folds as.
    pub(super) fn folds_case(&self) -> bool {
        matches!(self, Matcher::AsciiFold(_) | Matcher::Folded(_))
    }

    /// Where the first match of a literal at or after byte `from` of `text` is, as a byte range.
    pub(super) fn find_from(&self, text: &str, from: usize) -> Option<std::ops::Range<usize>> {
        match self {
            Matcher::Exact(query) => text[from..]
                .find(query.as_str())
                .map(|at| from + at..from + at + query.len()),
            Matcher::AsciiFold(regex) => regex.find_at(text.as_bytes(), from).map(|m| m.range()),
            Matcher::Folded(regex) => regex.find_at(text, from).map(|m| m.range()),
            Matcher::Pattern(..) => None,
        }
    }

    /// Whether the whole text can hold a match: false only when no line of it can.
    pub(super) fn may_match(&self, text: &str) -> bool {
        match self {
            Matcher::Exact(query) => text.contains(query.as_str()),
            Matcher::AsciiFold(regex) => regex.is_match(text.as_bytes()),
            Matcher::Folded(regex) => regex.is_match(text),
            // `$` does not match before a "\r", so notes with CRLF line breaks are always scanned line by line.
            Matcher::Pattern(_, whole) => whole
                .as_ref()
                .is_none_or(|whole| text.contains('\r') || whole.is_match(text)),
        }
    }

    pub(super) fn find(&self, line: &str) -> Option<usize> {
        let start = match self {
            Matcher::Exact(query) => line.find(query.as_str()),
            Matcher::AsciiFold(regex) => regex.find(line.as_bytes()).map(|found| found.start()),
            Matcher::Folded(regex) | Matcher::Pattern(regex, _) => {
                regex.find(line).map(|found| found.start())
            }
        }?;
        Some(utf16_len(&line[..start]))
    }
}

/// How many lines of a text match.
fn matching_lines(matcher: &Matcher, text: &str) -> usize {
    if !matcher.may_match(text) {
        return 0;
    }
    split_lines(text)
        .into_iter()
        .filter(|line| {
            matcher
                .find(line.strip_suffix('\r').unwrap_or(line))
                .is_some()
        })
        .count()
}

/// BM25's weight of a note for the query, without the query's IDF (the same for every note): `lines` matching lines
/// in a note of `size` bytes, against the mean size of the notes searched; k1 = 1.2, b = 0.75. The plugin's
/// `relevance` (src/tools/search.ts) does the same operations in the same order, so scores and order agree.
pub(super) fn relevance(lines: usize, size: u64, mean_size: f64) -> f64 {
    let ratio = if mean_size > 0.0 {
        size as f64 / mean_size
    } else {
        1.0
    };
    (lines as f64 * 2.2) / (lines as f64 + 1.2 * (0.25 + 0.75 * ratio))
}

/// A score as results show it: three decimals (`round` is JavaScript's `Math.round` for positive numbers).
pub(super) fn round_score(score: f64) -> f64 {
    (score * 1000.0).round() / 1000.0
}

pub(super) fn search(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let query = args.required_string("query", 1, 1000)?;
    let regex = args.boolean("regex", false)?;
    let case_sensitive = args.boolean("case_sensitive", false)?;
    let path_prefix = args.string("path_prefix", "", 0, usize::MAX)?;
    let rank = args.boolean("rank", false)?;
    let context_lines = args.int("context_lines", 0, 0, 10)? as usize;
    let max_per_file = args.int("max_per_file", 10, 1, 100)? as usize;
    let limit = args.int("limit", 100, 1, 500)? as usize;
    let cursor = args.cursor()?;
    let max_chars = args.max_chars()?;

    if !regex && query.contains(['\r', '\n']) {
        return Err(ToolError::new(
            "query spans several lines, but search matches one line at a time: search for one line of it",
        ));
    }
    let matcher = Matcher::new(&query, regex, case_sensitive)?;
    let prefix = scope_prefix(ctx, &path_prefix)?;
    let resume = parse_cursor(cursor.as_deref())?;
    // The notes that can hold the query (`index/words.rs`); a regex, or a query with no word in it, reads every note.
    let candidates = if regex {
        None
    } else {
        crate::lock::read(ctx.words).candidates(&query)
    };
    // The note's text when it can hold the query: never read for a note outside the vault (the plugin reads it,
    // then refuses to quote it), and passed over when it cannot be read any more, as a note the index could not read.
    let text_if_candidate = |index: usize, file: &FileEntry| -> Option<String> {
        // By index, not by path: hashing every path of a large vault was most of an absent word's search.
        let note = ctx.snapshot.note_at(index)?;
        if candidates
            .as_ref()
            .is_some_and(|candidates| !candidates.contains(note.doc))
        {
            return None;
        }
        ctx.text_of(file).ok()
    };
    let mut page = Page::new(max_per_file, limit, context_lines, max_chars);
    let mut head = Map::new();
    head.insert("query".into(), json!(cut_chars(&query, 200)));
    head.insert("mode".into(), json!("phrase"));

    let notes = super::Scope::of(ctx, &prefix);
    if rank {
        let files = notes;
        let ranked = rank_notes(
            ctx,
            &matcher,
            &files,
            &text_if_candidate,
            &resume,
            &mut page,
        )?;
        let mut head = head;
        head.insert("order".into(), json!("relevance"));
        let (next, rest) = page.finish(head, files.len(), Some(ranked));
        return Ok(Output::Json(paged_result(args, next, rest)));
    }

    let mut searched = 0;
    for (index, file) in notes.iter().filter(|(_, file)| {
        resume
            .as_ref()
            .is_none_or(|(_, path)| js_cmp(&file.path, path).is_ge())
    }) {
        searched += 1;
        let Some(text) = text_if_candidate(index, file) else {
            continue;
        };
        if !matcher.may_match(&text) {
            continue;
        }
        let lines = split_lines(&text);
        let find = |line: &str| matcher.find(line);
        let entry = super::page::entry(&file.path);
        if page.add_note(
            find,
            &file.path,
            &lines,
            skip_for(&resume, &file.path),
            entry,
        ) {
            break;
        }
    }
    let (next, rest) = page.finish(head, searched, None);
    Ok(Output::Json(paged_result(args, next, rest)))
}

/// Ranks the notes in scope that hold the query by relevance and adds them to the page from the cursor's note on;
/// returns how many notes matched.
fn rank_notes(
    ctx: &Context<'_>,
    matcher: &Matcher,
    files: &super::Scope<'_>,
    text_if_candidate: &dyn Fn(usize, &FileEntry) -> Option<String>,
    resume: &Option<(usize, String)>,
    page: &mut Page,
) -> Result<usize, ToolError> {
    let bytes: u64 = files.iter().map(|(_, file)| file.size).sum();
    let mean_size = if files.is_empty() {
        0.0
    } else {
        bytes as f64 / files.len() as f64
    };
    let mut ranked: Vec<(&FileEntry, f64)> = files
        .iter()
        .filter_map(|(index, file)| {
            let text = text_if_candidate(index, file)?;
            let lines = matching_lines(matcher, &text);
            (lines > 0).then(|| (file, relevance(lines, file.size, mean_size)))
        })
        .collect();
    // Stable, from path order: equal scores stay in path order, as in the plugin.
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let start = match &resume {
        None => 0,
        Some((_, path)) => ranked
            .iter()
            .position(|(file, _)| file.path == *path)
            .ok_or_else(|| {
                ToolError(format!(
                    "the cursor's note {} no longer matches (it changed meanwhile): search again without cursor",
                    quote(path)
                ))
            })?,
    };
    for (file, score) in &ranked[start..] {
        let Ok(text) = ctx.text_of(file) else {
            continue;
        };
        let lines = split_lines(&text);
        let mut entry = super::page::entry(&file.path);
        entry.insert("score".into(), js_number(round_score(*score)));
        let find = |line: &str| matcher.find(line);
        if page.add_note(
            find,
            &file.path,
            &lines,
            skip_for(resume, &file.path),
            entry,
        ) {
            break;
        }
    }
    Ok(ranked.len())
}

/// Where to start in a note: past the cursor's line in the cursor's note, else at its first line.
fn skip_for(resume: &Option<(usize, String)>, path: &str) -> usize {
    match resume {
        Some((line, resumed)) if resumed == path => *line,
        _ => 0,
    }
}

/// The cleaned `path_prefix` the notes searched start with (a trailing `/` kept: a folder, not a name's start).
fn scope_prefix(ctx: &Context<'_>, path_prefix: &str) -> Result<String, ToolError> {
    if path_prefix.is_empty() {
        return Ok(String::new());
    }
    Ok(ctx.clean(path_prefix, "path_prefix")? + if path_prefix.ends_with('/') { "/" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_matching_ignores_case_like_a_javascript_i_regex() {
        let m = Matcher::new("straße", false, false).unwrap();
        assert_eq!(
            m.find("Die STRASSE"),
            None,
            "ß has no one-character upper case, so it matches only itself"
        );
        assert_eq!(m.find("Die STRAßE"), Some(4));
        assert_eq!(
            m.find("die Straẞe"),
            None,
            "ẞ and ß do not fold together without the u flag"
        );
        let ascii = Matcher::new("kelvin", false, false).unwrap();
        assert_eq!(
            ascii.find("\u{212A}elvin"),
            None,
            "KELVIN SIGN is not folded to k"
        );
        assert_eq!(
            ascii.find("😀 KELVIN"),
            Some(3),
            "the index counts UTF-16 units"
        );
        assert!(Matcher::new("ſ", false, false).unwrap().find("S").is_none());
        assert_eq!(
            Matcher::new("über", false, false).unwrap().find("ÜBER"),
            Some(0)
        );
        assert_eq!(
            Matcher::new("a.b", false, false).unwrap().find("axb"),
            None,
            "the query is literal"
        );
    }

    #[test]
    fn regexes_keep_re2_class_meanings() {
        let m = Matcher::new(r"\d+", true, true).unwrap();
        assert_eq!(m.find("x ٣ 42"), Some(4), "\\d is ASCII in RE2");
        let word = Matcher::new(r"\bé", true, true).unwrap();
        assert_eq!(
            word.find("aé"),
            Some(1),
            "\\b is an ASCII word boundary in RE2"
        );
        let error = match Matcher::new("(?<=a)b", true, false) {
            Err(e) => e.0,
            Ok(_) => panic!("lookbehind compiled"),
        };
        assert!(
            error.starts_with("invalid regular expression \"(?<=a)b\": "),
            "{error}"
        );
    }

    #[test]
    fn patterns_that_backtrack_for_minutes_run_in_linear_time_like_the_plugin() {
        // The plugin's RE2JS and Rust's `regex` both match in linear time: these answer at once in both readers.
        let text = format!("{}b", "a".repeat(5000));
        for pattern in ["(a|a)*$", "(a+)+c", "(\\w*\\s?)*x"] {
            let matcher = Matcher::new(pattern, true, true).unwrap();
            let started = std::time::Instant::now();
            let _ = matcher.find(&text);
            // A backtracking engine takes longer than the age of the universe here; the bound only catches that.
            assert!(
                started.elapsed() < std::time::Duration::from_secs(10),
                "{pattern}"
            );
        }
    }

    #[test]
    fn relevance_grows_with_matching_lines_and_falls_with_length() {
        let mean = 2400.0;
        assert!(relevance(3, 2400, mean) > relevance(1, 2400, mean));
        assert!(relevance(2, 1200, mean) > relevance(2, 4800, mean));
        // A note of mean length with one matching line: 2.2 / (1 + 1.2), exactly 1.
        assert_eq!(relevance(1, 2400, mean), 1.0);
        assert_eq!(
            relevance(1, 0, 0.0),
            1.0,
            "an empty vault divides by nothing"
        );
        // Saturates below k1 + 1.
        assert!(relevance(10_000, 2400, mean) < 2.2);
        assert_eq!(round_score(1.23449), 1.234);
        assert_eq!(
            round_score(1.2345),
            1.235,
            "halves round up, as Math.round does"
        );
        assert_eq!(
            js_number(round_score(1.0)),
            json!(1),
            "written as JSON.stringify writes it"
        );
    }

    #[test]
    fn cursors_are_line_colon_path() {
        assert_eq!(
            parse_cursor(Some("12:a/b:c.md")).unwrap(),
            Some((12, "a/b:c.md".into()))
        );
        assert!(parse_cursor(Some("x:a.md")).is_err());
        assert_eq!(parse_cursor(None).unwrap(), None);
    }
}

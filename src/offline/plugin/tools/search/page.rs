//! A page of `search` results (the plugin's `SearchPage` in `src/tools/search.ts`): notes added one by one until the
//! limit or the character budget is reached, and the `line:path` cursor that resumes after the last match returned.

use serde_json::{Map, Value, json};

use crate::offline::js::utf16_len;
use crate::offline::plugin::tools::ToolError;
use crate::offline::plugin::tools::common::led_by;
use crate::offline::plugin::vault::limits::{SNIPPET_CHARS, json_len, snippet, snippet_around};
use crate::offline::plugin::vault::paths::quote;

/// Decodes the `line:path` cursor.
pub(super) fn parse_cursor(cursor: Option<&str>) -> Result<Option<(usize, String)>, ToolError> {
    let Some(cursor) = cursor.filter(|c| !c.is_empty()) else {
        return Ok(None);
    };
    let invalid = || {
        ToolError(format!(
            "invalid cursor {}: pass next_cursor from the previous result unchanged",
            quote(cursor)
        ))
    };
    let (line, path) = cursor.split_once(':').ok_or_else(invalid)?;
    if line.is_empty()
        || line.len() > 9
        || !line.bytes().all(|b| b.is_ascii_digit())
        || path.is_empty()
    {
        return Err(invalid());
    }
    Ok(Some((
        line.parse().map_err(|_| invalid())?,
        path.to_string(),
    )))
}

/// What a page of results holds so far; `add_note` fills it note by note until the limit or the budget is reached.
pub(super) struct Page {
    max_per_file: usize,
    limit: usize,
    context_lines: usize,
    budget: usize,
    pub(super) results: Vec<Map<String, Value>>,
    used: usize,
    pub(super) total: usize,
    pub(super) next: Option<String>,
    last: Option<(String, usize)>,
}

impl Page {
    pub(super) fn new(
        max_per_file: usize,
        limit: usize,
        context_lines: usize,
        max_chars: usize,
    ) -> Self {
        Page {
            max_per_file,
            limit,
            context_lines,
            budget: max_chars.saturating_sub(300),
            results: Vec::new(),
            used: 0,
            total: 0,
            next: None,
            last: None,
        }
    }

    /// Adds a note that matched without a line to show (by its path, tags or properties): one match, `0:path` as its
    /// cursor; true when the page is full.
    pub(super) fn add_bare(&mut self, path: &str, mut entry: Map<String, Value>) -> bool {
        let cost = utf16_len(path) + 40;
        if self.total >= self.limit || (self.used + cost > self.budget && self.total > 0) {
            return self.full();
        }
        entry.insert("matches".into(), json!([]));
        self.results.push(entry);
        self.used += cost;
        self.total += 1;
        self.last = Some((path.to_string(), 0));
        false
    }

    /// The result's `next_cursor`, and its fields after `head`: the results, `total_matches`, `notes_searched` and,
    /// when ranked, `notes_matching`.
    pub(super) fn finish(
        self,
        head: Map<String, Value>,
        searched: usize,
        matching: Option<usize>,
    ) -> (Value, Value) {
        let mut rest = json!({
            "results": self.results,
            "total_matches": self.total,
            "notes_searched": searched,
        });
        if let Some(matching) = matching {
            rest["notes_matching"] = json!(matching);
        }
        (json!(self.next), led_by(head, rest))
    }

    fn full(&mut self) -> bool {
        self.next = self
            .last
            .as_ref()
            .map(|(path, line)| format!("{line}:{path}"));
        true
    }

    /// Adds the matches of one note after line `skip_through`; true when the page is full (`next` then says where).
    pub(super) fn add_note(
        &mut self,
        find: impl Fn(&str) -> Option<usize>,
        path: &str,
        lines: &[&str],
        skip_through: usize,
        head: Map<String, Value>,
    ) -> bool {
        let mut entry = head;
        let mut matches: Vec<Value> = Vec::new();
        let mut more_in_file = false;
        let mut full = false;
        for i in skip_through..lines.len() {
            let line = lines[i].strip_suffix('\r').unwrap_or(lines[i]);
            let Some(index) = find(line) else {
                continue;
            };
            if matches.len() >= self.max_per_file {
                more_in_file = true;
                break;
            }
            if self.total >= self.limit {
                full = true;
                break;
            }
            let mut found = Map::new();
            found.insert("line".into(), json!(i + 1));
            found.insert(
                "text".into(),
                json!(snippet_around(line, index, SNIPPET_CHARS)),
            );
            if self.context_lines > 0 {
                let around = |range: &[&str]| -> Vec<String> {
                    range.iter().map(|l| snippet(l, SNIPPET_CHARS)).collect()
                };
                let before = around(&lines[i.saturating_sub(self.context_lines)..i]);
                let after = around(&lines[i + 1..(i + 1 + self.context_lines).min(lines.len())]);
                found.insert("before".into(), json!(before));
                found.insert("after".into(), json!(after));
            }
            let found = Value::Object(found);
            let cost = json_len(&found)
                + if matches.is_empty() {
                    utf16_len(path) + 40
                } else {
                    1
                };
            if self.used + cost > self.budget && self.total > 0 {
                full = true;
                break;
            }
            matches.push(found);
            self.used += cost;
            self.total += 1;
            self.last = Some((path.to_string(), i + 1));
        }
        // The plugin pushes a note with its first match, and marks it when a match beyond max_per_file is seen.
        if !matches.is_empty() {
            entry.insert("matches".into(), Value::Array(matches));
            if more_in_file {
                entry.insert("more_in_file".into(), json!(true));
            }
            self.results.push(entry);
        }
        if full {
            return self.full();
        }
        false
    }
}

/// The note's entry head: its path.
pub(super) fn entry(path: &str) -> Map<String, Value> {
    let mut entry = Map::new();
    entry.insert("path".into(), Value::String(path.to_string()));
    entry
}

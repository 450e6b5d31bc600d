//! The self-test's comparison: the same read-only calls answered by the live plugin and by the offline reader (the
//! bridge's answers while Obsidian is closed), on a sample of the user's own notes, compared field by field as the
//! parity tests compare them (`tests/it/offline/`), minus the marks an offline answer carries. The calls: `vault_info`
//! and `tags`; per sampled note `read_note`, `note_metadata`, `outline`, `outgoing_links`, `backlinks`; `files_by_tag`
//! for the first tag of a few of them; a `search` by a few of their names.
//!
//! A difference names the call (tool and note path) and the field (`.links[2].path`); the values themselves are
//! note content (text, headings, tags, property values) and are shown only with `--show-content`, except vault
//! paths, numbers and booleans, which say what differs without quoting the notes.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use super::client::{self, PluginClient};
use super::{DeepOptions, millis};
use crate::doctor::report::Status;
use crate::offline::OfflineVault;

/// At most this many differences are kept per call, and overall, so a report stays readable and attachable.
const PER_CALL: usize = 10;
const OVERALL: usize = 200;

/// How many sampled notes also have the notes of their first tag compared (`files_by_tag`).
const TAGGED_NOTES: usize = 5;

/// Keys whose values are vault paths: shown even without `--show-content`.
const PATH_KEYS: &[&str] = &[
    "path", "from", "to", "source", "target", "file", "folder", "base", "resolved",
];

/// Keys an offline answer may put first that the plugin never sends (notes too large to read, a dropped word index):
/// they say how the offline answer was made, not what it is.
const OFFLINE_NOTICES: &[&str] = &[
    crate::offline::SKIPPED_KEY,
    crate::offline::INDEX_LIMITED_KEY,
];

/// The outcome of the comparison.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Parity {
    /// `ok` when every call agreed, `fail` when one differed, `skip` when nothing could be compared.
    pub(crate) status: Status,
    /// Markdown notes of the vault.
    pub(crate) notes_in_vault: usize,
    /// How many of them were compared.
    pub(crate) notes_compared: usize,
    /// Sampled notes left out: reached through a symbolic link that leads outside the vault, which the plugin reads
    /// and the offline reader does not (a documented difference, not a fault).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) notes_outside: Vec<String>,
    /// Calls made on both sides.
    pub(crate) calls: usize,
    /// Calls whose answers differed.
    pub(crate) calls_differing: usize,
    /// The differences (at most 200, and 10 per call).
    pub(crate) differences: Vec<Difference>,
    /// Differences left out (past 10 in one call or 200 in all), counted only.
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) more_differences: usize,
    /// Why the comparison could not run, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) trouble: Option<String>,
    /// Time spent waiting for the plugin's answers, and for the offline reader's (its first call builds its index).
    pub(crate) plugin_ms: u64,
    pub(crate) offline_ms: u64,
    /// How long the comparison took.
    pub(crate) elapsed_ms: u64,
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// One field that differs between the plugin's answer and the offline reader's.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Difference {
    /// The tool called.
    pub(crate) tool: &'static str,
    /// The note it was called on, or `vault` for a vault-wide call.
    pub(crate) subject: String,
    /// Where in the answer: a JSON field path, `text` or `isError`.
    pub(crate) field: String,
    /// What differs, in words that quote no note content.
    pub(crate) what: String,
    /// The plugin's and the offline reader's values, with `--show-content` (or when they are paths or numbers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) live: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) offline: Option<Value>,
}

/// One call to make on both sides.
struct Call {
    tool: &'static str,
    subject: String,
    arguments: Value,
}

/// Compares the plugin with the offline reader on a sample of the vault's notes.
pub(crate) async fn compare(
    plugin: &mut PluginClient,
    vault: &Path,
    config_dir: &str,
    options: &DeepOptions,
) -> Parity {
    let started = Instant::now();
    let mut parity = Parity::nothing_compared();
    let offline = match OfflineVault::open(vault, Some(config_dir)) {
        Ok(offline) => Arc::new(offline),
        Err(error) => {
            parity.trouble = Some(format!("the offline reader cannot open the vault: {error}"));
            return finish(parity, started);
        }
    };
    let listed = Instant::now();
    let notes = match note_paths(&offline).await {
        Ok(notes) => notes,
        Err(error) => {
            parity.trouble = Some(error);
            return finish(parity, started);
        }
    };
    parity.notes_in_vault = notes.len();
    let (sample, outside): (Vec<String>, Vec<String>) = sample(&notes, options.sample)
        .into_iter()
        .partition(|note| inside(vault, note));
    parity.notes_compared = sample.len();
    parity.notes_outside = outside;
    // The listing built the offline reader's index: its time is the offline reader's.
    let (mut plugin_time, mut offline_time) = (Duration::ZERO, listed.elapsed());
    let mut queue: std::collections::VecDeque<Call> = calls(&sample).into();
    let mut tagged = 0;
    while let Some(call) = queue.pop_front() {
        let asked = Instant::now();
        let live = plugin.call(call.tool, call.arguments.clone()).await;
        plugin_time += asked.elapsed();
        let live = match live {
            Ok(result) => result,
            Err(error) => {
                parity.trouble = Some(format!(
                    "{} on {} failed through the plugin: {error}",
                    call.tool, call.subject
                ));
                break;
            }
        };
        let asked = Instant::now();
        let disk = offline_call(&offline, call.tool, call.arguments.clone()).await;
        offline_time += asked.elapsed();
        parity.calls += 1;
        // The notes that share a sampled note's first tag, as both sides list them (the tag is content: the call is
        // named by the note it came from).
        if call.tool == "note_metadata"
            && tagged < TAGGED_NOTES
            && let Some(tag) = client::json_of(&live)["tags"][0].as_str()
        {
            tagged += 1;
            queue.push_back(Call {
                tool: "files_by_tag",
                subject: call.subject.clone(),
                arguments: json!({"tag": tag}),
            });
        }
        let found = differences(&live, &disk, options.show_content);
        if found.is_empty() {
            continue;
        }
        parity.calls_differing += 1;
        parity.record(&call, found);
    }
    parity.plugin_ms = millis(plugin_time);
    parity.offline_ms = millis(offline_time);
    parity.status = if parity.calls_differing > 0 || parity.trouble.is_some() {
        Status::Fail
    } else if parity.calls == 0 {
        Status::Skip
    } else {
        Status::Ok
    };
    finish(parity, started)
}

impl Parity {
    /// A comparison that has compared nothing yet.
    fn nothing_compared() -> Self {
        Self {
            status: Status::Skip,
            notes_in_vault: 0,
            notes_compared: 0,
            notes_outside: Vec::new(),
            calls: 0,
            calls_differing: 0,
            differences: Vec::new(),
            more_differences: 0,
            trouble: None,
            plugin_ms: 0,
            offline_ms: 0,
            elapsed_ms: 0,
        }
    }

    /// Keeps the differences one call found, up to `PER_CALL` for the call and `OVERALL` in all; the rest are counted.
    fn record(&mut self, call: &Call, found: Vec<Found>) {
        for (index, (field, what, values)) in found.into_iter().enumerate() {
            if index >= PER_CALL || self.differences.len() >= OVERALL {
                self.more_differences += 1;
                continue;
            }
            let (live, offline) = values.unzip();
            self.differences.push(Difference {
                tool: call.tool,
                subject: call.subject.clone(),
                field,
                what,
                live,
                offline,
            });
        }
    }
}

fn finish(mut parity: Parity, started: Instant) -> Parity {
    if parity.trouble.is_some() {
        parity.status = Status::Fail;
    }
    parity.elapsed_ms = millis(started.elapsed());
    parity
}

/// Runs one call on the offline reader, off the async threads (it reads files).
async fn offline_call(offline: &Arc<OfflineVault>, tool: &'static str, arguments: Value) -> Value {
    let offline = Arc::clone(offline);
    tokio::task::spawn_blocking(move || offline.call_tool(tool, arguments))
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| {
            json!({"content": [{"type": "text", "text": format!("offline mode does not know {tool}")}], "isError": true})
        })
}

/// Every Markdown note of the vault, as the offline reader lists them, sorted by path.
async fn note_paths(offline: &Arc<OfflineVault>) -> Result<Vec<String>, String> {
    let mut notes = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut arguments = json!({"extension": "md", "limit": 500, "max_chars": 200_000});
        if let Some(cursor) = &cursor {
            arguments["cursor"] = json!(cursor);
        }
        let result = offline_call(offline, "list_files", arguments).await;
        if client::is_error(&result) {
            return Err(format!(
                "the offline reader could not list the vault: {}",
                client::text_of(&result)
            ));
        }
        let page = client::json_of(&result);
        notes.extend(
            page["entries"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|entry| entry["path"].as_str().map(str::to_owned)),
        );
        cursor = page["next_cursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            return Ok(notes);
        }
    }
}

/// Whether a note's real file is inside the vault (not reached through a symbolic link that leads outside).
fn inside(vault: &Path, note: &str) -> bool {
    use obsmcp_installer::environment::real_path;
    match (real_path(vault), real_path(vault.join(note))) {
        (Ok(root), Ok(file)) => file.starts_with(root),
        // Gone since the listing: both sides will say so, which is worth comparing.
        _ => true,
    }
}

/// `count` notes spread evenly over the sorted list (all of them when there are fewer): every part of the vault,
/// and the same sample on every run of an unchanged vault, so a difference can be checked again.
fn sample(notes: &[String], count: usize) -> Vec<String> {
    if notes.len() <= count {
        return notes.to_vec();
    }
    (0..count)
        .map(|index| notes[index * notes.len() / count].clone())
        .collect()
}

/// The calls: each sampled note through every per-note read, then a few vault-wide reads.
fn calls(sample: &[String]) -> Vec<Call> {
    let mut calls = vec![
        Call {
            tool: "vault_info",
            subject: "vault".into(),
            arguments: json!({}),
        },
        Call {
            tool: "tags",
            subject: "vault".into(),
            arguments: json!({"limit": 500}),
        },
    ];
    for note in sample {
        for tool in [
            "read_note",
            "note_metadata",
            "outline",
            "outgoing_links",
            "backlinks",
        ] {
            calls.push(Call {
                tool,
                subject: note.clone(),
                arguments: json!({"path": note}),
            });
        }
    }
    // A search by each of a few notes' names: the name is a path, not content, so the query can be shown.
    for note in sample.iter().take(3) {
        let name = note.rsplit('/').next().unwrap_or(note);
        let name = name.strip_suffix(".md").unwrap_or(name);
        if name.trim().is_empty() {
            continue;
        }
        calls.push(Call {
            tool: "search",
            subject: note.clone(),
            arguments: json!({"query": format!("\"{}\"", name.replace('"', " "))}),
        });
    }
    calls
}

/// An offline answer as the plugin would have sent it: no `_meta`, no `served_from` mark, no offline notices.
fn without_offline_marks(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(object) = result.as_object_mut() {
        object.remove("_meta");
    }
    let text = client::text_of(&result).to_owned();
    let plain = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(mut object)) => {
            object.remove(crate::offline::SERVED_FROM_KEY);
            for key in OFFLINE_NOTICES {
                object.remove(*key);
            }
            Value::Object(object).to_string()
        }
        _ => match text.split_once('\n') {
            Some((header, body)) => {
                let header = header.strip_suffix(" served_from=disk").unwrap_or(header);
                format!("{header}\n{body}")
            }
            None => text
                .strip_suffix(" served_from=disk")
                .unwrap_or(&text)
                .to_owned(),
        },
    };
    if result["content"][0]["text"].is_string() {
        result["content"][0]["text"] = json!(plain);
    }
    result
}

/// A difference: the field, what differs, and the two values when they may be shown.
type Found = (String, String, Option<(Value, Value)>);

/// The differences between a live answer and an offline one.
fn differences(live: &Value, offline: &Value, show_content: bool) -> Vec<Found> {
    let offline = without_offline_marks(offline);
    let mut out = Vec::new();
    let (live_error, offline_error) = (client::is_error(live), client::is_error(&offline));
    let (a, b) = (client::text_of(live), client::text_of(&offline));
    if live_error != offline_error {
        let values = show_content.then(|| (json!(a), json!(b)));
        out.push((
            "isError".into(),
            format!(
                "the plugin {} where the offline reader {}",
                if live_error { "failed" } else { "answered" },
                if offline_error { "failed" } else { "answered" }
            ),
            values,
        ));
        return out;
    }
    match (
        serde_json::from_str::<Value>(a),
        serde_json::from_str::<Value>(b),
    ) {
        (Ok(x), Ok(y)) if x.is_object() => diff("", &x, &y, show_content, &mut out),
        _ if a != b => out.push(text_difference(a, b, show_content)),
        _ => {}
    }
    out
}

/// Two texts that differ (a note read, an error message): where, without quoting them.
fn text_difference(a: &str, b: &str, show_content: bool) -> Found {
    let line = a
        .lines()
        .zip(b.lines())
        .position(|(x, y)| x != y)
        .unwrap_or_else(|| a.lines().count().min(b.lines().count()));
    let what = if line == 0 && a.contains('\n') && b.contains('\n') {
        // The first line of a note read is its header: line range and content hash.
        "the header line differs (line count or content hash)".to_owned()
    } else {
        format!(
            "the text differs from line {} on ({} and {} characters)",
            line + 1,
            a.chars().count(),
            b.chars().count()
        )
    };
    (
        "text".into(),
        what,
        show_content.then(|| (json!(a), json!(b))),
    )
}

/// Field-by-field differences of two JSON values.
fn diff(path: &str, live: &Value, offline: &Value, show_content: bool, out: &mut Vec<Found>) {
    let shown = |key: &str, a: &Value, b: &Value| {
        let plain = |value: &Value| {
            matches!(value, Value::Number(_) | Value::Bool(_) | Value::Null)
                || (PATH_KEYS.contains(&key) && value.is_string())
        };
        (show_content || (plain(a) && plain(b))).then(|| (a.clone(), b.clone()))
    };
    match (live, offline) {
        (Value::Object(a), Value::Object(b)) => {
            let under_properties = path.ends_with(".frontmatter") || path.ends_with(".properties");
            let name = |key: &str| {
                if under_properties && !show_content {
                    "<property>".to_owned()
                } else {
                    key.to_owned()
                }
            };
            for (key, value) in a {
                let field = format!("{path}.{}", name(key));
                match b.get(key) {
                    Some(other) => diff(&field, value, other, show_content, out),
                    None => out.push((
                        field,
                        "only the plugin has it".into(),
                        show_content.then(|| (value.clone(), Value::Null)),
                    )),
                }
            }
            for (key, value) in b.iter().filter(|(key, _)| !a.contains_key(*key)) {
                out.push((
                    format!("{path}.{}", name(key)),
                    "only the offline reader has it".into(),
                    show_content.then(|| (Value::Null, value.clone())),
                ));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                out.push((
                    path.to_owned(),
                    format!(
                        "the plugin lists {}, the offline reader {}",
                        a.len(),
                        b.len()
                    ),
                    None,
                ));
            }
            for (index, (x, y)) in a.iter().zip(b).enumerate() {
                diff(&format!("{path}[{index}]"), x, y, show_content, out);
            }
        }
        _ if live != offline => {
            let key = path
                .rsplit('.')
                .next()
                .unwrap_or("")
                .split('[')
                .next()
                .unwrap_or("");
            out.push((
                path.to_owned(),
                "the values differ".into(),
                shown(key, live, offline),
            ));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(text: &str) -> Value {
        json!({"content": [{"type": "text", "text": text}]})
    }

    #[test]
    fn the_offline_marks_are_no_difference() {
        let live = result(r#"{"path":"A.md","links":[]}"#);
        let disk = result(r#"{"path":"A.md","links":[],"served_from":"disk"}"#);
        assert!(differences(&live, &disk, false).is_empty());
        let live = result("[lines 1-1 of 1] path=\"A.md\" sha256=ab\nhello");
        let disk = result("[lines 1-1 of 1] path=\"A.md\" sha256=ab served_from=disk\nhello");
        assert!(differences(&live, &disk, false).is_empty());
    }

    #[test]
    fn note_content_is_not_shown_unless_asked() {
        let live = result(r#"{"path":"A.md","headings":[{"heading":"Secret plan","line":1}]}"#);
        let disk = result(r#"{"path":"A.md","headings":[{"heading":"Public plan","line":2}]}"#);
        let found = differences(&live, &disk, false);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].0, ".headings[0].heading");
        assert!(found[0].2.is_none(), "text stays hidden: {found:?}");
        assert_eq!(found[1].2, Some((json!(1), json!(2))), "numbers are shown");
        let shown = differences(&live, &disk, true);
        assert_eq!(
            shown[0].2,
            Some((json!("Secret plan"), json!("Public plan")))
        );
    }

    #[test]
    fn a_note_read_that_differs_says_where_without_quoting_it() {
        let live = result("[lines 1-2 of 2] path=\"A.md\" sha256=aa\none\ntwo");
        let disk = result("[lines 1-2 of 2] path=\"A.md\" sha256=aa\none\nTWO");
        let found = differences(&live, &disk, false);
        assert_eq!(found.len(), 1);
        assert!(found[0].1.contains("from line 3"), "{found:?}");
        assert!(!format!("{found:?}").contains("TWO"));
    }

    #[test]
    fn a_sample_spreads_over_the_vault() {
        let notes: Vec<String> = (0..100).map(|index| format!("{index:03}.md")).collect();
        let picked = sample(&notes, 4);
        assert_eq!(picked, ["000.md", "025.md", "050.md", "075.md"]);
        assert_eq!(sample(&notes[..3], 4).len(), 3);
    }
}

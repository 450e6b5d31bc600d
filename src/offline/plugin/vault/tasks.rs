//! Task statuses and dates (`vault/tasks.ts`): the checkbox character's status, from the Tasks plugin's own settings
//! when the vault has them, and the due / scheduled / start / done dates in the Tasks plugin's emoji format or
//! Dataview's inline fields. The rules are stated in `obsidian-plugin/src/tools/README.md` (tasks).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::offline::obsidian::markdown::NoteMetadata;

/// A task item as the index keeps it (what `tasks` reports of it), taken from its note when the note was read, so
/// that listing tasks reads no note again.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Task {
    /// Zero-based line.
    pub(crate) line: usize,
    /// The checkbox character.
    pub(crate) status: Box<str>,
    /// The line after the checkbox, trimmed of spaces and tabs.
    pub(crate) text: Box<str>,
    /// The last heading above the task.
    pub(crate) heading: Option<Box<str>>,
    /// The tags written on the task's line.
    pub(crate) tags: Box<[Box<str>]>,
    /// The dates of the line (`task_dates`), one per field of [`DATE_FIELDS`] in its order.
    pub(crate) dates: [Option<Box<str>>; 4],
}

/// The task items of a note, in document order (`tasksOf` in `tools/tasks.ts`, less what depends on the vault's
/// settings).
pub(crate) fn task_items(text: &str, meta: &NoteMetadata) -> Vec<Task> {
    let mut tasks = Vec::new();
    let mut lines = LineCursor::new(text);
    for item in &meta.list_items {
        let Some(task) = &item.task else { continue };
        let at = item.position.start.line;
        let line = lines.line(at);
        let line = line.strip_suffix('\r').unwrap_or(line);
        // After the first `[`, the status and `]`.
        let rest = line
            .match_indices('[')
            .find_map(|(at, _)| {
                line[at + 1..]
                    .strip_prefix(task.as_str())
                    .and_then(|after| after.strip_prefix(']'))
            })
            .unwrap_or(line);
        let rest = rest.trim_matches([' ', '\t']);
        let heading = meta
            .headings
            .iter()
            .take_while(|heading| heading.position.start.line < at)
            .last()
            .map(|heading| heading.heading.as_str().into());
        let tags = meta
            .tags
            .iter()
            .filter(|tag| tag.position.start.line == at)
            .map(|tag| tag.tag.as_str().into())
            .collect();
        let dates = task_dates(rest).map(|date| date.map(Box::from));
        tasks.push(Task {
            line: at,
            status: task.as_str().into(),
            text: rest.into(),
            heading,
            tags,
            dates,
        });
    }
    tasks
}

/// The lines of a text split on "\n" (a final "\n" giving an empty last line), found by line number: forward from
/// the last one asked, since list items come in document order. Collecting every line of every note with tasks was
/// 5% of a build's instructions.
struct LineCursor<'a> {
    text: &'a str,
    /// The line number and byte where the last line asked starts.
    at: (usize, usize),
}

impl<'a> LineCursor<'a> {
    fn new(text: &'a str) -> Self {
        LineCursor { text, at: (0, 0) }
    }

    /// Line `number` without its "\n" ("" past the last line).
    fn line(&mut self, number: usize) -> &'a str {
        if number < self.at.0 {
            self.at = (0, 0);
        }
        let bytes = self.text.as_bytes();
        while self.at.0 < number {
            match memchr::memchr(b'\n', &bytes[self.at.1..]) {
                Some(end) => self.at = (self.at.0 + 1, self.at.1 + end + 1),
                None => return "",
            }
        }
        let rest = &self.text[self.at.1..];
        memchr::memchr(b'\n', rest.as_bytes()).map_or(rest, |end| &rest[..end])
    }
}

/// A status as the Tasks plugin defines one; `kind` is its type in the results' spelling (`todo`, `done`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TaskStatus {
    pub(crate) symbol: String,
    pub(crate) kind: &'static str,
}

/// The symbol of the status every character not defined otherwise has (`ANY_OTHER`; no single character is empty).
const ANY_OTHER: &str = "";

/// `DEFAULT_STATUSES`: a vault without Tasks plugin settings. The Tasks plugin's defaults, and Obsidian's own rule
/// for every other character: any character inside the brackets checks the box, so `X` and `?` are done.
fn default_statuses() -> Vec<TaskStatus> {
    [
        (" ", "todo"),
        ("x", "done"),
        ("X", "done"),
        ("/", "in_progress"),
        ("-", "cancelled"),
        (ANY_OTHER, "done"),
    ]
    .into_iter()
    .map(|(symbol, kind)| TaskStatus {
        symbol: symbol.to_string(),
        kind,
    })
    .collect()
}

fn kind_of(setting: &str) -> Option<&'static str> {
    Some(match setting {
        "TODO" => "todo",
        "IN_PROGRESS" => "in_progress",
        "DONE" => "done",
        "CANCELLED" => "cancelled",
        "NON_TASK" => "non_task",
        _ => return None,
    })
}

/// `statusesFromSettings`: `statusSettings.coreStatuses`, then `customStatuses`, the first definition of a symbol
/// winning; the defaults when they define none.
pub(crate) fn statuses_from_settings(settings: &Value) -> Vec<TaskStatus> {
    let mut found: Vec<TaskStatus> = Vec::new();
    for key in ["coreStatuses", "customStatuses"] {
        let Some(list) = settings["statusSettings"][key].as_array() else {
            continue;
        };
        for item in list {
            let (Some(symbol), Some(kind)) = (
                item["symbol"].as_str(),
                item["type"].as_str().and_then(kind_of),
            ) else {
                continue;
            };
            if symbol.chars().count() != 1 || found.iter().any(|status| status.symbol == symbol) {
                continue;
            }
            found.push(TaskStatus {
                symbol: symbol.to_string(),
                kind,
            });
        }
    }
    if found.is_empty() {
        default_statuses()
    } else {
        found
    }
}

/// `statusOf`: the status's type, else that of any other character (the defaults have one); else an unknown symbol
/// is a task to do, as the Tasks plugin treats it.
pub(crate) fn kind_of_symbol(statuses: &[TaskStatus], symbol: &str) -> &'static str {
    let find = |wanted: &str| statuses.iter().find(|status| status.symbol == wanted);
    find(symbol)
        .or_else(|| find(ANY_OTHER))
        .map_or("todo", |status| status.kind)
}

/// The dates a task may carry, in the order results list them (`DATE_FIELDS`).
pub(crate) const DATE_FIELDS: [&str; 4] = ["due", "scheduled", "start", "done"];

/// For each date field, its emoji pattern then its Dataview pattern (`DATE_PATTERNS`).
static DATE_PATTERNS: LazyLock<Vec<[Regex; 2]>> = LazyLock::new(|| {
    const DATE: &str = "([0-9]{4}-[0-9]{2}-[0-9]{2})";
    let emoji = |marks: &str| {
        Regex::new(&format!("(?:{marks})\\x{{FE0F}}? *{DATE}")).expect("a fixed pattern")
    };
    let dataview = |field: &str| {
        Regex::new(&format!(r"[\[(]{field}:: *{DATE} *[\])]")).expect("a fixed pattern")
    };
    vec![
        [emoji("📅|📆|🗓"), dataview("due")],
        [emoji("⏳|⌛"), dataview("scheduled")],
        [emoji("🛫"), dataview("start")],
        [emoji("✅"), dataview("completion")],
    ]
});

/// `taskDates`: each field's first date (in the order of [`DATE_FIELDS`]), the emoji format first, then Dataview's.
pub(crate) fn task_dates(text: &str) -> [Option<&str>; 4] {
    if !has_date(text) {
        return [None; 4];
    }
    std::array::from_fn(|field| {
        DATE_PATTERNS[field]
            .iter()
            .find_map(|pattern| pattern.find(text))
            .map(|found| date_of(found.as_str()))
    })
}

/// Whether `text` holds a `YYYY-MM-DD` in ASCII digits, which every one of [`DATE_PATTERNS`] needs: most tasks have
/// none, and their eight searches were 3% of a build's instructions.
fn has_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_digit);
    memchr::memchr_iter(b'-', bytes).any(|at| {
        at >= 4
            && bytes.len() >= at + 6
            && digits(at - 4..at)
            && digits(at + 1..at + 3)
            && bytes[at + 3] == b'-'
            && digits(at + 4..at + 6)
    })
}

/// The date in a match of [`DATE_PATTERNS`]: its last ten characters, or the ten before the spaces and the bracket
/// that close a Dataview field (found without the captures, which cost an allocation each: 121,000 at 10,000 notes).
fn date_of(found: &str) -> &str {
    let date = found
        .strip_suffix([']', ')'])
        .unwrap_or(found)
        .trim_end_matches(' ');
    &date[date.len() - 10..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_line_cursor_finds_the_lines_a_split_finds() {
        for text in ["", "one", "one\n", "a\r\nb\n\nc", "\n\n", "x\ny\nz\n"] {
            let split: Vec<&str> = text.split('\n').collect();
            let mut cursor = LineCursor::new(text);
            // Forward, then backward, then past the end.
            let order = (0..split.len())
                .chain((0..split.len()).rev())
                .chain([split.len() + 2]);
            for number in order {
                let expected = split.get(number).copied().unwrap_or("");
                assert_eq!(cursor.line(number), expected, "line {number} of {text:?}");
            }
        }
    }

    #[test]
    fn dates_in_both_formats() {
        let dates = task_dates(
            "Call 📅 2026-12-03 [scheduled:: 2026-12-01] ✅2026-12-04 (start:: 2026-11-30)",
        );
        assert_eq!(
            dates,
            [
                Some("2026-12-03"),
                Some("2026-12-01"),
                Some("2026-11-30"),
                Some("2026-12-04")
            ]
        );
        assert_eq!(
            task_dates("🗓️ 2026-12-24"),
            [Some("2026-12-24"), None, None, None]
        );
        assert_eq!(
            task_dates("x [due::  2026-01-02  ] (completion::2026-01-05)"),
            [Some("2026-01-02"), None, None, Some("2026-01-05")]
        );
        // Arabic-Indic digits are digits to Rust's `\d`, not to JavaScript's: the pattern spells out 0-9.
        assert_eq!(task_dates("📅 ٢٠٢٦-١٢-٠١"), [None; 4]);
    }

    #[test]
    fn statuses_follow_the_tasks_plugin() {
        let settings = json!({"statusSettings": {
            "coreStatuses": [{"symbol": " ", "type": "TODO"}, {"symbol": "x", "type": "DONE"}],
            "customStatuses": [{"symbol": "?", "type": "NON_TASK"}, {"symbol": "x", "type": "TODO"}, {"symbol": "ab", "type": "DONE"}],
        }});
        let statuses = statuses_from_settings(&settings);
        assert_eq!(kind_of_symbol(&statuses, "x"), "done");
        assert_eq!(kind_of_symbol(&statuses, "?"), "non_task");
        assert_eq!(
            kind_of_symbol(&statuses, "X"),
            "todo",
            "unknown symbols are to do"
        );
        assert_eq!(
            kind_of_symbol(&statuses_from_settings(&Value::Null), "X"),
            "done"
        );
        assert_eq!(
            kind_of_symbol(&statuses_from_settings(&Value::Null), "?"),
            "done",
            "without settings any character checks the box, as in Obsidian"
        );
    }

    #[test]
    fn a_text_without_a_date_is_one_no_pattern_matches() {
        let pieces = [
            "📅", "[due:: ", "(start::", "✅ ", "2024", "2024-01", "-", "01", "1", "-02", " ", "]",
            ")",
        ];
        let mut texts = vec![String::new()];
        let mut dated = 0;
        for _ in 0..4 {
            texts = texts
                .iter()
                .flat_map(|text| pieces.iter().map(move |piece| format!("{text}{piece}")))
                .collect();
            for text in &texts {
                let matched = DATE_PATTERNS
                    .iter()
                    .flatten()
                    .any(|pattern| pattern.is_match(text));
                if matched {
                    assert!(has_date(text), "{text:?}");
                    dated += 1;
                }
            }
        }
        assert!(dated >= 50, "{dated} texts with a date");
        assert!(has_date("📅 2024-01-02"));
        assert_eq!(task_dates("📅 2024-01-02")[0], Some("2024-01-02"));
        assert!(!has_date("2024-01-2 and 202-01-02"));
    }
}

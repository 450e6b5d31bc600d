//! How an offline answer says where it came from (the module note of `offline` lists the marks), and the notices
//! put first in a result that is slower or incomplete (no word index, notes too large to read).

use serde_json::{Value, json};

use super::plugin::tools::{self, Output, ToolError};
use super::plugin::vault::paths;
use super::{SERVED_FROM_KEY, SOURCE_META_KEY};

/// Where an answer came from, as its marks say.
#[derive(Clone, Copy)]
pub(super) enum Source {
    /// Offline mode: Obsidian is closed.
    Disk,
    /// The bridge's index while Obsidian is open (`answer_from_index`).
    Index,
}

impl Source {
    fn word(self) -> &'static str {
        match self {
            Source::Disk => "disk",
            Source::Index => "index",
        }
    }
}

/// A tool's outcome as a `CallToolResult` carrying the marks of where it came from.
pub(super) fn marked(outcome: Result<Output, ToolError>, source: Source) -> Value {
    let word = source.word();
    match outcome {
        Ok(Output::Attachment { header, block }) => {
            let mut result = tool_result(&format!("{header} served_from={word}"), false, source);
            if let Some(content) = result["content"].as_array_mut() {
                content.push(block);
            }
            result
        }
        Ok(output) => tool_result(&mark_source(output, source), false, source),
        Err(ToolError(message)) => tool_result(&message, true, source),
    }
}

/// The key that opens a result that had to leave notes out.
pub(crate) const SKIPPED_KEY: &str = "skipped_notes";

/// The key that opens a text search answered without the word index (the index passed its memory budget).
pub(crate) const INDEX_LIMITED_KEY: &str = "index_limited";

/// What a search says when the word index was dropped for the memory budget: slower, not cut, and how to undo it.
pub(super) fn index_limited_notice(budget: u64) -> String {
    format!(
        "dropped: this vault's offline index passed the bridge's memory budget of {} MB, so it keeps no word index and text search reads every note from disk (slower; nothing is left out). Raise the budget with `--index-memory-mb` in the client's entry, or open Obsidian",
        budget >> 20
    )
}

/// A JSON result with `key` as its first field.
pub(super) fn with_first_field(output: Output, key: &str, value: &str) -> Output {
    let Output::Json(Value::Object(object)) = output else {
        return output;
    };
    let mut first = serde_json::Map::new();
    first.insert(key.into(), json!(value));
    first.extend(object);
    Output::Json(Value::Object(first))
}

/// Puts a notice first in a JSON result whose answer depends on every note's text, links or tags when some notes
/// were too large to read from disk: a reader who stops early still learns the answer is incomplete.
pub(super) fn with_skipped_notice(name: &str, output: Output, too_large: &[String]) -> Output {
    const NAMED: usize = 5;
    let Output::Json(Value::Object(object)) = output else {
        return output;
    };
    if too_large.is_empty() || !tools::reads_every_note(name) {
        return Output::Json(Value::Object(object));
    }
    let named: Vec<String> = too_large
        .iter()
        .take(NAMED)
        .map(|path| paths::quote(path))
        .collect();
    let more = too_large.len().saturating_sub(NAMED);
    let notice = format!(
        "{} note(s) over the {} MB that offline mode reads of one file are not in this answer (their text, links \
         and tags are not read): {}{}; open the vault in Obsidian to include them",
        too_large.len(),
        paths::MAX_FILE_BYTES / 1_048_576,
        named.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    );
    with_first_field(Output::Json(Value::Object(object)), SKIPPED_KEY, &notice)
}

/// The result text with its "served from" mark.
fn mark_source(output: Output, source: Source) -> String {
    let word = source.word();
    match output {
        Output::Json(Value::Object(mut object)) => {
            object.insert(SERVED_FROM_KEY.into(), json!(word));
            serde_json::to_string(&Value::Object(object)).unwrap_or_default()
        }
        Output::Read { header, body } => format!("{header} served_from={word}\n{body}"),
        other => other.text(),
    }
}

fn tool_result(text: &str, is_error: bool, source: Source) -> Value {
    let mut result = json!({"content": [{"type": "text", "text": text}]});
    if is_error {
        result["isError"] = json!(true);
    }
    result["_meta"] = json!({SOURCE_META_KEY: source.word()});
    result
}

/// Removes the offline marks from a result, leaving what the plugin would have sent; for parity comparisons.
#[cfg(test)]
pub(crate) fn strip_disk_marks(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(object) = result.as_object_mut() {
        object.remove("_meta");
    }
    if let Some(text) = result["content"][0]["text"].as_str() {
        let plain = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(mut object))
                if object.get(SERVED_FROM_KEY) == Some(&json!("disk")) =>
            {
                object.remove(SERVED_FROM_KEY);
                serde_json::to_string(&object).unwrap_or_default()
            }
            _ => match text.split_once('\n') {
                Some((header, body)) if header.ends_with(" served_from=disk") => {
                    format!("{}\n{body}", header.trim_end_matches(" served_from=disk"))
                }
                None if text.ends_with(" served_from=disk") => {
                    text.trim_end_matches(" served_from=disk").to_string()
                }
                _ => text.to_string(),
            },
        };
        result["content"][0]["text"] = json!(plain);
    }
    result
}

//! `batch`: several read calls in one, sharing one character budget (`tools/batch.ts`).

use serde_json::{Map, Value, json};

use super::args::{as_batch_message, expected, invalid};
use crate::offline::js::utf16_len;
use crate::offline::plugin::tools::{
    Args, Context, Output, ToolError, led_by, needs_obsidian, run,
};
use crate::offline::plugin::vault::limits::cut_chars;
use crate::offline::plugin::vault::paths::quote;

const MAX_BATCH_CALLS: usize = 8;
const MIN_CALL_BUDGET: usize = 100;
/// Room left for a result's own framing (read header, JSON envelope) when a call's max_chars is lowered.
const FRAMING_RESERVE: usize = 600;
/// The plugin's batchable tools: the read-only tools of these groups, in its order.
const BATCHABLE: [&str; 15] = [
    "vault_info",
    "list_files",
    "read_note",
    "note_metadata",
    "outline",
    "search",
    "backlinks",
    "outgoing_links",
    "unresolved_links",
    "orphans",
    "tags",
    "files_by_tag",
    "active_note",
    "recent_files",
    "daily_note",
];

pub(super) fn batch(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let max_chars = args.max_chars()?;
    let parsed = batch_calls(args)?;
    let mut results = Vec::new();
    let mut not_run = Vec::new();
    let mut used = 0;
    let mut truncated = false;
    for (tool, mut arguments) in parsed {
        let remaining = max_chars.saturating_sub(used);
        if remaining < MIN_CALL_BUDGET {
            results.push(json!({"tool": tool, "ok": false, "error": "not run: the batch's max_chars budget is used up"}));
            not_run.push(json!({"tool": tool, "arguments": arguments}));
            truncated = true;
            continue;
        }
        if let Some(reason) = not_batchable(&tool) {
            results.push(json!({"tool": tool, "ok": false, "error": reason}));
            continue;
        }
        lower_max_chars(&tool, &mut arguments, remaining);
        let outcome = if tool == "active_note" {
            Err(ToolError(needs_obsidian(&tool)))
        } else {
            run(ctx, &tool, arguments)
        };
        match outcome {
            Ok(output) => {
                let text = output.text();
                let length = utf16_len(&text);
                let cut = length > remaining;
                if cut {
                    results.push(json!({"tool": tool, "ok": true, "text": cut_chars(&text, remaining), "truncated": true}));
                } else {
                    results.push(json!({"tool": tool, "ok": true, "text": text}));
                }
                used += length.min(remaining);
                truncated |= cut;
            }
            Err(ToolError(message)) => {
                let message = as_batch_message(&message).unwrap_or(message);
                results.push(json!({"tool": tool, "ok": false, "error": message}));
            }
        }
    }
    // The calls left out lead the result as the batch that runs them, so that a client cutting its end still shows it.
    let mut head = Map::new();
    head.insert("truncated".into(), Value::Bool(truncated));
    if !not_run.is_empty() {
        head.insert(
            "continue_with".into(),
            args.next_call(vec![("calls", Value::Array(not_run))], &[]),
        );
    }
    Ok(Output::Json(led_by(head, json!({"results": results}))))
}

/// The batch's calls, each a tool name and its arguments, or the first argument error in zod's words.
fn batch_calls(args: &Args<'_>) -> Result<Vec<(String, Value)>, ToolError> {
    let calls = match args.raw("calls") {
        Some(Value::Array(calls)) if (1..=MAX_BATCH_CALLS).contains(&calls.len()) => calls.clone(),
        Some(Value::Array(calls)) if calls.is_empty() => {
            return Err(invalid_batch(
                "calls",
                "Too small: expected array to have >=1 items",
            ));
        }
        Some(Value::Array(_)) => {
            return Err(invalid_batch(
                "calls",
                "Too big: expected array to have <=8 items",
            ));
        }
        Some(other) => {
            return Err(invalid_batch("calls", &expected("array", other)));
        }
        None => {
            return Err(invalid_batch(
                "calls",
                "Invalid input: expected array, received undefined",
            ));
        }
    };
    let mut parsed = Vec::new();
    for (index, call) in calls.iter().enumerate() {
        let tool = match call.get("tool") {
            Some(Value::String(tool)) if !tool.is_empty() => tool.clone(),
            Some(Value::String(_)) => {
                return Err(invalid_batch(
                    &format!("calls.{index}.tool"),
                    "Too small: expected string to have >=1 characters",
                ));
            }
            other => {
                return Err(invalid_batch(
                    &format!("calls.{index}.tool"),
                    &expected("string", other.unwrap_or(&Value::Null)),
                ));
            }
        };
        let arguments = match call.get("arguments") {
            None => json!({}),
            Some(Value::Object(map)) => Value::Object(map.clone()),
            Some(other) => {
                return Err(invalid_batch(
                    &format!("calls.{index}.arguments"),
                    &expected("record", other),
                ));
            }
        };
        parsed.push((tool, arguments));
    }
    Ok(parsed)
}

/// Why a tool cannot run in a batch, or `None` when it can.
fn not_batchable(tool: &str) -> Option<String> {
    if BATCHABLE.contains(&tool) {
        return None;
    }
    Some(if tool == "batch" {
        "batch cannot be nested".to_string()
    } else if tool == "read_attachment" {
        "read_attachment cannot run in a batch (an image or audio does not fit a batch's text): call it on its own"
                .to_string()
    } else {
        format!(
            "{} is not a read-only tool (batch runs only: {})",
            quote(tool),
            BATCHABLE.join(", ")
        )
    })
}

/// Lowers a call's `max_chars` to what is left of the batch's budget, for the tools that take one.
fn lower_max_chars(tool: &str, arguments: &mut Value, remaining: usize) {
    let takes_max_chars = matches!(
        tool,
        "list_files"
            | "read_note"
            | "search"
            | "backlinks"
            | "files_by_tag"
            | "active_note"
            | "daily_note"
    );
    if takes_max_chars {
        let asked = match arguments.get("max_chars") {
            None => Some(20_000),
            Some(value) => value
                .as_u64()
                .filter(|n| (100..=200_000).contains(n))
                .map(|n| n as usize),
        };
        if let Some(asked) = asked {
            arguments["max_chars"] = json!(
                asked
                    .min(remaining.saturating_sub(FRAMING_RESERVE))
                    .max(MIN_CALL_BUDGET)
            );
        }
    }
}

fn invalid_batch(key: &str, problem: &str) -> ToolError {
    invalid("batch", key, problem)
}

//! `properties` (`tools/properties.ts`): property names with types and counts, one property's values, or the notes
//! whose property has a value, from the index's frontmatter and `<configDir>/types.json`.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::offline::js::{js_cmp, js_trim};
use crate::offline::plugin::tools::args::invalid;
use crate::offline::plugin::tools::{Args, Context, Output, ToolError, page_of, paged_result};
use crate::offline::plugin::vault::daily::read_config_json;
use crate::offline::plugin::vault::limits::offset_from_cursor;
use crate::offline::plugin::vault::paths::{is_in_config_dir, quote};

/// `declaredTypes`: types.json's `types`, keyed by lower-cased name, the first spelling winning.
fn declared_types(ctx: &Context<'_>) -> HashMap<String, String> {
    let mut types = HashMap::new();
    let declared = read_config_json(ctx, "types.json");
    if let Some(map) = declared.get("types").and_then(Value::as_object) {
        for (name, kind) in map {
            if let Some(kind) = kind.as_str() {
                types
                    .entry(name.to_lowercase())
                    .or_insert_with(|| kind.to_string());
            }
        }
    }
    types
}

/// Whether `text` is `YYYY-MM-DD` followed by `rest` (ASCII digits, as JavaScript's `\d`).
fn dated(text: &str, time: bool) -> bool {
    let shape: &[u8] = if time {
        b"dddd-dd-ddTdd:dd"
    } else {
        b"dddd-dd-dd"
    };
    let bytes = text.as_bytes();
    let fits = |bytes: &[u8]| {
        bytes.iter().zip(shape).all(|(byte, want)| {
            if *want == b'd' {
                byte.is_ascii_digit()
            } else {
                byte == want
            }
        })
    };
    if !time {
        return bytes.len() == shape.len() && fits(bytes);
    }
    (bytes.len() == shape.len() || bytes.len() == shape.len() + 3)
        && fits(bytes)
        && (bytes.len() == shape.len()
            || (bytes[shape.len()] == b':'
                && bytes[shape.len() + 1..].iter().all(u8::is_ascii_digit)))
}

/// `inferredType`.
fn inferred_type(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "multitext",
        Value::Bool(_) => "checkbox",
        Value::Number(_) => "number",
        Value::String(text) if dated(text, false) => "date",
        Value::String(text) if dated(text, true) => "datetime",
        _ => "text",
    }
}

/// `typeOf`: the declared or built-in type, else the inferred one with `"inferred": true`.
fn type_of(
    declared: &HashMap<String, String>,
    key: &str,
    first: &Value,
) -> Vec<(&'static str, Value)> {
    let built_in = match key {
        "tags" => Some("tags"),
        "aliases" => Some("aliases"),
        "cssclasses" => Some("multitext"),
        _ => None,
    };
    match declared.get(key).map(String::as_str).or(built_in) {
        Some(kind) => vec![("type", json!(kind))],
        None => vec![
            ("type", json!(inferred_type(first))),
            ("inferred", json!(true)),
        ],
    }
}

/// `scalarText`.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.to_lowercase(),
        other => other.to_string().to_lowercase(),
    }
}

/// The `value` argument: a string (at most 1,000 UTF-16 units), a number or a boolean. zod names the closest member
/// of the union: a string that is too long is told so, anything else is "Invalid input".
fn value_arg(args: &Args<'_>) -> Result<Option<Value>, ToolError> {
    match args.raw("value") {
        None => Ok(None),
        Some(Value::String(text)) if text.encode_utf16().count() > 1000 => Err(invalid(
            "properties",
            "value",
            "Too big: expected string to have <=1000 characters",
        )),
        Some(value @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => {
            Ok(Some(value.clone()))
        }
        Some(_) => Err(invalid("properties", "value", "Invalid input")),
    }
}

/// A note's frontmatter keys in order, with their values as JSON text.
type Entries<'a> = Vec<(Cow<'a, str>, &'a RawValue)>;

/// The frontmatter entries (values unparsed) of every visible Markdown note inside the vault that has any, in path
/// order.
fn notes_with_properties<'a>(ctx: &Context<'a>) -> Vec<(&'a str, Entries<'a>)> {
    let snapshot = ctx.snapshot;
    snapshot
        .sorted_notes
        .iter()
        .map(|&index| &snapshot.files[index])
        .filter(|file| !is_in_config_dir(&file.path, ctx.config_dir))
        .filter_map(|file| {
            let entries = snapshot.note(&file.path)?.frontmatter_entries()?;
            (!entries.is_empty()).then_some((file.path.as_str(), entries))
        })
        .collect()
}

/// A value of the index's frontmatter JSON (which it wrote, so it parses).
fn parsed(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

fn is_null(raw: &RawValue) -> bool {
    raw.get() == "null"
}

/// One page of `all` within the budget: the page and the next cursor.
fn page(all: Vec<Value>, args: &Args<'_>) -> Result<(Vec<Value>, Value), ToolError> {
    let offset = offset_from_cursor(args.cursor()?.as_deref())?;
    Ok(page_of(
        all,
        offset,
        args.limit(200)?,
        args.max_chars()?,
        300,
    ))
}

fn object(entries: Vec<(&str, Value)>) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(key, value)| (key.to_string(), value))
            .collect(),
    )
}

pub(super) fn properties(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let name = args.opt_string("name", 1, 200)?;
    let value = value_arg(args)?;
    let by_count = args.choice("sort", &["count", "name"], "count")? == "count";
    // The paging arguments are checked here, in the schema's order, before any other refusal.
    args.limit(200)?;
    args.cursor()?;
    args.max_chars()?;
    let notes = notes_with_properties(ctx);
    let declared = declared_types(ctx);

    let Some(name) = name else {
        if value.is_some() {
            return Err(ToolError::new(
                "value needs name: the property whose value to find",
            ));
        }
        return property_names(args, &notes, &declared, by_count);
    };

    let key = js_trim(&name).to_lowercase();
    if key.is_empty() {
        return Err(ToolError(format!(
            "name {} is not a property name",
            quote(&name)
        )));
    }
    let having: Vec<(&str, Value)> = notes
        .iter()
        .filter_map(|(path, frontmatter)| {
            frontmatter
                .iter()
                .find(|(candidate, _)| candidate.to_lowercase() == key)
                .map(|(_, value)| (*path, parsed(value)))
        })
        .collect();
    let first = having
        .iter()
        .map(|(_, value)| value)
        .find(|value| !value.is_null())
        .cloned()
        .unwrap_or(Value::Null);
    let kind = type_of(&declared, &key, &first);
    match value {
        None => property_values(args, &name, kind, &having, by_count),
        Some(wanted) => notes_with_value(args, &name, wanted, &having),
    }
}

/// Every property name of the vault (spelled as first seen, matched ignoring case), with its type and how many notes
/// have it.
fn property_names(
    args: &Args<'_>,
    notes: &[(&str, Entries<'_>)],
    declared: &HashMap<String, String>,
    by_count: bool,
) -> Result<Output, ToolError> {
    let mut order: Vec<String> = Vec::new();
    let mut names: HashMap<String, (String, usize, &RawValue)> = HashMap::new();
    for (_, frontmatter) in notes {
        for (key, value) in frontmatter {
            let folded = key.to_lowercase();
            match names.get_mut(&folded) {
                Some(entry) => {
                    entry.1 += 1;
                    if is_null(entry.2) {
                        entry.2 = value;
                    }
                }
                None => {
                    order.push(folded.clone());
                    names.insert(folded, (key.to_string(), 1, value));
                }
            }
        }
    }
    let mut all: Vec<(String, Value, usize)> = order
        .into_iter()
        .map(|folded| {
            let (spelled, count, first) = names.remove(&folded).expect("every name was counted");
            let mut entry = vec![("name", json!(spelled))];
            entry.extend(type_of(declared, &folded, &parsed(first)));
            entry.push(("count", json!(count)));
            (spelled, object(entry), count)
        })
        .collect();
    all.sort_by(|a, b| {
        let by_name = || js_cmp(&a.0.to_lowercase(), &b.0.to_lowercase());
        if by_count && a.2 != b.2 {
            b.2.cmp(&a.2)
        } else {
            by_name()
        }
    });
    let total = all.len();
    let (shown, next) = page(all.into_iter().map(|(_, entry, _)| entry).collect(), args)?;
    Ok(Output::Json(paged_result(
        args,
        next,
        json!({"total": total, "properties": shown}),
    )))
}

/// The values one property takes (each list item on its own), with how many notes have each.
fn property_values(
    args: &Args<'_>,
    name: &str,
    kind: Vec<(&'static str, Value)>,
    having: &[(&str, Value)],
    by_count: bool,
) -> Result<Output, ToolError> {
    let mut order: Vec<String> = Vec::new();
    let mut values: HashMap<String, (Value, usize)> = HashMap::new();
    for (_, value) in having {
        let items: Vec<&Value> = match value {
            Value::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        let mut seen = HashSet::new();
        for item in items {
            let id = item.to_string();
            if !seen.insert(id.clone()) {
                continue;
            }
            match values.get_mut(&id) {
                Some(entry) => entry.1 += 1,
                None => {
                    order.push(id.clone());
                    values.insert(id, (item.clone(), 1));
                }
            }
        }
    }
    let mut all: Vec<(String, Value, usize)> = order
        .into_iter()
        .map(|id| {
            let (value, count) = values.remove(&id).expect("every value was counted");
            (id, value, count)
        })
        .collect();
    all.sort_by(|a, b| {
        if by_count && a.2 != b.2 {
            b.2.cmp(&a.2)
        } else {
            js_cmp(&a.0, &b.0)
        }
    });
    let total = all.len();
    let entries = all
        .into_iter()
        .map(|(_, value, count)| json!({"value": value, "count": count}))
        .collect();
    let (shown, next) = page(entries, args)?;
    let mut body = vec![("property", json!(name))];
    body.extend(kind);
    body.extend([
        ("notes", json!(having.len())),
        ("total", json!(total)),
        ("values", json!(shown)),
    ]);
    Ok(Output::Json(paged_result(args, next, object(body))))
}

/// The notes whose property has the wanted value (or holds it in a list).
fn notes_with_value(
    args: &Args<'_>,
    name: &str,
    wanted: Value,
    having: &[(&str, Value)],
) -> Result<Output, ToolError> {
    let text = scalar_text(&wanted);
    let scalar_matches = |value: &Value| {
        !value.is_null() && !value.is_object() && !value.is_array() && scalar_text(value) == text
    };
    let matches = |value: &Value| match value {
        Value::Array(items) => items.iter().any(scalar_matches),
        other => scalar_matches(other),
    };
    let all: Vec<Value> = having
        .iter()
        .filter(|(_, value)| matches(value))
        .map(|(path, value)| json!({"path": path, "value": value}))
        .collect();
    let total = all.len();
    let (shown, next) = page(all, args)?;
    Ok(Output::Json(paged_result(
        args,
        next,
        json!({"property": name, "value": wanted, "total": total, "notes": shown}),
    )))
}

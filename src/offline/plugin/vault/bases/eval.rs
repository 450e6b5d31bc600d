//! Evaluating a Bases expression for one file (`vault/bases-expr.ts`): the same values, coercions, functions and
//! refusals, strings compared in UTF-16 order and numbers written as JavaScript writes them.

use serde_json::{Value as Json, json};

use crate::offline::js::{js_cmp, js_number};
use crate::offline::plugin::tools::{ToolError, iso_time};

use super::duration::{parse_duration, shift_date};
use super::facts::{NoteFacts, strip_md, tag_is_or_under};
use super::functions;
use super::parse::Expr;
use super::value::{Value, kind_of, text};
use crate::offline::js::lowers_to;

/// `Row`: one file and what the vault knows of it.
pub(crate) struct Row<'a> {
    pub(crate) path: &'a str,
    pub(crate) name: &'a str,
    pub(crate) basename: &'a str,
    pub(crate) folder: &'a str,
    pub(crate) ext: &'a str,
    pub(crate) size: u64,
    pub(crate) ctime: i64,
    pub(crate) mtime: i64,
    /// The note's tags, links and properties, read only when the view asks.
    pub(crate) note: &'a dyn NoteFacts,
    pub(crate) formula: &'a dyn Fn(&str) -> Result<Value, ToolError>,
    pub(crate) now: f64,
}

/// `toValue`.
pub(crate) fn to_value(raw: &Json) -> Value {
    match raw {
        Json::Null => Value::Null,
        Json::String(text) => Value::Str(text.clone()),
        Json::Number(number) => Value::Num(number.as_f64().unwrap_or(f64::NAN)),
        Json::Bool(b) => Value::Bool(*b),
        Json::Array(items) => Value::List(items.iter().map(to_value).collect()),
        Json::Object(_) => Value::Str(raw.to_string()),
    }
}

/// `truthy`.
pub(crate) fn truthy(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => false,
        Value::Num(n) => *n != 0.0,
        Value::Str(text) => !text.is_empty(),
        Value::List(items) => !items.is_empty(),
        _ => true,
    }
}

/// `Date.UTC` for whole numbers (months and days overflow into the next ones; years 0-99 are 1900-1999).
fn date_utc(year: i64, month: i64, day: i64, hour: i64, minute: i64, second: i64) -> f64 {
    let year = if (0..=99).contains(&year) {
        year + 1900
    } else {
        year
    };
    let months = year * 12 + month;
    let (y, m) = (months.div_euclid(12), months.rem_euclid(12) + 1);
    // Days from 1970-01-01 to y-m-01 (Howard Hinnant's days_from_civil).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468 + (day - 1);
    (days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000) as f64
}

/// `parseDate`.
fn parse_date(raw: &str) -> Result<f64, ToolError> {
    let trimmed = crate::offline::js::js_trim(raw);
    let bad = || {
        ToolError(format!(
            "date({}) is not YYYY-MM-DD or YYYY-MM-DDTHH:mm[:ss]",
            crate::offline::plugin::vault::paths::quote(raw)
        ))
    };
    let b = trimmed.as_bytes();
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(range)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| std::str::from_utf8(part).ok()?.parse().ok())
            .flatten()
    };
    let date = b.len() >= 10 && b[4] == b'-' && b[7] == b'-';
    let (Some(y), Some(mo), Some(d)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return Err(bad());
    };
    if !date {
        return Err(bad());
    }
    let (h, mi, s) = match b.len() {
        10 => (0, 0, 0),
        16 | 19 if (b[10] == b'T' || b[10] == b' ') && b[13] == b':' => {
            let (Some(h), Some(mi)) = (digits(11..13), digits(14..16)) else {
                return Err(bad());
            };
            let s = if b.len() == 19 {
                if b[16] != b':' {
                    return Err(bad());
                }
                digits(17..19).ok_or_else(bad)?
            } else {
                0
            };
            (h, mi, s)
        }
        _ => return Err(bad()),
    };
    Ok(date_utc(y, mo - 1, d, h, mi, s))
}

fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Date(x), Value::Date(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q))
        }
        (Value::Num(x), Value::Num(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Null, Value::Null) => true,
        _ => false,
    }
}

fn compare(op: &str, a: &Value, b: &Value) -> Result<bool, ToolError> {
    let ordering = match (a, b) {
        (Value::Num(x), Value::Num(y)) | (Value::Date(x), Value::Date(y)) => {
            return Ok(match op {
                "<" => x < y,
                "<=" => x <= y,
                ">" => x > y,
                _ => x >= y,
            });
        }
        (Value::Str(x), Value::Str(y)) => js_cmp(x, y),
        (Value::Null, _) | (_, Value::Null) => return Ok(false),
        _ => {
            return Err(ToolError(format!(
                "cannot compare {} with {} ({op})",
                kind_of(a),
                kind_of(b)
            )));
        }
    };
    Ok(match op {
        "<" => ordering.is_lt(),
        "<=" => ordering.is_le(),
        ">" => ordering.is_gt(),
        _ => ordering.is_ge(),
    })
}

/// `evaluate`.
pub(crate) fn evaluate(expr: &Expr, row: &Row<'_>) -> Result<Value, ToolError> {
    Ok(match expr {
        Expr::Lit(value) => value.clone(),
        Expr::List(items) => Value::List(
            items
                .iter()
                .map(|item| evaluate(item, row))
                .collect::<Result<_, _>>()?,
        ),
        Expr::Name(path) => name_value(path, row)?,
        Expr::Unary(op, operand) => {
            let value = evaluate(operand, row)?;
            if *op == '!' {
                return Ok(Value::Bool(!truthy(&value)));
            }
            match value {
                Value::Num(n) => Value::Num(-n),
                Value::Null => Value::Null,
                other => return Err(ToolError(format!("cannot negate {}", kind_of(&other)))),
            }
        }
        Expr::Binary(op, left, right) => binary_value(op, left, right, row)?,
        Expr::Call(callee, args) => call_value(callee, args, row)?,
        Expr::Member(target, name) => {
            let target = evaluate(target, row)?;
            match (&target, name.as_str()) {
                (Value::Str(s), "length") => Value::Num(s.encode_utf16().count() as f64),
                (Value::List(items), "length") => Value::Num(items.len() as f64),
                (Value::Null, "length") => Value::Null,
                _ => {
                    return Err(ToolError(format!(
                        "unknown member .{name} of {} (bases knows .length)",
                        kind_of(&target)
                    )));
                }
            }
        }
        Expr::Method(target, name, args) => method_value(target, name, args, row)?,
        Expr::Index(target, index) => {
            let target = evaluate(target, row)?;
            let index = evaluate(index, row)?;
            match (&target, &index) {
                (Value::Null, _) => Value::Null,
                (Value::List(items), Value::Num(n)) if n.fract() == 0.0 => {
                    if *n >= 0.0 && *n < items.len() as f64 {
                        items[*n as usize].clone()
                    } else {
                        Value::Null
                    }
                }
                _ => {
                    return Err(ToolError(format!(
                        "cannot index {} with {} (bases indexes lists with whole numbers)",
                        kind_of(&target),
                        kind_of(&index)
                    )));
                }
            }
        }
    })
}

fn name_value(path: &[String], row: &Row<'_>) -> Result<Value, ToolError> {
    let head = path[0].as_str();
    let field = path.get(1).map_or("", String::as_str);
    if path.len() > 1 && head == "formula" {
        return (row.formula)(field);
    }
    if path.len() == 1 || head == "note" {
        let key = if path.len() == 1 { head } else { field };
        let wanted = key.to_lowercase();
        return Ok(row
            .note
            .properties()
            .iter()
            .find(|(candidate, _)| lowers_to(candidate, &wanted))
            .map_or(Value::Null, |(_, raw)| {
                to_value(&serde_json::from_str(raw.get()).unwrap_or(Json::Null))
            }));
    }
    Ok(match field {
        "name" => Value::Str(row.name.into()),
        "basename" => Value::Str(row.basename.into()),
        "path" => Value::Str(row.path.into()),
        "folder" => Value::Str(row.folder.into()),
        "ext" => Value::Str(row.ext.into()),
        "size" => Value::Num(row.size as f64),
        "ctime" => Value::Date(row.ctime as f64),
        "mtime" => Value::Date(row.mtime as f64),
        "tags" => Value::List(
            row.note
                .tags()
                .iter()
                .map(|tag| Value::Str(format!("#{tag}")))
                .collect(),
        ),
        _ => {
            return Err(ToolError(format!(
                "unknown file property file.{field} (bases knows name, basename, path, folder, ext, size, ctime, mtime, tags)"
            )));
        }
    })
}

fn binary_value(op: &str, left: &Expr, right: &Expr, row: &Row<'_>) -> Result<Value, ToolError> {
    if op == "&&" {
        return Ok(Value::Bool(
            truthy(&evaluate(left, row)?) && truthy(&evaluate(right, row)?),
        ));
    }
    if op == "||" {
        return Ok(Value::Bool(
            truthy(&evaluate(left, row)?) || truthy(&evaluate(right, row)?),
        ));
    }
    let a = evaluate(left, row)?;
    let b = evaluate(right, row)?;
    match op {
        "==" => return Ok(Value::Bool(equal(&a, &b))),
        "!=" => return Ok(Value::Bool(!equal(&a, &b))),
        "<" | "<=" | ">" | ">=" => return Ok(Value::Bool(compare(op, &a, &b)?)),
        "+" => {
            if let (Value::Date(date), Value::Str(written)) = (&a, &b)
                && let Some(duration) = parse_duration(written)
            {
                return Ok(Value::Date(shift_date(*date, duration, 1)));
            }
            return match (&a, &b) {
                (Value::Num(x), Value::Num(y)) => Ok(Value::Num(x + y)),
                (Value::Str(_), _) | (_, Value::Str(_)) => Ok(Value::Str(text(&a) + &text(&b))),
                // An empty property makes the sum empty, as Bases shows it.
                (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
                _ => Err(ToolError(format!(
                    "cannot add {} and {}",
                    kind_of(&a),
                    kind_of(&b)
                ))),
            };
        }
        // A date minus a date is the milliseconds between them; minus a duration, an earlier date.
        "-" => match (&a, &b) {
            (Value::Date(x), Value::Date(y)) => return Ok(Value::Num(x - y)),
            (Value::Date(date), Value::Str(written)) => {
                if let Some(duration) = parse_duration(written) {
                    return Ok(Value::Date(shift_date(*date, duration, -1)));
                }
            }
            _ => {}
        },
        _ => {}
    }
    if matches!(a, Value::Null) || matches!(b, Value::Null) {
        return Ok(Value::Null);
    }
    let (Value::Num(x), Value::Num(y)) = (&a, &b) else {
        return Err(ToolError(format!(
            "\"{op}\" needs numbers, not {} and {}",
            kind_of(&a),
            kind_of(&b)
        )));
    };
    Ok(match op {
        "-" => Value::Num(x - y),
        "*" => Value::Num(x * y),
        _ if *y == 0.0 => Value::Null,
        "/" => Value::Num(x / y),
        _ => Value::Num(x % y),
    })
}

/// `one`: the arguments of a call that takes exactly `count`.
fn one(name: &str, args: &[Expr], row: &Row<'_>, count: usize) -> Result<Vec<Value>, ToolError> {
    if args.len() != count {
        return Err(ToolError(format!(
            "{name}() takes {count} argument{}, not {}",
            if count == 1 { "" } else { "s" },
            args.len()
        )));
    }
    args.iter().map(|arg| evaluate(arg, row)).collect()
}

fn call_value(callee: &[String], args: &[Expr], row: &Row<'_>) -> Result<Value, ToolError> {
    let name = callee.join(".");
    let folded = |value: &Value| text(value).to_lowercase();
    Ok(match name.as_str() {
        "if" => {
            if args.len() < 2 || args.len() > 3 {
                return Err(ToolError(format!(
                    "if() takes 2 or 3 arguments, not {}",
                    args.len()
                )));
            }
            if truthy(&evaluate(&args[0], row)?) {
                evaluate(&args[1], row)?
            } else if args.len() == 3 {
                evaluate(&args[2], row)?
            } else {
                Value::Null
            }
        }
        "now" => {
            one(&name, args, row, 0)?;
            Value::Date(row.now)
        }
        "today" => {
            one(&name, args, row, 0)?;
            Value::Date((row.now / 86_400_000.0).floor() * 86_400_000.0)
        }
        "date" => match one(&name, args, row, 1)?.remove(0) {
            Value::Str(raw) => Value::Date(parse_date(&raw)?),
            other => {
                return Err(ToolError(format!(
                    "date() takes a text, not {}",
                    kind_of(&other)
                )));
            }
        },
        "file.hasTag" => has_tag(args, row)?,
        "file.inFolder" => {
            let folder = one(&name, args, row, 1)?.remove(0);
            let wanted = text(&folder).trim_matches('/').to_string();
            Value::Bool(
                wanted.is_empty()
                    || row.folder == wanted
                    || row.folder.starts_with(&format!("{wanted}/")),
            )
        }
        "file.hasLink" => has_link(&name, args, row)?,
        "file.hasProperty" => {
            let property = one(&name, args, row, 1)?.remove(0);
            let wanted = folded(&property);
            Value::Bool(
                row.note
                    .properties()
                    .iter()
                    .any(|(key, _)| lowers_to(key, &wanted)),
            )
        }
        _ => {
            let Some(arity) = functions::call_arity(&name) else {
                return Err(ToolError(format!(
                    "unknown function {name}() (bases knows if, now, today, date, list, max, min, number, file.hasTag, file.inFolder, file.hasLink, file.hasProperty)"
                )));
            };
            if let Some(error) = functions::arity_error(&name, arity, args.len()) {
                return Err(error);
            }
            let values = args
                .iter()
                .map(|arg| evaluate(arg, row))
                .collect::<Result<_, _>>()?;
            return functions::call(&name, values);
        }
    })
}

/// `file.hasTag(…)`: whether the note has one of the tags or a tag nested under one, ignoring case and a leading `#`.
fn has_tag(args: &[Expr], row: &Row<'_>) -> Result<Value, ToolError> {
    if args.is_empty() {
        return Err(ToolError::new("file.hasTag() takes at least one tag"));
    }
    let wanted: Vec<String> = args
        .iter()
        .map(|arg| {
            evaluate(arg, row).map(|tag| {
                text(&tag)
                    .to_lowercase()
                    .strip_prefix('#')
                    .map(str::to_string)
                    .unwrap_or_else(|| text(&tag).to_lowercase())
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(Value::Bool(row.note.tags().iter().any(|tag| {
        wanted.iter().any(|want| tag_is_or_under(tag, want))
    })))
}

/// `file.hasLink(…)`: whether the note links to the target (a `[[link]]` or a path, `.md` and case ignored).
fn has_link(name: &str, args: &[Expr], row: &Row<'_>) -> Result<Value, ToolError> {
    let target = one(name, args, row, 1)?.remove(0);
    let raw = text(&target);
    let raw = raw.strip_prefix("[[").unwrap_or(&raw);
    let raw = raw.strip_suffix("]]").unwrap_or(raw);
    let wanted = strip_md(raw).to_lowercase();
    Ok(Value::Bool(row.note.links().iter().any(|link| {
        let bare = strip_md(link).to_lowercase();
        bare == wanted || bare.ends_with(&format!("/{wanted}"))
    })))
}

fn method_value(
    target: &Expr,
    name: &str,
    args: &[Expr],
    row: &Row<'_>,
) -> Result<Value, ToolError> {
    let target = evaluate(target, row)?;
    let method = format!(".{name}");
    match name {
        "contains" => {
            let item = one(&method, args, row, 1)?.remove(0);
            match &target {
                Value::List(items) => {
                    return Ok(Value::Bool(items.iter().any(|candidate| {
                        equal(candidate, &item)
                            || matches!((candidate, &item), (Value::Str(x), Value::Str(y)) if x.to_lowercase() == y.to_lowercase())
                    })));
                }
                Value::Str(s) => {
                    return Ok(Value::Bool(
                        s.to_lowercase().contains(&text(&item).to_lowercase()),
                    ));
                }
                Value::Null => return Ok(Value::Bool(false)),
                _ => {}
            }
        }
        "startsWith" | "endsWith" => {
            let part = one(&method, args, row, 1)?.remove(0);
            match &target {
                Value::Null => return Ok(Value::Bool(false)),
                Value::Str(s) => {
                    let part = text(&part);
                    return Ok(Value::Bool(if name == "startsWith" {
                        s.starts_with(&part)
                    } else {
                        s.ends_with(&part)
                    }));
                }
                _ => {}
            }
        }
        "isEmpty" => {
            one(&method, args, row, 0)?;
            return Ok(Value::Bool(match &target {
                Value::Null => true,
                Value::Str(s) => s.is_empty(),
                Value::List(items) => items.is_empty(),
                _ => false,
            }));
        }
        "lower" | "upper" => {
            one(&method, args, row, 0)?;
            match &target {
                Value::Str(s) => {
                    return Ok(Value::Str(if name == "lower" {
                        s.to_lowercase()
                    } else {
                        s.to_uppercase()
                    }));
                }
                Value::Null => return Ok(Value::Null),
                _ => {}
            }
        }
        _ => {
            let Some(arity) = functions::method_arity(name) else {
                return Err(ToolError(format!(
                    "unknown method .{name}() (bases knows contains, startsWith, endsWith, isEmpty, lower, upper, abs, ceil, floor, round, toFixed, trim, title, join)"
                )));
            };
            if let Some(error) = functions::arity_error(&method, arity, args.len()) {
                return Err(error);
            }
            let values: Vec<Value> = args
                .iter()
                .map(|arg| evaluate(arg, row))
                .collect::<Result<_, _>>()?;
            return functions::method(name, &target, &values);
        }
    }
    Err(ToolError(format!(
        ".{name}() does not apply to {}",
        kind_of(&target)
    )))
}

/// `shown`: a value as the result shows it.
pub(crate) fn shown(value: &Value) -> Json {
    match value {
        Value::Date(ms) => json!(iso_time(*ms as i64)),
        Value::List(items) => Json::Array(items.iter().map(shown).collect()),
        Value::Str(s) => json!(s),
        Value::Num(n) => js_number(*n),
        Value::Bool(b) => json!(b),
        Value::Null => Json::Null,
    }
}

/// `order`: nulls last, numbers and dates by value, anything else as text.
pub(crate) fn order(a: &Value, b: &Value) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Greater,
        (_, Value::Null) => Ordering::Less,
        (Value::Num(x) | Value::Date(x), Value::Num(y) | Value::Date(y)) => {
            x.partial_cmp(y).unwrap_or(Ordering::Equal)
        }
        _ => js_cmp(&text(a), &text(b)),
    }
}

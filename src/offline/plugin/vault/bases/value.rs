//! A value of the Bases expression language (`Value` in `vault/bases-expr.ts`), and how it reads as text.

use crate::offline::plugin::tools::iso_time;

/// `Value`: a date is milliseconds since the epoch, in UTC.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Str(String),
    Num(f64),
    Bool(bool),
    Null,
    List(Vec<Value>),
    Date(f64),
}

/// A number as JavaScript's `String(n)` writes it (the forms a base meets; exponents beyond ±21 aside).
pub(crate) fn js_number_text(n: f64) -> String {
    if n.is_nan() {
        "NaN".to_string()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else if n.fract() == 0.0 && n.abs() < 1e21 {
        format!("{}", n as i128)
    } else {
        format!("{n}")
    }
}

/// `text`: a value as text, as `+` joins it (a date as ISO text, a list joined by `, `).
pub(super) fn text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::Date(ms) => iso_time(*ms as i64),
        Value::List(items) => items.iter().map(text).collect::<Vec<_>>().join(", "),
        Value::Str(s) => s.clone(),
        Value::Num(n) => js_number_text(*n),
        Value::Bool(b) => b.to_string(),
    }
}

/// `kindOf`: how an error names a value's type.
pub(super) fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Date(_) => "a date".into(),
        Value::List(_) => "a list".into(),
        Value::Str(_) => "a string".into(),
        Value::Num(_) => "a number".into(),
        Value::Bool(_) => "a boolean".into(),
    }
}

//! The Bases functions and methods that work on values alone (`list`, `max`, `min`, `number`; `.abs()`, `.ceil()`,
//! `.floor()`, `.round()`, `.toFixed()`, `.trim()`, `.title()`, `.join()`), as `vault/bases-expr.ts` evaluates them.
//! `eval.rs` checks how many arguments a call has (`arity`) before it evaluates them, then hands the values here.

use crate::offline::js::{is_js_space, js_trim};
use crate::offline::plugin::tools::ToolError;

use super::value::{Value, kind_of, text};

/// How many arguments a function or method takes.
#[derive(Debug, Clone, Copy)]
pub(super) enum Arity {
    Exactly(usize),
    AtLeastOne,
    AtMostOne,
}

/// The arity of a global function known here.
pub(super) fn call_arity(name: &str) -> Option<Arity> {
    match name {
        "list" | "number" => Some(Arity::Exactly(1)),
        "max" | "min" => Some(Arity::AtLeastOne),
        _ => None,
    }
}

/// The arity of a method known here.
pub(super) fn method_arity(name: &str) -> Option<Arity> {
    match name {
        "abs" | "ceil" | "floor" | "trim" | "title" => Some(Arity::Exactly(0)),
        "round" => Some(Arity::AtMostOne),
        "toFixed" | "join" => Some(Arity::Exactly(1)),
        _ => None,
    }
}

/// The error for `count` arguments where `shown` (`max` or `.round`) takes `arity`, as the plugin words it.
pub(super) fn arity_error(shown: &str, arity: Arity, count: usize) -> Option<ToolError> {
    match arity {
        Arity::Exactly(wanted) if count != wanted => Some(ToolError(format!(
            "{shown}() takes {wanted} argument{}, not {count}",
            if wanted == 1 { "" } else { "s" }
        ))),
        Arity::AtLeastOne if count == 0 => {
            Some(ToolError(format!("{shown}() takes at least one number")))
        }
        Arity::AtMostOne if count > 1 => Some(ToolError(format!(
            "{shown}() takes 0 or 1 argument, not {count}"
        ))),
        _ => None,
    }
}

/// A global function known here, on its evaluated arguments (their count already checked).
pub(super) fn call(name: &str, mut values: Vec<Value>) -> Result<Value, ToolError> {
    Ok(match name {
        "list" => match values.remove(0) {
            Value::List(items) => Value::List(items),
            item => Value::List(vec![item]),
        },
        "max" | "min" => {
            if values.iter().any(|value| matches!(value, Value::Null)) {
                return Ok(Value::Null);
            }
            let mut numbers = Vec::with_capacity(values.len());
            for value in &values {
                let Value::Num(n) = value else {
                    return Err(ToolError(format!(
                        "{name}() takes numbers, not {}",
                        kind_of(value)
                    )));
                };
                numbers.push(*n);
            }
            // `Math.max` / `Math.min`: NaN wins, and -0 is below 0.
            let pick = |a: f64, b: f64| {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else if name == "max" {
                    if a > b || (a == b && b.is_sign_negative()) {
                        a
                    } else {
                        b
                    }
                } else if a < b || (a == b && a.is_sign_negative()) {
                    a
                } else {
                    b
                }
            };
            Value::Num(
                numbers
                    .into_iter()
                    .reduce(pick)
                    .expect("at least one number"),
            )
        }
        _ => {
            let value = values.remove(0);
            match &value {
                Value::Null | Value::Num(_) => value,
                Value::Bool(b) => Value::Num(if *b { 1.0 } else { 0.0 }),
                Value::Date(ms) => Value::Num(*ms),
                Value::Str(s) if is_number_text(js_trim(s)) => {
                    Value::Num(js_trim(s).parse().expect("checked number text"))
                }
                _ => {
                    return Err(ToolError(format!(
                        "number() cannot read {} as a number",
                        serde_json::to_string(&text(&value)).expect("a string serializes")
                    )));
                }
            }
        }
    })
}

/// A method known here on `target`, with its evaluated arguments (their count already checked).
pub(super) fn method(name: &str, target: &Value, values: &[Value]) -> Result<Value, ToolError> {
    if matches!(target, Value::Null) {
        return Ok(Value::Null);
    }
    let applied = match (name, target) {
        ("abs", Value::Num(n)) => Some(Value::Num(n.abs())),
        ("ceil", Value::Num(n)) => Some(Value::Num(n.ceil())),
        ("floor", Value::Num(n)) => Some(Value::Num(n.floor())),
        ("round", Value::Num(n)) => match values.first() {
            None => Some(Value::Num(js_round(*n))),
            Some(Value::Num(digits)) if digits.fract() == 0.0 && (0.0..=15.0).contains(digits) => {
                let scale = 10f64.powi(*digits as i32);
                Some(Value::Num(js_round(n * scale) / scale))
            }
            _ => None,
        },
        ("toFixed", Value::Num(n)) => match values.first() {
            Some(Value::Num(precision))
                if precision.fract() == 0.0
                    && (0.0..=20.0).contains(precision)
                    && n.abs() < 1e21 =>
            {
                Some(Value::Str(to_fixed(*n, *precision as usize)))
            }
            _ => None,
        },
        ("trim", Value::Str(s)) => Some(Value::Str(js_trim(s).to_string())),
        ("title", Value::Str(s)) => Some(Value::Str(title_case(s))),
        ("join", Value::List(items)) => {
            let separator = text(&values[0]);
            Some(Value::Str(
                items.iter().map(text).collect::<Vec<_>>().join(&separator),
            ))
        }
        _ => None,
    };
    applied.ok_or_else(|| ToolError(format!(".{name}() does not apply to {}", kind_of(target))))
}

/// `NUMBER_TEXT`: decimal digits with an optional sign, fraction and exponent.
fn is_number_text(text: &str) -> bool {
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((whole, fraction)) => {
            (digits(whole) && (fraction.is_empty() || digits(fraction)))
                || (whole.is_empty() && digits(fraction))
        }
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

/// `Math.round`: halves go up (towards +∞).
fn js_round(n: f64) -> f64 {
    if !n.is_finite() || n.fract() == 0.0 {
        return n;
    }
    let rounded = (n + 0.5).floor();
    // Keep JavaScript's -0 for values in [-0.5, 0).
    if rounded == 0.0 && n < 0.0 {
        -0.0
    } else {
        rounded
    }
}

/// `Number.prototype.toFixed` for |n| < 1e21: the exact decimal value rounded half up at `precision` digits.
fn to_fixed(n: f64, precision: usize) -> String {
    // 1,100 digits hold every f64's exact decimal expansion (at most 1,074 after the point).
    let exact = format!("{:.1100}", n.abs());
    let (whole, fraction) = exact.split_once('.').expect("a fixed-point form");
    let mut digits: Vec<u8> = whole
        .bytes()
        .chain(fraction.bytes().take(precision))
        .collect();
    if fraction.as_bytes()[precision] >= b'5' {
        let mut at = digits.len();
        loop {
            if at == 0 {
                digits.insert(0, b'1');
                break;
            }
            at -= 1;
            if digits[at] == b'9' {
                digits[at] = b'0';
            } else {
                digits[at] += 1;
                break;
            }
        }
    }
    let split = digits.len() - precision;
    let mut out = String::from(if n < 0.0 { "-" } else { "" });
    out.push_str(std::str::from_utf8(&digits[..split]).expect("ASCII digits"));
    if precision > 0 {
        out.push('.');
        out.push_str(std::str::from_utf8(&digits[split..]).expect("ASCII digits"));
    }
    out
}

/// `titleCase`: the first character after the start or whitespace upper-cased, the rest as written.
fn title_case(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut word_start = true;
    for c in value.chars() {
        if word_start && !is_js_space(c) {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        word_start = is_js_space(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_fixed_rounds_the_exact_value_half_up_as_javascript_does() {
        assert_eq!(to_fixed(12.0, 2), "12.00");
        assert_eq!(to_fixed(0.125, 2), "0.13", "an exact tie goes up");
        assert_eq!(
            to_fixed(1.005, 2),
            "1.00",
            "1.005 is a little below in binary"
        );
        assert_eq!(to_fixed(-0.001, 2), "-0.00");
        assert_eq!(to_fixed(9.999, 2), "10.00");
        assert_eq!(to_fixed(2.5, 0), "3");
    }

    #[test]
    fn number_text_is_decimal_only() {
        for yes in ["3.4", "-3", "+.5", "1e3", "2.", "1E-2"] {
            assert!(is_number_text(yes), "{yes}");
        }
        for no in ["", ".", "0x10", "Infinity", "1e", "1.2.3", "--1", "e3"] {
            assert!(!is_number_text(no), "{no}");
        }
    }

    #[test]
    fn rounding_and_title_case_follow_javascript() {
        assert_eq!(js_round(2.5), 3.0);
        assert_eq!(js_round(-2.5), -2.0);
        assert!(js_round(-0.2).is_sign_negative());
        assert_eq!(title_case("sand and  sea"), "Sand And  Sea");
    }
}

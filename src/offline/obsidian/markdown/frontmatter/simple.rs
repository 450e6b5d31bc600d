//! The frontmatter most notes have, read without the YAML parser: lines of `key: value` where each value is a word
//! or words, a date, a small integer, nothing, or a flow list of words. The YAML parser spent about 44,000
//! instructions on such a frontmatter of three lines, an eighth of a build. Anything else (quotes, nesting, comments,
//! block lists, other scalars) is left to the parser, so the answer is the parser's: a test compares the two on every
//! form this reads.

use serde_json::{Map, Value};

/// The frontmatter as [`super::parse_yaml`] gives it, when every line is of the forms above; `None` otherwise.
pub(super) fn parse_simple(text: &str) -> Option<Value> {
    // Keys start with a letter, so JavaScript keeps them in the order they come (`JsObject` needs no sort).
    let mut entries = Map::new();
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let (key, value) = match line.split_once(": ") {
            Some((key, value)) => (key, value),
            None => (line.strip_suffix(':')?, ""),
        };
        if !is_plain_key(key) || entries.contains_key(key) {
            return None;
        }
        entries.insert(key.to_string(), value_of(value.trim_end_matches(' '))?);
    }
    (!entries.is_empty()).then_some(Value::Object(entries))
}

/// A value of one of the forms this reads.
fn value_of(value: &str) -> Option<Value> {
    let value = value.trim_start_matches(' ');
    if value.is_empty() {
        return Some(Value::Null);
    }
    if let Some(rest) = value.strip_prefix('[') {
        return flow_list(rest);
    }
    if value.starts_with('"') {
        let (text, after) = quoted(value)?;
        return after.is_empty().then(|| Value::String(text.to_string()));
    }
    if is_date(value) || is_plain_words(value) {
        return Some(Value::String(value.to_string()));
    }
    small_integer(value).map(Value::from)
}

/// A flow list of plain words and quoted strings, after its `[`, up to its `]` and the end of the line.
fn flow_list(text: &str) -> Option<Value> {
    let mut items = Vec::new();
    let mut rest = text.trim_start_matches(' ');
    if let Some(after) = rest.strip_prefix(']') {
        return after.is_empty().then_some(Value::Array(items));
    }
    loop {
        let after = if rest.starts_with('"') {
            let (item, after) = quoted(rest)?;
            items.push(Value::String(item.to_string()));
            after
        } else {
            let end = rest.find([',', ']'])?;
            let item = rest[..end].trim_end_matches(' ');
            if !is_plain_words(item) {
                return None;
            }
            items.push(Value::String(item.to_string()));
            &rest[end..]
        };
        let after = after.trim_start_matches(' ');
        if let Some(next) = after.strip_prefix(',') {
            rest = next.trim_start_matches(' ');
            continue;
        }
        return after
            .strip_prefix(']')?
            .is_empty()
            .then_some(Value::Array(items));
    }
}

/// A double-quoted string without escapes at the start of `text`, and what follows its closing quote (spaces
/// after it skipped). Only printable ASCII and letters or digits of other scripts are read here: the YAML parser
/// folds some other characters as line breaks or refuses them.
fn quoted(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_prefix('"')?;
    let end = inner.find('"')?;
    let content = &inner[..end];
    let readable = content.chars().all(|c| {
        (c.is_ascii() && (' '..='~').contains(&c) && c != '\\')
            || (!c.is_ascii() && c.is_alphanumeric())
    });
    readable.then(|| (content, inner[end + 1..].trim_start_matches(' ')))
}

/// A key of ASCII letters, digits, `_` and `-`, starting with a letter, that YAML reads as no other type.
fn is_plain_key(key: &str) -> bool {
    let mut bytes = key.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
        && !is_reserved(key)
}

/// Words that YAML reads as a string and nothing else: a letter first, then letters, digits, single spaces and
/// `_`, `-`, `/`, `.` (no indicator, no `: ` or ` #`, no quote, no flow character, nothing a line break could be).
fn is_plain_words(text: &str) -> bool {
    let mut chars = text.chars();
    let first_is_letter = chars.next().is_some_and(char::is_alphabetic);
    first_is_letter
        && !text.ends_with(' ')
        && !text.contains("  ")
        && chars.all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-' | '/' | '.'))
        && !is_reserved(text)
}

/// Words some YAML schema reads as null, a boolean or a float, in any case: left to the parser.
fn is_reserved(text: &str) -> bool {
    const RESERVED: [&str; 13] = [
        "null", "true", "false", "yes", "no", "on", "off", "y", "n", "inf", "infinity", "nan",
        "nil",
    ];
    text.len() <= 8 && RESERVED.iter().any(|word| text.eq_ignore_ascii_case(word))
}

/// `YYYY-MM-DD`, which the parser keeps as a string.
fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(at, &b)| match at {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        })
}

/// `0`, or up to 15 digits without a leading zero (well inside what JavaScript holds exactly).
fn small_integer(text: &str) -> Option<i64> {
    let plain = text == "0"
        || (text.len() <= 15 && !text.starts_with('0') && text.bytes().all(|b| b.is_ascii_digit()));
    if plain { text.parse().ok() } else { None }
}

#[cfg(test)]
mod tests {
    use super::parse_simple;
    use crate::offline::obsidian::markdown::frontmatter::parse_yaml_with_parser;

    /// Every form read here, and forms next to them that must be left to the parser.
    #[test]
    fn what_is_read_here_is_what_the_parser_reads() {
        let read_here = [
            "tags: [status/done, status/active]\ncreated: 2026-11-15\nstatus: draft",
            "a: b\r\nc: [ x ,y.z ]\r\n",
            "title: Café au lait\nempty:\nlist: []\ncount: 42\nzero: 0\nday: 1999-01-31",
            "key-1: v_1\n\nother: a/b/c\ndotted: v1.2.3",
            "big: 999999999999999\nwords: one two three",
            "nonascii: Zürich naïve\nk: łódź",
            "aliases: [\"ember naïve 9 x\"]\nup: \"[[Hub note 12]]\"",
            "q: [\"a, b\" , plain words,\"[x]: #y\"]\nr: \"\"\ns: \"ok\"  ",
        ];
        for text in read_here {
            let simple = parse_simple(text).unwrap_or_else(|| panic!("read here: {text:?}"));
            let parsed = parse_yaml_with_parser(text).expect("the parser reads it");
            assert_eq!(simple.to_string(), parsed.to_string(), "{text:?}");
        }
        let left = [
            "a: true",
            "a: True",
            "a: null",
            "a: ~",
            "a: no",
            "a: .inf",
            "a: nan",
            "a: [true, x]",
            "a: 012",
            "a: -3",
            "a: 1.5",
            "a: 1e3",
            "a: 0x1F",
            "a: 1234567890123456",
            "a: 2026-1-5",
            "a: x # comment",
            "a: b: c",
            "a: 'quoted'",
            "a: [x, [y]]",
            "a: [x,]",
            "a: {b: c}",
            "a:\n  - x",
            "a: |\n  text",
            "a: x  y",
            "a: &anchor x",
            "a: *alias",
            "a: !tag x",
            "a: @x",
            "a: `x`",
            "a: x\na: y",
            "a: \"x\\\"y\"",
            "a: \"x\\ny\"",
            "a: \"x\" y",
            "a: [\"x\" y]",
            "a: [\"x\"",
            "a: \"x\ty\"",
            "a: \"x\u{85}y\"",
            "a: \"x\u{2028}y\"",
            "a: \"x\u{feff}\"",
            "true: x",
            "n: x",
            "1: x",
            "a b: x",
            "a : x",
            " a: x",
            "a:\tx",
            "# comment",
            "---",
            "a: x\n---\nb: y",
            "",
        ];
        for text in left {
            assert_eq!(parse_simple(text), None, "left to the parser: {text:?}");
        }
    }
}

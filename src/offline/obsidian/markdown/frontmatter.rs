//! The YAML frontmatter: where it ends, its value as JSON with JavaScript's key order, and the links in its string
//! values (`FrontmatterLinkCache`).

use serde_json::{Map, Value};

use super::*;

mod simple;

/// Index of the closing `---` line, when the note has frontmatter.
pub(super) fn frontmatter_end(lines: &[Line<'_>]) -> Option<usize> {
    if lines.len() < 2 || js_trim_end(lines[0].text) != "---" {
        return None;
    }
    (1..lines.len()).find(|&i| js_trim_end(lines[i].text) == "---")
}

/// The YAML text between the frontmatter fences (`getFrontMatterInfo().frontmatter`), given the note's lines and the
/// closing fence's line.
pub(super) fn frontmatter_text<'a>(
    content: &'a str,
    lines: &[Line<'a>],
    closing: usize,
) -> &'a str {
    if closing == 1 {
        return "";
    }
    // Every line's text lies in `content`: where it starts there is its byte offset.
    let offset = |line: &Line<'a>| line.text.as_ptr() as usize - content.as_ptr() as usize;
    let last = &lines[closing - 1];
    &content[offset(&lines[1])..offset(last) + last.text.len()]
}

/// Entries in the order a JavaScript object keeps its keys: integer-like keys first in ascending order, then the others
/// in insertion order; assigning an existing key keeps its place. Built in time linear in the entries (one sort at the
/// end), so a note with 50,000 keys or block ids costs no more per key than one with ten.
pub(crate) struct JsObject<T> {
    entries: Vec<(String, T)>,
    places: std::collections::HashMap<String, usize>,
}

impl<T> JsObject<T> {
    pub(crate) fn new() -> Self {
        JsObject {
            entries: Vec::new(),
            places: std::collections::HashMap::new(),
        }
    }

    /// Sets `key` as `object[key] = value` does.
    pub(crate) fn insert(&mut self, key: String, value: T) {
        match self.places.get(&key) {
            Some(&place) => self.entries[place].1 = value,
            None => {
                self.places.insert(key.clone(), self.entries.len());
                self.entries.push((key, value));
            }
        }
    }

    /// The entries in JavaScript's key order.
    pub(crate) fn into_entries(mut self) -> Vec<(String, T)> {
        sort_js_keys(&mut self.entries);
        self.entries
    }
}

/// Whether a property name is an array index to JavaScript (those keys come first, in numeric order).
pub(crate) fn js_index_key(key: &str) -> Option<u32> {
    let number: u32 = key.parse().ok()?;
    (number != u32::MAX && number.to_string() == key).then_some(number)
}

pub(super) fn sort_js_keys<T>(entries: &mut [(String, T)]) {
    // A stable sort keeps insertion order among the non-index keys.
    entries.sort_by_key(|(key, _)| match js_index_key(key) {
        Some(number) => (0, number),
        None => (1, 0),
    });
}

/// Fills the frontmatter and its links; YAML that does not parse or is not a mapping leaves both absent.
pub(super) fn read_frontmatter(text: &str, meta: &mut NoteMetadata) {
    let data = if js_trim(text).is_empty() {
        Map::new()
    } else {
        match parse_yaml(text) {
            Some(Value::Object(map)) => map,
            _ => return,
        }
    };
    for (key, value) in &data {
        match value {
            Value::String(text) => meta
                .frontmatter_links
                .extend(frontmatter_link(key.clone(), text)),
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    if let Value::String(text) = item {
                        meta.frontmatter_links
                            .extend(frontmatter_link(format!("{key}.{index}"), text));
                    }
                }
            }
            _ => {}
        }
    }
    meta.frontmatter = Some(data);
}

pub(super) fn frontmatter_link(key: String, value: &str) -> Option<FrontmatterLink> {
    let trimmed = js_trim(value);
    let inner = trimmed.strip_prefix("[[")?.strip_suffix("]]")?;
    if inner.is_empty() || inner.contains(['[', ']']) {
        return None;
    }
    let (linktext, display) = split_wikilink(inner);
    let link = js_trim(linktext);
    if link.is_empty() {
        return None;
    }
    Some(FrontmatterLink {
        key,
        link: link.to_string(),
        original: trimmed.to_string(),
        display_text: display.unwrap_or(linktext).to_string(),
    })
}

/// YAML as the plugin sees frontmatter, converted to the JSON JavaScript would hold: integral floats become
/// integers, non-finite numbers `null`, keys strings in JavaScript key order. `None` when it does not parse.
pub(crate) fn parse_yaml(text: &str) -> Option<Value> {
    let Some(value) = simple::parse_simple(text) else {
        return parse_yaml_with_parser(text);
    };
    // Debug builds (every test run) check the short way against the parser on each frontmatter read.
    debug_assert_eq!(
        Some(value.to_string()),
        parse_yaml_with_parser(text).map(|parsed| parsed.to_string()),
        "the frontmatter {text:?} read without the parser"
    );
    Some(value)
}

/// [`parse_yaml`] by the YAML parser, whatever the frontmatter's form.
fn parse_yaml_with_parser(text: &str) -> Option<Value> {
    if flow_depth(text) > MAX_YAML_DEPTH {
        return None;
    }
    let value: yaml_serde::Value = yaml_serde::from_str(text).ok()?;
    Some(yaml_to_json(value))
}

/// How deep YAML may nest: `yaml_serde` refuses deeper documents (its recursion limit), so nothing that parses is
/// turned away by the quick count below.
const MAX_YAML_DEPTH: usize = 128;

/// The deepest nesting of flow collections (`[…]`, `{…}`) in `text`, counted in one pass: brackets inside quoted
/// scalars and comments do not count, nor do those inside a plain scalar (`a[1]`). The YAML scanner checks every
/// open flow level at each token, so a 60,000-deep `[[[…` cost it time with the square of its length before the
/// recursion limit refused it; counted first, it is refused at once.
fn flow_depth(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut depth, mut deepest) = (0usize, 0usize);
    // Whether the last character that was not a space could start a flow node after it.
    let mut node_may_start = true;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\n' => node_may_start = true,
            b' ' | b'\t' | b'\r' => {}
            b'#' if i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b'\n') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' | b'\'' if node_may_start => {
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' if b == b'"' => i += 1,
                        c if c == b => {
                            // `''` inside a single-quoted scalar is a quote, not its end.
                            if b == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                                i += 1;
                            } else {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                node_may_start = false;
            }
            b'[' | b'{' if node_may_start => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                node_may_start = false;
            }
            b',' | b':' | b'-' | b'?' => node_may_start = true,
            _ => node_may_start = false,
        }
        i += 1;
    }
    deepest
}

pub(super) fn yaml_to_json(value: yaml_serde::Value) -> Value {
    match value {
        yaml_serde::Value::Null => Value::Null,
        yaml_serde::Value::Bool(b) => Value::Bool(b),
        yaml_serde::Value::Number(number) => {
            if let Some(i) = number.as_i64() {
                json!(i)
            } else if let Some(u) = number.as_u64() {
                json!(u)
            } else {
                let f = number.as_f64().unwrap_or(f64::NAN);
                if !f.is_finite() {
                    Value::Null
                } else if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
                    json!(f as i64)
                } else {
                    json!(f)
                }
            }
        }
        yaml_serde::Value::String(s) => Value::String(s),
        yaml_serde::Value::Sequence(items) => {
            Value::Array(items.into_iter().map(yaml_to_json).collect())
        }
        yaml_serde::Value::Mapping(mapping) => {
            let mut entries = JsObject::new();
            for (key, value) in mapping {
                let key = match yaml_to_json(key) {
                    Value::String(s) => s,
                    Value::Null => String::new(),
                    other => other.to_string(),
                };
                entries.insert(key, yaml_to_json(value));
            }
            Value::Object(entries.into_entries().into_iter().collect())
        }
        yaml_serde::Value::Tagged(tagged) => yaml_to_json(tagged.value),
    }
}

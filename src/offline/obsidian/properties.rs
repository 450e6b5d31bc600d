//! Frontmatter list properties as the plugin reads them (`obsidian-plugin/src/vault/links.ts`): aliases from
//! `aliases` / `alias`, tags from `tags` / `tag` (a list, or a string split on commas, each item split on
//! whitespace), and a note's tags: frontmatter tags first, then inline tags, case-insensitive duplicates dropped.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::offline::js::{is_js_space, js_trim};
use crate::offline::obsidian::markdown::NoteMetadata;

/// `String(value)` for a frontmatter value.
fn js_string(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(number) => number.to_string(),
        Value::Array(items) => items
            .iter()
            .map(|item| {
                if item.is_null() {
                    String::new()
                } else {
                    js_string(item)
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".into(),
    }
}

/// `frontmatterList`: a list property that may be a list, one string, or a comma-separated string.
fn frontmatter_list(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::Array(items)) => items
            .iter()
            .filter(|item| !item.is_null())
            .map(js_string)
            .collect(),
        Some(Value::String(text)) => text
            .split(',')
            .map(js_trim)
            .filter(|item| !item.is_empty())
            .map(str::to_string)
            .collect(),
        Some(number @ Value::Number(_)) => vec![js_string(number)],
        _ => Vec::new(),
    }
}

/// Aliases from the frontmatter `aliases` / `alias` properties.
pub(crate) fn frontmatter_aliases(frontmatter: Option<&Map<String, Value>>) -> Vec<String> {
    let Some(frontmatter) = frontmatter else {
        return Vec::new();
    };
    let mut aliases = frontmatter_list(frontmatter.get("aliases"));
    aliases.extend(frontmatter_list(frontmatter.get("alias")));
    aliases
}

pub(crate) fn frontmatter_tags(frontmatter: Option<&Map<String, Value>>) -> Vec<String> {
    let Some(frontmatter) = frontmatter else {
        return Vec::new();
    };
    let mut raw = frontmatter_list(frontmatter.get("tags"));
    raw.extend(frontmatter_list(frontmatter.get("tag")));
    raw.iter()
        .flat_map(|item| item.split(is_js_space))
        .map(|item| item.trim_start_matches('#'))
        .filter(|item| !item.is_empty())
        .map(|item| format!("#{item}"))
        .collect()
}

/// `noteTags`: frontmatter tags, then inline tags in order; case-insensitive duplicates dropped.
pub(crate) fn note_tags(meta: Option<&NoteMetadata>) -> Vec<String> {
    let Some(meta) = meta else { return Vec::new() };
    let mut seen = HashSet::new();
    let mut tags: Vec<String> = Vec::new();
    let inline = meta.tags.iter().map(|tag| tag.tag.clone());
    for tag in frontmatter_tags(meta.frontmatter.as_ref())
        .into_iter()
        .chain(inline)
    {
        if is_new_tag(&tags, &mut seen, &tag) {
            tags.push(tag);
        }
    }
    tags
}

/// A note's tags up to this many are compared one by one, without lower-cased copies (a build lower-cased every tag
/// of 100,000 notes into a table, 2.8% of its instructions); past it, a table of them lower-cased.
const FEW_TAGS: usize = 16;

/// Whether `tag` differs, ignoring case as JavaScript's `toLowerCase` does, from each of `kept` (`seen` holds them
/// lower-cased once there are more than [`FEW_TAGS`]).
fn is_new_tag(kept: &[String], seen: &mut HashSet<String>, tag: &str) -> bool {
    if kept.len() < FEW_TAGS {
        return !kept.iter().any(|other| same_lowercase(other, tag));
    }
    if seen.is_empty() {
        seen.extend(kept.iter().map(|other| other.to_lowercase()));
    }
    seen.insert(tag.to_lowercase())
}

/// Whether two texts lower-case to the same text (only ASCII is compared without copies: a character outside it can
/// lower-case into it, as the Kelvin sign does into `k`).
fn same_lowercase(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        return a.eq_ignore_ascii_case(b);
    }
    a.to_lowercase() == b.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_lists_and_tags() {
        let front: Map<String, Value> = serde_json::from_str(
            r#"{"tags": "a, #b c", "tag": ["d", null, 5], "aliases": "x, y", "alias": 3}"#,
        )
        .unwrap();
        assert_eq!(
            frontmatter_tags(Some(&front)),
            vec!["#a", "#b", "#c", "#d", "#5"]
        );
        assert_eq!(frontmatter_aliases(Some(&front)), vec!["x", "y", "3"]);
    }

    #[test]
    fn inline_and_frontmatter_tags_dedupe_case_insensitively() {
        let meta =
            crate::offline::obsidian::markdown::parse("---\ntags: [Work]\n---\n#work #idea #Idea");
        assert_eq!(note_tags(Some(&meta)), vec!["#Work", "#idea"]);
    }

    #[test]
    fn tags_past_the_few_compared_one_by_one_are_deduplicated_too() {
        // Twenty distinct tags, each then repeated in another case, and the Kelvin sign, which lower-cases to `k`.
        let mut text: String = (0..20).map(|n| format!("#t{n} ")).collect();
        text.extend((0..20).map(|n| format!("#T{n} ")));
        text.push_str("#k #\u{212A} #ÉTÉ #été");
        let meta = crate::offline::obsidian::markdown::parse(&text);
        let mut expected: Vec<String> = (0..20).map(|n| format!("#t{n}")).collect();
        expected.push("#k".into());
        expected.push("#ÉTÉ".into());
        assert_eq!(note_tags(Some(&meta)), expected);
        let few = crate::offline::obsidian::markdown::parse("#k #\u{212A} #ÉTÉ #été #Other");
        assert_eq!(few.tags.len(), 5, "each is a tag of the note's text");
        assert_eq!(note_tags(Some(&few)), vec!["#k", "#ÉTÉ", "#Other"]);
    }
}

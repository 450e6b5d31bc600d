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
        .flat_map(|item| {
            item.split(is_js_space)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .map(|item| item.trim_start_matches('#').to_string())
        .filter(|item| !item.is_empty())
        .map(|item| format!("#{item}"))
        .collect()
}

/// `noteTags`: frontmatter tags, then inline tags in order; case-insensitive duplicates dropped.
pub(crate) fn note_tags(meta: Option<&NoteMetadata>) -> Vec<String> {
    let Some(meta) = meta else { return Vec::new() };
    let mut seen = HashSet::new();
    let mut tags = Vec::new();
    let inline = meta.tags.iter().map(|tag| tag.tag.clone());
    for tag in frontmatter_tags(meta.frontmatter.as_ref())
        .into_iter()
        .chain(inline)
    {
        if seen.insert(tag.to_lowercase()) {
            tags.push(tag);
        }
    }
    tags
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
}

//! Vault prompts from disk (`prompts/vault.ts`): the notes under the prompts folder, their frontmatter arguments, and
//! their text with `{{argument}}` filled in and up to [`MAX_EMBEDS`] `![[embeds]]` inlined, in one pass.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value, json};

use super::{Argument, Entry, tool_text};
use crate::offline::js::js_trim;
use crate::offline::plugin::tools::Context;
use crate::offline::plugin::vault::lines::split_lines;
use crate::offline::plugin::vault::sections::frontmatter_range;

/// The most embeds one prompt inlines; later ones stay as written.
const MAX_EMBEDS: usize = 10;

/// `{{argument}}` or `![[embed]]`.
static TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\{\{ *([A-Za-z0-9_-]+) *\}\}|!\[\[([^\[\]\n]+)\]\]").expect("a valid pattern")
});

/// A vault prompt: what it lists as, and its note.
pub(super) struct VaultPrompt {
    pub(super) entry: Entry,
    path: String,
}

/// The prompt name a note's name gives: runs of characters other than `A–Z a–z 0–9 _ . -` become one `-`, and none
/// at the ends.
fn prompt_name(basename: &str) -> String {
    let mut name = String::new();
    let mut in_run = false;
    for c in basename.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
            name.push(c);
            in_run = false;
        } else if !in_run {
            name.push('-');
            in_run = true;
        }
    }
    name.trim_matches('-').to_string()
}

/// What a vault prompt's name gets before it when the note's name is a built-in's (`VAULT_PREFIX`).
const VAULT_PREFIX: &str = "vault-";

/// The vault's prompts, from the notes under `folder` in path order; the first note wins a name. A note named like a
/// built-in is "vault-NAME" (a note an agent can write never takes a built-in's place unseen), and every title ends
/// in " (vault)".
pub(super) fn vault_prompts(ctx: &Context<'_>, folder: &str) -> Vec<VaultPrompt> {
    if folder.is_empty() {
        return Vec::new();
    }
    let prefix = format!("{folder}/");
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    // A note outside the vault (through a symlink) is never read, so it is no prompt either.
    for (file, note) in ctx.snapshot.notes_under(&prefix, ctx.config_dir) {
        let basename = file.title();
        let own = prompt_name(basename);
        let name = if super::builtin::BUILTINS
            .iter()
            .any(|builtin| builtin.name == own)
        {
            format!("{VAULT_PREFIX}{own}")
        } else {
            own.clone()
        };
        if own.is_empty() || !seen.insert(name.clone()) {
            continue;
        }
        let frontmatter = note.frontmatter().unwrap_or_default();
        let description = match frontmatter.get("description") {
            Some(Value::String(description)) => description.clone(),
            _ => format!("Prompt from the vault note {}", file.path),
        };
        found.push(VaultPrompt {
            entry: Entry {
                name,
                title: format!("{basename} (vault)"),
                description,
                arguments: arguments_of(&frontmatter),
            },
            path: file.path.clone(),
        });
    }
    found
}

/// The `arguments` of a prompt's frontmatter: names, or mappings with name, description and required.
fn arguments_of(frontmatter: &Map<String, Value>) -> Vec<Argument> {
    let Some(Value::Array(items)) = frontmatter.get("arguments") else {
        return Vec::new();
    };
    let mut seen = HashSet::new();
    let mut parsed = Vec::new();
    for item in items {
        let (name, record) = match item {
            Value::String(name) => (name.as_str(), None),
            Value::Object(record) => match record.get("name") {
                Some(Value::String(name)) => (name.as_str(), Some(record)),
                _ => continue,
            },
            _ => continue,
        };
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
        // `__proto__` is no argument: a client's request parser (the plugin's zod) drops that key.
        if !valid || name == "__proto__" || !seen.insert(name.to_string()) {
            continue;
        }
        parsed.push(Argument {
            name: name.to_string(),
            description: record
                .and_then(|record| record.get("description"))
                .and_then(Value::as_str)
                .map(str::to_string),
            required: record.and_then(|record| record.get("required")) == Some(&json!(true)),
        });
    }
    parsed
}

/// A vault prompt's text for the given arguments.
pub(super) fn render(
    ctx: &Context<'_>,
    prompt: &VaultPrompt,
    given: &dyn Fn(&str) -> String,
) -> String {
    let text = ctx
        .snapshot
        .file(&prompt.path)
        .and_then(|file| ctx.note_text(file))
        .unwrap_or_default();
    let lines = split_lines(&text);
    let start = frontmatter_range(&lines).map_or(0, |range| range.end);
    let body = lines[start.min(lines.len())..].join("\n");
    let body = js_trim(&body);
    let declared: HashSet<&str> = prompt
        .entry
        .arguments
        .iter()
        .map(|argument| argument.name.as_str())
        .collect();
    let mut out = String::with_capacity(body.len());
    let mut last = 0;
    let mut embeds = 0;
    for token in TOKEN.captures_iter(body) {
        let whole = token.get(0).expect("a match has its whole");
        out.push_str(&body[last..whole.start()]);
        last = whole.end();
        if let Some(argument) = token.get(1) {
            if declared.contains(argument.as_str()) {
                out.push_str(&given(argument.as_str()));
            } else {
                out.push_str(whole.as_str());
            }
        } else if embeds < MAX_EMBEDS {
            embeds += 1;
            let target = token.get(2).map_or("", |embed| embed.as_str());
            let linktext = js_trim(target.split('|').next().unwrap_or_default());
            match tool_text(ctx, "read_note", json!({ "path": linktext })) {
                Ok(read) => out.push_str(&read),
                Err(_) => out.push_str(whole.as_str()),
            }
        } else {
            out.push_str(whole.as_str());
        }
    }
    out.push_str(&body[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_names_keep_safe_characters_and_join_the_rest() {
        assert_eq!(prompt_name("Weekly plan"), "Weekly-plan");
        assert_eq!(prompt_name("  Ünïcode & more!  "), "n-code-more");
        assert_eq!(prompt_name("summarize-note"), "summarize-note");
        assert_eq!(prompt_name("v1.2_draft"), "v1.2_draft");
        assert_eq!(prompt_name("🦀🦀"), "");
    }
}

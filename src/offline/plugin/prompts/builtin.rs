//! The built-in prompts (`prompts/builtin.ts`), built from the read tools' answers.

use serde_json::json;

use super::{Argument, Entry, tool_text};
use crate::offline::plugin::resources::RpcFailure;
use crate::offline::plugin::tools::Context;

type Render = fn(&Context<'_>, &dyn Fn(&str) -> String) -> Result<String, RpcFailure>;

pub(super) struct Builtin {
    pub(super) name: &'static str,
    title: &'static str,
    description: &'static str,
    /// (name, description, required)
    arguments: &'static [(&'static str, &'static str, bool)],
    pub(super) render: Render,
}

impl Builtin {
    pub(super) fn entry(&self) -> Entry {
        Entry {
            name: self.name.into(),
            title: self.title.into(),
            description: self.description.into(),
            arguments: self
                .arguments
                .iter()
                .map(|(name, description, required)| Argument {
                    name: (*name).into(),
                    description: Some((*description).into()),
                    required: *required,
                })
                .collect(),
        }
    }
}

pub(super) const BUILTINS: [Builtin; 3] = [
    Builtin {
        name: "daily-review",
        title: "Review my day",
        description: "Today's daily note (or another day's) and the vault's open tasks, to review the day and plan the next.",
        arguments: &[(
            "date",
            "YYYY-MM-DD, \"today\" (default), \"yesterday\" or \"tomorrow\".",
            false,
        )],
        render: daily_review,
    },
    Builtin {
        name: "research-topic",
        title: "Research a topic in the vault",
        description: "Find what the vault says about a topic with the obsmcp tools, following links, and answer with sources.",
        arguments: &[("topic", "What to look for.", true)],
        render: research_topic,
    },
    Builtin {
        name: "summarize-note",
        title: "Summarize a note",
        description: "A note with the notes that link to it, to summarize it and how it connects to the rest of the vault.",
        arguments: &[(
            "path",
            "The note: a vault path, a name or a [[link]].",
            true,
        )],
        render: summarize_note,
    },
];

fn daily_review(ctx: &Context<'_>, given: &dyn Fn(&str) -> String) -> Result<String, RpcFailure> {
    let date = match given("date") {
        date if date.is_empty() => "today".to_string(),
        date => date,
    };
    let daily = tool_text(ctx, "daily_note", json!({ "date": date })).unwrap_or_else(|error| error);
    let tasks = tool_text(
        ctx,
        "search",
        json!({ "query": "- [ ]", "mode": "phrase", "limit": 50, "max_per_file": 20 }),
    )
    .unwrap_or_else(|error| error);
    Ok(format!(
        "Review my day with me from my Obsidian vault: what got done, what is still open, and what to carry over to \
         tomorrow. My daily note and my open tasks follow.\n\nDaily note ({date}):\n{daily}\n\n\
         Open tasks across the vault (lines with \"- [ ]\", the first 50):\n{tasks}"
    ))
}

fn research_topic(
    _ctx: &Context<'_>,
    given: &dyn Fn(&str) -> String,
) -> Result<String, RpcFailure> {
    Ok(format!(
        "Find out what my Obsidian vault says about \"{}\". Use the obsmcp tools: search for it and for related \
         words, read the most relevant notes (outline first, then read_note with a heading), follow their backlinks and \
         outgoing links, and answer with what the notes say, citing each note as a [[link]]. Say plainly when the vault \
         has nothing on it.",
        given("topic")
    ))
}

fn summarize_note(ctx: &Context<'_>, given: &dyn Fn(&str) -> String) -> Result<String, RpcFailure> {
    let path = given("path");
    let note = tool_text(ctx, "read_note", json!({ "path": path })).map_err(RpcFailure::invalid)?;
    let backlinks = tool_text(
        ctx,
        "backlinks",
        json!({ "path": path, "limit": 20, "max_lines_per_note": 1 }),
    )
    .map_err(RpcFailure::invalid)?;
    Ok(format!(
        "Summarize this note from my Obsidian vault: its main points, decisions and open questions. Then say how it \
         connects to the notes that link to it, listed after it.\n\n{note}\n\nNotes that link to it (backlinks):\n{backlinks}"
    ))
}

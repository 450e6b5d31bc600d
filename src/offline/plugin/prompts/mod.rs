//! Prompts from disk (`obsidian-plugin/src/prompts/`): the built-in prompts and the notes of the prompts folder named
//! in the plugin's settings (`promptsFolder`, default `Prompts`), listed, rendered and completed exactly as the plugin
//! does. Their text is built from notes and the read tools' own answers, never run. The rules are in
//! `obsidian-plugin/src/prompts/README.md`.

mod builtin;
mod vault;

use serde_json::{Value, json};

use crate::offline::plugin::resources::{Candidate, RpcFailure, complete};
use crate::offline::plugin::tools::{self, Context};
use builtin::BUILTINS;
use vault::{VaultPrompt, vault_prompts};

/// Where vault prompts live unless the settings say otherwise.
pub(crate) const DEFAULT_FOLDER: &str = "Prompts";

/// Arguments whose values are vault files, completed like the file template's path.
const FILE_ARGUMENTS: [&str; 2] = ["path", "note"];

/// One argument a prompt takes.
#[derive(Debug, Clone)]
pub(crate) struct Argument {
    name: String,
    description: Option<String>,
    required: bool,
}

impl Argument {
    fn to_json(&self) -> Value {
        match &self.description {
            Some(description) => {
                json!({ "name": self.name, "description": description, "required": self.required })
            }
            None => json!({ "name": self.name, "required": self.required }),
        }
    }
}

/// A prompt as `prompts/list` shows it.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    name: String,
    title: String,
    description: String,
    arguments: Vec<Argument>,
}

impl Entry {
    fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "arguments": self.arguments.iter().map(Argument::to_json).collect::<Vec<_>>(),
        })
    }
}

/// A prompt by name: a built-in, else the vault's.
enum Found<'a> {
    Vault(VaultPrompt),
    Builtin(&'a builtin::Builtin),
}

impl Found<'_> {
    fn entry(&self) -> Entry {
        match self {
            Found::Vault(prompt) => prompt.entry.clone(),
            Found::Builtin(builtin) => builtin.entry(),
        }
    }
}

fn find(ctx: &Context<'_>, folder: &str, name: &str) -> Option<Found<'static>> {
    if let Some(builtin) = BUILTINS.iter().find(|builtin| builtin.name == name) {
        return Some(Found::Builtin(builtin));
    }
    vault_prompts(ctx, folder)
        .into_iter()
        .find(|prompt| prompt.entry.name == name)
        .map(Found::Vault)
}

fn not_found(name: &str) -> RpcFailure {
    RpcFailure::invalid(format!("Prompt {name} not found"))
}

/// `prompts/list`: the built-ins and the vault's prompts (named apart from the built-ins), sorted by name.
pub(crate) fn list(ctx: &Context<'_>, folder: &str) -> Value {
    let mut entries: Vec<Entry> = BUILTINS.iter().map(builtin::Builtin::entry).collect();
    entries.extend(
        vault_prompts(ctx, folder)
            .into_iter()
            .map(|prompt| prompt.entry),
    );
    entries.sort_by(|a, b| crate::offline::js::js_cmp(&a.name, &b.name));
    json!({ "prompts": entries.iter().map(Entry::to_json).collect::<Vec<_>>() })
}

/// `prompts/get`.
pub(crate) fn get(ctx: &Context<'_>, folder: &str, params: &Value) -> Result<Value, RpcFailure> {
    let name = params["name"].as_str().unwrap_or_default();
    let found = find(ctx, folder, name).ok_or_else(|| not_found(name))?;
    let entry = found.entry();
    let given = |argument: &str| {
        params["arguments"][argument]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    if let Some(missing) = entry
        .arguments
        .iter()
        .find(|argument| argument.required && given(&argument.name).is_empty())
    {
        return Err(RpcFailure::invalid(format!(
            "prompt {name} needs the argument {}",
            missing.name
        )));
    }
    let text = match &found {
        Found::Vault(prompt) => vault::render(ctx, prompt, &given),
        Found::Builtin(builtin) => (builtin.render)(ctx, &given)?,
    };
    Ok(json!({
        "description": entry.description,
        "messages": [{ "role": "user", "content": { "type": "text", "text": text } }],
    }))
}

/// The completion of a prompt's argument: vault files for `path` and `note`, nothing for the others.
pub(crate) fn complete_argument(
    ctx: &Context<'_>,
    folder: &str,
    candidates: &[Candidate],
    name: &str,
    argument: &str,
    typed: &str,
) -> Result<Value, RpcFailure> {
    let entry = find(ctx, folder, name)
        .ok_or_else(|| not_found(name))?
        .entry();
    if !entry.arguments.iter().any(|each| each.name == argument) {
        return Err(RpcFailure::invalid(format!(
            "prompt {name} has no argument {argument}"
        )));
    }
    if !FILE_ARGUMENTS.contains(&argument) {
        return Ok(json!({ "values": [], "total": 0, "hasMore": false }));
    }
    Ok(complete(ctx.snapshot, candidates, typed))
}

/// A read tool's answer text, as a prompt builds on it: `Err` with its message when it failed.
fn tool_text(ctx: &Context<'_>, tool: &str, arguments: Value) -> Result<String, String> {
    tools::run(ctx, tool, arguments)
        .map(|output| output.text())
        .map_err(|tools::ToolError(message)| message)
}

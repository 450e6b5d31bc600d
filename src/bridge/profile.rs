//! How much of the plugin's catalog `tools/list` carries (`--tools core|all`), and `obsidian_tools`, the bridge's tool
//! that reaches the rest.
//!
//! Every tool definition a client lists costs each session its bytes in the agent's context: the whole catalog is some
//! 40 KB. The core profile lists the tools most sessions use, in under 12 KB (five vaults' names included), and
//! `obsidian_tools` names, describes, enables (with `notifications/tools/list_changed`) or runs every other one, so
//! nothing is out of reach even for a client whose list never refreshes (Codex). A call by name to a tool that is not
//! listed works too. Claude Code keeps MCP tools behind its tool search and pays little for a long list: setup gives it
//! `--tools all`.
//!
//! Only our plugin's catalog has a core: with a `--url` or command upstream every tool is listed.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

/// Which tools `tools/list` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ToolProfile {
    /// The core tools, `obsidian_status` and `obsidian_tools` (which reaches every other tool)
    Core,
    /// Every tool
    All,
}

impl ToolProfile {
    /// The word `--tools` and `obsidian_status` use.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Core => "core",
            Self::All => "all",
        }
    }
}

/// The plugin's tools the core profile lists: find, read, write, and several reads at once. What they leave out
/// (tasks, properties, tags, links, daily notes, templates, canvas, bases, moves and deletes) is one `obsidian_tools`
/// call away. Eight, so that the list stays under 12,000 bytes with five vaults' names in every tool.
pub(crate) const CORE: &[&str] = &[
    "search",
    "read_note",
    "outline",
    "list_files",
    "create_note",
    "str_replace",
    "append",
    "batch",
];

/// The name of the bridge's tool that reaches the tools not listed.
pub(crate) const DISCOVERY_TOOL: &str = "obsidian_tools";

/// Whether `name` is in the list: every tool in `all`, else the core and what the session enabled.
pub(crate) fn lists(profile: ToolProfile, enabled: &BTreeSet<String>, name: &str) -> bool {
    profile == ToolProfile::All || CORE.contains(&name) || enabled.contains(name)
}

/// A tool's entry as the core profile lists it: without the schema's `$schema` line, which says what MCP already
/// assumes (JSON Schema 2020-12) in 60 bytes a tool.
pub(crate) fn slim(tool: &Value) -> Value {
    let mut tool = tool.clone();
    if let Some(schema) = tool.get_mut("inputSchema").and_then(Value::as_object_mut) {
        schema.remove("$schema");
    }
    tool
}

/// The `obsidian_tools` definition. It can run any tool, so it is marked as able to write and delete, unless the
/// bridge runs `--read-only` (then it can reach read-only tools alone).
pub(crate) fn discovery_tool(read_only: bool) -> Value {
    json!({
        "name": DISCOVERY_TOOL,
        "title": "More Obsidian tools",
        "description": "Reaches the vault tools not in your list (backlinks and links, tags, tasks, properties, daily \
                        notes, templates, canvas, bases, moves, deletes): list names them, describe gives their \
                        arguments, enable lists them, call runs one.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "action": { "type": "string", "enum": ["list", "describe", "enable", "call"], "default": "list" },
                "tools": { "type": "array", "items": { "type": "string" }, "description": "Names, or [\"all\"]." },
                "name": { "type": "string", "description": "The tool to call." },
                "arguments": { "type": "object" }
            },
            "additionalProperties": false
        },
        "annotations": {
            "readOnlyHint": read_only,
            "destructiveHint": !read_only,
            "idempotentHint": false,
            "openWorldHint": false
        },
    })
}

/// What an `obsidian_tools` call asks.
#[derive(Debug, PartialEq)]
pub(crate) enum Request {
    List,
    Describe(Vec<String>),
    Enable(Vec<String>),
    Call { name: String, arguments: Value },
}

/// Reads an `obsidian_tools` call's arguments, or says in a sentence what is wrong with them.
pub(crate) fn request(arguments: Option<&Map<String, Value>>) -> Result<Request, String> {
    let empty = Map::new();
    let arguments = arguments.unwrap_or(&empty);
    if let Some(unknown) = arguments
        .keys()
        .find(|key| !["action", "tools", "name", "arguments"].contains(&key.as_str()))
    {
        return Err(format!(
            "obsidian_tools takes action, tools, name and arguments, not `{unknown}`"
        ));
    }
    let names = || -> Result<Vec<String>, String> {
        let names: Option<Vec<String>> = arguments
            .get("tools")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .map(|name| name.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        match names {
            Some(names) if !names.is_empty() => Ok(names),
            _ => Err("this action needs `tools`: a list of tool names, or [\"all\"]".into()),
        }
    };
    match arguments.get("action").map(|action| action.as_str()) {
        None | Some(Some("list")) => Ok(Request::List),
        Some(Some("describe")) => names().map(Request::Describe),
        Some(Some("enable")) => names().map(Request::Enable),
        Some(Some("call")) => {
            let name = arguments
                .get("name")
                .and_then(Value::as_str)
                .filter(|name| !name.is_empty())
                .ok_or("action call needs `name`, the tool to run")?;
            let tool_arguments = arguments
                .get("arguments")
                .cloned()
                .unwrap_or_else(|| json!({}));
            if !tool_arguments.is_object() {
                return Err("`arguments` must be an object of the tool's arguments".into());
            }
            Ok(Request::Call {
                name: name.to_owned(),
                arguments: tool_arguments,
            })
        }
        Some(_) => Err("action is one of list, describe, enable, call".into()),
    }
}

/// The server's `instructions`: what the agent needs first in 512 characters that stand alone (Codex reads no more
/// in some places), the rest after; under 2,048 in all (Claude Code cuts there).
pub(crate) fn instructions(profile: ToolProfile, vaults: &[&str]) -> String {
    let head = match profile {
        ToolProfile::Core => CORE_HEAD,
        ToolProfile::All => ALL_HEAD,
    };
    let several = match vaults {
        [default, others @ ..] if !others.is_empty() => format!(
            " These tools serve {} vaults: {default} (the default) and {}. Name the vault in each call's `vault` \
             argument; a resource's URI names it in `?vault=`, a prompt's name begins with it.",
            vaults.len(),
            others.join(", ")
        ),
        _ => String::new(),
    };
    let mut whole = [head, &several, " ", REST].concat();
    // Many long vault names must not push the end past Claude Code's cut: the search syntax goes first.
    if whole.chars().count() >= INSTRUCTIONS_LIMIT {
        whole = [head, &several].concat();
    }
    whole.chars().take(INSTRUCTIONS_LIMIT - 1).collect()
}

/// Where Claude Code cuts a server's instructions.
const INSTRUCTIONS_LIMIT: usize = 2048;

const CORE_HEAD: &str = "Tools for the user's Obsidian vault. Find notes with search or list_files; read only what \
    you need (outline, then read_note with a heading or lines; several reads in one batch); edit with str_replace, \
    append or create_note, passing expected_hash from your last read. More tools (backlinks and links, tags, tasks, \
    properties, daily notes, templates, canvas, bases, moves, deletes) are reached through obsidian_tools: action \
    list names them, call runs one.";

const ALL_HEAD: &str = "Tools for the user's Obsidian vault. Find notes with search, list_files, tags or backlinks; \
    read only what you need (outline, then read_note with a heading or lines; several reads in one batch); edit with \
    str_replace, patch_section, append or create_note, passing expected_hash from your last read. Tasks, properties, \
    daily notes, templates, canvas and bases have tools of their own.";

const REST: &str = "Make a result's continue_with call when it says truncated. Every edit takes expected_hash, the \
    sha256 of your last read, so a note changed meanwhile is never overwritten; on a conflict, read again and redo \
    the edit. When Obsidian is closed, reads come from disk (served_from=disk) and writes say Obsidian must be open: \
    ask the user to open it, then retry; obsidian_status shows the connection. search speaks Obsidian's syntax: \
    words that must all occur anywhere in a note, \"an exact phrase\", OR, -excluded, tag:#x, path:Folder, \
    line:(a b), [status:done]; with rank: true the most relevant notes come first and any of the words may match.     For a question the notes may word differently, mode \"hybrid\" finds sections by meaning and words (it needs an     embedding model; without one it says how to get it).";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instructions_fit_both_clients_cuts_and_their_head_names_the_way_to_the_rest() {
        let many: Vec<String> = (0..5)
            .map(|number| format!("A vault with a long name, number {number}"))
            .collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        for (profile, head) in [(ToolProfile::Core, CORE_HEAD), (ToolProfile::All, ALL_HEAD)] {
            for vaults in [&["Notes"][..], &["Work", "Home"], &many] {
                let whole = instructions(profile, vaults);
                if vaults.len() > 1 {
                    assert!(
                        whole.contains("(the default)") && whole.contains(vaults[1]),
                        "{whole}"
                    );
                }
                assert!(
                    whole.chars().count() < 2048,
                    "{} characters",
                    whole.chars().count()
                );
                // The head is a whole paragraph inside Codex's 512 characters.
                assert!(
                    head.chars().count() <= 512,
                    "{} characters",
                    head.chars().count()
                );
                assert!(head.ends_with('.'));
                assert!(whole.starts_with(head));
            }
        }
        assert!(CORE_HEAD.contains(DISCOVERY_TOOL));
        // Every tool the core head names is listed in the core profile.
        for named in [
            "search",
            "list_files",
            "outline",
            "read_note",
            "batch",
            "str_replace",
            "append",
        ] {
            assert!(
                CORE_HEAD.contains(named) && CORE.contains(&named),
                "{named}"
            );
        }
    }

    #[test]
    fn a_request_is_read_or_refused_with_a_sentence() {
        let read = |value: Value| request(value.as_object());
        assert_eq!(read(json!({})), Ok(Request::List));
        assert_eq!(
            read(json!({"action": "enable", "tools": ["tasks"]})),
            Ok(Request::Enable(vec!["tasks".into()]))
        );
        assert_eq!(
            read(json!({"action": "call", "name": "tasks"})),
            Ok(Request::Call {
                name: "tasks".into(),
                arguments: json!({})
            })
        );
        assert!(
            read(json!({"action": "describe"}))
                .unwrap_err()
                .contains("tools")
        );
        assert!(read(json!({"action": "describe", "tools": [1]})).is_err());
        assert!(
            read(json!({"action": "call"}))
                .unwrap_err()
                .contains("name")
        );
        assert!(read(json!({"action": "call", "name": "x", "arguments": []})).is_err());
        assert!(
            read(json!({"action": "remove"}))
                .unwrap_err()
                .contains("one of")
        );
        assert!(read(json!({"tool": "x"})).unwrap_err().contains("`tool`"));
    }

    #[test]
    fn the_core_is_in_the_plugin_catalog_and_the_discovery_tool_never_claims_to_only_read_what_can_write()
     {
        let catalog = crate::assets::catalog_tools();
        for name in CORE {
            assert!(catalog.iter().any(|tool| tool["name"] == *name), "{name}");
        }
        assert_eq!(discovery_tool(false)["annotations"]["readOnlyHint"], false);
        assert_eq!(
            discovery_tool(false)["annotations"]["destructiveHint"],
            true
        );
        assert_eq!(discovery_tool(true)["annotations"]["readOnlyHint"], true);
    }
}

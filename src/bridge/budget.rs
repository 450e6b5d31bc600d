//! Output budgets: how much one tool result may hold so that the client shows the agent all of it.
//!
//! Clients cut long tool results, each its own way: Codex keeps the head and tail of about 10 KB and drops the middle,
//! Copilot CLI does the same at about 10 KB, opencode keeps the head of 50 KB, Claude Code moves results over 50,000
//! characters into a file unless the tool allows more in `_meta`. A cut result loses exactly what the agent needed
//! (the middle of a note, or the last JSON key that says how to get the rest). So the bridge learns the client from
//! `initialize` (or a request's 2026-era `_meta`), fills in a `max_chars` the client will not cut when a call gives
//! none, lowers a larger one to the most the client accepts, and, when a read's answer still does not fit (wide
//! characters, many short lines, a tool paged by count rather than characters), asks again for a smaller page. The
//! smaller page says at its start that it was limited and how to get the rest, which a client's own cut never does.
//!
//! About 310 lines of code and 100 of unit tests: the table of known clients and the three steps over it (prepare,
//! refit, annotate).

use serde_json::{Map, Value};

use super::policy::is_read_only;

/// What the header line or the JSON envelope of a result adds to the `max_chars` of its content, at most.
const ENVELOPE: usize = 600;
/// The smallest `max_chars` the plugin accepts.
const MIN_CHARS: u64 = 100;
/// How often a read is asked again for a smaller page before its answer is passed on as it is.
pub(crate) const MAX_REFITS: usize = 3;
/// Claude Code moves a result longer than this into a file unless the tool's `_meta` allows more.
const CLAUDE_FILE_THRESHOLD: usize = 50_000;
/// The `_meta` key Claude Code reads for that.
pub(crate) const CLAUDE_MAX_RESULT_KEY: &str = "anthropic/maxResultSizeChars";

/// A client's limit on one tool result, as it measures it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cut {
    /// UTF-8 bytes of the result's text.
    pub(crate) bytes: Option<usize>,
    /// Characters of the result's text.
    pub(crate) chars: Option<usize>,
    /// Lines of the result's text.
    pub(crate) lines: Option<usize>,
}

/// The budget the bridge applies for one client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    /// Who it is for, as shown in `obsidian_status` and the table in docs/guide.md.
    pub(crate) client: &'static str,
    /// The `max_chars` a call gets when it gives none.
    pub(crate) default_chars: u64,
    /// The most `max_chars` a call may ask for.
    pub(crate) ceiling_chars: u64,
    /// Where the client cuts; `None` when it does not (or the user said how much it takes).
    pub(crate) cut: Option<Cut>,
}

/// How a client is recognised: a prefix of its lowercased `clientInfo.name`, or the whole name.
#[derive(Debug, Clone, Copy)]
enum Name {
    Prefix(&'static str),
    Exact(&'static str),
}

/// A budget that holds `default` by default and at most `ceiling`, for a client that cuts at `cut`.
const fn budget(
    client: &'static str,
    default_chars: u64,
    ceiling_chars: u64,
    cut: Option<Cut>,
) -> Budget {
    Budget {
        client,
        default_chars,
        ceiling_chars,
        cut,
    }
}

const fn bytes(limit: usize) -> Option<Cut> {
    Some(Cut {
        bytes: Some(limit),
        chars: None,
        lines: None,
    })
}

const fn chars(limit: usize) -> Option<Cut> {
    Some(Cut {
        bytes: None,
        chars: Some(limit),
        lines: None,
    })
}

/// The known clients, tried in order, with what each does to a long result (`clientInfo` names and limits as read in
/// each client's source or binary, late 2026; the table in docs/guide.md says the same).
const KNOWN: [(&[Name], Budget); 11] = [
    // Middle cut at 10,000 tokens for its bundled models, 10,000 bytes for any other model: the smaller holds for all.
    (
        &[Name::Prefix("codex")],
        budget("Codex", 8_000, 9_000, bytes(10_000)),
    ),
    // Middle cut at about 10 KB (github/copilot-cli #1732).
    (
        &[Name::Prefix("github-copilot"), Name::Prefix("copilot")],
        budget("Copilot CLI", 8_000, 9_000, chars(10_000)),
    ),
    // Over 25,000 tokens the result goes to a file and the model sees a preview; the per-tool `_meta` key lifts only the
    // 50,000-character file threshold, so the ceiling stays well under 25,000 tokens of dense text.
    (
        &[Name::Prefix("claude-code")],
        budget("Claude Code", 20_000, 60_000, chars(75_000)),
    ),
    // Refuses results over 1 MB.
    (
        &[Name::Prefix("claude-ai"), Name::Prefix("claude")],
        budget("Claude Desktop", 20_000, 100_000, None),
    ),
    // Keeps the first 20 % and last 80 % of results over 40,000 characters.
    (
        &[Name::Prefix("gemini")],
        budget("Gemini CLI", 20_000, 36_000, chars(40_000)),
    ),
    // Keeps the head of results over 50 KB or 2,000 lines.
    (
        &[Name::Prefix("opencode")],
        budget(
            "opencode",
            20_000,
            45_000,
            Some(Cut {
                bytes: Some(51_200),
                chars: None,
                lines: Some(2_000),
            }),
        ),
    ),
    // Hermes starts MCP servers through the Python SDK without naming itself, so it is `mcp`; over 50,000 characters
    // it shows a 1,500-character preview.
    (
        &[Name::Prefix("hermes"), Name::Exact("mcp")],
        budget("Hermes Agent", 20_000, 45_000, chars(50_000)),
    ),
    (
        &[Name::Prefix("cursor")],
        budget("Cursor", 20_000, 50_000, None),
    ),
    (
        &[Name::Prefix("visual studio code"), Name::Prefix("vscode")],
        budget("VS Code", 20_000, 50_000, None),
    ),
    (
        &[Name::Prefix("windsurf")],
        budget("Windsurf", 20_000, 50_000, None),
    ),
    (&[Name::Exact("zed")], budget("Zed", 20_000, 50_000, None)),
];

/// A client the bridge does not know: a default small enough for the strictest known client, and explicit requests
/// honoured up to the plugin's own cap.
pub(crate) const UNKNOWN: Budget = Budget {
    client: "unknown client",
    default_chars: 8_000,
    ceiling_chars: 200_000,
    cut: None,
};

impl Budget {
    /// The budget for a client, by the `name` of its `clientInfo`.
    pub(crate) fn for_client(name: Option<&str>) -> Self {
        let Some(name) = name else { return UNKNOWN };
        let name = name.to_lowercase();
        KNOWN
            .iter()
            .find(|(names, _)| {
                names.iter().any(|known| match known {
                    Name::Prefix(prefix) => name.starts_with(prefix),
                    Name::Exact(whole) => name == *whole,
                })
            })
            .map_or(UNKNOWN, |(_, budget)| *budget)
    }

    /// The budget when the user set `--max-chars`: that default and ceiling, and no cut of the bridge's own guessing.
    pub(crate) fn overridden(self, max_chars: u64) -> Self {
        Self {
            default_chars: max_chars,
            ceiling_chars: max_chars,
            cut: None,
            ..self
        }
    }

    /// Fills in or lowers the `max_chars` of a call's arguments (and of each call inside a `batch`) for a tool whose
    /// schema takes one.
    pub(crate) fn prepare(&self, tool: &Value, arguments: &mut Map<String, Value>) {
        if !takes(tool, "max_chars") {
            return;
        }
        self.fit_max_chars(arguments);
        if let Some(Value::Array(calls)) = arguments.get_mut("calls") {
            for call in calls {
                if let Some(Value::Object(inner)) = call.get_mut("arguments")
                    && inner.contains_key("max_chars")
                {
                    self.fit_max_chars(inner);
                }
            }
        }
    }

    fn fit_max_chars(&self, arguments: &mut Map<String, Value>) {
        let asked = arguments.get("max_chars").and_then(Value::as_u64);
        let fitted = match asked {
            None if arguments.contains_key("max_chars") => return, // not a number: the tool's own error says so
            None => self.default_chars,
            Some(asked) => asked.min(self.ceiling_chars),
        };
        arguments.insert("max_chars".into(), fitted.max(MIN_CHARS).into());
    }

    /// When a read's answer does not fit the client, the arguments of the same call for a smaller page: `max_chars`
    /// (and `limit`, for tools paged by count) scaled down by how far it is over. `None` when it fits, the tool may
    /// change the vault (it is never run twice), or nothing can be made smaller.
    pub(crate) fn refit(
        &self,
        tool: &Value,
        arguments: &Map<String, Value>,
        answer: &Value,
    ) -> Option<Map<String, Value>> {
        let cut = self.cut.filter(|_| self.may_refit(tool))?;
        let text = answer.pointer("/result/content/0/text")?.as_str()?;
        let over = [
            cut.bytes.map(|limit| (text.len(), limit)),
            cut.chars.map(|limit| (text.chars().count(), limit)),
            cut.lines.map(|limit| (text.lines().count(), limit)),
        ]
        .into_iter()
        .flatten()
        .filter(|(size, limit)| size > limit)
        .map(|(size, limit)| limit as f64 / size as f64)
        .reduce(f64::min)?;
        // A little under the exact ratio, so that one more round usually suffices.
        let scale = over * 0.85;
        let mut smaller = arguments.clone();
        let mut changed = false;
        for (key, floor) in [("max_chars", MIN_CHARS), ("limit", 1)] {
            if !takes(tool, key) {
                continue;
            }
            let current = match smaller.get(key).and_then(Value::as_u64) {
                Some(current) => current,
                None => default_of(tool, key)?,
            };
            let next = ((current as f64 * scale) as u64).max(floor);
            if next < current {
                smaller.insert(key.into(), next.into());
                changed = true;
            }
        }
        changed.then_some(smaller)
    }

    /// Whether a call of `tool` may be asked again: the client cuts somewhere, and the tool only reads.
    pub(crate) fn may_refit(&self, tool: &Value) -> bool {
        self.cut.is_some() && is_read_only(tool)
    }

    /// The `_meta` a read tool that takes `max_chars` carries in `tools/list`, when its results may pass the size at
    /// which Claude Code would move them into a file.
    pub(crate) fn annotate(&self, tool: &mut Value) {
        let limit = self.ceiling_chars as usize + ENVELOPE;
        if limit <= CLAUDE_FILE_THRESHOLD || !is_read_only(tool) || !takes(tool, "max_chars") {
            return;
        }
        let Some(fields) = tool.as_object_mut() else {
            return;
        };
        let meta = fields
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(CLAUDE_MAX_RESULT_KEY.into(), limit.into());
        }
    }
}

/// Whether a tool's input schema has this property.
fn takes(tool: &Value, property: &str) -> bool {
    tool.pointer("/inputSchema/properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| properties.contains_key(property))
}

/// The schema's default of a numeric property.
fn default_of(tool: &Value, property: &str) -> Option<u64> {
    tool.pointer(&format!("/inputSchema/properties/{property}/default"))?
        .as_u64()
}

/// The client's name, from `initialize` params or a request's 2026-era `_meta`.
pub(crate) fn client_name(params: Option<&Value>) -> Option<String> {
    let params = params?;
    params
        .pointer("/clientInfo/name")
        .or_else(|| {
            params
                .get("_meta")?
                .get("io.modelcontextprotocol/clientInfo")?
                .get("name")
        })
        .and_then(Value::as_str)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read_tool() -> Value {
        json!({"name": "list_files", "annotations": {"readOnlyHint": true}, "inputSchema": {"properties": {
            "limit": {"type": "integer", "default": 200}, "max_chars": {"type": "integer", "default": 20000}}}})
    }

    fn arguments(value: Value) -> Map<String, Value> {
        value.as_object().cloned().expect("an object")
    }

    #[test]
    fn clients_are_told_apart_by_their_names_and_others_get_the_careful_default() {
        assert_eq!(Budget::for_client(Some("codex-mcp-client")).client, "Codex");
        assert_eq!(
            Budget::for_client(Some("claude-code")).client,
            "Claude Code"
        );
        assert_eq!(
            Budget::for_client(Some("claude-ai")).client,
            "Claude Desktop"
        );
        assert_eq!(Budget::for_client(Some("cursor-vscode")).client, "Cursor");
        assert_eq!(
            Budget::for_client(Some("Visual Studio Code")).client,
            "VS Code"
        );
        assert_eq!(Budget::for_client(Some("mcp")).client, "Hermes Agent");
        assert_eq!(Budget::for_client(Some("Zed")).client, "Zed");
        assert_eq!(Budget::for_client(Some("optimized-agent")), UNKNOWN);
        assert_eq!(Budget::for_client(Some("my-agent")), UNKNOWN);
        assert_eq!(Budget::for_client(None), UNKNOWN);
    }

    #[test]
    fn a_missing_max_chars_gets_the_default_and_a_larger_one_the_ceiling() {
        let codex = Budget::for_client(Some("codex-mcp-client"));
        let mut args = arguments(json!({"folder": ""}));
        codex.prepare(&read_tool(), &mut args);
        assert_eq!(args["max_chars"], 8_000);
        let mut args = arguments(json!({"max_chars": 150_000}));
        codex.prepare(&read_tool(), &mut args);
        assert_eq!(args["max_chars"], 9_000);
        let mut args = arguments(json!({"max_chars": 500}));
        codex.prepare(&read_tool(), &mut args);
        assert_eq!(args["max_chars"], 500);
        let mut args = arguments(json!({"max_chars": "lots"}));
        codex.prepare(&read_tool(), &mut args);
        assert_eq!(args["max_chars"], "lots");
    }

    #[test]
    fn an_answer_over_the_cut_asks_for_a_smaller_page_and_one_under_it_does_not() {
        let codex = Budget::for_client(Some("codex"));
        let args = arguments(json!({"max_chars": 8000}));
        let wide = "é".repeat(7_000); // 14,000 bytes
        let answer = json!({"result": {"content": [{"type": "text", "text": wide}]}});
        let smaller = codex
            .refit(&read_tool(), &args, &answer)
            .expect("over 10,000 bytes");
        assert!(smaller["max_chars"].as_u64().expect("a number") < 8000 * 10 / 14);
        assert!(smaller["limit"].as_u64().expect("a number") < 200);
        let fits = json!({"result": {"content": [{"type": "text", "text": "short"}]}});
        assert_eq!(codex.refit(&read_tool(), &args, &fits), None);
        let opencode = Budget::for_client(Some("opencode"));
        let many_lines =
            json!({"result": {"content": [{"type": "text", "text": "a\n".repeat(2_100)}]}});
        assert!(opencode.refit(&read_tool(), &args, &many_lines).is_some());
        let write = json!({"name": "append", "annotations": {"readOnlyHint": false}, "inputSchema": {"properties": {"max_chars": {}}}});
        assert_eq!(codex.refit(&write, &args, &answer), None);
    }

    #[test]
    fn only_reads_that_can_pass_claudes_file_threshold_carry_the_meta_key() {
        let mut tool = read_tool();
        Budget::for_client(Some("claude-code")).annotate(&mut tool);
        assert_eq!(tool["_meta"][CLAUDE_MAX_RESULT_KEY], 60_000 + ENVELOPE);
        let mut tool = read_tool();
        Budget::for_client(Some("codex")).annotate(&mut tool);
        assert!(tool.get("_meta").is_none());
    }

    #[test]
    fn the_client_name_comes_from_initialize_or_from_a_request_meta() {
        assert_eq!(
            client_name(Some(&json!({"clientInfo": {"name": "codex-mcp-client"}}))).as_deref(),
            Some("codex-mcp-client")
        );
        assert_eq!(
            client_name(Some(
                &json!({"_meta": {"io.modelcontextprotocol/clientInfo": {"name": "x"}}})
            ))
            .as_deref(),
            Some("x")
        );
        assert_eq!(client_name(Some(&json!({}))), None);
    }
}

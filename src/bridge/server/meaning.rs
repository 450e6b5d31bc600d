//! Search by meaning at the bridge's surface: the `search` tool it lists gains modes `semantic` and `hybrid` (and
//! `fallback`), and a call in those modes, or a `batch` holding one, is answered by the vault's offline backend,
//! whose index embeds the vault (`offline/semantic/`), whether Obsidian is open or closed: the plugin has no such
//! modes.

use serde_json::{Value, json};

use super::BATCH_TOOL;
use super::{Route, Server};
use crate::offline::semantic::answer::{MODES, asks_for_meaning, batch_asks_for_meaning};

/// What `search`'s `mode` says of the two modes, added to the plugin's own description.
const MODE_HELP: &str = " \"semantic\": sections by meaning (other words than the note's match); \"hybrid\": \
    meaning and words (BM25) fused, best for a question. Both answered by the bridge: limit counts sections (default \
    10), max_per_file sections per note (default 1).";

/// Adds the modes answered by the bridge to the `search` tool's definition.
pub(super) fn with_meaning_modes(tool: &mut Value) {
    if tool.get("name").and_then(Value::as_str) != Some("search") {
        return;
    }
    let Some(properties) = tool
        .pointer_mut("/inputSchema/properties")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    if let Some(mode) = properties.get_mut("mode").and_then(Value::as_object_mut) {
        if let Some(choices) = mode.get_mut("enum").and_then(Value::as_array_mut) {
            for extra in MODES {
                if !choices.iter().any(|choice| choice == extra) {
                    choices.push(json!(extra));
                }
            }
        }
        if let Some(Value::String(help)) = mode.get_mut("description")
            && !help.contains("\"semantic\"")
        {
            help.push_str(MODE_HELP);
        }
    }
    properties.insert(
        "fallback".into(),
        json!({
            "type": "boolean",
            "default": false,
            "description": "semantic, hybrid: while the embedding index is first built, answer with word search instead of \
                an error (default false).",
        }),
    );
}

impl Server {
    /// Answers a `search` in mode `semantic` or `hybrid` from the route's backend; `None` for any other call.
    pub(super) async fn try_meaning(
        &self,
        route: &Route,
        tool: &str,
        params: Option<&Value>,
    ) -> Option<Value> {
        let arguments = params.and_then(|params| params.get("arguments"))?;
        // A batch that holds such a search is answered whole by the bridge (its other calls are reads the offline
        // reader answers as the plugin does).
        let wanted = match tool {
            "search" => asks_for_meaning(arguments),
            BATCH_TOOL => batch_asks_for_meaning(arguments),
            _ => false,
        };
        if !wanted {
            return None;
        }
        let Some(backend) = self.offline_for(route, tool) else {
            let why = if route.is_vault() {
                "the bridge runs with --no-offline, which turns off its index of the vault folder"
            } else {
                "this upstream is not a vault the bridge reads"
            };
            return Some(super::tool_error(&format!(
                "search by meaning runs in the bridge, from its own index of the vault folder, and {why}. Use mode \"words\" with rank: true."
            )));
        };
        Some(backend.call(tool, arguments.as_object()).await)
    }
}

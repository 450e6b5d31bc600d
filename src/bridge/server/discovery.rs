//! `obsidian_tools`, the bridge's tool that reaches the tools `--tools core` leaves out of the list (`profile.rs`):
//! `list` names every tool the policy allows, `describe` gives their definitions, `enable` adds them to this session's
//! list and tells the client, `call` runs one through the same way as a direct call (policy, budget, offline).

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::*;
use crate::bridge::profile::{DISCOVERY_TOOL, Request};

/// The word in a `tools` list that means every tool.
const EVERY_TOOL: &str = "all";

impl Server {
    /// Answers an `obsidian_tools` call. Boxed: a `call` action runs [`Server::call`], which is how this was reached.
    pub(super) fn discovery<'a>(
        &'a self,
        id: Value,
        params: Option<Value>,
        slot: &'a RequestSlot,
        route: Option<usize>,
    ) -> BoxFuture<'a, Value> {
        async move {
            let arguments = params
                .as_ref()
                .and_then(|params| params.get("arguments"))
                .and_then(Value::as_object);
            let request = match profile::request(arguments) {
                Ok(request) => request,
                Err(problem) => return jsonrpc::result(id, tool_error(&problem)),
            };
            let answer = match request {
                Request::List => self.list_every_tool(),
                Request::Describe(names) => self.describe(&names),
                Request::Enable(names) => self.enable(&names),
                // The vault named runs the call (`start_call` took it out of either argument list).
                Request::Call { name, arguments } => {
                    if name == DISCOVERY_TOOL {
                        return jsonrpc::result(
                            id,
                            tool_error("obsidian_tools cannot call itself"),
                        );
                    }
                    let mut inner = json!({ "name": name, "arguments": arguments });
                    // The client's name, if the request carried it, still picks the output budget.
                    if let Some(meta) = params.as_ref().and_then(|params| params.get("_meta")) {
                        inner["_meta"] = meta.clone();
                    }
                    return self.call(id, Some(inner), slot, route).await;
                }
            };
            jsonrpc::result(id, answer)
        }
        .boxed()
    }

    /// The tools the policy allows, by name, each with whether it is listed now.
    fn allowed_tools(&self) -> Vec<(Value, bool)> {
        let catalog = lock(&self.default_route().catalog);
        let enabled = lock(&self.enabled);
        self.config
            .policy
            .filter(&catalog.tools)
            .map(|tool| {
                let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
                (
                    tool.clone(),
                    profile::lists(self.config.tools, &enabled, name),
                )
            })
            .collect()
    }

    /// Every tool with its description, the ones not listed first.
    fn list_every_tool(&self) -> Value {
        let tools = self.allowed_tools();
        let name = |tool: &Value| tool["name"].as_str().unwrap_or_default().to_owned();
        let listed: Vec<String> = tools
            .iter()
            .filter(|(_, listed)| *listed)
            .map(|(tool, _)| name(tool))
            .collect();
        let more: Vec<Value> = tools
            .iter()
            .filter(|(_, listed)| !listed)
            .map(|(tool, _)| {
                json!({
                    "name": tool["name"],
                    "description": tool["description"],
                    "readOnly": crate::bridge::policy::is_read_only(tool),
                })
            })
            .collect();
        let mut text = format!(
            "{} vault tools; {} are in your list. The others below can be run with \
             {{\"action\":\"call\",\"name\":…,\"arguments\":{{…}}}} or called by name if your client allows it; \
             {{\"action\":\"describe\",\"tools\":[…]}} gives their arguments, {{\"action\":\"enable\",\"tools\":[…]}} adds them to your list.\n\
             Listed: {}.\n",
            tools.len(),
            listed.len(),
            listed.join(", ")
        );
        for tool in &more {
            let kind = if tool["readOnly"] == true {
                "reads"
            } else {
                "writes"
            };
            text.push_str(&format!(
                "- {} ({kind}): {}\n",
                tool["name"].as_str().unwrap_or_default(),
                tool["description"].as_str().unwrap_or_default()
            ));
        }
        json!({
            "content": [{ "type": "text", "text": text }],
            "structuredContent": { "listed": listed, "more": more },
        })
    }

    /// The named tools' definitions, as `tools/list` would give them.
    fn describe(&self, names: &[String]) -> Value {
        let tools = match self.chosen(names) {
            Ok(tools) => tools,
            Err(problem) => return tool_error(&problem),
        };
        let definitions: Vec<Value> = tools.into_iter().map(|(tool, _)| tool).collect();
        let text = serde_json::to_string(&definitions).expect("a JSON value serializes");
        json!({
            "content": [{ "type": "text", "text": text }],
            "structuredContent": { "tools": definitions },
        })
    }

    /// Adds the named tools to this session's list and tells the client when the list grew.
    fn enable(&self, names: &[String]) -> Value {
        let tools = match self.chosen(names) {
            Ok(tools) => tools,
            Err(problem) => return tool_error(&problem),
        };
        let added: Vec<String> = {
            let mut enabled = lock(&self.enabled);
            tools
                .iter()
                .filter(|(_, listed)| !listed)
                .filter_map(|(tool, _)| tool["name"].as_str())
                .filter(|name| enabled.insert((*name).to_owned()))
                .map(str::to_owned)
                .collect()
        };
        if !added.is_empty() {
            self.tools_changed();
        }
        let text = if added.is_empty() {
            "Nothing to add: those tools are in your list already.".to_owned()
        } else {
            format!(
                "Added to your tool list: {}. Clients that re-read the list show them now; if yours does not, run them \
                 with obsidian_tools action call.",
                added.join(", ")
            )
        };
        json!({
            "content": [{ "type": "text", "text": text }],
            "structuredContent": { "added": added },
        })
    }

    /// The tools named (or every one, for `["all"]`) with whether each is listed, or which names are unknown or refused.
    fn chosen(&self, names: &[String]) -> Result<Vec<(Value, bool)>, String> {
        let allowed = self.allowed_tools();
        if names.iter().any(|name| name == EVERY_TOOL) {
            return Ok(allowed);
        }
        let mut chosen = Vec::new();
        let mut missing = Vec::new();
        for name in names {
            match allowed
                .iter()
                .find(|(tool, _)| tool["name"] == name.as_str())
            {
                Some(found) => chosen.push(found.clone()),
                None => missing.push(self.why_missing(name)),
            }
        }
        if missing.is_empty() {
            Ok(chosen)
        } else {
            Err(format!(
                "{} Nothing was done; obsidian_tools with action list names every tool you can use.",
                missing.join(" ")
            ))
        }
    }

    /// Why a name is not among the tools offered: the policy's sentence, or that no tool has it.
    fn why_missing(&self, name: &str) -> String {
        let catalog = lock(&self.default_route().catalog);
        match self.config.policy.check(name, catalog.find(name)) {
            Err(refusal) if catalog.find(name).is_some() => refusal.explain(name),
            _ => format!("There is no tool `{name}`."),
        }
    }
}

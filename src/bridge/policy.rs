//! Which upstream tools the bridge offers: `--read-only` keeps only tools annotated `readOnlyHint: true`, an allow
//! list keeps only the tools it names, a deny list removes the tools it names. The same rule hides a tool from
//! `tools/list` and refuses a call to it, so a client that calls a tool it was never shown is still refused.

use serde_json::Value;

/// The tool filter.
#[derive(Debug, Clone, Default)]
pub(crate) struct Policy {
    /// Offer only tools marked read-only.
    pub(crate) read_only: bool,
    /// When non-empty, offer only these names.
    pub(crate) allow: Vec<String>,
    /// Never offer these names.
    pub(crate) deny: Vec<String>,
}

/// Why a tool is not offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The tool may change the vault and the bridge runs read-only.
    NotReadOnly,
    /// The tool is not on the allow list.
    NotAllowed,
    /// The tool is on the deny list.
    Denied,
    /// The bridge knows no tool of that name, so it cannot tell whether the tool is read-only.
    Unknown,
}

impl Refusal {
    /// A sentence for the agent.
    pub(crate) fn explain(self, tool: &str) -> String {
        match self {
            Self::NotReadOnly => format!(
                "The tool `{tool}` can change the vault, and this bridge runs with --read-only."
            ),
            Self::NotAllowed => {
                format!("The tool `{tool}` is not in this bridge's --allow-tool list.")
            }
            Self::Denied => {
                format!("The tool `{tool}` is blocked by this bridge's --deny-tool list.")
            }
            Self::Unknown => {
                format!("The tool `{tool}` is not known, and this bridge runs with --read-only.")
            }
        }
    }
}

impl Policy {
    /// Checks a tool by name and (when known) its catalog entry.
    pub(crate) fn check(&self, name: &str, tool: Option<&Value>) -> Result<(), Refusal> {
        if self.deny.iter().any(|denied| denied == name) {
            return Err(Refusal::Denied);
        }
        if !self.allow.is_empty() && !self.allow.iter().any(|allowed| allowed == name) {
            return Err(Refusal::NotAllowed);
        }
        if self.read_only {
            let Some(tool) = tool else {
                return Err(Refusal::Unknown);
            };
            if !is_read_only(tool) {
                return Err(Refusal::NotReadOnly);
            }
        }
        Ok(())
    }

    /// Why a `batch` call is refused, when one of the calls it holds is (`params` is the `tools/call` params): a
    /// batch must not run a tool the policy would refuse on its own. Nothing of such a batch runs.
    pub(crate) fn refused_batch_call<'a>(
        &self,
        params: Option<&Value>,
        find: impl Fn(&str) -> Option<&'a Value>,
    ) -> Option<String> {
        let calls = params?.pointer("/arguments/calls")?.as_array()?;
        calls.iter().enumerate().find_map(|(index, call)| {
            let inner = call.get("tool").and_then(Value::as_str)?;
            self.check(inner, find(inner)).err().map(|refusal| {
                format!(
                    "batch refused, nothing in it was run: call {} ({inner}): {}",
                    index + 1,
                    refusal.explain(inner)
                )
            })
        })
    }

    /// The tools of a catalog that this policy offers.
    pub(crate) fn filter<'a>(&self, tools: &'a [Value]) -> impl Iterator<Item = &'a Value> {
        tools.iter().filter(|tool| {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            self.check(name, Some(tool)).is_ok()
        })
    }
}

/// Whether a tool declares `annotations.readOnlyHint: true`; anything else counts as able to write.
pub(crate) fn is_read_only(tool: &Value) -> bool {
    tool.pointer("/annotations/readOnlyHint")
        .and_then(Value::as_bool)
        == Some(true)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn catalog() -> Vec<Value> {
        vec![
            json!({"name": "read_note", "annotations": {"readOnlyHint": true}}),
            json!({"name": "create_note", "annotations": {"readOnlyHint": false}}),
            json!({"name": "mystery"}),
        ]
    }

    fn names(policy: &Policy) -> Vec<String> {
        let tools = catalog();
        policy
            .filter(&tools)
            .map(|tool| tool["name"].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn read_only_keeps_only_tools_that_say_so() {
        let policy = Policy {
            read_only: true,
            ..Policy::default()
        };
        assert_eq!(names(&policy), ["read_note"]);
        assert_eq!(
            policy.check("create_note", Some(&catalog()[1])),
            Err(Refusal::NotReadOnly)
        );
        assert_eq!(
            policy.check("mystery", Some(&catalog()[2])),
            Err(Refusal::NotReadOnly)
        );
        assert_eq!(policy.check("ghost", None), Err(Refusal::Unknown));
    }

    #[test]
    fn allow_and_deny_lists_apply_by_name() {
        let policy = Policy {
            allow: vec!["read_note".into(), "create_note".into()],
            deny: vec!["create_note".into()],
            ..Policy::default()
        };
        assert_eq!(names(&policy), ["read_note"]);
        assert_eq!(policy.check("create_note", None), Err(Refusal::Denied));
        assert_eq!(policy.check("mystery", None), Err(Refusal::NotAllowed));
    }

    #[test]
    fn a_batch_holding_a_refused_tool_is_refused_whole() {
        let tools = catalog();
        let find = |name: &str| tools.iter().find(|tool| tool["name"] == name);
        let policy = Policy {
            deny: vec!["read_note".into()],
            ..Policy::default()
        };
        let params = json!({"name": "batch", "arguments": {"calls": [
            {"tool": "outline", "arguments": {}}, {"tool": "read_note", "arguments": {"path": "x"}}]}});
        let refusal = policy.refused_batch_call(Some(&params), find).unwrap();
        assert!(refusal.contains("call 2 (read_note)"), "{refusal}");
        assert!(refusal.contains("--deny-tool"), "{refusal}");
        let allowed = Policy {
            allow: vec!["batch".into(), "outline".into()],
            ..Policy::default()
        };
        assert!(
            allowed
                .refused_batch_call(Some(&params), find)
                .unwrap()
                .contains("--allow-tool")
        );
        assert_eq!(
            Policy::default().refused_batch_call(Some(&params), find),
            None
        );
    }

    #[test]
    fn no_policy_offers_everything() {
        assert_eq!(names(&Policy::default()).len(), 3);
    }
}

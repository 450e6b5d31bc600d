//! Tool arguments checked the way the plugin's zod schemas check them: defaults for missing keys, types, integer
//! ranges and string lengths; unknown keys are ignored (zod strips them). A failure reads like the MCP SDK's
//! `Input validation error` so an agent sees the same kind of message live and offline.

use serde_json::{Map, Value};

use crate::offline::js::utf16_len;
use crate::offline::plugin::tools::ToolError;

/// The arguments of one call.
pub(crate) struct Args<'a> {
    tool: &'a str,
    map: Map<String, Value>,
}

impl<'a> Args<'a> {
    /// Wraps a call's `arguments` (absent or null means `{}`).
    pub(crate) fn new(tool: &'a str, arguments: Value) -> Result<Self, ToolError> {
        let map = match arguments {
            Value::Null => Map::new(),
            Value::Object(map) => map,
            other => return Err(invalid(tool, "arguments", &expected("object", &other))),
        };
        Ok(Self { tool, map })
    }

    /// `nextCall`: the exact call that gets the next part of a limited result, `{"tool", "arguments"}`. The arguments
    /// are the call's own as zod parses them (the schema's order, defaults filled, unknown keys dropped), with
    /// `changes` set (an existing key keeps its place, a new one goes last) and `drop` removed.
    pub(crate) fn next_call(&self, changes: Vec<(&str, Value)>, drop: &[&str]) -> Value {
        let mut arguments = Map::new();
        // The plugin's catalog (embedded in the binary, parsed once): the schema's order and defaults.
        let properties = crate::assets::catalog_tool(self.tool)
            .and_then(|tool| tool.pointer("/inputSchema/properties"))
            .and_then(Value::as_object);
        for (key, schema) in properties.into_iter().flatten() {
            if drop.contains(&key.as_str()) {
                continue;
            }
            if let Some(value) = self.map.get(key).or_else(|| schema.get("default")) {
                arguments.insert(key.clone(), value.clone());
            }
        }
        for (key, value) in changes {
            arguments.insert(key.to_string(), value);
        }
        serde_json::json!({"tool": self.tool, "arguments": arguments})
    }

    fn invalid(&self, key: &str, problem: &str) -> ToolError {
        invalid(self.tool, key, problem)
    }

    /// An optional string with length bounds (UTF-16 units, as zod counts).
    pub(crate) fn opt_string(
        &self,
        key: &str,
        min: usize,
        max: usize,
    ) -> Result<Option<String>, ToolError> {
        match self.map.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => {
                let length = utf16_len(text);
                if length < min {
                    Err(self.invalid(
                        key,
                        &format!("Too small: expected string to have >={min} characters"),
                    ))
                } else if length > max {
                    Err(self.invalid(
                        key,
                        &format!("Too big: expected string to have <={max} characters"),
                    ))
                } else {
                    Ok(Some(text.clone()))
                }
            }
            Some(other) => Err(self.invalid(key, &expected("string", other))),
        }
    }

    /// A string with a default.
    pub(crate) fn string(
        &self,
        key: &str,
        default: &str,
        min: usize,
        max: usize,
    ) -> Result<String, ToolError> {
        Ok(self
            .opt_string(key, min, max)?
            .unwrap_or_else(|| default.to_string()))
    }

    /// A required string.
    pub(crate) fn required_string(
        &self,
        key: &str,
        min: usize,
        max: usize,
    ) -> Result<String, ToolError> {
        self.opt_string(key, min, max)?
            .ok_or_else(|| self.invalid(key, "Invalid input: expected string, received undefined"))
    }

    /// An optional integer within bounds.
    pub(crate) fn opt_int(&self, key: &str, min: i64, max: i64) -> Result<Option<i64>, ToolError> {
        match self.map.get(key) {
            None => Ok(None),
            Some(Value::Number(number)) => {
                let value = number.as_f64().unwrap_or(f64::NAN);
                if value.fract() != 0.0 || !value.is_finite() {
                    return Err(self.invalid(key, "Invalid input: expected int, received number"));
                }
                if value < min as f64 {
                    return Err(
                        self.invalid(key, &format!("Too small: expected number to be >={min}"))
                    );
                }
                if value > max as f64 {
                    return Err(
                        self.invalid(key, &format!("Too big: expected number to be <={max}"))
                    );
                }
                Ok(Some(value as i64))
            }
            Some(other) => Err(self.invalid(key, &expected("number", other))),
        }
    }

    /// An integer with a default.
    pub(crate) fn int(
        &self,
        key: &str,
        default: i64,
        min: i64,
        max: i64,
    ) -> Result<i64, ToolError> {
        Ok(self.opt_int(key, min, max)?.unwrap_or(default))
    }

    /// A boolean with a default.
    pub(crate) fn boolean(&self, key: &str, default: bool) -> Result<bool, ToolError> {
        match self.map.get(key) {
            None => Ok(default),
            Some(Value::Bool(value)) => Ok(*value),
            Some(other) => Err(self.invalid(key, &expected("boolean", other))),
        }
    }

    /// One of a fixed set of strings, with a default.
    pub(crate) fn choice(
        &self,
        key: &str,
        options: &[&str],
        default: &str,
    ) -> Result<String, ToolError> {
        match self.map.get(key) {
            None => Ok(default.to_string()),
            Some(Value::String(text)) if options.contains(&text.as_str()) => Ok(text.clone()),
            Some(_) => Err(self.invalid(
                key,
                &format!(
                    "Invalid option: expected one of {}",
                    options
                        .iter()
                        .map(|o| format!("\"{o}\""))
                        .collect::<Vec<_>>()
                        .join("|")
                ),
            )),
        }
    }

    /// The raw value of a key.
    pub(crate) fn raw(&self, key: &str) -> Option<&Value> {
        self.map.get(key)
    }

    /// `limit` (`limitArg`): 1..=500 with a default.
    pub(crate) fn limit(&self, default: i64) -> Result<usize, ToolError> {
        Ok(self.int("limit", default, 1, 500)? as usize)
    }

    /// `max_chars` (`maxCharsArg`): 100..=200,000, default 20,000.
    pub(crate) fn max_chars(&self) -> Result<usize, ToolError> {
        Ok(self.int("max_chars", 20_000, 100, 200_000)? as usize)
    }

    /// `cursor` (`cursorArg`): an optional string of at most 4096 characters.
    pub(crate) fn cursor(&self) -> Result<Option<String>, ToolError> {
        self.opt_string("cursor", 0, 4096)
    }
}

/// The prefix of the MCP SDK's message for arguments that do not fit the schema.
pub(crate) const VALIDATION_PREFIX: &str =
    "MCP error -32602: Input validation error: Invalid arguments for tool ";

/// An argument that does not fit the schema, worded like the MCP SDK and zod (the first failing argument only).
pub(crate) fn invalid(tool: &str, key: &str, problem: &str) -> ToolError {
    ToolError(format!("{VALIDATION_PREFIX}{tool}: {problem} at {key}"))
}

/// The same failure as `batch` words it for one of its calls: `invalid arguments: KEY: PROBLEM`.
pub(crate) fn as_batch_message(message: &str) -> Option<String> {
    let rest = message.strip_prefix(VALIDATION_PREFIX)?;
    let (_, issue) = rest.split_once(": ")?;
    let (problem, key) = issue.rsplit_once(" at ")?;
    Some(format!("invalid arguments: {key}: {problem}"))
}

/// zod's wording for a value of the wrong type.
pub(crate) fn expected(kind: &str, value: &Value) -> String {
    let received = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    format!("Invalid input: expected {kind}, received {received}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_types_and_bounds() {
        let args = Args::new(
            "t",
            json!({"limit": 5, "flag": true, "name": "x", "extra": 1}),
        )
        .unwrap();
        assert_eq!(args.limit(50).unwrap(), 5);
        assert_eq!(args.max_chars().unwrap(), 20_000);
        assert!(args.boolean("flag", false).unwrap());
        assert_eq!(args.string("missing", "d", 0, 10).unwrap(), "d");
        let bad = Args::new("t", json!({"limit": 0, "n": 2.5, "s": 3})).unwrap();
        assert!(
            bad.limit(50)
                .unwrap_err()
                .0
                .ends_with("t: Too small: expected number to be >=1 at limit")
        );
        assert!(
            bad.int("n", 1, 0, 10)
                .unwrap_err()
                .0
                .contains("expected int, received number")
        );
        assert!(
            bad.required_string("s", 1, 10)
                .unwrap_err()
                .0
                .contains("expected string, received number")
        );
        let missing = bad.required_string("nope", 1, 10).unwrap_err().0;
        assert!(missing.ends_with("received undefined at nope"), "{missing}");
        assert_eq!(
            as_batch_message(&missing).unwrap(),
            "invalid arguments: nope: Invalid input: expected string, received undefined"
        );
        assert!(Args::new("t", json!([1])).is_err());
    }
}

//! Templates from `templates/`: JSON files whose string values `"{name}"` are placeholders. Rendering replaces them
//! structurally (a placeholder inside an array splices an array value in), so no config text is ever built by
//! concatenating strings; the same template read backwards finds the command and arguments inside a user's entry.

use std::collections::BTreeMap;

use serde_json::Value;

/// A parsed template.
#[derive(Debug, Clone)]
pub struct Template {
    shape: Value,
}

impl Template {
    /// Parses a template's text; templates are embedded, so a broken one is a build mistake caught by tests.
    pub fn parse(text: &str) -> Self {
        Self {
            shape: serde_json::from_str(text).expect("templates in templates/ are valid JSON"),
        }
    }

    /// The template with each placeholder replaced by its value.
    pub fn render(&self, values: &BTreeMap<&str, Value>) -> Value {
        render(&self.shape, values)
    }

    /// The top-level keys whose value holds a placeholder: where the command and its arguments go.
    pub fn keys_with_placeholders(&self) -> Vec<&str> {
        self.shape
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, value)| holds_placeholder(value))
            .map(|(key, _)| key.as_str())
            .collect()
    }

    /// The values found where the template has placeholders, when `entry` has the template's shape there.
    pub fn extract(&self, entry: &Value) -> BTreeMap<String, Value> {
        let mut found = BTreeMap::new();
        extract(&self.shape, entry, &mut found);
        found
    }
}

fn placeholder(value: &Value) -> Option<&str> {
    value.as_str()?.strip_prefix('{')?.strip_suffix('}')
}

fn holds_placeholder(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(holds_placeholder),
        Value::Object(map) => map.values().any(holds_placeholder),
        other => placeholder(other).is_some(),
    }
}

fn render(shape: &Value, values: &BTreeMap<&str, Value>) -> Value {
    if let Some(name) = placeholder(shape)
        && let Some(value) = values.get(name)
    {
        return value.clone();
    }
    match shape {
        Value::Array(items) => {
            let mut rendered = Vec::new();
            for item in items {
                match placeholder(item).and_then(|name| values.get(name)) {
                    Some(Value::Array(spliced)) => rendered.extend(spliced.iter().cloned()),
                    _ => rendered.push(render(item, values)),
                }
            }
            Value::Array(rendered)
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), render(value, values)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn extract(shape: &Value, entry: &Value, found: &mut BTreeMap<String, Value>) {
    if let Some(name) = placeholder(shape) {
        found.insert(name.to_owned(), entry.clone());
        return;
    }
    match (shape, entry) {
        (Value::Object(shape), Value::Object(entry)) => {
            for (key, child) in shape {
                if let Some(value) = entry.get(key) {
                    extract(child, value, found);
                }
            }
        }
        (Value::Array(shape), Value::Array(entry)) => {
            for (index, child) in shape.iter().enumerate() {
                let is_last = index + 1 == shape.len();
                match placeholder(child) {
                    // The last placeholder of an array takes the rest of it (the arguments).
                    Some(name) if is_last => {
                        found.insert(
                            name.to_owned(),
                            Value::Array(entry.iter().skip(index).cloned().collect()),
                        );
                    }
                    _ => {
                        if let Some(value) = entry.get(index) {
                            extract(child, value, found);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn values() -> BTreeMap<&'static str, Value> {
        BTreeMap::from([
            ("command", json!("/bin/obsmcp")),
            ("args", json!(["bridge", "--vault", "/v"])),
        ])
    }

    #[test]
    fn renders_and_extracts_an_args_entry() {
        let template =
            Template::parse(r#"{"type":"stdio","command":"{command}","args":["{args}"]}"#);
        let entry = template.render(&values());
        assert_eq!(
            entry,
            json!({"type":"stdio","command":"/bin/obsmcp","args":["bridge","--vault","/v"]})
        );
        let found = template.extract(&entry);
        assert_eq!(found["command"], "/bin/obsmcp");
        assert_eq!(found["args"], json!(["bridge", "--vault", "/v"]));
    }

    #[test]
    fn renders_and_extracts_a_command_array_entry() {
        let template =
            Template::parse(r#"{"type":"local","command":["{command}","{args}"],"enabled":true}"#);
        let entry = template.render(&values());
        assert_eq!(
            entry["command"],
            json!(["/bin/obsmcp", "bridge", "--vault", "/v"])
        );
        let found = template.extract(&entry);
        assert_eq!(found["command"], "/bin/obsmcp");
        assert_eq!(found["args"], json!(["bridge", "--vault", "/v"]));
    }

    #[test]
    fn keys_with_placeholders_are_the_command_and_its_arguments() {
        let template =
            Template::parse(r#"{"type":"stdio","command":"{command}","args":["{args}"]}"#);
        assert_eq!(template.keys_with_placeholders(), ["command", "args"]);
        let template =
            Template::parse(r#"{"type":"local","command":["{command}","{args}"],"enabled":true}"#);
        assert_eq!(template.keys_with_placeholders(), ["command"]);
    }

    #[test]
    fn numbers_replace_placeholders_whole() {
        let template = Template::parse(r#"{"port":"{port}","token":"{token}"}"#);
        let rendered = template.render(&BTreeMap::from([
            ("port", json!(22400)),
            ("token", json!("ab")),
        ]));
        assert_eq!(rendered, json!({"port": 22400, "token": "ab"}));
    }

    #[test]
    fn every_embedded_template_parses() {
        for client in crate::clients::CLIENTS {
            let template = client.template();
            let entry = template.render(&values());
            assert_eq!(
                template.extract(&entry)["command"],
                "/bin/obsmcp",
                "{}",
                client.id
            );
        }
    }
}

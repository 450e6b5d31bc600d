//! Lossless documents: the four config formats obsmcp edits (strict JSON, JSONC, TOML, YAML), each behind one small
//! tree trait so that the plan of an edit is written once.
//!
//! An edit is a list of [`Operation`]s on key paths, with values given as `serde_json::Value`, the one neutral form
//! every format converts from. Each format editor changes only the nodes an operation names, so comments, spacing
//! and unknown keys elsewhere survive. After editing, the new text is parsed again and compared with the same
//! operations applied to plain values: if a format editor ever produced something else, the edit is refused rather
//! than written.
//!
//! Longer than 400 lines because the two readings of an [`Operation`] stay side by side: on the format's tree
//! (`apply_to_tree`) and on plain values (`apply_to_value`, what the result must read back as), since every edit made
//! through the one is checked against the other. What only one format needs lives in that format's file (the YAML
//! repairs in `yaml.rs`). The editor fuzz targets' bodies are in `fuzzing.rs`, compiled only for tests and under
//! cargo-fuzz.

#[cfg(any(test, fuzzing))]
pub mod fuzzing;
mod json;
mod toml;
mod yaml;

use serde_json::Value;

/// The file formats obsmcp edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Strict JSON (no comments): `~/.claude.json`, Claude Desktop, Obsidian's own files.
    Json,
    /// JSON with comments and trailing commas: VS Code, Zed, Gemini CLI, opencode, Cursor, Windsurf.
    Jsonc,
    /// TOML: Codex.
    Toml,
    /// YAML: Hermes Agent.
    Yaml,
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Json => "JSON",
            Self::Jsonc => "JSONC",
            Self::Toml => "TOML",
            Self::Yaml => "YAML",
        })
    }
}

/// A path of object keys from the document root.
pub type KeyPath = Vec<String>;

/// Builds a key path from string slices.
pub fn key_path(keys: &[&str]) -> KeyPath {
    keys.iter().map(|key| (*key).to_owned()).collect()
}

/// One change to a document.
#[derive(Debug, Clone, PartialEq)]
pub enum Operation {
    /// Puts `value` at `path`; when both sides are objects, key by key, so keys the user added survive.
    Merge { path: KeyPath, value: Value },
    /// Puts `value` at `path`, replacing whatever was there.
    Replace { path: KeyPath, value: Value },
    /// Removes the key at `path`, if present.
    Remove { path: KeyPath },
    /// Adds each string to the array at `path` (created if absent) unless already there.
    AddToArray { path: KeyPath, items: Vec<String> },
    /// Removes each string from the array at `path`.
    RemoveFromArray { path: KeyPath, items: Vec<String> },
    /// Removes the object or array at `path` if it is empty.
    RemoveIfEmpty { path: KeyPath },
}

/// Why a document could not be edited.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DocumentError {
    /// The text does not parse in its format.
    #[error("{format} does not parse: {message}")]
    Parse { format: Format, message: String },
    /// A key on the path holds something that is not an object (or not an array where one is needed).
    #[error("`{path}` is a {found}, not {expected}")]
    Shape {
        path: String,
        found: &'static str,
        expected: &'static str,
    },
    /// The editor's output did not mean what the plan said; nothing is written.
    #[error(
        "the edited {format} would not read back as planned (this is a bug in obsmcp; nothing was written)"
    )]
    Verification { format: Format },
    /// The text reads as its format, but the lossless editor cannot take it apart (rare YAML, such as an anchored
    /// empty key); nothing is written.
    #[error(
        "{format} reads, but obsmcp's editor cannot take it apart without risk ({message}); nothing was written. \
         Add the entry by hand or rewrite that part of the file"
    )]
    Unsupported { format: Format, message: String },
}

/// The tree operations each format implements; [`apply`] builds every [`Operation`] out of them.
pub(crate) trait Tree {
    /// The value at `path`, converted to the neutral form.
    fn get(&self, path: &[String]) -> Option<Value>;
    /// Sets `path` to `value`, creating missing parent objects; an existing node is replaced.
    fn set(&mut self, path: &[String], value: &Value) -> Result<(), DocumentError>;
    /// Removes the key at `path`; returns whether it was there.
    fn remove(&mut self, path: &[String]) -> bool;
    /// Appends a string to the array at `path`, creating the array (and parents) if missing.
    fn push(&mut self, path: &[String], item: &str) -> Result<(), DocumentError>;
    /// Removes every element equal to `item` from the array at `path`.
    fn remove_item(&mut self, path: &[String], item: &str);
    /// The document's text.
    fn render(&self) -> String;
}

/// Parses `text` in `format`, applies the operations and returns the new text (equal to `text` when nothing changed).
pub fn apply(
    format: Format,
    original: &str,
    operations: &[Operation],
) -> Result<String, DocumentError> {
    let mut lines = LineStyle::of(format, original);
    if lines.crlf && !lines.round_trips(format, original) {
        // Mixed line endings where a lone LF sits inside a string (JSONC and TOML keep raw line breaks there):
        // writing every line break as CRLF would change that string, so the file is edited as it is and the lines
        // obsmcp adds end in LF.
        lines.crlf = false;
    }
    let mut normalized = lines.normalize(original);
    if format == Format::Yaml
        && let Some(emptied) = yaml::without_null_document(&normalized)
    {
        normalized = emptied;
    }
    let text = normalized.as_str();
    // The plan starts from what the file means as it is: a CRLF inside a JSONC or TOML string is CRLF there, though
    // the tree edits the LF form (a YAML null document plans as an empty one, as it reads as nothing either way).
    let before = read_value(format, original)?;
    let mut expected = before.clone();
    for operation in operations {
        apply_to_value(&mut expected, operation)?;
    }
    if expected == before {
        return Ok(original.to_owned());
    }
    // The bytes that would be written must read back as planned, or nothing is written.
    let written = |text: &str| {
        let edited = edit(format, text, operations, &expected)?;
        let written = lines.restore(&edited);
        if !reads_as(format, &written, &expected) {
            return Err(DocumentError::Verification { format });
        }
        if let Some(path) = unreachable_entry(format, &edited, operations) {
            return Err(DocumentError::Unsupported {
                format,
                message: format!(
                    "it could not find `{}` again to take it out later",
                    path.join(".")
                ),
            });
        }
        Ok(written)
    };
    match written(text) {
        Err(DocumentError::Verification { .. }) if format == Format::Yaml => {
            yaml::after_failed_verification(text, &before, written)
        }
        other => other,
    }
}

/// The first path a merge or replace put in that the tree, reading the result afresh, does not find: uninstall
/// removes through the same tree, so what it cannot find, it could never take out.
fn unreachable_entry<'a>(
    format: Format,
    written: &str,
    operations: &'a [Operation],
) -> Option<&'a KeyPath> {
    operations.iter().find_map(|operation| match operation {
        Operation::Merge { path, .. } | Operation::Replace { path, .. } if !path.is_empty() => {
            let found = parse_tree(format, written).is_ok_and(|mut tree| tree.remove(path));
            (!found).then_some(path)
        }
        _ => None,
    })
}

/// The operations applied to `text` through the format's tree, rendered.
fn edit(
    format: Format,
    text: &str,
    operations: &[Operation],
    expected: &Value,
) -> Result<String, DocumentError> {
    let mut tree = parse_tree(format, text)?;
    for operation in operations {
        apply_to_tree(tree.as_mut(), operation)?;
    }
    let edited = tree.render();
    // yaml-edit writes an emptied document as `{}`; a YAML file with nothing left in it is empty, as it began, or
    // holds only its comments.
    if format == Format::Yaml
        && expected.as_object().is_some_and(serde_json::Map::is_empty)
        && let Some(emptied) = yaml::without_empty_flow_mapping(&edited)
    {
        return Ok(emptied);
    }
    Ok(edited)
}

/// Whether `text` reads as `expected` (a text with no value reading as an empty object).
fn reads_as(format: Format, text: &str, expected: &Value) -> bool {
    match read_value(format, text) {
        Ok(Value::Null) => expected.as_object().is_some_and(serde_json::Map::is_empty),
        Ok(actual) => comparable(format, actual) == comparable(format, expected.clone()),
        Err(_) => false,
    }
}

/// A value as a format can express it: TOML writes nothing for a table left empty under `[a.b]` headers, so empty
/// tables are not compared there.
fn comparable(format: Format, value: Value) -> Value {
    fn without_empty_tables(value: Value) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(key, child)| (key, without_empty_tables(child)))
                    .filter(|(_, child)| !child.as_object().is_some_and(serde_json::Map::is_empty))
                    .collect(),
            ),
            other => other,
        }
    }
    if format == Format::Toml {
        without_empty_tables(value)
    } else {
        value
    }
}

/// The line endings of the user's file and its byte-order mark, which some editors (toml_edit) would otherwise
/// normalise away.
struct LineStyle {
    crlf: bool,
    final_newline: bool,
    /// How many byte-order marks open the file. Editors on Windows write one (and a file saved twice over, two);
    /// strict JSON readers (Claude's `JSON.parse`) refuse it, so JSON keeps it as text.
    boms: usize,
}

const BOM: char = '\u{feff}';

impl LineStyle {
    fn of(format: Format, text: &str) -> Self {
        Self {
            crlf: text.contains("\r\n"),
            // A bare CR is a line break to YAML.
            final_newline: text.is_empty() || text.ends_with(['\n', '\r']),
            boms: match format {
                Format::Json => 0,
                _ => text.chars().take_while(|c| *c == BOM).count(),
            },
        }
    }

    fn normalize(&self, text: &str) -> String {
        let text = &text[self.boms * BOM.len_utf8()..];
        if self.crlf {
            text.replace("\r\n", "\n")
        } else {
            text.to_owned()
        }
    }

    /// Whether normalizing and restoring `text` untouched keeps its meaning.
    fn round_trips(&self, format: Format, text: &str) -> bool {
        let again = self.restore(&self.normalize(text));
        again == text || read_value(format, &again).ok() == read_value(format, text).ok()
    }

    fn restore(&self, text: &str) -> String {
        let text = if self.final_newline {
            text
        } else {
            text.strip_suffix('\n').unwrap_or(text)
        };
        let text = if self.crlf {
            text.replace('\n', "\r\n")
        } else {
            text.to_owned()
        };
        BOM.to_string().repeat(self.boms) + &text
    }
}

/// Reads a document as a plain value (an empty or blank text is an empty document).
pub fn read_value(format: Format, text: &str) -> Result<Value, DocumentError> {
    // A byte-order mark is read past as `apply` reads past it, except in strict JSON (JSON.parse refuses it).
    let text = match format {
        Format::Json => text,
        _ => text.strip_prefix(BOM).unwrap_or(text),
    };
    match format {
        Format::Json => json::read_value(text, false),
        Format::Jsonc => json::read_value(text, true),
        Format::Toml => toml::read_value(text),
        Format::Yaml => yaml::read_value(text),
    }
}

/// The value at `path` in a plain value.
pub fn lookup<'a>(value: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter()
        .try_fold(value, |node, key| node.as_object()?.get(key))
}

fn parse_tree(format: Format, text: &str) -> Result<Box<dyn Tree>, DocumentError> {
    Ok(match format {
        Format::Json => Box::new(json::JsonTree::parse(text, false)?),
        Format::Jsonc => Box::new(json::JsonTree::parse(text, true)?),
        Format::Toml => Box::new(toml::TomlTree::parse(text)?),
        Format::Yaml => Box::new(yaml::YamlTree::parse(text)?),
    })
}

fn apply_to_tree(tree: &mut dyn Tree, operation: &Operation) -> Result<(), DocumentError> {
    match operation {
        Operation::Merge { path, value } => merge_into_tree(tree, path, value),
        Operation::Replace { path, value } => {
            if tree.get(path).as_ref() != Some(value) {
                tree.set(path, value)?;
            }
            Ok(())
        }
        Operation::Remove { path } => {
            tree.remove(path);
            Ok(())
        }
        Operation::AddToArray { path, items } => {
            let present = tree.get(path);
            for item in items {
                let already = present
                    .as_ref()
                    .and_then(Value::as_array)
                    .is_some_and(|array| array.iter().any(|v| v == item));
                if !already {
                    tree.push(path, item)?;
                }
            }
            Ok(())
        }
        Operation::RemoveFromArray { path, items } => {
            for item in items {
                tree.remove_item(path, item);
            }
            Ok(())
        }
        Operation::RemoveIfEmpty { path } => {
            if tree
                .get(path)
                .is_some_and(|value| is_empty_container(&value))
            {
                tree.remove(path);
            }
            Ok(())
        }
    }
}

fn merge_into_tree(
    tree: &mut dyn Tree,
    path: &[String],
    value: &Value,
) -> Result<(), DocumentError> {
    match (tree.get(path), value) {
        (Some(Value::Object(_)), Value::Object(wanted)) => {
            for (key, child) in wanted {
                let mut child_path = path.to_vec();
                child_path.push(key.clone());
                merge_into_tree(tree, &child_path, child)?;
            }
            Ok(())
        }
        (Some(existing), _) if &existing == value => Ok(()),
        _ => tree.set(path, value),
    }
}

fn is_empty_container(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// The same operations on plain values: what the edited document must read back as.
fn apply_to_value(root: &mut Value, operation: &Operation) -> Result<(), DocumentError> {
    match operation {
        Operation::Merge { path, value } => {
            let slot = slot_mut(root, path)?;
            merge_values(slot, value);
        }
        Operation::Replace { path, value } => *slot_mut(root, path)? = value.clone(),
        Operation::Remove { path } => remove_value(root, path),
        Operation::AddToArray { path, items } => {
            let slot = slot_mut(root, path)?;
            if slot.is_null() {
                *slot = Value::Array(Vec::new());
            }
            let kind = slot_kind_of(slot);
            let array = slot
                .as_array_mut()
                .ok_or_else(|| shape_error(path, kind, "an array"))?;
            for item in items {
                if !array.iter().any(|v| v == item) {
                    array.push(Value::String(item.clone()));
                }
            }
        }
        Operation::RemoveFromArray { path, items } => {
            if let Some(Value::Array(array)) = lookup_mut(root, path) {
                array.retain(|v| !items.iter().any(|item| v == item));
            }
        }
        Operation::RemoveIfEmpty { path } => {
            if lookup(root, path).is_some_and(is_empty_container) {
                remove_value(root, path);
            }
        }
    }
    Ok(())
}

fn merge_values(slot: &mut Value, value: &Value) {
    match (slot, value) {
        (Value::Object(existing), Value::Object(wanted)) => {
            for (key, child) in wanted {
                merge_values(existing.entry(key.clone()).or_insert(Value::Null), child);
            }
        }
        (slot, value) => *slot = value.clone(),
    }
}

/// The slot at `path`, creating parent objects (a missing leaf reads as null).
fn slot_mut<'a>(root: &'a mut Value, path: &[String]) -> Result<&'a mut Value, DocumentError> {
    let mut node = root;
    for (depth, key) in path.iter().enumerate() {
        if node.is_null() {
            *node = Value::Object(serde_json::Map::new());
        }
        let kind = slot_kind_of(node);
        let Value::Object(map) = node else {
            return Err(shape_error(&path[..depth], kind, "an object"));
        };
        node = map.entry(key.clone()).or_insert(Value::Null);
    }
    Ok(node)
}

fn lookup_mut<'a>(value: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter()
        .try_fold(value, |node, key| node.as_object_mut()?.get_mut(key))
}

fn remove_value(root: &mut Value, path: &[String]) {
    if let Some((last, parents)) = path.split_last()
        && let Some(Value::Object(map)) = lookup_mut(root, parents)
    {
        map.shift_remove(last);
    }
}

pub(crate) fn slot_kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

pub(crate) fn shape_error(
    path: &[String],
    found: &'static str,
    expected: &'static str,
) -> DocumentError {
    let path = if path.is_empty() {
        "(the document root)".to_owned()
    } else {
        path.join(".")
    };
    DocumentError::Shape {
        path,
        found,
        expected,
    }
}

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

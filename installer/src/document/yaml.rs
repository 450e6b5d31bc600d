//! YAML through `yaml-edit`'s lossless tree: comments, anchors and other servers stay as written. New keys that name
//! servers are double-quoted (a bare `off` or `no` would read as a boolean), and whole new mappings are built with
//! the crate's builders so they follow block style. Reading for comparison goes through `yaml_serde`.
//!
//! At the end of the file, the repairs for what the tree cannot edit as it stands, which [`super::apply`] calls for
//! YAML alone: a document that is only a null scalar (taken as empty), an emptied document the tree writes as `{}`,
//! and a file that ends inside a block scalar without a final line break.

use std::str::FromStr;

use serde_json::Value;
use yaml_edit::{Document, Mapping, MappingBuilder, ScalarValue, SequenceBuilder, YamlFile};

use super::{BOM, DocumentError, Format, Tree, shape_error};

/// A YAML document held as a lossless tree.
pub(crate) struct YamlTree {
    file: YamlFile,
}

pub(crate) fn read_value(text: &str) -> Result<Value, DocumentError> {
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    let mut parsed: yaml_serde::Value =
        yaml_serde::from_str(text).map_err(|error| DocumentError::Parse {
            format: Format::Yaml,
            message: error.to_string(),
        })?;
    parsed.apply_merge().map_err(|error| DocumentError::Parse {
        format: Format::Yaml,
        message: error.to_string(),
    })?;
    Ok(neutral(parsed))
}

/// Converts a YAML value (merge keys already applied) to the neutral form.
fn neutral(value: yaml_serde::Value) -> Value {
    match value {
        yaml_serde::Value::Null => Value::Null,
        yaml_serde::Value::Bool(flag) => Value::Bool(flag),
        yaml_serde::Value::Number(number) => {
            if let Some(integer) = number.as_i64() {
                Value::from(integer)
            } else if let Some(integer) = number.as_u64() {
                Value::from(integer)
            } else {
                number
                    .as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or(Value::Null, Value::Number)
            }
        }
        yaml_serde::Value::String(text) => Value::String(text),
        yaml_serde::Value::Sequence(items) => {
            Value::Array(items.into_iter().map(neutral).collect())
        }
        yaml_serde::Value::Mapping(mapping) => Value::Object(
            mapping
                .into_iter()
                .map(|(key, value)| (key_text(key), neutral(value)))
                .collect(),
        ),
        yaml_serde::Value::Tagged(tagged) => neutral(tagged.value),
    }
}

fn key_text(key: yaml_serde::Value) -> String {
    match key {
        yaml_serde::Value::String(text) => text,
        other => yaml_serde::to_string(&other)
            .unwrap_or_default()
            .trim_end()
            .to_owned(),
    }
}

impl YamlTree {
    /// The tree of a text [`read_value`] has already read: one the tree still cannot parse is valid YAML that the
    /// tree editor does not cover (an anchored empty key, say), not a broken file.
    pub(crate) fn parse(text: &str) -> Result<Self, DocumentError> {
        let file = YamlFile::from_str(text).map_err(|error| DocumentError::Unsupported {
            format: Format::Yaml,
            message: error.to_string(),
        })?;
        Ok(Self { file })
    }

    fn document(&self) -> Document {
        self.file.ensure_document()
    }

    /// The deepest existing mapping along `path` and how many keys of `path` it covers.
    fn deepest_mapping(&self, path: &[String]) -> Result<(Option<Mapping>, usize), DocumentError> {
        let document = self.document();
        let Some(root) = document.as_mapping() else {
            if document.as_scalar().is_some_and(|scalar| !scalar.is_null())
                || document.as_sequence().is_some()
            {
                return Err(shape_error(&[], "value", "a mapping"));
            }
            return Ok((None, 0));
        };
        let mut mapping = root;
        for (depth, key) in path.iter().enumerate() {
            match mapping.get(key.as_str()) {
                None => return Ok((Some(mapping), depth)),
                Some(node) => match mapping.get_mapping(key.as_str()) {
                    Some(child) => mapping = child,
                    None if node.as_scalar().is_some_and(|scalar| scalar.is_null()) => {
                        return Ok((Some(mapping), depth));
                    }
                    None => return Err(self.not_a_mapping(&path[..=depth], &node.to_string())),
                },
            }
        }
        Ok((Some(mapping), path.len()))
    }

    /// Why the tree cannot enter the node at `path` (written as `node`): it is no mapping; or it is an alias, which
    /// editing would change at its anchor too; or it reads as a mapping the tree does not see as one (an unusual
    /// tag, say).
    fn not_a_mapping(&self, path: &[String], node: &str) -> DocumentError {
        let unsupported = |message: String| DocumentError::Unsupported {
            format: Format::Yaml,
            message,
        };
        let name = path.join(".");
        if node.trim_start().starts_with('*') {
            return unsupported(format!(
                "`{name}` is an alias (`{}`): an entry added through it would change the mapping it points to as well",
                node.trim()
            ));
        }
        let value = read_value(&self.render()).ok();
        if value
            .as_ref()
            .and_then(|value| super::lookup(value, path))
            .is_some_and(Value::is_object)
        {
            return unsupported(format!(
                "`{name}` is a mapping written in a form it does not take apart"
            ));
        }
        shape_error(path, "value", "a mapping")
    }
}

impl Tree for YamlTree {
    fn get(&self, path: &[String]) -> Option<Value> {
        let value = read_value(&self.render()).ok()?;
        super::lookup(&value, path).cloned()
    }

    fn set(&mut self, path: &[String], value: &Value) -> Result<(), DocumentError> {
        let (mapping, covered) = self.deepest_mapping(&path[..path.len().saturating_sub(1)])?;
        let Some((last, _)) = path.split_last() else {
            return Err(shape_error(&[], "document", "a key"));
        };
        // Build what is missing below the deepest existing mapping as one nested value.
        let mut missing = value.clone();
        for key in path[covered + 1..].iter().rev() {
            let mut wrapper = serde_json::Map::new();
            wrapper.insert(key.clone(), missing);
            missing = Value::Object(wrapper);
        }
        let key = &path[covered];
        let final_key = covered + 1 == path.len();
        match mapping {
            Some(mapping) => set_in(&mapping, key, &missing, final_key),
            None => set_in_document(&self.document(), key, &missing, final_key),
        }
        if !final_key {
            // The builders write plain keys; the entry's own name is quoted like every name obsmcp adds.
            if let Ok((Some(parent), covered)) = self.deepest_mapping(&path[..path.len() - 1])
                && covered == path.len() - 1
            {
                parent.rename_key(last.as_str(), key_scalar(last));
            }
        }
        Ok(())
    }

    fn remove(&mut self, path: &[String]) -> bool {
        let Some((last, parents)) = path.split_last() else {
            return false;
        };
        match self.deepest_mapping(parents) {
            Ok((Some(mapping), covered)) if covered == parents.len() => {
                mapping.remove(last.as_str()).is_some()
            }
            _ => false,
        }
    }

    fn push(&mut self, path: &[String], item: &str) -> Result<(), DocumentError> {
        let Some((last, parents)) = path.split_last() else {
            return Err(shape_error(&[], "document", "a mapping"));
        };
        let (mapping, covered) = self.deepest_mapping(parents)?;
        if let Some(mapping) = mapping.filter(|_| covered == parents.len())
            && let Some(sequence) = mapping.get_sequence(last.as_str())
        {
            sequence.push(ScalarValue::string(item));
            return Ok(());
        }
        self.set(path, &Value::Array(vec![Value::String(item.to_owned())]))
    }

    fn remove_item(&mut self, path: &[String], item: &str) {
        let Some((last, parents)) = path.split_last() else {
            return;
        };
        if let Ok((Some(mapping), covered)) = self.deepest_mapping(parents)
            && covered == parents.len()
            && let Some(sequence) = mapping.get_sequence(last.as_str())
        {
            while let Some(index) = sequence
                .values()
                .position(|node| node.to_string().trim() == item)
            {
                sequence.remove(index);
            }
        }
    }

    fn render(&self) -> String {
        self.file.to_string()
    }
}

fn set_in(mapping: &Mapping, key: &str, value: &Value, quoted: bool) {
    let existing = mapping.get(key).is_some();
    match (value, existing || !quoted) {
        (Value::Object(_) | Value::Array(_), true) => mapping.set(key, yaml_document(value)),
        (Value::Object(_) | Value::Array(_), false) => {
            mapping.set(key_scalar(key), yaml_document(value))
        }
        (scalar, true) => mapping.set(key, scalar_value(scalar)),
        (scalar, false) => mapping.set(key_scalar(key), scalar_value(scalar)),
    }
}

fn set_in_document(document: &Document, key: &str, value: &Value, quoted: bool) {
    match (value, quoted) {
        (Value::Object(_) | Value::Array(_), false) => document.set(key, yaml_document(value)),
        (Value::Object(_) | Value::Array(_), true) => {
            document.set(key_scalar(key), yaml_document(value))
        }
        (scalar, false) => document.set(key, scalar_value(scalar)),
        (scalar, true) => document.set(key_scalar(key), scalar_value(scalar)),
    };
}

/// Keys obsmcp adds are double-quoted so that names like `off` stay strings for every YAML reader.
fn key_scalar(key: &str) -> ScalarValue {
    ScalarValue::double_quoted(key)
}

fn scalar_value(value: &Value) -> ScalarValue {
    match value {
        Value::Null => ScalarValue::null(),
        Value::Bool(flag) => ScalarValue::parse(flag.to_string()),
        Value::Number(number) => ScalarValue::parse(number.to_string()),
        Value::String(text) => ScalarValue::string(text.as_str()),
        Value::Array(_) | Value::Object(_) => {
            unreachable!("collections are built by yaml_document")
        }
    }
}

fn yaml_document(value: &Value) -> Document {
    match value {
        Value::Object(map) => mapping_builder(map).build_document(),
        Value::Array(items) => sequence_builder(items).build_document(),
        _ => unreachable!("scalars are built by scalar_value"),
    }
}

fn mapping_builder(map: &serde_json::Map<String, Value>) -> MappingBuilder {
    map.iter()
        .fold(MappingBuilder::new(), |builder, (key, value)| match value {
            Value::Object(child) => builder.insert_mapping(key.as_str(), mapping_builder(child)),
            Value::Array(items) => builder.insert_sequence(key.as_str(), sequence_builder(items)),
            scalar => builder.pair(key.as_str(), scalar_value(scalar)),
        })
}

fn sequence_builder(items: &[Value]) -> SequenceBuilder {
    items
        .iter()
        .fold(SequenceBuilder::new(), |builder, value| match value {
            Value::Object(child) => builder.insert_mapping(mapping_builder(child)),
            Value::Array(inner) => builder.insert_sequence(sequence_builder(inner)),
            scalar => builder.item(scalar_value(scalar)),
        })
}

/// What a YAML edit that did not read back as planned becomes. A file that ends inside a `|` or `>` block without a
/// final line break: whatever goes after the block gives its text a line break it did not have. The block's header
/// says `-` (strip) instead, which reads the same, and the edit (`written`) goes into that. Otherwise the tree reads
/// the file's layout differently from YAML readers (an odd indentation under a tagged empty key, say): that file is
/// past what the tree editor covers, and is refused as unsupported.
pub(super) fn after_failed_verification(
    text: &str,
    before: &Value,
    written: impl Fn(&str) -> Result<String, DocumentError>,
) -> Result<String, DocumentError> {
    let format = Format::Yaml;
    rechomped_final_block(text, before)
        .map_or(Err(DocumentError::Verification { format }), |text| {
            written(&text)
        })
        .map_err(|error| match error {
            DocumentError::Verification { format } => DocumentError::Unsupported {
                format,
                message: "the entry would not read back where the editor put it".into(),
            },
            other => other,
        })
}

/// `text` (YAML without a final line break) with that line break added and the header of the block scalar the
/// file ends in set to strip chomping (`|` to `|-`, `>+2` to `>-2`), when that reads exactly as `text` does. The
/// header is looked for upward from the end, nearest first.
fn rechomped_final_block(text: &str, before: &Value) -> Option<String> {
    if text.is_empty() || text.ends_with('\n') {
        return None;
    }
    let lines: Vec<&str> = text.split('\n').collect();
    (0..lines.len() - 1).rev().take(64).find_map(|index| {
        let header = strip_chomped(lines[index])?;
        let mut candidate = lines.clone();
        candidate[index] = &header;
        let candidate = candidate.join("\n") + "\n";
        (super::read_value(Format::Yaml, &candidate).ok().as_ref() == Some(before))
            .then_some(candidate)
    })
}

/// A line that ends in a block scalar header (`key: |`, `- >+`, `|2- # note`), with its chomping indicator made `-`.
fn strip_chomped(line: &str) -> Option<String> {
    let content = match line.find(" #") {
        Some(comment) => &line[..comment],
        None => line,
    };
    let trimmed = content.trim_end();
    let start = trimmed.rfind(['|', '>'])?;
    let indicators = &trimmed[start + 1..];
    let valid = indicators.len() <= 2
        && indicators
            .chars()
            .filter(|c| matches!(c, '+' | '-'))
            .count()
            <= 1
        && indicators.chars().filter(char::is_ascii_digit).count() <= 1
        && indicators
            .chars()
            .all(|c| matches!(c, '+' | '-' | '1'..='9'));
    let before_indicator = trimmed[..start].trim_end();
    if !valid || !(before_indicator.is_empty() || before_indicator.ends_with([':', '-'])) {
        return None;
    }
    let digits: String = indicators.chars().filter(char::is_ascii_digit).collect();
    Some(format!(
        "{}{}-{digits}{}",
        &line[..start],
        &line[start..=start],
        &line[start + 1 + indicators.len()..]
    ))
}

/// A YAML text whose only content is a `{}` line (beside comments, blank lines and document markers), with that
/// line taken out.
pub(super) fn without_empty_flow_mapping(text: &str) -> Option<String> {
    without_sole_content_line(text, |line| line == "{}")
}

/// A YAML text whose only content is a null scalar (`~`, `null`): a document that holds nothing, which the tree
/// editor cannot add keys to. With that line taken out, the entry goes in as into an empty file; uninstall gives the
/// user's bytes back from its backup.
pub(super) fn without_null_document(text: &str) -> Option<String> {
    without_sole_content_line(text, |line| matches!(line, "~" | "null" | "Null" | "NULL"))
}

/// `text` without its only content line (beside comments, blank lines and document markers), when `wanted` says yes
/// to that line (trimmed).
fn without_sole_content_line(text: &str, wanted: impl Fn(&str) -> bool) -> Option<String> {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut content = lines.iter().enumerate().filter(|(_, line)| {
        // A byte-order mark on a later line is read past like whitespace.
        let line = line.trim_matches(|c: char| c.is_whitespace() || c == BOM);
        !(line.is_empty() || line.starts_with('#') || line == "---" || line == "...")
    });
    match (content.next(), content.next()) {
        (Some((index, line)), None) if wanted(line.trim()) => {
            lines.remove(index);
            Some(lines.concat())
        }
        _ => None,
    }
}

//! JSON and JSONC through `jsonc-parser`'s concrete syntax tree: only the properties an operation names are
//! touched, so comments, key order, indentation and line endings elsewhere stay as the user (or Claude) wrote them.
//! Strict JSON files are parsed with every JSONC extension turned off, so a file Claude would reject is refused here.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstArray, CstComment, CstInputValue, CstNode, CstObject, CstRootNode};
use serde_json::Value;

use super::{DocumentError, Format, Tree, shape_error};

/// A JSON or JSONC document held as a lossless tree.
pub(crate) struct JsonTree {
    root: CstRootNode,
    comments: bool,
}

fn options(comments: bool) -> ParseOptions {
    ParseOptions {
        allow_comments: comments,
        allow_trailing_commas: comments,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

fn format(comments: bool) -> Format {
    if comments {
        Format::Jsonc
    } else {
        Format::Json
    }
}

pub(crate) fn read_value(text: &str, comments: bool) -> Result<Value, DocumentError> {
    // Blank in JSON's own sense: a vertical tab or form feed is not JSON whitespace, and an edit of a file holding
    // one would not read back.
    if text.trim_matches([' ', '\t', '\n', '\r']).is_empty() {
        return Ok(Value::Null);
    }
    if !comments {
        // Claude Code and Claude Desktop read these files with JSON.parse: exactly strict JSON.
        return serde_json::from_str(text).map_err(|error| DocumentError::Parse {
            format: Format::Json,
            message: error.to_string(),
        });
    }
    let parsed: Option<Value> = jsonc_parser::parse_to_serde_value(text, &options(comments))
        .map_err(|error| DocumentError::Parse {
            format: Format::Jsonc,
            message: error.to_string(),
        })?;
    Ok(parsed.unwrap_or(Value::Null))
}

impl JsonTree {
    pub(crate) fn parse(text: &str, comments: bool) -> Result<Self, DocumentError> {
        let root =
            CstRootNode::parse(text, &options(comments)).map_err(|error| DocumentError::Parse {
                format: format(comments),
                message: error.to_string(),
            })?;
        if let Some(name) = duplicate_key(&root) {
            // Readers keep the last copy and the tree edits the first: refuse rather than edit the wrong one.
            return Err(DocumentError::Parse {
                format: format(comments),
                message: format!(
                    "the key {} appears twice in one object; remove one copy",
                    serde_json::Value::from(name)
                ),
            });
        }
        Ok(Self { root, comments })
    }

    fn root_object(&self) -> Result<CstObject, DocumentError> {
        match self.root.value() {
            None => Ok(self.root.object_value_or_set()),
            Some(node) => node
                .as_object()
                .ok_or_else(|| shape_error(&[], kind_of(&node), "an object")),
        }
    }

    /// The object at `path`, created (with its parents) when missing.
    fn object_at(&self, path: &[String]) -> Result<CstObject, DocumentError> {
        let mut object = self.root_object()?;
        for (depth, key) in path.iter().enumerate() {
            object = match object.get(key) {
                None => object
                    .object_value_or_create(key)
                    .expect("a missing key can be created"),
                Some(property) => {
                    let node = property.value().expect("a property has a value");
                    node.as_object()
                        .ok_or_else(|| shape_error(&path[..=depth], kind_of(&node), "an object"))?
                }
            };
        }
        Ok(object)
    }

    fn node_at(&self, path: &[String]) -> Option<CstNode> {
        let mut node = self.root.value()?;
        for key in path {
            node = node.as_object()?.get(key)?.value()?;
        }
        Some(node)
    }

    fn array_at(&self, path: &[String]) -> Result<CstArray, DocumentError> {
        let Some((last, parents)) = path.split_last() else {
            return match self.root.value() {
                None => {
                    let array = self.root.array_value_or_set();
                    array.ensure_multiline();
                    Ok(array)
                }
                Some(node) => node
                    .as_array()
                    .ok_or_else(|| shape_error(&[], kind_of(&node), "an array")),
            };
        };
        let parent = self.object_at(parents)?;
        match parent.get(last) {
            None => {
                let array = parent
                    .array_value_or_create(last)
                    .expect("a missing key can be created");
                // A list obsmcp starts gets one item per line, like the rest of a pretty-printed file.
                array.ensure_multiline();
                Ok(array)
            }
            Some(property) => {
                let node = property.value().expect("a property has a value");
                node.as_array()
                    .ok_or_else(|| shape_error(path, kind_of(&node), "an array"))
            }
        }
    }
}

impl Tree for JsonTree {
    fn get(&self, path: &[String]) -> Option<Value> {
        self.node_at(path)?.to_serde_value()
    }

    fn set(&mut self, path: &[String], value: &Value) -> Result<(), DocumentError> {
        let Some((last, parents)) = path.split_last() else {
            self.root.set_value(input(value));
            return Ok(());
        };
        let parent = self.object_at(parents)?;
        match parent.get(last) {
            Some(property) => property.set_value(input(value)),
            None => {
                parent.append(last, input(value));
            }
        }
        Ok(())
    }

    fn remove(&mut self, path: &[String]) -> bool {
        let Some((last, parents)) = path.split_last() else {
            return false;
        };
        let property = self
            .node_at(parents)
            .and_then(|node| node.as_object())
            .and_then(|object| object.get(last));
        let Some(property) = property else {
            return false;
        };
        self.remove_keeping_comments(property.into());
        true
    }

    fn push(&mut self, path: &[String], item: &str) -> Result<(), DocumentError> {
        self.array_at(path)?
            .append(CstInputValue::String(item.to_owned()));
        Ok(())
    }

    fn remove_item(&mut self, path: &[String], item: &str) {
        // Looked up afresh each time: a removal that puts comments back parses the tree anew.
        while let Some(element) = self
            .node_at(path)
            .and_then(|node| node.as_array())
            .and_then(|array| {
                array
                    .elements()
                    .into_iter()
                    .find(|element| element.to_serde_value().is_some_and(|value| value == item))
            })
        {
            self.remove_keeping_comments(element);
        }
    }

    fn render(&self) -> String {
        self.root.to_string()
    }
}

impl JsonTree {
    /// Removes a property or an array element. The tree's removal takes the comments written beside it on its line
    /// with it. Only what obsmcp added is removed, and that holds no comments: a comment there is the user's, moved
    /// onto that line when the entry went in beside it (`"x": 1 /* c */}` gains the entry between `1` and the
    /// comment). Such comments go back, in their order, in front of whatever followed the removed node.
    fn remove_keeping_comments(&mut self, node: CstNode) {
        let siblings: Vec<CstComment> = node
            .parent()
            .map(|parent| parent.children())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|sibling| sibling.as_comment())
            .collect();
        let anchor = node
            .next_siblings()
            .find(|sibling| !sibling.is_trivia() && !sibling.is_comma());
        node.remove();
        let lost: Vec<String> = siblings
            .iter()
            .filter(|comment| comment.parent().is_none())
            .map(CstComment::raw_value)
            .collect();
        if let Some(anchor) = anchor.filter(|_| !lost.is_empty()) {
            self.reinsert(offset_of(&anchor), &lost);
        }
    }

    /// `comments` written into the text at byte `offset`, the tree parsed anew from the result.
    fn reinsert(&mut self, offset: usize, comments: &[String]) {
        let text = self.root.to_string();
        let mut inserted = String::new();
        for comment in comments {
            inserted.push_str(comment);
            inserted.push(if comment.starts_with("//") { '\n' } else { ' ' });
        }
        let text = format!("{}{inserted}{}", &text[..offset], &text[offset..]);
        // Comments between tokens keep the text valid; should it somehow not parse, the tree stays as it was and the
        // read-back check in `apply` still judges the result.
        if let Ok(root) = CstRootNode::parse(&text, &options(self.comments)) {
            self.root = root;
        }
    }
}

/// Where `node` starts in the rendered text, in bytes.
fn offset_of(node: &CstNode) -> usize {
    let mut offset = 0;
    let mut current = node.clone();
    loop {
        offset += current
            .previous_siblings()
            .map(|sibling| sibling.to_string().len())
            .sum::<usize>();
        match current.parent() {
            Some(parent) => current = parent.into(),
            None => return offset,
        }
    }
}

/// The first key found twice in one object, anywhere in the document. Walked with a stack, not recursion, so a
/// deeply nested file cannot overflow it.
fn duplicate_key(root: &CstRootNode) -> Option<String> {
    let mut pending: Vec<CstNode> = root.value().into_iter().collect();
    while let Some(node) = pending.pop() {
        if let Some(object) = node.as_object() {
            let mut names = std::collections::HashSet::new();
            for property in object.properties() {
                if let Some(name) = property.decoded_name()
                    && !names.insert(name.clone())
                {
                    return Some(name);
                }
                pending.extend(property.value());
            }
        } else if let Some(array) = node.as_array() {
            pending.extend(array.elements());
        }
    }
    None
}

fn kind_of(node: &CstNode) -> &'static str {
    node.to_serde_value()
        .map_or("value", |value| super::slot_kind_of(&value))
}

/// Converts a neutral value into the CST's input form, keeping key order.
fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(flag) => CstInputValue::Bool(*flag),
        Value::Number(number) => CstInputValue::Number(number.to_string()),
        Value::String(text) => CstInputValue::String(text.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(map) => CstInputValue::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), input(value)))
                .collect(),
        ),
    }
}

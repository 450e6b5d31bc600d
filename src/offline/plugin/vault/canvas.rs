//! JSON Canvas files (`vault/canvas.ts`): a canvas read into the nodes (with the group each sits in) and edges the
//! `canvas` tool reports, keys in the plugin's order and numbers as JavaScript writes them.

use serde_json::{Map, Value, json};

use crate::offline::js::{js_number, js_trim};
use crate::offline::plugin::tools::ToolError;
use crate::offline::plugin::vault::limits::cut_chars;

/// `NODE_TEXT_CHARS`.
const NODE_TEXT_CHARS: usize = 1000;

/// `parseCanvas`: the canvas's top-level object, or the plugin's refusal.
pub(crate) fn parse_canvas(path: &str, text: &str) -> Result<Map<String, Value>, ToolError> {
    let parsed: Value = if js_trim(text).is_empty() {
        json!({})
    } else {
        serde_json::from_str(text).map_err(|_| {
            ToolError(format!(
                "{path} is not valid JSON, so not a JSON Canvas; open it in Obsidian to see what is wrong"
            ))
        })?
    };
    let Value::Object(canvas) = parsed else {
        return Err(ToolError(format!(
            "{path} is not a JSON Canvas: its top level is not an object"
        )));
    };
    for key in ["nodes", "edges"] {
        if canvas.get(key).is_some_and(|list| !list.is_array()) {
            return Err(ToolError(format!(
                "{path} is not a JSON Canvas: \"{key}\" is not a list"
            )));
        }
    }
    Ok(canvas)
}

fn items<'a>(
    canvas: &'a Map<String, Value>,
    key: &str,
) -> impl Iterator<Item = &'a Map<String, Value>> {
    canvas
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
}

/// `num`: a finite number, else 0.
fn num(value: Option<&Value>) -> f64 {
    value
        .and_then(Value::as_f64)
        .filter(|n| n.is_finite())
        .unwrap_or(0.0)
}

fn text<'a>(item: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    item.get(key).and_then(Value::as_str)
}

/// A node or edge as the tool reports it.
pub(crate) type Row = Map<String, Value>;

struct Node {
    row: Map<String, Value>,
    id: String,
    group: bool,
    bounds: [f64; 4],
}

/// `canvasRows`: the nodes in file order and the edges between nodes that are there; `hidden` tells which file paths
/// do not exist.
pub(crate) fn canvas_rows(
    canvas: &Map<String, Value>,
    hidden: impl Fn(&str) -> bool,
) -> (Vec<Row>, Vec<Row>) {
    let mut nodes: Vec<Node> = Vec::new();
    for node in items(canvas, "nodes") {
        let Some(id) = text(node, "id") else { continue };
        let file = text(node, "file");
        if file.is_some_and(&hidden) {
            continue;
        }
        let bounds = [
            num(node.get("x")),
            num(node.get("y")),
            num(node.get("width")),
            num(node.get("height")),
        ];
        let kind = text(node, "type").unwrap_or("unknown");
        let mut row = Map::new();
        row.insert("id".into(), json!(id));
        row.insert("type".into(), json!(kind));
        for (key, value) in ["x", "y", "width", "height"].iter().zip(bounds) {
            row.insert((*key).into(), js_number(value));
        }
        if let Some(full) = text(node, "text") {
            let shown = cut_chars(full, NODE_TEXT_CHARS);
            row.insert("text".into(), json!(shown));
            if shown.len() < full.len() {
                row.insert("text_cut".into(), json!(true));
            }
        }
        if let Some(file) = file {
            row.insert("file".into(), json!(file));
        }
        for key in ["subpath", "url", "label", "color"] {
            if let Some(value) = text(node, key).filter(|value| !value.is_empty()) {
                row.insert(key.into(), json!(value));
            }
        }
        nodes.push(Node {
            row,
            id: id.to_string(),
            group: kind == "group",
            bounds,
        });
    }
    let groups: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].group).collect();
    for i in 0..nodes.len() {
        let [x, y, w, h] = nodes[i].bounds;
        let mut best: Option<usize> = None;
        for &g in &groups {
            if g == i {
                continue;
            }
            let [gx, gy, gw, gh] = nodes[g].bounds;
            let holds = gx <= x && gy <= y && gx + gw >= x + w && gy + gh >= y + h;
            let smaller = best.is_none_or(|b| gw * gh < nodes[b].bounds[2] * nodes[b].bounds[3]);
            if holds && smaller {
                best = Some(g);
            }
        }
        if let Some(g) = best {
            let id = nodes[g].id.clone();
            nodes[i].row.insert("group".into(), json!(id));
        }
    }
    let known: std::collections::HashSet<&str> =
        nodes.iter().map(|node| node.id.as_str()).collect();
    let mut edges = Vec::new();
    for edge in items(canvas, "edges") {
        let (Some(id), Some(from), Some(to)) = (
            text(edge, "id"),
            text(edge, "fromNode"),
            text(edge, "toNode"),
        ) else {
            continue;
        };
        if !known.contains(from) || !known.contains(to) {
            continue;
        }
        let mut row = Map::new();
        row.insert("id".into(), json!(id));
        row.insert("from".into(), json!(from));
        row.insert("to".into(), json!(to));
        for (saved, shown) in [
            ("fromSide", "from_side"),
            ("toSide", "to_side"),
            ("label", "label"),
            ("color", "color"),
        ] {
            if let Some(value) = text(edge, saved).filter(|value| !value.is_empty()) {
                row.insert(shown.into(), json!(value));
            }
        }
        edges.push(row);
    }
    (nodes.into_iter().map(|node| node.row).collect(), edges)
}

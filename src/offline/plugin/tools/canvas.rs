//! `canvas` (`tools/canvas.ts`): a canvas's nodes and edges, a page of nodes at a time with the edges leaving them.
//! `edit_canvas` needs Obsidian.

use serde_json::{Map, Value, json};

use crate::offline::plugin::tools::{
    Args, Context, Output, ToolError, hidden_path, paged, paged_result,
};
use crate::offline::plugin::vault::canvas::{canvas_rows, parse_canvas};
use crate::offline::plugin::vault::hash::content_hash;
use crate::offline::plugin::vault::hidden::HiddenRules;
use crate::offline::plugin::vault::limits::{count_within_budget, offset_from_cursor};

pub(super) fn canvas(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let path = args.required_string("path", 1, usize::MAX)?;
    let limit = args.limit(200)?;
    let cursor = args.cursor()?;
    let max_chars = args.max_chars()?;
    let file = ctx.resolve_note(&path, true)?.file;
    if !file.extension().eq_ignore_ascii_case("canvas") {
        return Err(ToolError(format!(
            "{} is not a canvas (.canvas file)",
            file.path
        )));
    }
    let text = ctx.text_of(file)?;
    // Rules that cannot be applied have already made offline mode refuse every tool.
    let rules = HiddenRules::load(ctx.root, ctx.config_dir).unwrap_or_default();
    let (nodes, edges) = canvas_rows(&parse_canvas(&file.path, &text)?, |path| {
        hidden_path(ctx, &rules, path.trim_start_matches('/'))
    });
    let offset = offset_from_cursor(cursor.as_deref())?;
    // A node's cost includes the edges that leave it, which come with it.
    let costs: Vec<Value> = nodes
        .iter()
        .skip(offset)
        .take(limit)
        .map(|node| {
            let leaving: Vec<&Map<String, Value>> = edges
                .iter()
                .filter(|edge| edge["from"] == node["id"])
                .collect();
            json!({"node": node, "edges": leaving})
        })
        .collect();
    let shown = count_within_budget(&costs, max_chars.saturating_sub(400));
    let page = &costs[..shown];
    let (_, next_cursor) = paged(offset, page.len(), nodes.len());
    let page_nodes: Vec<&Value> = page.iter().map(|entry| &entry["node"]).collect();
    let page_edges: Vec<&Value> = page
        .iter()
        .flat_map(|entry| entry["edges"].as_array().into_iter().flatten())
        .collect();
    Ok(Output::Json(paged_result(
        args,
        next_cursor,
        json!({
            "path": file.path,
            "sha256": content_hash(&text),
            "total_nodes": nodes.len(),
            "total_edges": edges.len(),
            "nodes": page_nodes,
            "edges": page_edges,
        }),
    )))
}

//! Obsidian Bases (`vault/bases.ts`): a `.base` file's views, and a view's rows over the index, with the plugin's
//! evaluator of the expression language's subset (`parse`, `eval`).

mod duration;
mod eval;
mod facts;
mod functions;
mod parse;
#[cfg(test)]
mod tests;
mod value;

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::{Map, Value as Json, json};

use crate::offline::plugin::tools::ToolError;

use eval::{Row, evaluate, order, shown, truthy};
pub(crate) use facts::{NoteFacts, Properties};
use parse::{Expr, MAX_NESTING, Node, parse_expr};
use value::Value;

/// A view of a base: its name, type and saved settings.
pub(crate) struct BaseView {
    pub(crate) name: String,
    pub(crate) kind: String,
    raw: Map<String, Json>,
}

/// `BaseFile`.
pub(crate) struct BaseFile {
    filters: Json,
    formulas: Vec<(String, String)>,
    pub(crate) views: Vec<BaseView>,
}

/// `baseOf`: a base from its parsed YAML (JSON as JavaScript holds it).
pub(crate) fn base_of(path: &str, yaml: &Json) -> Result<BaseFile, ToolError> {
    let data = match yaml {
        Json::Null => {
            return Ok(BaseFile {
                filters: Json::Null,
                formulas: Vec::new(),
                views: Vec::new(),
            });
        }
        Json::Object(map) => map,
        _ => {
            return Err(ToolError(format!(
                "{path} is not a base: its top level is not a mapping"
            )));
        }
    };
    let mut formulas = Vec::new();
    match data.get("formulas") {
        None | Some(Json::Null) => {}
        Some(Json::Object(map)) => {
            for (name, source) in map {
                let Json::String(source) = source else {
                    return Err(ToolError(format!(
                        "{path}: formula {name} is not an expression (text)"
                    )));
                };
                formulas.push((name.clone(), source.clone()));
            }
        }
        Some(_) => return Err(ToolError(format!("{path}: \"formulas\" is not a mapping"))),
    }
    let list = match data.get("views") {
        None | Some(Json::Null) => Vec::new(),
        Some(Json::Array(list)) => list.clone(),
        Some(_) => return Err(ToolError(format!("{path}: \"views\" is not a list"))),
    };
    let mut views = Vec::new();
    for (index, view) in list.into_iter().enumerate() {
        let Json::Object(raw) = view else {
            return Err(ToolError(format!(
                "{path}: view {} is not a mapping",
                index + 1
            )));
        };
        let name = raw
            .get("name")
            .and_then(Json::as_str)
            .map_or_else(|| format!("View {}", index + 1), str::to_string);
        let kind = raw
            .get("type")
            .and_then(Json::as_str)
            .unwrap_or("table")
            .to_string();
        views.push(BaseView { name, kind, raw });
    }
    Ok(BaseFile {
        filters: data.get("filters").cloned().unwrap_or(Json::Null),
        formulas,
        views,
    })
}

/// `FileFacts`: one file of the vault as a query sees it, borrowed from the index.
pub(crate) struct FileFacts<'a, N: NoteFacts> {
    pub(crate) path: &'a str,
    pub(crate) name: &'a str,
    pub(crate) basename: &'a str,
    pub(crate) folder: &'a str,
    pub(crate) ext: &'a str,
    pub(crate) size: u64,
    pub(crate) ctime: i64,
    pub(crate) mtime: i64,
    pub(crate) note: N,
}

enum Filter {
    All,
    Expr(Expr, String),
    And(Vec<Filter>),
    Or(Vec<Filter>),
    Not(Vec<Filter>),
}

fn shape_error(where_: &str) -> ToolError {
    ToolError(format!(
        "{where_}: a filter is a text expression or a mapping with one key, and, or or not"
    ))
}

/// `compileFilter`.
fn compile_filter(filter: &Json, where_: &str) -> Result<Filter, ToolError> {
    match filter {
        Json::Null => Ok(Filter::All),
        Json::String(source) => Ok(Filter::Expr(parsed(source, where_)?.0, source.clone())),
        Json::Object(map) => {
            let mut entries = map.iter();
            let (Some((key, list)), None) = (entries.next(), entries.next()) else {
                return Err(shape_error(where_));
            };
            if !matches!(key.as_str(), "and" | "or" | "not") {
                return Err(shape_error(where_));
            }
            let Json::Array(list) = list else {
                return Err(ToolError(format!(
                    "{where_}: \"{key}\" takes a list of filters"
                )));
            };
            let parts = list
                .iter()
                .map(|part| compile_filter(part, where_))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(match key.as_str() {
                "and" => Filter::And(parts),
                "or" => Filter::Or(parts),
                _ => Filter::Not(parts),
            })
        }
        _ => Err(shape_error(where_)),
    }
}

fn passes(filter: &Filter, row: &Row<'_>) -> Result<bool, ToolError> {
    Ok(match filter {
        Filter::All => true,
        Filter::Expr(expr, source) => truthy(&evaluating(expr, row, source)?),
        Filter::And(parts) => {
            for part in parts {
                if !passes(part, row)? {
                    return Ok(false);
                }
            }
            true
        }
        Filter::Or(parts) => {
            for part in parts {
                if passes(part, row)? {
                    return Ok(true);
                }
            }
            false
        }
        Filter::Not(parts) => {
            for part in parts {
                if passes(part, row)? {
                    return Ok(false);
                }
            }
            true
        }
    })
}

fn parsed(source: &str, where_: &str) -> Result<Node, ToolError> {
    parse_expr(source).map_err(|error| {
        ToolError(format!(
            "{where_}: cannot read {}: {}",
            crate::offline::plugin::vault::paths::quote(&shown_source(source)),
            error.0
        ))
    })
}

/// An expression as a refusal quotes it: whole up to [`SHOWN_SOURCE`] UTF-16 units, else its start and "…" (a
/// refusal of a 100 KB formula should not cost the agent 100 KB).
fn shown_source(source: &str) -> String {
    let mut units = 0;
    let mut shown = String::new();
    for c in source.chars() {
        units += c.len_utf16();
        if units > SHOWN_SOURCE {
            shown.push('…');
            return shown;
        }
        shown.push(c);
    }
    shown
}

/// How much of an expression a refusal quotes (`SHOWN_SOURCE` in `vault/bases.ts`).
const SHOWN_SOURCE: usize = 200;

fn evaluating(expr: &Expr, row: &Row<'_>, source: &str) -> Result<Value, ToolError> {
    evaluate(expr, row).map_err(|error| {
        if error.0.starts_with("in ") {
            error
        } else {
            ToolError(format!(
                "in {} ({}): {}",
                crate::offline::plugin::vault::paths::quote(source),
                row.path,
                error.0
            ))
        }
    })
}

/// `columnExpr`.
fn column_expr(id: &str, where_: &str) -> Result<Expr, ToolError> {
    if let Some((head, rest)) = id.split_once('.')
        && matches!(head, "file" | "formula" | "note")
    {
        return Ok(Expr::Name(vec![head.to_string(), rest.to_string()]));
    }
    if id.is_empty() {
        return Err(ToolError(format!("{where_}: an empty property name")));
    }
    Ok(Expr::Name(vec!["note".to_string(), id.to_string()]))
}

fn descending(value: Option<&Json>) -> bool {
    let direction = match value {
        None | Some(Json::Null) => "ASC".to_string(),
        Some(Json::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    direction.to_uppercase() == "DESC"
}

/// What evaluating a row's formulas needs: the base's formulas, those already known for the row, those being
/// computed with their depths (a formula that needs itself is refused, and so is a chain of formulas whose depths
/// add up past [`MAX_NESTING`]: each link of the chain deepens the evaluator's stack), and the query's time.
struct Env<'a> {
    formulas: &'a HashMap<String, (String, Node)>,
    cache: RefCell<HashMap<String, Value>>,
    computing: RefCell<Vec<(String, usize)>>,
    now: f64,
}

fn row_of<'a>(
    facts: &'a FileFacts<'_, impl NoteFacts>,
    formula: &'a dyn Fn(&str) -> Result<Value, ToolError>,
    now: f64,
) -> Row<'a> {
    Row {
        path: facts.path,
        name: facts.name,
        basename: facts.basename,
        folder: facts.folder,
        ext: facts.ext,
        size: facts.size,
        ctime: facts.ctime,
        mtime: facts.mtime,
        note: &facts.note,
        formula,
        now,
    }
}

/// `Row.formula`: a formula's value for the row, computed once.
fn formula_value(
    name: &str,
    env: &Env<'_>,
    facts: &FileFacts<'_, impl NoteFacts>,
) -> Result<Value, ToolError> {
    if let Some(known) = env.cache.borrow().get(name) {
        return Ok(known.clone());
    }
    let Some((source, (expr, depth))) = env.formulas.get(name) else {
        return Err(ToolError(format!("unknown formula formula.{name}")));
    };
    if env.computing.borrow().iter().any(|(open, _)| open == name) {
        return Err(ToolError(format!("formula.{name} depends on itself")));
    }
    let chained: usize = env.computing.borrow().iter().map(|(_, depth)| depth).sum();
    if chained + depth > MAX_NESTING {
        return Err(ToolError(format!(
            "formula.{name}: the formulas it is used through nest deeper than {MAX_NESTING} levels"
        )));
    }
    env.computing.borrow_mut().push((name.to_string(), *depth));
    let formula = |inner: &str| formula_value(inner, env, facts);
    let value = evaluating(expr, &row_of(facts, &formula, env.now), source);
    env.computing.borrow_mut().pop();
    let value = value?;
    env.cache
        .borrow_mut()
        .insert(name.to_string(), value.clone());
    Ok(value)
}

/// `ViewResult`: its rows as values, made JSON only for the page shown (a view of 100,000 notes may match most).
pub(crate) struct ViewResult<'f> {
    pub(crate) columns: Vec<String>,
    pub(crate) rows: Vec<ViewRow<'f>>,
    pub(crate) unshown: Vec<&'static str>,
}

/// One row of a view: its file, its group's value (when the view groups) and its columns' values.
pub(crate) struct ViewRow<'f> {
    path: &'f str,
    group: Option<Value>,
    values: Vec<Value>,
}

impl ViewRow<'_> {
    /// The row as the result shows it.
    pub(crate) fn to_json(&self) -> Json {
        let mut out = Map::new();
        out.insert("path".into(), json!(self.path));
        if let Some(group) = &self.group {
            out.insert("group".into(), shown(group));
        }
        out.insert(
            "values".into(),
            Json::Array(self.values.iter().map(shown).collect()),
        );
        Json::Object(out)
    }
}

/// `runView`.
pub(crate) fn run_view<'f>(
    base: &BaseFile,
    view: &BaseView,
    files: impl IntoIterator<Item = FileFacts<'f, impl NoteFacts>>,
    now: f64,
    where_: &str,
) -> Result<ViewResult<'f>, ToolError> {
    let view_where = format!("{where_} view \"{}\"", view.name);
    let base_filter = compile_filter(&base.filters, &format!("{where_} filters"))?;
    let view_filter = compile_filter(
        view.raw.get("filters").unwrap_or(&Json::Null),
        &format!("{view_where} filters"),
    )?;
    let mut formulas: HashMap<String, (String, Node)> = HashMap::new();
    for (name, source) in &base.formulas {
        let expr = parsed(source, &format!("{where_} formula {name}"))?;
        formulas.insert(name.clone(), (source.clone(), expr));
    }
    let columns: Vec<String> = view
        .raw
        .get("order")
        .and_then(Json::as_array)
        .map(|order| {
            order
                .iter()
                .filter_map(Json::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let column_exprs = columns
        .iter()
        .map(|id| column_expr(id, &format!("{view_where} order")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut sorts = Vec::new();
    if let Some(Json::Array(list)) = view.raw.get("sort") {
        for item in list {
            let Some(property) = item.get("property").and_then(Json::as_str) else {
                return Err(ToolError(format!(
                    "{view_where} sort: each entry needs a property"
                )));
            };
            sorts.push((
                column_expr(property, &format!("{view_where} sort"))?,
                descending(item.get("direction")),
            ));
        }
    }
    let group = match view.raw.get("groupBy") {
        Some(group) => match group.get("property").and_then(Json::as_str) {
            Some(property) => Some((
                column_expr(property, &format!("{view_where} groupBy"))?,
                descending(group.get("direction")),
            )),
            None => None,
        },
        None => None,
    };

    struct Found<'f> {
        path: &'f str,
        group: Value,
        values: Vec<Value>,
        keys: Vec<Value>,
    }
    let mut rows: Vec<Found> = Vec::new();
    for facts in files {
        let env = Env {
            formulas: &formulas,
            cache: RefCell::default(),
            computing: RefCell::default(),
            now,
        };
        let formula = |name: &str| formula_value(name, &env, &facts);
        let row = row_of(&facts, &formula, now);
        if !passes(&base_filter, &row)? || !passes(&view_filter, &row)? {
            continue;
        }
        let group_value = match &group {
            Some((expr, _)) => evaluating(expr, &row, "groupBy")?,
            None => Value::Null,
        };
        let values = column_exprs
            .iter()
            .zip(&columns)
            .map(|(expr, id)| evaluating(expr, &row, id))
            .collect::<Result<Vec<_>, _>>()?;
        let keys = sorts
            .iter()
            .map(|(expr, _)| evaluating(expr, &row, "sort"))
            .collect::<Result<Vec<_>, _>>()?;
        rows.push(Found {
            path: facts.path,
            group: group_value,
            values,
            keys,
        });
    }
    // Empty values go last in either direction; equal rows keep path order (the sort is stable).
    let by = |x: &Value, y: &Value, descending: bool| {
        let ordering = order(x, y);
        if matches!(x, Value::Null) || matches!(y, Value::Null) || !descending {
            ordering
        } else {
            ordering.reverse()
        }
    };
    rows.sort_by(|a, b| {
        if let Some((_, descending)) = &group {
            let ordering = by(&a.group, &b.group, *descending);
            if ordering.is_ne() {
                return ordering;
            }
        }
        for (i, (_, descending)) in sorts.iter().enumerate() {
            let ordering = by(&a.keys[i], &b.keys[i], *descending);
            if ordering.is_ne() {
                return ordering;
            }
        }
        std::cmp::Ordering::Equal
    });
    let limit = match view.raw.get("limit").and_then(Json::as_f64) {
        Some(limit) if limit > 0.0 => limit.floor() as usize,
        _ => rows.len(),
    };
    let rows = rows
        .into_iter()
        .take(limit)
        .map(|row| ViewRow {
            path: row.path,
            group: group.is_some().then_some(row.group),
            values: row.values,
        })
        .collect();
    let unshown = if view.raw.contains_key("summaries") {
        vec!["summaries"]
    } else {
        Vec::new()
    };
    Ok(ViewResult {
        columns,
        rows,
        unshown,
    })
}

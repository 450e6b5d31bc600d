//! The upstreams behind one bridge, one route each: a vault's plugin (with its offline reader and its own catalog), or
//! the one `--url` or command upstream. With several vaults (`--vault A --vault B`), a request names its vault:
//! - a tool call by its `vault` argument, which every tool's schema then offers (the first vault when absent);
//! - a resource by a `vault` query on its URI (`obsidian://vault/Note.md?vault=Work`), which the bridge adds to every
//!   URI it passes down and removes from every URI it passes up;
//! - a prompt by its name, `Work/daily-review`;
//! - a list page by its cursor, `2:<the vault's own cursor>`: lists go vault by vault.
//!
//! With one upstream, nothing is renamed: the bridge passes names and URIs as they are.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use crate::bridge::catalog::Catalog;
use crate::bridge::config::{NamedTarget, UpstreamTarget};
use crate::bridge::offline::OfflineBackend;
use crate::bridge::upstream::Upstream;

/// The query key that names a resource's vault.
const VAULT_QUERY: &str = "vault";
/// The argument that names a tool call's vault.
pub(crate) const VAULT_ARGUMENT: &str = "vault";

/// One upstream and what the bridge keeps for it.
pub(crate) struct Route {
    /// What the agent calls it (the vault folder's name).
    pub(crate) name: String,
    pub(crate) target: UpstreamTarget,
    pub(crate) upstream: Arc<Upstream>,
    /// The vault folder's reader, for answers while Obsidian is closed and searches from the index.
    pub(crate) offline: Option<Arc<dyn OfflineBackend>>,
    pub(crate) catalog: Mutex<Catalog>,
    /// How many searches the index and Obsidian answered (`index_search.rs`).
    pub(super) index_counts: Counts,
}

impl Route {
    /// A route to `named`, through `upstream`.
    pub(crate) fn new(
        named: &NamedTarget,
        upstream: Arc<Upstream>,
        offline: Option<Arc<dyn OfflineBackend>>,
    ) -> Self {
        Self {
            name: named.name.clone(),
            target: named.target.clone(),
            catalog: Mutex::new(Catalog::initial(&named.target)),
            upstream,
            offline,
            index_counts: Counts::default(),
        }
    }

    /// Whether this is a vault's plugin (and so its offline twin), whose tools the bridge knows.
    pub(crate) fn is_vault(&self) -> bool {
        matches!(self.target, UpstreamTarget::Vault { .. })
    }
}

/// How many searches each side answered, for `obsidian_status` (`index_search.rs`).
#[derive(Default)]
pub(super) struct Counts {
    pub(super) index: AtomicU64,
    pub(super) obsidian: AtomicU64,
}

/// Which route a vault name picks: the name itself, or the same letters in another case. `None` picks the first.
pub(crate) fn by_name(routes: &[Route], name: Option<&str>) -> Result<usize, String> {
    let Some(name) = name else {
        return Ok(0);
    };
    routes
        .iter()
        .position(|route| route.name == name)
        .or_else(|| {
            routes
                .iter()
                .position(|route| route.name.to_lowercase() == name.to_lowercase())
        })
        .ok_or_else(|| {
            format!(
                "There is no vault `{name}`: this bridge serves {}.",
                described(routes)
            )
        })
}

/// The vaults by name, the default first and marked so.
pub(crate) fn described(routes: &[Route]) -> String {
    routes
        .iter()
        .enumerate()
        .map(|(index, route)| {
            if index == 0 {
                format!("{} (the default)", route.name)
            } else {
                route.name.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Takes the `vault` argument out of a tool call's arguments (and, for `obsidian_tools`' call, out of the arguments
/// it passes on): the vault it names, if any, or what is wrong with it.
pub(crate) fn take_vault_argument(params: &mut Option<Value>) -> Result<Option<String>, String> {
    let Some(arguments) = params
        .as_mut()
        .and_then(|params| params.get_mut("arguments"))
        .and_then(Value::as_object_mut)
    else {
        return Ok(None);
    };
    let outer = take_from(arguments)?;
    let passes_on = arguments.get("action").and_then(Value::as_str) == Some("call");
    let inner = match arguments
        .get_mut("arguments")
        .and_then(Value::as_object_mut)
    {
        Some(inner) if passes_on => take_from(inner)?,
        _ => None,
    };
    match (outer, inner) {
        (Some(outer), Some(inner)) if outer != inner => Err(format!(
            "two vaults named: `{outer}` and `{inner}` in the arguments passed on"
        )),
        (outer, inner) => Ok(outer.or(inner)),
    }
}

fn take_from(arguments: &mut Map<String, Value>) -> Result<Option<String>, String> {
    match arguments.remove(VAULT_ARGUMENT) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(name)) => Ok(Some(name)),
        Some(other) => Err(format!("`vault` must be a vault's name, not {other}")),
    }
}

/// A tool's definition with the `vault` argument added, naming the vaults.
pub(crate) fn with_vault_argument(tool: &mut Value, names: &[String]) {
    if let Some(properties) = tool
        .pointer_mut("/inputSchema/properties")
        .and_then(Value::as_object_mut)
    {
        properties.insert(
            VAULT_ARGUMENT.into(),
            // `type` too, though the enum says it: some clients turn schemas into their model's format, which wants a
            // type on every property (Gemini's function declarations do).
            json!({ "type": "string", "enum": names }),
        );
    }
}

/// `uri` with its vault named in the query.
pub(crate) fn qualified(uri: &str, vault: &str) -> String {
    let separator = if uri.contains('?') { '&' } else { '?' };
    let encoded: String = url::form_urlencoded::byte_serialize(vault.as_bytes()).collect();
    format!("{uri}{separator}{VAULT_QUERY}={encoded}")
}

/// The vault a URI names in its query and the URI without it; `None` and the URI as it is when it names none.
pub(crate) fn unqualified(uri: &str) -> (Option<String>, String) {
    let Some((base, query)) = uri.rsplit_once('?') else {
        return (None, uri.to_owned());
    };
    let mut vault = None;
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| match pair.strip_prefix("vault=") {
            Some(value) if vault.is_none() => {
                vault = url::form_urlencoded::parse(format!("v={value}").as_bytes())
                    .next()
                    .map(|(_, value)| value.into_owned());
                false
            }
            _ => true,
        })
        .collect();
    if vault.is_none() {
        return (None, uri.to_owned());
    }
    let uri = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    (vault, uri)
}

/// A list cursor of several routes: the route's index and its own cursor (`None` for its first page).
pub(crate) fn split_cursor(cursor: Option<&str>) -> Result<(usize, Option<String>), String> {
    let Some(cursor) = cursor else {
        return Ok((0, None));
    };
    let (route, inner) = cursor
        .split_once(':')
        .ok_or_else(|| format!("the cursor `{cursor}` is not one this bridge gave"))?;
    let route = route
        .parse()
        .map_err(|_| format!("the cursor `{cursor}` is not one this bridge gave"))?;
    Ok((route, (!inner.is_empty()).then(|| inner.to_owned())))
}

/// The cursor of the next page after route `route` answered with `next` (its own cursor, if it has more).
pub(crate) fn next_cursor(route: usize, next: Option<&str>, routes: usize) -> Option<String> {
    match next {
        Some(next) => Some(format!("{route}:{next}")),
        None if route + 1 < routes => Some(format!("{}:", route + 1)),
        None => None,
    }
}

/// A prompt name of several routes: `Vault/name`.
pub(crate) fn prompt_name(vault: &str, name: &str) -> String {
    format!("{vault}/{name}")
}

/// The route a prompt name of several routes picks, and the name its vault knows: the longest vault name it starts
/// with.
pub(crate) fn split_prompt_name(routes: &[Route], name: &str) -> Option<(usize, String)> {
    routes
        .iter()
        .enumerate()
        .filter_map(|(index, route)| {
            let rest = name.strip_prefix(route.name.as_str())?.strip_prefix('/')?;
            Some((index, route.name.len(), rest.to_owned()))
        })
        .max_by_key(|(_, length, _)| *length)
        .map(|(index, _, rest)| (index, rest))
}

/// A passed-through request of several routes, readied for its route: which route, and the params as that vault's
/// plugin knows them (its own URI, prompt name or cursor). Refused in words when it names no vault this bridge has.
pub(crate) fn route_request(
    routes: &[Route],
    method: &str,
    params: Option<Value>,
) -> Result<(usize, Option<Value>), String> {
    let mut params = params.unwrap_or_else(|| json!({}));
    let route = match method {
        "resources/list" | "resources/templates/list" | "prompts/list" => {
            let cursor = params
                .get("cursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let (route, inner) = split_cursor(cursor.as_deref())?;
            if route >= routes.len() {
                return Err(format!(
                    "the cursor `{}` is not one this bridge gave",
                    cursor.unwrap_or_default()
                ));
            }
            match inner {
                Some(inner) => params["cursor"] = json!(inner),
                None => {
                    if let Some(fields) = params.as_object_mut() {
                        fields.remove("cursor");
                    }
                }
            }
            route
        }
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            route_of_uri(routes, params.get_mut("uri"))?
        }
        "prompts/get" => route_of_prompt(routes, params.get_mut("name")),
        "completion/complete" => match params.pointer("/ref/type").and_then(Value::as_str) {
            Some("ref/prompt") => route_of_prompt(routes, params.pointer_mut("/ref/name")),
            _ => route_of_uri(routes, params.pointer_mut("/ref/uri"))?,
        },
        _ => 0,
    };
    Ok((route, Some(params)))
}

/// The route a URI names (the default when it names none), the URI left as that vault knows it.
fn route_of_uri(routes: &[Route], uri: Option<&mut Value>) -> Result<usize, String> {
    let Some(uri) = uri else {
        return Ok(0);
    };
    let Some(text) = uri.as_str() else {
        return Ok(0);
    };
    let (vault, inner) = unqualified(text);
    let route = by_name(routes, vault.as_deref())?;
    *uri = json!(inner);
    Ok(route)
}

/// The route a prompt name begins with (the default when none), the name left as that vault knows it.
fn route_of_prompt(routes: &[Route], name: Option<&mut Value>) -> usize {
    let Some(name) = name else {
        return 0;
    };
    match name
        .as_str()
        .and_then(|text| split_prompt_name(routes, text))
    {
        Some((route, inner)) => {
            *name = json!(inner);
            route
        }
        None => 0,
    }
}

/// A route's answer to a passed-through request, with its URIs and names made to name the vault, and a list's cursor
/// going on to the next vault when this one has no more.
pub(crate) fn qualify_answer(method: &str, answer: &mut Value, route: usize, routes: &[Route]) {
    let Some(result) = answer.get_mut("result").and_then(Value::as_object_mut) else {
        return;
    };
    let vault = routes[route].name.as_str();
    let each =
        |result: &mut Map<String, Value>, list: &str, apply: &dyn Fn(&mut Map<String, Value>)| {
            for item in result
                .get_mut(list)
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                if let Some(item) = item.as_object_mut() {
                    apply(item);
                }
            }
        };
    let rename = |item: &mut Map<String, Value>, key: &str, change: &dyn Fn(&str) -> String| {
        if let Some(value) = item.get(key).and_then(Value::as_str) {
            let changed = change(value);
            item.insert(key.into(), json!(changed));
        }
    };
    match method {
        "resources/list" => each(result, "resources", &|item| {
            rename(item, "uri", &|uri| qualified(uri, vault));
            rename(item, "name", &|name| prompt_name(vault, name));
        }),
        "resources/templates/list" => each(result, "resourceTemplates", &|item| {
            rename(item, "uriTemplate", &|uri| qualified(uri, vault));
            rename(item, "name", &|name| prompt_name(vault, name));
        }),
        "resources/read" => each(result, "contents", &|item| {
            rename(item, "uri", &|uri| qualified(uri, vault))
        }),
        "prompts/list" => each(result, "prompts", &|item| {
            rename(item, "name", &|name| prompt_name(vault, name))
        }),
        _ => {}
    }
    if method.ends_with("/list") {
        let next = result
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match next_cursor(route, next.as_deref(), routes.len()) {
            Some(cursor) => result.insert("nextCursor".into(), json!(cursor)),
            None => result.remove("nextCursor"),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uri_names_its_vault_in_the_query_and_gives_it_back_unchanged() {
        let uri = "obsidian://vault/Notes/Caf%C3%A9.md";
        let named = qualified(uri, "My Notes & Co");
        assert_eq!(
            named,
            "obsidian://vault/Notes/Caf%C3%A9.md?vault=My+Notes+%26+Co"
        );
        assert_eq!(
            unqualified(&named),
            (Some("My Notes & Co".into()), uri.into())
        );
        assert_eq!(unqualified(uri), (None, uri.into()));
        let with_query = qualified("obsidian://vault/a?x=1", "W");
        assert_eq!(
            unqualified(&with_query),
            (Some("W".into()), "obsidian://vault/a?x=1".into())
        );
    }

    #[test]
    fn a_cursor_goes_vault_by_vault() {
        assert_eq!(split_cursor(None), Ok((0, None)));
        assert_eq!(split_cursor(Some("1:")), Ok((1, None)));
        assert_eq!(
            split_cursor(Some("0:abc:def")),
            Ok((0, Some("abc:def".into())))
        );
        assert!(split_cursor(Some("nonsense")).is_err());
        assert_eq!(next_cursor(0, Some("p2"), 2), Some("0:p2".into()));
        assert_eq!(next_cursor(0, None, 2), Some("1:".into()));
        assert_eq!(next_cursor(1, None, 2), None);
    }

    #[test]
    fn the_vault_argument_is_taken_out_of_a_call_and_of_the_call_it_passes_on() {
        let mut params =
            Some(json!({"name": "read_note", "arguments": {"path": "A", "vault": "Work"}}));
        assert_eq!(take_vault_argument(&mut params), Ok(Some("Work".into())));
        assert_eq!(params.unwrap()["arguments"], json!({"path": "A"}));
        let mut through = Some(
            json!({"name": "obsidian_tools", "arguments": {"action": "call", "name": "tags", "arguments": {"vault": "Home"}}}),
        );
        assert_eq!(take_vault_argument(&mut through), Ok(Some("Home".into())));
        assert_eq!(through.unwrap()["arguments"]["arguments"], json!({}));
        let mut both = Some(
            json!({"arguments": {"vault": "A", "action": "call", "arguments": {"vault": "B"}}}),
        );
        assert!(take_vault_argument(&mut both).is_err());
        let mut wrong = Some(json!({"arguments": {"vault": 3}}));
        assert!(take_vault_argument(&mut wrong).is_err());
    }
}

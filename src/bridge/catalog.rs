//! The tool catalog the bridge serves before (and between) live connections, so that `tools/list` answers at once
//! with every tool even while Obsidian is closed.
//!
//! A `--vault` upstream is our own plugin, whose catalog is generated at build time and embedded in the binary. Any
//! other upstream's catalog is cached on disk after each successful connection, keyed by the upstream's identity,
//! so the next start knows it. The live catalog always wins; when it differs from what was served, the caller tells
//! the client with `notifications/tools/list_changed`.

use std::path::PathBuf;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::config::{UpstreamTarget, redacted};

/// Where a served catalog came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CatalogSource {
    /// From the connected upstream.
    Live,
    /// Embedded in this binary (our plugin's tools).
    Embedded,
    /// Cached on disk from an earlier connection.
    Cached,
    /// None known yet.
    Unknown,
}

impl CatalogSource {
    /// The word used in the status tool and logs.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Live => "live",
            Self::Embedded => "embedded",
            Self::Cached => "cached",
            Self::Unknown => "none",
        }
    }
}

/// A list of tools and its origin.
#[derive(Debug, Clone)]
pub(crate) struct Catalog {
    /// The tools, as `tools/list` returns them.
    pub(crate) tools: Vec<Value>,
    /// Where they came from.
    pub(crate) source: CatalogSource,
}

impl Catalog {
    /// The catalog to serve before any connection.
    pub(crate) fn initial(target: &UpstreamTarget) -> Self {
        let found = match target {
            UpstreamTarget::Vault { .. } => {
                embedded().map(|tools| (tools, CatalogSource::Embedded))
            }
            _ => cache_path(target)
                .and_then(|path| read_tools(&std::fs::read_to_string(path).ok()?))
                .map(|tools| (tools, CatalogSource::Cached)),
        };
        match found {
            Some((tools, source)) => Self { tools, source },
            None => Self {
                tools: Vec::new(),
                source: CatalogSource::Unknown,
            },
        }
    }

    /// The entry of a tool, by name.
    pub(crate) fn find(&self, name: &str) -> Option<&Value> {
        self.tools
            .iter()
            .find(|tool| tool.get("name").and_then(Value::as_str) == Some(name))
    }
}

/// The tools of the embedded plugin catalog.
pub(crate) fn embedded() -> Option<Vec<Value>> {
    let tools = crate::assets::catalog_tools();
    (!tools.is_empty()).then(|| tools.to_vec())
}

fn read_tools(text: &str) -> Option<Vec<Value>> {
    let value: Value = serde_json::from_str(text).ok()?;
    value.get("tools")?.as_array().cloned()
}

/// Where the cached catalog of a non-vault upstream lives: `<cache dir>/obsmcp/catalogs/<hash of the upstream>.json`.
pub(crate) fn cache_path(target: &UpstreamTarget) -> Option<PathBuf> {
    let identity = match target {
        UpstreamTarget::Vault { .. } => return None,
        UpstreamTarget::Url { url, .. } => redacted(url),
        UpstreamTarget::Command { program, args } => std::iter::once(program)
            .chain(args)
            .cloned()
            .collect::<Vec<_>>()
            .join("\0"),
    };
    let digest = Sha256::digest(identity.as_bytes());
    let name: String = digest
        .iter()
        .take(8)
        .map(|byte| format!("{byte:02x}"))
        .collect();
    Some(
        dirs::cache_dir()?
            .join("obsmcp")
            .join("catalogs")
            .join(format!("{name}.json")),
    )
}

/// Saves a live catalog for the next start. Failing to cache only costs the next start its instant list, so the error
/// is returned for logging and nothing else.
pub(crate) fn save_cache(target: &UpstreamTarget, tools: &[Value]) -> std::io::Result<()> {
    let Some(path) = cache_path(target) else {
        return Ok(());
    };
    let folder = path.parent().expect("cache path has a parent");
    std::fs::create_dir_all(folder)?;
    let text = serde_json::to_vec(&serde_json::json!({ "tools": tools }))
        .map_err(std::io::Error::other)?;
    // Written beside the target and renamed, so a crash never leaves half a catalog for the next start to read.
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, &path)
}

/// Whether two catalogs offer the same tools, whatever their order.
pub(crate) fn same_tools(left: &[Value], right: &[Value]) -> bool {
    fn sorted(tools: &[Value]) -> Vec<&Value> {
        let mut tools: Vec<&Value> = tools.iter().collect();
        tools.sort_by(|a, b| {
            a.get("name")
                .and_then(Value::as_str)
                .cmp(&b.get("name").and_then(Value::as_str))
        });
        tools
    }
    left.len() == right.len() && sorted(left) == sorted(right)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_embedded_catalog_has_the_plugin_tools() {
        let tools = embedded().expect("obsidian-plugin/catalog.json has a tools array");
        assert!(tools.iter().any(|tool| tool["name"] == "read_note"));
        assert!(tools.iter().all(|tool| tool["inputSchema"].is_object()));
    }

    #[test]
    fn order_does_not_make_catalogs_differ_but_content_does() {
        let a = json!({"name": "a"});
        let b = json!({"name": "b"});
        assert!(same_tools(&[a.clone(), b.clone()], &[b.clone(), a.clone()]));
        assert!(!same_tools(
            std::slice::from_ref(&a),
            &[json!({"name": "a", "description": "new"})]
        ));
        assert!(!same_tools(&[a.clone(), b], &[a]));
    }
}

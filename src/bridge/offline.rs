//! The seam for offline mode (issue 6): when the upstream is a vault whose Obsidian is unreachable, a read tool call
//! may be answered from the vault folder by an [`OfflineBackend`]. The bridge owns the decision of *when* (never
//! for writes, only while the upstream is not ready, only for `--vault`, not with `--no-offline`); the backend owns
//! *how*. No backend is installed yet, so such calls get the normal "Obsidian is not reachable" error.

use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value};

/// A boxed future, so that backends can be trait objects.
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Answers read tools from the vault folder while Obsidian is closed.
pub(crate) trait OfflineBackend: Send + Sync {
    /// Whether this backend can answer the tool (only read tools, with the plugin's argument shapes).
    fn serves(&self, tool: &str) -> bool;

    /// Runs the tool and returns a `CallToolResult` JSON value with the plugin's shape, marked as served from disk.
    fn call<'a>(&'a self, tool: &'a str, arguments: Option<&'a Map<String, Value>>) -> BoxFuture<'a, Value>;
}

/// The backend for a vault, when one is built in. Issue 6 replaces the body with its reader.
pub(crate) fn backend_for_vault(_vault: &std::path::Path, _config_dir: &str) -> Option<std::sync::Arc<dyn OfflineBackend>> {
    None
}

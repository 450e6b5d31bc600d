//! The seam for offline mode: when the upstream is a vault whose Obsidian is unreachable, a read tool call
//! is answered from the vault folder by an [`OfflineBackend`]; while it is open, a text search may be answered from
//! the backend's index (`server/index_search.rs`). The bridge owns the decision of *when* (never for
//! writes, only while no session is up, only for `--vault`, not with `--no-offline`); the backend owns *how*. The
//! backend built in is `crate::offline::OfflineVault`, which mirrors the plugin's read tools.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::offline::OfflineVault;

/// How long a bridge that is ending waits for the offline index's save (about half a second at 100,000 notes).
const FINISH_SAVING: std::time::Duration = std::time::Duration::from_secs(10);
pub(crate) use crate::offline::plugin::resources::RpcFailure;

/// A boxed future, so that backends can be trait objects.
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Answers read tools from the vault folder while Obsidian is closed.
pub(crate) trait OfflineBackend: Send + Sync {
    /// Whether this backend answers the tool from disk (read tools only; writes always wait for Obsidian).
    fn serves(&self, tool: &str) -> bool;

    /// Gets ready for offline calls beside the bridge's work, when that is cheap: called once the upstream is
    /// found away at start.
    fn prepare(&self) {}

    /// Before the process ends: lets work that must outlive the last call (the index being saved) finish, bounded.
    fn finish(&self) {}

    /// What `obsidian_status` says of the backend's index, once it has one.
    fn describe(&self) -> Option<Value> {
        None
    }

    /// Whether `tool` can ever be answered from the index while Obsidian is open (text search and the vault-wide
    /// reads).
    fn answers_from_index(&self, _tool: &str) -> bool {
        false
    }

    /// Whether the index answers a search now, or why not (for `obsidian_status`).
    fn index_search_ready(&self) -> Result<(), &'static str> {
        Err(crate::offline::NOT_BUILT)
    }

    /// Answers `tool` from the index while Obsidian is open, with the plugin's answer marked as the index's; `None`
    /// when it cannot now (Obsidian then answers).
    fn call_from_index<'a>(
        &'a self,
        _tool: &'a str,
        _arguments: Option<&'a Map<String, Value>>,
    ) -> BoxFuture<'a, Option<Value>> {
        Box::pin(async { None })
    }

    /// Builds the index in the background (once), for searches while Obsidian is open.
    fn build(&self) {}

    /// Obsidian was passed a call that may have changed the vault: the index checks the folder before its next answer.
    fn vault_may_have_changed(&self) {}

    /// Runs the tool and returns a `CallToolResult` JSON value with the plugin's shape, marked as served from disk.
    fn call<'a>(
        &'a self,
        tool: &'a str,
        arguments: Option<&'a Map<String, Value>>,
    ) -> BoxFuture<'a, Value>;

    /// Answers a resource or completion request (`resources/list`, `resources/templates/list`, `resources/read`,
    /// `completion/complete`) from disk: the result, or the JSON-RPC error as (code, message, data); `None` for a
    /// method the backend does not serve.
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Value,
    ) -> BoxFuture<'a, Option<Result<Value, RpcFailure>>>;
}

/// The offline backend for a vault, or `None` when the folder cannot be served (the bridge then behaves as without).
pub(crate) fn backend_for_vault(
    vault: &Path,
    config_dir: &str,
    memory_budget_mb: u64,
    models: Arc<crate::offline::semantic::vault::ModelSource>,
) -> Option<Arc<dyn OfflineBackend>> {
    match OfflineVault::open(vault, Some(config_dir)) {
        Ok(vault) => {
            let vault = vault.with_memory_budget_mb(memory_budget_mb);
            let vault = match crate::offline::saved_index_folder() {
                Some(folder) => vault.with_saved_index(&folder),
                None => vault,
            };
            let vault = vault.with_model(models);
            Some(Arc::new(Disk(Arc::new(vault))))
        }
        Err(error) => {
            tracing::warn!("offline mode is off: {error}");
            None
        }
    }
}

/// [`OfflineVault`] behind the seam. Its reads are blocking file I/O (and a first index build), so they run on the
/// blocking pool, never on the runtime's workers that serve other calls.
struct Disk(Arc<OfflineVault>);

impl OfflineBackend for Disk {
    fn serves(&self, tool: &str) -> bool {
        OfflineVault::serves_from_disk(tool)
    }

    fn finish(&self) {
        self.0.close(FINISH_SAVING);
    }

    fn describe(&self) -> Option<Value> {
        self.0.describe()
    }

    fn answers_from_index(&self, tool: &str) -> bool {
        crate::offline::INDEX_TOOLS.contains(&tool)
    }

    fn index_search_ready(&self) -> Result<(), &'static str> {
        self.0.index_search_ready()
    }

    fn call_from_index<'a>(
        &'a self,
        tool: &'a str,
        arguments: Option<&'a Map<String, Value>>,
    ) -> BoxFuture<'a, Option<Value>> {
        // An index not ready (the usual case for a small vault) costs no copy and no thread; one that another call
        // checks against the folder is waited for a moment, off the workers (`answer_from_index`).
        if !self.answers_from_index(tool)
            || self
                .0
                .index_search_ready()
                .is_err_and(|why| why != crate::offline::BUSY)
        {
            return Box::pin(async { None });
        }
        let vault = Arc::clone(&self.0);
        let arguments = owned_arguments(arguments);
        let tool = tool.to_string();
        Box::pin(async move {
            // A check of the folder after a change walks it (a third of a second at 100,000 notes): off the workers.
            tokio::task::spawn_blocking(move || {
                let answer = vault.answer_from_index(&tool, arguments);
                vault.catch_up_in_background();
                answer
            })
            .await
            .ok()
            .flatten()
        })
    }

    fn build(&self) {
        self.0.build_in_background();
    }

    fn vault_may_have_changed(&self) {
        self.0.vault_may_have_changed();
    }

    /// With a saved index, building the index costs a walk of the folder: done on a thread of its own, so that
    /// the first offline call (or search from the index) finds it ready. Without one it waits for the first offline
    /// call or a slow search (`build`): a small vault whose Obsidian is open never needs it.
    fn prepare(&self) {
        if self.0.has_saved_index() {
            let vault = Arc::clone(&self.0);
            let spawned = std::thread::Builder::new()
                .name("obsmcp-index-load".into())
                .spawn(move || vault.prepare());
            if let Err(error) = spawned {
                tracing::warn!(%error, "offline index not loaded at start; the first offline call loads it");
            }
            // The model and the saved embedding index, if any, load beside it (they then wait for the index).
            let vault = Arc::clone(&self.0);
            let spawned = std::thread::Builder::new()
                .name("obsmcp-vectors-load".into())
                .spawn(move || vault.prepare_meaning());
            if let Err(error) = spawned {
                tracing::warn!(%error, "embedding index not loaded at start; the first search by meaning loads it");
            }
        }
    }

    fn call<'a>(
        &'a self,
        tool: &'a str,
        arguments: Option<&'a Map<String, Value>>,
    ) -> BoxFuture<'a, Value> {
        let vault = Arc::clone(&self.0);
        let name = tool.to_string();
        let arguments = owned_arguments(arguments);
        Box::pin(async move {
            let answer = tokio::task::spawn_blocking(move || {
                let answer = vault.call_tool(&name, arguments);
                vault.catch_up_in_background();
                answer
            })
            .await;
            match answer {
                Ok(Some(result)) => result,
                Ok(None) => {
                    json!({ "content": [{ "type": "text", "text": format!("The tool `{tool}` is not known.") }], "isError": true })
                }
                Err(error) => json!({
                    "content": [{ "type": "text", "text": format!("Reading the vault from disk failed: {error}") }],
                    "isError": true
                }),
            }
        })
    }

    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Value,
    ) -> BoxFuture<'a, Option<Result<Value, RpcFailure>>> {
        let vault = Arc::clone(&self.0);
        let name = method.to_string();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let answer = vault.request(&name, &params);
                vault.catch_up_in_background();
                answer
            })
            .await
            .unwrap_or_else(|error| {
                Some(Err(RpcFailure {
                    code: -32603,
                    message: format!("Reading the vault from disk failed: {error}"),
                    data: None,
                }))
            })
        })
    }
}

/// A call's arguments as the blocking side takes them: owned, `{}` when there were none.
fn owned_arguments(arguments: Option<&Map<String, Value>>) -> Value {
    arguments
        .cloned()
        .map(Value::Object)
        .unwrap_or_else(|| json!({}))
}

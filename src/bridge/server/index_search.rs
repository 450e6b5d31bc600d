//! Text search and the vault-wide reads (`crate::offline::INDEX_TOOLS`: tags, tasks, orphans, unresolved links,
//! properties, files by tag, the listing, Bases views) answered from the bridge's own index while Obsidian is open
//! (`--index-search`). On a large vault the plugin reads every note for a search that finds little and walks
//! Obsidian's metadata cache for a vault-wide read (0.03 to 1.4 s at 100,000 notes, `benches/index-open/run`); the
//! index answers in 7 to 165 ms, a Bases view over every note in 0.26 s (1.1 s through the plugin). Its answer is the plugin's own (the parity tests compare both on a 10,000-note vault), and it is used
//! only while it is exactly that:
//! - the tool is in the live catalog, from the plugin version this bridge mirrors;
//! - the index is built, kept current by a file watcher it can trust, and holds its word index and every note's text
//!   (`OfflineVault::index_search_ready`); when it is not, Obsidian answers, as without it;
//! - after a call through Obsidian that may have changed the vault, the index checks the folder before it answers
//!   (the watcher's event may still be on its way), so an agent's edit is in its next search.
//!
//! Each such answer is marked (`served_from: "index"`, `_meta` `obsmcp/source: "index"`), and `obsidian_status`
//! says whether the index answers, which tools, why not, and how many of their calls each side answered.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Route, Server, catalog::CatalogSource};
use crate::bridge::config::{IndexSearch, SLOW_SEARCH};
use crate::bridge::offline::OfflineBackend;
use crate::bridge::policy::is_read_only;
use crate::lock::lock;

impl Server {
    /// The backend that may answer `tool` from its index while Obsidian is open, unless `--index-search never`.
    fn index_backend<'a>(
        &self,
        route: &'a Route,
        tool: &str,
    ) -> Option<&'a Arc<dyn OfflineBackend>> {
        if self.config.index_search == IndexSearch::Never {
            return None;
        }
        self.offline_for(route, tool)
            .filter(|backend| backend.answers_from_index(tool))
    }

    /// Whether Obsidian's `tool` is the one the index mirrors: in the live catalog (a plugin setting may turn it off)
    /// of the plugin version bundled with this bridge.
    fn mirrors_obsidian(&self, route: &Route, tool: &str) -> bool {
        let version = route.upstream.facts().server_version;
        let catalog = lock(&route.catalog);
        catalog.source == CatalogSource::Live
            && catalog.find(tool).is_some()
            && version.as_deref() == Some(crate::version::PLUGIN)
    }

    /// The index's answer to a call while Obsidian is open, when it can give the plugin's.
    pub(super) async fn try_index(
        &self,
        route: &Route,
        tool: &str,
        params: Option<&Value>,
    ) -> Option<Value> {
        let backend = self.index_backend(route, tool)?;
        if !self.mirrors_obsidian(route, tool) {
            return None;
        }
        let arguments = params
            .and_then(|params| params.get("arguments"))
            .and_then(Value::as_object);
        let answer = backend.call_from_index(tool, arguments).await?;
        route.index_counts.index.fetch_add(1, Ordering::Relaxed);
        Some(answer)
    }

    /// The backend of a vault upstream, whether or not it may answer while Obsidian is open.
    fn vault_backend<'a>(&self, route: &'a Route) -> Option<&'a Arc<dyn OfflineBackend>> {
        route
            .offline
            .as_ref()
            .filter(|_| self.config.offline && route.is_vault())
    }

    /// After a call through Obsidian answered, was lost or timed out: one that may have written (any tool not marked
    /// read-only) has the index check the folder before its next answer.
    pub(super) fn passed_to_obsidian(&self, route: &Route, tool: &str) {
        let Some(backend) = self.vault_backend(route) else {
            return;
        };
        let may_write = lock(&route.catalog)
            .find(tool)
            .is_none_or(|found| !is_read_only(found));
        if may_write {
            backend.vault_may_have_changed();
        }
    }

    /// After Obsidian answered `tool` in `took`: as [`Self::passed_to_obsidian`], and a slow search or vault-wide
    /// read has `auto` build the index.
    pub(super) fn answered_by_obsidian(&self, route: &Route, tool: &str, took: Duration) {
        self.passed_to_obsidian(route, tool);
        let Some(backend) = self.vault_backend(route) else {
            return;
        };
        if backend.answers_from_index(tool) {
            route.index_counts.obsidian.fetch_add(1, Ordering::Relaxed);
            if self.config.index_search == IndexSearch::Auto && took > SLOW_SEARCH {
                backend.build();
            }
        }
    }

    /// What `obsidian_status` says of answers from the index.
    pub(super) fn index_search_status(&self, route: &Route) -> Value {
        let mode = self.config.index_search;
        let why_not = match self.index_backend(route, "search") {
            _ if mode == IndexSearch::Never => Some("off (--index-search never)"),
            None => Some("off: the bridge does not read this vault's folder"),
            Some(backend) => match backend.index_search_ready() {
                // What builds it, so that the answer is something to act on.
                Err(crate::offline::NOT_BUILT) if mode == IndexSearch::Auto => Some(
                    "not built: a search through Obsidian slower than 300 ms has it built (a large vault), and a \
                     saved one is loaded at start; `--index-search always` builds it at start",
                ),
                ready => ready.err(),
            },
        };
        json!({
            "mode": mode.as_str(),
            "answersSearches": why_not.is_none(),
            "tools": crate::offline::INDEX_TOOLS,
            "whyNot": why_not,
            "callsAnswered": {
                "byIndex": route.index_counts.index.load(Ordering::Relaxed),
                "byObsidian": route.index_counts.obsidian.load(Ordering::Relaxed),
            },
        })
    }
}

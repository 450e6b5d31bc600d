//! Offline mode: the vault's read tools answered straight from the vault folder while Obsidian is closed, and its
//! resources and path completion (`plugin/resources/`, `OfflineVault::request`).
//!
//! The bridge calls [`OfflineVault::call_tool`] when the plugin is unreachable. Every read tool of the catalog is
//! answered with the plugin's argument schema, result shape, limits and content hashes, so an agent cannot tell
//! the two apart except by the mark each offline result carries; tools that need the running app (the active note,
//! every write) get an `isError` result saying that Obsidian must be open. Writes are never done from disk, so
//! Obsidian's index and link updates stay the only writer.
//!
//! The design choice: mirror the plugin rather than approximate Obsidian. The plugin's tools
//! (`obsidian-plugin/src/tools/**`) and the metadata model they run on (`obsidian-plugin/test/fake-obsidian/`) write
//! their rules down; the files here follow theirs one for one, so a change to a tool has an obvious twin, and the
//! parity tests (`tests/it/offline/`) compare both through the bridge, field by field. Three kinds of room:
//! - `plugin/`: the plugin's twin, each file where its original's name says (`plugin/tools/*.rs` ↔
//!   `obsidian-plugin/src/tools/*.ts`, `plugin/vault/*` ↔ `src/vault/*.ts`, `plugin/resources/`, `plugin/prompts/`);
//! - `obsidian/`: what Obsidian itself computes (its vault listing and metadata cache), as the fake `obsidian` module
//!   writes it down (`obsidian/metadata.rs` ↔ `test/fake-obsidian/metadata.cjs`, `obsidian/vault.rs` ↔ `vault.cjs`);
//! - `index/`: the index engine, which has no twin (the word index, the saved index, the file watcher, the index's
//!   life in `index/refresh.rs`, and search from the index while Obsidian is open).
//!
//! Beside them, `js.rs` holds JavaScript's string rules (whitespace, UTF-16 lengths), which the TypeScript gets for
//! free; this file is the façade the bridge calls; `marks.rs` marks the answers; `tests.rs` drives `OfflineVault`
//! end to end through its private state.
//!
//! How a result says it came from disk (kept out of the way of parity comparisons):
//! - JSON results get a last field `"served_from": "disk"` (`source` is taken: `recent_files` has one);
//! - note reads (`read_note`, `daily_note`) get ` served_from=disk` at the end of their `[lines a-b of N] …` header line;
//! - every offline result, errors included, carries `_meta: {"obsmcp/source": "disk"}`.
//!
//! Hidden paths (`hidden`): the plugin's rules are read again at every check of the folder and applied to the listing
//! itself, so a hidden file or folder does not exist for any tool; rules that cannot be applied exactly make every
//! tool refuse with a message saying why, rather than answer without them. [`hidden_rule_count`] tells the bridge
//! how many are in force.
//!
//! For the bridge: `call_tool` blocks (file system and CPU), so call it from `tokio::task::spawn_blocking` on an
//! `Arc<OfflineVault>`; calls may run concurrently. The first call builds the index (about half a second for 10,000
//! notes, seconds for 100,000: `benches/results/latest.md`) and saves it (`index/saved/`). A bridge loads a saved index beside its start (`prepare`);
//! it builds one at start only when asked to (`--index-search always`), or in the background once a search through
//! Obsidian was slow (`build_in_background`): most bridges run while Obsidian is open and a small vault never needs
//! it. The index keeps no note's text: a tool that shows one note reads it again, and text search reads the notes the
//! word index (`index/words.rs`) says can match.
//!
//! While Obsidian is open the bridge may answer `search` and the vault-wide reads from the index (`answer_from_index`,
//! `INDEX_TOOLS`, marked `index` instead of `disk`), only while `index_search_ready` says the answer is the plugin's; `vault_may_have_changed` has the
//! next answer check the folder first after a call through Obsidian that may have written.
//!
//! Known differences from the plugin (everything else is compared by the parity test):
//! - a file reached through a symlink that leads outside the vault is listed but never read, so offline it has no
//!   links, tags or text (the plugin indexes it, though it refuses to show it); a symlinked folder that leads
//!   outside is listed but not entered (the plugin lists its files);
//! - regexes are Rust's `regex` with RE2's `\d \w \s \b` (the plugin runs RE2JS, another RE2): both refuse
//!   lookaround and backreferences, and the message for a regex that does not compile differs;
//! - invalid arguments name the first failing argument only (the SDK lists all);
//! - `recent_files` with `source: "opened"` reads Obsidian's `workspace.json`;
//! - frontmatter is read with `yaml_serde`, the plugin's fake with the `yaml` package: exotic scalars may differ;
//! - daily-note formats support moment's date tokens (`YYYY MM DD Do ddd dddd MMM MMMM WW ww GGGG …`, `[literal]`);
//! - hidden-path rules offline mode cannot apply exactly make it refuse every tool where the plugin goes on: an
//!   excluded-files regex Rust's `regex` cannot compile (the plugin ignores one JavaScript cannot compile and
//!   applies the others), a `data.json` or, with `hideExcludedFiles`, an `app.json` that is not JSON;
//! - the index is checked against the folder (rule changes too) when the file watcher (`index/watch.rs`) saw a change,
//!   which it learns a moment after the write (well under a millisecond with inotify, up to FSEvents' latency on
//!   macOS); without a watcher it could trust, after [`DEFAULT_REFRESH_INTERVAL`].

pub(crate) mod index;
mod js;
mod marks;
mod obsidian;
pub(crate) mod plugin;
pub(crate) mod semantic;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use serde_json::{Value, json};

use index::refresh::State;
pub(crate) use index::search::{BUSY, INDEX_TOOLS, NOT_BUILT};
#[cfg(test)]
pub(crate) use marks::strip_disk_marks;
pub(crate) use marks::{INDEX_LIMITED_KEY, SKIPPED_KEY};
use marks::{Source, index_limited_notice, marked, with_first_field, with_skipped_notice};
use obsidian::metadata::Snapshot;
pub(crate) use plugin::tools::ToolError;
use plugin::tools::{self, Context, Served};
pub(crate) use plugin::vault::hash::content_hash;
pub(crate) use plugin::vault::hidden::hidden_rule_count;
use plugin::vault::paths::RealVault;

/// Why a vault cannot be served offline.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum OfflineError {
    /// The vault folder does not exist or cannot be resolved.
    #[error("vault folder `{path}` cannot be opened: {source}")]
    Vault {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The given path is not a folder.
    #[error("vault path `{0}` is not a folder")]
    NotAFolder(PathBuf),
}

/// A vault folder served from disk, with its index built on first use and refreshed from modification times.
pub(crate) struct OfflineVault {
    root: PathBuf,
    real: RealVault,
    config_dir: String,
    read_only: bool,
    refresh_interval: Duration,
    state: Mutex<State>,
    /// The words of the notes of every snapshot (`index/words.rs`); written only while `state` is held.
    words: Arc<RwLock<index::words::Words>>,
    /// Where the index is saved between bridge processes (`index/saved/`); none unless asked for.
    saved: Option<index::saved::SavedIndex>,
    /// Whether a file watcher decides when the index is checked (else only the refresh interval does).
    watched: bool,
    /// The index's memory budget in bytes: past it the word index is dropped and text search reads every note.
    budget: u64,
    /// Set when the bridge passed Obsidian a call that may have changed the vault: the next call checks the folder
    /// whatever the watcher has said so far (its event may still be on its way).
    wrote: AtomicBool,
    /// Whether a build asked for by [`OfflineVault::build_in_background`] runs.
    building: Arc<AtomicBool>,
    /// Set once the index exists: from then on the state lock is held only for checks of the folder.
    built: AtomicBool,
    /// Set when a first build owes a walk with the watcher on and no thread was started for it yet
    /// ([`OfflineVault::catch_up_in_background`]).
    catch_up_owed: AtomicBool,
    /// Set by [`OfflineVault::close`]: the process ends, and no file watcher starts.
    closed: AtomicBool,
    /// Where search by meaning finds its model (`semantic/`); none: off.
    model: Option<Arc<semantic::vault::ModelSource>>,
    /// Search by meaning, once a call found its model.
    meaning: Mutex<Option<Arc<semantic::vault::Meaning>>>,
}

/// The default memory budget of the offline index, in MiB (`obsmcp bridge --index-memory-mb`): about seven times
/// what 100,000 generated notes take.
pub(crate) const DEFAULT_MEMORY_BUDGET_MB: u64 = 1024;

/// How long an index is used without checking the folder again, by default. Offline mode never writes, so only
/// edits made outside (another editor, a sync tool) can change the vault meanwhile; a second of delay for those
/// spares a walk of the whole folder on every call of an agent's burst.
pub(crate) const DEFAULT_REFRESH_INTERVAL: Duration = Duration::from_secs(1);

/// The `_meta` key that marks an offline result.
pub(crate) const SOURCE_META_KEY: &str = "obsmcp/source";
/// The field added last to an offline JSON result.
pub(crate) const SERVED_FROM_KEY: &str = "served_from";

impl OfflineVault {
    /// Opens a vault folder; `config_dir` defaults to `.obsidian`. Reads nothing but the folder's own path; the
    /// read-only state comes from the plugin's `data.json` when it has one.
    pub(crate) fn open(
        vault: impl Into<PathBuf>,
        config_dir: Option<&str>,
    ) -> Result<Self, OfflineError> {
        let root: PathBuf = vault.into();
        let real_root = std::fs::canonicalize(&root).map_err(|source| OfflineError::Vault {
            path: root.clone(),
            source,
        })?;
        if !real_root.is_dir() {
            return Err(OfflineError::NotAFolder(root));
        }
        let config_dir = config_dir
            .unwrap_or(".obsidian")
            .trim_matches('/')
            .to_string();
        let read_only = obsmcp_installer::obsidian_files::plugin_data::read(&root, &config_dir)
            .is_ok_and(|data| data.read_only);
        Ok(Self {
            root,
            real: RealVault::new(real_root, &config_dir),
            config_dir,
            read_only,
            refresh_interval: DEFAULT_REFRESH_INTERVAL,
            state: Mutex::new(State::default()),
            words: Arc::default(),
            saved: None,
            watched: true,
            budget: DEFAULT_MEMORY_BUDGET_MB << 20,
            wrote: AtomicBool::new(false),
            building: Arc::default(),
            built: AtomicBool::new(false),
            catch_up_owed: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            model: None,
            meaning: Mutex::new(None),
        })
        .map(|vault| vault.with_memory_budget_mb(DEFAULT_MEMORY_BUDGET_MB))
    }

    /// Sets the index's memory budget, in MiB.
    pub(crate) fn with_memory_budget_mb(mut self, megabytes: u64) -> Self {
        self.budget = megabytes.saturating_mul(1 << 20);
        crate::lock::write(&self.words).set_budget(self.budget);
        self
    }

    /// What `obsidian_status` says of the index: its notes, its memory against the budget, and whether the word
    /// index was dropped for it (`None` before the first build). It never waits: while a build or a check of the
    /// folder holds the index (seconds, at 100,000 notes), it says so instead.
    pub(crate) fn describe(&self) -> Option<Value> {
        use std::sync::TryLockError;
        let busy = || {
            Some(json!({
                "memoryBudgetMB": self.budget >> 20,
                "state": "being built or checked against the folder; ask again in a moment",
            }))
        };
        let snapshot = match self.state.try_lock() {
            Ok(state) => state.snapshot.clone()?,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner().snapshot.clone()?,
            Err(TryLockError::WouldBlock) => return busy(),
        };
        let words = match self.words.try_read() {
            Ok(words) => words,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return busy(),
        };
        let held = snapshot.approx_bytes() + words.bytes();
        Some(json!({
            "notes": snapshot.sorted_notes.len(),
            "approxMemoryMB": held >> 20,
            "memoryBudgetMB": self.budget >> 20,
            "wordIndex": match words.dropped() {
                None => "kept: text search reads only the notes that can match".to_owned(),
                Some(_) => index_limited_notice(self.budget),
            },
            "searchByMeaning": self.describe_meaning(),
        }))
    }

    /// Sets how long the index is trusted before the folder is checked again (zero: check on every call).
    /// Saves the index in `folder` (obsmcp's state folder's `index`) and starts from the one saved there.
    pub(crate) fn with_saved_index(mut self, folder: &std::path::Path) -> Self {
        self.saved = Some(index::saved::SavedIndex::new(
            folder,
            self.real.root(),
            &self.config_dir,
        ));
        self
    }

    /// Whether a saved index exists for this vault (then building the index at start is cheap).
    pub(crate) fn has_saved_index(&self) -> bool {
        self.saved
            .as_ref()
            .is_some_and(index::saved::SavedIndex::exists)
    }

    /// Builds the index now (from the saved one when there is one), so that the first offline call finds it ready.
    pub(crate) fn prepare(&self) {
        // A refusal (hidden-path rules that cannot be applied) is answered to every call that comes.
        if let Err(refused) = self.fresh_snapshot(false) {
            tracing::warn!(%refused, "offline index not built at start");
        }
    }

    /// Tests of that rule run without the file watcher, which would otherwise decide first.
    #[cfg(test)]
    pub(crate) fn with_refresh_interval(mut self, interval: Duration) -> Self {
        self.refresh_interval = interval;
        self.watched = false;
        self
    }

    /// Whether this tool's answer comes from disk (false for tools that need the running app).
    pub(crate) fn serves_from_disk(name: &str) -> bool {
        matches!(tools::served(name), Some(Served::Disk))
    }

    /// What a tool run on this snapshot may use.
    fn context<'a>(&'a self, snapshot: &'a Snapshot) -> Context<'a> {
        Context {
            snapshot,
            root: &self.root,
            real: &self.real,
            config_dir: &self.config_dir,
            read_only: self.read_only,
            words: &self.words,
            meaning: Some(self),
        }
    }

    /// Answers a `tools/call` from disk: the `CallToolResult` JSON (`content`, `isError` when it failed, `_meta`
    /// marking the source), or `None` when offline mode does not know the tool.
    pub(crate) fn call_tool(&self, name: &str, arguments: Value) -> Option<Value> {
        if name == "search" && semantic::answer::asks_for_meaning(&arguments) {
            return Some(self.search_by_meaning(arguments));
        }
        let served = tools::served(name)?;
        // A batch holding a search by meaning is the bridge's index's answer, whether Obsidian is open or not.
        let source = if name == "batch" && semantic::answer::batch_asks_for_meaning(&arguments) {
            Source::Index
        } else {
            Source::Disk
        };
        let outcome = match served {
            Served::NeedsObsidian => Err(ToolError(tools::needs_obsidian(name))),
            Served::Disk => match self.fresh_snapshot(false) {
                Err(refused) => Err(ToolError(refused.to_string())),
                Ok(snapshot) => {
                    let ctx = self.context(&snapshot);
                    let limited = crate::lock::read(&self.words).dropped().is_some();
                    tools::run(&ctx, name, arguments)
                        .map(|output| with_skipped_notice(name, output, &snapshot.too_large))
                        .map(|output| {
                            if limited && name == "search" {
                                with_first_field(
                                    output,
                                    INDEX_LIMITED_KEY,
                                    &index_limited_notice(self.budget),
                                )
                            } else {
                                output
                            }
                        })
                }
            },
        };
        Some(marked(outcome, source))
    }
}

/// Where the bridge saves its offline indexes: `index` in obsmcp's state folder.
pub(crate) fn saved_index_folder() -> Option<PathBuf> {
    index::saved::SavedIndex::default_folder()
}

#[cfg(test)]
mod tests;

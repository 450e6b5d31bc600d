//! Offline mode: the vault's read tools answered straight from the vault folder while Obsidian is closed, and its
//! resources and path completion (`resources/`, `OfflineVault::request`).
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
//! parity tests (`tests/it/offline/`) compare both through the bridge, field by field:
//! - `tools/*.rs` ↔ `obsidian-plugin/src/tools/*.ts` (`mod.rs` is `index.ts`; `args.rs` does what zod does there);
//! - `daily.rs`, `hash.rs`, `hidden.rs`, `limits.rs`, `lines.rs`, `links.rs`, `paths/`, `regex.rs`, `sections.rs` ↔
//!   `obsidian-plugin/src/vault/*.ts`;
//! - `obsidian/` ↔ what Obsidian itself computes (its vault listing and metadata cache), as the fake `obsidian`
//!   module writes it down (`test/fake-obsidian/*.cjs`);
//! - `text.rs`: JavaScript's string rules (whitespace, UTF-16 lengths), which the TypeScript gets for free.
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
//! notes, five for 100,000) and saves it (`saved.rs`). A bridge loads a saved index beside its start (`prepare`);
//! it builds one at start only when asked to (`--index-search always`), or in the background once a search through
//! Obsidian was slow (`build_in_background`): most bridges run while Obsidian is open and a small vault never needs
//! it. The index keeps no note's text: a tool that shows one note reads it again, and text search reads the notes the
//! word index (`words.rs`) says can match.
//!
//! While Obsidian is open the bridge may answer `search` from the index (`search_from_index`, marked `index` instead
//! of `disk`), only while `index_search_ready` says the answer is the plugin's; `vault_may_have_changed` has the
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
//! - the index is checked against the folder (rule changes too) when the file watcher (`watch.rs`) saw a change,
//!   which it learns a moment after the write (well under a millisecond with inotify, up to FSEvents' latency on
//!   macOS); without a watcher it could trust, after [`DEFAULT_REFRESH_INTERVAL`].
//!
//! About 550 lines of code (the index's life: load, watch, refresh, save, memory budget) and 580 of unit tests (the
//! marks, the refresh, the budget and the refusals, end to end on a vault folder), kept together because the tests
//! drive `OfflineVault` through its private state.

mod bases;
mod canvas;
mod daily;
mod error;
mod hash;
mod hidden;
mod index_search;
mod limits;
mod lines;
mod links;
mod obsidian;
pub(crate) mod paths;
mod prompts;
mod raw_bytes;
mod regex;
mod requests;
pub(crate) mod resources;
mod saved;
mod sections;
mod tasks;
mod text;
mod tools;
mod watch;
mod words;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::sync::lock;
pub(crate) use hash::content_hash;
pub(crate) use hidden::hidden_rule_count;
use hidden::{HiddenRules, HiddenRulesError};
pub(crate) use index_search::NOT_BUILT;
use obsidian::vault::Snapshot;
use paths::RealVault;
pub(crate) use tools::ToolError;
use tools::{Context, Output, Served};

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
    /// The words of the notes of every snapshot (`words.rs`); written only while `state` is held.
    words: Arc<RwLock<words::Words>>,
    /// Where the index is saved between bridge processes (`saved.rs`); none unless asked for.
    saved: Option<saved::SavedIndex>,
    /// Whether a file watcher decides when the index is checked (else only the refresh interval does).
    watched: bool,
    /// The index's memory budget in bytes: past it the word index is dropped and text search reads every note.
    budget: u64,
    /// Set when the bridge passed Obsidian a call that may have changed the vault: the next call checks the folder
    /// whatever the watcher has said so far (its event may still be on its way).
    wrote: AtomicBool,
    /// Whether a build asked for by [`OfflineVault::build_in_background`] runs.
    building: Arc<AtomicBool>,
}

/// The default memory budget of the offline index, in MiB (`obsmcp bridge --index-memory-mb`): about seven times
/// what 100,000 generated notes take.
pub(crate) const DEFAULT_MEMORY_BUDGET_MB: u64 = 1024;

/// The index and when it was last checked against the folder.
#[derive(Default)]
struct State {
    snapshot: Option<Arc<Snapshot>>,
    /// Why the hidden-path rules could not be applied at the last check: while it is set, no tool is answered.
    refused: Option<HiddenRulesError>,
    checked: Option<Instant>,
    /// The completion candidates of a snapshot, computed on the first completion that needs them.
    candidates: Option<(Arc<Snapshot>, Arc<Vec<resources::Candidate>>)>,
    /// The watcher whose events say when the index must be checked (`watch.rs`), from the first check on.
    watch: Option<watch::Watch>,
    /// Why there is no watcher, when it could not start.
    watch_trouble: Option<String>,
}

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
        let read_only = obsmcp_installer::obsidian::plugin_data::read(&root, &config_dir)
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
        })
        .map(|vault| vault.with_memory_budget_mb(DEFAULT_MEMORY_BUDGET_MB))
    }

    /// Sets the index's memory budget, in MiB.
    pub(crate) fn with_memory_budget_mb(mut self, megabytes: u64) -> Self {
        self.budget = megabytes.saturating_mul(1 << 20);
        crate::sync::write(&self.words).set_budget(self.budget);
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
        }))
    }

    /// Sets how long the index is trusted before the folder is checked again (zero: check on every call).
    /// Saves the index in `folder` (obsmcp's state folder's `index`) and starts from the one saved there.
    pub(crate) fn with_saved_index(mut self, folder: &std::path::Path) -> Self {
        self.saved = Some(saved::SavedIndex::new(
            folder,
            self.real.root(),
            &self.config_dir,
        ));
        self
    }

    /// Whether a saved index exists for this vault (then building the index at start is cheap).
    pub(crate) fn has_saved_index(&self) -> bool {
        self.saved.as_ref().is_some_and(saved::SavedIndex::exists)
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

    /// Brings the index up to date with the folder and the hidden-path rules (builds it on first use) and returns
    /// it, or why the rules cannot be applied.
    fn fresh_snapshot(&self, force: bool) -> Result<Arc<Snapshot>, HiddenRulesError> {
        let mut state = lock(&self.state);
        if state.snapshot.is_some() {
            self.start_watching(&mut state);
        }
        let trusted = match state
            .watch
            .as_ref()
            .filter(|watch| watch.trouble().is_none())
        {
            // Taken even when the answer is not needed (`force`), so that this check covers what it saw.
            Some(watch) => !watch.take_changed() && state.checked.is_some(),
            None => state
                .checked
                .is_some_and(|checked| checked.elapsed() < self.refresh_interval),
        };
        let trusted = !self.wrote.swap(false, Ordering::SeqCst) && trusted;
        if trusted && !force {
            if let Some(refused) = &state.refused {
                return Err(refused.clone());
            }
            if let Some(snapshot) = &state.snapshot {
                return Ok(Arc::clone(snapshot));
            }
        }
        let hidden = HiddenRules::load(&self.root, &self.config_dir);
        state.checked = Some(Instant::now());
        let hidden = match hidden {
            Ok(hidden) => hidden,
            Err(refused) => {
                state.refused = Some(refused.clone());
                return Err(refused);
            }
        };
        state.refused = None;
        let first = state.snapshot.is_none().then(Instant::now);
        let mut listing = None;
        if first.is_some()
            && let Some(saved) = self.saved.as_ref().filter(|saved| saved.exists())
        {
            // Watching from before the check of what changed since the save, so that nothing changed during it
            // goes unseen.
            self.start_watching(&mut state);
            // The saved file is decoded while the folder is walked: at 100,000 notes each takes about half the start.
            let (loaded, walked) = std::thread::scope(|scope| {
                let loading = scope.spawn(|| {
                    let started = Instant::now();
                    let loaded = saved.load();
                    tracing::debug!(
                        ms = started.elapsed().as_millis() as u64,
                        "offline index: saved index decoded"
                    );
                    loaded
                });
                let walking = Instant::now();
                let walked = self.list(state.watch.as_ref(), &hidden);
                tracing::debug!(
                    ms = walking.elapsed().as_millis() as u64,
                    "offline index: folder listed beside the decoding"
                );
                let loaded = loading.join().unwrap_or_else(|_| {
                    tracing::warn!(
                        "decoding the saved offline index failed; it is built from the folder"
                    );
                    None
                });
                (loaded, walked)
            });
            // A word index dropped under another budget is built again under this one.
            let loaded = loaded.filter(|(_, saved_words)| {
                saved_words
                    .dropped()
                    .is_none_or(|budget| budget == self.budget)
            });
            match loaded {
                Some((snapshot, mut saved_words)) => {
                    saved_words.set_budget(self.budget);
                    saved_words.keep_within_budget(snapshot.approx_bytes());
                    *crate::sync::write(&self.words) = saved_words;
                    state.snapshot = Some(Arc::new(snapshot));
                }
                // Built from the folder instead, which is done with the watcher off (below).
                None => state.watch = None,
            }
            listing = Some(walked);
        }
        self.check_folder(&mut state, &hidden, listing);
        if self.watched && state.watch.is_none() && state.watch_trouble.is_none() {
            // A first build reads every note with no watcher running: its own reads would flood the watcher with
            // events (a third of the build's time at 100,000 notes). Watching from now on, one more check of the
            // folder (a walk, no reads) sees what changed during the build.
            self.start_watching(&mut state);
            self.check_folder(&mut state, &hidden, None);
        }
        if let (Some(started), Some(snapshot)) = (first, &state.snapshot) {
            tracing::info!(
                notes = snapshot.sorted_notes.len(),
                read = snapshot.notes_read,
                ms = started.elapsed().as_millis() as u64,
                "offline index ready"
            );
        }
        Ok(Arc::clone(
            state
                .snapshot
                .as_ref()
                .expect("the first check builds the index"),
        ))
    }

    /// Starts the file watcher, unless it runs already, is not wanted, or could not start before.
    fn start_watching(&self, state: &mut State) {
        if !self.watched || state.watch.is_some() || state.watch_trouble.is_some() {
            return;
        }
        match watch::Watch::start(&self.root, &self.config_dir) {
            Ok(watch) => state.watch = Some(watch),
            Err(trouble) => {
                tracing::warn!(%trouble, "offline mode checks the vault folder every second instead");
                state.watch_trouble = Some(trouble);
            }
        }
    }

    /// Walks the folder; the watcher, if any, watches each folder before it is listed (`watch.rs`).
    fn list(&self, watch: Option<&watch::Watch>, hidden: &HiddenRules) -> obsidian::walk::Listing {
        if let Some(watch) = watch {
            watch.config_folders();
        }
        obsidian::walk::walk(&self.root, &self.real, hidden, &|path, metadata| {
            if let Some(watch) = watch {
                watch.folder(path, metadata);
            }
        })
    }

    /// Checks the index against the folder (the walk given, or a new one) and keeps (and saves, in the background)
    /// what changed.
    fn check_folder(
        &self,
        state: &mut State,
        hidden: &HiddenRules,
        listing: Option<obsidian::walk::Listing>,
    ) {
        let walked = std::time::Instant::now();
        let listing = listing.unwrap_or_else(|| self.list(state.watch.as_ref(), hidden));
        tracing::debug!(
            ms = walked.elapsed().as_millis() as u64,
            "offline index: folder listed"
        );
        let changed = Snapshot::refresh_if_changed(
            &self.root,
            listing,
            state.snapshot.as_deref(),
            &mut crate::sync::write(&self.words),
        );
        if let Some(next) = changed {
            let next = Arc::new(next);
            if let Some(saved) = &self.saved {
                // A note gone from the index (hidden since, or deleted) leaves the saved file at once, not at the
                // next save, which may be a while off.
                if let Some(previous) = state.snapshot.as_deref()
                    && previous
                        .files
                        .iter()
                        .any(|file| next.file(&file.path).is_none())
                {
                    saved.forget();
                }
                saved.save_later(Arc::clone(&next), Arc::clone(&self.words));
            }
            state.snapshot = Some(next);
        }
    }

    /// Before the process ends: lets a save of the index under way (or waiting for its turn) finish, within `within`.
    pub(crate) fn finish_saving(&self, within: Duration) {
        if let Some(saved) = &self.saved
            && !saved.finish(&self.words, within)
        {
            tracing::warn!(
                "the offline index was still being saved at exit; the next bridge starts from the previous save"
            );
        }
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
        }
    }

    /// Answers a `tools/call` from disk: the `CallToolResult` JSON (`content`, `isError` when it failed, `_meta`
    /// marking the source), or `None` when offline mode does not know the tool.
    pub(crate) fn call_tool(&self, name: &str, arguments: Value) -> Option<Value> {
        let served = tools::served(name)?;
        let outcome = match served {
            Served::NeedsObsidian => Err(ToolError(tools::needs_obsidian(name))),
            Served::Disk => match self.fresh_snapshot(false) {
                Err(refused) => Err(ToolError(refused.to_string())),
                Ok(snapshot) => {
                    let ctx = self.context(&snapshot);
                    let limited = crate::sync::read(&self.words).dropped().is_some();
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
        Some(marked(outcome, Source::Disk))
    }
}

/// Where an answer came from, as its marks say.
#[derive(Clone, Copy)]
enum Source {
    /// Offline mode: Obsidian is closed.
    Disk,
    /// The bridge's index while Obsidian is open (`search_from_index`).
    Index,
}

impl Source {
    fn word(self) -> &'static str {
        match self {
            Source::Disk => "disk",
            Source::Index => "index",
        }
    }
}

/// A tool's outcome as a `CallToolResult` carrying the marks of where it came from.
fn marked(outcome: Result<Output, ToolError>, source: Source) -> Value {
    let word = source.word();
    match outcome {
        Ok(Output::Attachment { header, block }) => {
            let mut result = tool_result(&format!("{header} served_from={word}"), false, source);
            if let Some(content) = result["content"].as_array_mut() {
                content.push(block);
            }
            result
        }
        Ok(output) => tool_result(&mark_source(output, source), false, source),
        Err(ToolError(message)) => tool_result(&message, true, source),
    }
}

/// Where the bridge saves its offline indexes: `index` in obsmcp's state folder.
pub(crate) fn saved_index_folder() -> Option<PathBuf> {
    saved::SavedIndex::default_folder()
}

/// The key that opens a result that had to leave notes out.
pub(crate) const SKIPPED_KEY: &str = "skipped_notes";

/// The key that opens a text search answered without the word index (the index passed its memory budget).
pub(crate) const INDEX_LIMITED_KEY: &str = "index_limited";

/// What a search says when the word index was dropped for the memory budget: slower, not cut, and how to undo it.
fn index_limited_notice(budget: u64) -> String {
    format!(
        "dropped: this vault's offline index passed the bridge's memory budget of {} MB, so it keeps no word index and text search reads every note from disk (slower; nothing is left out). Raise the budget with `--index-memory-mb` in the client's entry, or open Obsidian",
        budget >> 20
    )
}

/// A JSON result with `key` as its first field.
fn with_first_field(output: Output, key: &str, value: &str) -> Output {
    let Output::Json(Value::Object(object)) = output else {
        return output;
    };
    let mut first = serde_json::Map::new();
    first.insert(key.into(), json!(value));
    first.extend(object);
    Output::Json(Value::Object(first))
}

/// Puts a notice first in a JSON result whose answer depends on every note's text, links or tags when some notes
/// were too large to read from disk: a reader who stops early still learns the answer is incomplete.
fn with_skipped_notice(name: &str, output: Output, too_large: &[String]) -> Output {
    const NAMED: usize = 5;
    let Output::Json(Value::Object(object)) = output else {
        return output;
    };
    if too_large.is_empty() || !tools::reads_every_note(name) {
        return Output::Json(Value::Object(object));
    }
    let named: Vec<String> = too_large
        .iter()
        .take(NAMED)
        .map(|path| paths::quote(path))
        .collect();
    let more = too_large.len().saturating_sub(NAMED);
    let notice = format!(
        "{} note(s) over the {} MB that offline mode reads of one file are not in this answer (their text, links \
         and tags are not read): {}{}; open the vault in Obsidian to include them",
        too_large.len(),
        paths::MAX_FILE_BYTES / 1_048_576,
        named.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    );
    with_first_field(Output::Json(Value::Object(object)), SKIPPED_KEY, &notice)
}

/// The result text with its "served from" mark.
fn mark_source(output: Output, source: Source) -> String {
    let word = source.word();
    match output {
        Output::Json(Value::Object(mut object)) => {
            object.insert(SERVED_FROM_KEY.into(), json!(word));
            serde_json::to_string(&Value::Object(object)).unwrap_or_default()
        }
        Output::Read { header, body } => format!("{header} served_from={word}\n{body}"),
        other => other.text(),
    }
}

fn tool_result(text: &str, is_error: bool, source: Source) -> Value {
    let mut result = json!({"content": [{"type": "text", "text": text}]});
    if is_error {
        result["isError"] = json!(true);
    }
    result["_meta"] = json!({SOURCE_META_KEY: source.word()});
    result
}

/// Removes the offline marks from a result, leaving what the plugin would have sent; for parity comparisons.
#[cfg(test)]
pub(crate) fn strip_disk_marks(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(object) = result.as_object_mut() {
        object.remove("_meta");
    }
    if let Some(text) = result["content"][0]["text"].as_str() {
        let plain = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(mut object))
                if object.get(SERVED_FROM_KEY) == Some(&json!("disk")) =>
            {
                object.remove(SERVED_FROM_KEY);
                serde_json::to_string(&object).unwrap_or_default()
            }
            _ => match text.split_once('\n') {
                Some((header, body)) if header.ends_with(" served_from=disk") => {
                    format!("{}\n{body}", header.trim_end_matches(" served_from=disk"))
                }
                None if text.ends_with(" served_from=disk") => {
                    text.trim_end_matches(" served_from=disk").to_string()
                }
                _ => text.to_string(),
            },
        };
        result["content"][0]["text"] = json!(plain);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vault folder holding `files` (path, text), opened offline.
    pub(super) fn vault(files: &[(&str, &str)]) -> (tempfile::TempDir, OfflineVault) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        let offline = OfflineVault::open(dir.path(), None).unwrap();
        (dir, offline)
    }

    fn text(result: &Value) -> &str {
        result["content"][0]["text"].as_str().unwrap()
    }

    #[test]
    fn results_are_marked_as_served_from_disk() {
        let (_dir, offline) = vault(&[("a.md", "# A\n[[b]]\n"), ("b.md", "x")]);
        let listing = offline.call_tool("list_files", json!({})).unwrap();
        assert!(
            text(&listing).ends_with(r#","served_from":"disk"}"#),
            "{}",
            text(&listing)
        );
        assert_eq!(listing["_meta"][SOURCE_META_KEY], "disk");
        assert!(listing.get("isError").is_none());
        let read = offline
            .call_tool("read_note", json!({"path": "a"}))
            .unwrap();
        let header = text(&read).lines().next().unwrap();
        assert!(
            header.starts_with("[lines 1-2 of 2] path=\"a.md\" sha256=")
                && header.ends_with(" served_from=disk"),
            "{header}"
        );
        let plain = strip_disk_marks(&read);
        assert!(!text(&plain).contains("served_from=disk") && plain.get("_meta").is_none());
    }

    /// Issue 19: a vault whose index passes the memory budget degrades by saying so: the word index goes, every
    /// search reads every note and finds exactly what it found with the index, and opens with a notice; status
    /// says why.
    #[test]
    fn an_index_over_its_memory_budget_drops_its_word_index_and_says_so() {
        let files: Vec<(String, String)> = (0..200)
            .map(|i| {
                (
                    format!("n{i}.md"),
                    format!("note {i} words alpha{i} shared\n"),
                )
            })
            .collect();
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let (_dir, roomy) = vault(&files);
        let (_other, tight) = vault(&files);
        let tight = tight.with_memory_budget_mb(0);
        for query in ["shared", "alpha17", "absent"] {
            let arguments = json!({"query": query});
            let with_index: Value =
                serde_json::from_str(text(&roomy.call_tool("search", arguments.clone()).unwrap()))
                    .unwrap();
            let without: Value =
                serde_json::from_str(text(&tight.call_tool("search", arguments).unwrap())).unwrap();
            let mut fields = without.as_object().unwrap().clone();
            let (first, notice) = fields
                .iter()
                .next()
                .map(|(k, v)| (k.clone(), v.clone()))
                .unwrap();
            assert_eq!(
                first, INDEX_LIMITED_KEY,
                "the notice comes first: {without}"
            );
            assert!(
                notice.as_str().unwrap().contains("--index-memory-mb"),
                "{notice}"
            );
            fields.remove(INDEX_LIMITED_KEY);
            assert_eq!(
                Value::Object(fields),
                with_index,
                "the same matches for {query}"
            );
        }
        assert!(
            !text(
                &roomy
                    .call_tool("search", json!({"query": "shared"}))
                    .unwrap()
            )
            .contains(INDEX_LIMITED_KEY)
        );
        let status = tight.describe().unwrap();
        assert!(
            status["wordIndex"].as_str().unwrap().starts_with("dropped"),
            "{status}"
        );
        assert_eq!(status["memoryBudgetMB"], 0);
        let roomy = roomy.describe().unwrap();
        assert!(
            roomy["wordIndex"].as_str().unwrap().starts_with("kept"),
            "{roomy}"
        );
        assert_eq!(roomy["notes"], 200);
    }

    #[test]
    fn app_only_tools_say_obsidian_must_be_open() {
        let (dir, offline) = vault(&[("a.md", "x")]);
        for (name, arguments) in [
            ("active_note", json!({})),
            ("create_note", json!({"path": "new", "content": "x"})),
            ("append", json!({"path": "a", "content": "y"})),
            ("delete_note", json!({"path": "a"})),
        ] {
            let result = offline.call_tool(name, arguments).unwrap();
            assert_eq!(result["isError"], true, "{name}");
            assert!(
                text(&result).contains("needs Obsidian to be open"),
                "{name}: {}",
                text(&result)
            );
        }
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.md")).unwrap(),
            "x",
            "nothing was written"
        );
        assert!(!dir.path().join("new.md").exists());
        assert!(offline.call_tool("obsidian_status", json!({})).is_none());
    }

    #[test]
    fn edits_on_disk_are_seen_by_the_next_call() {
        let (dir, offline) = vault(&[("a.md", "old [[b]]"), ("b.md", "")]);
        let offline = offline.with_refresh_interval(Duration::ZERO);
        let first = offline
            .call_tool("backlinks", json!({"path": "b"}))
            .unwrap();
        assert!(text(&first).contains(r#""total":1"#), "{}", text(&first));
        std::fs::write(dir.path().join("a.md"), "new text, no link, longer").unwrap();
        let second = offline
            .call_tool("backlinks", json!({"path": "b"}))
            .unwrap();
        assert!(text(&second).contains(r#""total":0"#), "{}", text(&second));
        std::fs::write(dir.path().join("c.md"), "[[b]]").unwrap();
        let third = offline
            .call_tool("backlinks", json!({"path": "b"}))
            .unwrap();
        assert!(
            text(&third).contains(r#""path":"c.md""#),
            "{}",
            text(&third)
        );
    }

    #[test]
    fn search_finds_the_words_an_edit_brings_and_forgets_the_ones_it_takes() {
        let (dir, offline) = vault(&[("a.md", "alpha beta"), ("b.md", "gamma")]);
        let offline = offline.with_refresh_interval(Duration::ZERO);
        let matches = |query: &str| {
            let result = offline
                .call_tool("search", json!({"query": query}))
                .unwrap();
            let parsed: Value = serde_json::from_str(text(&result)).unwrap();
            parsed["total_matches"].as_u64().unwrap()
        };
        assert_eq!((matches("alpha"), matches("delta")), (1, 0));
        // Each edit changes the size, so that it is seen even within one tick of the clock.
        for round in 0..40 {
            let text = format!("delta {round} and more text{}", "!".repeat(round));
            std::fs::write(dir.path().join("a.md"), text).unwrap();
            assert_eq!(matches("delta"), 1, "round {round}");
        }
        assert_eq!(matches("alpha"), 0, "the old words are gone");
        assert_eq!(matches(&format!("delta {}", 39)), 1);
        std::fs::remove_file(dir.path().join("a.md")).unwrap();
        assert_eq!((matches("delta"), matches("gamma")), (0, 1));
    }

    /// The next call that sees `expected` in `text(call())`, within five seconds: a watcher learns of a change a
    /// moment after it is made.
    fn eventually(call: impl Fn() -> Value, expected: &str) -> Value {
        let started = Instant::now();
        loop {
            let result = call();
            if text(&result).contains(expected) || started.elapsed() > Duration::from_secs(5) {
                return result;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_watcher_does_not_follow_a_symlink_out_of_the_vault() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("elsewhere.md"), "x").unwrap();
        let (dir, offline) = vault(&[("a.md", "one")]);
        std::os::unix::fs::symlink(outside.path(), dir.path().join("linked")).unwrap();
        let search = || {
            offline
                .call_tool("search", json!({"query": "one"}))
                .unwrap()
        };
        let _ = search();
        assert!(lock(&offline.state).watch.is_some());
        let checked = lock(&offline.state).checked;
        std::fs::write(outside.path().join("elsewhere.md"), "changed outside").unwrap();
        std::fs::write(outside.path().join("new.md"), "new outside").unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let _ = search();
        assert_eq!(
            lock(&offline.state).checked,
            checked,
            "a change outside the vault made the index walk it again"
        );
    }

    #[test]
    fn with_the_watcher_an_unchanged_vault_is_never_walked_and_every_change_is_seen() {
        let (dir, offline) = vault(&[("a.md", "one [[b]]"), ("b.md", "two")]);
        let search = |query: &str| {
            offline
                .call_tool("search", json!({"query": query}))
                .unwrap()
        };
        assert!(text(&search("one")).contains(r#""total_matches":1"#));
        assert!(
            lock(&offline.state).watch.is_some(),
            "{:?}",
            lock(&offline.state).watch_trouble
        );
        let checked = lock(&offline.state).checked;
        std::thread::sleep(Duration::from_millis(1100));
        let _ = search("one");
        assert_eq!(
            lock(&offline.state).checked,
            checked,
            "a pause longer than the refresh interval did not make the next call walk the vault"
        );

        // Created, edited, renamed, deleted: each seen by a following call.
        std::fs::write(dir.path().join("c.md"), "three one").unwrap();
        let created = eventually(|| search("three"), r#""total_matches":1"#);
        assert!(
            text(&created).contains(r#""path":"c.md""#),
            "{}",
            text(&created)
        );
        std::fs::write(dir.path().join("c.md"), "four, longer than before").unwrap();
        let edited = eventually(|| search("four"), r#""total_matches":1"#);
        assert!(
            text(&edited).contains(r#""path":"c.md""#),
            "{}",
            text(&edited)
        );
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::rename(dir.path().join("c.md"), dir.path().join("sub/d.md")).unwrap();
        let renamed = eventually(|| search("four"), r#""path":"sub/d.md""#);
        assert!(
            text(&renamed).contains(r#""total_matches":1"#),
            "{}",
            text(&renamed)
        );
        std::fs::remove_file(dir.path().join("sub/d.md")).unwrap();
        let deleted = eventually(|| search("four"), r#""total_matches":0"#);
        assert!(
            text(&deleted).contains(r#""total_matches":0"#),
            "{}",
            text(&deleted)
        );
        std::fs::write(dir.path().join("a.md"), "no link now").unwrap();
        let backlinks = eventually(
            || {
                offline
                    .call_tool("backlinks", json!({"path": "b"}))
                    .unwrap()
            },
            r#""total":0"#,
        );
        assert!(
            text(&backlinks).contains(r#""total":0"#),
            "{}",
            text(&backlinks)
        );
    }

    #[test]
    fn the_watcher_sees_folders_made_after_start_and_rules_in_the_config_folder() {
        let (dir, offline) = vault(&[("a.md", "one")]);
        let search = |query: &str| {
            offline
                .call_tool("search", json!({"query": query}))
                .unwrap()
        };
        let seen = |query: &str, expected: &str| {
            let result = eventually(|| search(query), expected);
            assert!(
                text(&result).contains(expected),
                "{query}: {}",
                text(&result)
            );
        };
        let checked = || lock(&offline.state).checked;
        // After a change in the vault, the next call walks it (and so watches the folders it finds).
        let walked_after = |change: &dyn Fn()| {
            let before = checked();
            change();
            std::thread::sleep(Duration::from_millis(100));
            let _ = search("one");
            assert_ne!(checked(), before, "a change was not seen");
        };
        let _ = search("one");
        assert!(lock(&offline.state).watch.is_some());
        // Folders made while the bridge runs, two deep, then files in the deepest.
        walked_after(&|| std::fs::create_dir_all(dir.path().join("new/deeper")).unwrap());
        std::fs::write(dir.path().join("new/deeper/n.md"), "nested").unwrap();
        seen("nested", r#""path":"new/deeper/n.md""#);
        std::fs::write(dir.path().join("new/deeper/m.md"), "nested again").unwrap();
        seen("again", r#""path":"new/deeper/m.md""#);
        // A folder removed and made again under the same name is watched again.
        std::fs::remove_dir_all(dir.path().join("new")).unwrap();
        seen("nested", r#""total_matches":0"#);
        walked_after(&|| std::fs::create_dir_all(dir.path().join("new/deeper")).unwrap());
        std::fs::write(dir.path().join("new/deeper/o.md"), "back").unwrap();
        seen("back", r#""path":"new/deeper/o.md""#);
        // A folder renamed, then a note inside it edited.
        walked_after(&|| {
            std::fs::rename(dir.path().join("new"), dir.path().join("moved")).unwrap()
        });
        std::fs::write(
            dir.path().join("moved/deeper/o.md"),
            "edited after the move",
        )
        .unwrap();
        seen("edited", r#""path":"moved/deeper/o.md""#);
        walked_after(&|| {
            std::fs::rename(dir.path().join("moved"), dir.path().join("new")).unwrap()
        });
        seen("edited", r#""path":"new/deeper/o.md""#);
        // The hidden-path rules, in a plugin folder that did not exist at start.
        let plugin = dir.path().join(".obsidian/plugins/obsmcp");
        walked_after(&|| std::fs::create_dir_all(&plugin).unwrap());
        std::fs::write(plugin.join("data.json"), r#"{"hiddenPaths":["new"]}"#).unwrap();
        seen("edited", r#""total_matches":0"#);
        // Churn in a folder Obsidian never lists does not make the index walk the vault.
        walked_after(&|| std::fs::create_dir(dir.path().join(".git")).unwrap());
        let before = checked();
        std::fs::write(dir.path().join(".git/index"), "x").unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let _ = search("one");
        if cfg!(target_os = "linux") {
            assert_eq!(
                checked(),
                before,
                "a write in .git made the index walk the vault"
            );
        }
    }

    #[test]
    fn the_index_is_trusted_for_the_refresh_interval_then_checked() {
        let (dir, offline) = vault(&[("a.md", "one")]);
        let offline = offline.with_refresh_interval(Duration::from_millis(300));
        assert!(
            text(
                &offline
                    .call_tool("search", json!({"query": "one"}))
                    .unwrap()
            )
            .contains(r#""total_matches":1"#)
        );
        std::fs::write(dir.path().join("b.md"), "one more").unwrap();
        let soon = offline
            .call_tool("search", json!({"query": "one"}))
            .unwrap();
        assert!(
            text(&soon).contains(r#""total_matches":1"#),
            "within the interval: {}",
            text(&soon)
        );
        std::thread::sleep(Duration::from_millis(350));
        let later = offline
            .call_tool("search", json!({"query": "one"}))
            .unwrap();
        assert!(
            text(&later).contains(r#""total_matches":2"#),
            "after the interval: {}",
            text(&later)
        );
    }

    #[test]
    fn bad_arguments_and_escapes_are_errors_that_lose_nothing() {
        let (_dir, offline) = vault(&[("a.md", "x")]);
        for arguments in [
            json!({}),
            json!({"path": 3}),
            json!({"path": "../etc/passwd"}),
            json!({"path": "/etc/passwd"}),
            json!({"path": ".obsidian/app.json"}),
        ] {
            let result = offline.call_tool("read_note", arguments.clone()).unwrap();
            assert_eq!(result["isError"], true, "{arguments}");
        }
    }

    fn write_settings(dir: &std::path::Path, data_json: &str, app_json: &str) {
        let config = dir.join(".obsidian");
        std::fs::create_dir_all(config.join("plugins/obsmcp")).unwrap();
        std::fs::write(config.join("plugins/obsmcp/data.json"), data_json).unwrap();
        std::fs::write(config.join("app.json"), app_json).unwrap();
    }

    fn listed(offline: &OfflineVault) -> String {
        text(
            &offline
                .call_tool("list_files", json!({"include_folders": true}))
                .unwrap(),
        )
        .to_string()
    }

    #[test]
    fn hidden_paths_are_read_again_at_every_check_of_the_folder() {
        let (dir, offline) = vault(&[("a.md", "[[x]]"), ("Private/x.md", "secret")]);
        let offline = offline.with_refresh_interval(Duration::ZERO);
        assert!(listed(&offline).contains("Private/x.md"));
        write_settings(
            dir.path(),
            r#"{"port":1,"token":"t","hiddenPaths":["Private"]}"#,
            "{}",
        );
        let hidden = listed(&offline);
        assert!(!hidden.contains("Private"), "{hidden}");
        write_settings(
            dir.path(),
            r#"{"port":1,"token":"t","hideExcludedFiles":true}"#,
            r#"{"userIgnoreFilters":["a.md"]}"#,
        );
        let excluded = listed(&offline);
        assert!(
            excluded.contains("Private/x.md") && !excluded.contains("\"a.md\""),
            "{excluded}"
        );
        write_settings(
            dir.path(),
            r#"{"port":1,"token":"t"}"#,
            r#"{"userIgnoreFilters":["a.md"]}"#,
        );
        assert!(listed(&offline).contains("\"a.md\""));
    }

    #[test]
    fn rules_that_cannot_be_applied_refuse_every_tool_until_they_can() {
        let (dir, offline) = vault(&[("a.md", "x"), ("Old/b.md", "y")]);
        let offline = offline.with_refresh_interval(Duration::ZERO);
        write_settings(
            dir.path(),
            r#"{"port":1,"token":"t","hideExcludedFiles":true}"#,
            r#"{"userIgnoreFilters":["/^(?!Old)x/"]}"#,
        );
        for (name, arguments) in [
            ("list_files", json!({})),
            ("vault_info", json!({})),
            ("read_note", json!({"path": "a"})),
            ("search", json!({"query": "y"})),
            ("recent_files", json!({})),
            ("batch", json!({"calls": [{"tool": "list_files"}]})),
        ] {
            let result = offline.call_tool(name, arguments).unwrap();
            assert_eq!(result["isError"], true, "{name}: {result}");
            assert!(
                text(&result).contains(r#"excluded-files filter (Obsidian's userIgnoreFilters, hidden because hideExcludedFiles is on) "/^(?!Old)x/" cannot be applied offline"#)
                    && text(&result).contains("Open the vault in Obsidian"),
                "{name}: {}",
                text(&result)
            );
        }
        write_settings(
            dir.path(),
            r#"{"port":1,"token":"t","hideExcludedFiles":true}"#,
            r#"{"userIgnoreFilters":["/^Old/"]}"#,
        );
        let fixed = listed(&offline);
        assert!(
            fixed.contains("\"a.md\"") && !fixed.contains("Old"),
            "{fixed}"
        );
        write_settings(dir.path(), r#"{"hiddenPaths": ["#, "{}");
        let broken = offline.call_tool("list_files", json!({})).unwrap();
        assert!(
            text(&broken).contains("settings (.obsidian/plugins/obsmcp/data.json) is not JSON"),
            "{}",
            text(&broken)
        );
    }

    #[test]
    fn a_hidden_note_or_folder_fails_exactly_like_one_that_does_not_exist() {
        let (dir, offline) = vault(&[
            ("Home.md", "[[Secret]]"),
            ("Private/Secret.md", "# Title\n[[Home]]"),
        ]);
        let offline = offline.with_refresh_interval(Duration::ZERO);
        write_settings(
            dir.path(),
            r#"{"port":1,"token":"t","hiddenPaths":["Private/"]}"#,
            "{}",
        );
        let calls = [
            ("read_note", json!({"path": "Private/Secret.md"})),
            ("read_note", json!({"path": "[[Secret]]"})),
            ("read_note", json!({"path": "private/secret"})),
            ("note_metadata", json!({"path": "Secret"})),
            ("outline", json!({"path": "Secret#Title"})),
            ("backlinks", json!({"path": "Home"})),
            ("outgoing_links", json!({"path": "Home"})),
            ("list_files", json!({"folder": "Private"})),
            ("unresolved_links", json!({})),
            ("vault_info", json!({})),
        ];
        let hidden: Vec<Value> = calls
            .iter()
            .map(|(name, arguments)| offline.call_tool(name, arguments.clone()).unwrap())
            .collect();
        std::fs::remove_dir_all(dir.path().join("Private")).unwrap();
        write_settings(dir.path(), r#"{"port":1,"token":"t"}"#, "{}");
        for ((name, arguments), hidden) in calls.iter().zip(&hidden) {
            let missing = offline.call_tool(name, arguments.clone()).unwrap();
            assert_eq!(hidden, &missing, "{name} {arguments}");
        }
        assert_eq!(hidden[0]["isError"], true);
    }

    #[test]
    fn a_missing_vault_is_a_clear_error() {
        let error = OfflineVault::open("/nonexistent/obsmcp-vault", None)
            .err()
            .unwrap();
        assert!(error.to_string().contains("cannot be opened"), "{error}");
    }
}

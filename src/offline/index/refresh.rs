//! The index's life: built on first use (from the saved index when there is one), checked against the folder when
//! the file watcher saw a change (or, without one, after the refresh interval) or a call through Obsidian may have
//! written, and saved in the background after each change. Every tool call asks [`OfflineVault::fresh_snapshot`]
//! for the index; one lock (`State`) makes each check whole.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use super::watch::{Changes, Watch};
use super::words::Words;
use crate::lock::lock;
use crate::offline::OfflineVault;
use crate::offline::obsidian::metadata::Snapshot;
use crate::offline::obsidian::read::release_freed_memory;
use crate::offline::obsidian::vault::{
    Listing, is_unlisted, relisted, walk, walk_unless_same, walk_unless_same_later,
};
use crate::offline::plugin::resources::Candidate;
use crate::offline::plugin::vault::hidden::{HiddenRules, HiddenRulesError};

/// The index and when it was last checked against the folder.
#[derive(Default)]
pub(in crate::offline) struct State {
    pub(in crate::offline) snapshot: Option<Arc<Snapshot>>,
    /// Why the hidden-path rules could not be applied at the last check: while it is set, no tool is answered.
    pub(in crate::offline) refused: Option<HiddenRulesError>,
    pub(in crate::offline) checked: Option<Instant>,
    /// The completion candidates of a snapshot, computed on the first completion that needs them.
    pub(in crate::offline) candidates: Option<(Arc<Snapshot>, Arc<Vec<Candidate>>)>,
    /// The watcher whose events say when the index must be checked (`watch.rs`), from the first check on.
    pub(in crate::offline) watch: Option<Watch>,
    /// Why there is no watcher, when it could not start.
    pub(in crate::offline) watch_trouble: Option<String>,
    /// How many times the folder was walked (a check after notes were edited in place stats them alone).
    pub(in crate::offline) walks: usize,
    /// Set after a first build, which reads the folder with no watcher: a walk with the watcher on is owed, to see
    /// (and watch) what changed during the build. Done beside the first answer, else before the next
    /// ([`OfflineVault::catch_up_in_background`]).
    pub(in crate::offline) catch_up: bool,
}

/// From how many files a refresh that replaced the snapshot gives freed memory back to the system (a few
/// milliseconds at 100,000 notes, beside a walk of hundreds).
const TRIM_FROM: usize = 20_000;

impl OfflineVault {
    /// Brings the index up to date with the folder and the hidden-path rules (builds it on first use) and returns
    /// it, or why the rules cannot be applied.
    pub(in crate::offline) fn fresh_snapshot(
        &self,
        force: bool,
    ) -> Result<Arc<Snapshot>, HiddenRulesError> {
        let mut state = lock(&self.state);
        if state.snapshot.is_some() {
            self.start_watching(&mut state);
        }
        let changes = match self.what_to_check(&state) {
            _ if state.catch_up => Some(Changes::Everything),
            changes => changes,
        };
        if changes.is_none() && !force {
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
        let listing = match changes {
            _ if first.is_some() => self.load_saved(&mut state, &hidden),
            Some(Changes::Files(changed)) if !force => self
                .listing_after_edits(&state, &changed)
                .map_or(Walked::Owed, Walked::Found),
            _ => Walked::Owed,
        };
        let catching_up = state.catch_up;
        self.check_folder(&mut state, &hidden, listing);
        if first.is_some() || (catching_up && !state.catch_up) {
            // What the start freed (a listing walked beside the saved index, the build's buffers, the walk after it)
            // stays with the allocator otherwise, and every later peak starts from there: at 100,000 notes, resident
            // memory after a start from the saved index went from 97 to 92 MB, and after the walk that follows a build
            // from 107 to 100-104 MB.
            let trimming = Instant::now();
            release_freed_memory();
            tracing::debug!(
                ms = trimming.elapsed().as_millis() as u64,
                "offline index: memory trimmed after the start"
            );
        }
        if self.watched && state.watch.is_none() && state.watch_trouble.is_none() {
            // A first build reads every note with no watcher running: its own reads would flood the watcher with
            // events (a third of the build's time at 100,000 notes). Watching from now on, one more check of the
            // folder (a walk, no reads) sees what changed during the build. This answer does not wait for it (it
            // reflects the folder as it was after the call came); the walk runs beside it, or before the next.
            self.start_watching(&mut state);
            state.catch_up = state.watch.is_some();
            self.catch_up_owed.store(state.catch_up, Ordering::SeqCst);
        }
        self.built.store(state.snapshot.is_some(), Ordering::SeqCst);
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

    /// What the next answer must check first: nothing (`None`) when the watcher saw no change (or, without one, the
    /// refresh interval has not passed and no call through Obsidian may have written since the last check); the files
    /// the watcher named; else the whole folder ([`Changes::Everything`]).
    fn what_to_check(&self, state: &State) -> Option<Changes> {
        let wrote = self.wrote.swap(false, Ordering::SeqCst);
        let Some(watch) = state
            .watch
            .as_ref()
            .filter(|watch| watch.trouble().is_none())
        else {
            let fresh = state
                .checked
                .is_some_and(|checked| checked.elapsed() < self.refresh_interval);
            return (!fresh || wrote).then_some(Changes::Everything);
        };
        // A call through Obsidian may have written: once the watcher has handled every event up to now, what it saw
        // is what changed (Linux); else the folder is walked.
        let settled = !wrote || watch.settle();
        // Taken even when the answer is not needed (`force`), so that this check covers what it saw.
        let changes = watch.take_changes();
        if !settled || watch.trouble().is_some() || state.checked.is_none() {
            return Some(Changes::Everything);
        }
        changes
    }

    /// The listing after the files `changed` (as the watcher named them) were modified in place: the index's listing
    /// with only those stat'ed again. `None` when only a walk can tell: a path the listing does not hold (a folder, a
    /// hidden note), a file that holds the hidden-path rules, a symlink, or a file no longer there.
    fn listing_after_edits(&self, state: &State, changed: &[PathBuf]) -> Option<Listing> {
        let snapshot = state.snapshot.as_ref()?;
        let mut indexes = Vec::with_capacity(changed.len());
        for path in changed {
            let below = path.strip_prefix(&self.root).ok()?.to_str()?;
            let vault_path = below.replace(std::path::MAIN_SEPARATOR, "/");
            if self.holds_rules(&vault_path) {
                return None;
            }
            match snapshot.file_index(&vault_path) {
                Some(index) => indexes.push(index),
                // Never listed and never to be (`.git`, `.trash`): changes there are none of the index's.
                None if is_unlisted(&vault_path, &self.config_dir) => {}
                None => return None,
            }
        }
        relisted(&self.root, &snapshot.files, &snapshot.folders, &indexes)
    }

    /// Whether the file at this vault path holds hidden-path rules (the plugin's settings, and Obsidian's `app.json`
    /// for its excluded files): a change there can change what every walk lists. Obsidian's other files in the
    /// config folder (`workspace.json`, written as notes are opened) change nothing listed.
    fn holds_rules(&self, vault_path: &str) -> bool {
        let config = self.config_dir.trim_matches('/');
        let plugin = obsmcp_installer::obsidian_files::plugin_data::PLUGIN_ID;
        vault_path == format!("{config}/app.json")
            || vault_path == format!("{config}/plugins/{plugin}/data.json")
    }

    /// On the first build: starts from the saved index when there is one, decoding it while the folder is walked,
    /// and returns what that walk found for the check of what changed since the save ([`Walked::Owed`] when there is
    /// no saved index).
    fn load_saved(&self, state: &mut State, hidden: &HiddenRules) -> Walked {
        let Some(saved) = self.saved.as_ref().filter(|saved| saved.exists()) else {
            return Walked::Owed;
        };
        // Watching from before the check of what changed since the save, so that nothing changed during it goes
        // unseen.
        self.start_watching(state);
        // The saved file is decoded while the folder is walked: at 100,000 notes each takes about half the start. Once
        // decoded, the walk goes on against the saved listing instead of making its own.
        let cue = cue(state.watch.as_ref());
        let decoded: OnceLock<Option<(Snapshot, Words)>> = OnceLock::new();
        let saved_listing = || {
            let (snapshot, _) = decoded.get()?.as_ref()?;
            Some((&snapshot.files[..], &snapshot.folders[..]))
        };
        let walked = std::thread::scope(|scope| {
            let loading = scope.spawn(|| {
                let started = Instant::now();
                let loaded = saved.load();
                tracing::debug!(
                    ms = started.elapsed().as_millis() as u64,
                    "offline index: saved index decoded"
                );
                if let Some((snapshot, _)) = &loaded {
                    // The walk takes longer than the decoding (and keeps a core half idle): what the first search
                    // would make before answering (a twentieth of a second at 100,000 notes) is made meanwhile.
                    snapshot.prepare_search(&self.config_dir);
                    tracing::debug!(
                        ms = started.elapsed().as_millis() as u64,
                        "offline index: search tables made beside the walk"
                    );
                }
                decoded.get_or_init(|| loaded);
            });
            let walking = Instant::now();
            let walked =
                walk_unless_same_later(&self.root, &self.real, hidden, &cue, &saved_listing);
            state.walks += 1;
            tracing::debug!(
                ms = walking.elapsed().as_millis() as u64,
                "offline index: folder listed beside the decoding"
            );
            if loading.join().is_err() {
                tracing::warn!(
                    "decoding the saved offline index failed; it is built from the folder"
                );
            }
            walked
        });
        drop(cue);
        match decoded.into_inner().flatten() {
            // A word index dropped under another budget is built again under this one.
            Some((snapshot, mut saved_words))
                if saved_words
                    .dropped()
                    .is_none_or(|budget| budget == self.budget) =>
            {
                saved_words.set_budget(self.budget);
                saved_words.keep_within_budget(snapshot.approx_bytes());
                *crate::lock::write(&self.words) = saved_words;
                state.snapshot = Some(Arc::new(snapshot));
                walked.map_or(Walked::Same, Walked::Found)
            }
            rejected => {
                // Built from the folder instead, which is done with the watcher off (see `fresh_snapshot`).
                state.watch = None;
                // A walk that found the saved listing has none of its own: it is the saved one.
                Walked::Found(walked.unwrap_or_else(|| {
                    let (snapshot, _) = rejected.expect("a walk matched a decoded listing");
                    Listing {
                        files: snapshot.files,
                        folders: snapshot.folders,
                    }
                }))
            }
        }
    }

    /// Starts the file watcher, unless it runs already, is not wanted, or could not start before.
    fn start_watching(&self, state: &mut State) {
        if !self.watched
            || self.closed.load(Ordering::SeqCst)
            || state.watch.is_some()
            || state.watch_trouble.is_some()
        {
            return;
        }
        match Watch::start(&self.root, &self.config_dir) {
            Ok(watch) => state.watch = Some(watch),
            Err(trouble) => {
                tracing::warn!(%trouble, "offline mode checks the vault folder every second instead");
                state.watch_trouble = Some(trouble);
            }
        }
    }

    /// Walks the folder; the watcher, if any, watches each folder before it is listed (`watch.rs`).
    fn list(&self, watch: Option<&Watch>, hidden: &HiddenRules) -> Listing {
        walk(&self.root, &self.real, hidden, &cue(watch))
    }

    /// [`OfflineVault::list`], against what `snapshot` lists: `None` when the folder lists the same.
    fn list_unless_same(
        &self,
        watch: Option<&Watch>,
        hidden: &HiddenRules,
        snapshot: Option<&Snapshot>,
    ) -> Option<Listing> {
        let Some(snapshot) = snapshot else {
            return Some(self.list(watch, hidden));
        };
        let listed = (&snapshot.files[..], &snapshot.folders[..]);
        walk_unless_same(&self.root, &self.real, hidden, &cue(watch), listed)
    }

    /// Checks the index against the folder (the walk given, or a new one) and keeps (and saves, in the background)
    /// what changed.
    fn check_folder(&self, state: &mut State, hidden: &HiddenRules, walked: Walked) {
        let walking = std::time::Instant::now();
        // `None`: the walk found the folder as the snapshot lists it.
        let listing = match walked {
            Walked::Found(listing) => Some(listing),
            Walked::Same => None,
            Walked::Owed => {
                state.walks += 1;
                // With the watcher on, this walk is the one a first build owes.
                state.catch_up &= state.watch.is_none();
                self.list_unless_same(state.watch.as_ref(), hidden, state.snapshot.as_deref())
            }
        };
        tracing::debug!(
            ms = walking.elapsed().as_millis() as u64,
            "offline index: folder listed"
        );
        let changed = listing.and_then(|listing| {
            Snapshot::refresh_if_changed(
                &self.root,
                listing,
                state.snapshot.as_deref(),
                &mut crate::lock::write(&self.words),
            )
        });
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
            let large = next.files.len() >= TRIM_FROM;
            state.snapshot = Some(next);
            if large {
                // The snapshot replaced (its listing, lookups and link tables: tens of MB at 100,000 notes) is freed
                // in the arenas of the threads that built it; given back, the resident size stays near what is
                // live instead of rising by a snapshot or two through a run of edits.
                release_freed_memory();
            }
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
        self.finish_saving_meaning(within);
    }

    /// Before the process ends: [`Self::finish_saving`], then the file watcher stops and its folder of marks goes. A
    /// thread that still holds the index (the walk a first build owes, run beside the answer) would otherwise keep it,
    /// watcher and marks, to the process's end, which drops nothing. A check under way is waited for up to
    /// [`CLOSE_WAIT`] (a walk takes a third of a second at 100,000 notes; a build in the background is not waited for,
    /// and the next bridge removes the marks); no watcher starts after this.
    pub(crate) fn close(&self, within: Duration) {
        self.finish_saving(within);
        self.closed.store(true, Ordering::SeqCst);
        let started = Instant::now();
        let mut state = loop {
            match self.state.try_lock() {
                Ok(state) => break state,
                Err(std::sync::TryLockError::Poisoned(poisoned)) => break poisoned.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) if started.elapsed() < CLOSE_WAIT => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(std::sync::TryLockError::WouldBlock) => {
                    tracing::debug!(
                        "the index was being checked at exit: the file watcher's marks stay"
                    );
                    return;
                }
            }
        };
        state.watch = None;
    }
}

/// How long [`OfflineVault::close`] waits for a check of the folder under way.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// What the check of the folder starts from.
enum Walked {
    /// No walk yet: the check walks.
    Owed,
    /// A walk found the folder as the snapshot lists it.
    Same,
    /// The listing a walk (or the files named by the watcher, stat'ed again) found.
    Found(Listing),
}

/// Readies the watcher, if any, for a walk, and gives what the walk tells of each folder before listing it: the
/// watcher then watches that folder (`watch.rs`).
fn cue(watch: Option<&Watch>) -> impl Fn(&std::path::Path, &std::fs::Metadata) + '_ {
    if let Some(watch) = watch {
        watch.config_folders();
    }
    move |path, metadata| {
        if let Some(watch) = watch {
            watch.folder(path, metadata);
        }
    }
}

/// Linux only: elsewhere the watcher names no files (`watch.rs`).
#[cfg(all(test, target_os = "linux"))]
mod tests;

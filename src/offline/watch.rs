//! Knowing when the vault folder changed without walking it: a file-system watcher (inotify, FSEvents,
//! ReadDirectoryChangesW through the `notify` crate) on the whole vault, whose events mark the index stale.
//!
//! The index is then checked against the folder (the walk of `obsidian/walk.rs`, reusing every unchanged note) only
//! after something changed, instead of after every pause of a second: at 100,000 notes that walk costs about half
//! a second, which an agent's every call paid. Reads (our own included) are not changes. While the watcher cannot
//! be trusted (it could not start, it reported an error, or the system dropped events: `Rescan`), the index falls
//! back to the old rule, checked when it is older than the refresh interval, and [`Watch::trouble`] says why.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use notify::event::EventKind;
use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use crate::sync::lock;

/// A running watcher of one vault folder.
pub(crate) struct Watch {
    /// Kept for its drop, which stops the watching thread.
    _watcher: RecommendedWatcher,
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    /// Set by every change; taken by the next check of the index.
    changed: AtomicBool,
    /// Why the watcher's events cannot be relied on any more.
    trouble: Mutex<Option<String>>,
}

impl Watch {
    /// Starts watching `root` and everything below it; why not, when the system refuses (too many folders for
    /// its watch limit, an unsupported file system).
    pub(crate) fn start(root: &Path) -> Result<Watch, String> {
        let shared = Arc::new(Shared::default());
        let seen = Arc::clone(&shared);
        let handler = move |event: notify::Result<notify::Event>| match event {
            Ok(event) if event.need_rescan() => {
                *lock(&seen.trouble) =
                    Some("the system dropped file-change events (too many changes at once)".into());
            }
            Ok(event) if matches!(event.kind, EventKind::Access(_)) => {}
            Ok(_) => seen.changed.store(true, Ordering::SeqCst),
            Err(error) => {
                *lock(&seen.trouble) = Some(format!("the file watcher failed: {error}"));
            }
        };
        // Symlinks are not followed: one leading out of the vault (to a home folder, say) would have the watcher add
        // a watch for every folder there, and offline mode never reads outside the vault anyway; a change reached
        // through one that leads inside is seen at its real path, which is watched too.
        let config = notify::Config::default().with_follow_symlinks(false);
        let mut watcher = RecommendedWatcher::new(handler, config)
            .map_err(|error| format!("the file watcher could not start: {error}"))?;
        watcher
            .watch(root, RecursiveMode::Recursive)
            .map_err(|error| format!("the vault folder cannot be watched: {error}"))?;
        Ok(Watch {
            _watcher: watcher,
            shared,
        })
    }

    /// Whether anything changed since the last call (and forgets it): the index must be checked.
    pub(crate) fn take_changed(&self) -> bool {
        self.shared.changed.swap(false, Ordering::SeqCst)
    }

    /// Why the watcher's silence does not mean that nothing changed, if it does not.
    pub(crate) fn trouble(&self) -> Option<String> {
        lock(&self.shared.trouble).clone()
    }
}

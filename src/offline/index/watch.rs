//! Knowing when the vault folder changed without walking it: a file-system watcher (inotify, FSEvents,
//! ReadDirectoryChangesW through the `notify` crate) on the whole vault, whose events mark the index stale.
//!
//! The index is then checked against the folder (the walk of `obsidian/vault.rs`, reusing every unchanged note) only
//! after something changed, instead of after every pause of a second: at 100,000 notes that walk costs about half
//! a second, which an agent's every call paid. Reads (our own included) are not changes. While the watcher cannot
//! be trusted (it could not start, it reported an error, or the system dropped events: `Rescan`), the index falls
//! back to the old rule, checked when it is older than the refresh interval, and [`Watch::trouble`] says why.
//!
//! On Linux, inotify watches one folder at a time, and `notify`'s recursive mode lists the whole vault to find them
//! (a quarter of a second at 100,000 notes, beside our own walk). There the walk of the index adds the watches
//! instead ([`Watch::folder`]): each folder is watched just before it is listed, so a change is either in the
//! listing or seen by the watch; a folder that appears later is watched by the walk its creation causes. The config
//! folder (where the hidden-path rules live) is watched beside them; dot-folders Obsidian never lists (`.git`,
//! `.trash`) are not, so their churn costs nothing. Elsewhere (FSEvents, ReadDirectoryChangesW) one recursive watch
//! of the vault is native and cheap.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use notify::event::{EventKind, ModifyKind, RemoveKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use crate::lock::lock;
use crate::offline::plugin::vault::paths::FileIdentity;

/// A running watcher of one vault folder.
pub(crate) struct Watch {
    /// Its drop stops the watching thread.
    watcher: Mutex<RecommendedWatcher>,
    shared: Arc<Shared>,
    /// The config folder and the plugin's folders in it, whose files hold the hidden-path rules (Linux).
    config: Vec<PathBuf>,
}

#[derive(Default)]
struct Shared {
    /// Set by every change; taken by the next check of the index.
    changed: AtomicBool,
    /// Why the watcher's events cannot be relied on any more.
    trouble: Mutex<Option<String>>,
    /// The folders watched one by one (Linux), by identity (a folder made again is watched again); forgotten when
    /// a folder is removed (its inode may come back as another folder's) or renamed (`notify` drops its watches).
    folders: Mutex<HashSet<FileIdentity>>,
}

impl Watch {
    /// Starts watching `root` and everything below it (on Linux, the config folder `config_dir` only: the walks add
    /// the rest); why not, when the system refuses (too many folders for its watch limit, an unsupported file
    /// system).
    pub(crate) fn start(root: &Path, config_dir: &str) -> Result<Watch, String> {
        let shared = Arc::new(Shared::default());
        let seen = Arc::clone(&shared);
        let handler = move |event: notify::Result<notify::Event>| match event {
            Ok(event) if event.need_rescan() => {
                *lock(&seen.trouble) =
                    Some("the system dropped file-change events (too many changes at once)".into());
            }
            Ok(event) if matches!(event.kind, EventKind::Access(_)) => {}
            Ok(event) => {
                // `notify` drops the watches of a folder removed or renamed (and of all below it): the next walk
                // watches every folder again. A rename names the folder's new path last.
                let renamed_folder = matches!(event.kind, EventKind::Modify(ModifyKind::Name(_)))
                    && event.paths.last().is_some_and(|path| path.is_dir());
                if renamed_folder || matches!(event.kind, EventKind::Remove(RemoveKind::Folder)) {
                    lock(&seen.folders).clear();
                }
                seen.changed.store(true, Ordering::SeqCst);
            }
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
        let config_folder = root.join(config_dir);
        let config = if cfg!(target_os = "linux") {
            let plugins = config_folder.join("plugins");
            let plugin = plugins.join(obsmcp_installer::obsidian_files::plugin_data::PLUGIN_ID);
            vec![config_folder, plugins, plugin]
        } else {
            watcher
                .watch(root, RecursiveMode::Recursive)
                .map_err(|error| format!("the vault folder cannot be watched: {error}"))?;
            Vec::new()
        };
        let watch = Watch {
            watcher: Mutex::new(watcher),
            shared,
            config,
        };
        watch.config_folders();
        Ok(watch)
    }

    /// Watches a folder that a walk of the index is about to list (Linux; elsewhere the recursive watch has it).
    pub(crate) fn folder(&self, path: &Path, metadata: &std::fs::Metadata) {
        if !cfg!(target_os = "linux")
            || !lock(&self.shared.folders).insert(FileIdentity::of(metadata))
        {
            return;
        }
        if let Err(error) = lock(&self.watcher).watch(path, RecursiveMode::NonRecursive) {
            // A folder removed since it was listed changes nothing; any other refusal (the watch limit) does.
            if path.is_dir() {
                *lock(&self.shared.trouble) = Some(format!(
                    "the folder `{}` cannot be watched: {error}",
                    path.display()
                ));
            }
        }
    }

    /// Watches the folders of the hidden-path rules that exist and are not watched yet (Linux), before each walk:
    /// the plugin's folder may appear after the bridge started.
    pub(crate) fn config_folders(&self) {
        for folder in &self.config {
            if let Ok(metadata) = std::fs::metadata(folder)
                && metadata.is_dir()
            {
                self.folder(folder, &metadata);
            }
        }
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

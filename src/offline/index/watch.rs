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
//!
//! On Linux the watcher also keeps which files changed ([`Changes::Files`]), so that a check after a note was edited in
//! place stats that note alone instead of walking the vault (at 100,000 notes the walk took 0.3 s of the 0.5 s an
//! agent's next call paid after each edit). Anything else (a file created, removed or renamed, a folder event, more
//! than [`MOST_FILES`] files, an event of a kind `notify` cannot name) asks for a walk ([`Changes::Everything`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use notify::event::{EventKind, ModifyKind, RemoveKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use crate::lock::lock;
use crate::offline::plugin::vault::paths::FileIdentity;

/// A running watcher of one vault folder.
pub(crate) struct Watch {
    /// Its drop stops the watching thread.
    watcher: Mutex<RecommendedWatcher>,
    shared: Arc<Shared>,
    /// A folder of its own, outside the vault, where [`Watch::settle`] makes files (Linux; removed with the watch).
    marks: Option<PathBuf>,
    /// The number of the last mark made.
    made: AtomicU64,
    /// The config folder and the plugin's folders in it, whose files hold the hidden-path rules (Linux).
    config: Vec<PathBuf>,
}

/// What changed since the last check.
#[derive(Debug, PartialEq)]
pub(crate) enum Changes {
    /// Only these files' contents or metadata, each at the same path (Linux).
    Files(Vec<PathBuf>),
    /// Anything, as far as the watcher can tell: the folder must be walked.
    Everything,
}

/// How long [`Watch::settle`] waits for its mark (the watcher's thread handles one within microseconds when idle).
const SETTLE_WITHIN: Duration = Duration::from_millis(250);

/// The name of a mark before its number.
const MARK: &str = "mark-";

/// The most files whose changes are kept one by one; past it, a walk is cheaper than checking each.
const MOST_FILES: usize = 1000;

/// The files changed since the last check, or `None` once a change needs a walk.
type Changed = Option<HashSet<PathBuf>>;

#[derive(Default)]
struct Shared {
    /// Set by every change; taken by the next check of the index.
    changed: AtomicBool,
    /// Which files changed: filled before `changed` is set, taken after it is cleared.
    files: Mutex<Changed>,
    /// Why the watcher's events cannot be relied on any more.
    trouble: Mutex<Option<String>>,
    /// The folders watched one by one (Linux), by identity (a folder made again is watched again); forgotten when
    /// a folder is removed (its inode may come back as another folder's) or renamed (`notify` drops its watches).
    folders: Mutex<HashSet<FileIdentity>>,
    /// The number of the last mark the handler saw (`Watch::settle`), and its signal.
    seen: Mutex<u64>,
    seen_signal: Condvar,
}

impl Watch {
    /// Starts watching `root` and everything below it (on Linux, the config folder `config_dir` only: the walks add
    /// the rest); why not, when the system refuses (too many folders for its watch limit, an unsupported file
    /// system).
    pub(crate) fn start(root: &Path, config_dir: &str) -> Result<Watch, String> {
        let shared = Arc::new(Shared {
            files: Mutex::new(Some(HashSet::new())),
            ..Shared::default()
        });
        let seen = Arc::clone(&shared);
        let marks = marks_folder();
        let marked = marks.clone();
        let handler = move |event: notify::Result<notify::Event>| match event {
            Ok(event) if marked.as_ref().is_some_and(|marks| is_mark(&event, marks)) => {
                if let Some(number) = mark_number(&event) {
                    let mut last = lock(&seen.seen);
                    *last = (*last).max(number);
                    seen.seen_signal.notify_all();
                }
            }
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
                note_files(&mut lock(&seen.files), &event);
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
        let marks = marks.filter(|folder| {
            let watched = watcher.watch(folder, RecursiveMode::NonRecursive).is_ok();
            if !watched && let Err(error) = std::fs::remove_dir(folder) {
                tracing::debug!(folder = %folder.display(), %error, "an unwatched folder of marks stays");
            }
            watched
        });
        let watch = Watch {
            watcher: Mutex::new(watcher),
            shared,
            config,
            marks,
            made: AtomicU64::new(0),
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

    /// What changed since the last call (and forgets it), `None` when nothing did: the index must be checked.
    pub(crate) fn take_changes(&self) -> Option<Changes> {
        if !self.shared.changed.swap(false, Ordering::SeqCst) {
            return None;
        }
        // A change noted between the swap and here is taken now and checked again next time (`changed` is set
        // after its files): an empty list then, which costs nothing.
        let files = lock(&self.shared.files).replace(HashSet::new());
        Some(match files {
            Some(files) => Changes::Files(files.into_iter().collect()),
            None => Changes::Everything,
        })
    }

    /// Waits until the watcher has handled every event the system reported before this call, so that what it saw is
    /// all that changed until now (Linux: it makes a file in a folder of its own, and the system reports the events
    /// of one watcher in order). False when it cannot tell within [`SETTLE_WITHIN`]: then only a walk can.
    pub(crate) fn settle(&self) -> bool {
        let Some(marks) = &self.marks else {
            return false;
        };
        let number = self.made.fetch_add(1, Ordering::SeqCst) + 1;
        let mark = marks.join(format!("{MARK}{number}"));
        if std::fs::File::create(&mark).is_err() {
            return false;
        }
        let seen = lock(&self.shared.seen);
        let waited = self
            .shared
            .seen_signal
            .wait_timeout_while(seen, SETTLE_WITHIN, |seen| *seen < number);
        let settled = match waited {
            Ok((_, timeout)) => !timeout.timed_out(),
            Err(_) => false,
        };
        // Its removal is reported too, and ignored: its number was seen.
        if let Err(error) = std::fs::remove_file(&mark) {
            tracing::debug!(mark = %mark.display(), %error, "a mark of the file watcher stays");
        }
        settled
    }

    /// Why the watcher's silence does not mean that nothing changed, if it does not.
    pub(crate) fn trouble(&self) -> Option<String> {
        lock(&self.shared.trouble).clone()
    }

    /// The folder of its marks, if it has one (Linux).
    #[cfg(all(test, target_os = "linux"))]
    pub(crate) fn marks(&self) -> Option<&Path> {
        self.marks.as_deref()
    }
}

/// Adds what `event` changed to `files`: the paths of files modified in place (Linux); anything else, or too many
/// files, leaves `None`, which asks for a walk.
fn note_files(files: &mut Changed, event: &notify::Event) {
    let in_place = cfg!(target_os = "linux")
        && matches!(
            event.kind,
            EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Metadata(_))
        );
    match files {
        Some(known) if in_place && known.len() + event.paths.len() <= MOST_FILES => {
            known.extend(event.paths.iter().cloned());
        }
        _ => *files = None,
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(marks) = &self.marks
            && let Err(error) = std::fs::remove_dir_all(marks)
        {
            // Nothing is lost: a folder of empty files in the system's temporary folder.
            tracing::debug!(folder = %marks.display(), %error, "the file watcher's marks stay");
        }
    }
}

/// What the name of a folder of marks starts with, before the number of the process that made it.
#[cfg(target_os = "linux")]
const MARKS_FOLDER: &str = "obsmcp-watch-";

/// A new folder for a watch's marks in the system's temporary folder (Linux), readable by its owner only. Folders
/// that ended processes left (killed before they could remove theirs) are removed first.
#[cfg(target_os = "linux")]
fn marks_folder() -> Option<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;

    let temporary = std::env::temp_dir();
    static MADE: AtomicU64 = AtomicU64::new(0);
    if MADE.load(Ordering::SeqCst) == 0 {
        remove_marks_of_ended_processes(&temporary);
    }
    let number = MADE.fetch_add(1, Ordering::SeqCst);
    let folder = temporary.join(format!("{MARKS_FOLDER}{}-{number}", std::process::id()));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&folder)
        .ok()
        .map(|()| folder)
}

/// Elsewhere no mark is made (a call through Obsidian that may have written has the folder walked): that one watcher's
/// events come in the order they happened is inotify's rule, relied on only where inotify reports them.
#[cfg(not(target_os = "linux"))]
fn marks_folder() -> Option<PathBuf> {
    None
}

/// Removes the folders of marks whose process has ended (it has no `/proc/PID` any more).
#[cfg(target_os = "linux")]
fn remove_marks_of_ended_processes(temporary: &Path) {
    let Ok(entries) = std::fs::read_dir(temporary) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(process) = name
            .to_str()
            .and_then(|name| name.strip_prefix(MARKS_FOLDER))
            .and_then(|rest| rest.split('-').next())
            .filter(|process| process.parse::<u32>().is_ok())
        else {
            continue;
        };
        if !Path::new("/proc").join(process).exists()
            && let Err(error) = std::fs::remove_dir_all(entry.path())
        {
            tracing::debug!(folder = %entry.path().display(), %error, "marks of an ended watcher stay");
        }
    }
}

/// Whether an event is about a watch's own marks.
fn is_mark(event: &notify::Event, marks: &Path) -> bool {
    event.paths.iter().any(|path| path.parent() == Some(marks))
}

/// The number of the mark an event says was made.
fn mark_number(event: &notify::Event) -> Option<u64> {
    if !matches!(event.kind, EventKind::Create(_)) {
        return None;
    }
    let name = event.paths.first()?.file_name()?.to_str()?;
    name.strip_prefix(MARK)?.parse().ok()
}

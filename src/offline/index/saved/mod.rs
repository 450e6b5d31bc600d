//! The offline index saved between bridge processes: every client session starts a bridge of its own, and without
//! this each one read and parsed the whole vault again (five seconds of CPU at 100,000 notes).
//!
//! Where: `<obsmcp state folder>/index/<16 hex digits>.bin` (`~/.local/state/obsmcp/` on Linux, see
//! `Environment::state_home`), named by a hash of the vault's real path and config folder (the installer's
//! `plan::saved_index`, which uninstall uses to remove it); never inside the vault.
//! The file is written atomically and readable by its owner only (its folder too, whose mode every save sets again; a
//! folder that is a symbolic link is neither written through nor read). It ends with a CRC-32 of what comes before it,
//! checked on load: a file changed since the save, even by one byte and at the same length, is not trusted. It holds
//! the whole snapshot (the
//! listing, what the index keeps of each visible note: frontmatter, tags, link targets, tasks, no text; the link
//! maps and orders) and the word index, in `postcard`'s compact encoding.
//!
//! Trust: a saved note is used only for a file whose modification time and size are what they were when it was
//! read (the rule Obsidian's own metadata cache uses); every other note is read again. When the folder lists the
//! same files as saved, the saved link maps are kept and only the changed notes' links resolved again; otherwise
//! they are computed afresh. A file of another format, of another vault, truncated or unreadable is ignored (and replaced
//! at the next save): the index is then built from the folder as if there were none.
//!
//! When: loaded by the first check of the folder (beside the bridge's start when the file exists and the first
//! attempt to reach Obsidian failed). Saved on a thread of its own after a check that changed the index (the answer
//! never waits for it), at most once every [`SAVE_EVERY`] while changes keep coming; a bridge that ends lets a save
//! under way finish and writes the one still waiting ([`SavedIndex::finish`]), so a short client session's build is
//! kept for the next.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use obsmcp_installer::plan::saved_index;
use serde::{Deserialize, Serialize};

use crate::lock::{lock, read};
use crate::offline::index::words::Words;
use crate::offline::obsidian::metadata::Snapshot;

mod format;

/// Bumped whenever what is saved changes meaning.
const FORMAT: u32 = 8;

/// The bytes of the checksum that ends the file.
const CHECKSUM_BYTES: u64 = 4;

/// The shortest time between two saves.
pub(crate) const SAVE_EVERY: Duration = Duration::from_secs(20);

/// A saved file larger than this is not read (a vault of 100,000 generated notes saves 43 MB).
const LARGEST: u64 = 2 << 30;

#[derive(Serialize)]
struct Saving<'a> {
    format: u32,
    version: &'a str,
    vault: &'a str,
    snapshot: &'a Snapshot,
    words: &'a Words,
}

/// What a saved file starts with: whether the rest is this bridge's to read is judged on it alone.
#[derive(Deserialize)]
struct Header {
    format: u32,
    version: String,
    vault: String,
}

/// What follows the [`Header`].
#[derive(Deserialize)]
struct Body {
    snapshot: Snapshot,
    words: Words,
}

/// Where one vault's index is saved, and the saving thread's state.
pub(crate) struct SavedIndex {
    file: PathBuf,
    /// What the file is for: the vault's real path and config folder.
    vault: String,
    saving: Arc<AtomicBool>,
    /// True while a file is being written (`finish` waits for it).
    writing: Arc<AtomicBool>,
    pending: Arc<Mutex<Option<Arc<Snapshot>>>>,
}

impl SavedIndex {
    /// The saved index of this vault in `folder` (the `index` folder of obsmcp's state folder).
    pub(crate) fn new(folder: &Path, real_root: &Path, config_dir: &str) -> SavedIndex {
        SavedIndex {
            file: saved_index::file(folder, real_root, config_dir),
            vault: saved_index::key(real_root, config_dir),
            saving: Arc::default(),
            writing: Arc::default(),
            pending: Arc::default(),
        }
    }

    /// The default folder: `index` in obsmcp's state folder.
    pub(crate) fn default_folder() -> Option<PathBuf> {
        Some(saved_index::folder(
            &obsmcp_installer::environment::Environment::from_process()?.state_home(),
        ))
    }

    /// The folder the file is in.
    pub(crate) fn folder(&self) -> &Path {
        self.file.parent().unwrap_or(Path::new("."))
    }

    /// Whether a file is there (usable or not).
    pub(crate) fn exists(&self) -> bool {
        self.file.is_file()
    }

    /// The saved snapshot and its word index, when a usable file is there.
    pub(crate) fn load(&self) -> Option<(Snapshot, Words)> {
        if let Err(error) = private_folder(&self.file, false) {
            tracing::warn!(file = %self.file.display(), %error, "saved index not read");
            return None;
        }
        let file = std::fs::File::open(&self.file).ok()?;
        let size = file.metadata().ok()?.len();
        if size > LARGEST {
            tracing::warn!(file = %self.file.display(), size, "saved index too large, not read");
            return None;
        }
        let Some(payload) = size.checked_sub(CHECKSUM_BYTES) else {
            tracing::warn!(file = %self.file.display(), "saved index truncated, rebuilt");
            return None;
        };
        let mut reader = format::Checked::new(file);
        let ours = |header: &Header| {
            header.format == FORMAT
                && header.version == env!("CARGO_PKG_VERSION")
                && header.vault == self.vault
        };
        let decoded = format::decode_after::<Header, Body>(&mut reader, payload, ours);
        // The checksum covers the whole file: checked only when the whole was read.
        let verified = decoded.and_then(|body| match body {
            Some(body) => reader.verify().map(|()| Some(body)),
            None => Ok(None),
        });
        let loaded = match verified {
            Ok(Some((_, body))) => body,
            Ok(None) => {
                tracing::info!(file = %self.file.display(), "saved index written by another version, rebuilt");
                return None;
            }
            Err(error) => {
                tracing::warn!(file = %self.file.display(), %error, "saved index unreadable, rebuilt");
                return None;
            }
        };
        if !loaded.words.is_sound() {
            tracing::warn!(file = %self.file.display(), "saved index's word index does not hold together, rebuilt");
            return None;
        }
        Some((loaded.snapshot.with_lookups(), loaded.words))
    }

    /// Saves `snapshot` and `words` on a thread of its own, now or, when a save ran less than [`SAVE_EVERY`] ago,
    /// once that time is up (only the newest snapshot by then).
    pub(crate) fn save_later(&self, snapshot: Arc<Snapshot>, words: Arc<RwLock<Words>>) {
        *lock(&self.pending) = Some(snapshot);
        if self.saving.swap(true, Ordering::SeqCst) {
            return;
        }
        // Set before the thread starts, so that `finish` never misses the first write.
        self.writing.store(true, Ordering::SeqCst);
        let (file, vault) = (self.file.clone(), self.vault.clone());
        let (saving, pending) = (Arc::clone(&self.saving), Arc::clone(&self.pending));
        let writing = Arc::clone(&self.writing);
        let spawned = std::thread::Builder::new()
            .name("obsmcp-index-save".into())
            .spawn(move || {
                loop {
                    let Some(snapshot) = lock(&pending).take() else {
                        writing.store(false, Ordering::SeqCst);
                        saving.store(false, Ordering::SeqCst);
                        // A snapshot handed over between the take and the store above would wait for the next
                        // change: look once more.
                        if lock(&pending).is_some() && !saving.swap(true, Ordering::SeqCst) {
                            continue;
                        }
                        return;
                    };
                    writing.store(true, Ordering::SeqCst);
                    if let Err(error) = write(&file, &vault, &snapshot, &read(&words)) {
                        tracing::warn!(file = %file.display(), %error, "offline index not saved");
                    }
                    writing.store(false, Ordering::SeqCst);
                    drop(snapshot);
                    std::thread::sleep(SAVE_EVERY);
                }
            });
        if spawned.is_err() {
            self.writing.store(false, Ordering::SeqCst);
            self.saving.store(false, Ordering::SeqCst);
        }
    }

    /// Removes the saved file now (it holds notes gone from the vault or hidden since); the next save writes it again
    /// without them.
    pub(crate) fn forget(&self) {
        match std::fs::remove_file(&self.file) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                tracing::warn!(file = %self.file.display(), %error, "saved index not removed");
            }
        }
    }

    /// Saves at once, on this thread (see `finish`).
    pub(crate) fn save_now(&self, snapshot: &Snapshot, words: &Words) {
        if let Err(error) = write(&self.file, &self.vault, snapshot, words) {
            tracing::warn!(file = %self.file.display(), %error, "offline index not saved");
        }
    }

    /// Before the process ends: waits, at most `within`, for a save under way, then writes the snapshot still
    /// waiting for its turn, if any. False when a save was still running at the end of `within` (a save cut short
    /// leaves the previous file: every save writes beside it and renames).
    pub(crate) fn finish(&self, words: &RwLock<Words>, within: Duration) -> bool {
        let started = std::time::Instant::now();
        while self.writing.load(Ordering::SeqCst) {
            if started.elapsed() >= within {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        if let Some(snapshot) = lock(&self.pending).take() {
            self.save_now(&snapshot, &read(words));
        }
        true
    }
}

fn write(file: &Path, vault: &str, snapshot: &Snapshot, words: &Words) -> Result<(), String> {
    let saving = Saving {
        format: FORMAT,
        version: env!("CARGO_PKG_VERSION"),
        vault,
        snapshot,
        words,
    };
    // Encoded straight into the file: at 100,000 notes the encoding is 75 MB that need not be held at once.
    write_private(file, |out| {
        let mut checked = format::Checked::new(out);
        postcard::to_io(&saving, &mut checked).map_err(std::io::Error::other)?;
        checked.finish()
    })
    .map_err(|error| error.to_string())
}

/// Replaces `file` with what `fill` writes, atomically (a temporary file beside it, then a rename), readable by its
/// owner only, its folder created private.
pub(crate) fn write_private(
    file: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::io::Write;
    let folder = private_folder(file, true)?;
    let temporary = folder.join(format!(
        ".{}.{}.tmp",
        file.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&temporary).and_then(|out| {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
        fill(&mut out)?;
        out.flush()?;
        out.get_ref().sync_all()
    });
    match written.and_then(|()| replace(&temporary, file)) {
        Ok(()) => Ok(()),
        Err(error) => {
            let _ = std::fs::remove_file(&temporary);
            Err(error)
        }
    }
}

/// Renames `temporary` over `file`. Windows refuses to replace a file another process holds open unless it can
/// rename with POSIX semantics (NTFS since Windows 10 1607; not FAT, not Wine): a bridge starting beside this one
/// reads the saved file for a fraction of a second, so a refused rename is tried again for up to two seconds before
/// the save gives up.
fn replace(temporary: &Path, file: &Path) -> std::io::Result<()> {
    let started = std::time::Instant::now();
    loop {
        match std::fs::rename(temporary, file) {
            Err(error)
                if cfg!(windows)
                    && error.kind() == std::io::ErrorKind::PermissionDenied
                    && started.elapsed() < RENAME_RETRIED_FOR =>
            {
                std::thread::sleep(Duration::from_millis(25));
            }
            done => return done,
        }
    }
}

/// How long a rename Windows refused is tried again (see [`replace`]).
const RENAME_RETRIED_FOR: Duration = Duration::from_secs(2);

/// The folder of `file`, made private (created when `create`): refused when it is a symbolic link (a save would
/// land wherever it points) or not a folder; its mode set to the owner's only, whatever it was.
fn private_folder(file: &Path, create: bool) -> std::io::Result<&Path> {
    let folder = file.parent().unwrap_or(Path::new("."));
    if create {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(folder)?;
    }
    let metadata = std::fs::symlink_metadata(folder)?;
    if metadata.file_type().is_symlink() || !metadata.is_dir() {
        return Err(std::io::Error::other(format!(
            "{} is a symbolic link or not a folder; move it aside so that obsmcp can keep its own",
            folder.display()
        )));
    }
    #[cfg(unix)]
    if create {
        use std::os::unix::fs::PermissionsExt;
        if metadata.permissions().mode() & 0o777 != 0o700 {
            std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700))?;
        }
    }
    Ok(folder)
}

#[cfg(test)]
mod tests;

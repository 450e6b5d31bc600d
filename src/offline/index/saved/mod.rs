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

#[derive(Deserialize)]
struct Loaded {
    format: u32,
    version: String,
    vault: String,
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
        let decoded: Result<Loaded, String> = format::decode(&mut reader, payload);
        let loaded = match decoded.and_then(|loaded| reader.verify().map(|()| loaded)) {
            Ok(loaded) => loaded,
            Err(error) => {
                tracing::warn!(file = %self.file.display(), %error, "saved index unreadable, rebuilt");
                return None;
            }
        };
        if loaded.format != FORMAT
            || loaded.version != env!("CARGO_PKG_VERSION")
            || loaded.vault != self.vault
        {
            return None;
        }
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
    match written.and_then(|()| std::fs::rename(&temporary, file)) {
        Ok(()) => Ok(()),
        Err(error) => {
            let _ = std::fs::remove_file(&temporary);
            Err(error)
        }
    }
}

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
mod tests {
    use serde_json::{Value, json};

    use crate::lock::lock;
    use crate::offline::OfflineVault;

    fn write(dir: &std::path::Path, path: &str, text: &str) {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }

    /// A bridge's vault: saving to `state`, its answers compared as the agent sees them.
    fn session(vault: &std::path::Path, state: &std::path::Path) -> OfflineVault {
        OfflineVault::open(vault, None)
            .unwrap()
            .with_saved_index(state)
    }

    fn answer(offline: &OfflineVault, tool: &str, arguments: Value) -> String {
        offline.call_tool(tool, arguments).unwrap()["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn notes_read(offline: &OfflineVault) -> usize {
        lock(&offline.state).snapshot.as_ref().unwrap().notes_read
    }

    /// The answers to every one of [`calls`].
    fn answers(offline: &OfflineVault) -> Vec<String> {
        calls()
            .into_iter()
            .map(|(tool, arguments)| answer(offline, tool, arguments))
            .collect()
    }

    fn calls() -> Vec<(&'static str, Value)> {
        vec![
            ("search", json!({"query": "alpha"})),
            ("search", json!({"query": "changed words"})),
            ("backlinks", json!({"path": "b"})),
            ("tags", json!({})),
            ("tasks", json!({"status": "all"})),
            ("properties", json!({})),
            ("unresolved_links", json!({})),
        ]
    }

    /// A saved index whose word index was dropped under a tighter budget is built again under a roomier one, from the
    /// listing the walk beside its decoding found (the saved one, when the walk found the folder as saved).
    #[test]
    fn a_saved_index_built_under_another_budget_is_built_again_from_the_folder() {
        for change in ["none", "a note added"] {
            let vault = tempfile::tempdir().unwrap();
            let state = tempfile::tempdir().unwrap();
            for i in 0..30 {
                write(
                    vault.path(),
                    &format!("n{i}.md"),
                    &format!("alpha {i} [[b]]\n"),
                );
            }
            write(vault.path(), "b.md", "# B\nbeta");
            let tight = session(vault.path(), state.path()).with_memory_budget_mb(0);
            answers(&tight);
            let file = saved_file(&tight);
            drop(tight);
            assert!(file.exists(), "saved under the tight budget");
            if change != "none" {
                write(vault.path(), "new.md", "alpha again [[b]]");
            }
            let roomy = session(vault.path(), state.path());
            let after = answers(&roomy);
            assert_eq!(
                notes_read(&roomy),
                31 + usize::from(change != "none"),
                "{change}"
            );
            let fresh = OfflineVault::open(vault.path(), None).unwrap();
            assert_eq!(after, answers(&fresh), "{change}");
        }
    }

    #[test]
    fn the_next_session_reads_only_what_changed_and_answers_the_same_as_a_fresh_build() {
        let vault = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        for i in 0..30 {
            write(
                vault.path(),
                &format!("n{i}.md"),
                &format!(
                    "---\ntags: [t{}]\n---\nalpha {i} [[b]] [[gone]]\n- [ ] task {i} 📅 2026-12-0{}\n",
                    i % 3,
                    i % 9 + 1
                ),
            );
        }
        write(vault.path(), "b.md", "# B\nbeta");
        let first = session(vault.path(), state.path());
        let before = answers(&first);
        assert_eq!(notes_read(&first), 31);
        drop(first);

        let unchanged = session(vault.path(), state.path());
        let again = answers(&unchanged);
        assert_eq!(
            notes_read(&unchanged),
            0,
            "every note came from the saved index"
        );
        assert_eq!(again, before);
        drop(unchanged);

        // Between sessions: one note edited (its size changes), one deleted, one added.
        write(
            vault.path(),
            "n1.md",
            "changed words, no link, longer than it was",
        );
        std::fs::remove_file(vault.path().join("n2.md")).unwrap();
        write(vault.path(), "new.md", "alpha again [[b]]");
        let edited = session(vault.path(), state.path());
        let after = answers(&edited);
        assert_eq!(notes_read(&edited), 2, "the edited note and the new one");
        let fresh = OfflineVault::open(vault.path(), None).unwrap();
        let expected = answers(&fresh);
        assert_eq!(
            after, expected,
            "the same answers as an index built from nothing"
        );
        assert!(after[1].contains(r#""path":"n1.md""#), "{}", after[1]);
    }

    #[test]
    fn a_damaged_or_foreign_file_is_ignored_and_replaced() {
        let vault = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        write(vault.path(), "a.md", "alpha");
        let offline = session(vault.path(), state.path());
        let file = offline.saved.as_ref().unwrap().file.clone();
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let damaged = b"\x01\x02 not an index".as_slice();
        std::fs::write(&file, damaged).unwrap();
        assert!(
            answer(&offline, "search", json!({"query": "alpha"})).contains(r#""total_matches":1"#)
        );
        drop(offline);
        // Saved from the small build in the background: wait for the file to be a real index again.
        let started = std::time::Instant::now();
        while std::fs::read(&file).unwrap() == damaged
            && started.elapsed() < std::time::Duration::from_secs(5)
        {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let next = session(vault.path(), state.path());
        assert!(
            answer(&next, "search", json!({"query": "alpha"})).contains(r#""total_matches":1"#)
        );
        assert_eq!(notes_read(&next), 0, "the replaced file was used");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "readable by its owner only");
        }
        // Another vault, another file.
        let other = tempfile::tempdir().unwrap();
        write(other.path(), "a.md", "alpha");
        let elsewhere = session(other.path(), state.path());
        assert_ne!(elsewhere.saved.as_ref().unwrap().file, file);
        assert_eq!(
            answer(&elsewhere, "search", json!({"query": "alpha"})),
            answer(&next, "search", json!({"query": "alpha"}))
        );
    }

    use std::time::Duration;

    fn saved_file(offline: &OfflineVault) -> std::path::PathBuf {
        offline.saved.as_ref().unwrap().file.clone()
    }

    /// Waits up to five seconds for `done`.
    fn wait_for(done: impl Fn() -> bool) -> bool {
        let started = std::time::Instant::now();
        while !done() {
            if started.elapsed() > std::time::Duration::from_secs(5) {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        true
    }

    #[test]
    fn a_same_length_edit_inside_the_saved_file_is_not_trusted() {
        let vault = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        write(vault.path(), "a.md", "---\ntags: [alphatag]\n---\nx");
        write(vault.path(), "b.md", "beta");
        let first = session(vault.path(), state.path());
        let tags = answer(&first, "tags", json!({}));
        let file = saved_file(&first);
        // As a bridge that ends: the save under way finishes first.
        first.finish_saving(Duration::from_secs(5));
        drop(first);
        let mut bytes = std::fs::read(&file).unwrap();
        let at = bytes
            .windows(8)
            .position(|window| window == b"alphatag")
            .expect("the tag is saved");
        bytes[at..at + 8].copy_from_slice(b"omegatag");
        std::fs::write(&file, &bytes).unwrap();
        let next = session(vault.path(), state.path());
        assert_eq!(
            answer(&next, "tags", json!({})),
            tags,
            "the edit is not believed"
        );
        assert_eq!(
            notes_read(&next),
            2,
            "the index was built from the notes again"
        );
    }

    #[test]
    fn a_note_hidden_after_a_save_leaves_the_saved_file_at_once() {
        let vault = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        write(vault.path(), "Private/secret.md", "zebrafinch");
        write(vault.path(), "a.md", "alpha");
        let offline = session(vault.path(), state.path()).with_refresh_interval(Duration::ZERO);
        answer(&offline, "search", json!({"query": "alpha"}));
        let file = saved_file(&offline);
        let holds_secret = || {
            std::fs::read(&file)
                .map(|bytes| {
                    bytes
                        .windows(10)
                        .any(|window| window.eq_ignore_ascii_case(b"zebrafinch"))
                })
                .unwrap_or(false)
        };
        assert!(wait_for(holds_secret), "the first save holds the note");
        write(
            vault.path(),
            ".obsidian/plugins/obsmcp/data.json",
            r#"{"hiddenPaths": ["Private"]}"#,
        );
        let found = answer(&offline, "search", json!({"query": "zebrafinch"}));
        assert!(found.contains(r#""total_matches":0"#), "{found}");
        assert!(
            !holds_secret(),
            "the hidden note's words left the saved file with the check"
        );
        drop(offline);
        assert!(!holds_secret(), "and the next save has none of them");
    }

    #[cfg(unix)]
    #[test]
    fn the_index_folder_is_kept_private_and_never_written_through_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let vault = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        write(vault.path(), "a.md", "alpha");
        // A folder someone opened to everyone is made the owner's again by the next save.
        let folder = state.path().join("index");
        std::fs::create_dir(&folder).unwrap();
        let state = folder.clone();
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o777)).unwrap();
        let offline = session(vault.path(), &state);
        answer(&offline, "search", json!({"query": "alpha"}));
        // Saved in the background: waited for, so the checks below see what the save did.
        offline.finish_saving(std::time::Duration::from_secs(10));
        drop(offline);
        let mode = std::fs::metadata(&folder).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        // A folder that is a link to elsewhere is neither written through nor read.
        std::fs::remove_dir_all(&folder).unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), &folder).unwrap();
        let offline = session(vault.path(), &state);
        answer(&offline, "search", json!({"query": "alpha"}));
        offline.finish_saving(std::time::Duration::from_secs(10));
        drop(offline);
        assert_eq!(
            std::fs::read_dir(elsewhere.path()).unwrap().count(),
            0,
            "nothing written through the link"
        );
    }
}

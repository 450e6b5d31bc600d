//! The embedding index saved between bridge processes, beside the saved index (`<key>.vectors` next to `<key>.bin`
//! in the state folder's `index`, named by `plan::saved_index`): the store, the vault it is for and the model that
//! made it. A store made by another model, another obsmcp version or for another vault is not used; notes changed
//! since the save are embedded again at the first call, the rest are not.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use obsmcp_installer::plan::saved_index;
use serde::{Deserialize, Serialize};

use super::Semantic;
use super::vectors::Vectors;
use crate::lock::lock;
use crate::offline::index::saved::{SAVE_EVERY, write_private};

/// Bumped whenever what is saved changes meaning.
const FORMAT: u32 = 1;

#[derive(Serialize)]
struct Saving<'a> {
    format: u32,
    version: &'a str,
    vault: &'a str,
    model: &'a str,
    vectors: &'a Vectors,
}

#[derive(Deserialize)]
struct Loaded {
    format: u32,
    version: String,
    vault: String,
    model: String,
    vectors: Vectors,
}

/// Where one vault's embedding index is saved, and the saving thread's state.
pub(crate) struct SavedVectors {
    file: PathBuf,
    vault: String,
    model: String,
    saving: Arc<AtomicBool>,
    /// True while a file is being written (`finish` waits for it).
    writing: Arc<AtomicBool>,
    pending: Arc<Mutex<Option<Arc<Semantic>>>>,
}

impl SavedVectors {
    /// The saved store of this vault in `folder`, for the model with this fingerprint.
    pub(crate) fn new(folder: &Path, real_root: &Path, config_dir: &str, model: &str) -> Self {
        Self {
            file: saved_index::vectors_file(folder, real_root, config_dir),
            vault: saved_index::key(real_root, config_dir),
            model: model.to_owned(),
            saving: Arc::default(),
            writing: Arc::default(),
            pending: Arc::default(),
        }
    }

    /// The saved store, when a usable one is there.
    pub(crate) fn load(&self) -> Option<Vectors> {
        let bytes = std::fs::read(&self.file).ok()?;
        let (payload, checksum) = bytes.split_at_checked(bytes.len().checked_sub(4)?)?;
        if crc32fast::hash(payload).to_le_bytes() != checksum {
            tracing::warn!(file = %self.file.display(), "saved embedding index damaged, built again");
            return None;
        }
        let loaded: Loaded = match postcard::from_bytes(payload) {
            Ok(loaded) => loaded,
            Err(error) => {
                tracing::warn!(file = %self.file.display(), %error, "saved embedding index unreadable, built again");
                return None;
            }
        };
        let usable = loaded.format == FORMAT
            && loaded.version == env!("CARGO_PKG_VERSION")
            && loaded.vault == self.vault;
        if usable && loaded.model != self.model {
            tracing::info!(
                "the model changed since the embedding index was saved: it is built again"
            );
        }
        (usable && loaded.model == self.model).then_some(loaded.vectors)
    }

    /// Saves the store on a thread of its own, now or once [`SAVE_EVERY`] has passed since the last save.
    pub(crate) fn save_later(&self, semantic: Arc<Semantic>) {
        *lock(&self.pending) = Some(semantic);
        if self.saving.swap(true, Ordering::SeqCst) {
            return;
        }
        let (file, vault, model) = (self.file.clone(), self.vault.clone(), self.model.clone());
        let (saving, pending) = (Arc::clone(&self.saving), Arc::clone(&self.pending));
        let writing = Arc::clone(&self.writing);
        // Set before the thread starts, so that `finish` never misses the first write.
        self.writing.store(true, Ordering::SeqCst);
        let spawned = std::thread::Builder::new()
            .name("obsmcp-vectors-save".into())
            .spawn(move || {
                loop {
                    let Some(semantic) = lock(&pending).take() else {
                        writing.store(false, Ordering::SeqCst);
                        saving.store(false, Ordering::SeqCst);
                        if lock(&pending).is_some() && !saving.swap(true, Ordering::SeqCst) {
                            continue;
                        }
                        return;
                    };
                    writing.store(true, Ordering::SeqCst);
                    if let Err(error) = write(&file, &vault, &model, &semantic) {
                        tracing::warn!(file = %file.display(), %error, "embedding index not saved");
                    }
                    writing.store(false, Ordering::SeqCst);
                    drop(semantic);
                    std::thread::sleep(SAVE_EVERY);
                }
            });
        if spawned.is_err() {
            self.writing.store(false, Ordering::SeqCst);
            self.saving.store(false, Ordering::SeqCst);
        }
    }

    /// Before the process ends: waits, at most `within`, for a save under way, then writes the store still waiting
    /// for its turn, if any. False when a save was still running at the end of `within` (the previous file stays).
    pub(crate) fn finish(&self, within: std::time::Duration) -> bool {
        let started = std::time::Instant::now();
        while self.writing.load(Ordering::SeqCst) {
            if started.elapsed() >= within {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        if let Some(semantic) = lock(&self.pending).take()
            && let Err(error) = write(&self.file, &self.vault, &self.model, &semantic)
        {
            tracing::warn!(file = %self.file.display(), %error, "embedding index not saved");
        }
        true
    }
}

fn write(file: &Path, vault: &str, model: &str, semantic: &Semantic) -> std::io::Result<()> {
    let payload = {
        let vectors = semantic.vectors();
        postcard::to_stdvec(&Saving {
            format: FORMAT,
            version: env!("CARGO_PKG_VERSION"),
            vault,
            model,
            vectors: &vectors,
        })
        .map_err(std::io::Error::other)?
    };
    write_private(file, |out| {
        use std::io::Write;
        out.write_all(&payload)?;
        out.write_all(&crc32fast::hash(&payload).to_le_bytes())
    })
}

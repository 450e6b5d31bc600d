//! The embedding index saved between bridge processes, beside the saved index (`<key>.vectors` next to `<key>.bin`
//! in the state folder's `index`, named by `plan::saved_index`): the store, the vault it is for and the model that
//! made it. A store made by another model, another obsmcp version or for another vault is not used; notes changed
//! since the save are embedded again at the first call, the rest are not.
//!
//! The file is the store's arrays as they are in memory (little-endian), streamed out and in through a CRC-32, so
//! that neither a save nor a load holds a second copy: a magic, the format, the version, the vault and the model,
//! the counts, then the vectors, scales, lines and owners of every passage, the note slots, and the checksum.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use obsmcp_installer::plan::saved_index;

use super::Semantic;
use super::vectors::Vectors;
use crate::lock::lock;
use crate::offline::index::saved::{SAVE_EVERY, write_private};

/// Bumped whenever what is saved changes meaning.
const FORMAT: u32 = 1;

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
        let file = std::fs::File::open(&self.file).ok()?;
        let length = file.metadata().ok()?.len();
        let mut reader = Checked::new(std::io::BufReader::with_capacity(1 << 18, file));
        match read_store(&mut reader, length, &self.vault, &self.model) {
            Ok(Some(vectors)) => Some(vectors),
            Ok(None) => None,
            Err(error) => {
                tracing::warn!(file = %self.file.display(), %error, "saved embedding index unreadable, built again");
                None
            }
        }
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
    let vectors = semantic.vectors();
    write_private(file, |out| {
        let mut out = Checked::new(out);
        write_store(&mut out, vault, model, &vectors)?;
        let checksum = out.hasher.clone().finalize();
        out.inner.write_all(&checksum.to_le_bytes())
    })
}

/// The file's first bytes.
const MAGIC: &[u8; 8] = b"OBSMCPV\x01";

/// A reader or writer that keeps a CRC-32 of the bytes through it.
struct Checked<T> {
    inner: T,
    hasher: crc32fast::Hasher,
}

impl<T> Checked<T> {
    fn new(inner: T) -> Self {
        Self {
            inner,
            hasher: crc32fast::Hasher::new(),
        }
    }
}

impl<T: Write> Write for Checked<T> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.hasher.update(&bytes[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<T: Read> Read for Checked<T> {
    fn read(&mut self, bytes: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(bytes)?;
        self.hasher.update(&bytes[..read]);
        Ok(read)
    }
}

fn write_text(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    out.write_all(&(text.len() as u32).to_le_bytes())?;
    out.write_all(text.as_bytes())
}

fn write_store(
    out: &mut impl Write,
    vault: &str,
    model: &str,
    vectors: &Vectors,
) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    out.write_all(&FORMAT.to_le_bytes())?;
    for text in [env!("CARGO_PKG_VERSION"), vault, model] {
        write_text(out, text)?;
    }
    for count in [vectors.dims, vectors.lines.len(), vectors.slots.len()] {
        out.write_all(&(count as u64).to_le_bytes())?;
    }
    // In pieces: a copy of the whole would double the store's memory while it is saved.
    let mut bytes = Vec::with_capacity(1 << 16);
    for piece in vectors.values.chunks(1 << 16) {
        bytes.clear();
        bytes.extend(piece.iter().map(|&value| value as u8));
        out.write_all(&bytes)?;
    }
    for scale in &vectors.scales {
        out.write_all(&scale.to_le_bytes())?;
    }
    for [start, end] in &vectors.lines {
        out.write_all(&start.to_le_bytes())?;
        out.write_all(&end.to_le_bytes())?;
    }
    for owner in &vectors.owner {
        out.write_all(&owner.to_le_bytes())?;
    }
    for slot in &vectors.slots {
        write_text(out, &slot.path)?;
        out.write_all(&slot.mtime.to_le_bytes())?;
        out.write_all(&slot.size.to_le_bytes())?;
        let (first, count) = slot.range();
        out.write_all(&first.to_le_bytes())?;
        out.write_all(&count.to_le_bytes())?;
    }
    Ok(())
}

fn read_array<const N: usize>(input: &mut impl Read) -> std::io::Result<[u8; N]> {
    let mut bytes = [0u8; N];
    input.read_exact(&mut bytes)?;
    Ok(bytes)
}

fn read_text(input: &mut impl Read, limit: u64) -> Result<String, String> {
    let length = u64::from(u32::from_le_bytes(
        read_array(input).map_err(|error| error.to_string())?,
    ));
    if length > limit {
        return Err("a text longer than the file".into());
    }
    let mut bytes = vec![0u8; length as usize];
    input
        .read_exact(&mut bytes)
        .map_err(|error| error.to_string())?;
    String::from_utf8(bytes).map_err(|error| error.to_string())
}

/// Reads a store written by [`write_store`]: `None` when it is for another version, vault or model.
fn read_store(
    input: &mut Checked<impl Read>,
    length: u64,
    vault: &str,
    model: &str,
) -> Result<Option<Vectors>, String> {
    let io = |error: std::io::Error| format!("truncated or unreadable: {error}");
    if &read_array::<8>(input).map_err(io)? != MAGIC {
        return Err("not a saved embedding index".into());
    }
    let format = u32::from_le_bytes(read_array(input).map_err(io)?);
    let version = read_text(input, length)?;
    let saved_vault = read_text(input, length)?;
    let saved_model = read_text(input, length)?;
    if format != FORMAT || version != env!("CARGO_PKG_VERSION") || saved_vault != vault {
        return Ok(None);
    }
    if saved_model != model {
        tracing::info!("the model changed since the embedding index was saved: it is built again");
        return Ok(None);
    }
    let mut count = || -> Result<usize, String> {
        let value = u64::from_le_bytes(read_array(input).map_err(io)?);
        usize::try_from(value)
            .ok()
            .filter(|&value| (value as u64) <= length)
            .ok_or_else(|| "a count larger than the file".into())
    };
    let (dims, passages, slots) = (count()?, count()?, count()?);
    if (passages as u64).saturating_mul(dims as u64 + 16) > length {
        return Err("counts larger than the file".into());
    }
    let mut vectors = Vectors::new(dims);
    let mut bytes = vec![0u8; passages * dims];
    input.read_exact(&mut bytes).map_err(io)?;
    vectors.values = bytes.into_iter().map(|byte| byte as i8).collect();
    let mut words = vec![0u8; passages * 4];
    input.read_exact(&mut words).map_err(io)?;
    vectors.scales = words
        .chunks_exact(4)
        .map(|raw| f32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]))
        .collect();
    let mut pairs = vec![0u8; passages * 8];
    input.read_exact(&mut pairs).map_err(io)?;
    vectors.lines = pairs
        .chunks_exact(8)
        .map(|raw| {
            [
                u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]),
                u32::from_le_bytes([raw[4], raw[5], raw[6], raw[7]]),
            ]
        })
        .collect();
    input.read_exact(&mut words).map_err(io)?;
    vectors.owner = words
        .chunks_exact(4)
        .map(|raw| u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]))
        .collect();
    for _ in 0..slots {
        let path = read_text(input, length)?;
        let mtime = i64::from_le_bytes(read_array(input).map_err(io)?);
        let size = u64::from_le_bytes(read_array(input).map_err(io)?);
        let first = u32::from_le_bytes(read_array(input).map_err(io)?);
        let count = u32::from_le_bytes(read_array(input).map_err(io)?);
        vectors.restore_slot(path, mtime, size, first, count)?;
    }
    let computed = input.hasher.clone().finalize();
    let stored = u32::from_le_bytes(read_array(&mut input.inner).map_err(io)?);
    if computed != stored {
        return Err("its checksum does not match (changed after the save)".into());
    }
    vectors.check()?;
    Ok(Some(vectors))
}

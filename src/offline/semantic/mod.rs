//! Search by meaning (no plugin twin: Obsidian has none): a Model2Vec model (`model/`) embeds each note's passages
//! (`sections.rs`) into the store (`vectors.rs`), kept beside the word index and current with it: every semantic call
//! first brings the store up to the index's snapshot, embedding only the notes whose modification time or size
//! changed. The first build of a whole vault runs on a thread of its own; until it is done, calls say how far it is
//! and when to ask again (`answer.rs`). Hidden paths never reach the store, since it is built from the snapshot,
//! which holds none, and answers are checked against the snapshot again.

pub(crate) mod answer;
pub(crate) mod model;
pub(crate) mod saved;
pub(crate) mod sections;
pub(crate) mod vault;
pub(crate) mod vectors;

use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Instant;

use crate::lock::lock;
use crate::offline::obsidian::metadata::Snapshot;
use crate::offline::obsidian::vault::FileEntry;
use model::Model;
use vectors::{NewPassage, Vectors};

/// Changes up to this many notes (a first build of a vault this small included) are embedded within the call that
/// finds them (milliseconds); more go to a thread of their own.
const INLINE_NOTES: usize = 2000;
/// How many notes a background build embeds between two looks at the store by searches.
const BATCH: usize = 1024;
/// A first guess of notes embedded per second, for the retry time before a build has measured its own.
const GUESSED_RATE: f64 = 5000.0;

/// Where the store stands against the index.
#[derive(Debug)]
enum Progress {
    /// Nothing embedded yet.
    Idle,
    /// A thread embeds `total` notes, `done` so far.
    Building {
        done: usize,
        total: usize,
        started: Instant,
        first: bool,
    },
    /// The store matches this snapshot.
    Synced(Weak<Snapshot>),
}

/// Whether the store can answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Readiness {
    Ready,
    /// The first build runs: no answer yet.
    Building {
        done: usize,
        total: usize,
        retry_after_seconds: u64,
    },
    /// The store answers, but `pending` changed notes are still being embedded.
    Updating {
        pending: usize,
    },
}

/// The embedding index of one vault.
pub(crate) struct Semantic {
    model: Arc<Model>,
    vectors: RwLock<Vectors>,
    progress: Mutex<Progress>,
    /// Set once a whole build has finished (or a saved store was loaded).
    built: std::sync::atomic::AtomicBool,
    /// How many notes this process embedded (a restart on a saved store embeds only what changed).
    embedded: std::sync::atomic::AtomicUsize,
}

/// How a note's text is read for embedding (the vault's own checked reader); `None` when it cannot be.
pub(crate) type NoteReader = Arc<dyn Fn(&FileEntry) -> Option<String> + Send + Sync>;

impl Semantic {
    pub(crate) fn new(model: Arc<Model>) -> Self {
        let dims = model.dims();
        Self {
            model,
            vectors: RwLock::new(Vectors::new(dims)),
            progress: Mutex::new(Progress::Idle),
            built: Default::default(),
            embedded: Default::default(),
        }
    }

    /// How many notes this process embedded.
    pub(crate) fn embedded(&self) -> usize {
        self.embedded.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(crate) fn model(&self) -> &Model {
        &self.model
    }

    pub(crate) fn vectors(&self) -> std::sync::RwLockReadGuard<'_, Vectors> {
        crate::lock::read(&self.vectors)
    }

    /// Starts from a saved store (made with this model).
    pub(crate) fn restore(&self, vectors: Vectors) {
        if vectors.dims() == self.model.dims() {
            *crate::lock::write(&self.vectors) = vectors;
            self.built.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// Brings the store up to `snapshot`: at once for a few changed notes, on a thread for many.
    pub(crate) fn sync(
        self: &Arc<Self>,
        snapshot: &Arc<Snapshot>,
        read: NoteReader,
        saved: Option<Arc<saved::SavedVectors>>,
    ) -> Readiness {
        let mut progress = lock(&self.progress);
        match &*progress {
            Progress::Synced(synced) if std::ptr::eq(synced.as_ptr(), Arc::as_ptr(snapshot)) => {
                return Readiness::Ready;
            }
            Progress::Building {
                done,
                total,
                started,
                first,
            } => return building(*done, *total, *started, *first),
            _ => {}
        }
        let (changed, removed) = self.changed(snapshot);
        let first = !self.built.load(std::sync::atomic::Ordering::SeqCst);
        if changed.len() <= INLINE_NOTES {
            let embedded = self.embed(snapshot, &changed, &*read);
            self.store(snapshot, embedded);
            self.built.store(true, std::sync::atomic::Ordering::SeqCst);
            *progress = Progress::Synced(Arc::downgrade(snapshot));
            // A store that matched the folder already (a restart on an unchanged vault) is not written again.
            if let Some(saved) = saved.filter(|_| removed || !changed.is_empty()) {
                saved.save_later(Arc::clone(self));
            }
            return Readiness::Ready;
        }
        let total = changed.len();
        let started = Instant::now();
        *progress = Progress::Building {
            done: 0,
            total,
            started,
            first,
        };
        drop(progress);
        let this = Arc::clone(self);
        let snapshot = Arc::clone(snapshot);
        let spawned = std::thread::Builder::new()
            .name("obsmcp-embed".into())
            .spawn(move || this.build(&snapshot, &changed, &*read, saved.as_deref()));
        if let Err(error) = spawned {
            tracing::warn!(%error, "the embedding index could not be built");
            *lock(&self.progress) = Progress::Idle;
        }
        building(0, total, started, first)
    }

    /// The notes of `snapshot` whose passages are missing or older than the file; notes gone leave the store.
    fn changed(&self, snapshot: &Snapshot) -> (Vec<usize>, bool) {
        let mut vectors = crate::lock::write(&self.vectors);
        // How many stored notes are still readable notes of the snapshot: when all are, none leaves the store, and a
        // restart on an unchanged vault looks each path up once instead of twice (100,000 lookups saved).
        let mut kept = 0;
        let changed = snapshot
            .sorted_notes
            .iter()
            .copied()
            .filter(|&at| {
                let file = &snapshot.files[at];
                let Some(note) = vectors.note(&file.path) else {
                    return true;
                };
                kept += usize::from(snapshot.note_at(at).is_some());
                note.mtime != file.mtime || note.size != file.size
            })
            .collect();
        let before = vectors.notes();
        if kept < before {
            vectors.retain(|path| snapshot.note(path).is_some());
        }
        (changed, vectors.notes() < before)
    }

    /// Embeds the notes at `indexes` on two threads.
    fn embed(
        &self,
        snapshot: &Snapshot,
        indexes: &[usize],
        read: &(dyn Fn(&FileEntry) -> Option<String> + Sync),
    ) -> Vec<(usize, Vec<NewPassage>)> {
        let one = |at: usize| {
            let file = &snapshot.files[at];
            // A note that cannot be read keeps its path and title, and is read again when it changes.
            let text = read(file).unwrap_or_default();
            let passages = sections::passages(&file.path, &text)
                .into_iter()
                .filter_map(|passage| {
                    let vector = self.model.embed(&passage.text)?;
                    Some((passage.start_line, passage.end_line, vector))
                })
                .collect();
            (at, passages)
        };
        if indexes.len() < 64 {
            return indexes.iter().map(|&at| one(at)).collect();
        }
        let (left, right) = indexes.split_at(indexes.len() / 2);
        std::thread::scope(|scope| {
            let other = scope.spawn(|| left.iter().map(|&at| one(at)).collect::<Vec<_>>());
            let mut mine: Vec<_> = right.iter().map(|&at| one(at)).collect();
            let mut out = other.join().unwrap_or_default();
            out.append(&mut mine);
            out
        })
    }

    fn store(&self, snapshot: &Snapshot, embedded: Vec<(usize, Vec<NewPassage>)>) {
        self.embedded
            .fetch_add(embedded.len(), std::sync::atomic::Ordering::Relaxed);
        let mut vectors = crate::lock::write(&self.vectors);
        for (at, passages) in embedded {
            let file = &snapshot.files[at];
            vectors.insert(&file.path, file.mtime, file.size, passages);
        }
    }

    /// The background build: batches of notes, each stored as it is done.
    fn build(
        self: &Arc<Self>,
        snapshot: &Arc<Snapshot>,
        changed: &[usize],
        read: &(dyn Fn(&FileEntry) -> Option<String> + Sync),
        saved: Option<&saved::SavedVectors>,
    ) {
        let started = Instant::now();
        for (batch, indexes) in changed.chunks(BATCH).enumerate() {
            let embedded = self.embed(snapshot, indexes, read);
            self.store(snapshot, embedded);
            if let Progress::Building { done, .. } = &mut *lock(&self.progress) {
                *done = (batch * BATCH + indexes.len()).min(changed.len());
            }
        }
        self.built.store(true, std::sync::atomic::Ordering::SeqCst);
        *lock(&self.progress) = Progress::Synced(Arc::downgrade(snapshot));
        let vectors = self.vectors();
        tracing::info!(
            notes = vectors.notes(),
            passages = vectors.passages(),
            ms = started.elapsed().as_millis() as u64,
            "embedding index ready"
        );
        drop(vectors);
        if let Some(saved) = saved {
            saved.save_later(Arc::clone(self));
        }
    }
}

/// What a build under way means to a caller.
fn building(done: usize, total: usize, started: Instant, first: bool) -> Readiness {
    if !first {
        return Readiness::Updating {
            pending: total - done,
        };
    }
    let rate = if done > 0 {
        done as f64 / started.elapsed().as_secs_f64().max(0.001)
    } else {
        GUESSED_RATE
    };
    Readiness::Building {
        done,
        total,
        retry_after_seconds: (((total - done) as f64 / rate).ceil() as u64).max(1),
    }
}

#[cfg(test)]
mod tests;

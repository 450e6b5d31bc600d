//! A vault's search by meaning, as the offline vault offers it: off (no model set up), a model that cannot be used
//! (its reason given to every semantic call), or on, with the store restored from its save at the first call.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Once};
use std::time::SystemTime;

use serde_json::{Value, json};

use super::model::{MODEL_FILES, Model};
use super::saved::SavedVectors;
use super::{NoteReader, Semantic, answer};
use crate::lock::lock;
use crate::offline::OfflineVault;
use crate::offline::marks::{Source, marked};
use crate::offline::obsidian::read::text_of_bytes;
use crate::offline::obsidian::vault::FileEntry;
use crate::offline::plugin::tools::{Args, MeaningSearch, Output, ToolError};
use crate::offline::plugin::vault::paths::{MAX_FILE_BYTES, full_path, read_verified};

/// What the bridge was given for search by meaning, shared by every vault: a model folder, loaded at the first
/// semantic call (tens of milliseconds that the bridge's start does not wait for). A model that is missing or cannot
/// be used is looked at again once its files change, so that `obsmcp setup --semantic` needs no restart.
pub(crate) struct ModelSource {
    folder: Option<PathBuf>,
    /// Whether the folder was named (`--model`): then a missing folder is an error, not "no model".
    named: bool,
    /// The last choice, and the model file's modification time it was made at.
    loaded: Mutex<Option<(ModelChoice, Option<SystemTime>)>>,
}

impl ModelSource {
    /// The folder `--model` named, or else `model` in obsmcp's state folder when it exists.
    pub(crate) fn new(named: Option<PathBuf>, state_home: Option<&Path>) -> Self {
        let is_named = named.is_some();
        Self {
            folder: named.or_else(|| state_home.map(default_model_folder)),
            named: is_named,
            loaded: Mutex::new(None),
        }
    }

    /// The model: loaded once, or looked for again when it was not there or not usable and its files changed.
    pub(crate) fn get(&self) -> ModelChoice {
        let stamp = self.folder.as_ref().and_then(|folder| {
            std::fs::metadata(folder.join(MODEL_FILES[0]))
                .and_then(|metadata| metadata.modified())
                .ok()
        });
        let mut loaded = lock(&self.loaded);
        if let Some((choice, at)) = &*loaded
            && (matches!(choice, ModelChoice::Loaded(_)) || *at == stamp)
        {
            return choice.clone();
        }
        let choice = match &self.folder {
            Some(folder) if self.named || folder.exists() => choose_model(folder),
            _ => ModelChoice::Off,
        };
        *loaded = Some((choice.clone(), stamp));
        choice
    }
}

/// Where the bridge looks for a model when `--model` names none (where `obsmcp setup --semantic` puts one).
pub(crate) fn default_model_folder(state_home: &Path) -> PathBuf {
    obsmcp_installer::plan::model_folder::folder(state_home)
}

/// A model folder, loaded or why not.
#[derive(Clone)]
pub(crate) enum ModelChoice {
    /// No model set up.
    Off,
    /// The model at this folder cannot be used, for this reason.
    Unusable(PathBuf, String),
    Loaded(Arc<Model>),
}

/// One vault's search by meaning.
pub(crate) enum Meaning {
    Off,
    Unusable(PathBuf, String),
    On {
        semantic: Arc<Semantic>,
        saved: Option<Arc<SavedVectors>>,
        restored: Once,
    },
}

/// What a semantic call says when no model is set up.
pub(crate) fn no_model_message() -> String {
    "search by meaning needs an embedding model on this machine, and none is set up. The user can run `obsmcp setup \
     --semantic` (a 31 MB model, downloaded once and checked by SHA-256; the bridge finds it without a restart), or \
     `obsmcp setup --semantic --model FOLDER` with a Model2Vec model they have. Until then, search with rank: true \
     finds notes by their words (BM25)."
        .to_owned()
}

impl OfflineVault {
    /// Sets where search by meaning finds its model (its store is saved beside the saved index, when there is one).
    pub(crate) fn with_model(mut self, source: Arc<ModelSource>) -> Self {
        self.model = Some(source);
        self
    }

    /// This vault's search by meaning, set up at the first call that finds a model.
    fn meaning(&self) -> Arc<Meaning> {
        let mut meaning = lock(&self.meaning);
        if let Some(on) = &*meaning {
            return Arc::clone(on);
        }
        let Some(source) = &self.model else {
            return Arc::new(Meaning::Off);
        };
        let now = match source.get() {
            ModelChoice::Off => return Arc::new(Meaning::Off),
            ModelChoice::Unusable(folder, reason) => {
                return Arc::new(Meaning::Unusable(folder, reason));
            }
            ModelChoice::Loaded(model) => Arc::new(Meaning::On {
                semantic: Arc::new(Semantic::new(Arc::clone(&model))),
                saved: self.saved.as_ref().map(|saved| {
                    Arc::new(SavedVectors::new(
                        saved.folder(),
                        self.real.root(),
                        &self.config_dir,
                        model.fingerprint(),
                    ))
                }),
                restored: Once::new(),
            }),
        };
        *meaning = Some(Arc::clone(&now));
        now
    }

    /// At start, when this vault has a saved embedding index: loads the model and the saved store and brings it up
    /// to the index (beside the index's own load), so that the first search by meaning finds it ready.
    pub(crate) fn prepare_meaning(&self) {
        let has_saved = self.saved.as_ref().is_some_and(|saved| {
            obsmcp_installer::plan::saved_index::vectors_file(
                saved.folder(),
                self.real.root(),
                &self.config_dir,
            )
            .is_file()
        });
        if !has_saved {
            return;
        }
        let meaning = self.meaning();
        let Meaning::On {
            semantic,
            saved,
            restored,
        } = &*meaning
        else {
            return;
        };
        restore(semantic, saved.as_deref(), restored);
        if let Ok(snapshot) = self.fresh_snapshot(false) {
            semantic.sync(&snapshot, self.note_reader(), saved.clone());
        }
    }

    /// Answers a `search` in mode `semantic` or `hybrid`, marked as the bridge's index.
    pub(crate) fn search_by_meaning(&self, arguments: Value) -> Value {
        marked(self.meaning_outcome(arguments), Source::Index)
    }

    fn meaning_outcome(&self, arguments: Value) -> Result<Output, ToolError> {
        let meaning = self.meaning();
        let (semantic, saved, restored) = match &*meaning {
            Meaning::Off => return Err(ToolError(no_model_message())),
            Meaning::Unusable(folder, reason) => {
                return Err(ToolError(format!(
                    "search by meaning is off: the model at {} cannot be used: {reason}",
                    folder.display()
                )));
            }
            Meaning::On {
                semantic,
                saved,
                restored,
            } => (semantic, saved, restored),
        };
        let args = Args::new("search", arguments)?;
        let snapshot = self
            .fresh_snapshot(false)
            .map_err(|refused| ToolError(refused.to_string()))?;
        restore(semantic, saved.as_deref(), restored);
        let readiness = semantic.sync(&snapshot, self.note_reader(), saved.clone());
        let ctx = self.context(&snapshot);
        answer::search(&ctx, semantic, &readiness, &args)
    }

    /// Reads a note for embedding, with the checks a tool's read has; a note over the size offline mode reads gives
    /// only its path and title.
    fn note_reader(&self) -> NoteReader {
        let root = self.root.clone();
        Arc::new(move |file: &FileEntry| {
            if !file.inside || file.size > MAX_FILE_BYTES {
                return None;
            }
            read_verified(&full_path(&root, &file.path), file.identity)
                .ok()
                .map(text_of_bytes)
        })
    }

    /// Before the process ends: lets a save of the embedding index under way (or waiting) finish, within `within`.
    pub(crate) fn finish_saving_meaning(&self, within: std::time::Duration) {
        let meaning = lock(&self.meaning).clone();
        if let Some(Meaning::On {
            saved: Some(saved), ..
        }) = meaning.as_deref()
            && !saved.finish(within)
        {
            tracing::warn!(
                "the embedding index was still being saved at exit; the next bridge embeds what changed"
            );
        }
    }

    /// What `obsidian_status` says of search by meaning.
    pub(crate) fn describe_meaning(&self) -> Value {
        let Some(meaning) = lock(&self.meaning).clone() else {
            return match &self.model {
                None => json!({"state": "off: no embedding model set up"}),
                Some(_) => {
                    json!({"state": "the model is looked for at the first search in mode semantic or hybrid"})
                }
            };
        };
        match &*meaning {
            Meaning::Off => json!({"state": "off: no embedding model set up"}),
            Meaning::Unusable(folder, reason) => json!({
                "state": "off: the model cannot be used",
                "model": folder.display().to_string(),
                "reason": reason,
            }),
            Meaning::On { semantic, .. } => {
                let vectors = semantic.vectors();
                json!({
                    "state": if semantic.built.load(std::sync::atomic::Ordering::SeqCst) { "ready" } else { "not built yet (built at the first semantic search)" },
                    "model": semantic.model().folder().display().to_string(),
                    "dimensions": semantic.model().dims(),
                    "notes": vectors.notes(),
                    "passages": vectors.passages(),
                    "embeddedSinceStart": semantic.embedded(),
                    "approxMemoryMB": (vectors.approx_bytes() + semantic.model().approx_bytes()) >> 20,
                })
            }
        }
    }
}

/// A `batch` holds a search by meaning through this (`tools::run`).
impl MeaningSearch for OfflineVault {
    fn answers(&self, arguments: &Value) -> bool {
        answer::asks_for_meaning(arguments)
    }

    fn search(&self, arguments: Value) -> Result<Output, ToolError> {
        self.meaning_outcome(arguments)
    }
}

/// Starts the store from its save, once.
fn restore(semantic: &Semantic, saved: Option<&SavedVectors>, restored: &Once) {
    restored.call_once(|| {
        let started = std::time::Instant::now();
        if let Some(vectors) = saved.and_then(SavedVectors::load) {
            tracing::debug!(
                ms = started.elapsed().as_millis() as u64,
                notes = vectors.notes(),
                "saved embedding index loaded"
            );
            semantic.restore(vectors);
        }
    });
}

/// A folder as a model folder: loaded, or why not.
pub(crate) fn choose_model(folder: &Path) -> ModelChoice {
    match Model::load(folder) {
        Ok(model) => ModelChoice::Loaded(Arc::new(model)),
        Err(error) => ModelChoice::Unusable(folder.to_path_buf(), error.to_string()),
    }
}

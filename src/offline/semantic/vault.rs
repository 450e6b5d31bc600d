//! A vault's search by meaning, as the offline vault offers it: off (no model set up), a model that cannot be used
//! (its reason given to every semantic call), or on, with the store restored from its save at the first call.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Once, OnceLock};

use serde_json::{Value, json};

use super::model::Model;
use super::saved::SavedVectors;
use super::{NoteReader, Semantic, answer};
use crate::offline::OfflineVault;
use crate::offline::marks::{Source, marked};
use crate::offline::obsidian::metadata::text_of_bytes;
use crate::offline::obsidian::vault::FileEntry;
use crate::offline::plugin::tools::{Args, ToolError};
use crate::offline::plugin::vault::paths::{MAX_FILE_BYTES, full_path, read_verified};

/// What the bridge was given for search by meaning, shared by every vault: a model folder, loaded at the first
/// semantic call (tens of milliseconds that the bridge's start does not wait for).
pub(crate) struct ModelSource {
    folder: Option<PathBuf>,
    /// Whether the folder was named (`--model`): then a missing folder is an error, not "no model".
    named: bool,
    loaded: OnceLock<ModelChoice>,
}

impl ModelSource {
    /// The folder `--model` named, or else `model` in obsmcp's state folder when it exists.
    pub(crate) fn new(named: Option<PathBuf>, state_home: Option<&Path>) -> Self {
        let is_named = named.is_some();
        Self {
            folder: named.or_else(|| state_home.map(default_model_folder)),
            named: is_named,
            loaded: OnceLock::new(),
        }
    }

    /// The model, loaded on first use.
    pub(crate) fn get(&self) -> &ModelChoice {
        self.loaded.get_or_init(|| match &self.folder {
            Some(folder) if self.named || folder.exists() => choose_model(folder),
            _ => ModelChoice::Off,
        })
    }
}

/// Where the bridge looks for a model when `--model` names none.
pub(crate) fn default_model_folder(state_home: &Path) -> PathBuf {
    state_home.join("model")
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
    "search by meaning needs an embedding model on this machine, and none is set up. Start the bridge with \
     `--model FOLDER` (a Model2Vec model: model.safetensors, tokenizer.json, config.json; in the client's entry for \
     obsmcp), or put one in the `model` folder of obsmcp's state folder (`obsmcp status` names it). Until then, \
     search with rank: true finds notes by their words (BM25)."
        .to_owned()
}

impl OfflineVault {
    /// Sets where search by meaning finds its model (its store is saved beside the saved index, when there is one).
    pub(crate) fn with_model(mut self, source: Arc<ModelSource>) -> Self {
        self.model = Some(source);
        self
    }

    /// This vault's search by meaning, set up at the first call that needs it.
    fn meaning(&self) -> &Meaning {
        self.meaning.get_or_init(|| {
            let Some(source) = &self.model else {
                return Meaning::Off;
            };
            match source.get() {
                ModelChoice::Off => Meaning::Off,
                ModelChoice::Unusable(folder, reason) => {
                    Meaning::Unusable(folder.clone(), reason.clone())
                }
                ModelChoice::Loaded(model) => Meaning::On {
                    semantic: Arc::new(Semantic::new(Arc::clone(model))),
                    saved: self.saved.as_ref().map(|saved| {
                        Arc::new(SavedVectors::new(
                            saved.folder(),
                            self.real.root(),
                            &self.config_dir,
                            model.fingerprint(),
                        ))
                    }),
                    restored: Once::new(),
                },
            }
        })
    }

    /// Answers a `search` in mode `semantic` or `hybrid`, marked as the bridge's index.
    pub(crate) fn search_by_meaning(&self, arguments: Value) -> Value {
        marked(self.meaning_outcome(arguments), Source::Index)
    }

    fn meaning_outcome(
        &self,
        arguments: Value,
    ) -> Result<crate::offline::plugin::tools::Output, ToolError> {
        let (semantic, saved, restored) = match self.meaning() {
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
        restored.call_once(|| {
            if let Some(vectors) = saved.as_ref().and_then(|saved| saved.load()) {
                semantic.restore(vectors);
            }
        });
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

    /// What `obsidian_status` says of search by meaning.
    pub(crate) fn describe_meaning(&self) -> Value {
        let Some(meaning) = self.meaning.get() else {
            return match &self.model {
                None => json!({"state": "off: no embedding model set up"}),
                Some(_) => {
                    json!({"state": "the model is loaded at the first search in mode semantic or hybrid"})
                }
            };
        };
        match meaning {
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
                    "approxMemoryMB": (vectors.approx_bytes() + semantic.model().approx_bytes()) >> 20,
                })
            }
        }
    }
}

/// A folder as a model folder: loaded, or why not.
pub(crate) fn choose_model(folder: &Path) -> ModelChoice {
    match Model::load(folder) {
        Ok(model) => ModelChoice::Loaded(Arc::new(model)),
        Err(error) => ModelChoice::Unusable(folder.to_path_buf(), error.to_string()),
    }
}

//! A Model2Vec static embedding model, read from its folder: `model.safetensors` (one row of numbers per token),
//! `tokenizer.json` (`tokenizer.rs`) and `config.json`. A text's vector is the mean of its known tokens' rows (each
//! times the token's weight when the model has a `weights` tensor, through `mapping` when it has one), scaled to
//! length 1. No network, no GPU, no other runtime: a section of a note is embedded in microseconds.
//!
//! The model is identified by a fingerprint of its files (`fingerprint`): a saved embedding index made with another
//! model is not used.

mod safetensors;
mod tokenizer;

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use tokenizer::Tokenizer;
pub(crate) use tokenizer::TokenizerError;

/// The files of a model folder.
pub(crate) const MODEL_FILES: [&str; 3] = ["model.safetensors", "tokenizer.json", "config.json"];

/// The most tokens a text contributes, as Model2Vec's own default (`max_length`).
const MAX_TOKENS: usize = 512;

/// Why a model folder cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ModelError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {reason}", path.display())]
    Format { path: PathBuf, reason: String },
    #[error("{}: {source}", path.display())]
    Tokenizer {
        path: PathBuf,
        source: TokenizerError,
    },
}

/// A loaded model.
pub(crate) struct Model {
    tokenizer: Tokenizer,
    /// `rows × dims` signed bytes, row-major; each row times its scale is the model's row (a quarter of `f32`'s
    /// memory, well within the model's own precision for a mean of many rows).
    rows: Vec<i8>,
    scales: Vec<f32>,
    dims: usize,
    /// Each token's weight (`weights` tensor), when the model has one.
    weights: Option<Vec<f32>>,
    /// Each token's row (`mapping` tensor), when rows are shared between tokens.
    mapping: Option<Vec<u32>>,
    fingerprint: String,
    /// Where setup got it from (`owner/name@revision`, from its record), else its folder's name.
    name: String,
    folder: PathBuf,
}

impl Model {
    /// Loads the model in `folder`.
    pub(crate) fn load(folder: &Path) -> Result<Self, ModelError> {
        let started = std::time::Instant::now();
        let path_of = |name: &str| folder.join(name);
        let read = |name: &str| {
            let path = path_of(name);
            std::fs::read(&path).map_err(|source| ModelError::Read { path, source })
        };
        let tensors_path = path_of(MODEL_FILES[0]);
        let open = || {
            std::fs::File::open(&tensors_path).map_err(|source| ModelError::Read {
                path: tensors_path.clone(),
                source,
            })
        };
        drop(open()?);
        let tokenizer_bytes = read(MODEL_FILES[1])?;
        // Model2Vec's config is optional for reading: its `normalize` only matters to raw vectors, and ours are
        // always scaled to length 1 for cosine similarity.
        let config_bytes = read(MODEL_FILES[2]).unwrap_or_default();
        let fingerprint =
            fingerprint(&tensors_path, &tokenizer_bytes, &config_bytes).map_err(|source| {
                ModelError::Read {
                    path: tensors_path.clone(),
                    source,
                }
            })?;
        let format = |reason: String| ModelError::Format {
            path: tensors_path.clone(),
            reason,
        };
        let tokenizer =
            Tokenizer::from_json(&tokenizer_bytes).map_err(|source| ModelError::Tokenizer {
                path: path_of(MODEL_FILES[1]),
                source,
            })?;
        drop(tokenizer_bytes);
        let mut tensors =
            safetensors::Tensors::open(std::io::BufReader::new(open()?)).map_err(format)?;
        // `embeddings` in Model2Vec's own files; the other names in sentence-transformers' layouts of the same.
        let mut rows = None;
        for name in ["embeddings", "embedding.weight", "0"] {
            rows = tensors.optional_rows(name).map_err(format)?;
            if rows.is_some() {
                break;
            }
        }
        let rows = rows.ok_or_else(|| format("there is no tensor `embeddings`".into()))?;
        let weights = tensors.optional_floats("weights").map_err(format)?;
        let mapping = tensors.optional_ids("mapping").map_err(format)?;
        let tokens = mapping.as_ref().map_or(rows.rows, Vec::len);
        if tokenizer.vocab_size() > tokens
            || weights
                .as_ref()
                .is_some_and(|weights| weights.len() < tokens)
            || mapping
                .as_ref()
                .is_some_and(|map| map.iter().any(|&row| row as usize >= rows.rows))
        {
            return Err(format(format!(
                "the tensors do not fit the tokenizer's {} tokens",
                tokenizer.vocab_size()
            )));
        }
        if rows.dims == 0 {
            return Err(format("tensor `embeddings` has no dimensions".into()));
        }
        tracing::debug!(
            ms = started.elapsed().as_millis() as u64,
            tokens = rows.rows,
            dims = rows.dims,
            "embedding model loaded"
        );
        Ok(Self {
            tokenizer,
            dims: rows.dims,
            rows: rows.values,
            scales: rows.scales,
            weights,
            mapping,
            fingerprint,
            name: name_of(folder),
            folder: folder.to_path_buf(),
        })
    }

    /// The length of a vector.
    pub(crate) fn dims(&self) -> usize {
        self.dims
    }

    /// What tells this model from another (`fingerprint`), in hex.
    pub(crate) fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The model's name: where setup got it from, else its folder's.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Where the model was loaded from.
    pub(crate) fn folder(&self) -> &Path {
        &self.folder
    }

    /// The approximate bytes the model holds in memory.
    pub(crate) fn approx_bytes(&self) -> u64 {
        (self.rows.len()
            + self.scales.len() * 4
            + self.weights.as_ref().map_or(0, |w| w.len() * 4)
            + self.mapping.as_ref().map_or(0, |m| m.len() * 4)
            + self.tokenizer.vocab_size() * 48) as u64
    }

    /// The text's vector, of length 1; `None` when it has no known token.
    pub(crate) fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let mut sum = vec![0f32; self.dims];
        let mut count = 0usize;
        self.tokenizer.for_each_id(text, |id| {
            if count == MAX_TOKENS {
                return;
            }
            let id = id as usize;
            let row = self
                .mapping
                .as_ref()
                .map_or(id, |mapping| mapping[id] as usize);
            let weight =
                self.weights.as_ref().map_or(1.0, |weights| weights[id]) * self.scales[row];
            let values = &self.rows[row * self.dims..(row + 1) * self.dims];
            for (total, value) in sum.iter_mut().zip(values) {
                *total += weight * f32::from(*value);
            }
            count += 1;
        });
        let norm = sum.iter().map(|value| value * value).sum::<f32>().sqrt();
        if count == 0 || norm == 0.0 || !norm.is_finite() {
            return None;
        }
        sum.iter_mut().for_each(|value| *value /= norm);
        Some(sum)
    }
}

/// What tells one model from another, for a saved embedding index: the SHA-256 of the tokenizer, the config, the
/// tensor file's header (names, shapes, offsets) and its size and modification time. Hashing the 30 MB of numbers
/// too would cost a third of the load; a file written again has a new modification time.
fn fingerprint(tensors: &Path, tokenizer: &[u8], config: &[u8]) -> std::io::Result<String> {
    use std::io::Read;
    let mut file = std::fs::File::open(tensors)?;
    let metadata = file.metadata()?;
    let mut length = [0u8; 8];
    file.read_exact(&mut length)?;
    let header_length = u64::from_le_bytes(length)
        .min(metadata.len())
        .min(100 << 20);
    let mut header = Vec::new();
    file.take(header_length).read_to_end(&mut header)?;
    let modified = metadata
        .modified()
        .ok()
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |since| since.as_nanos());
    let mut hash = Sha256::new();
    for part in [tokenizer, config, &header] {
        hash.update(Sha256::digest(part));
    }
    hash.update(metadata.len().to_le_bytes());
    hash.update(modified.to_le_bytes());
    Ok(hex(&hash.finalize()))
}

/// A model folder's name: setup's record names where the model came from; a folder of one's own is named.
fn name_of(folder: &Path) -> String {
    let recorded = std::fs::read(folder.join(obsmcp_installer::plan::model_folder::MANIFEST))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|record| record.get("source")?.as_str().map(str::to_owned));
    recorded.unwrap_or_else(|| {
        folder.file_name().map_or_else(
            || folder.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        )
    })
}

/// Lower-case hexadecimal.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut out, byte| {
        let _ = write!(out, "{byte:02x}"); // Writing to a String cannot fail.
        out
    })
}

#[cfg(test)]
pub(crate) mod tests;

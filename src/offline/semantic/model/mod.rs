//! A Model2Vec static embedding model, read from its folder: `model.safetensors` (one row of numbers per token),
//! `tokenizer.json` (`tokenizer.rs`) and `config.json`. A text's vector is the mean of its known tokens' rows (each
//! times the token's weight when the model has a `weights` tensor, through `mapping` when it has one), scaled to
//! length 1. No network, no GPU, no other runtime: a section of a note is embedded in microseconds.
//!
//! The model is identified by the SHA-256 of its three files (`fingerprint`): a saved embedding index made with
//! another model is not used.

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
    /// `rows × dims` numbers, row-major.
    rows: Vec<f32>,
    dims: usize,
    /// Each token's weight (`weights` tensor), when the model has one.
    weights: Option<Vec<f32>>,
    /// Each token's row (`mapping` tensor), when rows are shared between tokens.
    mapping: Option<Vec<u32>>,
    fingerprint: String,
    folder: PathBuf,
}

impl Model {
    /// Loads the model in `folder`.
    pub(crate) fn load(folder: &Path) -> Result<Self, ModelError> {
        let read = |name: &str| {
            let path = folder.join(name);
            std::fs::read(&path).map_err(|source| ModelError::Read { path, source })
        };
        let tensors_bytes = read(MODEL_FILES[0])?;
        let tokenizer_bytes = read(MODEL_FILES[1])?;
        // Model2Vec's config is optional for reading: its `normalize` only matters to raw vectors, and ours are
        // always scaled to length 1 for cosine similarity.
        let config_bytes = read(MODEL_FILES[2]).unwrap_or_default();
        let mut hash = Sha256::new();
        for bytes in [&tensors_bytes, &tokenizer_bytes, &config_bytes] {
            hash.update(Sha256::digest(bytes));
        }
        let fingerprint = hex(&hash.finalize());
        let format = |reason: String| ModelError::Format {
            path: folder.join(MODEL_FILES[0]),
            reason,
        };
        let tokenizer =
            Tokenizer::from_json(&tokenizer_bytes).map_err(|source| ModelError::Tokenizer {
                path: folder.join(MODEL_FILES[1]),
                source,
            })?;
        let tensors = safetensors::Tensors::parse(&tensors_bytes).map_err(format)?;
        // `embeddings` in Model2Vec's own files; the other names in sentence-transformers' layouts of the same.
        let (shape, rows) = ["embeddings", "embedding.weight", "0"]
            .iter()
            .find_map(|name| tensors.optional_floats(name).transpose())
            .unwrap_or_else(|| Err("there is no tensor `embeddings`".into()))
            .map_err(format)?;
        let [row_count, dims] = shape[..] else {
            return Err(format(format!(
                "tensor `embeddings` has shape {shape:?}, not [tokens, dimensions]"
            )));
        };
        let weights = tensors.optional_floats("weights").map_err(format)?;
        let mapping = tensors.optional_ids("mapping").map_err(format)?;
        let tokens = mapping.as_ref().map_or(row_count, Vec::len);
        if tokenizer.vocab_size() > tokens
            || weights.as_ref().is_some_and(|(_, w)| w.len() < tokens)
            || mapping
                .as_ref()
                .is_some_and(|map| map.iter().any(|&row| row as usize >= row_count))
        {
            return Err(format(format!(
                "the tensors do not fit the tokenizer's {} tokens",
                tokenizer.vocab_size()
            )));
        }
        if dims == 0 {
            return Err(format("tensor `embeddings` has no dimensions".into()));
        }
        Ok(Self {
            tokenizer,
            rows,
            dims,
            weights: weights.map(|(_, weights)| weights),
            mapping,
            fingerprint,
            folder: folder.to_path_buf(),
        })
    }

    /// The length of a vector.
    pub(crate) fn dims(&self) -> usize {
        self.dims
    }

    /// The SHA-256 of the model's files, in hex.
    pub(crate) fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The model's name: its folder's.
    pub(crate) fn name(&self) -> String {
        self.folder.file_name().map_or_else(
            || self.folder.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        )
    }

    /// Where the model was loaded from.
    pub(crate) fn folder(&self) -> &Path {
        &self.folder
    }

    /// The approximate bytes the model holds in memory.
    pub(crate) fn approx_bytes(&self) -> u64 {
        (self.rows.len() * 4
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
            let weight = self.weights.as_ref().map_or(1.0, |weights| weights[id]);
            let values = &self.rows[row * self.dims..(row + 1) * self.dims];
            for (total, value) in sum.iter_mut().zip(values) {
                *total += weight * value;
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

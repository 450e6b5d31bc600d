//! The model `obsmcp setup --semantic` downloads: a Hugging Face repository at one revision, and each file's size and
//! SHA-256, so that what lands on disk is exactly what was chosen (a file of any other size or hash is refused and
//! nothing is installed). `OBSMCP_MODEL_PIN` names a JSON file of the same shape for another Model2Vec model or a
//! mirror's copy.

use serde::{Deserialize, Serialize};

/// A pinned model: where it is, and what each of its files must be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Pin {
    /// `owner/name` on the Hub.
    pub(crate) repository: String,
    /// The commit the files are taken from.
    pub(crate) revision: String,
    pub(crate) license: String,
    pub(crate) files: Vec<PinnedFile>,
}

/// One file of a pinned model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PinnedFile {
    pub(crate) name: String,
    pub(crate) bytes: u64,
    pub(crate) sha256: String,
}

impl Pin {
    /// The model setup downloads by default: MinishLab's potion-base-8M (MIT), 256 dimensions, 30 MB.
    pub(crate) fn default_model() -> Self {
        let file = |name: &str, bytes: u64, sha256: &str| PinnedFile {
            name: name.to_owned(),
            bytes,
            sha256: sha256.to_owned(),
        };
        Self {
            repository: "minishlab/potion-base-8M".into(),
            revision: "bf8b056651a2c21b8d2565580b8569da283cab23".into(),
            license: "MIT".into(),
            files: vec![
                file(
                    "model.safetensors",
                    30_236_760,
                    "f65d0f325faadc1e121c319e2faa41170d3fa07d8c89abd48ca5358d9a223de2",
                ),
                file(
                    "tokenizer.json",
                    683_666,
                    "e67e803f624fb4d67dea1c730d06e1067e1b14d830e2c2202569e3ef0f70bb50",
                ),
                file(
                    "config.json",
                    202,
                    "2a6ac0e9aaa356a68a5688070db78fc3a464fefe85d2f06a1905ce3718687553",
                ),
            ],
        }
    }

    /// The pin in force: `OBSMCP_MODEL_PIN`'s file when it is set, else the default.
    pub(crate) fn in_force(env: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let Some(file) = env("OBSMCP_MODEL_PIN").filter(|file| !file.is_empty()) else {
            return Ok(Self::default_model());
        };
        let text = std::fs::read_to_string(&file).map_err(|error| {
            format!("OBSMCP_MODEL_PIN names {file}, which cannot be read: {error}")
        })?;
        let pin: Self = serde_json::from_str(&text).map_err(|error| {
            format!("OBSMCP_MODEL_PIN's file {file} is not a model pin: {error}")
        })?;
        pin.check()
            .map_err(|problem| format!("OBSMCP_MODEL_PIN's file {file}: {problem}"))?;
        Ok(pin)
    }

    /// Refuses a pin whose names could leave the model folder or whose hashes are not SHA-256.
    fn check(&self) -> Result<(), String> {
        for file in &self.files {
            let plain = !file.name.is_empty()
                && !file.name.starts_with('.')
                && file
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
            if !plain {
                return Err(format!("file name `{}` is not a plain name", file.name));
            }
            if file.sha256.len() != 64 || !file.sha256.bytes().all(|byte| byte.is_ascii_hexdigit())
            {
                return Err(format!("`{}` has no SHA-256 of 64 hex digits", file.name));
            }
        }
        if !self
            .files
            .iter()
            .any(|file| file.name == "model.safetensors")
            || !self.files.iter().any(|file| file.name == "tokenizer.json")
        {
            return Err("a Model2Vec model needs model.safetensors and tokenizer.json".into());
        }
        Ok(())
    }

    /// The whole download's size.
    pub(crate) fn bytes(&self) -> u64 {
        self.files.iter().map(|file| file.bytes).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_pin_is_sound_and_a_pin_file_replaces_it() {
        Pin::default_model().check().unwrap();
        assert_eq!(Pin::default_model().bytes(), 30_920_628);
        assert_eq!(Pin::in_force(|_| None).unwrap(), Pin::default_model());
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pin.json");
        let mut other = Pin::default_model();
        other.repository = "someone/other".into();
        std::fs::write(&file, serde_json::to_string(&other).unwrap()).unwrap();
        let named = |_: &str| Some(file.display().to_string());
        assert_eq!(Pin::in_force(named).unwrap().repository, "someone/other");
        other.files[0].name = "../escape".into();
        std::fs::write(&file, serde_json::to_string(&other).unwrap()).unwrap();
        assert!(
            Pin::in_force(named)
                .unwrap_err()
                .contains("not a plain name")
        );
    }
}

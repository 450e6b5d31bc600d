//! The model of search by meaning, set up in obsmcp's state folder (`model`, where the bridge looks when no
//! `--model` is given): downloaded from its pin (`pin.rs`, `fetch.rs`) by `obsmcp setup --semantic`, or copied from a
//! folder the user has (`--model FOLDER`). The files are assembled and checked in a folder beside it and swapped in
//! whole, so a failed download leaves the model that was there (or none); `obsmcp-model.json` records where they
//! came from and each file's size and SHA-256, for doctor's check and for uninstall, which removes only a folder
//! setup made.

pub(crate) mod fetch;
pub(crate) mod pin;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::offline::semantic::model::{MODEL_FILES, Model};
pub(crate) use crate::offline::semantic::vault::default_model_folder as folder;
use pin::{Pin, PinnedFile};

/// The record of what setup put in the model folder.
pub(crate) use obsmcp_installer::plan::model_folder::MANIFEST;

/// What `obsmcp-model.json` says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Manifest {
    /// `owner/name@revision` on the Hub, or the folder it was copied from.
    pub(crate) source: String,
    #[serde(default)]
    pub(crate) license: Option<String>,
    pub(crate) files: Vec<PinnedFile>,
}

impl Manifest {
    pub(crate) fn bytes(&self) -> u64 {
        self.files.iter().map(|file| file.bytes).sum()
    }
}

/// Where the model comes from.
pub(crate) enum Origin<'a> {
    /// Downloaded from `endpoint` (the Hub or a mirror) as `pin` says.
    Hub { pin: &'a Pin, endpoint: &'a str },
    /// Copied from a folder on this machine.
    Folder(&'a Path),
}

/// What installing did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Installed {
    /// The model folder holds this model now.
    Added(Manifest),
    /// It held it already, every file checked.
    Unchanged(Manifest),
}

/// Puts the model from `origin` into the state folder's model folder.
pub(crate) fn install(origin: &Origin<'_>, state_home: &Path) -> Result<Installed, String> {
    let target = folder(state_home);
    let wanted_source = match origin {
        Origin::Hub { pin, .. } => format!("{}@{}", pin.repository, pin.revision),
        Origin::Folder(from) => std::fs::canonicalize(from)
            .unwrap_or_else(|_| from.to_path_buf())
            .display()
            .to_string(),
    };
    if let Ok(present) = verify(&target)
        && present.source == wanted_source
    {
        return Ok(Installed::Unchanged(present));
    }
    let assembling = state_home.join(format!(".model-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&assembling); // A leftover of an earlier run with this process id, if any.
    create_private(&assembling)?;
    let assembled = assemble(origin, &assembling, wanted_source).and_then(|manifest| {
        Model::load(&assembling).map_err(|error| format!("the model cannot be used: {error}"))?;
        swap_in(&assembling, &target)?;
        Ok(manifest)
    });
    if assembled.is_err() {
        let _ = std::fs::remove_dir_all(&assembling); // Nothing of a failed run stays.
    }
    assembled.map(Installed::Added)
}

/// Downloads or copies the files into `into` and writes the manifest.
fn assemble(origin: &Origin<'_>, into: &Path, source: String) -> Result<Manifest, String> {
    let manifest = match origin {
        Origin::Hub { pin, endpoint } => {
            for file in &pin.files {
                let url = fetch::url(endpoint, pin, file);
                fetch::download(&url, file, &into.join(&file.name))
                    .map_err(|error| error.to_string())?;
            }
            Manifest {
                source,
                license: Some(pin.license.clone()),
                files: pin.files.clone(),
            }
        }
        Origin::Folder(from) => {
            Model::load(from).map_err(|error| {
                format!("the model at {} cannot be used: {error}", from.display())
            })?;
            let mut files = Vec::new();
            for name in MODEL_FILES {
                let source_file = from.join(name);
                if !source_file.is_file() {
                    continue;
                }
                let copy = into.join(name);
                std::fs::copy(&source_file, &copy)
                    .map_err(|error| format!("cannot copy {}: {error}", source_file.display()))?;
                let (bytes, sha256) = fetch::hash_file(&copy)
                    .map_err(|error| format!("cannot read {}: {error}", copy.display()))?;
                files.push(PinnedFile {
                    name: name.to_owned(),
                    bytes,
                    sha256,
                });
            }
            Manifest {
                source,
                license: None,
                files,
            }
        }
    };
    let text = serde_json::to_string_pretty(&manifest).expect("a manifest serializes") + "\n";
    std::fs::write(into.join(MANIFEST), text)
        .map_err(|error| format!("cannot write {}: {error}", into.join(MANIFEST).display()))?;
    Ok(manifest)
}

/// Replaces `target` with `assembled`: the old model is moved aside first and removed once the new one is in.
fn swap_in(assembled: &Path, target: &Path) -> Result<(), String> {
    let aside = target.with_file_name(format!(".model-old-{}", std::process::id()));
    let had = target.exists();
    if had {
        std::fs::rename(target, &aside).map_err(|error| {
            format!(
                "cannot move the old model at {} aside: {error}",
                target.display()
            )
        })?;
    }
    if let Err(error) = std::fs::rename(assembled, target) {
        if had {
            let _ = std::fs::rename(&aside, target); // Put back what was there; the error below says what failed.
        }
        return Err(format!(
            "cannot put the model in {}: {error}",
            target.display()
        ));
    }
    if had {
        let _ = std::fs::remove_dir_all(&aside); // The old model's files; a leftover costs disk, not correctness.
    }
    Ok(())
}

fn create_private(folder: &Path) -> Result<(), String> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(folder)
        .map_err(|error| format!("cannot create {}: {error}", folder.display()))
}

/// The manifest of the model in `folder`, every file checked against it (size and SHA-256).
pub(crate) fn verify(folder: &Path) -> Result<Manifest, String> {
    let path = folder.join(MANIFEST);
    let text =
        std::fs::read_to_string(&path).map_err(|error| format!("{}: {error}", path.display()))?;
    let manifest: Manifest =
        serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))?;
    for file in &manifest.files {
        let at = folder.join(&file.name);
        let (bytes, sha256) =
            fetch::hash_file(&at).map_err(|error| format!("{}: {error}", at.display()))?;
        if bytes != file.bytes || !sha256.eq_ignore_ascii_case(&file.sha256) {
            return Err(format!(
                "{} changed since setup put it there ({bytes} bytes, SHA-256 {sha256}; expected {} bytes, {})",
                at.display(),
                file.bytes,
                file.sha256
            ));
        }
    }
    Ok(manifest)
}

/// The model folder of a state folder, when setup made it (it has a manifest).
pub(crate) fn set_up_by_obsmcp(state_home: &Path) -> Option<PathBuf> {
    let target = folder(state_home);
    target.join(MANIFEST).is_file().then_some(target)
}

#[cfg(test)]
mod tests;

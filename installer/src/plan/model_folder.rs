//! Where `obsmcp setup --semantic` puts the embedding model (`model` in obsmcp's state folder, where the bridge looks
//! when no `--model` is given), and how uninstall knows what it put there: the files `obsmcp-model.json` names. A
//! folder with no such record is the user's own and is left alone.

use std::path::{Path, PathBuf};

/// The record setup writes beside the model's files.
pub const MANIFEST: &str = "obsmcp-model.json";

/// The model folder of a state folder.
pub fn folder(state_home: &Path) -> PathBuf {
    state_home.join("model")
}

/// The files setup put in the model folder (the record last), when setup made it; names that are not plain are
/// left out, so a changed record cannot reach outside the folder.
pub fn files(state_home: &Path) -> Option<Vec<PathBuf>> {
    let folder = folder(state_home);
    let record = folder.join(MANIFEST);
    let text = std::fs::read_to_string(&record).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let mut files: Vec<PathBuf> = value
        .get("files")?
        .as_array()?
        .iter()
        .filter_map(|file| file.get("name")?.as_str())
        .filter(|name| {
            !name.is_empty()
                && !name.starts_with('.')
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        })
        .map(|name| folder.join(name))
        .collect();
    files.push(record);
    Some(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_files_the_record_names_plainly_are_setups() {
        let state = tempfile::tempdir().unwrap();
        assert_eq!(files(state.path()), None);
        std::fs::create_dir_all(folder(state.path())).unwrap();
        std::fs::write(
            folder(state.path()).join(MANIFEST),
            r#"{"files": [{"name": "model.safetensors"}, {"name": "../../escape"}, {"name": "tokenizer.json"}]}"#,
        )
        .unwrap();
        let named = files(state.path()).unwrap();
        let names: Vec<_> = named
            .iter()
            .map(|path| path.file_name().unwrap().to_str().unwrap())
            .collect();
        assert_eq!(names, ["model.safetensors", "tokenizer.json", MANIFEST]);
    }
}

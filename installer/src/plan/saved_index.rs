//! Where the bridge saves a vault's offline index between its processes: `index/<16 hex digits>.bin` in obsmcp's
//! state folder, named by a hash of the vault's real path and config folder, never inside the vault. The bridge
//! writes it (`src/offline/index/saved.rs`); uninstall removes it with the vault's plugin. One function names it for both,
//! so that uninstall finds exactly the file the bridge wrote.

use std::path::{Path, PathBuf};

use sha2::Digest;

/// The folder of the saved indexes in obsmcp's state folder.
pub fn folder(state_home: &Path) -> PathBuf {
    state_home.join("index")
}

/// What a saved index is for, as written inside it: the vault's real path and its config folder.
pub fn key(real_root: &Path, config_dir: &str) -> String {
    format!("{}\n{config_dir}", real_root.display())
}

/// The file of the index of the vault at `real_root` (symlinks resolved) with config folder `config_dir`.
pub fn file(folder: &Path, real_root: &Path, config_dir: &str) -> PathBuf {
    folder.join(format!("{}.bin", stem(real_root, config_dir)))
}

/// The file of the same vault's embedding index (search by meaning), beside its index.
pub fn vectors_file(folder: &Path, real_root: &Path, config_dir: &str) -> PathBuf {
    folder.join(format!("{}.vectors", stem(real_root, config_dir)))
}

/// Both files a vault's saved indexes may have.
pub fn files(folder: &Path, real_root: &Path, config_dir: &str) -> [PathBuf; 2] {
    [
        file(folder, real_root, config_dir),
        vectors_file(folder, real_root, config_dir),
    ]
}

fn stem(real_root: &Path, config_dir: &str) -> String {
    let digest = sha2::Sha256::digest(key(real_root, config_dir).as_bytes());
    digest[..8]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Whether `path` is named as [`file`] or [`vectors_file`] name a saved index (uninstall removes nothing else from
/// the folder).
pub fn is_index_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
        return false;
    };
    name.strip_suffix(".bin")
        .or_else(|| name.strip_suffix(".vectors"))
        .is_some_and(|stem| stem.len() == 16 && stem.bytes().all(|byte| byte.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_depends_on_the_vault_and_its_config_folder() {
        let folder = Path::new("/state/index");
        let a = file(folder, Path::new("/home/u/Notes"), ".obsidian");
        assert_eq!(a, file(folder, Path::new("/home/u/Notes"), ".obsidian"));
        assert_ne!(a, file(folder, Path::new("/home/u/Other"), ".obsidian"));
        assert_ne!(a, file(folder, Path::new("/home/u/Notes"), ".config"));
        assert!(a.starts_with(folder));
        assert!(is_index_file(&a), "{}", a.display());
        let vectors = vectors_file(folder, Path::new("/home/u/Notes"), ".obsidian");
        assert_eq!(vectors.with_extension("bin"), a);
        assert!(is_index_file(&vectors));
        assert!(!is_index_file(Path::new("/state/index/notes.bin")));
        assert!(!is_index_file(Path::new(
            "/state/index/0123456789abcdef.tmp"
        )));
    }
}

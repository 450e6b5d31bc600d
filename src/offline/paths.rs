//! Path safety for offline reads: the plugin's rules (`obsidian-plugin/src/vault/paths.ts`), with the same messages.
//!
//! Every path an agent passes is refused rather than repaired when it could point outside the vault or into its
//! config folder: absolute paths, `..` segments, percent-encoded dots or separators, backslashes, control
//! characters. Symlinks are judged on disk: a file whose real location is outside the vault is never read.

use std::path::{Path, PathBuf};

use super::text::utf16_len;

const MAX_PATH_CHARS: usize = 1024;

/// A refusal or lookup failure, shown to the agent as the tool's error text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolError(pub(crate) String);

impl ToolError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

/// `JSON.stringify` of a string, for quoting values inside messages.
pub(crate) fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// Validates a vault-relative path and returns it normalized (`""` is the vault root).
pub(crate) fn clean_vault_path(
    raw: &str,
    config_dir: &str,
    what: &str,
) -> Result<String, ToolError> {
    if utf16_len(raw) > MAX_PATH_CHARS {
        return Err(ToolError(format!(
            "{what} is longer than {MAX_PATH_CHARS} characters"
        )));
    }
    if raw.chars().any(|c| c <= '\u{1f}' || c == '\u{7f}') {
        return Err(ToolError(format!(
            "{what} contains a NUL or control character"
        )));
    }
    if raw.contains('\\') {
        return Err(ToolError(format!(
            "{what} contains a backslash: use \"/\" between folders"
        )));
    }
    let lower = raw.to_ascii_lowercase();
    if ["%2e", "%2f", "%5c", "%00"]
        .iter()
        .any(|encoded| lower.contains(encoded))
    {
        return Err(ToolError(format!(
            "{what} contains a percent-encoded dot, slash or NUL: pass the plain vault path"
        )));
    }
    let bytes = raw.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if raw.starts_with('/') || drive || raw.starts_with("~/") {
        return Err(ToolError(format!(
            "{what} {} is absolute: pass a path relative to the vault root",
            quote(raw)
        )));
    }
    let segments: Vec<&str> = raw
        .split('/')
        .filter(|segment| !segment.is_empty() && *segment != ".")
        .collect();
    if segments.contains(&"..") {
        return Err(ToolError(format!(
            "{what} {} has a \"..\" segment: paths must stay inside the vault",
            quote(raw)
        )));
    }
    let path = segments.join("/");
    if is_in_config_dir(&path, config_dir) {
        return Err(ToolError(format!(
            "{what} {} is inside the vault's config folder {config_dir}",
            quote(raw)
        )));
    }
    Ok(path)
}

/// Whether a normalized vault path is the config folder or inside it (compared case-insensitively).
pub(crate) fn is_in_config_dir(path: &str, config_dir: &str) -> bool {
    // Listings ask this for every file: most paths differ from the config folder in their first character.
    let first = |text: &str| text.chars().next().map(char::to_lowercase);
    let same_start = match (first(path), first(config_dir.trim_start_matches('/'))) {
        (Some(a), Some(b)) => a.eq(b),
        _ => false,
    };
    if !same_start {
        return false;
    }
    let config = config_dir.trim_matches('/').to_lowercase();
    let lower = path.to_lowercase();
    !config.is_empty() && (lower == config || lower.starts_with(&format!("{config}/")))
}

/// The file on disk for a vault path.
pub(crate) fn full_path(root: &Path, path: &str) -> PathBuf {
    let mut full = root.to_path_buf();
    for segment in path.split('/').filter(|segment| !segment.is_empty()) {
        full.push(segment);
    }
    full
}

/// Whether `path` (or, when it does not exist, its nearest existing ancestor) is inside the vault once symlinks
/// are followed. `real_root` is the vault folder's canonical path.
pub(crate) fn is_inside_vault_on_disk(root: &Path, real_root: &Path, path: &str) -> bool {
    let mut probe = full_path(root, path);
    loop {
        match std::fs::canonicalize(&probe) {
            Ok(real) => return real.starts_with(real_root),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                if !probe.pop() {
                    return false;
                }
            }
            Err(_) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(raw: &str) -> String {
        clean_vault_path(raw, ".obsidian", "path").unwrap_err().0
    }

    #[test]
    fn plain_paths_are_normalized() {
        assert_eq!(
            clean_vault_path("a//./b/", ".obsidian", "path").unwrap(),
            "a/b"
        );
        assert_eq!(clean_vault_path(".", ".obsidian", "path").unwrap(), "");
        assert_eq!(
            clean_vault_path("..notes/x", ".obsidian", "path").unwrap(),
            "..notes/x"
        );
    }

    #[test]
    fn escapes_are_refused_with_the_plugins_messages() {
        assert!(refused("../x").contains("has a \"..\" segment"));
        assert!(refused("a/../../x").contains(".."));
        assert!(refused("/etc/passwd").contains("is absolute"));
        assert!(refused("C:/x").contains("is absolute"));
        assert!(refused("~/x").contains("is absolute"));
        assert!(refused("%2e%2e/x").contains("percent-encoded"));
        assert!(refused("a%2Fb").contains("percent-encoded"));
        assert!(refused("a\0b").contains("NUL"));
        assert!(refused("a\\b").contains("backslash"));
        assert!(refused(&"x".repeat(1025)).contains("longer than 1024"));
        assert_eq!(
            refused(".Obsidian/app.json"),
            "path \".Obsidian/app.json\" is inside the vault's config folder .obsidian"
        );
    }

    #[test]
    fn symlinks_out_of_the_vault_are_detected() {
        let outside = tempfile::tempdir().unwrap();
        let vault = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "s").unwrap();
        std::fs::write(vault.path().join("in.md"), "i").unwrap();
        let real_root = std::fs::canonicalize(vault.path()).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                outside.path().join("secret.md"),
                vault.path().join("leak.md"),
            )
            .unwrap();
            assert!(!is_inside_vault_on_disk(
                vault.path(),
                &real_root,
                "leak.md"
            ));
        }
        assert!(is_inside_vault_on_disk(vault.path(), &real_root, "in.md"));
        assert!(is_inside_vault_on_disk(
            vault.path(),
            &real_root,
            "missing/new.md"
        ));
    }
}

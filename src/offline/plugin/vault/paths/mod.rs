//! Path safety for offline reads: the plugin's rules (`obsidian-plugin/src/vault/paths.ts`), with the same messages.
//!
//! Every path an agent passes is refused rather than repaired when it could point outside the vault or into its
//! config folder: absolute paths, `..` segments, percent-encoded dots or separators, backslashes, control
//! characters, Windows device names. Symlinks are judged on disk: a file whose real location is outside the vault is
//! never read.

//!
//! Three files, as the plugin's three: the lexical rules here (`vault/paths.ts`), the on-disk checks in `disk.rs`
//! (`vault/disk.ts`), and how a note or folder argument is resolved in `resolve.rs` (`vault/resolve.ts`).

mod disk;
mod resolve;

use std::path::{Path, PathBuf};

pub(crate) use disk::{
    FileIdentity, MAX_FILE_BYTES, RealVault, VaultFolder, is_inside_vault_on_disk, read_verified,
};
pub(crate) use resolve::{BytesRefusal, new_note_path};

use crate::offline::plugin::vault::errors::ToolError;

const MAX_PATH_CHARS: usize = 1024;

/// Bytes as MiB with one decimal, for messages about sizes and limits (`mib` in `vault/limits.ts`).
pub(crate) fn mib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1_048_576.0)
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
    // JavaScript's `length` (UTF-16 code units).
    if raw.encode_utf16().count() > MAX_PATH_CHARS {
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
    if raw.starts_with('/') || starts_with_drive(raw) || raw.starts_with("~/") {
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
    // `./C:/x` and `notes/C:/x`: on Windows, a `C:` segment pushed onto the vault folder replaces it with the drive.
    // `./~/x` is refused too, so that a cleaned path is always accepted again as it is.
    let path = segments.join("/");
    if segments.iter().any(|segment| starts_with_drive(segment)) || path.starts_with("~/") {
        return Err(ToolError(format!(
            "{what} {} is absolute: pass a path relative to the vault root",
            quote(raw)
        )));
    }
    // Refused on every OS: a vault synced to Windows would open the device there (`NUL.md` swallows what is
    // written, `CON` waits on the console).
    if let Some(segment) = segments
        .iter()
        .find(|segment| is_windows_device_name(segment))
    {
        return Err(ToolError(format!(
            "{what} {} has a segment Windows opens as a device, not a file: {} (CON, PRN, AUX, NUL, COM1-9 and \
             LPT1-9 are reserved, with any extension)",
            quote(raw),
            quote(segment)
        )));
    }
    if is_in_config_dir(&path, config_dir) {
        return Err(ToolError(format!(
            "{what} {} is inside the vault's config folder {config_dir}",
            quote(raw)
        )));
    }
    Ok(path)
}

/// Whether `text` begins with a Windows drive (`C:`).
fn starts_with_drive(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

/// Whether Windows opens a file or folder of this name as a device (the rule of Microsoft's "Naming Files, Paths,
/// and Namespaces", <https://learn.microsoft.com/windows/win32/fileio/naming-a-file>).
///
/// The name up to its first `.`, with trailing spaces dropped, compared case-insensitively: `nul.tar.gz` and
/// `NUL .md` are `NUL`. A `:` ends it too, as `COM1:` is the port's DOS spelling. Reserved: CON, PRN, AUX, NUL,
/// COM1-COM9 and LPT1-LPT9, and COM/LPT followed by a superscript ¹ ² ³, which Windows reads as digits (listed by
/// Microsoft since 2023, MicrosoftDocs/win32#1731). COM0 and LPT0 are accepted: Windows opens them as plain files,
/// and Microsoft, after listing them in 2022, removed them in 2025 as never reserved (MicrosoftDocs/win32#2008).
/// The plugin's `isWindowsDeviceName` applies the same rule.
pub(crate) fn is_windows_device_name(name: &str) -> bool {
    let stem = name
        .split(['.', ':'])
        .next()
        .unwrap_or_default()
        .trim_end_matches(' ')
        .to_ascii_uppercase();
    if matches!(stem.as_str(), "CON" | "PRN" | "AUX" | "NUL") {
        return true;
    }
    ["COM", "LPT"].iter().any(|port| {
        stem.strip_prefix(port).is_some_and(|number| {
            let mut digits = number.chars();
            matches!(
                (digits.next(), digits.next()),
                (Some('1'..='9' | '¹' | '²' | '³'), None)
            )
        })
    })
}

/// Whether a normalized vault path is the config folder or inside it (compared case-insensitively, and with
/// trailing dots and spaces dropped from each name, as Windows opens `.obsidian. /app.json` as `.obsidian/app.json`).
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
    if config.is_empty() {
        return false;
    }
    let mut names = path.split('/');
    config.split('/').all(|wanted| {
        names.next().is_some_and(|name| {
            name.trim_end_matches(['.', ' ']).to_lowercase() == wanted.trim_end_matches(['.', ' '])
        })
    })
}

/// The file on disk for a vault path.
pub(crate) fn full_path(root: &Path, path: &str) -> PathBuf {
    let mut full = root.to_path_buf();
    for segment in path.split('/').filter(|segment| !segment.is_empty()) {
        full.push(segment);
    }
    full
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
    fn fuzz_drive_segments_after_the_first_are_refused() {
        // On Windows `PathBuf::push("C:")` replaces the vault folder: `notes/C:/x` would read `C:x`.
        assert!(refused("./C:/x").contains("is absolute"));
        assert!(refused("notes/D:/x").contains("is absolute"));
        assert!(refused("notes/d:").contains("is absolute"));
        assert_eq!(
            clean_vault_path("notes/10:30.md", ".obsidian", "path").unwrap(),
            "notes/10:30.md"
        );
    }

    #[test]
    fn fuzz_a_cleaned_home_path_is_not_accepted_once_and_refused_again() {
        assert!(refused("./~/x").contains("is absolute"));
        assert_eq!(clean_vault_path("~", ".obsidian", "path").unwrap(), "~");
        assert_eq!(
            clean_vault_path("a/~/x", ".obsidian", "path").unwrap(),
            "a/~/x"
        );
    }

    #[test]
    fn fuzz_config_folder_with_trailing_dots_or_spaces_is_refused() {
        // Windows drops them: `.obsidian./plugins/obsmcp/data.json` opens the file that holds the bearer token.
        assert!(refused(".obsidian./plugins/obsmcp/data.json").contains("config folder"));
        assert!(refused(".obsidian /app.json").contains("config folder"));
        assert!(refused(".Obsidian. .").contains("config folder"));
        assert!(is_in_config_dir(".obsidian.", "/.obsidian/"));
        assert!(!is_in_config_dir(".obsidianx/a", ".obsidian"));
        assert!(!is_in_config_dir("notes/.obsidian", ".obsidian"));
    }

    #[test]
    fn windows_device_names_are_refused_in_every_segment() {
        assert_eq!(
            refused("notes/CON.md"),
            "path \"notes/CON.md\" has a segment Windows opens as a device, not a file: \"CON.md\" (CON, PRN, \
             AUX, NUL, COM1-9 and LPT1-9 are reserved, with any extension)"
        );
        for raw in [
            "CON.md",
            "nul",
            "Nul.md",
            "prn.txt",
            "notes/COM1.txt",
            "aux.tar.gz",
            "LPT9",
            "lpt5/x.md",
            "a/b/com9/c.md",
            "./NUL/",
            "NUL .md",
            "con  ",
            "nul.",
            "COM1:",
            "con:x.md",
        ] {
            assert!(
                refused(raw).contains("opens as a device"),
                "{raw:?} was not refused as a device name"
            );
        }
    }

    #[test]
    fn com_and_lpt_with_a_superscript_digit_are_devices_but_com0_and_lpt0_are_not() {
        for raw in ["COM¹.md", "com²", "notes/LPT³.txt", "lpt¹"] {
            assert!(
                refused(raw).contains("opens as a device"),
                "{raw:?} was not refused as a device name"
            );
        }
        for raw in ["COM0.md", "lpt0", "notes/com0/x.md", "COM⁴.md", "COM₁.md"] {
            assert_eq!(
                clean_vault_path(raw, ".obsidian", "path").as_deref(),
                Ok(raw)
            );
        }
    }

    #[test]
    fn names_that_only_contain_a_device_name_are_accepted_beside_the_device_itself() {
        for (device, look_alike) in [
            ("CON.md", "CONSOLE.md"),
            ("nul.md", "nullable.md"),
            ("com1.md", "com10.md"),
            ("LPT1", "LPT12"),
            ("aux.md", "auxiliary.md"),
            ("notes/prn/x.md", "notes/prnt/x.md"),
            ("nul.md", "my nul.md"),
            ("nul.md", "x.nul"),
            ("con.md", "con-notes.md"),
            ("com1", "com"),
            ("LPT2.md", "lpt.md"),
        ] {
            assert!(
                refused(device).contains("opens as a device"),
                "{device:?} was not refused as a device name"
            );
            assert_eq!(
                clean_vault_path(look_alike, ".obsidian", "path").as_deref(),
                Ok(look_alike),
                "{look_alike:?} only looks like a device name"
            );
        }
    }

    #[test]
    fn symlinks_out_of_the_vault_are_detected() {
        let outside = tempfile::tempdir().unwrap();
        let vault = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "s").unwrap();
        std::fs::write(vault.path().join("in.md"), "i").unwrap();
        let real_root = RealVault::new(std::fs::canonicalize(vault.path()).unwrap(), ".obsidian");
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

//! Finding vaults: Obsidian's registry `obsidian.json` in every place an install keeps it (Linux native, Flatpak,
//! Snap; macOS; Windows), and any folder the user names. The registry is only read: Obsidian rewrites it while it
//! runs. A vault's config folder is usually `.obsidian`, but Obsidian lets each device rename it, so it can be
//! given, or found as the dot-folder that holds `app.json` or `plugins/`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::environment::{Environment, Os};
use crate::obsidian_files::plugin_data::DEFAULT_CONFIG_DIR;

/// One place an Obsidian install keeps `obsidian.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryLocation {
    /// Which install this is ("native", "Flatpak", "Snap").
    pub install: &'static str,
    /// The file's path.
    pub path: PathBuf,
}

/// Every place `obsidian.json` may be on this OS, most common first.
pub fn registry_locations(environment: &Environment) -> Vec<RegistryLocation> {
    let home = environment.home();
    let native = |path: PathBuf| RegistryLocation {
        install: "native",
        path,
    };
    match environment.os() {
        Os::Linux => vec![
            native(
                environment
                    .xdg_config_home()
                    .join("obsidian")
                    .join("obsidian.json"),
            ),
            RegistryLocation {
                install: "Flatpak",
                path: home.join(".var/app/md.obsidian.Obsidian/config/obsidian/obsidian.json"),
            },
            RegistryLocation {
                install: "Snap",
                path: home.join("snap/obsidian/current/.config/obsidian/obsidian.json"),
            },
        ],
        Os::MacOs => vec![native(
            home.join("Library/Application Support/obsidian/obsidian.json"),
        )],
        Os::Windows => vec![native(
            environment
                .app_data()
                .join("obsidian")
                .join("obsidian.json"),
        )],
    }
}

/// A vault listed in a registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredVault {
    /// Obsidian's id for the vault (16 hex characters); restricted mode is stored under it.
    pub id: String,
    /// The vault folder.
    pub path: PathBuf,
    /// Whether Obsidian had it open when it last wrote the registry.
    pub open: bool,
    /// The registry that lists it.
    pub registry: PathBuf,
}

/// Why a registry could not be read; discovery reports these and goes on with the others.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The file exists but could not be read.
    #[error("could not read Obsidian's vault list `{path}`")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file is not the JSON Obsidian writes.
    #[error("Obsidian's vault list `{path}` is not valid: {source}")]
    Invalid {
        path: PathBuf,
        source: serde_json::Error,
    },
}

#[derive(Deserialize)]
struct Registry {
    #[serde(default)]
    vaults: serde_json::Map<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct RegistryEntry {
    path: PathBuf,
    #[serde(default)]
    open: bool,
}

/// Parses one `obsidian.json`; entries without a path are skipped.
pub fn parse_registry(
    text: &str,
    registry: &Path,
) -> Result<Vec<RegisteredVault>, serde_json::Error> {
    let parsed: Registry = serde_json::from_str(text)?;
    let mut vaults: Vec<RegisteredVault> = parsed
        .vaults
        .into_iter()
        .filter_map(|(id, entry)| {
            let entry: RegistryEntry = serde_json::from_value(entry).ok()?;
            Some(RegisteredVault {
                id,
                path: entry.path,
                open: entry.open,
                registry: registry.to_owned(),
            })
        })
        .collect();
    vaults.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(vaults)
}

/// Every vault in every registry present on this machine, once each, plus the registries that could not be read.
pub fn discover(environment: &Environment) -> (Vec<RegisteredVault>, Vec<RegistryError>) {
    let mut vaults: Vec<RegisteredVault> = Vec::new();
    let mut errors = Vec::new();
    for location in registry_locations(environment) {
        let text = match std::fs::read_to_string(&location.path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => {
                errors.push(RegistryError::Unreadable {
                    path: location.path,
                    source,
                });
                continue;
            }
        };
        match parse_registry(&text, &location.path) {
            Ok(found) => {
                for vault in found {
                    if !vaults.iter().any(|known| known.path == vault.path) {
                        vaults.push(vault);
                    }
                }
            }
            Err(source) => errors.push(RegistryError::Invalid {
                path: location.path,
                source,
            }),
        }
    }
    (vaults, errors)
}

/// How a vault's config folder was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConfigDirSource {
    /// Given with `--config-dir`.
    Given,
    /// `.obsidian` exists.
    Default,
    /// Another dot-folder holds `app.json` or `plugins/`.
    Detected,
    /// Nothing found; `.obsidian` will be created.
    Created,
}

/// The config folder to use in `vault`, and how it was chosen.
pub fn config_dir(vault: &Path, given: Option<&str>) -> (String, ConfigDirSource) {
    if let Some(given) = given {
        return (given.to_owned(), ConfigDirSource::Given);
    }
    if vault.join(DEFAULT_CONFIG_DIR).is_dir() {
        return (DEFAULT_CONFIG_DIR.to_owned(), ConfigDirSource::Default);
    }
    let mut candidates: Vec<String> = std::fs::read_dir(vault)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let path = entry.path();
            let looks_like_config = name.starts_with('.')
                && path.is_dir()
                && (path.join("app.json").is_file() || path.join("plugins").is_dir());
            looks_like_config.then_some(name)
        })
        .collect();
    candidates.sort();
    match candidates.into_iter().next() {
        Some(found) => (found, ConfigDirSource::Detected),
        None => (DEFAULT_CONFIG_DIR.to_owned(), ConfigDirSource::Created),
    }
}

/// The vault's display name: its folder name, as Obsidian shows it.
pub fn vault_name(vault: &Path) -> String {
    vault.file_name().map_or_else(
        || vault.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

/// A name fit for every client's server-name rules (`^[a-z0-9_-]+$`), made from a vault's name.
pub fn slug(name: &str) -> String {
    let mut slug = String::new();
    for character in name.chars().flat_map(char::to_lowercase) {
        if character.is_ascii_alphanumeric() || character == '_' {
            slug.push(character);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_matches('-').to_owned();
    if slug.is_empty() {
        "vault".to_owned()
    } else {
        slug
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(environment: &Environment) -> Vec<PathBuf> {
        registry_locations(environment)
            .into_iter()
            .map(|location| location.path)
            .collect()
    }

    #[test]
    fn linux_native_flatpak_and_snap() {
        let environment = Environment::new(Os::Linux, "/home/me");
        assert_eq!(
            paths(&environment),
            [
                PathBuf::from("/home/me/.config/obsidian/obsidian.json"),
                PathBuf::from(
                    "/home/me/.var/app/md.obsidian.Obsidian/config/obsidian/obsidian.json"
                ),
                PathBuf::from("/home/me/snap/obsidian/current/.config/obsidian/obsidian.json"),
            ]
        );
    }

    // Unix only: `/cfg` is absolute there, not on Windows (no drive), and XDG folders that are not are ignored.
    #[cfg(unix)]
    #[test]
    fn linux_honours_xdg_config_home() {
        let environment =
            Environment::new(Os::Linux, "/home/me").with_var("XDG_CONFIG_HOME", "/cfg");
        assert_eq!(
            paths(&environment)[0],
            PathBuf::from("/cfg/obsidian/obsidian.json")
        );
    }

    #[test]
    fn macos() {
        let environment = Environment::new(Os::MacOs, "/Users/me");
        assert_eq!(
            paths(&environment),
            [PathBuf::from(
                "/Users/me/Library/Application Support/obsidian/obsidian.json"
            )]
        );
    }

    #[test]
    fn windows_uses_appdata() {
        let appdata = r"C:\Users\me\AppData\Roaming";
        let environment =
            Environment::new(Os::Windows, r"C:\Users\me").with_var("APPDATA", appdata);
        assert_eq!(
            paths(&environment),
            [PathBuf::from(appdata)
                .join("obsidian")
                .join("obsidian.json")]
        );
    }

    #[test]
    fn parses_the_registry_and_keeps_open_flags() {
        let text = r#"{"vaults":{"0123456789abcdef":{"path":"/v/b","ts":1,"open":true},"fedcba9876543210":{"path":"/v/a","ts":2}},"frame":"hidden"}"#;
        let vaults = parse_registry(text, Path::new("/r/obsidian.json")).unwrap();
        assert_eq!(vaults.len(), 2);
        assert_eq!(
            (vaults[0].path.as_path(), vaults[0].open),
            (Path::new("/v/a"), false)
        );
        assert_eq!(
            (vaults[1].id.as_str(), vaults[1].open),
            ("0123456789abcdef", true)
        );
    }

    #[test]
    fn discovery_merges_registries_and_reports_broken_ones() {
        let home = tempfile::tempdir().unwrap();
        let environment = Environment::new(Os::Linux, home.path());
        let locations = registry_locations(&environment);
        std::fs::create_dir_all(locations[0].path.parent().unwrap()).unwrap();
        std::fs::write(&locations[0].path, r#"{"vaults":{"a":{"path":"/v/one"}}}"#).unwrap();
        std::fs::create_dir_all(locations[1].path.parent().unwrap()).unwrap();
        std::fs::write(
            &locations[1].path,
            r#"{"vaults":{"b":{"path":"/v/one"},"c":{"path":"/v/two"}}}"#,
        )
        .unwrap();
        std::fs::create_dir_all(locations[2].path.parent().unwrap()).unwrap();
        std::fs::write(&locations[2].path, "{not json").unwrap();
        let (vaults, errors) = discover(&environment);
        assert_eq!(
            vaults
                .iter()
                .map(|vault| vault.path.clone())
                .collect::<Vec<_>>(),
            [PathBuf::from("/v/one"), PathBuf::from("/v/two")]
        );
        assert_eq!(errors.len(), 1);
        assert!(errors[0].to_string().contains("snap"));
    }

    #[test]
    fn config_dir_given_default_detected_or_created() {
        let vault = tempfile::tempdir().unwrap();
        assert_eq!(
            config_dir(vault.path(), None),
            (".obsidian".to_owned(), ConfigDirSource::Created)
        );
        std::fs::create_dir_all(vault.path().join(".obsidian-mobile/plugins")).unwrap();
        std::fs::create_dir_all(vault.path().join(".git")).unwrap();
        assert_eq!(
            config_dir(vault.path(), None),
            (".obsidian-mobile".to_owned(), ConfigDirSource::Detected)
        );
        std::fs::create_dir_all(vault.path().join(".obsidian")).unwrap();
        assert_eq!(
            config_dir(vault.path(), None),
            (".obsidian".to_owned(), ConfigDirSource::Default)
        );
        assert_eq!(
            config_dir(vault.path(), Some(".work")),
            (".work".to_owned(), ConfigDirSource::Given)
        );
    }

    #[test]
    fn slugs_fit_every_client() {
        assert_eq!(slug("My Notes (2024)"), "my-notes-2024");
        assert_eq!(slug("Ünïcode Vault"), "n-code-vault");
        assert_eq!(slug("///"), "vault");
        assert_eq!(slug("work_notes"), "work_notes");
    }
}

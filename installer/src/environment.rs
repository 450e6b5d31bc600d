//! The injected view of the machine: home folder, environment variables and operating system. Every path obsmcp
//! computes goes through one of these, so tests can describe a macOS or Windows machine on Linux and never see the
//! developer's real home.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The operating systems whose file layouts obsmcp knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    /// Linux and other Unix-likes with XDG folders.
    Linux,
    /// macOS.
    MacOs,
    /// Windows.
    Windows,
}

impl Os {
    /// The system this binary was built for.
    pub fn current() -> Self {
        if cfg!(target_os = "macos") {
            Os::MacOs
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        }
    }
}

/// Home, environment and OS, as seen by every lookup in this crate.
#[derive(Debug, Clone)]
pub struct Environment {
    os: Os,
    home: PathBuf,
    vars: BTreeMap<String, String>,
}

impl Environment {
    /// An environment with only a home folder; add variables with [`Environment::with_var`].
    pub fn new(os: Os, home: impl Into<PathBuf>) -> Self {
        Self {
            os,
            home: home.into(),
            vars: BTreeMap::new(),
        }
    }

    /// The running process's environment, or `None` when no home folder can be found.
    pub fn from_process() -> Option<Self> {
        let vars: BTreeMap<String, String> = std::env::vars().collect();
        let os = Os::current();
        let home = match os {
            Os::Windows => vars.get("USERPROFILE").map(PathBuf::from),
            Os::Linux | Os::MacOs => vars.get("HOME").map(PathBuf::from),
        }
        .filter(|home| !home.as_os_str().is_empty())
        .or_else(std::env::home_dir)?;
        Some(Self { os, home, vars })
    }

    /// Adds or replaces one variable.
    pub fn with_var(mut self, name: &str, value: impl Into<String>) -> Self {
        self.vars.insert(name.to_owned(), value.into());
        self
    }

    /// The operating system.
    pub fn os(&self) -> Os {
        self.os
    }

    /// The user's home folder.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// A variable's value; unset and empty read alike, as the clients treat them.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|value| !value.is_empty())
    }

    /// A variable holding a folder, as a path.
    pub fn var_path(&self, name: &str) -> Option<PathBuf> {
        self.var(name).map(PathBuf::from)
    }

    /// `$XDG_CONFIG_HOME`, or `~/.config`.
    pub fn xdg_config_home(&self) -> PathBuf {
        self.var_path("XDG_CONFIG_HOME")
            .filter(|path| path.is_absolute())
            .unwrap_or_else(|| self.home.join(".config"))
    }

    /// `%APPDATA%` (roaming), or its usual place under the home folder.
    pub fn app_data(&self) -> PathBuf {
        self.var_path("APPDATA")
            .unwrap_or_else(|| self.home.join("AppData").join("Roaming"))
    }

    /// `%LOCALAPPDATA%`, or its usual place under the home folder.
    pub fn local_app_data(&self) -> PathBuf {
        self.var_path("LOCALAPPDATA")
            .unwrap_or_else(|| self.home.join("AppData").join("Local"))
    }

    /// The per-user application config folder: XDG config on Linux, `~/Library/Application Support` on macOS,
    /// `%APPDATA%` on Windows.
    pub fn config_home(&self) -> PathBuf {
        match self.os {
            Os::Linux => self.xdg_config_home(),
            Os::MacOs => self.home.join("Library").join("Application Support"),
            Os::Windows => self.app_data(),
        }
    }

    /// Where obsmcp keeps its own record of what setup changed.
    pub fn state_home(&self) -> PathBuf {
        match self.os {
            Os::Linux => self
                .var_path("XDG_STATE_HOME")
                .filter(|path| path.is_absolute())
                .unwrap_or_else(|| self.home.join(".local").join("state"))
                .join("obsmcp"),
            Os::MacOs => self
                .home
                .join("Library")
                .join("Application Support")
                .join("obsmcp"),
            Os::Windows => self.local_app_data().join("obsmcp"),
        }
    }

    /// The first file named `name` on `PATH` (with the usual Windows extensions).
    pub fn find_executable(&self, name: &str) -> Option<PathBuf> {
        let separator = if self.os == Os::Windows { ';' } else { ':' };
        let extensions: &[&str] = if self.os == Os::Windows {
            &[".exe", ".cmd", ".bat", ""]
        } else {
            &[""]
        };
        self.var("PATH")?
            .split(separator)
            .filter(|folder| !folder.is_empty())
            .flat_map(|folder| {
                extensions
                    .iter()
                    .map(move |extension| Path::new(folder).join(format!("{name}{extension}")))
            })
            .find(|candidate| candidate.is_file())
    }
}

/// A path's real location (`std::fs::canonicalize`: absolute, symlinks followed), spelled as people and clients
/// write it. On Windows canonicalize answers in the verbatim form (`\\?\C:\Users\me\Vault`), which client
/// entries, reports and comparisons with Obsidian's registry would then carry; the plain form is used whenever it
/// names the same file.
pub fn real_path(path: impl AsRef<Path>) -> std::io::Result<PathBuf> {
    let real = std::fs::canonicalize(path)?;
    if cfg!(windows)
        && let Some(plain) = real.to_str().and_then(plain_windows_spelling)
    {
        return Ok(PathBuf::from(plain));
    }
    Ok(real)
}

/// `\\?\C:\x` as `C:\x` and `\\?\UNC\server\share\x` as `\\server\share\x`; `None` for any other form, and when
/// only the verbatim form reaches the file: a path of 260 characters or more (MAX_PATH), or a name that Windows
/// reads otherwise when it is parsed (a device name such as `NUL.md`, a trailing dot or space, `.` or `..`).
fn plain_windows_spelling(verbatim: &str) -> Option<String> {
    let plain = if let Some(rest) = verbatim.strip_prefix(r"\\?\UNC\") {
        format!(r"\\{rest}")
    } else {
        let rest = verbatim.strip_prefix(r"\\?\")?;
        let bytes = rest.as_bytes();
        if !(bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && &bytes[1..3] == b":\\") {
            return None;
        }
        rest.to_owned()
    };
    let names_parse_back = plain
        .split('\\')
        .skip(if plain.starts_with(r"\\") { 4 } else { 1 })
        .filter(|name| !name.is_empty())
        .all(|name| {
            name != "."
                && name != ".."
                && !name.ends_with(['.', ' '])
                && !name.contains('/')
                && !is_device_name(name)
        });
    (plain.encode_utf16().count() < 260 && names_parse_back).then_some(plain)
}

/// Whether Windows opens a name as a device: CON, PRN, AUX, NUL, COM1-9 or LPT1-9 (with ¹ ² ³ as digits), before
/// any extension and trailing spaces.
fn is_device_name(name: &str) -> bool {
    let stem = name
        .split(['.', ':'])
        .next()
        .unwrap_or_default()
        .trim_end_matches(' ')
        .to_ascii_uppercase();
    let port = stem
        .strip_prefix("COM")
        .or_else(|| stem.strip_prefix("LPT"));
    matches!(stem.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || port.is_some_and(|digit| {
            let mut chars = digit.chars();
            matches!(
                (chars.next(), chars.next()),
                (Some('1'..='9' | '¹' | '²' | '³'), None)
            )
        })
}

/// Quotes a word for a POSIX shell when it needs it, so a printed command can be pasted as is.
pub fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:=@%,~".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_variables_read_as_unset() {
        let environment = Environment::new(Os::Linux, "/home/me").with_var("XDG_CONFIG_HOME", "");
        assert_eq!(
            environment.xdg_config_home(),
            PathBuf::from("/home/me/.config")
        );
    }

    #[test]
    fn a_relative_xdg_folder_is_ignored_as_the_spec_says() {
        let environment =
            Environment::new(Os::Linux, "/home/me").with_var("XDG_CONFIG_HOME", "relative");
        assert_eq!(
            environment.xdg_config_home(),
            PathBuf::from("/home/me/.config")
        );
    }

    #[test]
    fn verbatim_windows_paths_are_spelled_plainly_when_that_names_the_same_file() {
        assert_eq!(
            plain_windows_spelling(r"\\?\C:\Users\me\Documents\My Vault").as_deref(),
            Some(r"C:\Users\me\Documents\My Vault")
        );
        assert_eq!(
            plain_windows_spelling(r"\\?\UNC\nas\share\Vault").as_deref(),
            Some(r"\\nas\share\Vault")
        );
        assert_eq!(plain_windows_spelling(r"\\?\C:\").as_deref(), Some(r"C:\"));
        for verbatim in [
            r"C:\Users\me",
            r"\\?\Volume{0a1b2c3d-0000-0000-0000-100000000000}\Vault",
            r"\\?\C:\Users\me\NUL.md",
            r"\\?\C:\Users\me\com1\x",
            r"\\?\C:\Users\me\trailing.",
            r"\\?\C:\Users\me\trailing ",
        ] {
            assert_eq!(plain_windows_spelling(verbatim), None, "{verbatim}");
        }
        let long = format!(r"\\?\C:\{}", "x".repeat(300));
        assert_eq!(plain_windows_spelling(&long), None);
    }

    #[test]
    fn real_path_resolves_symlinks_and_leaves_other_systems_paths_as_they_are() {
        let folder = tempfile::tempdir().unwrap();
        let real = real_path(folder.path()).unwrap();
        let canonical = std::fs::canonicalize(folder.path()).unwrap();
        if cfg!(windows) {
            assert!(
                !real.to_string_lossy().starts_with(r"\\?\"),
                "{}",
                real.display()
            );
            assert_eq!(real_path(&real).unwrap(), real);
            assert_eq!(std::fs::canonicalize(&real).unwrap(), canonical);
        } else {
            assert_eq!(real, canonical);
        }
        assert!(real_path(folder.path().join("missing")).is_err());
    }

    #[test]
    fn config_home_per_os() {
        assert_eq!(
            Environment::new(Os::MacOs, "/Users/me").config_home(),
            PathBuf::from("/Users/me/Library/Application Support")
        );
        let windows = Environment::new(Os::Windows, r"C:\Users\me")
            .with_var("APPDATA", r"C:\Users\me\AppData\Roaming");
        assert_eq!(
            windows.config_home(),
            PathBuf::from(r"C:\Users\me\AppData\Roaming")
        );
    }
}

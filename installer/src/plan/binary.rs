//! Where client entries find obsmcp. Every entry runs the binary by absolute path, so that path must last: a binary
//! run from a build folder (`cargo run`, `target/`), a package manager's cache (`npx`, `uvx`) or a temporary folder
//! is gone after `cargo clean`, a cache prune or a reboot, and every client would then fail to start obsmcp. Setup
//! asks [`plan`] first: a binary in such a place is copied to the platform's user binary folder
//! ([`stable_path`]: `~/.local/bin/obsmcp`, `%LOCALAPPDATA%\Programs\obsmcp\obsmcp.exe`) and the entries run that
//! copy; a binary anywhere else (`cargo install`, `pipx`, a global npm install, a copy of your own) is used where it is.
//!
//! How a place is judged ([`transience`]): a folder above the binary holds `CACHEDIR.TAG` (the tag cargo's `target/`
//! and uv's cache carry), the path passes through npm's `_npx` cache, or it lies in the system's temporary folder
//! outside the home folder. The copy is atomic (a temporary file in the same folder, synced, renamed), so a bridge that
//! runs the old copy keeps running it; setup's record remembers the copy so that `uninstall` removes it with the last
//! entry.
//!
//! The stable path may hold something of the user's: their own script, or a link to their own tool (pipx puts one
//! there). Setup replaces, and uninstall removes, only an obsmcp build there ([`occupant`]), told by the [`MARKER`]
//! every build carries: it is read, never run, since running an unknown file to ask its version would run whatever it
//! is. Anything else is refused ([`Occupied`]) with a hint to move it aside; a link is never ours, as setup makes none.

use std::path::{Path, PathBuf};

use crate::environment::{Environment, Os};
use crate::plan::Change;
use crate::plan::write::{self, FileError};

/// Why a binary's place does not last.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transience {
    /// A Cargo build folder (`target/`), emptied by `cargo clean`.
    BuildFolder(PathBuf),
    /// A cache folder (its `CACHEDIR.TAG` says so: uv's cache, for one), pruned at will.
    Cache(PathBuf),
    /// npm's `npx` cache, pruned at will.
    Npx,
    /// The system's temporary folder, emptied at reboot.
    Temporary,
}

impl std::fmt::Display for Transience {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::BuildFolder(folder) => write!(
                out,
                "it runs from the build folder `{}`, which `cargo clean` empties",
                folder.display()
            ),
            Self::Cache(folder) => write!(
                out,
                "it runs from the cache `{}`, which is pruned at will",
                folder.display()
            ),
            Self::Npx => write!(out, "it runs from npx's cache, which is pruned at will"),
            Self::Temporary => write!(out, "it runs from a temporary folder"),
        }
    }
}

/// Whether `binary` (a real path, symlinks resolved) lives where it will not last, and why.
pub fn transience(environment: &Environment, binary: &Path) -> Option<Transience> {
    // A tool pipx or `uv tool` installed lasts until the user uninstalls it, whatever tag its folder carries (uv marks
    // its tools folder as a cache); its link on PATH is the package manager's.
    if super::tool_install::manager_of(binary).is_some() {
        return None;
    }
    for folder in binary.ancestors().skip(1) {
        if folder.join("CACHEDIR.TAG").is_file() {
            let is_target = folder.file_name().is_some_and(|name| name == "target")
                || folder
                    .parent()
                    .is_some_and(|parent| parent.join("Cargo.toml").is_file());
            return Some(if is_target {
                Transience::BuildFolder(folder.to_owned())
            } else {
                Transience::Cache(folder.to_owned())
            });
        }
    }
    if binary
        .components()
        .any(|component| component.as_os_str() == "_npx")
    {
        return Some(Transience::Npx);
    }
    let temporary = temporary_folder(environment);
    let home = crate::environment::real_path(environment.home())
        .unwrap_or_else(|_| environment.home().to_owned());
    if binary.starts_with(&temporary) && !binary.starts_with(&home) {
        return Some(Transience::Temporary);
    }
    None
}

/// The system's temporary folder as this environment names it (symlinks resolved: macOS's `/tmp` is `/private/tmp`).
fn temporary_folder(environment: &Environment) -> PathBuf {
    let named = ["TMPDIR", "TEMP", "TMP"]
        .iter()
        .find_map(|name| environment.var_path(name))
        .unwrap_or_else(|| match environment.os() {
            Os::Windows => environment.local_app_data().join("Temp"),
            Os::Linux | Os::MacOs => PathBuf::from("/tmp"),
        });
    crate::environment::real_path(&named).unwrap_or(named)
}

/// The platform's user binary folder's `obsmcp`: where a binary that would not last is installed.
pub fn stable_path(environment: &Environment) -> PathBuf {
    match environment.os() {
        Os::Windows => environment
            .local_app_data()
            .join("Programs")
            .join("obsmcp")
            .join("obsmcp.exe"),
        Os::Linux | Os::MacOs => environment.home().join(".local").join("bin").join("obsmcp"),
    }
}

/// A planned copy of the running binary to its stable place.
#[derive(Debug, Clone)]
pub struct BinaryInstall {
    /// The running binary.
    pub from: PathBuf,
    /// Where it goes, which the entries then run.
    pub to: PathBuf,
    /// Why the running binary's place does not do.
    pub why: Transience,
    /// Added (nothing there), updated (another obsmcp build there) or unchanged (the same bytes there).
    pub change: Change,
}

/// Bytes every obsmcp build carries, by which setup and uninstall tell an obsmcp binary at the stable path from a file
/// of the user's without running it. Its random tail keeps it out of anything that is not obsmcp.
pub static MARKER: &[u8] = b"obsmcp-binary-marker/5c1f0e9a3d7b4f629b8ea4d2c7e1f036";

/// Whether `bytes` (a whole file) carry the [`MARKER`], that is, are an obsmcp build.
pub fn carries_marker(bytes: &[u8]) -> bool {
    // Through `black_box` the compiler cannot fold the marker into the comparison's instructions: its bytes stay whole
    // in every build, and this search (which setup always links) is what puts them there.
    let marker: &[u8] = std::hint::black_box(MARKER);
    bytes.windows(marker.len()).any(|window| window == marker)
}

/// Why the stable path holds something that is not obsmcp's to replace or remove.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Occupied {
    /// A symbolic link: setup copies and never links, so it points at something of the user's.
    #[error("`{path}` is a symbolic link to `{target}`, which setup did not make")]
    Symlink { path: PathBuf, target: PathBuf },
    /// A folder or another kind of entry that is not a file.
    #[error("`{path}` is not a file")]
    NotAFile { path: PathBuf },
    /// A file without the marker: a script or program of the user's.
    #[error("`{path}` is not an obsmcp binary (it lacks the marker every obsmcp build carries)")]
    NotObsmcp { path: PathBuf },
    /// A file that could not be read, so could not be told apart.
    #[error("`{path}` could not be read to tell whether it is obsmcp: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Occupied {
    /// The path that is taken.
    pub fn path(&self) -> &Path {
        match self {
            Self::Symlink { path, .. }
            | Self::NotAFile { path }
            | Self::NotObsmcp { path }
            | Self::Unreadable { path, .. } => path,
        }
    }

    /// What the user can do: free the path, or run an obsmcp that needs no copy.
    pub fn hint(&self) -> String {
        let path = self.path().display();
        format!(
            "move `{path}` aside (rename it, to `{path}.mine` say) and run this again, or run an obsmcp installed \
             where it lasts (`cargo install obsmcp`, `pipx install obsmcp`, `npm install -g obsmcp`), which needs no copy"
        )
    }
}

/// Where a link at the stable path leads, when that place lasts (pipx's or uv's copy, linked from their folder of
/// links): its real path, not yet read.
fn lasting_link_target(environment: &Environment, occupied: &Occupied) -> Option<PathBuf> {
    let Occupied::Symlink { path, .. } = occupied else {
        return None;
    };
    let real = crate::environment::real_path(path).ok()?;
    transience(environment, &real).is_none().then_some(real)
}

/// The obsmcp build behind a link at the stable path, when it lasts where it is: its real path. A refused copy then
/// has something better to suggest than moving the link.
pub fn lasting_obsmcp_behind(environment: &Environment, occupied: &Occupied) -> Option<PathBuf> {
    let real = lasting_link_target(environment, occupied)?;
    std::fs::read(&real)
        .is_ok_and(|bytes| carries_marker(&bytes))
        .then_some(real)
}

/// The build behind such a link when it holds the very bytes of `running`: client entries run it where it is, as they
/// would had setup been run through the link, and nothing is copied.
pub fn lasting_twin(
    environment: &Environment,
    occupied: &Occupied,
    running: &Path,
) -> Option<PathBuf> {
    let real = lasting_link_target(environment, occupied)?;
    let there = std::fs::read(&real).ok()?;
    let same = carries_marker(&there) && std::fs::read(running).ok()? == there;
    same.then_some(real)
}

/// What is at `path`, read and never run: nothing (`None`), or the bytes of a file that may be replaced or removed (an
/// obsmcp build), or why it may not.
pub fn occupant(path: &Path) -> Result<Option<Vec<u8>>, Occupied> {
    let Some(bytes) = read_file_there(path)? else {
        return Ok(None);
    };
    if !carries_marker(&bytes) {
        return Err(Occupied::NotObsmcp {
            path: path.to_owned(),
        });
    }
    Ok(Some(bytes))
}

/// The bytes of the plain file at `path` (`None`: nothing there), refusing a link, a folder or an unreadable file.
fn read_file_there(path: &Path) -> Result<Option<Vec<u8>>, Occupied> {
    let unreadable = |source| Occupied::Unreadable {
        path: path.to_owned(),
        source,
    };
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(unreadable(source)),
    };
    if metadata.file_type().is_symlink() {
        return Err(Occupied::Symlink {
            path: path.to_owned(),
            target: std::fs::read_link(path).map_err(unreadable)?,
        });
    }
    if !metadata.is_file() {
        return Err(Occupied::NotAFile {
            path: path.to_owned(),
        });
    }
    std::fs::read(path).map(Some).map_err(unreadable)
}

/// What client entries should run for `running` (the real path of this binary): `None` when it can stay where it
/// is, else the copy to make, or why the stable path may not take it. An unreadable running binary is planned as an
/// update and fails when applied.
pub fn plan(environment: &Environment, running: &Path) -> Option<Result<BinaryInstall, Occupied>> {
    let why = transience(environment, running)?;
    let to = stable_path(environment);
    let change = match occupant(&to) {
        Err(occupied) => return Some(Err(occupied)),
        Ok(None) => Change::Added,
        Ok(Some(there)) if std::fs::read(running).is_ok_and(|here| here == there) => {
            Change::Unchanged
        }
        Ok(Some(_)) => Change::Updated,
    };
    Some(Ok(BinaryInstall {
        from: running.to_owned(),
        to,
        why,
        change,
    }))
}

impl BinaryInstall {
    /// The folders the copy creates (outermost first), for setup's record: uninstall removes them once empty. Those
    /// that also hold obsmcp's state folder (`~/.local`) are left out: see [`Self::own_folders_to_create`].
    pub fn folders_to_create(&self, state_home: &Path) -> Vec<PathBuf> {
        let mut missing: Vec<PathBuf> = self
            .to
            .ancestors()
            .skip(1)
            .take_while(|folder| !folder.as_os_str().is_empty() && !folder.exists())
            .filter(|folder| !state_home.starts_with(folder))
            .map(Path::to_owned)
            .collect();
        missing.reverse();
        missing
    }

    /// The missing folders above the copy that also hold obsmcp's state folder (`~/.local` for `~/.local/bin` and
    /// `~/.local/state/obsmcp`): obsmcp's own, removed with its record (`State::own_dirs`) once nothing is left.
    pub fn own_folders_to_create(&self, state_home: &Path) -> Vec<PathBuf> {
        self.to
            .ancestors()
            .skip(1)
            .take_while(|folder| !folder.as_os_str().is_empty() && !folder.exists())
            .filter(|folder| state_home.starts_with(folder))
            .map(Path::to_owned)
            .collect()
    }

    /// Copies the binary into place atomically, executable; nothing when it is there already.
    pub fn apply(&self) -> Result<(), FileError> {
        if self.change == Change::Unchanged {
            return Ok(());
        }
        let bytes = std::fs::read(&self.from).map_err(|source| FileError::Read {
            path: self.from.clone(),
            source,
        })?;
        set_aside_running_copy(&self.to)?;
        write::write_atomic_with_mode(&self.to, &bytes, 0o755)
    }
}

/// Windows cannot replace an executable that runs (a bridge a client started): it can rename it, so the old copy
/// steps aside as `obsmcp.exe.old` (replaced at the next update) and the new one takes its name.
#[cfg(windows)]
fn set_aside_running_copy(path: &Path) -> Result<(), FileError> {
    if !path.exists() {
        return Ok(());
    }
    let aside = path.with_extension("exe.old");
    // An older set-aside copy that still runs cannot go; the rename below then says why.
    let _ = std::fs::remove_file(&aside);
    std::fs::rename(path, &aside).map_err(|source| FileError::Write {
        path: path.to_owned(),
        source,
    })
}

/// Elsewhere a rename over a running binary is fine: the running process keeps the old file.
#[cfg(not(windows))]
fn set_aside_running_copy(_path: &Path) -> Result<(), FileError> {
    Ok(())
}

/// Removes the copy setup installed (uninstall, with the last entry), and an old Windows copy set aside beside it.
pub fn remove(path: &Path) -> Result<(), FileError> {
    if let Err(error) = write::remove_file(path)
        && !(cfg!(windows) && move_out_running_copy(path).is_ok())
    {
        return Err(error);
    }
    if cfg!(windows) {
        let old = path.with_extension("exe.old");
        if write::remove_file(&old).is_err() {
            // A copy set aside while it ran and still running goes at the next uninstall or update otherwise.
            let _ = move_out_running_copy(&old);
        }
    }
    Ok(())
}

/// Windows refuses to delete an executable that runs (`obsmcp uninstall` run by the installed copy itself, the usual
/// case, or a bridge a client still runs) but lets it be renamed: it moves to the temporary folder, which Windows'
/// own clean-up empties, so that nothing is left where setup put it. Elsewhere a running binary can be deleted, and
/// this is never called.
fn move_out_running_copy(path: &Path) -> std::io::Result<()> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    let name = format!("obsmcp-removed-{}-{stamp}.exe", std::process::id());
    std::fs::rename(path, std::env::temp_dir().join(name))
}

#[cfg(test)]
mod tests;

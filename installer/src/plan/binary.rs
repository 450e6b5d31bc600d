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
    let home =
        std::fs::canonicalize(environment.home()).unwrap_or_else(|_| environment.home().to_owned());
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
    std::fs::canonicalize(&named).unwrap_or(named)
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
    /// Added (nothing there), updated (another build there) or unchanged (the same bytes there).
    pub change: Change,
}

/// What client entries should run for `running` (the real path of this binary): `None` when it can stay where it
/// is, else the copy to make. An unreadable running binary is planned as an update and fails when applied.
pub fn plan(environment: &Environment, running: &Path) -> Option<BinaryInstall> {
    let why = transience(environment, running)?;
    let to = stable_path(environment);
    let change = match (std::fs::read(&to), std::fs::read(running)) {
        (Err(_), _) => Change::Added,
        (Ok(there), Ok(here)) if there == here => Change::Unchanged,
        (Ok(_), _) => Change::Updated,
    };
    Some(BinaryInstall {
        from: running.to_owned(),
        to,
        why,
        change,
    })
}

impl BinaryInstall {
    /// The folders the copy creates (outermost first), for setup's record: uninstall removes them once empty. Those
    /// that also hold obsmcp's state folder (`~/.local`) are left out: the record goes with that folder's own.
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
    write::remove_file(path)?;
    if cfg!(windows) {
        // A copy set aside while it ran may still run; it goes at the next uninstall or update.
        let _ = write::remove_file(&path.with_extension("exe.old"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn environment(home: &Path) -> Environment {
        Environment::new(Os::Linux, home).with_var("TMPDIR", "/nonexistent-tmp")
    }

    #[test]
    fn build_folders_caches_and_npx_do_not_last_and_other_places_do() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        let home = root.join("home");
        let environment = environment(&home);
        let project = root.join("project");
        std::fs::create_dir_all(project.join("target/release")).unwrap();
        std::fs::write(project.join("Cargo.toml"), "").unwrap();
        std::fs::write(
            project.join("target/CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55",
        )
        .unwrap();
        let uv = home.join(".cache/uv");
        std::fs::create_dir_all(uv.join("archive-v0/abc/bin")).unwrap();
        std::fs::write(
            uv.join("CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55",
        )
        .unwrap();

        assert_eq!(
            transience(&environment, &project.join("target/release/obsmcp")),
            Some(Transience::BuildFolder(project.join("target")))
        );
        assert_eq!(
            transience(&environment, &uv.join("archive-v0/abc/bin/obsmcp")),
            Some(Transience::Cache(uv.clone()))
        );
        assert_eq!(
            transience(
                &environment,
                &home.join(".npm/_npx/1f2e/node_modules/obsmcp-linux-x64/bin/obsmcp")
            ),
            Some(Transience::Npx)
        );
        for lasting in [
            home.join(".cargo/bin/obsmcp"),
            home.join(".local/pipx/venvs/obsmcp/bin/obsmcp"),
            root.join("usr/lib/node_modules/obsmcp-linux-x64/bin/obsmcp"),
        ] {
            assert_eq!(
                transience(&environment, &lasting),
                None,
                "{}",
                lasting.display()
            );
        }
    }

    #[test]
    fn the_temporary_folder_does_not_last_unless_home_is_inside_it() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        let home = root.join("home");
        let environment =
            Environment::new(Os::Linux, &home).with_var("TMPDIR", root.to_str().unwrap());
        assert_eq!(
            transience(&environment, &root.join("unpacked/obsmcp")),
            Some(Transience::Temporary)
        );
        assert_eq!(transience(&environment, &home.join("bin/obsmcp")), None);
    }

    #[test]
    fn the_copy_is_planned_as_added_updated_or_unchanged_and_lands_executable() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        let home = root.join("home");
        let environment = environment(&home);
        std::fs::create_dir_all(root.join("target/debug")).unwrap();
        std::fs::write(root.join("target/CACHEDIR.TAG"), "").unwrap();
        let running = root.join("target/debug/obsmcp");
        std::fs::write(&running, b"build one").unwrap();

        let install = plan(&environment, &running).expect("a build folder does not last");
        assert_eq!(install.to, home.join(".local/bin/obsmcp"));
        assert_eq!(install.change, Change::Added);
        install.apply().unwrap();
        assert_eq!(std::fs::read(&install.to).unwrap(), b"build one");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&install.to).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o755);
        }
        assert_eq!(
            plan(&environment, &running).unwrap().change,
            Change::Unchanged
        );
        std::fs::write(&running, b"build two").unwrap();
        let update = plan(&environment, &running).unwrap();
        assert_eq!(update.change, Change::Updated);
        update.apply().unwrap();
        assert_eq!(std::fs::read(&update.to).unwrap(), b"build two");
        remove(&update.to).unwrap();
        assert!(!update.to.exists());
        assert!(
            plan(&environment, &update.to).is_none(),
            "a copy under home lasts"
        );
    }
}

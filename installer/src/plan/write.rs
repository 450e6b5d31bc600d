//! Writing users' files safely: symlinks resolved to the real file, one backup before obsmcp first changes a file,
//! an atomic replace (temp file in the same folder, synced, renamed) that keeps the file's mode, read-only files
//! refused, and Claude Code's own lock protocol around `~/.claude.json`.
//!
//! Past 400 lines only with its unit tests, kept at the end beside the code they pin.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// Why a file could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// Reading failed.
    #[error("could not read `{path}`: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file is not UTF-8 text.
    #[error("`{path}` is not UTF-8 text")]
    NotText { path: PathBuf },
    /// The file is read-only: the user asked for it not to change.
    #[error("`{path}` is read-only; obsmcp leaves it as it is")]
    ReadOnly { path: PathBuf },
    /// Writing failed; the original file is untouched.
    #[error("could not write `{path}`: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Another program held the lock for too long.
    #[error(
        "`{lock}` is held by another program (Claude Code?) and was not released within {seconds} s"
    )]
    Locked { lock: PathBuf, seconds: u64 },
}

impl FileError {
    /// What the user can do about it, when there is something.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::Read { source, .. } | Self::Write { source, .. }
                if source.kind() == std::io::ErrorKind::PermissionDenied =>
            {
                Some(
                    "check the file's and its folder's owner and permissions (`ls -l`) and whether the file is \
                     immutable (`lsattr` on Linux, `ls -lO` on macOS); fix that and run again"
                        .to_owned(),
                )
            }
            Self::Write { source, .. } if source.raw_os_error() == Some(28) => {
                Some("the disk is full: free some space and run again".to_owned())
            }
            Self::ReadOnly { path } => Some(format!(
                "make it writable (`chmod u+w {}`) if obsmcp should change it",
                path.display()
            )),
            Self::Locked { .. } => {
                Some("quit Claude Code (or wait for it to finish) and run again".to_owned())
            }
            _ => None,
        }
    }
}

/// The file a path really names: symlinks (also a dangling final link) followed.
pub fn resolve(path: &Path) -> PathBuf {
    let mut current = path.to_owned();
    for _ in 0..40 {
        match std::fs::read_link(&current) {
            Ok(target) => {
                current = match current.parent() {
                    Some(parent) if target.is_relative() => parent.join(target),
                    _ => target,
                }
            }
            Err(_) => break,
        }
    }
    current
}

/// The file's text, or `None` when it does not exist.
pub fn read_text(path: &Path) -> Result<Option<String>, FileError> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| FileError::NotText {
                path: path.to_owned(),
            }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(FileError::Read {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Whether two paths name the same file or folder: equal as written, or once both are resolved.
pub fn same_path(a: &Path, b: &Path) -> bool {
    a == b
        || matches!((crate::environment::real_path(a), crate::environment::real_path(b)), (Ok(a), Ok(b)) if a == b)
}

/// Where the one backup of a client's file `path` goes: beside it.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(".obsmcp-backup");
    path.with_file_name(name)
}

/// Where the one backup of a file inside a vault goes: under `backups` in obsmcp's state folder (`state_home`), at
/// the file's own absolute path, so that no backup lands in the vault, where sync services would copy it to every
/// device.
pub fn vault_backup_path(state_home: &Path, path: &Path) -> PathBuf {
    backup_path(&vault_backup_folder(state_home, path))
}

/// Where [`vault_backup_path`] mirrors `path` (a file or a folder) in the state folder.
pub fn vault_backup_folder(state_home: &Path, path: &Path) -> PathBuf {
    let mut mirrored = state_home.join("backups");
    for part in path.components() {
        if let std::path::Component::Normal(name) = part {
            mirrored.push(name);
        }
    }
    mirrored
}

/// Replaces `path` with `bytes` atomically. An existing file keeps its mode and gets one backup at `backup` (the
/// first one is kept: it holds the file as it was before obsmcp ever touched it); a new file gets `new_mode` (or
/// the default), with its parent folders created.
pub fn write_atomic(
    path: &Path,
    bytes: &[u8],
    new_mode: Option<u32>,
    backup: &Path,
) -> Result<(), FileError> {
    write_atomic_with(path, bytes, new_mode, Some(backup))
}

/// [`write_atomic`] for obsmcp's own files, which need no backup.
pub fn write_atomic_without_backup(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    write_atomic_with(path, bytes, None, None)
}

fn write_atomic_with(
    path: &Path,
    bytes: &[u8],
    new_mode: Option<u32>,
    backup: Option<&Path>,
) -> Result<(), FileError> {
    let write_error = |source| FileError::Write {
        path: path.to_owned(),
        source,
    };
    let existing = std::fs::metadata(path).ok();
    if let Some(metadata) = &existing {
        if metadata.permissions().readonly() {
            return Err(FileError::ReadOnly {
                path: path.to_owned(),
            });
        }
        if let Some(backup_file) = backup.filter(|backup| !backup.exists()) {
            if let Some(folder) = backup_file.parent() {
                std::fs::create_dir_all(folder).map_err(write_error)?;
            }
            std::fs::copy(path, backup_file).map_err(write_error)?;
            // A write that fails leaves no trace: the backup made for it goes too.
            return replace_file(path, bytes, existing.as_ref(), new_mode).inspect_err(|_| {
                let _ = std::fs::remove_file(backup_file);
            });
        }
    }
    replace_file(path, bytes, existing.as_ref(), new_mode)
}

/// The atomic replace of [`write_atomic_with`], after the backup.
fn replace_file(
    path: &Path,
    bytes: &[u8],
    existing: Option<&std::fs::Metadata>,
    new_mode: Option<u32>,
) -> Result<(), FileError> {
    let write_error = |source| FileError::Write {
        path: path.to_owned(),
        source,
    };
    let folder = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).map_err(write_error)?;
    let mut temporary = tempfile::Builder::new()
        .prefix(&format!(
            ".{}.",
            path.file_name().unwrap_or_default().to_string_lossy()
        ))
        .suffix(".obsmcp-tmp")
        .tempfile_in(folder)
        .map_err(write_error)?;
    temporary.write_all(bytes).map_err(write_error)?;
    // The temporary file starts private (0600); a new file gets the mode asked for, or the usual 0644.
    let permissions = match (existing, new_mode) {
        (Some(metadata), _) => Some(metadata.permissions()),
        (None, mode) => permissions_with_mode(mode.unwrap_or(0o644)),
    };
    if let Some(permissions) = permissions {
        temporary
            .as_file()
            .set_permissions(permissions)
            .map_err(write_error)?;
    }
    // Synced before the rename so that a crash leaves the old file or the new one, never a torn one.
    temporary.as_file().sync_all().map_err(write_error)?;
    temporary
        .persist(path)
        .map_err(|error| write_error(error.error))?;
    Ok(())
}

/// Replaces (or creates) one of obsmcp's own files atomically with exactly this mode, whatever the old file had: the
/// binary setup installs must be executable.
pub fn write_atomic_with_mode(path: &Path, bytes: &[u8], mode: u32) -> Result<(), FileError> {
    replace_file(path, bytes, None, Some(mode))
}

/// The permission bits of `path` (Unix; `None` elsewhere, or when it cannot be read).
pub fn mode_of(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::metadata(path).ok()?.permissions().mode() & 0o7777)
    }
    #[cfg(not(unix))]
    {
        // Files have no permission bits here: the path is not needed.
        let _ = path;
        None
    }
}

/// Sets the permission bits of `path` (Unix; elsewhere there are none to set).
pub fn set_mode(path: &Path, mode: u32) -> Result<(), FileError> {
    match permissions_with_mode(mode) {
        Some(permissions) => {
            std::fs::set_permissions(path, permissions).map_err(|source| FileError::Write {
                path: path.to_owned(),
                source,
            })
        }
        None => Ok(()),
    }
}

/// Removes a file obsmcp created; a missing file is fine.
pub fn remove_file(path: &Path) -> Result<(), FileError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(FileError::Write {
            path: path.to_owned(),
            source,
        }),
    }
}

#[cfg(unix)]
fn permissions_with_mode(mode: u32) -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(mode))
}

/// Windows has no mode bits; a new file keeps what the folder gives it.
#[cfg(not(unix))]
fn permissions_with_mode(_mode: u32) -> Option<std::fs::Permissions> {
    None
}

/// Claude Code's lock: a directory `<file>.lock` (proper-lockfile style). Claude waits while it exists and steals it
/// once its mtime is about 10 s old, so obsmcp does the same and holds it only for one read-edit-write.
#[derive(Debug)]
pub struct DirectoryLock {
    path: PathBuf,
}

/// How long a lock may stand untouched before it counts as abandoned (Claude's own figure).
pub const STALE_LOCK_AGE: Duration = Duration::from_secs(10);

impl DirectoryLock {
    /// The lock that guards `file`.
    pub fn path_for(file: &Path) -> PathBuf {
        let mut name = file.file_name().unwrap_or_default().to_owned();
        name.push(".lock");
        file.with_file_name(name)
    }

    /// Takes the lock, waiting for another holder at most `wait`, and stealing a stale one.
    pub fn acquire(file: &Path, wait: Duration) -> Result<Self, FileError> {
        let path = Self::path_for(file);
        let started = Instant::now();
        loop {
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(Self { path }),
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                    let age = std::fs::metadata(&path)
                        .and_then(|metadata| metadata.modified())
                        .ok()
                        .and_then(|modified| SystemTime::now().duration_since(modified).ok());
                    if age.is_some_and(|age| age > STALE_LOCK_AGE) {
                        // Abandoned by a crashed holder: Claude steals it the same way. Losing the race is fine.
                        if let Err(_already_gone) = std::fs::remove_dir(&path) {}
                        continue;
                    }
                    if started.elapsed() >= wait {
                        return Err(FileError::Locked {
                            lock: path,
                            seconds: wait.as_secs(),
                        });
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(source) if source.kind() == std::io::ErrorKind::NotFound => {
                    std::fs::create_dir_all(path.parent().unwrap_or(Path::new("."))).map_err(
                        |source| FileError::Write {
                            path: path.clone(),
                            source,
                        },
                    )?;
                }
                Err(source) => return Err(FileError::Write { path, source }),
            }
        }
    }
}

impl Drop for DirectoryLock {
    fn drop(&mut self) {
        // Nothing can be done about a lock that vanished or cannot be removed; Claude treats it as stale in 10 s.
        if let Err(_gone) = std::fs::remove_dir(&self.path) {}
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn keeps_mode_backs_up_once_and_replaces() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("config.json");
        std::fs::write(&path, "original").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"second", None, &backup_path(&path)).unwrap();
        write_atomic(&path, b"third", None, &backup_path(&path)).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "third");
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(
            std::fs::read_to_string(backup_path(&path)).unwrap(),
            "original"
        );
        let leftovers: Vec<_> = std::fs::read_dir(folder.path())
            .unwrap()
            .flatten()
            .map(|entry| entry.file_name())
            .collect();
        assert_eq!(leftovers.len(), 2, "{leftovers:?}");
    }

    #[test]
    fn new_files_get_the_requested_mode_and_no_backup() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("deep/er/.claude.json");
        write_atomic(&path, b"{}", Some(0o600), &backup_path(&path)).unwrap();
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert!(!backup_path(&path).exists());
        let plain = folder.path().join("config.toml");
        write_atomic(&plain, b"", None, &backup_path(&plain)).unwrap();
        assert_eq!(
            std::fs::metadata(&plain).unwrap().permissions().mode() & 0o777,
            0o644
        );
    }

    #[test]
    fn read_only_files_are_refused_and_untouched() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("config.toml");
        std::fs::write(&path, "x = 1").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert!(matches!(
            write_atomic(&path, b"y = 2", None, &backup_path(&path)),
            Err(FileError::ReadOnly { .. })
        ));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "x = 1");
    }

    #[test]
    fn symlinks_resolve_to_the_real_file() {
        let folder = tempfile::tempdir().unwrap();
        let real = folder.path().join("dotfiles/config.yaml");
        std::fs::create_dir_all(real.parent().unwrap()).unwrap();
        std::fs::write(&real, "a: 1").unwrap();
        let link = folder.path().join("config.yaml");
        std::os::unix::fs::symlink("dotfiles/config.yaml", &link).unwrap();
        assert_eq!(resolve(&link), real);
        write_atomic(
            &resolve(&link),
            b"a: 2",
            None,
            &backup_path(&resolve(&link)),
        )
        .unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "a: 2");
    }

    #[test]
    fn lock_waits_for_its_holder_then_is_released() {
        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join(".claude.json");
        let held = DirectoryLock::acquire(&file, Duration::from_secs(1)).unwrap();
        assert!(matches!(
            DirectoryLock::acquire(&file, Duration::from_millis(300)),
            Err(FileError::Locked { .. })
        ));
        drop(held);
        assert!(!DirectoryLock::path_for(&file).exists());
        drop(DirectoryLock::acquire(&file, Duration::from_millis(300)).unwrap());
    }

    #[test]
    fn a_stale_lock_is_stolen() {
        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join(".claude.json");
        let lock = DirectoryLock::path_for(&file);
        std::fs::create_dir(&lock).unwrap();
        let old = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::open(&lock)
            .unwrap()
            .set_modified(old)
            .unwrap();
        drop(DirectoryLock::acquire(&file, Duration::from_millis(100)).unwrap());
    }
}

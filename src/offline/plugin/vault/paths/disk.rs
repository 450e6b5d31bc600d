//! The vault on disk (`vault/disk.ts`): where the vault really is, whether a path stays inside
//! it through symlinks, and reading a file only when it is still the file that was indexed.

use std::path::{Path, PathBuf};

use crate::offline::plugin::vault::errors::ToolError;
use crate::offline::plugin::vault::paths::{full_path, is_in_config_dir, quote};

/// Where a vault lives once symlinks are followed: what the real location of anything reached is judged against.
///
/// A path is allowed when its real location is inside the vault and not inside the vault's config folder. The
/// config folder is judged by its own real location (it may itself be a link) and, below the vault, by name as
/// `is_in_config_dir` does, so a link such as `cfglink -> .obsidian` cannot reach the token in `data.json`.
#[derive(Debug, Clone)]
pub(crate) struct RealVault {
    root: PathBuf,
    config: PathBuf,
    config_dir: String,
}

impl RealVault {
    /// Judges against the vault at `real_root` (already canonical) with its config folder named `config_dir`.
    pub(crate) fn new(real_root: PathBuf, config_dir: &str) -> Self {
        let config_dir = config_dir.trim_matches('/').to_string();
        let named = full_path(&real_root, &config_dir);
        let config = std::fs::canonicalize(&named).unwrap_or(named);
        Self {
            root: real_root,
            config,
            config_dir,
        }
    }

    /// The vault folder's canonical path.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The config folder's name below the vault, without slashes at its ends.
    pub(crate) fn config_dir(&self) -> &str {
        &self.config_dir
    }

    /// Whether a canonical path may be read or written: inside the vault and outside its config folder.
    pub(crate) fn allows(&self, real: &Path) -> bool {
        let Ok(below) = real.strip_prefix(&self.root) else {
            return false;
        };
        if self.config_dir.is_empty() {
            return true;
        }
        if real.starts_with(&self.config) {
            return false;
        }
        let below: Vec<String> = below
            .components()
            .map(|part| part.as_os_str().to_string_lossy().into_owned())
            .collect();
        !is_in_config_dir(&below.join("/"), &self.config_dir)
    }
}

/// Whether `path` (or, when it does not exist, its nearest existing ancestor) is allowed once symlinks are
/// followed: its real location is inside the vault and outside the config folder.
pub(crate) fn is_inside_vault_on_disk(root: &Path, real: &RealVault, path: &str) -> bool {
    let mut probe = full_path(root, path);
    loop {
        match std::fs::canonicalize(&probe) {
            Ok(resolved) => return real.allows(&resolved),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                if !probe.pop() {
                    return false;
                }
            }
            Err(_) => return false,
        }
    }
}

/// The most offline mode reads of one file: larger files are listed, but neither indexed nor read (a vault holding a
/// half-gigabyte export must not cost the bridge gigabytes or delay every answer). Above the 20 MB a note may have
/// in a round trip through Obsidian.
pub(crate) const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// Which file a path led to when the vault was listed: device and inode on Unix.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub(crate) struct FileIdentity {
    device: u64,
    inode: u64,
}

impl FileIdentity {
    /// The identity of the file these metadata describe (always equal on systems without inodes).
    pub(crate) fn of(metadata: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Self {
                device: metadata.dev(),
                inode: metadata.ino(),
            }
        }
        #[cfg(not(unix))]
        {
            // Reading a file's identity on Windows needs an unstable API; there the real-location check of the
            // listing is what holds (creating symlinks needs an administrator or developer mode).
            let _ = metadata;
            Self::default()
        }
    }
}

/// Why a vault file was not read.
#[derive(Debug)]
pub(crate) enum ReadRefusal {
    /// What was opened is not the file the listing judged (a symlink swapped in since, or the file replaced).
    Replaced,
    /// The file is larger than `MAX_FILE_BYTES`.
    TooLarge(u64),
    /// The operating system's error.
    Io(std::io::Error),
}

impl ReadRefusal {
    /// The refusal as a tool error about `path`.
    pub(crate) fn into_tool_error(self, path: &str) -> ToolError {
        ToolError(match self {
            ReadRefusal::Replaced => format!(
                "{} changed while it was being read (it is not the file the vault listing checked): retry",
                quote(path)
            ),
            ReadRefusal::TooLarge(size) => too_large_message(path, size),
            ReadRefusal::Io(error) => format!("could not read {path}: {}", error.kind()),
        })
    }
}

/// What a tool says of a file too large to read from disk.
fn too_large_message(path: &str, size: u64) -> String {
    format!(
        "{} is {:.1} MB, over the {} MB that offline mode reads of one file: open the vault in Obsidian to read it",
        quote(path),
        size as f64 / 1_048_576.0,
        MAX_FILE_BYTES / 1_048_576
    )
}

/// Reads a vault file, judged by what was really opened: the file is opened first, then confirmed to be the file
/// the listing checked (`expected`: same device and inode), so a symlink swapped in between the check and the open
/// cannot redirect the read outside the vault. Files over `MAX_FILE_BYTES` are not read.
pub(crate) fn read_verified(full: &Path, expected: FileIdentity) -> Result<Vec<u8>, ReadRefusal> {
    read_opened(
        std::fs::File::open(full).map_err(ReadRefusal::Io)?,
        expected,
    )
}

/// The vault's folder, to read many files from by their vault paths. On Unix it is opened once and each file is
/// opened relative to it (`openat`), so the kernel resolves only the vault path and not the vault's own location
/// again for each of a build's 100,000 notes (path lookup was a tenth of the reading threads' time). Elsewhere, or
/// when the folder cannot be opened, each file is opened by its full path.
pub(crate) struct VaultFolder<'a> {
    root: &'a Path,
    #[cfg(unix)]
    opened: Option<std::fs::File>,
}

impl<'a> VaultFolder<'a> {
    pub(crate) fn open(root: &'a Path) -> Self {
        Self {
            root,
            #[cfg(unix)]
            opened: std::fs::File::open(root).ok(),
        }
    }

    /// [`read_verified`] of the file at vault path `path`.
    pub(crate) fn read_verified(
        &self,
        path: &str,
        expected: FileIdentity,
    ) -> Result<Vec<u8>, ReadRefusal> {
        read_opened(self.open_file(path).map_err(ReadRefusal::Io)?, expected)
    }

    fn open_file(&self, path: &str) -> std::io::Result<std::fs::File> {
        #[cfg(unix)]
        if let Some(folder) = &self.opened {
            use std::os::fd::{AsRawFd, FromRawFd};
            // Relative as `full_path` reads it: a leading `/` would make `openat` ignore the folder.
            let relative = std::ffi::CString::new(path.trim_start_matches('/'))?;
            // SAFETY: both arguments are valid for the call (an open descriptor, a NUL-terminated string).
            let descriptor = unsafe {
                libc::openat(
                    folder.as_raw_fd(),
                    relative.as_ptr(),
                    libc::O_RDONLY | libc::O_CLOEXEC,
                )
            };
            if descriptor < 0 {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: `openat` just returned this descriptor, which nothing else owns.
            return Ok(unsafe { std::fs::File::from_raw_fd(descriptor) });
        }
        std::fs::File::open(full_path(self.root, path))
    }
}

/// [`read_verified`] of a file already opened.
fn read_opened(file: std::fs::File, expected: FileIdentity) -> Result<Vec<u8>, ReadRefusal> {
    use std::io::Read;
    let opened = file.metadata().map_err(ReadRefusal::Io)?;
    if !opened.is_file() || FileIdentity::of(&opened) != expected {
        return Err(ReadRefusal::Replaced);
    }
    if opened.len() > MAX_FILE_BYTES {
        return Err(ReadRefusal::TooLarge(opened.len()));
    }
    // One read with room for a byte more than the size: a regular file gives less only at its end, so getting the
    // size read is the end, and the read that would give nothing is not made (a fifth of the system calls of a
    // build of 100,000 notes). A file that grew since is read to its end, one byte past the limit at most.
    let size = opened.len() as usize;
    let mut bytes = vec![0; size + 1];
    let mut filled = 0;
    let whole = loop {
        match (&file).read(&mut bytes[filled..]) {
            Ok(0) => break true,
            Ok(read) => {
                filled += read;
                if filled == size {
                    break true;
                }
                if filled == bytes.len() {
                    break false;
                }
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(ReadRefusal::Io(error)),
        }
    };
    bytes.truncate(filled);
    if !whole {
        (&file)
            .take(MAX_FILE_BYTES + 1 - filled as u64)
            .read_to_end(&mut bytes)
            .map_err(ReadRefusal::Io)?;
    }
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(ReadRefusal::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::{FileIdentity, VaultFolder, read_verified};

    #[test]
    fn a_file_is_read_whole_at_every_size_and_a_replaced_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("note.md");
        for size in [0, 1, 2, 4095, 4096, 4097, 70_000] {
            let text: Vec<u8> = "é🙂a".bytes().cycle().take(size).collect();
            std::fs::write(&path, &text).unwrap();
            let identity = FileIdentity::of(&std::fs::metadata(&path).unwrap());
            assert_eq!(
                read_verified(&path, identity).unwrap(),
                text,
                "{size} bytes"
            );
        }
        // Another file renamed over it: both existed at once, so they are different files.
        let identity = FileIdentity::of(&std::fs::metadata(&path).unwrap());
        let fresh = dir.path().join("fresh.md");
        std::fs::write(&fresh, "new").unwrap();
        std::fs::rename(&fresh, &path).unwrap();
        let read = read_verified(&path, identity);
        if cfg!(unix) {
            assert!(matches!(read, Err(super::ReadRefusal::Replaced)));
        } else {
            // Without inodes every file has the same identity.
            assert_eq!(read.unwrap(), b"new");
        }
    }

    #[test]
    fn files_are_read_below_the_vault_folder_by_their_vault_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("Sub folder")).unwrap();
        let path = dir.path().join("Sub folder").join("note.md");
        std::fs::write(&path, "below").unwrap();
        let identity = FileIdentity::of(&std::fs::metadata(&path).unwrap());
        let folder = VaultFolder::open(dir.path());
        for vault_path in ["Sub folder/note.md", "/Sub folder/note.md"] {
            assert_eq!(
                folder.read_verified(vault_path, identity).unwrap(),
                b"below"
            );
        }
        assert!(matches!(
            folder.read_verified("Sub folder/absent.md", identity),
            Err(super::ReadRefusal::Io(error)) if error.kind() == std::io::ErrorKind::NotFound
        ));
        // A folder is not a file, whatever its identity.
        let identity = FileIdentity::of(&std::fs::metadata(dir.path().join("Sub folder")).unwrap());
        assert!(folder.read_verified("Sub folder", identity).is_err());
    }
}

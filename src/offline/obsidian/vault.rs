//! The vault's files and folders as Obsidian lists them (`fake-obsidian/vault.cjs`): entries in name order, depth
//! first; names starting with `.` and the config folder are not part of the vault; symlinks are followed and a folder
//! reached twice is listed once. A symlinked folder that leads outside the vault is listed but not entered, and
//! hidden paths are left out with everything inside them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::offline::js::js_sort_by_key;
use crate::offline::plugin::vault::hidden::HiddenRules;
use crate::offline::plugin::vault::paths::{FileIdentity, RealVault};

/// One file of the vault.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct FileEntry {
    pub(crate) path: String,
    pub(crate) size: u64,
    pub(crate) mtime: i64,
    pub(crate) ctime: i64,
    /// False when a symlink takes the file's real location outside the vault or into its config folder.
    pub(crate) inside: bool,
    /// The file the path led to when listed; a read checks it opened that one.
    pub(crate) identity: FileIdentity,
}

impl FileEntry {
    /// The entry of the file at `path`, from its metadata (`inside`: whether its real location is inside the vault).
    fn listed(path: String, metadata: &std::fs::Metadata, inside: bool) -> FileEntry {
        let birth = millis(metadata.created()).filter(|ms| *ms > 0.0);
        FileEntry {
            size: metadata.len(),
            mtime: js_round(millis(metadata.modified()).unwrap_or(0.0)),
            ctime: js_round(birth.unwrap_or_else(|| change_millis(metadata))),
            inside,
            identity: FileIdentity::of(metadata),
            path,
        }
    }

    /// What follows the last `.` of the name (not a leading one), as Obsidian's `TFile.extension`.
    pub(crate) fn extension(&self) -> &str {
        extension_of(self.name())
    }

    /// The file name, extension included.
    pub(crate) fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }

    /// Whether Obsidian treats the file as a Markdown note (its extension is exactly `md`).
    pub(crate) fn is_markdown(&self) -> bool {
        self.extension() == "md"
    }

    /// What a resource, a completion or a prompt calls the file: a note's name without `.md`, any other file's name
    /// with its extension.
    pub(crate) fn title(&self) -> &str {
        let name = self.name();
        if self.is_markdown() {
            name.strip_suffix(".md").unwrap_or(name)
        } else {
            name
        }
    }
}

/// What a walk of the folder found, before any note is read.
pub(crate) struct Listing {
    pub(crate) files: Vec<FileEntry>,
    pub(crate) folders: Vec<String>,
}

pub(super) fn millis(time: std::io::Result<SystemTime>) -> Option<f64> {
    let time = time.ok()?;
    let since = time.duration_since(SystemTime::UNIX_EPOCH).ok()?;
    Some(since.as_secs() as f64 * 1000.0 + f64::from(since.subsec_nanos()) / 1e6)
}

/// The vault path of `name` inside `folder` (`""` is the root), with no spare capacity.
pub(super) fn join_name(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        return name.to_string();
    }
    let mut path = String::with_capacity(folder.len() + 1 + name.len());
    path.push_str(folder);
    path.push('/');
    path.push_str(name);
    path
}

/// `Math.round`.
pub(super) fn js_round(value: f64) -> i64 {
    (value + 0.5).floor() as i64
}

pub(super) fn change_millis(metadata: &std::fs::Metadata) -> f64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        metadata.ctime() as f64 * 1000.0 + metadata.ctime_nsec() as f64 / 1e6
    }
    #[cfg(not(unix))]
    {
        millis(metadata.modified()).unwrap_or(0.0)
    }
}

pub(super) fn extension_of(name: &str) -> &str {
    match name.rfind('.') {
        Some(dot) if dot > 0 => &name[dot + 1..],
        _ => "",
    }
}

/// Whether a path is left out of the vault as Obsidian lists it: the config folder and names starting with `.`.
pub(crate) fn is_unlisted(path: &str, config_dir: &str) -> bool {
    let in_config = path
        .strip_prefix(config_dir)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
    in_config || path.split('/').any(|segment| segment.starts_with('.'))
}

/// Whether this system opens an entry of that name as a device, not as the file or folder a vault synced from
/// another system holds under it: on Windows, `NUL.md`, `con.txt` or a folder `aux` (reading `CON` waits on the
/// console, `COM1` on a serial port), so there such an entry is not part of the vault, as for Obsidian there.
fn is_device_here(name: &str) -> bool {
    cfg!(windows) && crate::offline::plugin::vault::paths::is_windows_device_name(name)
}

/// The vault path of a real location inside the vault; `None` outside it (or for a name that is not UTF-8).
pub(super) fn vault_path_of(vault: &RealVault, real: &Path) -> Option<String> {
    let below = real.strip_prefix(vault.root()).ok()?;
    let names: Option<Vec<&str>> = below
        .components()
        .map(|part| part.as_os_str().to_str())
        .collect();
    Some(names?.join("/"))
}

/// What a walk needs besides the folder at hand.
pub(super) struct Walk<'a> {
    root: &'a Path,
    vault: &'a RealVault,
    hidden: &'a HiddenRules,
    seen: HashSet<PathBuf>,
    listing: Listing,
    /// The files a listing already has, while every file found so far is the same, in the same place: those are
    /// counted (`matched`), not copied into `listing`.
    expected: Option<&'a [FileEntry]>,
    matched: usize,
    /// Where the expected files may come from during the walk, while they have not come.
    later: Option<Later<'a>>,
    /// Called with each folder (its full path and metadata) just before it is listed: the watcher's cue.
    before_listing: &'a dyn Fn(&Path, &std::fs::Metadata),
}

impl Walk<'_> {
    /// Lists a file: counted while it is the next of the files expected, else listed (after those matched so far).
    fn add_file(&mut self, file: FileEntry) {
        if let Some(later) = self.later
            && let Some((files, _)) = later()
        {
            // Expected from here on when the files listed so far are the first of them, given back meanwhile.
            self.later = None;
            if files.get(..self.listing.files.len()) == Some(&self.listing.files[..]) {
                self.matched = self.listing.files.len();
                self.listing.files = Vec::new();
                self.expected = Some(files);
            }
        }
        if let Some(expected) = self.expected {
            if expected.get(self.matched) == Some(&file) {
                self.matched += 1;
                return;
            }
            self.listing.files.reserve(expected.len() + 1);
            self.listing
                .files
                .extend_from_slice(&expected[..self.matched]);
            self.expected = None;
        }
        self.listing.files.push(file);
    }
}

/// Lists what `hidden` leaves visible of the folder (no note is read); `before_listing` is told of each folder
/// (full path, metadata) just before it is listed.
pub(crate) fn walk(
    root: &Path,
    real: &RealVault,
    hidden: &HiddenRules,
    before_listing: &dyn Fn(&Path, &std::fs::Metadata),
) -> Listing {
    walk_expecting(root, real, hidden, before_listing, None, None).listing
}

/// [`walk`], against a listing already made: `None` when the folder still lists exactly `listing`'s files and folders,
/// found without a listing of its own (100,000 files' entries are 12 MB, and most walks find nothing changed).
pub(crate) fn walk_unless_same(
    root: &Path,
    real: &RealVault,
    hidden: &HiddenRules,
    before_listing: &dyn Fn(&Path, &std::fs::Metadata),
    (files, folders): (&[FileEntry], &[String]),
) -> Option<Listing> {
    let walked = walk_expecting(root, real, hidden, before_listing, Some(files), None);
    unless_same(walked, folders)
}

/// A listing that a walk may compare against once it comes, as a listing's files and folders.
pub(crate) type Later<'a> = &'a dyn Fn() -> Option<(&'a [FileEntry], &'a [String])>;

/// [`walk_unless_same`] against a listing that may come only during the walk (a saved index decoded beside it):
/// files are listed until `later` gives it, then, if those listed so far are its first ones, they are given back and
/// the rest counted against it (a start from the saved index at 100,000 files otherwise held both listings at once).
/// `None` when the folder lists exactly what `later` gave.
pub(crate) fn walk_unless_same_later<'a>(
    root: &'a Path,
    real: &'a RealVault,
    hidden: &'a HiddenRules,
    before_listing: &'a dyn Fn(&Path, &std::fs::Metadata),
    later: Later<'a>,
) -> Option<Listing> {
    let walked = walk_expecting(root, real, hidden, before_listing, None, Some(later));
    let folders = walked
        .expected
        .and(later())
        .map_or(&[][..], |(_, folders)| folders);
    unless_same(walked, folders)
}

/// What a walk that expected files found: `None` when all of them and exactly `folders`.
fn unless_same(mut walked: Walk<'_>, folders: &[String]) -> Option<Listing> {
    if let Some(files) = walked.expected {
        if walked.matched == files.len() && walked.listing.folders == folders {
            return None;
        }
        // Every file found was the next expected, but some were not found.
        walked.listing.files = files[..walked.matched].to_vec();
    }
    Some(walked.listing)
}

fn walk_expecting<'a>(
    root: &'a Path,
    real: &'a RealVault,
    hidden: &'a HiddenRules,
    before_listing: &'a dyn Fn(&Path, &std::fs::Metadata),
    expected: Option<&'a [FileEntry]>,
    later: Option<Later<'a>>,
) -> Walk<'a> {
    let mut walk = Walk {
        root,
        vault: real,
        hidden,
        seen: HashSet::new(),
        listing: Listing {
            files: Vec::new(),
            folders: Vec::new(),
        },
        expected,
        matched: 0,
        later,
        before_listing,
    };
    if let Ok(metadata) = std::fs::metadata(real.root()) {
        before_listing(real.root(), &metadata);
    }
    walk_folder(
        &mut walk,
        "",
        real.root().to_path_buf(),
        Some(String::new()),
    );
    walk
}

/// Lists one folder and what is below it. `real_path` is the vault path of the folder's real location (it differs
/// from `folder` below a symlink), `None` when that is outside the vault or when no hidden-path rule needs it.
pub(super) fn walk_folder(
    walk: &mut Walk<'_>,
    folder: &str,
    real_folder: PathBuf,
    real_path: Option<String>,
) {
    let (root, vault) = (walk.root, walk.vault);
    if !walk.seen.insert(real_folder.clone()) {
        return;
    }
    let folder_inside = vault.allows(&real_folder);
    let Ok(read) = std::fs::read_dir(crate::offline::plugin::vault::paths::full_path(
        root, folder,
    )) else {
        // A folder that vanished or cannot be read during the scan is simply not listed.
        return;
    };
    // Each entry by its vault path (its name is what follows `skip`); names starting with `.` and the config folder
    // are left out before anything is asked of them.
    let skip = if folder.is_empty() {
        0
    } else {
        folder.len() + 1
    };
    let mut entries: Vec<(String, std::fs::DirEntry)> = read
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let path = join_name(folder, &name);
            (!is_unlisted(&path, vault.config_dir()) && !is_device_here(&name))
                .then_some((path, entry))
        })
        .collect();
    js_sort_by_key(&mut entries, |(path, _)| &path[skip..]);
    let found = stat_all(&entries);
    for ((path, _), found) in entries.into_iter().zip(found) {
        let Some((metadata, real)) = found else {
            continue;
        };
        let name = &path[skip..];
        let entry_real_path = if walk.hidden.is_empty() {
            None
        } else {
            match &real {
                Some(real) => vault_path_of(vault, real),
                None => real_path.as_deref().map(|folder| join_name(folder, name)),
            }
        };
        let hidden = walk.hidden.hides(&path)
            || entry_real_path
                .as_deref()
                .is_some_and(|real| real != path && walk.hidden.hides(real));
        if hidden {
            continue;
        }
        if metadata.is_dir() {
            walk.listing.folders.push(path.clone());
            let real = real.unwrap_or_else(|| real_folder.join(name));
            // A symlinked folder that leads outside the vault (or into its config folder) is listed by name but
            // never entered: nothing there is read, not even a directory listing (a link to `~` would otherwise be
            // walked every time).
            if vault.allows(&real) {
                (walk.before_listing)(
                    &crate::offline::plugin::vault::paths::full_path(root, &path),
                    &metadata,
                );
                walk_folder(walk, &path, real, entry_real_path);
            }
        } else if metadata.is_file() {
            let inside = real
                .as_deref()
                .map_or(folder_inside, |real| vault.allows(real));
            // Built exactly as long as it is (`join_name`): 100,000 paths kept with slack cost megabytes.
            walk.add_file(FileEntry::listed(path, &metadata, inside));
        }
    }
}

/// The listing `files` and `folders` make after the files at `changed` (indexes into `files`) were modified in place,
/// each stat'ed again without following a symlink: what a walk would list then. `None` when one of them is no
/// longer a plain file there (removed, now a folder or a symlink), is listed as outside the vault, or shares its file
/// with another entry (a hard link, or a folder linked into the vault twice): a walk must then say what changed.
pub(crate) fn relisted(
    root: &Path,
    files: &[FileEntry],
    folders: &[String],
    changed: &[usize],
) -> Option<Listing> {
    let mut fresh = Vec::with_capacity(changed.len());
    for &index in changed {
        let file = files.get(index).filter(|file| file.inside)?;
        let metadata = std::fs::symlink_metadata(crate::offline::plugin::vault::paths::full_path(
            root, &file.path,
        ))
        .ok()
        .filter(std::fs::Metadata::is_file)?;
        fresh.push((index, metadata));
    }
    let identities: HashSet<FileIdentity> =
        changed.iter().map(|&index| files[index].identity).collect();
    let sharing = files
        .iter()
        .filter(|file| identities.contains(&file.identity))
        .count();
    if sharing > identities.len() {
        return None;
    }
    let mut files = files.to_vec();
    for (index, metadata) in fresh {
        let path = std::mem::take(&mut files[index].path);
        files[index] = FileEntry::listed(path, &metadata, true);
    }
    Some(Listing {
        files,
        folders: folders.to_vec(),
    })
}

/// Folders with more entries than this are stat'ed on two threads: half the walk of a large vault is the kernel
/// answering one `statx` per file, and a thread costs about as much to start as 25 of them.
const STAT_ON_TWO_THREADS: usize = 512;

/// The metadata of each entry (followed, for a symlink, with its real location), `None` for one that is gone, is a
/// dangling link or was swapped meanwhile; in the entries' order.
fn stat_all(
    entries: &[(String, std::fs::DirEntry)],
) -> Vec<Option<(std::fs::Metadata, Option<PathBuf>)>> {
    let stat = |part: &[(String, std::fs::DirEntry)]| -> Vec<_> {
        part.iter().map(|(_, entry)| stat_entry(entry)).collect()
    };
    if entries.len() < STAT_ON_TWO_THREADS {
        return stat(entries);
    }
    let (first, second) = entries.split_at(entries.len() / 2);
    std::thread::scope(|scope| {
        let other = scope.spawn(|| stat(second));
        let mut found = stat(first);
        // A helper that failed to start its work is replaced by this thread doing it.
        found.extend(other.join().unwrap_or_else(|_| stat(second)));
        found
    })
}

/// One entry's metadata: a plain entry is stat'ed relative to its folder (no path lookup); a symlink is followed, as
/// Obsidian does, and judged by its real location, which must be the file it led to (a link swapped meanwhile is
/// skipped).
fn stat_entry(entry: &std::fs::DirEntry) -> Option<(std::fs::Metadata, Option<PathBuf>)> {
    let is_link = entry.file_type().is_ok_and(|kind| kind.is_symlink());
    if !is_link {
        return entry.metadata().ok().map(|metadata| (metadata, None));
    }
    // Dangling symlinks and files removed mid-scan are not part of the vault.
    let metadata = std::fs::metadata(entry.path()).ok()?;
    let real = std::fs::canonicalize(entry.path()).ok()?;
    let same = std::fs::metadata(&real)
        .is_ok_and(|there| FileIdentity::of(&there) == FileIdentity::of(&metadata));
    same.then_some((metadata, Some(real)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a file under `root` (a real path: on Windows in the verbatim form, `\\?\`, through which Windows
    /// creates a name it would otherwise open as a device, as a sync tool does).
    fn create_below(root: &Path, path: &str) {
        let full = path
            .split('/')
            .fold(root.to_path_buf(), |full, name| full.join(name));
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, "# device name\n").unwrap();
    }

    #[test]
    fn device_names_are_vault_entries_only_where_the_system_reads_them_as_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for path in [
            "NUL.md",
            "Notes/con.txt",
            "aux/inside.md",
            "COM1.md",
            "Notes/Plain.md",
        ] {
            create_below(&root, path);
        }
        let real = RealVault::new(root, ".obsidian");
        let listing = walk(dir.path(), &real, &HiddenRules::default(), &|_, _| {});
        let files: Vec<&str> = listing
            .files
            .iter()
            .map(|file| file.path.as_str())
            .collect();
        if cfg!(windows) {
            assert_eq!(files, ["Notes/Plain.md"]);
            assert_eq!(listing.folders, ["Notes"]);
        } else {
            assert_eq!(
                files,
                [
                    "COM1.md",
                    "NUL.md",
                    "Notes/Plain.md",
                    "Notes/con.txt",
                    "aux/inside.md"
                ]
            );
            assert_eq!(listing.folders, ["Notes", "aux"]);
        }
    }

    /// A vault of four notes, two of them in a folder: its folder (kept while the vault is used), root and vault.
    fn four_notes() -> (tempfile::TempDir, PathBuf, RealVault) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for path in ["a.md", "b/c.md", "b/d.md", "e.md"] {
            create_below(&root, path);
        }
        let real = RealVault::new(root.clone(), ".obsidian");
        (dir, root, real)
    }

    /// A change made to a vault's folder, by its root.
    type Change = fn(&Path);

    #[test]
    fn a_walk_against_a_listing_says_same_or_gives_what_a_walk_gives() {
        let (_dir, root, real) = four_notes();
        let hidden = HiddenRules::default();
        let mut listed = walk(&root, &real, &hidden, &|_, _| {});
        // Each made to the folder in turn, after the walk before it.
        let changes: [(&str, Change); 6] = [
            ("nothing", |_| {}),
            ("a note in the middle grows", |root| {
                std::fs::write(root.join("b/c.md"), "longer than before\n").unwrap()
            }),
            ("the last note goes", |root| {
                std::fs::remove_file(root.join("e.md")).unwrap()
            }),
            ("an empty folder comes", |root| {
                std::fs::create_dir(root.join("f")).unwrap()
            }),
            ("a note comes last", |root| create_below(root, "g.md")),
            ("the first note goes", |root| {
                std::fs::remove_file(root.join("a.md")).unwrap()
            }),
        ];
        for (change, make) in changes {
            make(&root);
            let against = walk_unless_same(
                &root,
                &real,
                &hidden,
                &|_, _| {},
                (&listed.files, &listed.folders),
            );
            let fresh = walk(&root, &real, &hidden, &|_, _| {});
            match against {
                None => {
                    assert_eq!(change, "nothing", "said same after {change}");
                    assert!(fresh.files == listed.files && fresh.folders == listed.folders);
                }
                Some(against) => {
                    assert_ne!(change, "nothing");
                    assert!(
                        against.files == fresh.files && against.folders == fresh.folders,
                        "after {change}"
                    );
                }
            }
            listed = fresh;
        }
    }

    #[test]
    fn a_walk_against_a_listing_that_comes_midway_says_same_or_gives_what_a_walk_gives() {
        let changes: [(&str, Change); 4] = [
            ("nothing", |_| {}),
            ("the first note grows", |root| {
                std::fs::write(root.join("a.md"), "longer than before\n").unwrap()
            }),
            ("the last note grows", |root| {
                std::fs::write(root.join("e.md"), "longer than before\n").unwrap()
            }),
            ("a folder comes", |root| {
                std::fs::create_dir(root.join("f")).unwrap()
            }),
        ];
        for (change, make) in changes {
            let (_dir, root, real) = four_notes();
            let hidden = HiddenRules::default();
            let listed = walk(&root, &real, &hidden, &|_, _| {});
            make(&root);
            let fresh = walk(&root, &real, &hidden, &|_, _| {});
            // The listing comes after `files` files were found (never, for the last).
            for files in 0..=listed.files.len() {
                let asked = std::cell::Cell::new(0);
                let later = || {
                    asked.set(asked.get() + 1);
                    (asked.get() > files).then_some((&listed.files[..], &listed.folders[..]))
                };
                let against = walk_unless_same_later(&root, &real, &hidden, &|_, _| {}, &later);
                let comes = files < listed.files.len();
                match against {
                    None => assert!(change == "nothing" && comes, "said same after {change}"),
                    Some(against) => {
                        assert!(
                            change != "nothing" || !comes,
                            "not same after {files} files"
                        );
                        assert!(
                            against.files == fresh.files && against.folders == fresh.folders,
                            "after {change}, the listing come after {files} files"
                        );
                    }
                }
            }
        }
    }
}

//! The in-memory index of a vault folder: its files and folders as Obsidian lists them, what the vault-wide tools
//! read of each note (frontmatter, tags, link targets, tasks, its words in `crate::offline::index::words`), and the
//! vault-wide resolved / unresolved link maps. No note's text is kept: the tools that show a note read it again.
//!
//! The index is built on first use (or from the saved one, `crate::offline::index::saved`) and refreshed from the folder's
//! modification times when the file watcher saw a change (`crate::offline::index::watch`): a note whose mtime and size are
//! unchanged keeps what the index knows of it, so a refresh of an unchanged 10,000-note vault costs one directory
//! walk and no reads. Links are re-resolved for every note only when the set of files changed; otherwise only the
//! notes that changed are.
//!
//! What the index keeps of each note is `note.rs`'s; the tests (`metadata/tests.rs`) pin the refresh rules.
//!
//! The listing is `vault.rs`'s. One deliberate difference from Obsidian: nothing outside the vault is read. A file
//! whose real location is outside the vault (through a symlink) is listed but its content is never read, so it has no
//! metadata.
//!
//! Hidden paths (`crate::offline::plugin::vault::hidden`) are left out of the listing itself, with everything inside a hidden folder,
//! so no tool ever sees them: an entry is hidden when its path is, or when its real location inside the vault is (a
//! symlink, or an entry inside a symlinked folder, leading to a hidden path). Link resolution, backlinks and counts are
//! then computed among the visible files only.

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::offline::index::words::Words;
use crate::offline::js::js_cmp;
use crate::offline::obsidian::lookup::Lookups;
use crate::offline::obsidian::names::{self, NoteNames};
pub(crate) use crate::offline::obsidian::note::Note;
use crate::offline::obsidian::read::{parallel_map, read_notes, release_freed_memory};
use crate::offline::obsidian::vault::{FileEntry, Listing};
use crate::offline::plugin::vault::paths::MAX_FILE_BYTES;
#[cfg(test)]
use crate::offline::{
    obsidian::vault::walk,
    plugin::vault::{hidden::HiddenRules, paths::RealVault},
};

/// From how many notes read a build lays its words out at once, gives freed memory back, and makes the table of
/// names beside the links' resolution instead of leaving it to the first search.
const LARGE_BUILD: usize = 1000;

/// Where a note's links lead, with counts, in first-seen order: files by index into [`Snapshot::files`] (a path per
/// link cost the index about 80 MB at 100,000 notes), linkpaths that lead nowhere as written.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct NoteLinks {
    pub(crate) resolved: Box<[(u32, u32)]>,
    pub(crate) unresolved: Box<[(Box<str>, u32)]>,
}

/// A note's links with their destinations as paths.
pub(crate) struct LinksOf<'a> {
    snapshot: &'a Snapshot,
    links: &'a NoteLinks,
}

impl<'a> LinksOf<'a> {
    /// The files it links to, by path, with counts, in first-seen order.
    pub(crate) fn resolved(&self) -> impl Iterator<Item = (&'a str, usize)> + 'a {
        let files = &self.snapshot.files;
        self.links
            .resolved
            .iter()
            .map(move |&(target, count)| (files[target as usize].path.as_str(), count as usize))
    }

    /// The linkpaths that lead nowhere, with counts, in first-seen order.
    pub(crate) fn unresolved(&self) -> impl Iterator<Item = (&'a str, usize)> + 'a {
        self.links
            .unresolved
            .iter()
            .map(|(linkpath, count)| (&**linkpath, *count as usize))
    }
}

/// One consistent view of the vault. Saved whole between bridge processes (`crate::offline::index::saved`) but for its
/// lookup tables, which [`Snapshot::with_lookups`] rebuilds.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Snapshot {
    /// Files in the order the vault lists them.
    pub(crate) files: Vec<FileEntry>,
    /// Folders (not the root) in listing order.
    pub(crate) folders: Vec<String>,
    /// Files by path and by lower-case name.
    #[serde(skip)]
    lookups: Lookups,
    #[serde(skip)]
    folder_set: HashSet<String>,
    /// By file index: the note, for a Markdown note whose content could be read.
    notes: Vec<Option<Arc<Note>>>,
    /// By file index: where a note's links lead (nothing for other files).
    links: Vec<NoteLinks>,
    /// Markdown notes (indexes into `files`) in path order (JavaScript `<`), as most tools list them.
    pub(crate) sorted_notes: Vec<usize>,
    /// Every file and folder in path order, for listings ([`Snapshot::sorted_entries`]).
    sorted_entries: Vec<ListedEntry>,
    /// By file index: the notes other than itself linking to it, with their link counts, in path order.
    backlinks: super::backlinks::Backlinks,
    /// Markdown notes inside the vault too large to read (`MAX_FILE_BYTES`), in listing order: listed, not indexed.
    pub(crate) too_large: Vec<String>,
    /// How many notes this snapshot had to read (the others were kept from the previous one).
    #[serde(skip)]
    pub(crate) notes_read: usize,
    /// What ranking reads of each note, built on the first ranked search (`names.rs`).
    #[serde(skip)]
    names: OnceLock<Option<NoteNames>>,
    /// The notes outside the config folder, for the config folder first asked (`names.rs`).
    #[serde(skip)]
    outside_config: OnceLock<(Box<str>, Vec<usize>)>,
}

/// A listing entry: a file or a folder, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    File(usize),
    Folder(usize),
}

/// An [`Entry`] as a snapshot keeps it, in 4 bytes instead of 16 (1.2 MB less at 100,000 files): its index, with
/// [`ListedEntry::FOLDER`] set for a folder.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct ListedEntry(u32);

impl ListedEntry {
    const FOLDER: u32 = 1 << 31;

    /// `None` past 2^31 files or folders.
    fn of(entry: Entry) -> Option<ListedEntry> {
        let (index, mark) = match entry {
            Entry::File(index) => (index, 0),
            Entry::Folder(index) => (index, Self::FOLDER),
        };
        u32::try_from(index)
            .ok()
            .filter(|&index| index < Self::FOLDER)
            .map(|index| ListedEntry(index | mark))
    }

    fn entry(self) -> Entry {
        let index = (self.0 & !Self::FOLDER) as usize;
        if self.0 & Self::FOLDER == 0 {
            Entry::File(index)
        } else {
            Entry::Folder(index)
        }
    }
}

impl Snapshot {
    /// Builds a fresh snapshot of a listing (`walk`), reusing the notes of `previous` whose mtime and size did not
    /// change; `None` when nothing changed at all since `previous` (the common case: it then stays in use as it is).
    /// Rules that changed show as a changed listing, so they never leave stale visibility in use.
    pub(crate) fn refresh_if_changed(
        root: &Path,
        listing: Listing,
        previous: Option<&Snapshot>,
        words: &mut Words,
    ) -> Option<Snapshot> {
        if previous.is_some_and(|previous| {
            previous.files == listing.files && previous.folders == listing.folders
        }) {
            return None;
        }
        Some(Self::build(root, listing, previous, words))
    }

    /// About how many bytes the snapshot holds beside the word index: the listing with its lookups, link maps and
    /// orders (a few words per file), and every note kept.
    pub(crate) fn approx_bytes(&self) -> u64 {
        const PER_FILE: usize = std::mem::size_of::<FileEntry>() + 96;
        let listing: usize = self
            .files
            .iter()
            .map(|file| file.path.len() + PER_FILE)
            .sum();
        let folders: usize = self.folders.iter().map(|folder| folder.len() + 48).sum();
        let notes: u64 = self
            .notes
            .iter()
            .flatten()
            .map(|note| note.approx_bytes())
            .sum();
        (listing + folders) as u64 + notes
    }

    /// The snapshot with its lookup tables built (they are not saved).
    pub(crate) fn with_lookups(mut self) -> Snapshot {
        self.lookups = Lookups::new(&self.files);
        self.folder_set = self.folders.iter().cloned().collect();
        self
    }

    /// Builds a fresh snapshot, reusing the notes of `previous` whose mtime and size did not change.
    #[cfg(test)]
    pub(crate) fn refresh(root: &Path, real: &RealVault, previous: Option<&Snapshot>) -> Snapshot {
        let mut words = Words::default();
        Self::build(
            root,
            walk(root, real, &HiddenRules::default(), &|_, _| {}),
            previous,
            &mut words,
        )
    }

    fn build(
        root: &Path,
        listing: Listing,
        previous: Option<&Snapshot>,
        words: &mut Words,
    ) -> Snapshot {
        let count = listing.files.len();
        // The same files in the same order (notes edited in place): the link maps of `previous` hold for the notes
        // that did not change; with the same folders too, so do its lookups and orders.
        let same_files = previous.is_some_and(|previous| {
            previous.files.len() == count
                && previous
                    .files
                    .iter()
                    .zip(&listing.files)
                    .all(|(a, b)| a.path == b.path)
        });
        let same_paths =
            previous.filter(|previous| same_files && previous.folders == listing.folders);
        let mut snapshot = Snapshot {
            files: listing.files,
            folders: listing.folders,
            notes: vec![None; count],
            links: vec![NoteLinks::default(); count],
            ..Snapshot::default()
        };
        snapshot = match same_paths {
            Some(previous) => Snapshot {
                lookups: previous.lookups.clone(),
                folder_set: previous.folder_set.clone(),
                sorted_notes: previous.sorted_notes.clone(),
                sorted_entries: previous.sorted_entries.clone(),
                ..snapshot
            },
            None => snapshot.with_lookups(),
        };

        let mut changed: Vec<usize> = Vec::new();
        let mut to_read: Vec<usize> = Vec::new();
        for (index, file) in snapshot.files.iter().enumerate() {
            if !file.is_markdown() {
                continue;
            }
            if file.inside && file.size > MAX_FILE_BYTES {
                snapshot.too_large.push(file.path.clone());
                continue;
            }
            let kept = previous
                .and_then(|previous| previous.note(&file.path))
                .filter(|note| note.mtime == file.mtime && note.size == file.size);
            match kept {
                Some(note) => snapshot.notes[index] = Some(Arc::clone(note)),
                None => to_read.push(index),
            }
        }
        let phase = std::time::Instant::now();
        let mut held = snapshot.approx_bytes();
        words.keep_within_budget(held);
        let files = &snapshot.files;
        let notes = &mut snapshot.notes;
        read_notes(root, files, &to_read, |index, read| {
            let note = read.into_note(words);
            held += note.approx_bytes();
            notes[index] = Some(Arc::new(note));
            changed.push(index);
            words.keep_within_budget(held);
        });
        let read_done = std::time::Instant::now();
        snapshot.notes_read = to_read.len();
        if to_read.len() > LARGE_BUILD {
            words.freeze();
            tracing::debug!(
                ms = read_done.elapsed().as_millis() as u64,
                "offline index: words laid out"
            );
            release_freed_memory();
            tracing::debug!(
                ms = read_done.elapsed().as_millis() as u64,
                "offline index: memory trimmed"
            );
        }
        if let Some(previous) = previous {
            for (index, note) in previous.notes.iter().enumerate() {
                let Some(note) = note else { continue };
                if !snapshot
                    .note(&previous.files[index].path)
                    .is_some_and(|kept| Arc::ptr_eq(kept, note))
                {
                    words.retire();
                }
            }
        }
        if words.wants_compaction() {
            let live = words.doc_set(snapshot.notes.iter().flatten().map(|note| note.doc));
            words.compact(&live);
        }

        match previous {
            Some(previous) if same_files => {
                snapshot.links = previous.links.clone();
                for index in changed {
                    snapshot.links[index] = snapshot.resolve_note(index);
                }
            }
            // The first search after a large build would make the table of names before answering (a twentieth of
            // a second at 100,000 notes): it is made beside the links' resolution.
            _ if to_read.len() > LARGE_BUILD => snapshot.resolve_all_with_names(),
            _ => snapshot.resolve_all(),
        }
        let resolved = std::time::Instant::now();
        if same_paths.is_none() {
            snapshot.sort();
        }
        snapshot.invert();
        tracing::debug!(
            read = to_read.len(),
            read_ms = (read_done - phase).as_millis() as u64,
            resolve_ms = (resolved - read_done).as_millis() as u64,
            sort_ms = resolved.elapsed().as_millis() as u64,
            "offline index phases"
        );
        snapshot
    }

    /// The orders that the tools read on every call, computed once per snapshot (kept from the one before when the
    /// paths are the same: a third of a refresh at 100,000 notes).
    fn sort(&mut self) {
        let files = &self.files;
        let mut notes: Vec<usize> = (0..files.len())
            .filter(|&i| files[i].is_markdown())
            .collect();
        notes.sort_by(|&a, &b| js_cmp(&files[a].path, &files[b].path));
        self.sorted_notes = notes;
        let mut entries: Vec<ListedEntry> = (0..files.len())
            .map(Entry::File)
            .chain((0..self.folders.len()).map(Entry::Folder))
            .filter_map(ListedEntry::of)
            .collect();
        entries.sort_by(|a, b| js_cmp(self.entry_path(a.entry()), self.entry_path(b.entry())));
        self.sorted_entries = entries;
    }

    /// The reverse link index, from the links and the order of the notes.
    fn invert(&mut self) {
        // Sources are visited in path order, so each target's list comes out in path order.
        let (links, sorted) = (&self.links, &self.sorted_notes);
        let each = |visit: &mut dyn FnMut(usize, (u32, u32))| {
            for &source in sorted {
                for &(target, count) in &links[source].resolved {
                    if target as usize != source {
                        visit(target as usize, (source as u32, count));
                    }
                }
            }
        };
        self.backlinks = super::backlinks::Backlinks::of(self.files.len(), each);
    }

    /// Every file and folder in path order.
    pub(crate) fn sorted_entries(&self) -> impl Iterator<Item = Entry> + '_ {
        self.sorted_entries.iter().map(|listed| listed.entry())
    }

    /// The path of a listing entry.
    pub(crate) fn entry_path(&self, entry: Entry) -> &str {
        match entry {
            Entry::File(index) => &self.files[index].path,
            Entry::Folder(index) => &self.folders[index],
        }
    }

    /// `backlinkSources`: the notes other than `target` linking to it, with counts, in path order.
    pub(crate) fn backlink_sources(&self, target: &str) -> impl Iterator<Item = (&str, usize)> {
        self.lookups
            .path(&self.files, target)
            .map_or(&[][..], |index| self.backlinks.to(index))
            .iter()
            .map(|&(source, count)| (self.files[source as usize].path.as_str(), count as usize))
    }

    /// Where the note at `path` links: files by path and unresolved linkpaths, each with its count.
    pub(crate) fn links_of(&self, path: &str) -> Option<LinksOf<'_>> {
        self.links_at(self.lookups.path(&self.files, path)?)
    }

    /// Where the note of the file at `index` links, as [`Snapshot::links_of`].
    pub(crate) fn links_at(&self, index: usize) -> Option<LinksOf<'_>> {
        self.notes.get(index)?.as_ref()?;
        Some(LinksOf {
            snapshot: self,
            links: &self.links[index],
        })
    }

    /// Every readable note (by file index) with where its links lead, in listing order.
    pub(crate) fn all_links(&self) -> impl Iterator<Item = (usize, &NoteLinks)> {
        self.links
            .iter()
            .enumerate()
            .filter(|(index, _)| self.notes[*index].is_some())
    }

    fn resolve_all(&mut self) {
        self.links = parallel_map(self.files.len(), |index| self.resolve_note(index));
    }

    /// [`Snapshot::resolve_all`], with the table of names made on a thread beside it.
    fn resolve_all_with_names(&mut self) {
        let (links, names) = std::thread::scope(|scope| {
            let names = scope.spawn(|| NoteNames::build(&self.files, &self.folders, &self.notes));
            let links = parallel_map(self.files.len(), |index| self.resolve_note(index));
            (links, names.join())
        });
        self.links = links;
        // A table that failed to be made is made by the first search, as without this.
        if let Ok(names) = names {
            self.names = OnceLock::from(names);
        }
    }

    fn resolve_note(&self, index: usize) -> NoteLinks {
        let Some(note) = &self.notes[index] else {
            return NoteLinks::default();
        };
        let path = &self.files[index].path;
        let mut resolved: Vec<(u32, u32)> = Vec::new();
        let mut unresolved: Vec<(Box<str>, u32)> = Vec::new();
        for link in note.links() {
            let linkpath = link_path(link);
            match self.first_linkpath_dest(linkpath, path) {
                Some(destination) => {
                    let destination = destination as u32;
                    match resolved.iter_mut().find(|(known, _)| *known == destination) {
                        Some(entry) => entry.1 += 1,
                        None => resolved.push((destination, 1)),
                    }
                }
                None => match unresolved
                    .iter_mut()
                    .find(|(known, _)| **known == *linkpath)
                {
                    Some(entry) => entry.1 += 1,
                    None => unresolved.push((linkpath.into(), 1)),
                },
            }
        }
        NoteLinks {
            resolved: resolved.into_boxed_slice(),
            unresolved: unresolved.into_boxed_slice(),
        }
    }

    /// The index in `files` of the file at exactly this vault path.
    pub(crate) fn file_index(&self, path: &str) -> Option<usize> {
        self.lookups.path(&self.files, path)
    }

    /// The file at exactly this vault path.
    pub(crate) fn file(&self, path: &str) -> Option<&FileEntry> {
        self.lookups
            .path(&self.files, path)
            .map(|index| &self.files[index])
    }

    /// Whether this vault path is a folder (`""` is the root).
    pub(crate) fn is_folder(&self, path: &str) -> bool {
        path.is_empty() || self.folder_set.contains(path)
    }

    /// The note (text and metadata) at this path, when it is a Markdown note whose content could be read.
    pub(crate) fn note(&self, path: &str) -> Option<&Arc<Note>> {
        self.notes[self.lookups.path(&self.files, path)?].as_ref()
    }

    /// What ranking reads of each note, by file index (`names.rs`).
    pub(crate) fn names(&self) -> Option<&NoteNames> {
        self.names
            .get_or_init(|| NoteNames::build(&self.files, &self.folders, &self.notes))
            .as_ref()
    }

    /// Makes now what a search makes on first use: the table of names ([`Snapshot::names`]) and the notes outside
    /// `config_dir` ([`Snapshot::notes_outside`]).
    pub(crate) fn prepare_search(&self, config_dir: &str) {
        self.names();
        self.notes_outside(config_dir);
    }

    /// Whether the table of names and the notes outside a config folder are made.
    #[cfg(test)]
    pub(crate) fn search_ready(&self) -> bool {
        self.names.get().is_some() && self.outside_config.get().is_some()
    }

    /// The notes outside `config_dir` in path order, by file index: kept for the first config folder asked (one per
    /// vault), computed for any other.
    pub(crate) fn notes_outside(&self, config_dir: &str) -> std::borrow::Cow<'_, [usize]> {
        let outside = || names::outside_config(&self.sorted_notes, &self.files, config_dir);
        let (kept_for, kept) = self
            .outside_config
            .get_or_init(|| (config_dir.into(), outside()));
        if **kept_for == *config_dir {
            std::borrow::Cow::Borrowed(kept)
        } else {
            std::borrow::Cow::Owned(outside())
        }
    }

    /// The note of the file at `index`, as [`Snapshot::note`].
    pub(crate) fn note_at(&self, index: usize) -> Option<&Arc<Note>> {
        self.notes.get(index)?.as_ref()
    }

    /// The readable Markdown notes in path order whose path starts with `prefix`, outside the config folder: a note
    /// whose real file is outside the vault has no content here, so it is left out.
    pub(crate) fn notes_under<'a>(
        &'a self,
        prefix: &'a str,
        config_dir: &'a str,
    ) -> impl Iterator<Item = (&'a FileEntry, &'a Arc<Note>)> + 'a {
        self.sorted_notes.iter().filter_map(move |&index| {
            let file = &self.files[index];
            if !file.path.starts_with(prefix)
                || crate::offline::plugin::vault::paths::is_in_config_dir(&file.path, config_dir)
            {
                return None;
            }
            Some((file, self.note_at(index)?))
        })
    }

    /// Markdown notes in listing order.
    pub(crate) fn markdown_files(&self) -> impl Iterator<Item = &FileEntry> {
        self.files.iter().filter(|file| file.is_markdown())
    }
}

/// `getLinkpath`: the part of a link before the first `#`.
pub(crate) fn link_path(link: &str) -> &str {
    link.split('#').next().unwrap_or(link)
}

/// The parent folder of a vault path, `/` for the root as Obsidian's `TFile.parent.path` has it.
pub(crate) fn parent_path(path: &str) -> &str {
    match path.rfind('/') {
        Some(slash) => &path[..slash],
        None => "/",
    }
}

mod linkpath;
#[cfg(test)]
mod tests;

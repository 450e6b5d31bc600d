//! The in-memory index of a vault folder: its files and folders as Obsidian lists them, what the vault-wide tools
//! read of each note (frontmatter, tags, link targets, tasks, its words in `crate::offline::words`), and the
//! vault-wide resolved / unresolved link maps. No note's text is kept: the tools that show a note read it again.
//!
//! The index is built on first use (or from the saved one, `crate::offline::saved`) and refreshed from the folder's
//! modification times when the file watcher saw a change (`crate::offline::watch`): a note whose mtime and size are
//! unchanged keeps what the index knows of it, so a refresh of an unchanged 10,000-note vault costs one directory
//! walk and no reads. Links are re-resolved for every note only when the set of files changed; otherwise only the
//! notes that changed are.
//!
//! About 600 lines of code and 260 of unit tests: the index and its incremental refresh are one piece of state, and
//! the tests pin the refresh rules beside it.
//!
//! The listing is `walk.rs`'s. One deliberate difference from Obsidian: nothing outside the vault is read. A file
//! whose real location is outside the vault (through a symlink) is listed but its content is never read, so it has no
//! metadata.
//!
//! Hidden paths (`crate::offline::hidden`) are left out of the listing itself, with everything inside a hidden folder,
//! so no tool ever sees them: an entry is hidden when its path is, or when its real location inside the vault is (a
//! symlink, or an entry inside a symlinked folder, leading to a hidden path). Link resolution, backlinks and counts are
//! then computed among the visible files only.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::offline::obsidian::lookup::Lookups;
use crate::offline::obsidian::markdown;
use crate::offline::obsidian::walk::{FileEntry, Listing};
use crate::offline::paths::MAX_FILE_BYTES;
use crate::offline::tasks::{Task, task_items};
use crate::offline::text::js_cmp;
use crate::offline::words::{NoteWords, Words, words_of};
#[cfg(test)]
use crate::offline::{hidden::HiddenRules, obsidian::walk::walk, paths::RealVault};

/// What the index keeps of a note: what the vault-wide tools read (frontmatter, tags, link targets, tasks, its
/// document in the word index). Its text and the rest of its metadata (positions, headings, blocks) are read from
/// the file again by the tools that show one note (`Context::parsed`): keeping them for every note cost the bridge
/// about 8 KB per note, 870 MB for 100,000. What is kept is packed in one allocation ([`Packed`]): one per tag, link
/// and task field cost another 40% of the index.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Note {
    /// [`Packed`], encoded.
    #[serde(with = "crate::offline::raw_bytes")]
    packed: Box<[u8]>,
    /// Whether it has task items (the tasks tool unpacks only those notes).
    has_tasks: bool,
    /// Its document in the word index (`crate::offline::words`).
    pub(crate) doc: u32,
    mtime: i64,
    size: u64,
}

/// What the index keeps of a note, in the order the tools most often read it (each reads only as far as it needs).
#[derive(serde::Serialize, serde::Deserialize)]
struct Packed<'a> {
    /// The frontmatter as compact JSON, when it parsed as a mapping (a parsed map per note is large).
    #[serde(borrow)]
    frontmatter: Option<&'a str>,
    /// The note's tags as the tools report them (`noteTags`).
    #[serde(borrow)]
    tags: Vec<&'a str>,
    /// The `link` of every link, embed and frontmatter link, in that order: what link resolution reads.
    #[serde(borrow)]
    links: Vec<&'a str>,
    /// Its task items.
    tasks: Vec<Task>,
}

/// A note read and parsed (on any thread), before its words are numbered in the word index.
pub(crate) struct ReadNote {
    note: Note,
    words: NoteWords,
}

impl ReadNote {
    fn parse(text: &str, file: &FileEntry) -> ReadNote {
        let meta = markdown::parse(text);
        let tags = crate::offline::obsidian::properties::note_tags(Some(&meta));
        let links = meta
            .links
            .iter()
            .chain(&meta.embeds)
            .map(|link| link.link.as_str())
            .chain(meta.frontmatter_links.iter().map(|link| link.link.as_str()))
            .collect();
        let tasks = task_items(text, &meta);
        let frontmatter = meta
            .frontmatter
            .as_ref()
            .map(|map| serde_json::to_string(map).unwrap_or_default());
        let packed = Packed {
            frontmatter: frontmatter.as_deref(),
            tags: tags.iter().map(String::as_str).collect(),
            links,
            tasks,
        };
        ReadNote {
            note: Note {
                packed: postcard::to_allocvec(&packed)
                    .expect("a note's parts encode")
                    .into_boxed_slice(),
                has_tasks: !packed.tasks.is_empty(),
                doc: 0,
                mtime: file.mtime,
                size: file.size,
            },
            words: words_of(text),
        }
    }

    /// The note, its words added to `words` as a new document.
    fn into_note(self, words: &mut Words) -> Note {
        Note {
            doc: words.add(&self.words),
            ..self.note
        }
    }
}

impl Note {
    /// About how many bytes the note holds in the index (its packed parts and its own header behind an `Arc`).
    fn approx_bytes(&self) -> u64 {
        (self.packed.len() + std::mem::size_of::<Note>() + 16) as u64
    }

    /// The frontmatter as compact JSON, when it parsed as a mapping.
    pub(crate) fn frontmatter_json(&self) -> Option<&str> {
        postcard::take_from_bytes::<Option<&str>>(&self.packed)
            .ok()?
            .0
    }

    /// The frontmatter, when it parsed as a mapping.
    pub(crate) fn frontmatter(&self) -> Option<Map<String, Value>> {
        serde_json::from_str(self.frontmatter_json()?).ok()
    }

    /// The frontmatter's keys in order, each with its value still as JSON text: for the tools that look at every
    /// note's properties but at few of their values (parsing every value cost `properties` most of its time).
    pub(crate) fn frontmatter_entries(&self) -> Option<Vec<(Cow<'_, str>, &RawValue)>> {
        serde_json::from_str::<Entries<'_>>(self.frontmatter_json()?)
            .ok()
            .map(|entries| entries.0)
    }

    /// The note's tags as the tools report them (`noteTags`).
    pub(crate) fn tags(&self) -> Vec<&str> {
        self.unpack_through(|rest| {
            let (_, rest) = postcard::take_from_bytes::<Option<&str>>(rest)?;
            Ok(postcard::take_from_bytes::<Vec<&str>>(rest)?.0)
        })
    }

    /// The `link` of every link, embed and frontmatter link, in that order.
    fn links(&self) -> Vec<&str> {
        self.unpack_through(|rest| {
            let (_, rest) = postcard::take_from_bytes::<Option<&str>>(rest)?;
            let (_, rest) = postcard::take_from_bytes::<Vec<&str>>(rest)?;
            Ok(postcard::take_from_bytes::<Vec<&str>>(rest)?.0)
        })
    }

    /// Its task items.
    pub(crate) fn tasks(&self) -> Vec<Task> {
        if !self.has_tasks {
            return Vec::new();
        }
        self.unpack_through(|rest| Ok(postcard::from_bytes::<Packed<'_>>(rest)?.tasks))
    }

    /// Reads the packed parts as far as `read` goes; nothing when they do not decode (a saved index damaged in a
    /// way its checks did not catch), which is logged.
    fn unpack_through<'a, T: Default>(
        &'a self,
        read: impl FnOnce(&'a [u8]) -> postcard::Result<T>,
    ) -> T {
        read(&self.packed).unwrap_or_else(|error| {
            tracing::warn!(%error, "a note in the offline index does not decode; it is read as empty");
            T::default()
        })
    }
}

/// A JSON object's entries in order, values unparsed.
struct Entries<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Entries<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Entries<'de>;
            fn expecting(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                out.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<Cow<'de, str>, &'de RawValue>()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

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

/// One consistent view of the vault. Saved whole between bridge processes (`crate::offline::saved`) but for its
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
    /// Every file and folder in path order, for listings.
    pub(crate) sorted_entries: Vec<Entry>,
    /// By file index: the notes other than itself linking to it, with their link counts, in path order.
    backlinks: Vec<Box<[(u32, u32)]>>,
    /// Markdown notes inside the vault too large to read (`MAX_FILE_BYTES`), in listing order: listed, not indexed.
    pub(crate) too_large: Vec<String>,
    /// How many notes this snapshot had to read (the others were kept from the previous one).
    #[serde(skip)]
    pub(crate) notes_read: usize,
}

/// A listing entry: a file or a folder, by index.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub(crate) enum Entry {
    File(usize),
    Folder(usize),
}

/// How many notes read and parsed may wait for their words to be numbered: bounds what a build holds beyond the
/// index itself (the whole metadata of 100,000 notes is about 700 MB, and the allocator keeps what it once held).
const READ_AHEAD: usize = 256;

/// How many notes a reading thread hands over at once.
const BATCH: usize = 32;

/// Decodes a file as Node's `readFileSync(path, "utf8")` does: invalid UTF-8 becomes U+FFFD.
pub(crate) fn text_of_bytes(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
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
        let mut snapshot = Snapshot {
            files: listing.files,
            folders: listing.folders,
            notes: vec![None; count],
            links: vec![NoteLinks::default(); count],
            ..Snapshot::default()
        }
        .with_lookups();

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
        if to_read.len() > 1000 {
            release_freed_memory();
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

        let same_files = previous.is_some_and(|previous| {
            previous.files.len() == snapshot.files.len()
                && previous
                    .files
                    .iter()
                    .zip(&snapshot.files)
                    .all(|(a, b)| a.path == b.path)
        });
        match previous {
            Some(previous) if same_files => {
                snapshot.links = previous.links.clone();
                for index in changed {
                    snapshot.links[index] = snapshot.resolve_note(index);
                }
            }
            _ => snapshot.resolve_all(),
        }
        let resolved = std::time::Instant::now();
        snapshot.sort_and_invert();
        tracing::debug!(
            read = to_read.len(),
            read_ms = (read_done - phase).as_millis() as u64,
            resolve_ms = (resolved - read_done).as_millis() as u64,
            sort_ms = resolved.elapsed().as_millis() as u64,
            "offline index phases"
        );
        snapshot
    }

    /// The orders and the reverse link index that the tools read on every call, computed once per snapshot.
    fn sort_and_invert(&mut self) {
        let files = &self.files;
        let mut notes: Vec<usize> = (0..files.len())
            .filter(|&i| files[i].is_markdown())
            .collect();
        notes.sort_by(|&a, &b| js_cmp(&files[a].path, &files[b].path));
        self.sorted_notes = notes;
        let mut entries: Vec<Entry> = (0..files.len())
            .map(Entry::File)
            .chain((0..self.folders.len()).map(Entry::Folder))
            .collect();
        entries.sort_by(|a, b| js_cmp(self.entry_path(*a), self.entry_path(*b)));
        self.sorted_entries = entries;
        // Sources are visited in path order, so each target's list comes out in path order.
        let mut backlinks: Vec<Vec<(u32, u32)>> = vec![Vec::new(); self.files.len()];
        for &source in &self.sorted_notes {
            for &(target, count) in &self.links[source].resolved {
                if target as usize != source {
                    backlinks[target as usize].push((source as u32, count));
                }
            }
        }
        self.backlinks = backlinks.into_iter().map(Vec::into_boxed_slice).collect();
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
            .and_then(|index| self.backlinks.get(index))
            .map_or(&[][..], |sources| &sources[..])
            .iter()
            .map(|&(source, count)| (self.files[source as usize].path.as_str(), count as usize))
    }

    /// Where the note at `path` links: files by path and unresolved linkpaths, each with its count.
    pub(crate) fn links_of(&self, path: &str) -> Option<LinksOf<'_>> {
        let index = self.lookups.path(&self.files, path)?;
        self.notes[index].as_ref()?;
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
        self.links = (0..self.files.len())
            .map(|index| self.resolve_note(index))
            .collect();
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
                || crate::offline::paths::is_in_config_dir(&file.path, config_dir)
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

    /// Obsidian's `getFirstLinkpathDest` (rules in `fake-obsidian/metadata.cjs`): the index of the file a linkpath
    /// written in `source` leads to.
    pub(crate) fn first_linkpath_dest(&self, linkpath: &str, source: &str) -> Option<usize> {
        let at = |path: &str| self.lookups.path(&self.files, path);
        if linkpath.is_empty() {
            return at(source);
        }
        let path = linkpath.trim_start_matches('/');
        let source_folder = parent_path(source);
        if path.starts_with("./") || path.starts_with("../") {
            let joined = join_relative(source_folder, path)?;
            return at(&joined).or_else(|| at(&format!("{joined}.md")));
        }
        if let Some(exact) = at(path).or_else(|| at(&format!("{path}.md"))) {
            return Some(exact);
        }
        let lower = path.to_lowercase();
        let name = lower.rsplit('/').next().unwrap_or(&lower);
        let suffix = format!("/{lower}");
        let mut matches: Vec<usize> = Vec::new();
        for key in [name.to_string(), format!("{name}.md")] {
            for index in self.lookups.named(&self.files, &key) {
                let file = &self.files[index];
                let full = file.path.to_lowercase();
                let hit = full == lower
                    || full.ends_with(&suffix)
                    || (file.is_markdown() && {
                        let without = &full[..full.len() - 3];
                        without == lower || without.ends_with(&suffix)
                    });
                if hit {
                    matches.push(index);
                }
            }
        }
        let local: Vec<usize> = matches
            .iter()
            .copied()
            .filter(|&index| parent_path(&self.files[index].path) == source_folder)
            .collect();
        let pool = if local.is_empty() { matches } else { local };
        pool.into_iter().min_by(|&a, &b| {
            let (a, b) = (&self.files[a].path, &self.files[b].path);
            js_len(a).cmp(&js_len(b)).then_with(|| js_cmp(a, b))
        })
    }
}

/// JavaScript length of a path, for "shortest path wins".
fn js_len(path: &str) -> usize {
    crate::offline::text::utf16_len(path)
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

/// Resolves `./` and `../` against a folder; `None` when it climbs above the vault root.
fn join_relative(folder: &str, relative: &str) -> Option<String> {
    let mut segments: Vec<&str> = if folder == "/" {
        Vec::new()
    } else {
        folder.split('/').collect()
    };
    for segment in relative.split('/') {
        match segment {
            "." | "" => {}
            ".." => {
                segments.pop()?;
            }
            other => segments.push(other),
        }
    }
    Some(segments.join("/"))
}

/// Hands memory freed after a bulk parse back to the system: the parse of a large vault leaves the allocator's
/// per-thread arenas holding many times the size of what the index keeps.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of glibc's heaps to the system; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Reads and parses notes on the available cores and hands each to `each` on this thread as it is ready (at most
/// [`READ_AHEAD`] wait); unreadable notes and notes outside the vault are skipped.
fn read_notes(
    root: &Path,
    files: &[FileEntry],
    wanted: &[usize],
    mut each: impl FnMut(usize, ReadNote),
) {
    let read_one = |index: usize| -> Option<(usize, ReadNote)> {
        let file = &files[index];
        if !file.inside {
            return None;
        }
        let bytes = crate::offline::paths::read_verified(
            &crate::offline::paths::full_path(root, &file.path),
            file.identity,
        )
        .ok()?;
        let text = text_of_bytes(bytes);
        Some((index, ReadNote::parse(&text, file)))
    };
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    if wanted.len() < 64 || workers == 1 {
        for (index, read) in wanted.iter().filter_map(|&index| read_one(index)) {
            each(index, read);
        }
        return;
    }
    let chunk = wanted.len().div_ceil(workers);
    // Notes travel in batches: one wake-up of this thread per note cost a third of a 100,000-note build in the kernel.
    let (sender, receiver) = std::sync::mpsc::sync_channel(READ_AHEAD / BATCH);
    std::thread::scope(|scope| {
        for part in wanted.chunks(chunk) {
            let sender = sender.clone();
            scope.spawn(move || {
                for batch in part.chunks(BATCH) {
                    let read: Vec<(usize, ReadNote)> =
                        batch.iter().filter_map(|&index| read_one(index)).collect();
                    if sender.send(read).is_err() {
                        return;
                    }
                }
            });
        }
        drop(sender);
        for (index, read) in receiver.into_iter().flatten() {
            each(index, read);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault(files: &[(&str, &str)]) -> (tempfile::TempDir, Snapshot) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        let real = RealVault::new(std::fs::canonicalize(dir.path()).unwrap(), ".obsidian");
        let snapshot = Snapshot::refresh(dir.path(), &real, None);
        (dir, snapshot)
    }

    type Counts = Vec<(String, usize)>;

    /// A note's resolved and unresolved links as (path or linkpath, count).
    fn links(snapshot: &Snapshot, path: &str) -> (Counts, Counts) {
        let links = snapshot.links_of(path).expect("a readable note");
        let own = |(text, count): (&str, usize)| (text.to_string(), count);
        (
            links.resolved().map(own).collect(),
            links.unresolved().map(own).collect(),
        )
    }

    fn dest(snapshot: &Snapshot, link: &str, source: &str) -> Option<String> {
        snapshot
            .first_linkpath_dest(link, source)
            .map(|i| snapshot.files[i].path.clone())
    }

    #[test]
    fn listing_skips_hidden_and_config_and_sorts_depth_first() {
        let (_dir, snapshot) = vault(&[
            ("b.md", ""),
            ("a/z.md", ""),
            ("a/c.md", ""),
            (".obsidian/app.json", "{}"),
            (".trash/old.md", ""),
            ("x/.hidden.md", ""),
            ("Image.PNG", ""),
        ]);
        let paths: Vec<_> = snapshot.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["Image.PNG", "a/c.md", "a/z.md", "b.md"]);
        assert_eq!(snapshot.folders, vec!["a", "x"]);
        assert_eq!(snapshot.files[0].extension(), "PNG");
    }

    #[test]
    fn resolution_prefers_exact_then_same_folder_then_shortest() {
        let (_dir, snapshot) = vault(&[
            ("Note.md", ""),
            ("deep/er/Note.md", ""),
            ("deep/Note.md", ""),
            ("deep/Other.md", ""),
            ("pics/photo.png", ""),
            ("x/Same.md", ""),
            ("y/Same.md", ""),
            ("y/z/Same.md", ""),
        ]);
        assert_eq!(
            dest(&snapshot, "Note", "elsewhere.md").as_deref(),
            Some("Note.md")
        );
        assert_eq!(
            dest(&snapshot, "note", "deep/Other.md").as_deref(),
            Some("deep/Note.md"),
            "same folder wins"
        );
        assert_eq!(
            dest(&snapshot, "er/Note", "x.md").as_deref(),
            Some("deep/er/Note.md"),
            "partial path"
        );
        assert_eq!(
            dest(&snapshot, "Same", "root.md").as_deref(),
            Some("x/Same.md"),
            "shortest, then code-unit order"
        );
        assert_eq!(
            dest(&snapshot, "Same", "y/z/a.md").as_deref(),
            Some("y/z/Same.md")
        );
        assert_eq!(
            dest(&snapshot, "photo.png", "a.md").as_deref(),
            Some("pics/photo.png")
        );
        assert_eq!(
            dest(&snapshot, "photo", "a.md"),
            None,
            "attachments need their extension"
        );
        assert_eq!(
            dest(&snapshot, "./Other", "deep/Note.md").as_deref(),
            Some("deep/Other.md")
        );
        assert_eq!(
            dest(&snapshot, "../Note", "deep/Other.md").as_deref(),
            Some("Note.md")
        );
        assert_eq!(dest(&snapshot, "../../Note", "deep/Other.md"), None);
        assert_eq!(
            dest(&snapshot, "/deep/Note", "x.md").as_deref(),
            Some("deep/Note.md")
        );
        assert_eq!(
            dest(&snapshot, "", "deep/Other.md").as_deref(),
            Some("deep/Other.md")
        );
        assert_eq!(dest(&snapshot, "Missing", "a.md"), None);
    }

    #[test]
    fn resolved_and_unresolved_maps_count_links_embeds_and_frontmatter() {
        let (_dir, snapshot) = vault(&[
            (
                "a.md",
                "---\nup: \"[[b]]\"\n---\n[[b]] [[b#h]] ![[c.png]] [[nope]] [[#self]] `[[code]]`",
            ),
            ("b.md", ""),
            ("c.png", ""),
        ]);
        let (resolved, unresolved) = links(&snapshot, "a.md");
        assert_eq!(
            resolved,
            vec![
                ("b.md".to_string(), 3),
                ("a.md".to_string(), 1),
                ("c.png".to_string(), 1)
            ]
        );
        assert_eq!(unresolved, vec![("nope".to_string(), 1)]);
    }

    #[test]
    fn refresh_rereads_only_changed_notes() {
        let (dir, first) = vault(&[("a.md", "[[b]]"), ("b.md", "")]);
        let real = RealVault::new(std::fs::canonicalize(dir.path()).unwrap(), ".obsidian");
        assert!(
            Snapshot::refresh_if_changed(
                dir.path(),
                walk(dir.path(), &real, &HiddenRules::default(), &|_, _| {}),
                Some(&first),
                &mut Words::default()
            )
            .is_none()
        );
        let same = Snapshot::refresh(dir.path(), &real, Some(&first));
        let note = |snapshot: &Snapshot, path| Arc::clone(snapshot.note(path).unwrap());
        assert!(Arc::ptr_eq(&note(&first, "a.md"), &note(&same, "a.md")));
        std::fs::write(dir.path().join("a.md"), "[[c]] and more").unwrap();
        std::fs::write(dir.path().join("c.md"), "").unwrap();
        let changed = Snapshot::refresh_if_changed(
            dir.path(),
            walk(dir.path(), &real, &HiddenRules::default(), &|_, _| {}),
            Some(&same),
            &mut Words::default(),
        )
        .expect("a change is seen");
        assert_eq!(links(&changed, "a.md").0, vec![("c.md".to_string(), 1)]);
        assert!(Arc::ptr_eq(&note(&same, "b.md"), &note(&changed, "b.md")));
    }

    fn hidden_snapshot(dir: &Path, rules: &[&str]) -> Snapshot {
        let rules: Vec<String> = rules.iter().map(|rule| rule.to_string()).collect();
        let hidden = HiddenRules::compile(&rules, &[]).unwrap();
        let real = RealVault::new(std::fs::canonicalize(dir).unwrap(), ".obsidian");
        let listing = walk(dir, &real, &hidden, &|_, _| {});
        Snapshot::refresh_if_changed(dir, listing, None, &mut Words::default()).unwrap()
    }

    #[test]
    fn hidden_entries_and_everything_inside_them_do_not_exist() {
        let (dir, _) = vault(&[
            ("Private/a.md", "#private-tag"),
            ("Private/deep/b.md", ""),
            ("Notes/Secret.md", ""),
            ("Notes/Open.md", ""),
            ("x/Secret.md", ""),
            ("Home.md", "[[a]] [[Secret]] [[Private/a]] [[notes/secret]]"),
        ]);
        let snapshot = hidden_snapshot(dir.path(), &["private", "Notes/Secret"]);
        let paths: Vec<_> = snapshot.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["Home.md", "Notes/Open.md", "x/Secret.md"]);
        assert_eq!(snapshot.folders, ["Notes", "x"]);
        assert!(!snapshot.is_folder("Private") && snapshot.note("Private/a.md").is_none());
        let (resolved, unresolved) = links(&snapshot, "Home.md");
        assert_eq!(
            resolved,
            [("x/Secret.md".to_string(), 1)],
            "`Secret` goes to the best visible candidate (Obsidian's own answer, Notes/Secret.md, is hidden)"
        );
        assert_eq!(
            unresolved,
            [
                ("a".to_string(), 1),
                ("Private/a".to_string(), 1),
                ("notes/secret".to_string(), 1)
            ]
        );
        assert_eq!(snapshot.backlink_sources("Private/a.md").count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_whose_real_location_is_hidden_is_hidden_too() {
        let (dir, _) = vault(&[
            ("Private/a.md", "x"),
            ("Notes/Secret.md", "x"),
            ("Notes/Open.md", "x"),
            ("Visible.md", "x"),
        ]);
        let link = |target: &str, name: &str| {
            std::os::unix::fs::symlink(target, dir.path().join(name)).unwrap();
        };
        link("Private", "Shortcut");
        link("Private/a.md", "alias.md");
        link("Notes", "Mirror");
        link("Visible.md", "Also visible.md");
        let snapshot = hidden_snapshot(dir.path(), &["Private", "Notes/Secret.md"]);
        let paths: Vec<_> = snapshot.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            ["Also visible.md", "Mirror/Open.md", "Visible.md"],
            "a link to a hidden folder or file, and a hidden file inside a linked folder, are left out"
        );
        assert_eq!(snapshot.folders, ["Mirror", "Notes"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_into_the_config_folder_is_listed_but_never_entered_or_read() {
        let (dir, _) = vault(&[
            ("a.md", ""),
            (".obsidian/plugins/obsmcp/data.json", "{\"token\":\"t\"}"),
        ]);
        std::os::unix::fs::symlink(".obsidian", dir.path().join("cfglink")).unwrap();
        std::os::unix::fs::symlink(
            ".obsidian/plugins/obsmcp/data.json",
            dir.path().join("token.md"),
        )
        .unwrap();
        let real = RealVault::new(std::fs::canonicalize(dir.path()).unwrap(), ".obsidian");
        let snapshot = Snapshot::refresh(dir.path(), &real, None);
        assert!(snapshot.file("cfglink/plugins/obsmcp/data.json").is_none());
        assert!(!snapshot.file("token.md").unwrap().inside);
        assert!(snapshot.note("token.md").is_none());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_vault_are_listed_but_never_read() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "[[a]] secret").unwrap();
        let (dir, _) = vault(&[("a.md", "")]);
        std::os::unix::fs::symlink(outside.path().join("secret.md"), dir.path().join("leak.md"))
            .unwrap();
        std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).unwrap();
        let real = RealVault::new(std::fs::canonicalize(dir.path()).unwrap(), ".obsidian");
        let snapshot = Snapshot::refresh(dir.path(), &real, None);
        let leak = snapshot.file("leak.md").unwrap();
        assert!(!leak.inside);
        assert!(snapshot.note("leak.md").is_none());
        assert_eq!(
            snapshot.folders,
            vec!["loop"],
            "a folder reached twice is listed once, without its content"
        );
    }
}

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
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::offline::hidden::HiddenRules;
use crate::offline::obsidian::markdown;
use crate::offline::obsidian::walk::{FileEntry, Listing, walk};
use crate::offline::paths::{MAX_FILE_BYTES, RealVault};
use crate::offline::tasks::{Task, task_items};
use crate::offline::text::js_cmp;
use crate::offline::words::{NoteWords, Words, words_of};

/// What the index keeps of a note: what the vault-wide tools read (frontmatter, tags, link targets, tasks, its
/// document in the word index). Its text and the rest of its metadata (positions, headings, blocks) are read from
/// the file again by the tools that show one note (`Context::parsed`): keeping them for every note cost the bridge
/// about 8 KB per note, 870 MB for 100,000.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Note {
    /// The frontmatter as compact JSON, when it parsed as a mapping (a parsed map per note is large).
    frontmatter: Option<Box<str>>,
    /// The note's tags as the tools report them (`noteTags`).
    pub(crate) tags: Vec<String>,
    /// The `link` of every link, embed and frontmatter link, in that order: what link resolution reads.
    links: Box<[Box<str>]>,
    /// Its task items.
    pub(crate) tasks: Box<[Task]>,
    /// Its document in the word index (`crate::offline::words`).
    pub(crate) doc: u32,
    mtime: i64,
    size: u64,
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
            .map(|link| link.link.as_str().into())
            .chain(
                meta.frontmatter_links
                    .iter()
                    .map(|link| link.link.as_str().into()),
            )
            .collect();
        let tasks = task_items(text, &meta).into_boxed_slice();
        let frontmatter = meta
            .frontmatter
            .map(|map| Value::Object(map).to_string().into_boxed_str());
        ReadNote {
            note: Note {
                frontmatter,
                tags,
                links,
                tasks,
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
    /// The frontmatter, when it parsed as a mapping.
    pub(crate) fn frontmatter(&self) -> Option<Map<String, Value>> {
        serde_json::from_str(self.frontmatter.as_deref()?).ok()
    }

    /// The frontmatter's keys in order, each with its value still as JSON text: for the tools that look at every
    /// note's properties but at few of their values (parsing every value cost `properties` most of its time).
    pub(crate) fn frontmatter_entries(&self) -> Option<Vec<(Cow<'_, str>, &RawValue)>> {
        serde_json::from_str::<Entries<'_>>(self.frontmatter.as_deref()?)
            .ok()
            .map(|entries| entries.0)
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

/// Where a note's links lead: destination path (or unresolved linkpath) and count, in first-seen order.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct NoteLinks {
    pub(crate) resolved: Vec<(String, usize)>,
    pub(crate) unresolved: Vec<(String, usize)>,
}

/// One consistent view of the vault. Saved whole between bridge processes (`crate::offline::saved`) but for its
/// lookup tables, which [`Snapshot::with_lookups`] rebuilds.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Snapshot {
    /// Files in the order the vault lists them.
    pub(crate) files: Vec<FileEntry>,
    /// Folders (not the root) in listing order.
    pub(crate) folders: Vec<String>,
    #[serde(skip)]
    by_path: HashMap<String, usize>,
    #[serde(skip)]
    folder_set: HashSet<String>,
    /// Files by lower-case name, for basename lookups.
    #[serde(skip)]
    by_name: HashMap<String, Vec<usize>>,
    pub(crate) notes: HashMap<String, Arc<Note>>,
    pub(crate) links: HashMap<String, NoteLinks>,
    /// Markdown notes (indexes into `files`) in path order (JavaScript `<`), as most tools list them.
    pub(crate) sorted_notes: Vec<usize>,
    /// Every file and folder in path order, for listings.
    pub(crate) sorted_entries: Vec<Entry>,
    /// For each link target, the notes linking to it with their link counts, in path order.
    backlinks: HashMap<String, Vec<(String, usize)>>,
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

/// Decodes a file as Node's `readFileSync(path, "utf8")` does: invalid UTF-8 becomes U+FFFD.
pub(crate) fn text_of_bytes(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
    }
}

impl Snapshot {
    /// Builds a fresh snapshot of what `hidden` leaves visible, reusing the notes of `previous` whose mtime and size
    /// did not change; `None` when nothing changed at all since `previous` (the common case: it then stays in use as
    /// it is). Rules that changed show as a changed listing, so they never leave stale visibility in use.
    pub(crate) fn refresh_if_changed(
        root: &Path,
        real: &RealVault,
        hidden: &HiddenRules,
        previous: Option<&Snapshot>,
        words: &mut Words,
    ) -> Option<Snapshot> {
        let listing = walk(root, real, hidden);
        if previous.is_some_and(|previous| {
            previous.files == listing.files && previous.folders == listing.folders
        }) {
            return None;
        }
        Some(Self::build(root, listing, previous, words))
    }

    /// The snapshot with its lookup tables built (they are not saved).
    pub(crate) fn with_lookups(mut self) -> Snapshot {
        self.by_path = HashMap::with_capacity(self.files.len());
        self.by_name = HashMap::new();
        for (index, file) in self.files.iter().enumerate() {
            self.by_path.insert(file.path.clone(), index);
            self.by_name
                .entry(file.name().to_lowercase())
                .or_default()
                .push(index);
        }
        self.folder_set = self.folders.iter().cloned().collect();
        self
    }

    /// Builds a fresh snapshot, reusing the notes of `previous` whose mtime and size did not change.
    #[cfg(test)]
    pub(crate) fn refresh(root: &Path, real: &RealVault, previous: Option<&Snapshot>) -> Snapshot {
        let mut words = Words::default();
        Self::build(
            root,
            walk(root, real, &HiddenRules::default()),
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
        let mut snapshot = Snapshot {
            files: listing.files,
            folders: listing.folders,
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
                .and_then(|previous| previous.notes.get(&file.path))
                .filter(|note| note.mtime == file.mtime && note.size == file.size);
            match kept {
                Some(note) => {
                    snapshot.notes.insert(file.path.clone(), Arc::clone(note));
                }
                None => to_read.push(index),
            }
        }
        let files = &snapshot.files;
        let notes = &mut snapshot.notes;
        read_notes(root, files, &to_read, |index, read| {
            notes.insert(files[index].path.clone(), Arc::new(read.into_note(words)));
            changed.push(index);
        });
        snapshot.notes_read = to_read.len();
        if to_read.len() > 1000 {
            release_freed_memory();
        }
        if let Some(previous) = previous {
            for (path, note) in &previous.notes {
                if !snapshot
                    .notes
                    .get(path)
                    .is_some_and(|kept| Arc::ptr_eq(kept, note))
                {
                    words.retire();
                }
            }
        }
        if words.wants_compaction() {
            let live = words.doc_set(snapshot.notes.values().map(|note| note.doc));
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
                    let path = snapshot.files[index].path.clone();
                    let links = snapshot.resolve_note(&path);
                    snapshot.links.insert(path, links);
                }
            }
            _ => snapshot.resolve_all(),
        }
        snapshot.sort_and_invert();
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
        let mut backlinks: HashMap<String, Vec<(String, usize)>> = HashMap::new();
        for (source, links) in &self.links {
            for (target, count) in &links.resolved {
                if target != source {
                    backlinks
                        .entry(target.clone())
                        .or_default()
                        .push((source.clone(), *count));
                }
            }
        }
        for sources in backlinks.values_mut() {
            sources.sort_by(|a, b| js_cmp(&a.0, &b.0));
        }
        self.backlinks = backlinks;
    }

    /// The path of a listing entry.
    pub(crate) fn entry_path(&self, entry: Entry) -> &str {
        match entry {
            Entry::File(index) => &self.files[index].path,
            Entry::Folder(index) => &self.folders[index],
        }
    }

    /// `backlinkSources`: the notes other than `target` linking to it, with counts, in path order.
    pub(crate) fn backlink_sources(&self, target: &str) -> &[(String, usize)] {
        self.backlinks.get(target).map_or(&[], Vec::as_slice)
    }

    fn resolve_all(&mut self) {
        let paths: Vec<String> = self
            .files
            .iter()
            .filter(|f| f.is_markdown())
            .map(|f| f.path.clone())
            .collect();
        let mut links = HashMap::with_capacity(paths.len());
        for path in paths {
            let resolved = self.resolve_note(&path);
            links.insert(path, resolved);
        }
        self.links = links;
    }

    fn resolve_note(&self, path: &str) -> NoteLinks {
        let mut out = NoteLinks::default();
        let Some(note) = self.notes.get(path) else {
            return out;
        };
        for link in note.links.iter().map(|link| &**link) {
            let linkpath = link_path(link);
            match self.first_linkpath_dest(linkpath, path) {
                Some(destination) => bump(&mut out.resolved, &self.files[destination].path),
                None => bump(&mut out.unresolved, linkpath),
            }
        }
        out
    }

    /// The file at exactly this vault path.
    pub(crate) fn file(&self, path: &str) -> Option<&FileEntry> {
        self.by_path.get(path).map(|&index| &self.files[index])
    }

    /// Whether this vault path is a folder (`""` is the root).
    pub(crate) fn is_folder(&self, path: &str) -> bool {
        path.is_empty() || self.folder_set.contains(path)
    }

    /// The note (text and metadata) at this path, when it is a Markdown note whose content could be read.
    pub(crate) fn note(&self, path: &str) -> Option<&Arc<Note>> {
        self.notes.get(path)
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
            Some((file, self.note(&file.path)?))
        })
    }

    /// Markdown notes in listing order.
    pub(crate) fn markdown_files(&self) -> impl Iterator<Item = &FileEntry> {
        self.files.iter().filter(|file| file.is_markdown())
    }

    /// Obsidian's `getFirstLinkpathDest` (rules in `fake-obsidian/metadata.cjs`): the index of the file a linkpath
    /// written in `source` leads to.
    pub(crate) fn first_linkpath_dest(&self, linkpath: &str, source: &str) -> Option<usize> {
        if linkpath.is_empty() {
            return self.by_path.get(source).copied();
        }
        let path = linkpath.trim_start_matches('/');
        let source_folder = parent_path(source);
        if path.starts_with("./") || path.starts_with("../") {
            let joined = join_relative(source_folder, path)?;
            return self
                .by_path
                .get(&joined)
                .or_else(|| self.by_path.get(&format!("{joined}.md")))
                .copied();
        }
        if let Some(&exact) = self
            .by_path
            .get(path)
            .or_else(|| self.by_path.get(&format!("{path}.md")))
        {
            return Some(exact);
        }
        let lower = path.to_lowercase();
        let name = lower.rsplit('/').next().unwrap_or(&lower);
        let suffix = format!("/{lower}");
        let mut matches: Vec<usize> = Vec::new();
        for key in [name.to_string(), format!("{name}.md")] {
            for &index in self.by_name.get(&key).into_iter().flatten() {
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

fn bump(counts: &mut Vec<(String, usize)>, key: &str) {
    match counts.iter_mut().find(|(existing, _)| existing == key) {
        Some(entry) => entry.1 += 1,
        None => counts.push((key.to_string(), 1)),
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
    let (sender, receiver) = std::sync::mpsc::sync_channel(READ_AHEAD);
    std::thread::scope(|scope| {
        for part in wanted.chunks(chunk) {
            let sender = sender.clone();
            scope.spawn(move || {
                for read in part.iter().filter_map(|&index| read_one(index)) {
                    if sender.send(read).is_err() {
                        return;
                    }
                }
            });
        }
        drop(sender);
        for (index, read) in receiver {
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
        assert_eq!(snapshot.files[0].extension, "PNG");
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
        let links = &snapshot.links["a.md"];
        assert_eq!(
            links.resolved,
            vec![
                ("b.md".to_string(), 3),
                ("a.md".to_string(), 1),
                ("c.png".to_string(), 1)
            ]
        );
        assert_eq!(links.unresolved, vec![("nope".to_string(), 1)]);
    }

    #[test]
    fn refresh_rereads_only_changed_notes() {
        let (dir, first) = vault(&[("a.md", "[[b]]"), ("b.md", "")]);
        let real = RealVault::new(std::fs::canonicalize(dir.path()).unwrap(), ".obsidian");
        assert!(
            Snapshot::refresh_if_changed(
                dir.path(),
                &real,
                &HiddenRules::default(),
                Some(&first),
                &mut Words::default()
            )
            .is_none()
        );
        let same = Snapshot::refresh(dir.path(), &real, Some(&first));
        assert!(Arc::ptr_eq(&first.notes["a.md"], &same.notes["a.md"]));
        std::fs::write(dir.path().join("a.md"), "[[c]] and more").unwrap();
        std::fs::write(dir.path().join("c.md"), "").unwrap();
        let changed = Snapshot::refresh_if_changed(
            dir.path(),
            &real,
            &HiddenRules::default(),
            Some(&same),
            &mut Words::default(),
        )
        .expect("a change is seen");
        assert_eq!(
            changed.links["a.md"].resolved,
            vec![("c.md".to_string(), 1)]
        );
        assert!(Arc::ptr_eq(&same.notes["b.md"], &changed.notes["b.md"]));
    }

    fn hidden_snapshot(dir: &Path, rules: &[&str]) -> Snapshot {
        let rules: Vec<String> = rules.iter().map(|rule| rule.to_string()).collect();
        let hidden = HiddenRules::compile(&rules, &[]).unwrap();
        let real = RealVault::new(std::fs::canonicalize(dir).unwrap(), ".obsidian");
        Snapshot::refresh_if_changed(dir, &real, &hidden, None, &mut Words::default()).unwrap()
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
        let links = &snapshot.links["Home.md"];
        assert_eq!(
            links.resolved,
            [("x/Secret.md".to_string(), 1)],
            "`Secret` goes to the best visible candidate (Obsidian's own answer, Notes/Secret.md, is hidden)"
        );
        assert_eq!(
            links.unresolved,
            [
                ("a".to_string(), 1),
                ("Private/a".to_string(), 1),
                ("notes/secret".to_string(), 1)
            ]
        );
        assert!(snapshot.backlink_sources("Private/a.md").is_empty());
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

//! What a search reads of every note in scope, kept together by file index: each readable note's document in the
//! word index, its size, its folder, its name and its aliases. Without it, ranking 100,000 notes touched 100,000 notes,
//! paths and frontmatters scattered over the heap, and parsed every frontmatter that names aliases again, on every
//! search (about 60 ms of a 115 ms ranking at 100,000 notes of 2.4 KB). A snapshot never changes, so the table is
//! built once and dropped with it: by a build that read more than 1,000 notes (beside the links' resolution) and by a
//! start from the saved index (beside the walk), else on the first search that needs it.
//!
//! Also the notes outside the config folder, in path order: the scope of every search without a path prefix
//! (`outside_config`, kept by the snapshot).

use std::collections::HashMap;
use std::sync::Arc;

use super::note::Note;
use super::properties::frontmatter_aliases;
use super::vault::FileEntry;

/// One file's row, 24 bytes (32 with sizes and lengths of 8 and 4: 0.8 MB more at 100,000 files): `doc` is
/// [`NoteNames::NO_NOTE`] for a file with no readable note, `folder` an index into the snapshot's folders or
/// [`NoteNames::ROOT`].
#[derive(Debug, Clone, Copy)]
struct Row {
    doc: u32,
    folder: u32,
    /// A Markdown file's size (the only files a search weighs; 0 for the others).
    size: u32,
    /// Where its name starts in the text, how long its aliases after the name are, how long the name is and how long
    /// its title (the name without its extension) is: a file name holds at most 255 units on every system.
    start: u32,
    aliases: u32,
    name: u16,
    title: u16,
}

/// By file index: each note's document, folder, name, title and aliases, the texts in one string with ASCII letters
/// lowered (what reads them compares ignoring ASCII case). A file's path is its folder, `/` and its name, so a word of
/// letters and digits is in the path exactly when it is in one or the other.
#[derive(Debug, Default)]
pub(crate) struct NoteNames {
    rows: Vec<Row>,
    text: String,
    /// The mentions of the words asked lately, by the word in canonical case: questions repeat words (`the`, `how`),
    /// and each is a scan of the whole text. At most [`KEPT_WORDS`].
    kept: std::sync::Mutex<HashMap<Box<str>, Arc<Mentions>>>,
}

/// How many words' mentions a table keeps (two bits per file each: 25 KB at 100,000 files).
const KEPT_WORDS: usize = 64;

impl NoteNames {
    const NO_NOTE: u32 = u32::MAX;
    const ROOT: u32 = u32::MAX;

    /// The table of `files` (in `folders`) and their `notes`; `None` when its text would pass 4 GB, a note is that
    /// large or a file's folder is not among `folders` (none happens in a real vault; the search then reads each note
    /// as before).
    pub(super) fn build(
        files: &[FileEntry],
        folders: &[String],
        notes: &[Option<Arc<Note>>],
    ) -> Option<NoteNames> {
        let folder_at: HashMap<&str, u32> = folders
            .iter()
            .enumerate()
            .map(|(at, folder)| (folder.as_str(), at as u32))
            .collect();
        let mut table = NoteNames {
            rows: Vec::with_capacity(files.len()),
            ..NoteNames::default()
        };
        for (file, note) in files.iter().zip(notes) {
            let Some(note) = note else {
                table.rows.push(Row {
                    doc: Self::NO_NOTE,
                    folder: Self::ROOT,
                    // Rows start in order, so that a place in the text is found by halving.
                    size: markdown_size(file)?,
                    start: u32::try_from(table.text.len()).ok()?,
                    aliases: 0,
                    name: 0,
                    title: 0,
                });
                continue;
            };
            // Every file's folder is listed; were one not, the path could not be told from the table.
            let (folder, name) = match file.path.rsplit_once('/') {
                Some((folder, name)) => (*folder_at.get(folder)?, name),
                None => (Self::ROOT, file.path.as_str()),
            };
            let start = table.text.len();
            table.text.push_str(name);
            let title = file.title().len().min(name.len());
            if note.has_aliases() {
                table
                    .text
                    .push_str(&frontmatter_aliases(note.frontmatter().as_ref()).join("\n"));
            }
            let aliases = table.text.len() - start - name.len();
            table.rows.push(Row {
                doc: note.doc,
                folder,
                size: markdown_size(file)?,
                start: u32::try_from(start).ok()?,
                aliases: u32::try_from(aliases).ok()?,
                name: u16::try_from(name.len()).ok()?,
                title: u16::try_from(title).ok()?,
            });
        }
        u32::try_from(table.text.len()).ok()?;
        // Everything the table is read for compares ignoring ASCII case; lowered once here, a word is looked for in
        // every name with one scan ([`NoteNames::mentions`]).
        table.text.make_ascii_lowercase();
        table.text.shrink_to_fit();
        Some(table)
    }

    /// The document of the note at file index `index`, when it has one.
    pub(crate) fn doc(&self, index: usize) -> Option<u32> {
        self.rows
            .get(index)
            .map(|row| row.doc)
            .filter(|&doc| doc != Self::NO_NOTE)
    }

    /// Its size in bytes, for a Markdown file (0 for any other).
    pub(crate) fn size(&self, index: usize) -> u64 {
        self.rows.get(index).map_or(0, |row| u64::from(row.size))
    }

    /// Its folder, as an index into the snapshot's folders (`None`: the vault's root).
    pub(crate) fn folder(&self, index: usize) -> Option<usize> {
        self.rows
            .get(index)
            .map(|row| row.folder)
            .filter(|&folder| folder != Self::ROOT)
            .map(|folder| folder as usize)
    }

    /// Its file name (`TFile.name`).
    pub(crate) fn name(&self, index: usize) -> &str {
        self.text_of(index, |row| (0, row.name.into()))
    }

    /// Its title (`TFile.basename`).
    pub(crate) fn title(&self, index: usize) -> &str {
        self.text_of(index, |row| (0, row.title.into()))
    }

    /// Its aliases, joined by a line break, as ranking weighs them.
    pub(crate) fn aliases(&self, index: usize) -> &str {
        self.text_of(index, |row| (row.name.into(), row.aliases))
    }

    /// [`NoteNames::mentions`] of the word `key` (in canonical case), kept for the next searches.
    pub(crate) fn mentions_of(
        &self,
        key: &str,
        find: impl FnMut(&str, usize) -> Option<std::ops::Range<usize>>,
    ) -> Arc<Mentions> {
        if let Some(kept) = crate::lock::lock(&self.kept).get(key) {
            return Arc::clone(kept);
        }
        let found = Arc::new(self.mentions(find));
        let mut kept = crate::lock::lock(&self.kept);
        if kept.len() >= KEPT_WORDS {
            kept.clear();
        }
        kept.insert(key.into(), Arc::clone(&found));
        found
    }

    /// The files whose name, and those whose aliases, hold a word (letters and digits) that `find` finds: one scan
    /// of the table's text for every note, instead of one look at each note's. `find(text, from)` gives the first
    /// match at or after byte `from` of the table's text, which is in ASCII lower case.
    fn mentions(
        &self,
        mut find: impl FnMut(&str, usize) -> Option<std::ops::Range<usize>>,
    ) -> Mentions {
        let mut mentions = Mentions {
            name: vec![0; self.rows.len().div_ceil(64)],
            aliases: vec![0; self.rows.len().div_ceil(64)],
        };
        let (mut from, mut index) = (0, 0);
        while let Some(found) = find(&self.text, from) {
            let (at, end) = (found.start, found.end);
            // Hits come in order, often in rows close together: the row is found by doubling steps from the last.
            let mut step = 1;
            while index + step < self.rows.len() && self.rows[index + step].start as usize <= at {
                index += step;
                step *= 2;
            }
            let last = (index + step).min(self.rows.len());
            index += self.rows[index..last].partition_point(|row| row.start as usize <= at) - 1;
            let row = &self.rows[index];
            let (name, aliases) = (
                (row.start + u32::from(row.name)) as usize,
                (row.start + u32::from(row.name) + row.aliases) as usize,
            );
            // One hit per part is enough: the scan goes on where the next part starts.
            let next = at + self.text[at..].chars().next().map_or(1, char::len_utf8);
            from = if end <= name {
                mentions.name[index / 64] |= 1 << (index % 64);
                name
            } else if at >= name && end <= aliases {
                mentions.aliases[index / 64] |= 1 << (index % 64);
                aliases
            } else {
                // Across the name and the aliases, or into the next row.
                next
            }
            .max(next);
        }
        mentions
    }

    /// The part of a row's text that `span` names: its offset from the row's start and its length.
    fn text_of(&self, index: usize, span: impl Fn(&Row) -> (u32, u32)) -> &str {
        self.rows.get(index).map_or("", |row| {
            let (offset, len) = span(row);
            let start = (row.start + offset) as usize;
            &self.text[start..start + len as usize]
        })
    }
}

/// The size of `file` if it is a Markdown file, 0 for any other; `None` for a note of 4 GB or more (the table is then
/// not built).
fn markdown_size(file: &FileEntry) -> Option<u32> {
    if file.is_markdown() {
        u32::try_from(file.size).ok()
    } else {
        Some(0)
    }
}

/// The files whose name, and those whose aliases, hold a word: [`NoteNames::mentions`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Mentions {
    name: Vec<u64>,
    aliases: Vec<u64>,
}

impl Mentions {
    /// Whether the name of the file at `index` holds the word.
    pub(crate) fn in_name(&self, index: usize) -> bool {
        Self::has(&self.name, index)
    }

    /// Whether its aliases hold the word.
    pub(crate) fn in_aliases(&self, index: usize) -> bool {
        Self::has(&self.aliases, index)
    }

    fn has(set: &[u64], index: usize) -> bool {
        set.get(index / 64)
            .is_some_and(|bits| bits & (1 << (index % 64)) != 0)
    }
}

/// The notes of `sorted_notes` (indexes into `files`) outside `config_dir`, in the same order: the scope of every
/// search without a path prefix, kept by the snapshot (`Snapshot::notes_outside`).
pub(super) fn outside_config(
    sorted_notes: &[usize],
    files: &[FileEntry],
    config_dir: &str,
) -> Vec<usize> {
    sorted_notes
        .iter()
        .copied()
        .filter(|&index| {
            !crate::offline::plugin::vault::paths::is_in_config_dir(&files[index].path, config_dir)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::offline::obsidian::metadata::Snapshot;

    #[test]
    fn rows_name_each_note_and_skip_other_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Plain.md"), "# Plain\n\nNo frontmatter.\n").unwrap();
        std::fs::write(
            dir.path().join("Named.md"),
            "---\naliases: [First, Second]\nalias: Third\n---\ntext\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("image.png"), [0u8; 4]).unwrap();
        std::fs::create_dir_all(dir.path().join("Deep/Er")).unwrap();
        std::fs::write(dir.path().join("Deep/Er/v1.2 notes.md"), "x").unwrap();
        let real = crate::offline::plugin::vault::paths::RealVault::new(
            std::fs::canonicalize(dir.path()).unwrap(),
            ".obsidian",
        );
        let snapshot = Snapshot::refresh(dir.path(), &real, None);
        let table = snapshot.names().expect("a small vault has a table");
        let at = |path: &str| {
            snapshot
                .files
                .iter()
                .position(|file| file.path == path)
                .unwrap()
        };
        let (plain, named, image) = (at("Plain.md"), at("Named.md"), at("image.png"));
        assert_eq!(table.title(plain), "plain", "lowered");
        assert_eq!(table.aliases(plain), "");
        assert_eq!(table.title(named), "named");
        assert_eq!(table.aliases(named), "first\nsecond\nthird");
        assert_eq!(
            table.doc(named),
            Some(snapshot.note("Named.md").unwrap().doc)
        );
        assert_eq!(table.doc(image), None, "a file that is not a note");
        assert_eq!(table.size(image), 0, "nor weighed");
        assert_eq!(table.folder(named), None, "at the root");
        let deep = at("Deep/Er/v1.2 notes.md");
        let folder = table.folder(deep).expect("in a folder");
        assert_eq!(snapshot.folders[folder], "Deep/Er");
        assert_eq!(table.name(deep), "v1.2 notes.md");
        assert_eq!(table.title(deep), "v1.2 notes");
        assert_eq!(table.size(deep), 1);
        let mentions = |word: &str| {
            let word = word.to_ascii_lowercase();
            let found = table.mentions(|text, from| {
                let at = from + text[from..].find(&word)?;
                Some(at..at + word.len())
            });
            let name: Vec<usize> = (0..snapshot.files.len())
                .filter(|&i| found.in_name(i))
                .collect();
            let aliases: Vec<usize> = (0..snapshot.files.len())
                .filter(|&i| found.in_aliases(i))
                .collect();
            (name, aliases)
        };
        assert_eq!(mentions("NAME"), (vec![named], vec![]), "case is ignored");
        assert_eq!(mentions("second"), (vec![], vec![named]));
        let mut notes = vec![plain, named, deep];
        notes.sort_unstable();
        assert_eq!(
            mentions("md"),
            (notes, vec![]),
            "the extension is in the name"
        );
        assert_eq!(
            mentions("mdfirst"),
            (vec![], vec![]),
            "not across the name and the aliases"
        );
        assert_eq!(
            mentions("thirdv1"),
            (vec![], vec![]),
            "not across two notes"
        );
        assert_eq!(mentions("png"), (vec![], vec![]), "not a note");
        assert_eq!(table.doc(snapshot.files.len()), None);
        assert_eq!(table.title(snapshot.files.len()), "");
    }
}

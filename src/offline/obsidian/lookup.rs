//! A snapshot's files by exact path and by lower-case name, without a copy of any path or name: each table holds
//! 4-byte indexes into the snapshot's `files` and compares with the files themselves. Keyed copies cost the index
//! about 14 MB per 100,000 files, for lookups that a table of indexes answers as fast.

use std::hash::BuildHasher;

use foldhash::fast::RandomState;

use hashbrown::HashTable;

use crate::offline::js::lowers_to;
use crate::offline::obsidian::vault::FileEntry;

#[derive(Debug, Default, Clone)]
pub(crate) struct Lookups {
    state: RandomState,
    by_path: HashTable<u32>,
    /// By `name().to_lowercase()`; several files can share a name.
    by_name: HashTable<u32>,
}

impl Lookups {
    pub(crate) fn new(files: &[FileEntry]) -> Lookups {
        // Seeded per process, as std's is, but several times faster on paths: resolving a build's links looks up
        // each linkpath two to four times (SipHash was 0.9% of a build's instructions).
        let state = RandomState::default();
        let mut by_path = HashTable::with_capacity(files.len());
        let mut by_name = HashTable::with_capacity(files.len());
        let path_hash = |index: &u32| state.hash_one(files[*index as usize].path.as_str());
        let name_hash = |index: &u32| state.hash_one(lower_name(&files[*index as usize]).as_str());
        for (index, file) in files.iter().enumerate() {
            let index = u32::try_from(index).expect("fewer than 2^32 files");
            by_path.insert_unique(state.hash_one(file.path.as_str()), index, path_hash);
            by_name.insert_unique(state.hash_one(lower_name(file).as_str()), index, name_hash);
        }
        Lookups {
            state,
            by_path,
            by_name,
        }
    }

    /// The index of the file at exactly `path`.
    pub(crate) fn path(&self, files: &[FileEntry], path: &str) -> Option<usize> {
        self.by_path
            .find(self.state.hash_one(path), |&index| {
                files[index as usize].path == path
            })
            .map(|&index| index as usize)
    }

    /// The indexes of the files whose name, lower-cased, is `lower`, in no particular order.
    pub(crate) fn named<'a>(
        &'a self,
        files: &'a [FileEntry],
        lower: &'a str,
    ) -> impl Iterator<Item = usize> + 'a {
        self.by_name
            .iter_hash(self.state.hash_one(lower))
            .map(|&index| index as usize)
            .filter(move |&index| lowers_to(files[index].name(), lower))
    }
}

fn lower_name(file: &FileEntry) -> String {
    file.name().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str) -> FileEntry {
        FileEntry {
            path: path.into(),
            size: 0,
            mtime: 0,
            ctime: 0,
            inside: true,
            identity: Default::default(),
        }
    }

    #[test]
    fn paths_are_exact_and_names_fold_case_and_may_repeat() {
        let files: Vec<FileEntry> = ["a/Note.md", "b/note.md", "c/Other.md", "ΟΔΟΣ.md"]
            .into_iter()
            .map(file)
            .collect();
        let lookups = Lookups::new(&files);
        assert_eq!(lookups.path(&files, "b/note.md"), Some(1));
        assert_eq!(lookups.path(&files, "B/note.md"), None);
        let named = |lower: &str| {
            let mut found: Vec<usize> = lookups.named(&files, lower).collect();
            found.sort_unstable();
            found
        };
        assert_eq!(named("note.md"), vec![0, 1]);
        assert_eq!(named("other.md"), vec![2]);
        assert_eq!(named("missing.md"), Vec::<usize>::new());
        // Lower-cased as a whole name, with the context rules of JavaScript's toLowerCase (the sigma before ".md"
        // is not final there: it is followed by a letter).
        assert_eq!(named(&"ΟΔΟΣ.md".to_lowercase()), vec![3]);
        assert_eq!(named("οδος.md"), Vec::<usize>::new());
    }
}

//! What the index keeps of one note (`Note`): what the vault-wide tools read of it, packed in one allocation, and
//! how a note read from disk becomes one (`ReadNote`). The snapshot that holds them is `metadata.rs`'s.

use std::borrow::Cow;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::offline::index::words::{NoteWords, Words, words_of};
use crate::offline::obsidian::markdown;
use crate::offline::obsidian::vault::FileEntry;
use crate::offline::plugin::vault::tasks::{Task, task_items};

/// What the index keeps of a note: what the vault-wide tools read (frontmatter, tags, link targets, tasks, its
/// document in the word index). Its text and the rest of its metadata (positions, headings, blocks) are read from
/// the file again by the tools that show one note (`Context::parsed`): keeping them for every note cost the bridge
/// about 8 KB per note, 870 MB for 100,000. What is kept is packed in one allocation ([`Packed`]): one per tag, link
/// and task field cost another 40% of the index.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Note {
    /// [`Packed`], encoded.
    #[serde(with = "crate::offline::index::raw_bytes")]
    packed: Box<[u8]>,
    /// Whether it has task items (the tasks tool unpacks only those notes).
    has_tasks: bool,
    /// Whether its frontmatter names aliases (`aliases` or `alias`): ranking weighs a note's aliases, and most
    /// notes have none to unpack.
    has_aliases: bool,
    /// Its document in the word index (`crate::offline::index::words`).
    pub(crate) doc: u32,
    pub(super) mtime: i64,
    pub(super) size: u64,
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
    pub(super) fn parse(text: &str, file: &FileEntry) -> ReadNote {
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
                has_aliases: meta
                    .frontmatter
                    .as_ref()
                    .is_some_and(|map| map.contains_key("aliases") || map.contains_key("alias")),
                doc: 0,
                mtime: file.mtime,
                size: file.size,
            },
            words: words_of(text),
        }
    }

    /// The note, its words added to `words` as a new document.
    pub(super) fn into_note(self, words: &mut Words) -> Note {
        Note {
            doc: words.add(&self.words),
            // Copied on this thread: packed on a reading thread, the kept bytes sat between that thread's freed
            // temporaries, which the allocator could then not give back (at 100,000 notes a build left 12 MB more
            // resident than a start from the saved index; with the copy, the peak after a build and a ranked search
            // went from 110-114 to 106-110 MB).
            packed: Box::from(&*self.note.packed),
            ..self.note
        }
    }
}

impl Note {
    /// About how many bytes the note holds in the index (its packed parts and its own header behind an `Arc`).
    pub(super) fn approx_bytes(&self) -> u64 {
        (self.packed.len() + std::mem::size_of::<Note>() + 16) as u64
    }

    /// The frontmatter as compact JSON, when it parsed as a mapping.
    fn frontmatter_json(&self) -> Option<&str> {
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
    pub(super) fn links(&self) -> Vec<&str> {
        self.unpack_through(|rest| {
            let (_, rest) = postcard::take_from_bytes::<Option<&str>>(rest)?;
            let (_, rest) = postcard::take_from_bytes::<Vec<&str>>(rest)?;
            Ok(postcard::take_from_bytes::<Vec<&str>>(rest)?.0)
        })
    }

    /// Whether its frontmatter names aliases: when not, it has none.
    pub(crate) fn has_aliases(&self) -> bool {
        self.has_aliases
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

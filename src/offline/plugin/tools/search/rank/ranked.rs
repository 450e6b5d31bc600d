//! The notes a ranking weighed, and their order: each matching note's weights are kept only where the word index
//! cannot give them again, and the notes are put in order only as far as a page reads them.

use crate::offline::index::words::DocCounts;
use crate::offline::obsidian::names::NoteNames;
use crate::offline::obsidian::vault::FileEntry;

use super::{Ranked, length_norm, order_key, score, weight};

/// Marks a matching note whose weights are kept (the rest: its document).
const KEPT: u32 = 1 << 31;

/// What weighing some notes found: the notes that match (by file index), how each one's weights are found again, and
/// how many of the notes weighed hold each term.
pub(super) struct Weighed {
    matching: Vec<u32>,
    /// Per matching note: its document, when its weights are its text's counts in the word index over its size (no
    /// title or alias holds a term, as in most notes); or [`KEPT`] and which of the weights kept are its own. Keeping
    /// every note's weights (eight bytes a term) held 7.2 MB for a nine-word question at 100,000 notes, at a ranked
    /// search's peak.
    found: Vec<u32>,
    kept: Vec<f64>,
    width: usize,
    pub(super) df: Vec<usize>,
}

impl Weighed {
    /// Room for `notes` notes (pages are only touched as they fill: growing by doubling copied megabytes), of `width`
    /// scored terms.
    pub(super) fn new(notes: usize, width: usize) -> Weighed {
        Weighed {
            matching: Vec::with_capacity(notes),
            found: Vec::with_capacity(notes),
            kept: Vec::new(),
            width,
            df: vec![0; width],
        }
    }

    /// Adds a matching note whose weights are its text's counts in the word index, as [`Recount`] gives them.
    pub(super) fn push_counted(&mut self, index: usize, doc: u32, wtf: &[f64]) {
        if doc >= KEPT {
            return self.push_kept(index, wtf);
        }
        self.matching.push(index as u32);
        self.found.push(doc);
    }

    /// Adds a matching note with its weights, kept.
    pub(super) fn push_kept(&mut self, index: usize, wtf: &[f64]) {
        let at = self.kept.len().checked_div(self.width).unwrap_or(0);
        self.matching.push(index as u32);
        self.found.push(KEPT | at as u32);
        self.kept.extend_from_slice(wtf);
    }

    fn len(&self) -> usize {
        self.matching.len()
    }

    /// The weights of the matching note at `place`, over `out`.
    fn weights<'o>(
        &self,
        place: usize,
        recount: &Recount<'_, '_>,
        out: &'o mut Vec<f64>,
    ) -> &'o [f64] {
        out.clear();
        let found = self.found[place];
        if found & KEPT != 0 {
            let at = (found & !KEPT) as usize * self.width;
            out.extend_from_slice(&self.kept[at..at + self.width]);
        } else {
            recount.weights(self.matching[place] as usize, found, out);
        }
        out
    }
}

/// What gives again the weights of a note the word index counted: the files, and the names table when there is one
/// (notes' sizes are read from there, as weighing read them: it keeps them together), each term's counts by document,
/// and the mean size of the notes in scope.
pub(super) struct Recount<'c, 'k> {
    pub(super) files: &'c [FileEntry],
    pub(super) names: Option<&'k NoteNames>,
    pub(super) counts: Vec<&'k DocCounts>,
    pub(super) mean_size: f64,
}

impl Recount<'_, '_> {
    /// The weights of the file at `index`, document `doc`, whose title and aliases hold no scored term: the same
    /// operations as when it was weighed, so the same bits.
    fn weights(&self, index: usize, doc: u32, out: &mut Vec<f64>) {
        let size = self
            .names
            .map_or(self.files[index].size, |names| names.size(index));
        let norm = length_norm(size, self.mean_size);
        out.extend(
            self.counts
                .iter()
                .map(|counts| weight(0, 0, counts.get(doc), norm)),
        );
    }
}

/// What orders a matching note: its key, best first, then its place in path order (which is also where it is in the
/// parts weighed: its file and score are found from there, for the notes a page shows).
type Keyed = (std::cmp::Reverse<i64>, u32);

/// What orders the matching notes of the parts weighed (their place in the parts, one after another, is also their
/// place in path order), each part keyed on a thread of its own into its share of one vector.
fn keyed_parts(parts: &[Weighed], idf: &[f64], recount: &Recount<'_, '_>) -> Vec<Keyed> {
    let total = parts.iter().map(Weighed::len).sum();
    let mut keyed: Vec<Keyed> = vec![(std::cmp::Reverse(0), 0); total];
    let key = |part: &Weighed, offset: usize, out: &mut [Keyed]| {
        let mut weights = Vec::with_capacity(idf.len());
        for (i, slot) in out.iter_mut().enumerate() {
            let score = score(idf, part.weights(i, recount, &mut weights));
            *slot = (std::cmp::Reverse(order_key(score)), (offset + i) as u32);
        }
    };
    std::thread::scope(|scope| {
        let (mut rest, mut offset) = (keyed.as_mut_slice(), 0);
        let mut shares = Vec::with_capacity(parts.len());
        for part in parts {
            let (share, after) = rest.split_at_mut(part.len());
            shares.push((part, offset, share));
            (rest, offset) = (after, offset + part.len());
        }
        let mut shares = shares.into_iter();
        let first = shares.next();
        let later: Vec<_> = shares
            .map(|(part, offset, share)| scope.spawn(move || key(part, offset, share)))
            .collect();
        if let Some((part, offset, share)) = first {
            key(part, offset, share);
        }
        for part in later {
            part.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
    });
    keyed
}

/// The notes that match, most relevant first (equal keys in path order), put in order only as far as they are read:
/// a page shows the first few of up to 100,000, and ordering them all was a fifth of a ranked search. Only the keys
/// are put in order (16 bytes a note, not 32: at 100,000 notes a ranked question's peak was 5 MB higher).
pub(in crate::offline::plugin::tools::search) struct RankedNotes<'c, 'k> {
    parts: Vec<Weighed>,
    idf: Vec<f64>,
    recount: Recount<'c, 'k>,
    keyed: Vec<Keyed>,
    /// How many from the start are in their place.
    ordered: usize,
}

impl<'c, 'k> RankedNotes<'c, 'k> {
    pub(super) fn new(
        parts: Vec<Weighed>,
        idf: Vec<f64>,
        recount: Recount<'c, 'k>,
    ) -> RankedNotes<'c, 'k> {
        let keyed = keyed_parts(&parts, &idf, &recount);
        RankedNotes {
            parts,
            idf,
            recount,
            keyed,
            ordered: 0,
        }
    }

    /// The part that holds the note at `place` in path order among those that match, and its place there.
    fn part_of(&self, mut place: usize) -> (&Weighed, usize) {
        for part in &self.parts {
            if place < part.len() {
                return (part, place);
            }
            place -= part.len();
        }
        unreachable!("a key's place is among the notes weighed")
    }

    /// The note at `place` in path order among those that match, with its score.
    fn ranked(&self, place: usize) -> Ranked<'c> {
        let (part, place) = self.part_of(place);
        let mut weights = Vec::with_capacity(self.idf.len());
        let weights = part.weights(place, &self.recount, &mut weights);
        let file = &self.recount.files[part.matching[place] as usize];
        (file, score(&self.idf, weights))
    }

    /// How many notes match.
    pub(in crate::offline::plugin::tools::search) fn len(&self) -> usize {
        self.keyed.len()
    }

    /// The notes from `start` to `end` (at most), in order.
    pub(in crate::offline::plugin::tools::search) fn range(
        &mut self,
        start: usize,
        end: usize,
    ) -> impl Iterator<Item = Ranked<'c>> + '_ {
        let end = end.min(self.keyed.len());
        self.order_up_to(end);
        self.keyed[start.min(end)..end]
            .iter()
            .map(|&(_, place)| self.ranked(place as usize))
    }

    /// Where the note at `path` is in the order.
    pub(in crate::offline::plugin::tools::search) fn position(
        &mut self,
        path: &str,
    ) -> Option<usize> {
        self.order_up_to(self.keyed.len());
        self.keyed.iter().position(|&(_, place)| {
            let (part, place) = self.part_of(place as usize);
            self.recount.files[part.matching[place] as usize].path == path
        })
    }

    /// Puts the first `end` notes in their place: the best of the rest are chosen, then only those sorted.
    fn order_up_to(&mut self, end: usize) {
        let end = end.min(self.keyed.len());
        if end <= self.ordered {
            return;
        }
        let order = |a: &Keyed, b: &Keyed| a.cmp(b);
        let rest = &mut self.keyed[self.ordered..];
        let wanted = end - self.ordered;
        if wanted < rest.len() {
            rest.select_nth_unstable_by(wanted - 1, order);
        }
        rest[..wanted].sort_unstable_by(order);
        self.ordered = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_read_in_steps_come_in_the_order_of_a_full_sort() {
        let files: Vec<FileEntry> = (0..500)
            .map(|i| FileEntry {
                path: format!("{i:03}.md"),
                size: 0,
                mtime: 0,
                ctime: 0,
                inside: true,
                identity: Default::default(),
            })
            .collect();
        // Few distinct keys, so that ties are many: they must stay in path order. One term of idf 1 in every note, in
        // two parts (as two threads weigh them).
        let weight = |i: usize| ((i * 7919) % 13) as f64 / 4.0;
        let score = |i: usize| super::score(&[1.0], &[weight(i)]);
        fn keyed(files: &[FileEntry], weight: impl Fn(usize) -> f64) -> RankedNotes<'_, '_> {
            let part = |range: std::ops::Range<usize>| {
                let mut part = Weighed::new(range.len(), 1);
                for i in range {
                    part.push_kept(i, &[weight(i)]);
                }
                part
            };
            let recount = Recount {
                files,
                names: None,
                counts: Vec::new(),
                mean_size: 0.0,
            };
            RankedNotes::new(
                vec![part(0..200), part(200..files.len())],
                vec![1.0],
                recount,
            )
        }
        let mut by_hand: Vec<(usize, f64)> = (0..files.len()).map(|i| (i, score(i))).collect();
        by_hand.sort_by_key(|&(_, score)| std::cmp::Reverse(order_key(score)));
        let paths = |ranked: Vec<Ranked<'_>>| -> Vec<String> {
            ranked
                .into_iter()
                .map(|(file, _)| file.path.clone())
                .collect()
        };
        let expected: Vec<String> = by_hand
            .iter()
            .map(|&(i, _)| files[i].path.clone())
            .collect();
        for step in [1, 7, 10, 499, 500, 600] {
            let mut ranked = keyed(&files, weight);
            let mut read = Vec::new();
            let mut start = 0;
            while start < ranked.len() {
                read.extend(ranked.range(start, start + step));
                start += step;
            }
            assert_eq!(paths(read), expected, "in steps of {step}");
        }
        let mut ranked = keyed(&files, weight);
        assert_eq!(paths(ranked.range(0, 3).collect()), expected[..3]);
        let path = &expected[250];
        assert_eq!(ranked.position(path), Some(250));
        assert_eq!(paths(ranked.range(250, 252).collect()), expected[250..252]);
        assert_eq!(ranked.range(600, 700).count(), 0, "past the end");
    }
}

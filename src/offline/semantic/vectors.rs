//! The embedding index's store: every passage's vector as signed bytes with one scale (a quarter of `f32`'s memory;
//! cosine scores move by well under 0.01), its lines and its note, in flat arrays, so that a query is one pass over
//! contiguous memory (an exact scan: 400,000 passages of 256 bytes in a few milliseconds per core, and no second
//! structure to build, save or keep current). A note that changes is appended again and its old passages retired;
//! the arrays are compacted when retired passages are a third of them.

use std::collections::HashMap;
use std::sync::Arc;

/// One note's place in the store and the file state its passages were embedded from.
#[derive(Debug, Clone)]
pub(crate) struct NoteSlot {
    pub(crate) path: Arc<str>,
    pub(crate) mtime: i64,
    pub(crate) size: u64,
    /// Its passages: `first..first + count`.
    first: u32,
    count: u32,
}

/// A passage found, with its cosine similarity to the query.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hit<'a> {
    pub(crate) path: &'a str,
    /// The passage's first and last lines, 1-based and inclusive.
    pub(crate) start_line: u32,
    pub(crate) end_line: u32,
    pub(crate) score: f32,
}

/// From this many passages a query scans the store on two threads.
const PARALLEL_PASSAGES: usize = 50_000;

/// A passage to store: its lines and its unit vector.
pub(crate) type NewPassage = (u32, u32, Vec<f32>);

/// Every note's passages.
#[derive(Debug, Default)]
pub(crate) struct Vectors {
    pub(super) dims: usize,
    pub(super) values: Vec<i8>,
    pub(super) scales: Vec<f32>,
    pub(super) lines: Vec<[u32; 2]>,
    /// Each passage's note slot.
    pub(super) owner: Vec<u32>,
    /// Note slots; a retired one has no passages and an empty path.
    pub(super) slots: Vec<NoteSlot>,
    pub(super) by_path: HashMap<Arc<str>, u32>,
    pub(super) retired: usize,
}

impl NoteSlot {
    /// Its first passage and how many it has.
    pub(super) fn range(&self) -> (u32, u32) {
        (self.first, self.count)
    }
}

impl Vectors {
    /// An empty store of vectors of `dims` numbers.
    pub(crate) fn new(dims: usize) -> Self {
        Self {
            dims,
            ..Self::default()
        }
    }

    pub(crate) fn dims(&self) -> usize {
        self.dims
    }

    /// The note's slot, when it is stored.
    pub(crate) fn note(&self, path: &str) -> Option<&NoteSlot> {
        self.by_path
            .get(path)
            .map(|&slot| &self.slots[slot as usize])
    }

    /// Stores a note's passages, replacing what it had.
    pub(crate) fn insert(&mut self, path: &str, mtime: i64, size: u64, passages: Vec<NewPassage>) {
        self.retire(path);
        let slot = self.slots.len() as u32;
        let first = self.lines.len() as u32;
        for (start_line, end_line, vector) in &passages {
            self.scales.push(quantize(vector, &mut self.values));
            self.lines.push([*start_line, *end_line]);
            self.owner.push(slot);
        }
        let path: Arc<str> = path.into();
        self.slots.push(NoteSlot {
            path: Arc::clone(&path),
            mtime,
            size,
            first,
            count: passages.len() as u32,
        });
        self.by_path.insert(path, slot);
        if self.retired * 3 > self.lines.len() {
            self.compact();
        }
    }

    /// A slot read back from a saved store (`saved.rs`); its passages must already be in the arrays.
    pub(super) fn restore_slot(
        &mut self,
        path: String,
        mtime: i64,
        size: u64,
        first: u32,
        count: u32,
    ) -> Result<(), String> {
        let slot = self.slots.len() as u32;
        if first as usize + count as usize > self.lines.len() {
            return Err("a note's passages lie outside the store".into());
        }
        let path: Arc<str> = path.into();
        if !path.is_empty() {
            self.by_path.insert(Arc::clone(&path), slot);
        }
        self.slots.push(NoteSlot {
            path,
            mtime,
            size,
            first,
            count,
        });
        Ok(())
    }

    /// Whether a store read back holds together (the arrays' lengths, every passage's owner); counts what its
    /// notes no longer use.
    pub(super) fn check(&mut self) -> Result<(), String> {
        let passages = self.lines.len();
        let fits = self.values.len() == passages * self.dims
            && self.scales.len() == passages
            && self.owner.len() == passages
            && self
                .owner
                .iter()
                .all(|&owner| (owner as usize) < self.slots.len());
        if !fits {
            return Err("its arrays do not fit together".into());
        }
        let live: usize = self
            .slots
            .iter()
            .filter(|slot| !slot.path.is_empty())
            .map(|slot| slot.count as usize)
            .sum();
        self.retired = passages
            .checked_sub(live)
            .ok_or("its notes claim more passages than it has")?;
        Ok(())
    }

    /// Keeps only the notes `keep` says yes to.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        let gone: Vec<Arc<str>> = self
            .by_path
            .keys()
            .filter(|path| !keep(path))
            .cloned()
            .collect();
        for path in gone {
            self.retire(&path);
        }
        if self.retired * 3 > self.lines.len() {
            self.compact();
        }
    }

    fn retire(&mut self, path: &str) {
        if let Some(slot) = self.by_path.remove(path) {
            let slot = &mut self.slots[slot as usize];
            self.retired += slot.count as usize;
            slot.count = 0;
            slot.path = Arc::from("");
        }
    }

    /// Rebuilds the arrays without retired passages and slots.
    fn compact(&mut self) {
        let mut next = Self::new(self.dims);
        for slot in self.slots.iter().filter(|slot| !slot.path.is_empty()) {
            let range = slot.first as usize..(slot.first + slot.count) as usize;
            let new_slot = next.slots.len() as u32;
            next.values
                .extend_from_slice(&self.values[range.start * self.dims..range.end * self.dims]);
            next.scales.extend_from_slice(&self.scales[range.clone()]);
            next.lines.extend_from_slice(&self.lines[range.clone()]);
            next.owner.extend(range.clone().map(|_| new_slot));
            next.slots.push(NoteSlot {
                first: (next.lines.len() - range.len()) as u32,
                ..slot.clone()
            });
            next.by_path.insert(Arc::clone(&slot.path), new_slot);
        }
        next.values.shrink_to_fit();
        *self = next;
    }

    pub(crate) fn notes(&self) -> usize {
        self.by_path.len()
    }

    pub(crate) fn passages(&self) -> usize {
        self.lines.len() - self.retired
    }

    /// The approximate bytes held.
    pub(crate) fn approx_bytes(&self) -> u64 {
        let per_passage = self.dims + 4 + 8 + 4;
        let per_note = std::mem::size_of::<NoteSlot>() + 48;
        (self.lines.capacity() * per_passage
            + self
                .slots
                .iter()
                .map(|slot| per_note + slot.path.len())
                .sum::<usize>()) as u64
    }

    /// The `top` passages most like `query` (a unit vector) among the notes `keep` says yes to, best first; at most
    /// `per_note` from one note. A large store is scanned in two halves at once.
    pub(crate) fn nearest(
        &self,
        query: &[f32],
        keep: impl Fn(&str) -> bool + Sync,
        top: usize,
        per_note: usize,
    ) -> Vec<Hit<'_>> {
        let mut wanted = Vec::with_capacity(self.dims);
        let query_scale = quantize(query, &mut wanted);
        let scan =
            |slots: &[NoteSlot]| self.scan(slots, (&wanted, query_scale), &keep, top, per_note);
        let mut hits = if self.lines.len() < PARALLEL_PASSAGES {
            scan(&self.slots)
        } else {
            let (left, right) = self.slots.split_at(self.slots.len() / 2);
            std::thread::scope(|scope| {
                let other = scope.spawn(|| scan(left));
                let mut mine = scan(right);
                mine.extend(other.join().unwrap_or_default());
                mine
            })
        };
        shrink(&mut hits, top);
        hits
    }

    /// [`Self::nearest`] over some slots. `keep` is asked only of a note with a passage good enough to be kept, so
    /// that a scan costs no lookup per note.
    fn scan(
        &self,
        slots: &[NoteSlot],
        (wanted, query_scale): (&[i8], f32),
        keep: &(impl Fn(&str) -> bool + Sync),
        top: usize,
        per_note: usize,
    ) -> Vec<Hit<'_>> {
        let mut hits: Vec<Hit<'_>> = Vec::new();
        // The score a passage must pass once `top` are held, so that most are never pushed.
        let mut floor = f32::NEG_INFINITY;
        let mut best: Vec<(f32, usize)> = Vec::with_capacity(per_note + 1);
        let dot = dot_for_this_cpu();
        for slot in slots {
            if slot.count == 0 {
                continue;
            }
            best.clear();
            for at in slot.first as usize..(slot.first + slot.count) as usize {
                let values = &self.values[at * self.dims..(at + 1) * self.dims];
                let score = dot(wanted, values) as f32 * query_scale * self.scales[at];
                if score <= floor || (best.len() == per_note && score <= best[per_note - 1].0) {
                    continue;
                }
                let place = best.partition_point(|(other, _)| *other >= score);
                best.insert(place, (score, at));
                best.truncate(per_note);
            }
            if best.is_empty() || !keep(&slot.path) {
                continue;
            }
            hits.extend(best.iter().map(|&(score, at)| self.hit(at, score)));
            if hits.len() >= top * 4 {
                floor = shrink(&mut hits, top);
            }
        }
        hits
    }

    /// The best passage of one note for `query`.
    pub(crate) fn best_of(&self, path: &str, query: &[f32]) -> Option<Hit<'_>> {
        let slot = self.note(path)?;
        let mut wanted = Vec::with_capacity(self.dims);
        let query_scale = quantize(query, &mut wanted);
        (slot.first as usize..(slot.first + slot.count) as usize)
            .map(|at| {
                let values = &self.values[at * self.dims..(at + 1) * self.dims];
                (
                    dot(&wanted, values) as f32 * query_scale * self.scales[at],
                    at,
                )
            })
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(score, at)| self.hit(at, score))
    }

    fn hit(&self, at: usize, score: f32) -> Hit<'_> {
        let [start_line, end_line] = self.lines[at];
        Hit {
            path: &self.slots[self.owner[at] as usize].path,
            start_line,
            end_line,
            score,
        }
    }
}

/// Appends `vector` as signed bytes; returns the scale that turns them back.
fn quantize(vector: &[f32], out: &mut Vec<i8>) -> f32 {
    let largest = vector
        .iter()
        .fold(0f32, |largest, value| largest.max(value.abs()));
    let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
    out.extend(vector.iter().map(|value| (value / scale).round() as i8));
    scale
}

/// Keeps the best `top` hits, best first (ties by path and line, so that the order is the same every time); returns
/// the lowest score kept.
fn shrink(hits: &mut Vec<Hit<'_>>, top: usize) -> f32 {
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.path.cmp(b.path))
            .then_with(|| a.start_line.cmp(&b.start_line))
    });
    hits.truncate(top);
    if hits.len() < top {
        f32::NEG_INFINITY
    } else {
        hits.last().map_or(f32::NEG_INFINITY, |hit| hit.score)
    }
}

/// The dot product of two byte vectors, in 32-bit sums (no overflow below 130,000 dimensions); written so that the
/// compiler vectorizes it (pairs of products summed in 16-bit lanes' widening multiply).
#[inline(always)]
fn dot(a: &[i8], b: &[i8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| i32::from(i16::from(x) * i16::from(y)))
        .sum()
}

/// [`dot`] for the CPU this runs on: x86-64 builds target the baseline's SSE2, which has no widening byte multiply;
/// with AVX2, which nearly every x86-64 CPU since 2013 has, the same loop runs several times faster (a semantic query
/// of 100,000 notes took 17 ms on SSE2).
fn dot_for_this_cpu() -> fn(&[i8], &[i8]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return |a, b| {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { dot_avx2(a, b) }
        };
    }
    dot
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dot_avx2(a: &[i8], b: &[i8]) -> i32 {
    dot(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cpu_path_gives_the_same_dot_product() {
        let a: Vec<i8> = (0..300).map(|i| ((i * 37) % 255 - 127) as i8).collect();
        let b: Vec<i8> = (0..300).map(|i| ((i * 91) % 255 - 127) as i8).collect();
        let by_hand: i32 = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| i32::from(x) * i32::from(y))
            .sum();
        assert_eq!(dot(&a, &b), by_hand);
        assert_eq!(dot_for_this_cpu()(&a, &b), by_hand);
        assert_eq!(dot_for_this_cpu()(&[-128; 256], &[-128; 256]), 256 * 16384);
    }

    fn unit(values: &[f32]) -> Vec<f32> {
        let norm = values.iter().map(|v| v * v).sum::<f32>().sqrt();
        values.iter().map(|v| v / norm).collect()
    }

    #[test]
    fn the_nearest_passages_come_first_at_most_so_many_per_note() {
        let mut vectors = Vectors::new(3);
        let passage = |line: u32, vector: &[f32]| (line, line, unit(vector));
        vectors.insert(
            "a.md",
            0,
            0,
            vec![passage(1, &[1.0, 0.0, 0.0]), passage(2, &[0.9, 0.1, 0.0])],
        );
        vectors.insert("b.md", 0, 0, vec![passage(1, &[0.0, 1.0, 0.0])]);
        vectors.insert("c.md", 0, 0, vec![passage(1, &[0.7, 0.7, 0.0])]);
        let query = unit(&[1.0, 0.05, 0.0]);
        let hits = vectors.nearest(&query, |_| true, 10, 1);
        let order: Vec<&str> = hits.iter().map(|hit| hit.path).collect();
        assert_eq!(order, ["a.md", "c.md", "b.md"]);
        assert!((hits[0].score - 0.9988).abs() < 0.01, "{}", hits[0].score);
        let two = vectors.nearest(&query, |_| true, 2, 2);
        let lines: Vec<u32> = two.iter().map(|hit| hit.start_line).collect();
        assert_eq!(lines, [1, 2]);
        let kept = vectors.nearest(&query, |path| path != "a.md", 10, 3);
        assert_eq!(kept[0].path, "c.md");
        assert_eq!((vectors.notes(), vectors.passages()), (3, 4));
        assert_eq!(vectors.best_of("a.md", &query).unwrap().start_line, 1);
    }

    #[test]
    fn a_note_stored_again_replaces_its_passages_and_compaction_keeps_the_rest() {
        let mut vectors = Vectors::new(2);
        for round in 0..10u32 {
            vectors.insert(
                "a.md",
                i64::from(round),
                1,
                vec![(round + 1, round + 1, unit(&[1.0, 0.0]))],
            );
            vectors.insert(
                &format!("other{round}.md"),
                0,
                1,
                vec![(1, 1, unit(&[0.0, 1.0]))],
            );
        }
        assert_eq!((vectors.notes(), vectors.passages()), (11, 11));
        assert!(
            vectors.lines.len() < 20,
            "compacted: {}",
            vectors.lines.len()
        );
        assert_eq!(vectors.note("a.md").unwrap().mtime, 9);
        let hits = vectors.nearest(&unit(&[1.0, 0.0]), |_| true, 1, 1);
        assert_eq!((hits[0].path, hits[0].start_line), ("a.md", 10));
        vectors.retain(|path| path != "a.md");
        assert!(vectors.note("a.md").is_none());
        assert_eq!(
            vectors.nearest(&unit(&[1.0, 0.0]), |_| true, 1, 1)[0]
                .path
                .len(),
            "other0.md".len()
        );
    }
}

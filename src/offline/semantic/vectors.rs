//! The embedding index's store: each note's passages with their vectors, kept as signed bytes with one scale per
//! vector (a quarter of `f32`'s memory; cosine scores move by well under 0.01), found by an exact scan. An exact scan
//! of 300,000 passages of 256 bytes is tens of milliseconds on one core and needs no second structure to build,
//! save or keep current; notes come and go one at a time as the watcher sees them.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A passage's place in its note and its vector's scale.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct PassageEntry {
    pub(crate) heading: Box<str>,
    pub(crate) start_line: u32,
    pub(crate) end_line: u32,
    scale: f32,
}

/// One note's passages, and the file state they were embedded from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct NoteVectors {
    pub(crate) mtime: i64,
    pub(crate) size: u64,
    pub(crate) passages: Vec<PassageEntry>,
    values: Vec<i8>,
}

impl NoteVectors {
    /// A note's passages: `(heading, start, end, unit vector)` each.
    pub(crate) fn new(
        mtime: i64,
        size: u64,
        passages: impl IntoIterator<Item = (String, u32, u32, Vec<f32>)>,
    ) -> Self {
        let mut out = Self {
            mtime,
            size,
            passages: Vec::new(),
            values: Vec::new(),
        };
        for (heading, start_line, end_line, vector) in passages {
            let scale = quantize(&vector, &mut out.values);
            out.passages.push(PassageEntry {
                heading: heading.into_boxed_str(),
                start_line,
                end_line,
                scale,
            });
        }
        out.passages.shrink_to_fit();
        out.values.shrink_to_fit();
        out
    }

    fn bytes(&self) -> usize {
        self.values.len()
            + self
                .passages
                .iter()
                .map(|passage| passage.heading.len() + 32)
                .sum::<usize>()
            + 64
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

/// A passage found, with its cosine similarity to the query.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hit<'a> {
    pub(crate) path: &'a str,
    pub(crate) passage: &'a PassageEntry,
    pub(crate) score: f32,
}

/// Every note's vectors.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Vectors {
    dims: usize,
    notes: HashMap<Box<str>, NoteVectors>,
}

impl Vectors {
    /// An empty store of vectors of `dims` numbers.
    pub(crate) fn new(dims: usize) -> Self {
        Self {
            dims,
            notes: HashMap::new(),
        }
    }

    pub(crate) fn dims(&self) -> usize {
        self.dims
    }

    pub(crate) fn note(&self, path: &str) -> Option<&NoteVectors> {
        self.notes.get(path)
    }

    pub(crate) fn insert(&mut self, path: &str, note: NoteVectors) {
        self.notes.insert(path.into(), note);
    }

    /// Keeps only the notes `keep` says yes to.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&str, &NoteVectors) -> bool) {
        self.notes.retain(|path, note| keep(path, note));
    }

    pub(crate) fn notes(&self) -> usize {
        self.notes.len()
    }

    pub(crate) fn passages(&self) -> usize {
        self.notes.values().map(|note| note.passages.len()).sum()
    }

    /// The approximate bytes held.
    pub(crate) fn approx_bytes(&self) -> u64 {
        self.notes
            .iter()
            .map(|(path, note)| path.len() + note.bytes())
            .sum::<usize>() as u64
    }

    /// The `top` passages most like `query` (a unit vector) among the notes `keep` says yes to, best first; at most
    /// `per_note` from one note.
    pub(crate) fn nearest(
        &self,
        query: &[f32],
        keep: impl Fn(&str) -> bool,
        top: usize,
        per_note: usize,
    ) -> Vec<Hit<'_>> {
        let mut wanted = Vec::with_capacity(self.dims);
        let query_scale = quantize(query, &mut wanted);
        let mut hits: Vec<Hit<'_>> = Vec::new();
        // The score a passage must pass once `top` are held, so that most are never pushed.
        let mut floor = f32::NEG_INFINITY;
        for (path, note) in &self.notes {
            if !keep(path) {
                continue;
            }
            let mut scored: Vec<(f32, usize)> = note
                .values
                .chunks_exact(self.dims)
                .zip(&note.passages)
                .enumerate()
                .map(|(at, (values, passage))| {
                    (
                        dot(&wanted, values) as f32 * query_scale * passage.scale,
                        at,
                    )
                })
                .filter(|(score, _)| *score > floor)
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            hits.extend(scored.into_iter().take(per_note).map(|(score, at)| Hit {
                path,
                passage: &note.passages[at],
                score,
            }));
            if hits.len() >= top * 4 {
                floor = shrink(&mut hits, top);
            }
        }
        shrink(&mut hits, top);
        hits
    }
}

/// Keeps the best `top` hits, best first (ties by path and line, so that the order is the same every time); returns
/// the lowest score kept.
fn shrink(hits: &mut Vec<Hit<'_>>, top: usize) -> f32 {
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.path.cmp(b.path))
            .then_with(|| a.passage.start_line.cmp(&b.passage.start_line))
    });
    hits.truncate(top);
    if hits.len() < top {
        f32::NEG_INFINITY
    } else {
        hits.last().map_or(f32::NEG_INFINITY, |hit| hit.score)
    }
}

/// The dot product of two byte vectors, in 32-bit sums (no overflow below 130,000 dimensions).
fn dot(a: &[i8], b: &[i8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| i32::from(i16::from(x) * i16::from(y)))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(values: &[f32]) -> Vec<f32> {
        let norm = values.iter().map(|v| v * v).sum::<f32>().sqrt();
        values.iter().map(|v| v / norm).collect()
    }

    #[test]
    fn the_nearest_passages_come_first_at_most_so_many_per_note() {
        let mut vectors = Vectors::new(3);
        let passage = |heading: &str, line: u32, vector: &[f32]| {
            (heading.to_owned(), line, line, unit(vector))
        };
        vectors.insert(
            "a.md",
            NoteVectors::new(
                0,
                0,
                [
                    passage("x", 1, &[1.0, 0.0, 0.0]),
                    passage("y", 2, &[0.9, 0.1, 0.0]),
                ],
            ),
        );
        vectors.insert(
            "b.md",
            NoteVectors::new(0, 0, [passage("z", 1, &[0.0, 1.0, 0.0])]),
        );
        vectors.insert(
            "c.md",
            NoteVectors::new(0, 0, [passage("w", 1, &[0.7, 0.7, 0.0])]),
        );
        let query = unit(&[1.0, 0.05, 0.0]);
        let hits = vectors.nearest(&query, |_| true, 10, 1);
        let order: Vec<&str> = hits.iter().map(|hit| hit.path).collect();
        assert_eq!(order, ["a.md", "c.md", "b.md"]);
        assert!((hits[0].score - 0.9988).abs() < 0.01, "{}", hits[0].score);
        let two = vectors.nearest(&query, |_| true, 2, 2);
        let headings: Vec<&str> = two.iter().map(|hit| &*hit.passage.heading).collect();
        assert_eq!(headings, ["x", "y"]);
        let kept = vectors.nearest(&query, |path| path != "a.md", 10, 3);
        assert_eq!(kept[0].path, "c.md");
        assert_eq!((vectors.notes(), vectors.passages()), (3, 4));
    }
}

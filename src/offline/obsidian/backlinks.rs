//! The reverse link index of a snapshot (`metadata.rs`): which notes link to each file.

/// By file index, the notes linking to it (other than itself) with their link counts, laid out flat: one list per file
/// cost 16 bytes a file and an allocation per file linked to (at 100,000 notes, 1.6 MB and 300,000 allocations).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Backlinks {
    /// Where each file's sources start in `sources`, and where the last one's end.
    starts: Vec<u32>,
    sources: Vec<(u32, u32)>,
}

impl Backlinks {
    /// From each link (target, (source, count)) that `each` visits, in the order visited, for `files` files.
    pub(super) fn of(files: usize, each: impl Fn(&mut dyn FnMut(usize, (u32, u32)))) -> Backlinks {
        let mut starts = vec![0u32; files + 1];
        each(&mut |target, _| starts[target + 1] += 1);
        for at in 1..starts.len() {
            starts[at] += starts[at - 1];
        }
        let mut filled = starts.clone();
        let mut sources = vec![(0, 0); starts[files] as usize];
        each(&mut |target, link| {
            sources[filled[target] as usize] = link;
            filled[target] += 1;
        });
        Backlinks { starts, sources }
    }

    /// The sources of the file at `index` (none when the layout read from a saved index does not hold together).
    pub(super) fn to(&self, index: usize) -> &[(u32, u32)] {
        let (Some(&start), Some(&end)) = (self.starts.get(index), self.starts.get(index + 1))
        else {
            return &[];
        };
        self.sources
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::Backlinks;

    #[test]
    fn each_file_gets_its_sources_in_the_order_visited() {
        let links = [
            (2, (0, 1)),
            (0, (1, 3)),
            (2, (1, 2)),
            (2, (3, 1)),
            (4, (3, 7)),
        ];
        let backlinks = Backlinks::of(5, |visit| {
            for &(target, link) in &links {
                visit(target, link);
            }
        });
        assert_eq!(backlinks.to(0), [(1, 3)]);
        assert_eq!(backlinks.to(1), []);
        assert_eq!(backlinks.to(2), [(0, 1), (1, 2), (3, 1)]);
        assert_eq!(backlinks.to(3), []);
        assert_eq!(backlinks.to(4), [(3, 7)]);
        assert_eq!(backlinks.to(5), [], "past the last file");
        let unsound = Backlinks {
            starts: vec![0, 9, 1],
            sources: vec![(0, 1)],
        };
        assert_eq!(unsound.to(0), [], "a range past its sources");
        assert_eq!(unsound.to(1), [], "a range that runs backwards");
    }
}

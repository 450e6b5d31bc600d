//! Obsidian's `getFirstLinkpathDest`: which file a link written in a note leads to (rules in
//! `fake-obsidian/metadata.cjs`).

use crate::offline::js::js_cmp;
use crate::offline::js::lowers_to;

use super::{Snapshot, parent_path};

impl Snapshot {
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
        let mut with_md = String::with_capacity(path.len() + 3);
        with_md.push_str(path);
        with_md.push_str(".md");
        if let Some(exact) = at(path).or_else(|| at(&with_md)) {
            return Some(exact);
        }
        // `/` and the linkpath in lower case, then `.md`: the suffix a match ends with, and the two names looked up.
        let mut suffix_md = String::with_capacity(path.len() + 4);
        suffix_md.push('/');
        if path.is_ascii() {
            suffix_md.push_str(path);
            suffix_md.make_ascii_lowercase();
        } else {
            // As a whole: JavaScript's toLowerCase, as `str::to_lowercase`, lowers a final sigma by its context.
            suffix_md.push_str(&path.to_lowercase());
        }
        suffix_md.push_str(".md");
        let suffix = &suffix_md[..suffix_md.len() - 3];
        let lower = &suffix[1..];
        let name_md = suffix_md.rsplit('/').next().unwrap_or(&suffix_md);
        let name = &name_md[..name_md.len() - 3];
        // Shortest path wins, then the first in JavaScript's order (distinct paths never tie), among the matches in
        // the source's folder when there are any: kept as the two best so far, without a list of the matches.
        let better = |a: usize, b: Option<usize>| {
            b.is_none_or(|b| {
                let (a, b) = (&self.files[a].path, &self.files[b].path);
                js_len(a).cmp(&js_len(b)).then_with(|| js_cmp(a, b)).is_lt()
            })
        };
        let (mut best, mut best_local) = (None, None);
        for key in [name, name_md] {
            for index in self.lookups.named(&self.files, key) {
                let file = &self.files[index];
                let hit = if file.path.is_ascii() {
                    // Compared ignoring ASCII case, without a lower-cased copy of each candidate.
                    let ends = |text: &str| {
                        text.len() >= suffix.len()
                            && lowers_to(&text[text.len() - suffix.len()..], suffix)
                    };
                    let full = file.path.as_str();
                    lowers_to(full, lower)
                        || ends(full)
                        || (file.is_markdown() && {
                            let without = &full[..full.len() - 3];
                            lowers_to(without, lower) || ends(without)
                        })
                } else {
                    let full = file.path.to_lowercase();
                    full == lower
                        || full.ends_with(suffix)
                        || (file.is_markdown() && {
                            let without = &full[..full.len() - 3];
                            without == lower || without.ends_with(suffix)
                        })
                };
                if !hit {
                    continue;
                }
                if better(index, best) {
                    best = Some(index);
                }
                if parent_path(&file.path) == source_folder && better(index, best_local) {
                    best_local = Some(index);
                }
            }
        }
        best_local.or(best)
    }
}

/// JavaScript length of a path, for "shortest path wins".
fn js_len(path: &str) -> usize {
    crate::offline::js::utf16_len(path)
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

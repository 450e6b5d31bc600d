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
        if let Some(exact) = at(path).or_else(|| at(&format!("{path}.md"))) {
            return Some(exact);
        }
        // `/` and the linkpath in lower case, then `.md`: the suffix a match ends with, and the two names looked up.
        let suffix_md = format!("/{}.md", path.to_lowercase());
        let suffix = &suffix_md[..suffix_md.len() - 3];
        let lower = &suffix[1..];
        let name_md = suffix_md.rsplit('/').next().unwrap_or(&suffix_md);
        let name = &name_md[..name_md.len() - 3];
        let mut matches: Vec<usize> = Vec::new();
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

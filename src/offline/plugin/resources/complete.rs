//! `completion/complete` for the file template's `path` (`resources/complete.ts`): the visible files matching what
//! was typed, in tiers (name, alias, path, contained, in-order letters), best first, at most [`COMPLETION_LIMIT`].
//! The rules are in `obsidian-plugin/src/resources/README.md`.

use std::cmp::Ordering;

use serde_json::{Value, json};

use crate::offline::js::{js_cmp, utf16_len};
use crate::offline::obsidian::metadata::{Entry, Snapshot};
use crate::offline::obsidian::properties::frontmatter_aliases;
use crate::offline::plugin::vault::hidden::fold;
use crate::offline::plugin::vault::paths::is_in_config_dir;

/// The most values one completion returns (the protocol's own ceiling).
pub(crate) const COMPLETION_LIMIT: usize = 100;

/// A file as completion compares it, computed once per snapshot.
#[derive(Debug)]
pub(crate) struct Candidate {
    /// Index into the snapshot's files.
    file: usize,
    name: String,
    path: String,
    aliases: Vec<String>,
}

/// The visible files of a snapshot in path order, folded for matching.
pub(crate) fn candidates(snapshot: &Snapshot, config_dir: &str) -> Vec<Candidate> {
    snapshot
        .sorted_entries()
        .filter_map(|entry| match entry {
            Entry::File(index) => Some(index),
            Entry::Folder(_) => None,
        })
        .filter(|&index| !is_in_config_dir(&snapshot.files[index].path, config_dir))
        .map(|index| {
            let file = &snapshot.files[index];
            // A note outside the vault is never read, so it has no aliases (the plugin gives it none either).
            let aliases = snapshot
                .note(&file.path)
                .map(|note| frontmatter_aliases(note.frontmatter().as_ref()))
                .unwrap_or_default();
            Candidate {
                file: index,
                name: fold(file.title()),
                path: fold(&file.path),
                aliases: aliases.iter().map(|alias| fold(alias)).collect(),
            }
        })
        .collect()
}

/// The `completion` object for what was typed.
pub(crate) fn complete(snapshot: &Snapshot, candidates: &[Candidate], typed: &str) -> Value {
    let query = fold(typed);
    let mut matches: Vec<(u8, &Candidate)> = candidates
        .iter()
        .filter_map(|candidate| {
            let tier = if query.is_empty() {
                0
            } else {
                tier_of(candidate, &query)
            };
            (query.is_empty() || tier > 0).then_some((tier, candidate))
        })
        .collect();
    let total = matches.len();
    let file = |candidate: &Candidate| &snapshot.files[candidate.file];
    let order = |(tier_a, a): &(u8, &Candidate), (tier_b, b): &(u8, &Candidate)| {
        let (a, b) = (file(a), file(b));
        tier_a
            .cmp(tier_b)
            .then_with(|| {
                if query.is_empty() {
                    b.mtime.cmp(&a.mtime)
                } else {
                    Ordering::Equal
                }
            })
            .then_with(|| utf16_len(&a.path).cmp(&utf16_len(&b.path)))
            .then_with(|| js_cmp(&a.path, &b.path))
    };
    // Only the best COMPLETION_LIMIT are put in order: a vault of 100,000 notes is never sorted whole.
    if matches.len() > COMPLETION_LIMIT {
        matches.select_nth_unstable_by(COMPLETION_LIMIT - 1, order);
        matches.truncate(COMPLETION_LIMIT);
    }
    matches.sort_by(order);
    let values: Vec<&str> = matches
        .iter()
        .map(|(_, candidate)| file(candidate).path.as_str())
        .collect();
    json!({ "values": values, "total": total, "hasMore": total > COMPLETION_LIMIT })
}

/// How well a file matches: 1 (best) to 7, or 0 for no match.
fn tier_of(candidate: &Candidate, query: &str) -> u8 {
    let Candidate {
        name,
        path,
        aliases,
        ..
    } = candidate;
    if name == query {
        1
    } else if name.starts_with(query) {
        2
    } else if aliases.iter().any(|alias| alias.starts_with(query)) {
        3
    } else if path.starts_with(query) {
        4
    } else if name.contains(query) {
        5
    } else if path.contains(query) || aliases.iter().any(|alias| alias.contains(query)) {
        6
    } else if in_order(query, path) {
        7
    } else {
        0
    }
}

/// Whether every character of `query` occurs in `text` in the same order.
fn in_order(query: &str, text: &str) -> bool {
    let mut rest = text.chars();
    query.chars().all(|wanted| rest.any(|c| c == wanted))
}

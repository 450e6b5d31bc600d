//! Link and tag rules shared by the tools (`vault/links.ts`): where a link resolves, and which tags a filter matches.

use crate::offline::obsidian::metadata::link_path;
use crate::offline::plugin::tools::Context;

/// The path a link written in `source` resolves to (`resolveLink`).
pub(crate) fn resolve_link(ctx: &Context<'_>, link: &str, source: &str) -> Option<String> {
    let linkpath = link_path(link);
    ctx.snapshot
        .first_linkpath_dest(linkpath, source)
        .map(|index| ctx.snapshot.files[index].path.clone())
}
/// `tagMatches`: `tag` is `wanted` or nested under it, case-insensitively.
pub(crate) fn tag_matches(tag: &str, wanted: &str) -> bool {
    let a = tag.to_lowercase();
    let b = wanted.to_lowercase();
    let a = a.strip_prefix('#').unwrap_or(&a);
    let b = b.strip_prefix('#').unwrap_or(&b);
    a == b || a.starts_with(&format!("{b}/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_tags_match_their_parents_only() {
        assert!(tag_matches("#Project/Alpha", "project"));
        assert!(tag_matches("#project", "#PROJECT"));
        assert!(!tag_matches("#projects", "project"));
        assert!(!tag_matches("#project", ""));
    }
}

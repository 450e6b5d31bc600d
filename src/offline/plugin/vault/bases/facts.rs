//! What a row of a view reads of its note, and the case-blind comparisons its tags and keys are matched with.

use crate::offline::js::lowers_to;

/// What a row reads of its note only when an expression asks: most views look at few of these, and at 100,000 notes
/// reading all three for every note was a third of a view's time.
pub(crate) trait NoteFacts {
    /// Its tags without `#`.
    fn tags(&self) -> &[&str];
    /// Where its links lead: paths of notes, then linkpaths that lead nowhere.
    fn links(&self) -> &[&str];
    /// Its frontmatter's keys in order, each value still JSON text.
    fn properties(&self) -> &[(std::borrow::Cow<'_, str>, &serde_json::value::RawValue)];
}

/// In tests: a row with no note (no tags, links or properties).
#[cfg(test)]
impl NoteFacts for () {
    fn tags(&self) -> &[&str] {
        &[]
    }
    fn links(&self) -> &[&str] {
        &[]
    }
    fn properties(&self) -> &[(std::borrow::Cow<'_, str>, &serde_json::value::RawValue)] {
        &[]
    }
}

/// A note's frontmatter: its keys in order, each value still JSON text (`Note::frontmatter_entries`).
pub(crate) type Properties<'a> = Vec<(std::borrow::Cow<'a, str>, &'a serde_json::value::RawValue)>;

/// Whether `tag` lower-cased is `want` (lower case) or a tag nested under it.
pub(crate) fn tag_is_or_under(tag: &str, want: &str) -> bool {
    if !tag.is_ascii() {
        let tag = tag.to_lowercase();
        return tag == want || tag.starts_with(&format!("{want}/"));
    }
    let n = want.len();
    match tag.len().cmp(&n) {
        std::cmp::Ordering::Equal => lowers_to(tag, want),
        std::cmp::Ordering::Greater => tag.as_bytes()[n] == b'/' && lowers_to(&tag[..n], want),
        std::cmp::Ordering::Less => false,
    }
}

/// A trailing ".md" (any case) dropped.
pub(crate) fn strip_md(text: &str) -> &str {
    if text.len() >= 3
        && text.is_char_boundary(text.len() - 3)
        && text[text.len() - 3..].eq_ignore_ascii_case(".md")
    {
        &text[..text.len() - 3]
    } else {
        text
    }
}

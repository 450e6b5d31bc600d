//! The limits every tool shares (`vault/limits.ts`): cuts counted in UTF-16 units, snippets, cursors and how many
//! items fit a character budget.

use crate::offline::js::{byte_at_utf16, utf16_len};
use crate::offline::plugin::tools::ToolError;

/// `cutChars`: at most `max` UTF-16 units of `text`, never half a surrogate pair.
pub(crate) fn cut_chars(text: &str, max: usize) -> &str {
    &text[..byte_at_utf16(text, max)]
}

/// Longest single line or snippet quoted in a structured result (`SNIPPET_CHARS`).
pub(crate) const SNIPPET_CHARS: usize = 300;

/// `snippet`: a line quoted in a result, at most `max` units, "…" marking a cut.
pub(crate) fn snippet(line: &str, max: usize) -> String {
    let clean = line.strip_suffix('\r').unwrap_or(line);
    if utf16_len(clean) <= max {
        clean.to_string()
    } else {
        format!("{}…", cut_chars(clean, max))
    }
}

/// `snippetAround`: a snippet of `line` keeping the match at UTF-16 index `index` visible.
pub(crate) fn snippet_around(line: &str, index: usize, max: usize) -> String {
    let clean = line.strip_suffix('\r').unwrap_or(line);
    let units: Vec<u16> = clean.encode_utf16().collect();
    if units.len() <= max {
        return clean.to_string();
    }
    let mut start = (index.saturating_sub(max / 4)).min(units.len() - max);
    if (0xDC00..=0xDFFF).contains(&units[start]) {
        start += 1;
    }
    let mut end = (start + max).min(units.len());
    if end > start && end < units.len() && (0xD800..=0xDBFF).contains(&units[end - 1]) {
        end -= 1;
    }
    let body = String::from_utf16_lossy(&units[start..end]);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(&body);
    if end < units.len() {
        out.push('…');
    }
    out
}

/// Length in UTF-16 units of the compact JSON of `value` (what `JSON.stringify(value).length` gives).
pub(crate) fn json_len(value: &serde_json::Value) -> usize {
    utf16_len(&serde_json::to_string(value).unwrap_or_default())
}

/// `countWithinBudget`: how many of `items` fit in `budget` units as JSON array members; at least one.
pub(crate) fn count_within_budget(items: &[serde_json::Value], budget: usize) -> usize {
    let mut used = 0;
    for (index, item) in items.iter().enumerate() {
        used += json_len(item) + 1;
        if used > budget && index > 0 {
            return index;
        }
    }
    items.len()
}
/// `offsetFromCursor`: a numeric offset cursor; a bad cursor is an error rather than a silent restart.
pub(crate) fn offset_from_cursor(cursor: Option<&str>) -> Result<usize, ToolError> {
    match cursor {
        None | Some("") => Ok(0),
        Some(text) if (1..=9).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(text.parse().unwrap_or(0))
        }
        Some(text) => Err(ToolError(format!(
            "invalid cursor {}: pass next_cursor from the previous result unchanged",
            crate::offline::plugin::vault::paths::quote(text)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_count_utf16_units_and_keep_surrogate_pairs_whole() {
        assert_eq!(utf16_len("a😀"), 3);
        assert_eq!(cut_chars("a😀b", 2), "a");
        assert_eq!(cut_chars("a😀b", 3), "a😀");
        assert_eq!(cut_chars("abc", 10), "abc");
    }

    #[test]
    fn snippets_mark_cuts() {
        assert_eq!(snippet("abcdef\r", 10), "abcdef");
        assert_eq!(snippet("abcdef", 3), "abc…");
        let line = "x".repeat(50) + "MATCH" + &"y".repeat(50);
        let quoted = snippet_around(&line, 50, 20);
        assert!(
            quoted.starts_with('…') && quoted.ends_with('…') && quoted.contains("MATCH"),
            "{quoted}"
        );
        assert_eq!(snippet_around("short", 2, 20), "short");
    }

    #[test]
    fn budget_counts_json_members_and_keeps_one() {
        let items = vec![serde_json::json!("aaaa"), serde_json::json!("bbbb")];
        assert_eq!(count_within_budget(&items, 1), 1);
        assert_eq!(count_within_budget(&items, 7), 1);
        assert_eq!(count_within_budget(&items, 14), 2);
        assert_eq!(count_within_budget(&[], 5), 0);
    }

    #[test]
    fn offset_cursors() {
        assert_eq!(offset_from_cursor(None).unwrap(), 0);
        assert_eq!(offset_from_cursor(Some("40")).unwrap(), 40);
        assert!(offset_from_cursor(Some("-1")).is_err());
        assert!(offset_from_cursor(Some("1234567890")).is_err());
    }
}

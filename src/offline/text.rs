//! Text arithmetic the plugin does in JavaScript, redone so that offline results match it to the character.
//!
//! JavaScript counts string lengths in UTF-16 code units and its `\s` / `trim()` know a slightly different set of
//! whitespace than Rust's `char::is_whitespace`; every limit, cut and position in a result depends on those two
//! facts, so they live here once. Line splitting follows `vault/lines.ts`: a final "\n" ends the last line.

/// Whether `c` is whitespace for a JavaScript regex `\s` (and for `String.prototype.trim`).
pub(crate) fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// `String.prototype.trim`.
pub(crate) fn js_trim(text: &str) -> &str {
    text.trim_matches(is_js_space)
}

/// `String.prototype.trimEnd`.
pub(crate) fn js_trim_end(text: &str) -> &str {
    text.trim_end_matches(is_js_space)
}

/// Length of `text` in UTF-16 code units (JavaScript's `length`).
pub(crate) fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// The byte index in `text` where `units` UTF-16 code units have been consumed; a cut inside a surrogate pair
/// moves back before the pair, like `cutChars` does.
pub(crate) fn byte_at_utf16(text: &str, units: usize) -> usize {
    let mut used = 0;
    for (index, c) in text.char_indices() {
        let width = c.len_utf16();
        if used + width > units {
            return index;
        }
        used += width;
    }
    text.len()
}

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

/// `splitLines` of `vault/lines.ts`: lines split on "\n" (a "\r" stays on its line); "" has no lines and a final
/// "\n" does not start an empty one.
pub(crate) fn split_lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') {
        lines.pop();
    }
    lines
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_follows_javascript_not_rust() {
        assert!(is_js_space('\u{FEFF}'));
        assert!(
            !is_js_space('\u{85}'),
            "NEL is whitespace to Rust but not to a JavaScript regex"
        );
        assert_eq!(js_trim("\u{FEFF} a \u{3000}"), "a");
    }

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
    fn lines_follow_the_plugin_convention() {
        assert_eq!(split_lines(""), Vec::<&str>::new());
        assert_eq!(split_lines("a\nb\n"), vec!["a", "b"]);
        assert_eq!(split_lines("a\r\nb"), vec!["a\r", "b"]);
        assert_eq!(split_lines("\n"), vec![""]);
    }

    #[test]
    fn budget_counts_json_members_and_keeps_one() {
        let items = vec![serde_json::json!("aaaa"), serde_json::json!("bbbb")];
        assert_eq!(count_within_budget(&items, 1), 1);
        assert_eq!(count_within_budget(&items, 7), 1);
        assert_eq!(count_within_budget(&items, 14), 2);
        assert_eq!(count_within_budget(&[], 5), 0);
    }
}

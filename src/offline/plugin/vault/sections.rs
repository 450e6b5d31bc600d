//! Sections of a note's text for section reads: a heading's section and a block, found in the text itself with the
//! plugin's rules (`obsidian-plugin/src/vault/sections.ts`), not from the metadata cache. Line numbers are 0-based
//! indexes into `text::split_lines`.

use crate::offline::js::js_trim;
use crate::offline::plugin::tools::ToolError;
use crate::offline::plugin::vault::paths::quote;

/// A heading found in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Heading {
    pub(crate) line: usize,
    pub(crate) level: usize,
    pub(crate) text: String,
}

/// A half-open range of lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineRange {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

fn without_cr(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

/// The frontmatter's lines, fences included.
pub(crate) fn frontmatter_range(lines: &[&str]) -> Option<LineRange> {
    if lines.is_empty() || without_cr(lines[0]) != "---" {
        return None;
    }
    (1..lines.len())
        .find(|&i| without_cr(lines[i]) == "---")
        .map(|i| LineRange {
            start: 0,
            end: i + 1,
        })
}

/// `^[ ]{0,3}(`{3,}|~{3,})`: the fence run.
fn fence(line: &str) -> Option<&str> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let mark = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let run = rest.len() - rest.trim_start_matches(mark).len();
    (run >= 3).then(|| &rest[..run])
}

/// `^(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`: level and text of an ATX heading line.
fn heading(line: &str) -> Option<(usize, String)> {
    if line.contains(['\r', '\n', '\u{2028}', '\u{2029}']) {
        return None;
    }
    let level = line.len() - line.trim_start_matches('#').len();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &line[level..];
    if rest.is_empty() {
        return Some((level, String::new()));
    }
    if !rest.starts_with([' ', '\t']) {
        // `#tag`, or seven `#`s: the text must be separated from the `#`s.
        return None;
    }
    // The lazy text is the shortest that leaves only an optional whitespace-led closing run of `#` and spaces.
    let text = rest.trim_start_matches([' ', '\t']);
    let trimmed_end = text.trim_end_matches([' ', '\t']);
    let before_hashes = trimmed_end.trim_end_matches('#');
    let body = if before_hashes.len() < trimmed_end.len() && before_hashes.ends_with([' ', '\t']) {
        before_hashes
    } else {
        trimmed_end
    };
    Some((level, js_trim(body).to_string()))
}

/// The ATX headings outside frontmatter and fenced code, in order.
pub(crate) fn find_headings(lines: &[&str]) -> Vec<Heading> {
    let mut headings = Vec::new();
    let start = frontmatter_range(lines).map_or(0, |range| range.end);
    let mut open: Option<String> = None;
    for (i, raw) in lines.iter().enumerate().skip(start) {
        let line = without_cr(raw);
        let run = fence(line);
        if let Some(current) = &open {
            if let Some(run) = run
                && run.as_bytes()[0] == current.as_bytes()[0]
                && run.len() >= current.len()
            {
                open = None;
            }
            continue;
        }
        if let Some(run) = run {
            open = Some(run.to_string());
            continue;
        }
        if let Some((level, text)) = heading(line) {
            headings.push(Heading {
                line: i,
                level,
                text,
            });
        }
    }
    headings
}

/// The end (exclusive) of a heading's section: the next heading of the same or a higher level.
pub(crate) fn heading_section_end(headings: &[Heading], index: usize, line_count: usize) -> usize {
    let level = headings[index].level;
    headings[index + 1..]
        .iter()
        .find(|h| h.level <= level)
        .map_or(line_count, |h| h.line)
}

fn same_heading(a: &str, b: &str) -> bool {
    js_trim(a).to_lowercase() == js_trim(b).to_lowercase()
}

/// Finds a heading by text (case-insensitive); `Parent#Child` looks for Child inside Parent's section.
pub(crate) fn find_heading(
    lines: &[&str],
    headings: &[Heading],
    wanted: &str,
) -> Result<usize, ToolError> {
    let parts: Vec<&str> = wanted
        .split('#')
        .map(js_trim)
        .filter(|part| !part.is_empty())
        .collect();
    if parts.is_empty() {
        return Err(ToolError::new("heading is empty"));
    }
    let mut from = 0;
    let mut to = headings.len();
    let mut found = None;
    for part in parts {
        found = (from..to).find(|&j| same_heading(&headings[j].text, part));
        let Some(index) = found else { break };
        let end = heading_section_end(headings, index, lines.len());
        from = index + 1;
        to = (index + 1..headings.len())
            .find(|&k| headings[k].line >= end)
            .unwrap_or(headings.len());
    }
    found.ok_or_else(|| {
        let known: Vec<String> = headings.iter().take(30).map(|h| quote(&h.text)).collect();
        let tail = if known.is_empty() {
            "; the note has no headings".to_string()
        } else {
            format!("; headings: {}", known.join(", "))
        };
        ToolError(format!("heading {} not found{tail}", quote(wanted)))
    })
}

/// `(?:^|\s)\^([A-Za-z0-9-]+)\s*$` on one line: the block id it ends with.
fn block_id(line: &str) -> Option<&str> {
    let trimmed = crate::offline::js::js_trim_end(line);
    let start = trimmed
        .char_indices()
        .rev()
        .find(|(_, c)| crate::offline::js::is_js_space(*c))
        .map_or(0, |(index, c)| index + c.len_utf8());
    let id = trimmed[start..].strip_prefix('^')?;
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')).then_some(id)
}

fn is_list_line(line: &str) -> bool {
    // `^\s*([-*+]|\d+[.)])\s`
    let rest = line.trim_start_matches(crate::offline::js::is_js_space);
    let marker = if rest.starts_with(['-', '*', '+']) {
        1
    } else {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 || !rest[digits..].starts_with(['.', ')']) {
            return false;
        }
        digits + 1
    };
    rest[marker..]
        .chars()
        .next()
        .is_some_and(crate::offline::js::is_js_space)
}

/// The lines of a block (`^id`): a list item's line, or the paragraph ending in the id; a line holding only the id
/// marks the block above it.
pub(crate) fn find_block(lines: &[&str], wanted: &str) -> Result<LineRange, ToolError> {
    let id = js_trim(wanted);
    let id = id.strip_prefix('^').unwrap_or(id);
    if id.is_empty() {
        return Err(ToolError::new("block id is empty"));
    }
    let heading_lines: std::collections::HashSet<usize> =
        find_headings(lines).iter().map(|h| h.line).collect();
    for (i, raw) in lines.iter().enumerate() {
        let line = without_cr(raw);
        if block_id(line) != Some(id) {
            continue;
        }
        if heading_lines.contains(&i) || is_list_line(line) {
            return Ok(LineRange {
                start: i,
                end: i + 1,
            });
        }
        let mut start = i;
        if js_trim(line) == format!("^{id}") {
            let mut probe = i as isize - 1;
            while probe >= 0 && js_trim(lines[probe as usize]).is_empty() {
                probe -= 1;
            }
            if probe < 0 {
                return Ok(LineRange {
                    start: i,
                    end: i + 1,
                });
            }
            start = probe as usize;
        }
        while start > 0
            && !js_trim(lines[start - 1]).is_empty()
            && !heading_lines.contains(&(start - 1))
            && !heading_lines.contains(&start)
        {
            start -= 1;
        }
        return Ok(LineRange { start, end: i + 1 });
    }
    Err(ToolError(format!("block ^{id} not found")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "---\n# not: heading\n---\n# Top\nintro\n## Child\nc ^cid\n```\n# fenced\n```\n## Other ##\n- item ^li\n\npara one\npara two\n\n^lone\n# Next";

    fn lines() -> Vec<&'static str> {
        crate::offline::plugin::vault::lines::split_lines(NOTE)
    }

    #[test]
    fn headings_skip_frontmatter_and_fences() {
        let found: Vec<(usize, usize, String)> = find_headings(&lines())
            .into_iter()
            .map(|h| (h.line, h.level, h.text))
            .collect();
        assert_eq!(
            found,
            vec![
                (3, 1, "Top".into()),
                (5, 2, "Child".into()),
                (10, 2, "Other".into()),
                (17, 1, "Next".into())
            ]
        );
        assert_eq!(heading("#tag"), None);
        assert_eq!(heading("####### seven"), None);
        assert_eq!(heading("##"), Some((2, String::new())));
        assert_eq!(heading("# a#"), Some((1, "a#".into())));
        assert_eq!(
            heading("#\t#"),
            Some((1, "#".into())),
            "a lone closing run is the heading's text"
        );
        assert_eq!(heading("# Title  ## "), Some((1, "Title".into())));
    }

    #[test]
    fn nested_heading_paths_and_section_ends() {
        let lines = lines();
        let headings = find_headings(&lines);
        let index = find_heading(&lines, &headings, "top#other").unwrap();
        assert_eq!(headings[index].text, "Other");
        assert_eq!(heading_section_end(&headings, index, lines.len()), 17);
        assert_eq!(heading_section_end(&headings, 0, lines.len()), 17);
        let error = find_heading(&lines, &headings, "Next#Child").unwrap_err();
        assert!(
            error
                .0
                .starts_with("heading \"Next#Child\" not found; headings: \"Top\""),
            "{}",
            error.0
        );
    }

    #[test]
    fn blocks_cover_their_paragraph_or_item() {
        let lines = lines();
        assert_eq!(
            find_block(&lines, "^cid").unwrap(),
            LineRange { start: 6, end: 7 }
        );
        assert_eq!(
            find_block(&lines, "li").unwrap(),
            LineRange { start: 11, end: 12 }
        );
        assert_eq!(
            find_block(&lines, "lone").unwrap(),
            LineRange { start: 13, end: 17 }
        );
        assert_eq!(
            find_block(&lines, "nope").unwrap_err().0,
            "block ^nope not found"
        );
    }
}

//! Block-level lines: fences, headings, list items, thematic breaks, tables, quotes and callouts, each recognised
//! by the fake's own rule.

use super::*;

/// `^(\s*)(`{3,}|~{3,})(.*)$` and not a backtick fence whose info string holds a backtick: the fence mark.
pub(super) fn fence_open(text: &str) -> Option<&str> {
    let rest = text.trim_start_matches(is_js_space);
    let mark_char = rest.chars().next()?;
    if mark_char != '`' && mark_char != '~' {
        return None;
    }
    let run = rest.len() - rest.trim_start_matches(mark_char).len();
    if run < 3 {
        return None;
    }
    let info = &rest[run..];
    if info.contains(['\r', '\u{2028}', '\u{2029}']) || (mark_char == '`' && info.contains('`')) {
        return None;
    }
    Some(&rest[..run])
}

pub(super) fn is_fence_close(text: &str, fence: &str) -> bool {
    let trimmed = js_trim(text);
    let mark = fence.as_bytes()[0] as char;
    utf16_len(trimmed) >= fence.len() && trimmed.chars().all(|c| c == mark) && !trimmed.is_empty()
}

/// `^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$`: the level and the rest of the line.
pub(super) fn heading_parts(text: &str) -> Option<(usize, &str)> {
    let indent = text.len() - text.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let after = &text[indent..];
    let level = after.len() - after.trim_start_matches('#').len();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &after[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t']))
        || rest.contains(['\r', '\u{2028}', '\u{2029}'])
    {
        return None;
    }
    Some((level, rest))
}

/// Removes the optional closing run of `#` (`[ \t]+#+[ \t]*$`).
pub(super) fn strip_closing_run(rest: &str) -> &str {
    let without_trailing = rest.trim_end_matches([' ', '\t']);
    let before_hashes = without_trailing.trim_end_matches('#');
    if before_hashes.len() == without_trailing.len() {
        return rest;
    }
    let before_space = before_hashes.trim_end_matches([' ', '\t']);
    if before_space.len() == before_hashes.len() {
        // `#` glued to the text (`foo#`) is part of the heading.
        return rest;
    }
    before_space
}

/// `^(\s*)([-*+]|\d{1,9}[.)])(?:[ \t]+|$)(?:\[(.)\](?=[ \t]|$))?`: indent (bytes) and task character.
pub(super) fn list_item(text: &str) -> Option<(usize, Option<String>)> {
    let rest_start = text.len() - text.trim_start_matches(is_js_space).len();
    // `\s*` may backtrack, but a marker never starts with whitespace, so the greedy indent is the only candidate.
    let rest = &text[rest_start..];
    let marker_len = if rest.starts_with(['-', '*', '+']) {
        1
    } else {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 || digits > 9 || !rest[digits..].starts_with(['.', ')']) {
            return None;
        }
        digits + 1
    };
    let after = &rest[marker_len..];
    let spaces = after.len() - after.trim_start_matches([' ', '\t']).len();
    if spaces == 0 && !after.is_empty() {
        return None;
    }
    let body = &after[spaces..];
    let mut task = None;
    if spaces > 0 || body.is_empty() {
        let mut chars = body.chars();
        if chars.next() == Some('[')
            && let (Some(mark), Some(']')) = (chars.next(), chars.next())
        {
            let tail = chars.as_str();
            if !matches!(mark, '\n' | '\r' | '\u{2028}' | '\u{2029}')
                && (tail.is_empty() || tail.starts_with([' ', '\t']))
            {
                task = Some(mark.to_string());
            }
        }
    }
    Some((rest_start, task))
}

/// The level of a setext underline (`=` 1, `-` 2) after at most 3 spaces, trailing spaces and tabs allowed.
pub(super) fn setext_level(text: &str) -> Option<usize> {
    let indent = text.len() - text.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = text[indent..].trim_end_matches([' ', '\t']);
    let mark = rest.chars().next()?;
    let level = match mark {
        '=' => 1,
        '-' => 2,
        _ => return None,
    };
    rest.chars().all(|c| c == mark).then_some(level)
}

pub(super) fn is_thematic_break(text: &str) -> bool {
    let indent = text.len() - text.trim_start_matches(' ').len();
    if indent > 3 {
        return false;
    }
    let rest = &text[indent..];
    let Some(mark) = rest.chars().next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    let mut count = 0;
    for c in rest.chars() {
        if c == mark {
            count += 1;
        } else if c != ' ' && c != '\t' {
            return false;
        }
    }
    count >= 3
}

pub(super) fn is_table_delimiter(text: &str) -> bool {
    let mut body = js_trim(text);
    body = body.strip_prefix('|').unwrap_or(body);
    body = body.strip_suffix('|').unwrap_or(body);
    body.split('|').all(|cell| {
        let cell = js_trim(cell);
        let cell = cell.strip_prefix(':').unwrap_or(cell);
        let cell = cell.strip_suffix(':').unwrap_or(cell);
        !cell.is_empty() && cell.chars().all(|c| c == '-')
    })
}

pub(super) fn is_blockquote(text: &str) -> bool {
    let indent = text.len() - text.trim_start_matches(' ').len();
    indent <= 3 && text[indent..].starts_with('>')
}

pub(super) fn is_callout(text: &str) -> bool {
    let indent = text.len() - text.trim_start_matches(' ').len();
    indent <= 3
        && text[indent..]
            .strip_prefix('>')
            .is_some_and(|rest| rest.trim_start_matches(is_js_space).starts_with("[!"))
}

/// What kind of block a line outside code opens; `None` for a blank line.
pub(super) fn line_kind(lines: &[Line<'_>], index: usize) -> Option<&'static str> {
    let text = lines[index].text;
    if js_trim(text).is_empty() {
        return None;
    }
    if heading_parts(text).is_some() {
        return Some("heading");
    }
    if is_thematic_break(text) {
        return Some("thematicBreak");
    }
    if list_item(text).is_some() {
        return Some("list");
    }
    if is_blockquote(text) {
        return Some(if is_callout(text) {
            "callout"
        } else {
            "blockquote"
        });
    }
    if text.contains('|')
        && index + 1 < lines.len()
        && is_table_delimiter(lines[index + 1].text)
        && lines[index + 1].text.contains('-')
    {
        return Some("table");
    }
    Some("paragraph")
}

/// The length of a quoted line's markers (`QUOTE_MARKERS`): `>` after at most 3 spaces, then an optional space or
/// tab, as often as they repeat.
fn quote_markers(text: &str) -> usize {
    let mut at = 0;
    loop {
        let rest = &text[at..];
        let indent = rest.len() - rest.trim_start_matches(' ').len();
        if indent > 3 || !rest[indent..].starts_with('>') {
            return at;
        }
        at += indent + 1;
        if text[at..].starts_with([' ', '\t']) {
            at += 1;
        }
    }
}

/// Splits a list section (`quoted`: a quote, after its markers) into items with parents, tasks and extents.
pub(super) fn read_list_items(
    lines: &[Line<'_>],
    (start, end): (usize, usize),
    quoted: bool,
    out: &mut Vec<(ListItem, usize, usize)>,
) {
    let mut items: Vec<(usize, usize, Option<String>)> = Vec::new();
    for (i, line) in lines.iter().enumerate().take(end + 1).skip(start) {
        let markers = if quoted { quote_markers(line.text) } else { 0 };
        if let Some((indent, task)) = list_item(&line.text[markers..]) {
            items.push((i, markers + indent, task));
        }
    }
    let first_line = items.first().map_or(start, |item| item.0);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for (index, (line, indent, task)) in items.iter().enumerate() {
        let indent_units = utf16_len(&lines[*line].text[..*indent]);
        while stack.last().is_some_and(|(_, top)| *top >= indent_units) {
            stack.pop();
        }
        let parent = stack
            .last()
            .map_or(-(first_line as i64), |(top_line, _)| *top_line as i64);
        stack.push((*line, indent_units));
        let item_end = items.get(index + 1).map_or(end, |next| next.0 - 1);
        out.push((
            ListItem {
                parent,
                task: task.clone(),
                position: pos(lines, *line, *indent, item_end, lines[item_end].text.len()),
                id: None,
            },
            *line,
            item_end,
        ));
    }
}

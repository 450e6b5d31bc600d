//! A note's text turned into the metadata Obsidian's cache holds for it (links, embeds, tags, headings, sections,
//! list items, blocks, frontmatter).
//!
//! Obsidian's parser is closed source. The plugin is tested on a fake `obsidian` module whose reader
//! (`obsidian-plugin/test/fake-obsidian/markdown.cjs`) writes its rules out in full; this module follows that list
//! rule for rule, so that offline results equal the plugin's. The scanners are hand-written rather than regexes
//! because several rules lean on JavaScript regex semantics (lookbehind, UTF-16 indexes, JavaScript's `\s`) that
//! Rust's `regex` does not share. Positions are 0-based; `col` and `offset` count UTF-16 code units and a CRLF
//! counts as two, as in JavaScript.

use serde_json::{Map, Value, json};

use super::text::{is_js_space, js_trim, js_trim_end, utf16_len};

/// A place in the note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Loc {
    pub(crate) line: usize,
    pub(crate) col: usize,
    pub(crate) offset: usize,
}

/// A span of the note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub(crate) start: Loc,
    pub(crate) end: Loc,
}

/// A link or embed in the body (`LinkCache` / `EmbedCache`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LinkRef {
    pub(crate) link: String,
    pub(crate) original: String,
    pub(crate) display_text: String,
    pub(crate) position: Pos,
}

/// A wikilink held by a frontmatter property (`FrontmatterLinkCache`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FrontmatterLink {
    pub(crate) key: String,
    pub(crate) link: String,
    pub(crate) original: String,
    pub(crate) display_text: String,
}

/// A `#tag` in the body; `tag` keeps the `#`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TagRef {
    pub(crate) tag: String,
    pub(crate) position: Pos,
}

/// An ATX heading.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HeadingRef {
    pub(crate) heading: String,
    pub(crate) level: usize,
    pub(crate) position: Pos,
}

/// A root block of the note (`SectionCache`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Section {
    pub(crate) kind: &'static str,
    pub(crate) position: Pos,
    pub(crate) id: Option<String>,
}

/// A list item (`ListItemCache`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ListItem {
    pub(crate) parent: i64,
    pub(crate) task: Option<String>,
    pub(crate) position: Pos,
    pub(crate) id: Option<String>,
}

/// A `^block` id and the span it names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Block {
    pub(crate) id: String,
    pub(crate) position: Pos,
}

/// Everything the cache knows about one note.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct NoteMetadata {
    pub(crate) frontmatter: Option<Map<String, Value>>,
    pub(crate) frontmatter_position: Option<Pos>,
    pub(crate) frontmatter_links: Vec<FrontmatterLink>,
    pub(crate) links: Vec<LinkRef>,
    pub(crate) embeds: Vec<LinkRef>,
    pub(crate) tags: Vec<TagRef>,
    pub(crate) headings: Vec<HeadingRef>,
    pub(crate) sections: Vec<Section>,
    pub(crate) list_items: Vec<ListItem>,
    /// Keyed by the id in lower case, in JavaScript object key order.
    pub(crate) blocks: Vec<(String, Block)>,
}

impl NoteMetadata {
    /// Keeps only what the tools read (frontmatter, links and embeds by target and line, tags, headings, blocks):
    /// sections, list items and the links' source and display text are dropped, which roughly halves the memory
    /// a large vault's index takes.
    pub(crate) fn slim(mut self) -> Self {
        self.sections = Vec::new();
        self.list_items = Vec::new();
        for link in self.links.iter_mut().chain(self.embeds.iter_mut()) {
            link.original = String::new();
            link.display_text = String::new();
        }
        for link in &mut self.frontmatter_links {
            link.original = String::new();
            link.display_text = String::new();
        }
        self.links.shrink_to_fit();
        self.embeds.shrink_to_fit();
        self.tags.shrink_to_fit();
        self.headings.shrink_to_fit();
        self
    }
}

/// One line of the note: its text without the line break, and where it starts.
struct Line<'a> {
    text: &'a str,
    /// UTF-16 offset of the line's first unit in the note.
    start: usize,
}

/// Lines as the fake's reader splits them: on "\n", a "\r" before it dropped, a final "\n" giving an empty last line.
fn split_lines(content: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut offset = 0;
    for piece in content.split('\n') {
        let text = piece.strip_suffix('\r').unwrap_or(piece);
        lines.push(Line {
            text,
            start: offset,
        });
        offset += utf16_len(piece) + 1;
    }
    lines
}

fn loc(lines: &[Line<'_>], line: usize, byte_col: usize) -> Loc {
    let col = utf16_len(&lines[line].text[..byte_col]);
    Loc {
        line,
        col,
        offset: lines[line].start + col,
    }
}

fn pos(
    lines: &[Line<'_>],
    start_line: usize,
    start_col: usize,
    end_line: usize,
    end_col: usize,
) -> Pos {
    Pos {
        start: loc(lines, start_line, start_col),
        end: loc(lines, end_line, end_col),
    }
}

fn whole_lines(lines: &[Line<'_>], start: usize, end: usize) -> Pos {
    pos(lines, start, 0, end, lines[end].text.len())
}

/// Index of the closing `---` line, when the note has frontmatter.
fn frontmatter_end(lines: &[Line<'_>]) -> Option<usize> {
    if lines.len() < 2 || js_trim_end(lines[0].text) != "---" {
        return None;
    }
    (1..lines.len()).find(|&i| js_trim_end(lines[i].text) == "---")
}

/// The YAML text between the frontmatter fences (`getFrontMatterInfo().frontmatter`).
pub(crate) fn frontmatter_text(content: &str) -> Option<&str> {
    let lines = split_lines(content);
    let closing = frontmatter_end(&lines)?;
    let from = byte_offset_of_line(content, 1);
    if closing == 1 {
        return Some("");
    }
    let last = byte_offset_of_line(content, closing - 1) + lines[closing - 1].text.len();
    Some(&content[from..last])
}

fn byte_offset_of_line(content: &str, line: usize) -> usize {
    if line == 0 {
        return 0;
    }
    content
        .match_indices('\n')
        .nth(line - 1)
        .map(|(index, _)| index + 1)
        .unwrap_or(content.len())
}

/// Parses a note's text into its metadata (rules at the top of `markdown.cjs`).
pub(crate) fn parse(content: &str) -> NoteMetadata {
    let lines = split_lines(content);
    let mut meta = NoteMetadata::default();
    // Sections in document order; `lines` keeps their line span for the block rules.
    let mut sections: Vec<(Section, usize, usize)> = Vec::new();
    let mut found = Found::default();

    let mut body_start = 0;
    if let Some(end) = frontmatter_end(&lines) {
        let position = whole_lines(&lines, 0, end);
        meta.frontmatter_position = Some(position);
        sections.push((
            Section {
                kind: "yaml",
                position,
                id: None,
            },
            0,
            end,
        ));
        if let Some(text) = frontmatter_text(content) {
            read_frontmatter(text, &mut meta);
        }
        body_start = end + 1;
    }

    let mut current: Option<(&'static str, usize, usize)> = None;
    let close = |current: &mut Option<(&'static str, usize, usize)>,
                 sections: &mut Vec<(Section, usize, usize)>| {
        if let Some((kind, start, end)) = current.take() {
            sections.push((
                Section {
                    kind,
                    position: whole_lines(&lines, start, end),
                    id: None,
                },
                start,
                end,
            ));
        }
    };

    let mut i = body_start;
    while i < lines.len() {
        let text = lines[i].text;
        let fence = fence_open(text);
        let opens_math = js_trim(text) == "$$";
        if fence.is_some() || opens_math {
            close(&mut current, &mut sections);
            let mut end = i + 1;
            while end < lines.len() {
                let closes = match fence {
                    Some(mark) => is_fence_close(lines[end].text, mark),
                    None => js_trim(lines[end].text) == "$$",
                };
                if closes {
                    break;
                }
                end += 1;
            }
            let last = end.min(lines.len() - 1);
            let kind = if fence.is_some() { "code" } else { "math" };
            sections.push((
                Section {
                    kind,
                    position: whole_lines(&lines, i, last),
                    id: None,
                },
                i,
                last,
            ));
            i = last + 1;
            continue;
        }

        let Some(kind) = line_kind(&lines, i) else {
            close(&mut current, &mut sections);
            i += 1;
            continue;
        };
        scan_inline(&lines, i, &mut found);

        if kind == "heading" {
            close(&mut current, &mut sections);
            let (level, rest) = heading_parts(text).expect("line_kind saw a heading");
            let heading = js_trim(strip_closing_run(rest)).to_string();
            meta.headings.push(HeadingRef {
                heading,
                level,
                position: whole_lines(&lines, i, i),
            });
            sections.push((
                Section {
                    kind: "heading",
                    position: whole_lines(&lines, i, i),
                    id: None,
                },
                i,
                i,
            ));
            i += 1;
            continue;
        }
        if kind == "thematicBreak" {
            close(&mut current, &mut sections);
            sections.push((
                Section {
                    kind,
                    position: whole_lines(&lines, i, i),
                    id: None,
                },
                i,
                i,
            ));
            i += 1;
            continue;
        }
        if let Some((open, _, end)) = current.as_mut() {
            let open = *open;
            let continues = (open == "paragraph" && kind == "paragraph")
                || (open == "list" && (kind == "list" || kind == "paragraph"))
                || ((open == "blockquote" || open == "callout")
                    && matches!(kind, "blockquote" | "callout" | "paragraph"))
                || (open == "table" && text.contains('|'));
            if continues {
                *end = i;
                i += 1;
                continue;
            }
            close(&mut current, &mut sections);
        }
        current = Some((kind, i, i));
        i += 1;
    }
    close(&mut current, &mut sections);

    // List items, with their line spans for the block rules.
    let mut items: Vec<(ListItem, usize, usize)> = Vec::new();
    for (section, start, end) in &sections {
        if section.kind == "list" {
            read_list_items(&lines, *start, *end, &mut items);
        }
    }

    for (id, line) in &found.block_ids {
        let position = if let Some(item) = items
            .iter_mut()
            .find(|(_, start, end)| *start <= *line && *line <= *end)
        {
            item.0.id = Some(id.clone());
            item.0.position
        } else if let Some(index) = sections
            .iter()
            .position(|(s, _, _)| s.position.start.line <= *line && *line <= s.position.end.line)
        {
            let section = &sections[index].0;
            let alone = section.position.start.line == *line
                && section.position.end.line == *line
                && section.kind == "paragraph";
            let target = if alone
                && js_trim(lines[*line].text).starts_with('^')
                && index > 0
                && sections[index - 1].0.kind != "yaml"
            {
                index - 1
            } else {
                index
            };
            sections[target].0.id = Some(id.clone());
            sections[target].0.position
        } else {
            continue;
        };
        insert_js_key(
            &mut meta.blocks,
            id.to_lowercase(),
            Block {
                id: id.clone(),
                position,
            },
        );
    }

    meta.links = found.links;
    meta.embeds = found.embeds;
    meta.tags = found.tags;
    meta.sections = sections
        .into_iter()
        .map(|(section, _, _)| section)
        .collect();
    meta.list_items = items.into_iter().map(|(item, _, _)| item).collect();
    meta
}

/// Sets `key` in an ordered list of entries the way a JavaScript object orders keys: integer-like keys first in
/// ascending order, then the others in insertion order; assigning an existing key keeps its place.
pub(crate) fn insert_js_key<T>(entries: &mut Vec<(String, T)>, key: String, value: T) {
    if let Some(existing) = entries.iter_mut().find(|(k, _)| *k == key) {
        existing.1 = value;
        return;
    }
    entries.push((key, value));
    sort_js_keys(entries);
}

/// Whether a property name is an array index to JavaScript (those keys come first, in numeric order).
pub(crate) fn js_index_key(key: &str) -> Option<u32> {
    let number: u32 = key.parse().ok()?;
    (number != u32::MAX && number.to_string() == key).then_some(number)
}

fn sort_js_keys<T>(entries: &mut [(String, T)]) {
    // A stable sort keeps insertion order among the non-index keys.
    entries.sort_by_key(|(key, _)| match js_index_key(key) {
        Some(number) => (0, number),
        None => (1, 0),
    });
}

#[derive(Default)]
struct Found {
    links: Vec<LinkRef>,
    embeds: Vec<LinkRef>,
    tags: Vec<TagRef>,
    block_ids: Vec<(String, usize)>,
}

/// `^(\s*)(`{3,}|~{3,})(.*)$` and not a backtick fence whose info string holds a backtick: the fence mark.
fn fence_open(text: &str) -> Option<&str> {
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

fn is_fence_close(text: &str, fence: &str) -> bool {
    let trimmed = js_trim(text);
    let mark = fence.as_bytes()[0] as char;
    utf16_len(trimmed) >= fence.len() && trimmed.chars().all(|c| c == mark) && !trimmed.is_empty()
}

/// `^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$`: the level and the rest of the line.
fn heading_parts(text: &str) -> Option<(usize, &str)> {
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
fn strip_closing_run(rest: &str) -> &str {
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
fn list_item(text: &str) -> Option<(usize, Option<String>)> {
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

fn is_thematic_break(text: &str) -> bool {
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

fn is_table_delimiter(text: &str) -> bool {
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

fn is_blockquote(text: &str) -> bool {
    let indent = text.len() - text.trim_start_matches(' ').len();
    indent <= 3 && text[indent..].starts_with('>')
}

fn is_callout(text: &str) -> bool {
    let indent = text.len() - text.trim_start_matches(' ').len();
    indent <= 3
        && text[indent..]
            .strip_prefix('>')
            .is_some_and(|rest| rest.trim_start_matches(is_js_space).starts_with("[!"))
}

/// What kind of block a line outside code opens; `None` for a blank line.
fn line_kind(lines: &[Line<'_>], index: usize) -> Option<&'static str> {
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

/// Replaces bytes `[from, to)` with spaces of the same byte length, so offsets in the masked text stay valid.
fn mask(text: &mut [u8], from: usize, to: usize) {
    text[from..to].fill(b' ');
}

/// Masks inline code spans: a run of N backticks up to the next run of exactly N backticks.
fn mask_code_spans(text: &mut [u8]) {
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'`' {
            i += 1;
            continue;
        }
        let mut run_end = i;
        while run_end < text.len() && text[run_end] == b'`' {
            run_end += 1;
        }
        let run = run_end - i;
        let mut search = run_end;
        let mut close_at = None;
        while search < text.len() {
            let Some(next) = text[search..]
                .iter()
                .position(|&b| b == b'`')
                .map(|p| p + search)
            else {
                break;
            };
            let mut next_end = next;
            while next_end < text.len() && text[next_end] == b'`' {
                next_end += 1;
            }
            if next_end - next == run {
                close_at = Some(next_end);
                break;
            }
            search = next_end;
        }
        match close_at {
            Some(end) => {
                mask(text, i, end);
                i = end;
            }
            None => i = run_end,
        }
    }
}

/// Splits wikilink content into linktext and display text; `\|` (escaped, as in tables) splits too.
pub(crate) fn split_wikilink(content: &str) -> (&str, Option<&str>) {
    let escaped = content.find("\\|");
    let plain = content.find('|');
    match (escaped, plain) {
        (Some(e), Some(p)) if e < p => (&content[..e], Some(&content[e + 2..])),
        (_, Some(p)) => (&content[..p], Some(&content[p + 1..])),
        _ => (content, None),
    }
}

/// `decodeURIComponent`, or the text as written when it does not decode.
pub(crate) fn safe_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match hex {
                Some(byte)
                    if bytes[i + 1].is_ascii_hexdigit() && bytes[i + 2].is_ascii_hexdigit() =>
                {
                    out.push(byte);
                    i += 3;
                }
                _ => return text.to_string(),
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// `[[content]]` at `at` (content without `[`, `]`, CR or LF): the end of the match.
fn wikilink_at(text: &[u8], at: usize) -> Option<usize> {
    if !text[at..].starts_with(b"[[") {
        return None;
    }
    let start = at + 2;
    let mut end = start;
    while end < text.len() && !matches!(text[end], b'[' | b']' | b'\r' | b'\n') {
        end += 1;
    }
    (end > start && text[end..].starts_with(b"]]")).then_some(end + 2)
}

/// A byte range `[start, end)`.
type Span = (usize, usize);

/// A markdown link `[text](target "title")` at `at` (the `[`): (end, text range, raw target).
fn markdown_link_at(text: &[u8], at: usize) -> Option<(usize, Span, Span)> {
    if text.get(at) != Some(&b'[') {
        return None;
    }
    let label_start = at + 1;
    let mut i = label_start;
    loop {
        match text.get(i) {
            Some(b'[') => {
                let close = text[i + 1..]
                    .iter()
                    .position(|&b| b == b'[' || b == b']')
                    .map(|p| p + i + 1);
                match close {
                    Some(c) if text[c] == b']' => i = c + 1,
                    _ => break,
                }
            }
            Some(b']') | None => break,
            Some(_) => i += 1,
        }
    }
    let label = (label_start, i);
    if !text[i..].starts_with(b"](") {
        return None;
    }
    let mut j = i + 2;
    j = skip_js_space(text, j);
    // The angle form is tried first; when the rest fails, the plain form (which also accepts `<`) is tried.
    if text.get(j) == Some(&b'<') {
        let mut k = j + 1;
        while k < text.len() && !matches!(text[k], b'<' | b'>' | b'\r' | b'\n') {
            k += 1;
        }
        if text.get(k) == Some(&b'>')
            && let Some(end) = link_tail(text, k + 1)
        {
            return Some((end, label, (j, k + 1)));
        }
    }
    let target_start = j;
    let mut k = j;
    loop {
        match text.get(k) {
            Some(b'(') => {
                let mut m = k + 1;
                while m < text.len()
                    && text[m] != b'('
                    && text[m] != b')'
                    && !starts_with_js_space(text, m)
                {
                    m += 1;
                }
                if text.get(m) == Some(&b')') {
                    k = m + 1;
                } else {
                    break;
                }
            }
            Some(b')') | None => break,
            Some(_) if starts_with_js_space(text, k) => break,
            Some(_) => k += 1,
        }
    }
    if k == target_start {
        return None;
    }
    let end = link_tail(text, k)?;
    Some((end, label, (target_start, k)))
}

/// After the target: an optional title (`\s+` then `"…"`, `'…'` or `(…)`), `\s*` and `)`; the end of the match.
fn link_tail(text: &[u8], at: usize) -> Option<usize> {
    let spaced = skip_js_space(text, at);
    if spaced > at {
        let title_end = match text.get(spaced) {
            Some(&quote @ (b'"' | b'\'')) => text[spaced + 1..]
                .iter()
                .position(|&b| b == quote)
                .map(|p| spaced + 1 + p + 1),
            Some(b'(') => {
                let close = text[spaced + 1..]
                    .iter()
                    .position(|&b| b == b'(' || b == b')')
                    .map(|p| spaced + 1 + p);
                close.filter(|&c| text[c] == b')').map(|c| c + 1)
            }
            _ => None,
        };
        if let Some(title_end) = title_end {
            let after = skip_js_space(text, title_end);
            if text.get(after) == Some(&b')') {
                return Some(after + 1);
            }
        }
    }
    (text.get(spaced) == Some(&b')')).then_some(spaced + 1)
}

fn starts_with_js_space(text: &[u8], at: usize) -> bool {
    decode_char(text, at).is_some_and(|(c, _)| is_js_space(c))
}

fn skip_js_space(text: &[u8], mut at: usize) -> usize {
    while let Some((c, width)) = decode_char(text, at) {
        if !is_js_space(c) {
            break;
        }
        at += width;
    }
    at
}

fn decode_char(text: &[u8], at: usize) -> Option<(char, usize)> {
    let lead = *text.get(at)?;
    let width = match lead {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    };
    let c = std::str::from_utf8(text.get(at..at + width)?)
        .ok()?
        .chars()
        .next()?;
    Some((c, width))
}

/// Whether a link target starts with a URL scheme (`https:`, `mailto:`, …) and so is external.
pub(crate) fn has_url_scheme(target: &str) -> bool {
    let mut chars = target.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    for c in chars {
        if c == ':' {
            return true;
        }
        if !(c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-')) {
            return false;
        }
    }
    false
}

fn is_scheme_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')
}

/// Masks bare URLs (`scheme://…` up to whitespace, `<` or `>`).
fn mask_bare_urls(text: &mut [u8]) {
    let mut p = 0;
    while p < text.len() {
        if !text[p].is_ascii_alphabetic() {
            p += 1;
            continue;
        }
        let mut q = p + 1;
        while q < text.len() && is_scheme_char(text[q]) {
            q += 1;
        }
        let body = q + 3;
        if text[q..].starts_with(b"://") && body < text.len() && url_char(text, body) {
            let mut end = body;
            while end < text.len() && url_char(text, end) {
                end += decode_char(text, end).map_or(1, |(_, w)| w);
            }
            mask(text, p, end);
            p = end;
        } else {
            // No start inside this run of scheme characters can reach a "://" either.
            p = q.max(p + 1);
        }
    }
}

fn url_char(text: &[u8], at: usize) -> bool {
    !matches!(text[at], b'<' | b'>') && !starts_with_js_space(text, at)
}

/// Characters a tag cannot hold besides whitespace: ASCII punctuation other than `_`, `-` and `/`.
fn ends_tag(c: char) -> bool {
    is_js_space(c) || (c.is_ascii_punctuation() && !matches!(c, '_' | '-' | '/'))
}

/// Finds links, embeds, tags and a block id in one line of body text outside code blocks.
fn scan_inline(lines: &[Line<'_>], line_number: usize, found: &mut Found) {
    let original = lines[line_number].text;
    let mut text = original.as_bytes().to_vec();
    mask_code_spans(&mut text);

    // Like the fake, link and display text are read from the masked text (a code span inside a link is blanked).
    let scan = String::from_utf8(text.clone()).expect("masking keeps UTF-8");
    let bytes = scan.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let (start, is_embed, open) = if bytes[i] == b'!' && bytes[i + 1..].starts_with(b"[[") {
            (i, true, i + 1)
        } else {
            (i, false, i)
        };
        let Some(end) = wikilink_at(bytes, open) else {
            i += 1;
            continue;
        };
        let content = &scan[open + 2..end - 2];
        let (linktext, display) = split_wikilink(content);
        let link = js_trim(linktext);
        if !link.is_empty() {
            let reference = LinkRef {
                link: link.to_string(),
                original: original[start..end].to_string(),
                display_text: display.unwrap_or(linktext).to_string(),
                position: pos(lines, line_number, start, line_number, end),
            };
            if is_embed {
                found.embeds.push(reference)
            } else {
                found.links.push(reference)
            }
            mask(&mut text, start, end);
        }
        i = end;
    }

    let scan = String::from_utf8(text.clone()).expect("masking keeps UTF-8");
    let bytes = scan.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let (start, is_embed, open) = if bytes[i] == b'!' && bytes.get(i + 1) == Some(&b'[') {
            (i, true, i + 1)
        } else {
            (i, false, i)
        };
        let Some((end, label, target)) = markdown_link_at(bytes, open) else {
            i += 1;
            continue;
        };
        mask(&mut text, start, end);
        let mut target = &scan[target.0..target.1];
        if let Some(inner) = target.strip_prefix('<') {
            // `slice(1, -1)`: the plain form may also start with `<` without ending in `>`.
            let mut chars = inner.chars();
            chars.next_back();
            target = chars.as_str();
        }
        let target = js_trim(target);
        if !target.is_empty() && !has_url_scheme(target) {
            let reference = LinkRef {
                link: safe_decode(target),
                original: original[start..end].to_string(),
                display_text: scan[label.0..label.1].to_string(),
                position: pos(lines, line_number, start, line_number, end),
            };
            if is_embed {
                found.embeds.push(reference)
            } else {
                found.links.push(reference)
            }
        }
        i = end;
    }

    mask_bare_urls(&mut text);
    // Masking only ever wrote ASCII spaces over whole characters, so the bytes are still UTF-8.
    let masked = String::from_utf8(text).expect("masking keeps UTF-8");

    let mut previous_space = true;
    let mut chars = masked.char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        if c == '#' && previous_space {
            let body_start = index + 1;
            let body_end = masked[body_start..]
                .find(ends_tag)
                .map_or(masked.len(), |p| p + body_start);
            if body_end > body_start {
                let body = &masked[body_start..body_end];
                if !body.bytes().all(|b| b.is_ascii_digit()) {
                    found.tags.push(TagRef {
                        tag: original[index..body_end].to_string(),
                        position: pos(lines, line_number, index, line_number, body_end),
                    });
                }
                while chars.peek().is_some_and(|(next, _)| *next < body_end) {
                    chars.next();
                }
                previous_space = false;
                continue;
            }
        }
        previous_space = is_js_space(c);
    }

    let trimmed = js_trim_end(&masked);
    let token_start = trimmed.rfind(is_js_space).map_or(0, |p| {
        p + trimmed[p..].chars().next().map_or(1, char::len_utf8)
    });
    if let Some(id) = trimmed[token_start..].strip_prefix('^')
        && !id.is_empty()
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        found.block_ids.push((id.to_string(), line_number));
    }
}

/// Fills the frontmatter and its links; YAML that does not parse or is not a mapping leaves both absent.
fn read_frontmatter(text: &str, meta: &mut NoteMetadata) {
    let data = if js_trim(text).is_empty() {
        Map::new()
    } else {
        match parse_yaml(text) {
            Some(Value::Object(map)) => map,
            _ => return,
        }
    };
    for (key, value) in &data {
        match value {
            Value::String(text) => meta
                .frontmatter_links
                .extend(frontmatter_link(key.clone(), text)),
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    if let Value::String(text) = item {
                        meta.frontmatter_links
                            .extend(frontmatter_link(format!("{key}.{index}"), text));
                    }
                }
            }
            _ => {}
        }
    }
    meta.frontmatter = Some(data);
}

fn frontmatter_link(key: String, value: &str) -> Option<FrontmatterLink> {
    let trimmed = js_trim(value);
    let inner = trimmed.strip_prefix("[[")?.strip_suffix("]]")?;
    if inner.is_empty() || inner.contains(['[', ']']) {
        return None;
    }
    let (linktext, display) = split_wikilink(inner);
    let link = js_trim(linktext);
    if link.is_empty() {
        return None;
    }
    Some(FrontmatterLink {
        key,
        link: link.to_string(),
        original: trimmed.to_string(),
        display_text: display.unwrap_or(linktext).to_string(),
    })
}

/// YAML as the plugin sees frontmatter, converted to the JSON JavaScript would hold: integral floats become
/// integers, non-finite numbers `null`, keys strings in JavaScript key order. `None` when it does not parse.
pub(crate) fn parse_yaml(text: &str) -> Option<Value> {
    let value: yaml_serde::Value = yaml_serde::from_str(text).ok()?;
    Some(yaml_to_json(value))
}

fn yaml_to_json(value: yaml_serde::Value) -> Value {
    match value {
        yaml_serde::Value::Null => Value::Null,
        yaml_serde::Value::Bool(b) => Value::Bool(b),
        yaml_serde::Value::Number(number) => {
            if let Some(i) = number.as_i64() {
                json!(i)
            } else if let Some(u) = number.as_u64() {
                json!(u)
            } else {
                let f = number.as_f64().unwrap_or(f64::NAN);
                if !f.is_finite() {
                    Value::Null
                } else if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
                    json!(f as i64)
                } else {
                    json!(f)
                }
            }
        }
        yaml_serde::Value::String(s) => Value::String(s),
        yaml_serde::Value::Sequence(items) => {
            Value::Array(items.into_iter().map(yaml_to_json).collect())
        }
        yaml_serde::Value::Mapping(mapping) => {
            let mut entries: Vec<(String, Value)> = Vec::new();
            for (key, value) in mapping {
                let key = match yaml_to_json(key) {
                    Value::String(s) => s,
                    Value::Null => String::new(),
                    other => other.to_string(),
                };
                insert_js_key(&mut entries, key, yaml_to_json(value));
            }
            Value::Object(entries.into_iter().collect())
        }
        yaml_serde::Value::Tagged(tagged) => yaml_to_json(tagged.value),
    }
}

/// Splits a list section into items with parents, tasks and extents.
fn read_list_items(
    lines: &[Line<'_>],
    start: usize,
    end: usize,
    out: &mut Vec<(ListItem, usize, usize)>,
) {
    let mut items: Vec<(usize, usize, Option<String>)> = Vec::new();
    for (i, line) in lines.iter().enumerate().take(end + 1).skip(start) {
        if let Some((indent, task)) = list_item(line.text) {
            items.push((i, indent, task));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn links(text: &str) -> Vec<String> {
        parse(text).links.into_iter().map(|l| l.link).collect()
    }

    #[test]
    fn wikilinks_split_display_and_keep_subpaths() {
        let meta = parse("see [[Note#Head|shown]] and [[a\\|b]] and [[ spaced ]] and [[]]");
        let found: Vec<(&str, &str)> = meta
            .links
            .iter()
            .map(|l| (l.link.as_str(), l.display_text.as_str()))
            .collect();
        assert_eq!(
            found,
            vec![("Note#Head", "shown"), ("a", "b"), ("spaced", " spaced ")]
        );
        assert_eq!(meta.links[0].original, "[[Note#Head|shown]]");
        assert_eq!(meta.links[0].position.start.col, 4);
    }

    #[test]
    fn embeds_are_separate_from_links() {
        let meta = parse("![[pic.png]] [[x]] ![alt](img%20one.png)");
        assert_eq!(
            meta.embeds
                .iter()
                .map(|l| l.link.as_str())
                .collect::<Vec<_>>(),
            vec!["pic.png", "img one.png"]
        );
        assert_eq!(meta.embeds[0].position.start.col, 0);
        assert_eq!(links("![[pic.png]] [[x]]"), vec!["x"]);
    }

    #[test]
    fn markdown_links_decode_and_skip_external_targets() {
        assert_eq!(
            links(
                "[a](My%20Note.md) [b](<Other Note.md>) [c](https://x.org/a) [d](mailto:me@x.org) [e](t.md \"title\")"
            ),
            vec!["My Note.md", "Other Note.md", "t.md"]
        );
        assert_eq!(links("[bad](100%zz.md)"), vec!["100%zz.md"]);
        assert_eq!(links("[nested [x]](n.md)"), vec!["n.md"]);
        assert_eq!(links("[p](f(1).md)"), vec!["f(1).md"]);
    }

    #[test]
    fn code_spans_and_fences_hide_links_tags_and_headings() {
        let text = "`[[no]]` ``[[no `x` too]]`` [[yes]] `#notag`\n```\n[[fenced]]\n# not heading\n```\n~~~~\n#x\n~~~~\n$$\n[[math]]\n$$\n#tag";
        let meta = parse(text);
        assert_eq!(
            meta.links
                .iter()
                .map(|l| l.link.as_str())
                .collect::<Vec<_>>(),
            vec!["yes"]
        );
        assert!(meta.headings.is_empty());
        assert_eq!(
            meta.tags.iter().map(|t| t.tag.as_str()).collect::<Vec<_>>(),
            vec!["#tag"]
        );
        let kinds: Vec<_> = meta.sections.iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            vec!["paragraph", "code", "code", "math", "paragraph"]
        );
    }

    #[test]
    fn unclosed_code_span_is_text_and_unclosed_fence_runs_to_the_end() {
        assert_eq!(links("`open [[a]]"), vec!["a"]);
        assert!(links("```js\n[[a]]").is_empty());
        assert_eq!(
            links("```js`\n[[a]]"),
            vec!["a"],
            "a backtick in the info string is not a fence"
        );
    }

    #[test]
    fn tags_follow_the_character_rules() {
        let meta =
            parse("#one two#no #123 #a/b-c_d #café, (#x) #ok! https://x.org/#frag [[n#h]] #日本");
        let tags: Vec<_> = meta.tags.iter().map(|t| t.tag.as_str()).collect();
        assert_eq!(tags, vec!["#one", "#a/b-c_d", "#café", "#ok", "#日本"]);
        let position = meta.tags.last().unwrap().position;
        assert_eq!(position.end.col - position.start.col, 3);
    }

    #[test]
    fn headings_are_atx_with_closing_runs_removed() {
        let meta = parse(
            "# One ##\n####### seven\n#nospace\n   ### Three #\n#### Hash#tag\n##\n    # four spaces",
        );
        let found: Vec<(usize, &str)> = meta
            .headings
            .iter()
            .map(|h| (h.level, h.heading.as_str()))
            .collect();
        assert_eq!(
            found,
            vec![(1, "One"), (3, "Three"), (4, "Hash#tag"), (2, "")]
        );
    }

    #[test]
    fn frontmatter_is_yaml_with_links_and_positions() {
        let text = "---\ntitle: T\nup: \"[[Parent|p]]\"\nrelated:\n  - \"[[A]]\"\n  - plain\nn: 1.0\n---\nbody";
        let meta = parse(text);
        let front = meta.frontmatter.unwrap();
        assert_eq!(front["title"], "T");
        assert_eq!(serde_json::to_string(&front["n"]).unwrap(), "1");
        let keys: Vec<_> = meta
            .frontmatter_links
            .iter()
            .map(|l| (l.key.as_str(), l.link.as_str()))
            .collect();
        assert_eq!(keys, vec![("up", "Parent"), ("related.0", "A")]);
        assert_eq!(meta.frontmatter_position.unwrap().end.line, 7);
        assert_eq!(meta.sections[0].kind, "yaml");
    }

    #[test]
    fn invalid_or_unclosed_frontmatter() {
        let meta = parse("---\n: [bad\n---\n# H");
        assert!(meta.frontmatter.is_none());
        assert!(meta.frontmatter_position.is_some());
        assert_eq!(meta.headings.len(), 1);
        assert!(parse("---\na: 1\n").frontmatter_position.is_none());
        assert_eq!(parse("---\n---\n").frontmatter, Some(Map::new()));
    }

    #[test]
    fn javascript_key_order_puts_index_keys_first() {
        let value = parse_yaml("b: 1\n2: x\na: 3\n1: y").unwrap();
        assert_eq!(
            serde_json::to_string(&value).unwrap(),
            r#"{"1":"y","2":"x","b":1,"a":3}"#
        );
    }

    #[test]
    fn positions_count_utf16_and_crlf() {
        let meta = parse("😀 x\r\n[[a]]");
        let start = meta.links[0].position.start;
        assert_eq!((start.line, start.col, start.offset), (1, 0, 6));
    }

    #[test]
    fn blocks_name_list_items_paragraphs_and_the_section_before_a_lone_id() {
        let text = "Para line one\nline two ^para\n\n- item ^Item1\n  - child\n\n> quote\n\n^quote\n\n# H ^head";
        let meta = parse(text);
        let ids: Vec<_> = meta
            .blocks
            .iter()
            .map(|(k, b)| {
                (
                    k.as_str(),
                    b.id.as_str(),
                    b.position.start.line,
                    b.position.end.line,
                )
            })
            .collect();
        assert_eq!(
            ids,
            vec![
                ("para", "para", 0, 1),
                ("item1", "Item1", 3, 3),
                ("quote", "quote", 6, 6),
                ("head", "head", 10, 10)
            ]
        );
        assert_eq!(meta.list_items.len(), 2);
        assert_eq!(meta.list_items[0].parent, -3);
        assert_eq!(meta.list_items[1].parent, 3);
        assert_eq!(meta.list_items[0].id.as_deref(), Some("Item1"));
    }

    #[test]
    fn sections_split_on_blank_lines_and_interruptions() {
        let text =
            "p1\np2\n- a\ncont\n\n| a | b |\n| - | - |\n| 1 | 2 |\n***\n> [!note]\n> x\ntext";
        let kinds: Vec<_> = parse(text)
            .sections
            .iter()
            .map(|s| (s.kind, s.position.start.line, s.position.end.line))
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("paragraph", 0, 1),
                ("list", 2, 3),
                ("table", 5, 7),
                ("thematicBreak", 8, 8),
                ("callout", 9, 11)
            ]
        );
    }

    #[test]
    fn tasks_are_read_from_list_items() {
        let meta = parse("- [ ] todo\n- [x] done\n- [link](x.md)\n1) [?] q");
        let tasks: Vec<_> = meta.list_items.iter().map(|i| i.task.clone()).collect();
        assert_eq!(
            tasks,
            vec![Some(" ".into()), Some("x".into()), None, Some("?".into())]
        );
    }
}

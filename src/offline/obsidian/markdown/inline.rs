//! Inline syntax within a line: code spans (masked first), wikilinks, Markdown links, bare URLs, tags and block ids.
//!
//! One scanner per inline rule of the fake's list, sharing the byte-level helpers above them (each needs the others'
//! masks).

use super::*;

#[derive(Default)]
pub(super) struct Found {
    pub(super) links: Vec<LinkRef>,
    pub(super) embeds: Vec<LinkRef>,
    pub(super) tags: Vec<TagRef>,
    pub(super) block_ids: Vec<(String, usize)>,
}

impl Found {
    /// Keeps a link, or an embed when it is one (`![[…]]`, `![…](…)`).
    fn reference(&mut self, is_embed: bool, reference: LinkRef) {
        if is_embed {
            self.embeds.push(reference);
        } else {
            self.links.push(reference);
        }
    }
}

/// Replaces bytes `[from, to)` with spaces of the same byte length, so offsets in the masked text stay valid.
pub(super) fn mask(text: &mut [u8], from: usize, to: usize) {
    text[from..to].fill(b' ');
}

/// Masks inline code spans: a run of N backticks up to the next run of exactly N backticks. Linear in the line: the
/// runs are listed once, and each length keeps a queue of its runs still ahead, so an opening run finds its closing
/// one without searching the rest of the line again (a line of unmatched runs cost its length squared).
pub(super) fn mask_code_spans(text: &mut [u8]) {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    // Runs of backticks, found a vector at a time (most lines have none).
    let mut i = 0;
    while let Some(found) = memchr::memchr(b'`', &text[i..]) {
        i += found;
        let start = i;
        while i < text.len() && text[i] == b'`' {
            i += 1;
        }
        runs.push((start, i));
    }
    if runs.is_empty() {
        return;
    }
    let mut ahead: std::collections::HashMap<usize, std::collections::VecDeque<usize>> =
        std::collections::HashMap::new();
    for (index, (start, end)) in runs.iter().enumerate() {
        ahead.entry(end - start).or_default().push_back(index);
    }
    let mut index = 0;
    while index < runs.len() {
        let (start, end) = runs[index];
        let queue = ahead.get_mut(&(end - start)).expect("every run is queued");
        queue.pop_front();
        let Some(&close) = queue.front() else {
            index += 1;
            continue;
        };
        mask(text, start, runs[close].1);
        // The runs inside the span are passed: drop them from their queues (each is at its queue's front by then).
        for &(from, to) in &runs[index + 1..=close] {
            if let Some(queue) = ahead.get_mut(&(to - from)) {
                queue.pop_front();
            }
        }
        index = close + 1;
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
pub(super) fn wikilink_at(text: &[u8], at: usize) -> Option<usize> {
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
pub(super) type Span = (usize, usize);

/// A markdown link `[text](target "title")` at `at` (the `[`): (end, text range, raw target).
pub(super) fn markdown_link_at(text: &[u8], at: usize) -> Option<(usize, Span, Span)> {
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
pub(super) fn link_tail(text: &[u8], at: usize) -> Option<usize> {
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

pub(super) fn starts_with_js_space(text: &[u8], at: usize) -> bool {
    decode_char(text, at).is_some_and(|(c, _)| is_js_space(c))
}

pub(super) fn skip_js_space(text: &[u8], mut at: usize) -> usize {
    while let Some((c, width)) = decode_char(text, at) {
        if !is_js_space(c) {
            break;
        }
        at += width;
    }
    at
}

pub(super) fn decode_char(text: &[u8], at: usize) -> Option<(char, usize)> {
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

pub(super) fn is_scheme_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')
}

/// Masks bare URLs (`scheme://…` up to whitespace, `<` or `>`).
pub(super) fn mask_bare_urls(text: &mut [u8]) {
    // Every bare URL holds a "://": most lines have none, and skip the scan of each run of letters.
    if memchr::memmem::find(text, b"://").is_none() {
        return;
    }
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

pub(super) fn url_char(text: &[u8], at: usize) -> bool {
    !matches!(text[at], b'<' | b'>') && !starts_with_js_space(text, at)
}

/// Characters a tag cannot hold besides whitespace: ASCII punctuation other than `_`, `-` and `/`.
pub(super) fn ends_tag(c: char) -> bool {
    is_js_space(c) || (c.is_ascii_punctuation() && !matches!(c, '_' | '-' | '/'))
}

/// Finds links, embeds, tags and a block id in one line of body text outside code blocks.
pub(super) fn scan_inline(lines: &[Line<'_>], line_number: usize, found: &mut Found) {
    let original = lines[line_number].text;
    // Every link and embed starts at a `[`, every tag at a `#`, a block id at a `^`: most lines of prose have none,
    // and cost no copy.
    if memchr::memchr3(b'[', b'#', b'^', original.as_bytes()).is_none() {
        return;
    }
    let has_link = memchr::memchr(b'[', original.as_bytes()).is_some();
    let mut text = original.as_bytes().to_vec();
    mask_code_spans(&mut text);
    if has_link {
        let masks = wikilinks(lines, line_number, &text, found);
        apply_masks(&mut text, &masks);
        let masks = markdown_links(lines, line_number, &text, found);
        apply_masks(&mut text, &masks);
    }

    mask_bare_urls(&mut text);
    let masked = masked_str(&text);

    // A tag is a `#` at the line's start or after a space, up to the character that ends it; a `#` inside a tag's
    // body is part of it (only `#` and `^` are looked at: the rest of a line is skipped a vector at a time).
    let mut body_end = 0;
    for index in memchr::memchr_iter(b'#', masked.as_bytes()) {
        let after_space = masked[..index].chars().next_back().is_none_or(is_js_space);
        if index < body_end || !after_space {
            continue;
        }
        let body_start = index + 1;
        body_end = masked[body_start..]
            .find(ends_tag)
            .map_or(masked.len(), |p| p + body_start);
        let body = &masked[body_start..body_end];
        if !body.is_empty() && !body.bytes().all(|b| b.is_ascii_digit()) {
            found.tags.push(TagRef {
                tag: original[index..body_end].to_string(),
                position: pos(lines, line_number, index, line_number, body_end),
            });
        }
    }

    let trimmed = js_trim_end(masked);
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

/// A line with parts blanked, as text: masking only ever writes ASCII spaces over whole characters, so the bytes are
/// still UTF-8 (checked with SIMD: a line with a link is checked two or three times).
fn masked_str(text: &[u8]) -> &str {
    simdutf8::basic::from_utf8(text).expect("masking keeps UTF-8")
}

/// Blanks each range of a line (whole characters: the result stays UTF-8).
fn apply_masks(text: &mut [u8], masks: &[(usize, usize)]) {
    for &(start, end) in masks {
        mask(text, start, end);
    }
}

/// The next `[` at or after `from` (found a vector at a time: a link scan tried every byte of a line), with where a
/// link or embed opening there starts: at the `!` before it when that is at or after `from`. (Trying from the `!` and
/// then from the `[` gives the same link or none, so only the `[` is tried.)
fn next_bracket(bytes: &[u8], from: usize) -> Option<(usize, bool, usize)> {
    let open = from + memchr::memchr(b'[', bytes.get(from..)?)?;
    let is_embed = open > from && bytes[open - 1] == b'!';
    Some((if is_embed { open - 1 } else { open }, is_embed, open))
}

/// The wikilinks and wikilink embeds of a line (its code spans masked) into `found`; the ranges to mask after them.
fn wikilinks(
    lines: &[Line<'_>],
    line_number: usize,
    text: &[u8],
    found: &mut Found,
) -> Vec<(usize, usize)> {
    let original = lines[line_number].text;
    // Like the fake, link and display text are read from the masked text (a code span inside a link is blanked).
    let scan = masked_str(text);
    let bytes = scan.as_bytes();
    let mut masks = Vec::new();
    let mut i = 0;
    while let Some((start, is_embed, open)) = next_bracket(bytes, i) {
        let Some(end) = wikilink_at(bytes, open) else {
            i = open + 1;
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
            found.reference(is_embed, reference);
            masks.push((start, end));
        }
        i = end;
    }
    masks
}

/// The Markdown links and image embeds of a line (code spans and wikilinks masked) into `found`; the ranges to mask.
fn markdown_links(
    lines: &[Line<'_>],
    line_number: usize,
    text: &[u8],
    found: &mut Found,
) -> Vec<(usize, usize)> {
    let original = lines[line_number].text;
    let scan = masked_str(text);
    let bytes = scan.as_bytes();
    let mut masks = Vec::new();
    let mut i = 0;
    while let Some((start, is_embed, open)) = next_bracket(bytes, i) {
        let Some((end, label, target)) = markdown_link_at(bytes, open) else {
            i = open + 1;
            continue;
        };
        masks.push((start, end));
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
            found.reference(is_embed, reference);
        }
        i = end;
    }
    masks
}

//! Where things are in a note, counted as JavaScript counts: 0-based lines, `col` and `offset` in UTF-16 code
//! units, a CRLF as two.

use crate::offline::text::utf16_len;

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

/// One line of the note: its text without the line break, and where it starts.
pub(super) struct Line<'a> {
    pub(super) text: &'a str,
    /// UTF-16 offset of the line's first unit in the note.
    pub(super) start: usize,
}

/// Lines as the fake's reader splits them: on "\n", a "\r" before it dropped, a final "\n" giving an empty last line.
pub(super) fn split_lines(content: &str) -> Vec<Line<'_>> {
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

pub(super) fn loc(lines: &[Line<'_>], line: usize, byte_col: usize) -> Loc {
    let col = utf16_len(&lines[line].text[..byte_col]);
    Loc {
        line,
        col,
        offset: lines[line].start + col,
    }
}

pub(super) fn pos(
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

pub(super) fn whole_lines(lines: &[Line<'_>], start: usize, end: usize) -> Pos {
    pos(lines, start, 0, end, lines[end].text.len())
}

pub(super) fn byte_offset_of_line(content: &str, line: usize) -> usize {
    if line == 0 {
        return 0;
    }
    content
        .match_indices('\n')
        .nth(line - 1)
        .map(|(index, _)| index + 1)
        .unwrap_or(content.len())
}

//! What is embedded of a note: one passage per heading section (the lines from a heading to the next heading of any
//! level), the lines before the first heading (properties included, as text) as a passage of their own, a section
//! longer than [`MAX_PASSAGE_CHARS`] cut at line ends into passages of about that size, and a short passage joined
//! with the next. Each passage's text
//! starts with the note's path and title and the section's heading chain, so that a section is found by the subject
//! its note is about as well as by its own words.
//!
//! Headings are the plugin's (`vault/sections.rs`: ATX headings outside code fences and the frontmatter), so the
//! heading a result names is one `read_note` finds.

use crate::offline::plugin::vault::lines::split_lines;
use crate::offline::plugin::vault::sections::{find_headings, frontmatter_range};

/// About the most characters of a note one passage holds: a static model's mean over more words says less of each.
pub(crate) const MAX_PASSAGE_CHARS: usize = 1500;
/// A passage with less of its own text than this is joined with the next (`merged`).
pub(crate) const MIN_PASSAGE_CHARS: usize = 400;

/// A part of a note to embed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Passage {
    /// The section's heading (empty before the first heading).
    pub(crate) heading: String,
    /// Its first and last lines, 1-based and inclusive (as `read_note`'s `start_line` and `end_line`).
    pub(crate) start_line: u32,
    pub(crate) end_line: u32,
    /// What is embedded.
    pub(crate) text: String,
}

/// The passages of a note's text.
pub(crate) fn passages(path: &str, text: &str) -> Vec<Passage> {
    let lines = split_lines(text);
    let headings = find_headings(&lines);
    let about = path.strip_suffix(".md").unwrap_or(path).replace('/', " / ");
    let mut out = Vec::new();
    let mut chain: Vec<(usize, &str)> = Vec::new();
    let first = headings.first().map_or(lines.len(), |heading| heading.line);
    let body_start = frontmatter_range(&lines).map_or(0, |range| range.end);
    // Properties are text to embed, but their fences are not.
    let top: Vec<&str> = lines[..first]
        .iter()
        .enumerate()
        .map(|(at, line)| {
            if at < body_start && line.trim_end() == "---" {
                ""
            } else {
                line
            }
        })
        .collect();
    add_section(&mut out, &about, "", "", 0, &top);
    for (at, heading) in headings.iter().enumerate() {
        while chain
            .last()
            .is_some_and(|(level, _)| *level >= heading.level)
        {
            chain.pop();
        }
        chain.push((heading.level, heading.text.as_str()));
        let end = headings.get(at + 1).map_or(lines.len(), |next| next.line);
        let trail = chain
            .iter()
            .map(|(_, text)| *text)
            .collect::<Vec<_>>()
            .join(" > ");
        add_section(
            &mut out,
            &about,
            &heading.text,
            &trail,
            heading.line,
            &lines[heading.line + 1..end],
        );
    }
    let mut out = merged(out, about.len());
    if out.is_empty() {
        // A note of headings alone, or empty: its path and title are still something to find it by.
        out.push(Passage {
            heading: String::new(),
            start_line: 1,
            end_line: lines.len().max(1) as u32,
            text: about,
        });
    }
    out
}

/// Joins a short passage (under [`MIN_PASSAGE_CHARS`] of its own text) with the one after it, while the two stay
/// within [`MAX_PASSAGE_CHARS`]: a heading with a line or two under it says little on its own to a mean of token
/// vectors, and every passage costs the index the same memory. The joined passage keeps the first one's heading and
/// spans both's lines. `about` is the length of the path line each passage's text starts with.
fn merged(passages: Vec<Passage>, about: usize) -> Vec<Passage> {
    let mut out: Vec<Passage> = Vec::with_capacity(passages.len());
    for passage in passages {
        if let Some(last) = out.last_mut() {
            let own = last.text.len().saturating_sub(about);
            let next = passage.text.len().saturating_sub(about);
            if own < MIN_PASSAGE_CHARS
                && own + next <= MAX_PASSAGE_CHARS
                && last.end_line + 1 == passage.start_line
            {
                last.end_line = passage.end_line;
                last.text
                    .push_str(&passage.text[about.min(passage.text.len())..]);
                continue;
            }
        }
        out.push(passage);
    }
    out
}

/// Adds a section's passages: `body` starts on the line after `first_line` when there is a heading (its chain
/// `trail`), else on `first_line` itself.
fn add_section(
    out: &mut Vec<Passage>,
    about: &str,
    heading: &str,
    trail: &str,
    first_line: usize,
    body: &[&str],
) {
    let offset = usize::from(!heading.is_empty());
    if body.iter().all(|line| line.trim().is_empty()) && heading.is_empty() {
        return;
    }
    let mut start = 0;
    loop {
        let mut end = start;
        let mut size = 0;
        while end < body.len() && (end == start || size + body[end].len() <= MAX_PASSAGE_CHARS) {
            size += body[end].len() + 1;
            end += 1;
        }
        let mut text = String::with_capacity(about.len() + trail.len() + size + 2);
        text.push_str(about);
        text.push('\n');
        text.push_str(trail);
        for line in &body[start..end] {
            text.push('\n');
            text.push_str(line);
        }
        // A heading's passage starts on its heading line, the rest of a long section where they begin.
        let first = if start == 0 {
            first_line
        } else {
            first_line + offset + start
        };
        out.push(Passage {
            heading: heading.to_owned(),
            start_line: first as u32 + 1,
            end_line: (first_line + offset + end).max(first + 1) as u32,
            text,
        });
        if end >= body.len() {
            return;
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> Vec<(String, u32, u32)> {
        passages("Plans/Q3 offsite.md", text)
            .into_iter()
            .map(|passage| (passage.heading, passage.start_line, passage.end_line))
            .collect()
    }

    /// A line of 400 characters, so that a section holding it is not joined with the next.
    fn filler() -> String {
        "lorem ".repeat(67)
    }

    #[test]
    fn each_heading_section_is_a_passage_with_its_lines() {
        let f = filler();
        let text = format!(
            "---\ntags: [plan]\n---\nIntro line {f}\n# Pricing\nWe chose a price. {f}\n\n## Tiers\nThree. {f}\n```\n# not a heading\n```\n# Travel\n"
        );
        assert_eq!(
            spans(&text),
            [
                (String::new(), 1, 4),
                ("Pricing".into(), 5, 7),
                ("Tiers".into(), 8, 12),
                ("Travel".into(), 13, 13),
            ]
        );
        let all = passages("Plans/Q3 offsite.md", &text);
        assert!(
            all[0].text.starts_with("Plans / Q3 offsite\n\n"),
            "{:?}",
            all[0].text
        );
        assert!(all[0].text.contains("tags: [plan]") && !all[0].text.contains("---"));
        assert!(
            all[2].text.contains("Pricing > Tiers\nThree."),
            "{:?}",
            all[2].text
        );
    }

    #[test]
    fn short_sections_are_joined_with_the_next_within_the_largest_size() {
        let f = filler();
        let text = format!("# A\nshort\n# B\nshort too\n# C\n{f}\n# D\n{f}\n{f}\n{f}\n# E\nlast\n");
        // A and B join C (all short until C's filler); D is long on its own; E, short, is last.
        assert_eq!(
            spans(&text),
            [
                ("A".into(), 1, 6),
                ("D".into(), 7, 10),
                ("E".into(), 11, 12)
            ]
        );
        let joined = &passages("n.md", &text)[0].text;
        assert!(
            joined.starts_with("n\nA\nshort\nB\nshort too\nC\n"),
            "{joined:?}"
        );
    }

    #[test]
    fn long_sections_are_cut_at_line_ends_and_empty_notes_keep_their_title() {
        let line = "word ".repeat(60);
        let text = format!("# Long\n{}", vec![line.as_str(); 20].join("\n"));
        let long = passages("a.md", &text);
        assert!(long.len() > 3, "{}", long.len());
        assert!(
            long.iter()
                .all(|passage| passage.text.len() < MAX_PASSAGE_CHARS + 400)
        );
        assert_eq!((long[0].start_line, long.last().unwrap().end_line), (1, 21));
        for pair in long.windows(2) {
            assert_eq!(pair[0].end_line + 1, pair[1].start_line);
        }
        assert_eq!(spans(""), [(String::new(), 1, 1)]);
        assert_eq!(passages("x/Only title.md", "")[0].text, "x / Only title");
    }
}

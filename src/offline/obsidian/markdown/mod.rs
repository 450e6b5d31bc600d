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

use crate::offline::js::{is_js_space, js_trim, js_trim_end, utf16_len};

mod blocks;
mod frontmatter;
mod inline;
mod position;
#[cfg(test)]
mod tests;

use blocks::*;
pub(crate) use frontmatter::parse_yaml;
use frontmatter::*;
use inline::*;
pub(crate) use position::Pos;
use position::*;

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

/// A heading: ATX (`## Text`) or setext (a line underlined with `=` or `-`).
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

/// Parses a note's text into its metadata (rules at the top of `markdown.cjs`).
pub(crate) fn parse(content: &str) -> NoteMetadata {
    let lines = split_lines(content);
    let mut meta = NoteMetadata::default();
    // Sections in document order; `lines` keeps their line span for the block rules.
    // Sized for a block per three lines or so: grown one at a time, it was copied four times a note.
    let mut sections: Vec<(Section, usize, usize)> = Vec::with_capacity(lines.len() / 3 + 4);
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
        read_frontmatter(frontmatter_text(content, &lines, end), &mut meta);
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
        if let Some(level) = current
            .filter(|&(open, start, _)| open == "paragraph" && start + 1 == i)
            .and_then(|_| setext_level(text))
        {
            current = None;
            meta.headings.push(HeadingRef {
                heading: js_trim(lines[i - 1].text).to_string(),
                level,
                position: whole_lines(&lines, i - 1, i),
            });
            sections.push((
                Section {
                    kind: "heading",
                    position: whole_lines(&lines, i - 1, i),
                    id: None,
                },
                i - 1,
                i,
            ));
            i += 1;
            continue;
        }
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
    // Items in quotes are kept apart until the block ids are placed: a block id in a quote names the quote.
    let mut items: Vec<(ListItem, usize, usize)> = Vec::new();
    let mut quoted: Vec<(ListItem, usize, usize)> = Vec::new();
    for (section, start, end) in &sections {
        match section.kind {
            "list" => read_list_items(&lines, (*start, *end), false, &mut items),
            "blockquote" | "callout" => read_list_items(&lines, (*start, *end), true, &mut quoted),
            _ => {}
        }
    }

    // List items and sections are each in line order and never overlap: the one holding a line is found by halving.
    let mut blocks = JsObject::new();
    for (id, line) in &found.block_ids {
        let item = items
            .partition_point(|(_, start, _)| *start <= *line)
            .checked_sub(1)
            .filter(|&index| *line <= items[index].2);
        let section = sections
            .partition_point(|(s, _, _)| s.position.start.line <= *line)
            .checked_sub(1)
            .filter(|&index| *line <= sections[index].0.position.end.line);
        let position = if let Some(item) = item {
            let item = &mut items[item].0;
            item.id = Some(id.clone());
            item.position
        } else if let Some(index) = section {
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
        blocks.insert(
            id.to_lowercase(),
            Block {
                id: id.clone(),
                position,
            },
        );
    }
    meta.blocks = blocks.into_entries();

    meta.links = found.links;
    meta.embeds = found.embeds;
    meta.tags = found.tags;
    meta.sections = sections
        .into_iter()
        .map(|(section, _, _)| section)
        .collect();
    if !quoted.is_empty() {
        items.extend(quoted);
        items.sort_by_key(|(_, start, _)| *start);
    }
    meta.list_items = items.into_iter().map(|(item, _, _)| item).collect();
    meta
}

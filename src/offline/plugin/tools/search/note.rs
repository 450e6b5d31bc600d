//! A word-mode query tested on one note (plugin: `src/vault/query/match.ts`): its path, file name, text, lines and
//! the metadata Obsidian's cache would hold (sections, headings, tasks, tags, frontmatter), parsed only when an
//! operator asks for it. Also which atoms are the query's `terms`, and the line a result shows.

use std::cell::OnceCell;

use serde_json::{Map, Value};

use crate::offline::obsidian::markdown::{self, NoteMetadata};
use crate::offline::obsidian::metadata::Note;
use crate::offline::obsidian::properties::{frontmatter_aliases, note_tags};
use crate::offline::plugin::vault::lines::split_lines;
use crate::offline::plugin::vault::links::tag_matches;

use super::query::{Atom, AtomKind, Field, Node, Query, Scope};

/// A note as a query sees it. What the index keeps of it (frontmatter, tags, tasks) is taken from there; the text is
/// parsed again only for what the index does not keep (sections, headings).
pub(super) struct NoteView<'t> {
    pub(super) path: &'t str,
    pub(super) text: &'t str,
    indexed: Option<&'t Note>,
    lines: OnceCell<Vec<&'t str>>,
    meta: OnceCell<NoteMetadata>,
    frontmatter: OnceCell<Option<Map<String, Value>>>,
    tags: OnceCell<Vec<String>>,
}

/// What an atom is tested on.
#[derive(Clone, Copy)]
enum Texts<'a> {
    /// The note's path or its text.
    Note,
    One(&'a str),
}

impl<'t> NoteView<'t> {
    pub(super) fn new(path: &'t str, text: &'t str, indexed: Option<&'t Note>) -> Self {
        NoteView {
            path,
            text,
            indexed,
            lines: OnceCell::new(),
            meta: OnceCell::new(),
            frontmatter: OnceCell::new(),
            tags: OnceCell::new(),
        }
    }

    fn frontmatter(&self) -> Option<&Map<String, Value>> {
        self.frontmatter
            .get_or_init(|| match self.indexed {
                Some(note) => note.frontmatter(),
                None => self.meta().frontmatter.clone(),
            })
            .as_ref()
    }

    /// The lines, each without its `\r`.
    pub(super) fn lines(&self) -> &[&'t str] {
        self.lines.get_or_init(|| {
            split_lines(self.text)
                .into_iter()
                .map(|line| line.strip_suffix('\r').unwrap_or(line))
                .collect()
        })
    }

    pub(super) fn meta(&self) -> &NoteMetadata {
        self.meta.get_or_init(|| markdown::parse(self.text))
    }

    fn name(&self) -> &'t str {
        self.path.rsplit('/').next().unwrap_or(self.path)
    }

    /// The file name without its extension (`TFile.basename`).
    pub(super) fn title(&self) -> &'t str {
        let name = self.name();
        name.rsplit_once('.').map_or(name, |(stem, _)| stem)
    }

    /// The aliases joined by a line break, as ranking weighs them.
    pub(super) fn aliases(&self) -> String {
        // Without the key, nothing to parse.
        if let Some(note) = self.indexed
            && self.frontmatter.get().is_none()
            && !note.has_aliases()
        {
            return String::new();
        }
        frontmatter_aliases(self.frontmatter()).join("\n")
    }

    fn join(&self, from: usize, to: usize) -> String {
        let lines = self.lines();
        lines[from.min(lines.len())..to.min(lines.len())].join("\n")
    }

    /// The units a scope operator tests, each as its lines joined by `\n`.
    fn units(&self, scope: Scope) -> Vec<String> {
        let lines = self.lines();
        match scope {
            Scope::Line => lines.iter().map(|line| (*line).to_string()).collect(),
            Scope::Block => self
                .meta()
                .sections
                .iter()
                .map(|section| {
                    self.join(section.position.start.line, section.position.end.line + 1)
                })
                .collect(),
            Scope::Section => {
                let starts: Vec<usize> = self
                    .meta()
                    .headings
                    .iter()
                    .map(|heading| heading.position.start.line)
                    .collect();
                let mut units = Vec::new();
                if starts.first().is_none_or(|&first| first > 0) {
                    units.push(self.join(0, starts.first().copied().unwrap_or(lines.len())));
                }
                for (at, &start) in starts.iter().enumerate() {
                    let end = starts.get(at + 1).copied().unwrap_or(lines.len());
                    units.push(self.join(start, end));
                }
                units
            }
            Scope::Task | Scope::TaskTodo | Scope::TaskDone => {
                let tasks: Vec<(usize, String)> = match self.indexed {
                    Some(note) => note
                        .tasks()
                        .into_iter()
                        .map(|task| (task.line, task.status.to_string()))
                        .collect(),
                    None => self
                        .meta()
                        .list_items
                        .iter()
                        .filter_map(|item| Some((item.position.start.line, item.task.clone()?)))
                        .collect(),
                };
                tasks
                    .into_iter()
                    .filter(|(_, status)| match scope {
                        Scope::Task => true,
                        Scope::TaskTodo => status == " ",
                        _ => status != " ",
                    })
                    .map(|(line, _)| self.join(line, line + 1))
                    .collect()
            }
        }
    }

    fn tags(&self) -> &[String] {
        self.tags.get_or_init(|| match self.indexed {
            Some(note) => note.tags().into_iter().map(str::to_string).collect(),
            None => note_tags(Some(self.meta())),
        })
    }

    /// The values of the properties named `name` (ignoring case), as the text a value query tests.
    fn property(&self, name: &str) -> Option<Vec<String>> {
        let frontmatter = self.frontmatter()?;
        let wanted = name.to_lowercase();
        let mut found = false;
        let mut values = Vec::new();
        for (key, value) in frontmatter {
            if key.to_lowercase() != wanted {
                continue;
            }
            found = true;
            match value {
                Value::Array(items) => values.extend(items.iter().filter_map(value_text)),
                other => values.extend(value_text(other)),
            }
        }
        found.then_some(values)
    }
}

/// A property value as text: strings as written, numbers and booleans as JavaScript's `String` writes them.
fn value_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Number(_) => Some(crate::offline::js::js_number(value.as_f64()?).to_string()),
        _ => None,
    }
}

/// Whether an atom matches the texts.
fn atom_matches(atom: &Atom, note: &NoteView<'_>, texts: Texts<'_>) -> bool {
    match texts {
        Texts::Note => atom.matcher.matches(note.path) || atom.matcher.matches(note.text),
        Texts::One(text) => atom.matcher.matches(text),
    }
}

fn eval(query: &Query, node: &Node, note: &NoteView<'_>, texts: Texts<'_>) -> bool {
    match node {
        Node::And(nodes) => nodes.iter().all(|node| eval(query, node, note, texts)),
        Node::Or(nodes) => nodes.iter().any(|node| eval(query, node, note, texts)),
        Node::Not(node) => !eval(query, node, note, texts),
        Node::Atom(at) => atom_matches(&query.atoms[*at], note, texts),
        Node::Field(field, node) => {
            let text = match field {
                Field::File => note.name(),
                Field::Path => note.path,
                Field::Content => note.text,
            };
            eval(query, node, note, Texts::One(text))
        }
        Node::Scope(scope, node) => note
            .units(*scope)
            .iter()
            .any(|unit| eval(query, node, note, Texts::One(unit))),
        Node::Tag(name) => note.tags().iter().any(|tag| tag_matches(tag, name)),
        Node::Property(name, value) => match (note.property(name), value) {
            (None, _) => false,
            (Some(_), None) => true,
            // Item by item: one value (or one item of a list) must match the whole value query.
            (Some(values), Some(value)) => values
                .iter()
                .any(|item| eval(query, value, note, Texts::One(item))),
        },
    }
}

/// With `match: "any"`, the top level's plain words and phrases are optional (a note needs one of them, not all):
/// the top level's nodes, when one of them is. Asked for every note, so it allocates nothing.
fn with_optional(query: &Query) -> Option<&[Node]> {
    let Node::And(nodes) = &query.root else {
        return None;
    };
    nodes
        .iter()
        .any(|node| is_optional(query, node))
        .then_some(&nodes[..])
}

/// Whether a top-level node is optional with `match: "any"`: a plain word or phrase.
fn is_optional(query: &Query, node: &Node) -> bool {
    matches!(node, Node::Atom(at) if query.atoms[*at].kind != AtomKind::Regex)
}

/// Whether a note matches the query.
pub(super) fn qualifies(query: &Query, any: bool, note: &NoteView<'_>) -> bool {
    if any && let Some(nodes) = with_optional(query) {
        let holds = |node: &Node| eval(query, node, note, Texts::Note);
        return nodes
            .iter()
            .filter(|node| !is_optional(query, node))
            .all(holds)
            && nodes
                .iter()
                .filter(|node| is_optional(query, node))
                .any(holds);
    }
    eval(query, &query.root, note, Texts::Note)
}

/// Whether a note matches, from what is known without its text: `holds(atom, content_only)` says whether an atom
/// occurs in the note's text (or, unless `content_only`, its path): `Some(true)` surely, `Some(false)` surely not,
/// `None` perhaps. The answer is `Some` only when that settles it, and `Some(false)` means the note cannot match.
pub(super) fn decide(
    query: &Query,
    any: bool,
    holds: &dyn Fn(usize, bool) -> Option<bool>,
) -> Option<bool> {
    fn all(nodes: impl Iterator<Item = Option<bool>>) -> Option<bool> {
        let mut sure = true;
        for known in nodes {
            match known {
                Some(false) => return Some(false),
                None => sure = false,
                Some(true) => {}
            }
        }
        sure.then_some(true)
    }
    fn one(nodes: impl Iterator<Item = Option<bool>>) -> Option<bool> {
        all(nodes.map(|known| known.map(|found| !found))).map(|none| !none)
    }
    /// `in_unit`: inside a scope, where what holds is a unit's text: a word the note lacks no unit has, but one the
    /// note holds need not be in every unit.
    fn known(
        query: &Query,
        node: &Node,
        content_only: bool,
        in_unit: bool,
        holds: &dyn Fn(usize, bool) -> Option<bool>,
    ) -> Option<bool> {
        let each = |node: &Node| known(query, node, content_only, in_unit, holds);
        match node {
            Node::And(nodes) => all(nodes.iter().map(each)),
            Node::Or(nodes) => one(nodes.iter().map(each)),
            Node::Not(node) => known(query, node, content_only, in_unit, holds).map(|found| !found),
            Node::Atom(at) if query.atoms[*at].kind == AtomKind::Regex => None,
            Node::Atom(at) => holds(*at, content_only).filter(|found| !in_unit || !found),
            Node::Field(Field::Content, node) => known(query, node, true, in_unit, holds),
            // Some unit must match: when none can, neither can the note; nothing else is known without the units.
            Node::Scope(_, node) => known(query, node, true, true, holds).filter(|found| !found),
            Node::Field(..) | Node::Tag(_) | Node::Property(..) => None,
        }
    }
    if any && let Some(nodes) = with_optional(query) {
        let each = |node: &Node| known(query, node, false, false, holds);
        let (required, optional) = (
            nodes.iter().filter(|node| !is_optional(query, node)),
            nodes.iter().filter(|node| is_optional(query, node)),
        );
        return all([all(required.map(each)), one(optional.map(each))].into_iter());
    }
    known(query, &query.root, false, false, holds)
}

/// The query's `terms`: its atoms that are not excluded and look at the text, once each, in order.
pub(super) fn terms(query: &Query) -> Vec<usize> {
    fn walk(query: &Query, node: &Node, negated: bool, out: &mut Vec<usize>) {
        match node {
            Node::And(nodes) | Node::Or(nodes) => nodes
                .iter()
                .for_each(|node| walk(query, node, negated, out)),
            Node::Not(node) => walk(query, node, !negated, out),
            Node::Atom(at) => {
                let atom = &query.atoms[*at];
                // Once per written text: the first one's case rule stands.
                let seen = out
                    .iter()
                    .any(|&other| query.atoms[other].written == atom.written);
                if !negated && !seen {
                    out.push(*at);
                }
            }
            Node::Field(Field::Content, node) | Node::Scope(_, node) => {
                walk(query, node, negated, out)
            }
            Node::Field(..) | Node::Tag(_) | Node::Property(..) => {}
        }
    }
    let mut out = Vec::new();
    walk(query, &query.root, false, &mut out);
    out
}

/// How many of `terms` the note holds in its path or text.
pub(super) fn terms_matched(query: &Query, terms: &[usize], note: &NoteView<'_>) -> usize {
    terms
        .iter()
        .filter(|&&at| atom_matches(&query.atoms[at], note, Texts::Note))
        .count()
}

/// Where a line shows a term: the first occurrence of the first of `terms` it holds (UTF-16 index).
pub(super) fn hit(query: &Query, terms: &[usize], line: &str) -> Option<usize> {
    terms
        .iter()
        .find_map(|&at| query.atoms[at].matcher.find(line))
}

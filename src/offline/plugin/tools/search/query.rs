//! Obsidian's search syntax as `search` reads it in word mode (plugin: `src/vault/query/parse.ts`; the rules are in
//! `obsidian-plugin/src/tools/README.md`, search): words, `"phrases"`, `/regexes/`, `OR`, `-`, `( … )`, the
//! operators and `[property:value]`, parsed left to right into a tree whose leaves (atoms) are numbered in order.
//! The first error met is the one reported, with its position in UTF-16 units as the plugin counts them.

use crate::offline::js::js_trim;
use crate::offline::plugin::tools::ToolError;

use super::phrase::Matcher;

/// A node of a parsed query.
#[derive(Debug)]
pub(super) enum Node {
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
    /// A word, phrase or regex: an index into [`Query::atoms`].
    Atom(usize),
    /// `file:`, `path:` or `content:`: the operand tested on that part of the note.
    Field(Field, Box<Node>),
    /// `line:`, `block:`, `section:` and the task operators: the operand tested on each unit of the note.
    Scope(Scope, Box<Node>),
    /// `tag:NAME`, the name as written (with or without `#`).
    Tag(String),
    /// `[name]` or `[name:value]`.
    Property(String, Option<Box<Node>>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    File,
    Path,
    Content,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    Line,
    Block,
    Section,
    Task,
    TaskTodo,
    TaskDone,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AtomKind {
    Word,
    Phrase,
    Regex,
}

/// A word, phrase or regex of the query.
pub(super) struct Atom {
    pub(super) kind: AtomKind,
    /// As written in the query (a phrase with its quotes, a regex with its slashes).
    pub(super) written: String,
    /// What it looks for: the word, the phrase unescaped, or the pattern.
    pub(super) text: String,
    pub(super) matcher: Matcher,
}

impl std::fmt::Debug for Atom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} {}", self.kind, self.written)
    }
}

/// A parsed query: its tree and its atoms.
#[derive(Debug)]
pub(super) struct Query {
    pub(super) root: Node,
    pub(super) atoms: Vec<Atom>,
}

/// Operators, longest first where one name starts another.
const OPERATORS: [&str; 12] = [
    "match-case",
    "ignore-case",
    "task-todo",
    "task-done",
    "content",
    "section",
    "block",
    "line",
    "task",
    "file",
    "path",
    "tag",
];

/// The whitespace that separates terms.
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | '\u{0C}' | '\u{0B}')
}

const HINT: &str = "; pass mode \"phrase\" to search for the text as written";

fn invalid(what: String) -> ToolError {
    ToolError(format!("invalid query: {what}{HINT}"))
}

/// Parses a word-mode query.
pub(super) fn parse(query: &str, case_sensitive: bool) -> Result<Query, ToolError> {
    let chars: Vec<char> = query.chars().collect();
    let mut utf16 = Vec::with_capacity(chars.len() + 1);
    let mut at = 0;
    for c in &chars {
        utf16.push(at);
        at += c.len_utf16();
    }
    utf16.push(at);
    let mut parser = Parser {
        chars,
        utf16,
        at: 0,
        atoms: Vec::new(),
        case_sensitive,
    };
    let root = parser.or(false)?;
    parser.skip_space();
    if parser.at < parser.chars.len() {
        // Only a `)` stops the top level early.
        return Err(invalid(format!(
            "unexpected ) at position {}",
            parser.position(parser.at)
        )));
    }
    let Some(root) = root else {
        return Err(ToolError("invalid query: nothing to search for".into()));
    };
    Ok(Query {
        root,
        atoms: parser.atoms,
    })
}

struct Parser {
    chars: Vec<char>,
    /// The UTF-16 offset of each character, and the length at the end.
    utf16: Vec<usize>,
    at: usize,
    atoms: Vec<Atom>,
    /// The case rule for atoms read now (`match-case:` and `ignore-case:` change it for their operand).
    case_sensitive: bool,
}

impl Parser {
    fn position(&self, at: usize) -> usize {
        self.utf16[at] + 1
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.at += 1;
        }
    }

    /// Whether a character ends a word here (inside `[…]` a `]` does too).
    fn ends_word(c: char, in_bracket: bool) -> bool {
        is_space(c) || matches!(c, '(' | ')' | '"') || (in_bracket && c == ']')
    }

    /// Where the word starting at `from` ends.
    fn word_end(&self, from: usize, in_bracket: bool) -> usize {
        let mut end = from;
        while self
            .chars
            .get(end)
            .is_some_and(|&c| !Self::ends_word(c, in_bracket))
        {
            end += 1;
        }
        end
    }

    /// Whether the term here is the `OR` operator.
    fn at_or(&self, in_bracket: bool) -> bool {
        self.word_end(self.at, in_bracket) == self.at + 2
            && self.chars[self.at] == 'O'
            && self.chars[self.at + 1] == 'R'
    }

    /// Whether nothing that can start a term is here.
    fn at_stop(&self, in_bracket: bool) -> bool {
        match self.peek() {
            None => true,
            Some(c) => c == ')' || (in_bracket && c == ']'),
        }
    }

    /// `and ("OR" and)*`; `None` when no term stands here.
    fn or(&mut self, in_bracket: bool) -> Result<Option<Node>, ToolError> {
        self.skip_space();
        if !self.at_stop(in_bracket) && self.at_or(in_bracket) {
            return Err(self.or_without_sides(self.at));
        }
        let Some(first) = self.and(in_bracket)? else {
            return Ok(None);
        };
        let mut alternatives = vec![first];
        loop {
            self.skip_space();
            if self.at_stop(in_bracket) || !self.at_or(in_bracket) {
                break;
            }
            let or_at = self.at;
            self.at += 2;
            match self.and(in_bracket)? {
                Some(next) => alternatives.push(next),
                None => return Err(self.or_without_sides(or_at)),
            }
        }
        Ok(Some(if alternatives.len() == 1 {
            alternatives.pop().expect("one alternative")
        } else {
            Node::Or(alternatives)
        }))
    }

    fn or_without_sides(&self, at: usize) -> ToolError {
        invalid(format!(
            "OR at position {} needs a term on each side",
            self.position(at)
        ))
    }

    /// One or more terms side by side.
    fn and(&mut self, in_bracket: bool) -> Result<Option<Node>, ToolError> {
        let mut terms = Vec::new();
        loop {
            self.skip_space();
            if self.at_stop(in_bracket) || self.at_or(in_bracket) {
                break;
            }
            terms.push(self.unary(in_bracket)?);
        }
        Ok(match terms.len() {
            0 => None,
            1 => terms.pop(),
            _ => Some(Node::And(terms)),
        })
    }

    fn unary(&mut self, in_bracket: bool) -> Result<Node, ToolError> {
        if self.peek() == Some('-') {
            let minus = self.at;
            self.at += 1;
            if self
                .peek()
                .is_none_or(|c| is_space(c) || c == ')' || (in_bracket && c == ']'))
            {
                return Err(invalid(format!(
                    "- at position {} excludes nothing",
                    self.position(minus)
                )));
            }
            return Ok(Node::Not(Box::new(self.unary(in_bracket)?)));
        }
        self.primary(in_bracket)
    }

    fn primary(&mut self, in_bracket: bool) -> Result<Node, ToolError> {
        match self.peek() {
            Some('(') => self.group(in_bracket),
            Some('"') => self.phrase(),
            Some('/') => self.regex(),
            // `[[` starts a link's text, never a property (no property name starts with `[`).
            Some('[') if !in_bracket && self.chars.get(self.at + 1) != Some(&'[') => {
                self.property()
            }
            _ => self.word_or_operator(in_bracket),
        }
    }

    fn group(&mut self, in_bracket: bool) -> Result<Node, ToolError> {
        let open = self.at;
        self.at += 1;
        let inner = self.or(in_bracket)?;
        self.skip_space();
        if self.peek() != Some(')') {
            return Err(invalid(format!(
                "the parenthesis at position {} is never closed",
                self.position(open)
            )));
        }
        self.at += 1;
        inner.ok_or_else(|| {
            invalid(format!(
                "empty parentheses at position {}",
                self.position(open)
            ))
        })
    }

    /// Reads up to the closing `close`, unescaping `\close` (and `\\` in a phrase); `None` when it never closes.
    fn delimited(&mut self, close: char, unescape_backslash: bool) -> Option<String> {
        let mut text = String::new();
        let mut at = self.at + 1;
        loop {
            let c = *self.chars.get(at)?;
            if c == close {
                self.at = at + 1;
                return Some(text);
            }
            // A backslash and the character after it are read as a pair, so `\\` before the closing character never
            // escapes it; only `\close` (and `\\` in a phrase) lose their backslash.
            if c == '\\'
                && let Some(&next) = self.chars.get(at + 1)
            {
                if next != close && !(unescape_backslash && next == '\\') {
                    text.push(c);
                }
                text.push(next);
                at += 2;
                continue;
            }
            text.push(c);
            at += 1;
        }
    }

    fn phrase(&mut self) -> Result<Node, ToolError> {
        let start = self.at;
        let Some(text) = self.delimited('"', true) else {
            return Err(invalid(format!(
                "the quote at position {} is never closed",
                self.position(start)
            )));
        };
        if text.is_empty() {
            return Err(invalid(format!(
                "the phrase at position {} is empty",
                self.position(start)
            )));
        }
        self.atom(AtomKind::Phrase, start, text)
    }

    fn regex(&mut self) -> Result<Node, ToolError> {
        let start = self.at;
        let Some(pattern) = self.delimited('/', false) else {
            return Err(invalid(format!(
                "the regular expression at position {} has no closing /",
                self.position(start)
            )));
        };
        let position = self.position(start);
        if pattern.is_empty() {
            return Err(invalid(format!(
                "the regular expression at position {position} is empty"
            )));
        }
        let matcher = Matcher::pattern(&pattern, self.case_sensitive).map_err(|reason| {
            invalid(format!(
                "the regular expression at position {position} cannot be used: {reason}"
            ))
        })?;
        Ok(self.push_atom(AtomKind::Regex, start, pattern, matcher))
    }

    /// A word or phrase: the literal `text`.
    fn atom(&mut self, kind: AtomKind, start: usize, text: String) -> Result<Node, ToolError> {
        let matcher = Matcher::new(&text, false, self.case_sensitive)?;
        Ok(self.push_atom(kind, start, text, matcher))
    }

    fn push_atom(&mut self, kind: AtomKind, start: usize, text: String, matcher: Matcher) -> Node {
        let written: String = self.chars[start..self.at].iter().collect();
        self.atoms.push(Atom {
            kind,
            written,
            text,
            matcher,
        });
        Node::Atom(self.atoms.len() - 1)
    }

    fn word_or_operator(&mut self, in_bracket: bool) -> Result<Node, ToolError> {
        let start = self.at;
        let end = self.word_end(start, in_bracket);
        let word: String = self.chars[start..end].iter().collect();
        let operator = OPERATORS
            .iter()
            .find(|name| word.starts_with(*name) && word[name.len()..].starts_with(':'));
        let Some(&name) = operator else {
            self.at = end;
            // Without the sentence punctuation that ends it in a question ("build," finds "build"), unless the word is
            // nothing else.
            let text = match word.trim_end_matches([',', ';', ':', '!', '?', '.']) {
                "" => word.clone(),
                text => text.to_string(),
            };
            return self.atom(AtomKind::Word, start, text);
        };
        self.at = start + name.chars().count() + 1;
        if self
            .peek()
            .is_none_or(|c| is_space(c) || c == ')' || (in_bracket && c == ']'))
        {
            return Err(invalid(format!(
                "{name}: at position {} needs a term after it",
                self.position(start)
            )));
        }
        let field = |field: Field, operand: Node| Node::Field(field, Box::new(operand));
        let scope = |scope: Scope, operand: Node| Node::Scope(scope, Box::new(operand));
        Ok(match name {
            "match-case" | "ignore-case" => {
                let outer = self.case_sensitive;
                self.case_sensitive = name == "match-case";
                let operand = self.primary(in_bracket);
                self.case_sensitive = outer;
                // Wrapped, so that `match: "any"` keeps it required as the operator it is.
                Node::And(vec![operand?])
            }
            "tag" => {
                if matches!(self.peek(), Some('(' | '/')) {
                    return Err(invalid(format!(
                        "tag: at position {} takes a tag name, not a group or a regular expression",
                        self.position(start)
                    )));
                }
                let name = if self.peek() == Some('"') {
                    let quote = self.at;
                    self.delimited('"', true).ok_or_else(|| {
                        invalid(format!(
                            "the quote at position {} is never closed",
                            self.position(quote)
                        ))
                    })?
                } else {
                    let end = self.word_end(self.at, in_bracket);
                    let name: String = self.chars[self.at..end].iter().collect();
                    self.at = end;
                    name
                };
                Node::Tag(name)
            }
            "file" => field(Field::File, self.primary(in_bracket)?),
            "path" => field(Field::Path, self.primary(in_bracket)?),
            "content" => field(Field::Content, self.primary(in_bracket)?),
            "line" => scope(Scope::Line, self.primary(in_bracket)?),
            "block" => scope(Scope::Block, self.primary(in_bracket)?),
            "section" => scope(Scope::Section, self.primary(in_bracket)?),
            "task" => scope(Scope::Task, self.primary(in_bracket)?),
            "task-todo" => scope(Scope::TaskTodo, self.primary(in_bracket)?),
            _ => scope(Scope::TaskDone, self.primary(in_bracket)?),
        })
    }

    fn property(&mut self) -> Result<Node, ToolError> {
        let open = self.at;
        let never_closed = |parser: &Self| {
            invalid(format!(
                "the [ at position {} is never closed",
                parser.position(open)
            ))
        };
        let mut at = open + 1;
        while self.chars.get(at).is_some_and(|&c| c != ':' && c != ']') {
            at += 1;
        }
        let Some(&stop) = self.chars.get(at) else {
            return Err(never_closed(self));
        };
        let name: String = self.chars[open + 1..at].iter().collect();
        let name = js_trim(&name).to_string();
        if name.is_empty() {
            return Err(invalid(format!(
                "[ at position {} names no property",
                self.position(open)
            )));
        }
        self.at = at + 1;
        if stop == ']' {
            return Ok(Node::Property(name, None));
        }
        let value = self.or(true)?;
        self.skip_space();
        if self.peek() != Some(']') {
            return Err(never_closed(self));
        }
        self.at += 1;
        Ok(Node::Property(name, value.map(Box::new)))
    }
}

#[cfg(test)]
#[path = "query_tests.rs"]
mod tests;

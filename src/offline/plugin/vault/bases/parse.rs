//! The Bases expression language's tokens and syntax (`vault/bases-parse.ts`): the same subset, the same refusals,
//! positions counted in UTF-16 units as JavaScript counts them. Both parsers refuse an expression that nests deeper
//! than [`MAX_NESTING`] levels (brackets, operands of operators, targets of methods): the evaluator and the tree's
//! drop recurse once per level, and a base in a synced vault is data an agent did not write.

use crate::offline::plugin::tools::ToolError;
use crate::offline::plugin::vault::paths::quote;

use super::value::Value;

#[derive(Debug, Clone)]
pub(crate) enum Expr {
    Lit(Value),
    List(Vec<Expr>),
    Name(Vec<String>),
    Unary(char, Box<Expr>),
    Binary(String, Box<Expr>, Box<Expr>),
    Call(Vec<String>, Vec<Expr>),
    Method(Box<Expr>, String, Vec<Expr>),
    Member(Box<Expr>, String),
    /// `list[0]`.
    Index(Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Num,
    Str,
    Id,
    Op,
}

#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    text: String,
    /// Where it starts, in UTF-16 units.
    at: usize,
}

fn tokenize(source: &str) -> Result<Vec<Token>, ToolError> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut at = 0; // UTF-16 position of chars[i]
    let width = |c: char| c.len_utf16();
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, ' ' | '\t' | '\n' | '\r') {
            at += 1;
            i += 1;
            continue;
        }
        let start = at;
        if c.is_ascii_digit() || c.is_ascii_alphabetic() || c == '_' {
            let number = c.is_ascii_digit();
            let mut text = take_while(&chars, &mut i, |c| {
                if number {
                    c.is_ascii_digit()
                } else {
                    c.is_ascii_alphanumeric() || c == '_'
                }
            });
            if number && i + 1 < chars.len() && chars[i] == '.' && chars[i + 1].is_ascii_digit() {
                i += 1;
                text.push('.');
                text.push_str(&take_while(&chars, &mut i, |c| c.is_ascii_digit()));
            }
            // Digits, letters and "_" are one UTF-16 unit each.
            at += text.len();
            let kind = if number { Kind::Num } else { Kind::Id };
            tokens.push(Token {
                kind,
                text,
                at: start,
            });
            continue;
        }
        if c == '"' || c == '\'' {
            let mut text = String::new();
            let mut j = i + 1;
            let mut pos = at + 1;
            while j < chars.len() && chars[j] != c {
                if chars[j] == '\\' && j + 1 < chars.len() {
                    pos += 1;
                    j += 1;
                    text.push(match chars[j] {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                } else {
                    text.push(chars[j]);
                }
                pos += width(chars[j]);
                j += 1;
            }
            if j >= chars.len() {
                return Err(ToolError(format!(
                    "unterminated string at character {}",
                    start + 1
                )));
            }
            tokens.push(Token {
                kind: Kind::Str,
                text,
                at: start,
            });
            at = pos + 1;
            i = j + 1;
            continue;
        }
        let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        let op = if ["==", "!=", "<=", ">=", "&&", "||"].contains(&two.as_str()) {
            two
        } else if "!<>+-*/%().,[]".contains(c) {
            c.to_string()
        } else {
            return Err(ToolError(format!(
                "unexpected {} at character {}",
                quote(&c.to_string()),
                start + 1
            )));
        };
        i += op.chars().count();
        at += op.len();
        tokens.push(Token {
            kind: Kind::Op,
            text: op,
            at: start,
        });
    }
    Ok(tokens)
}

/// The characters from `chars[*i]` on that pass `test`, moving `*i` past them.
fn take_while(chars: &[char], i: &mut usize, test: impl Fn(char) -> bool) -> String {
    let mut text = String::new();
    while *i < chars.len() && test(chars[*i]) {
        text.push(chars[*i]);
        *i += 1;
    }
    text
}

/// How deep an expression may nest (`MAX_NESTING` in `vault/bases-parse.ts`): far beyond any formula a person
/// writes, far below what the evaluator's stack holds.
pub(crate) const MAX_NESTING: usize = 100;

/// The refusal of an expression nested past [`MAX_NESTING`], at the token (UTF-16 position) that went too deep.
fn too_deep(at: usize) -> ToolError {
    ToolError(format!(
        "the expression nests deeper than {MAX_NESTING} levels at character {}",
        at + 1
    ))
}

/// A node and its depth: `Lit` and `Name` are 1, every other node one more than its deepest child.
pub(crate) type Node = (Expr, usize);

/// The node `expr` over children as deep as `deepest`, refused at `at` when that is past [`MAX_NESTING`].
fn node(expr: Expr, deepest: usize, at: usize) -> Result<Node, ToolError> {
    let depth = deepest + 1;
    if depth > MAX_NESTING {
        return Err(too_deep(at));
    }
    Ok((expr, depth))
}

fn deepest(nodes: &[Node]) -> usize {
    nodes.iter().map(|(_, depth)| *depth).max().unwrap_or(0)
}

fn exprs(nodes: Vec<Node>) -> Vec<Expr> {
    nodes.into_iter().map(|(expr, _)| expr).collect()
}

fn rank(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "==" | "!=" => 3,
        "<" | "<=" | ">" | ">=" => 4,
        "+" | "-" => 5,
        "*" | "/" | "%" => 6,
        _ => return None,
    })
}

struct Parser {
    tokens: Vec<Token>,
    next: usize,
    /// Brackets and prefix operators open around the token being read: each costs the parser a level of its stack
    /// even where the tree does not deepen (`((1))`).
    open: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.next)
    }

    fn is_op(&self, text: &str) -> bool {
        self.peek()
            .is_some_and(|token| token.kind == Kind::Op && token.text == text)
    }

    fn take(&mut self, text: &str) -> Result<(), ToolError> {
        match self.peek() {
            Some(token) if token.kind == Kind::Op && token.text == text => {
                self.next += 1;
                Ok(())
            }
            Some(token) => Err(ToolError(format!(
                "expected \"{text}\" at character {}",
                token.at + 1
            ))),
            None => Err(ToolError(format!("expected \"{text}\" at the end"))),
        }
    }

    /// Enters a bracket or prefix operator at `at`; [`Parser::close`] leaves it.
    fn open(&mut self, at: usize) -> Result<(), ToolError> {
        self.open += 1;
        if self.open > MAX_NESTING {
            return Err(too_deep(at));
        }
        Ok(())
    }

    fn close(&mut self) {
        self.open -= 1;
    }

    /// The UTF-16 position of the next token (the end of the text when there is none).
    fn here(&self) -> usize {
        self.peek().map_or(0, |token| token.at)
    }

    fn args(&mut self) -> Result<Vec<Node>, ToolError> {
        let at = self.here();
        self.take("(")?;
        self.open(at)?;
        let mut list = Vec::new();
        while !self.is_op(")") {
            list.push(self.binary(0)?);
            if !self.is_op(")") {
                self.take(",")?;
            }
        }
        self.take(")")?;
        self.close();
        Ok(list)
    }

    fn name_after(&mut self, what: &str) -> Result<String, ToolError> {
        match self.tokens.get(self.next).cloned() {
            Some(token) if token.kind == Kind::Id => {
                self.next += 1;
                Ok(token.text)
            }
            _ => {
                self.next += 1;
                Err(ToolError(what.to_string()))
            }
        }
    }

    fn primary(&mut self) -> Result<Node, ToolError> {
        let Some(token) = self.tokens.get(self.next).cloned() else {
            self.next += 1;
            return Err(ToolError::new("the expression ends too early"));
        };
        self.next += 1;
        match token.kind {
            Kind::Num => {
                return Ok((
                    Expr::Lit(Value::Num(token.text.parse().unwrap_or(f64::NAN))),
                    1,
                ));
            }
            Kind::Str => return Ok((Expr::Lit(Value::Str(token.text)), 1)),
            Kind::Op if token.text == "(" => {
                self.open(token.at)?;
                let inner = self.binary(0)?;
                self.take(")")?;
                self.close();
                return Ok(inner);
            }
            Kind::Op if token.text == "[" => {
                self.open(token.at)?;
                let mut items = Vec::new();
                while !self.is_op("]") {
                    items.push(self.binary(0)?);
                    if !self.is_op("]") {
                        self.take(",")?;
                    }
                }
                self.take("]")?;
                self.close();
                let depth = deepest(&items);
                return node(Expr::List(exprs(items)), depth, token.at);
            }
            Kind::Op if token.text == "!" || token.text == "-" => {
                self.open(token.at)?;
                let operand = self.primary()?;
                let (operand, depth) = self.postfix(operand)?;
                self.close();
                let op = token.text.chars().next().unwrap_or('!');
                return node(Expr::Unary(op, Box::new(operand)), depth, token.at);
            }
            Kind::Op => {
                return Err(ToolError(format!(
                    "unexpected \"{}\" at character {}",
                    token.text,
                    token.at + 1
                )));
            }
            Kind::Id => {}
        }
        match token.text.as_str() {
            "true" => return Ok((Expr::Lit(Value::Bool(true)), 1)),
            "false" => return Ok((Expr::Lit(Value::Bool(false)), 1)),
            "null" => return Ok((Expr::Lit(Value::Null), 1)),
            _ => {}
        }
        let mut path = vec![token.text.clone()];
        if matches!(path[0].as_str(), "file" | "note" | "formula") && self.is_op(".") {
            self.next += 1;
            let part = self.name_after(&format!("expected a name after \"{}.\"", path[0]))?;
            path.push(part);
        }
        if path[0] == "note" && path.len() == 1 && self.is_op("[") {
            self.next += 1;
            match self.tokens.get(self.next).cloned() {
                Some(key) if key.kind == Kind::Str => {
                    self.next += 1;
                    self.take("]")?;
                    path.push(key.text);
                }
                _ => {
                    self.next += 1;
                    return Err(ToolError::new(
                        "expected a quoted property name after \"note[\"",
                    ));
                }
            }
        }
        if self.is_op("(") {
            let args = self.args()?;
            let depth = deepest(&args);
            return node(Expr::Call(path, exprs(args)), depth, token.at);
        }
        Ok((Expr::Name(path), 1))
    }

    fn postfix(&mut self, (mut expr, mut depth): Node) -> Result<Node, ToolError> {
        while self.is_op(".") || self.is_op("[") {
            let at = self.here();
            let bracket = self.is_op("[");
            self.next += 1;
            if bracket {
                // `list[0]`: a list's item by its 0-based position.
                self.open(at)?;
                let (index, index_depth) = self.binary(0)?;
                self.take("]")?;
                self.close();
                let deepest = depth.max(index_depth);
                (expr, depth) = node(Expr::Index(Box::new(expr), Box::new(index)), deepest, at)?;
                continue;
            }
            let name = self.name_after("expected a method name after \".\"")?;
            (expr, depth) = if self.is_op("(") {
                let args = self.args()?;
                let deepest = depth.max(deepest(&args));
                node(Expr::Method(Box::new(expr), name, exprs(args)), deepest, at)?
            } else {
                node(Expr::Member(Box::new(expr), name), depth, at)?
            };
        }
        Ok((expr, depth))
    }

    fn binary(&mut self, min: u8) -> Result<Node, ToolError> {
        let first = self.primary()?;
        let mut left = self.postfix(first)?;
        loop {
            let Some(token) = self.peek().cloned() else {
                return Ok(left);
            };
            let rank = if token.kind == Kind::Op {
                rank(&token.text)
            } else {
                None
            };
            let Some(rank) = rank.filter(|rank| *rank > min) else {
                return Ok(left);
            };
            self.next += 1;
            let (right, right_depth) = self.binary(rank)?;
            let (left_expr, left_depth) = left;
            left = node(
                Expr::Binary(token.text, Box::new(left_expr), Box::new(right)),
                left_depth.max(right_depth),
                token.at,
            )?;
        }
    }
}

/// `parseExpr`: the expression and its depth.
pub(crate) fn parse_expr(source: &str) -> Result<Node, ToolError> {
    let mut parser = Parser {
        tokens: tokenize(source)?,
        next: 0,
        open: 0,
    };
    let expr = parser.binary(0)?;
    if let Some(token) = parser.peek() {
        return Err(ToolError(format!(
            "unexpected \"{}\" at character {}",
            token.text,
            token.at + 1
        )));
    }
    Ok(expr)
}

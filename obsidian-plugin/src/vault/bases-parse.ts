// The syntax of the Bases expression language's subset obsmcp evaluates (./bases-expr.ts says which): tokens and a
// precedence parser, every refusal naming the character where reading stopped (counted in UTF-16 units). The offline
// twin is src/offline/plugin/vault/bases/parse.rs. Both refuse an expression nested deeper than MAX_NESTING levels (brackets,
// operands of operators, targets of methods) while parsing: a base in a synced vault is data nobody checked, and the
// evaluator recurses once per level.

import { ToolError } from "./errors";
import type { Value } from "./bases-value";

export type Expr =
  | { kind: "lit"; value: Value }
  | { kind: "list"; items: Expr[] }
  | { kind: "name"; path: string[] }
  | { kind: "unary"; op: string; operand: Expr }
  | { kind: "binary"; op: string; left: Expr; right: Expr }
  | { kind: "call"; callee: string[]; args: Expr[] }
  | { kind: "method"; target: Expr; name: string; args: Expr[] }
  | { kind: "member"; target: Expr; name: string }
  | { kind: "index"; target: Expr; index: Expr };

type Token = { type: "num" | "str" | "id" | "op"; text: string; at: number };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const c = source[at];
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      at++;
      continue;
    }
    const rest = source.slice(at);
    const number = /^\d+(\.\d+)?/.exec(rest);
    if (number) {
      tokens.push({ type: "num", text: number[0], at });
      at += number[0].length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (id) {
      tokens.push({ type: "id", text: id[0], at });
      at += id[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      let text = "";
      let i = at + 1;
      for (; i < source.length && source[i] !== c; i++) {
        if (source[i] === "\\" && i + 1 < source.length) {
          i++;
          text += source[i] === "n" ? "\n" : source[i] === "t" ? "\t" : source[i];
        } else text += source[i];
      }
      if (i >= source.length) throw new ToolError(`unterminated string at character ${at + 1}`);
      tokens.push({ type: "str", text, at });
      at = i + 1;
      continue;
    }
    const op = ["==", "!=", "<=", ">=", "&&", "||"].find((two) => rest.startsWith(two)) ?? ("!<>+-*/%().,[]".includes(c) ? c : null);
    if (op === null) throw new ToolError(`unexpected ${JSON.stringify(c)} at character ${at + 1}`);
    tokens.push({ type: "op", text: op, at });
    at += op.length;
  }
  return tokens;
}

/** How deep an expression may nest: far beyond any formula a person writes, far below what a stack holds. */
export const MAX_NESTING = 100;

const tooDeep = (at: number) => new ToolError(`the expression nests deeper than ${MAX_NESTING} levels at character ${at + 1}`);

/** A node and its depth: literals and names are 1, every other node one more than its deepest child. */
export type Node = { expr: Expr; depth: number };

function node(expr: Expr, deepest: number, at: number): Node {
  if (deepest + 1 > MAX_NESTING) throw tooDeep(at);
  return { expr, depth: deepest + 1 };
}

const deepestOf = (nodes: Node[]) => nodes.reduce((most, each) => Math.max(most, each.depth), 0);

const BINARY: Record<string, number> = { "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6 };

/** Parses one expression and measures its depth; a ToolError names what could not be read. */
export function parseExpr(source: string): Node {
  const tokens = tokenize(source);
  let next = 0;
  // Brackets and prefix operators open around the token being read: each costs a level of the stack even where the
  // tree does not deepen (`((1))`).
  let open = 0;
  const enter = (at: number) => {
    if (++open > MAX_NESTING) throw tooDeep(at);
  };
  const peek = () => tokens[next];
  const take = (text: string) => {
    const token = tokens[next];
    if (!token || token.type !== "op" || token.text !== text) {
      throw new ToolError(`expected "${text}" ${token ? `at character ${token.at + 1}` : "at the end"}`);
    }
    next++;
  };
  const isOp = (text: string) => peek()?.type === "op" && peek().text === text;
  const args = (): Node[] => {
    const at = peek()?.at ?? 0;
    take("(");
    enter(at);
    const list: Node[] = [];
    while (!isOp(")")) {
      list.push(binary(0));
      if (!isOp(")")) take(",");
    }
    take(")");
    open--;
    return list;
  };
  const exprs = (nodes: Node[]) => nodes.map((each) => each.expr);
  const primary = (): Node => {
    const token = tokens[next++];
    if (!token) throw new ToolError("the expression ends too early");
    if (token.type === "num") return { expr: { kind: "lit", value: Number(token.text) }, depth: 1 };
    if (token.type === "str") return { expr: { kind: "lit", value: token.text }, depth: 1 };
    if (token.type === "op" && token.text === "(") {
      enter(token.at);
      const inner = binary(0);
      take(")");
      open--;
      return inner;
    }
    if (token.type === "op" && token.text === "[") {
      enter(token.at);
      const items: Node[] = [];
      while (!isOp("]")) {
        items.push(binary(0));
        if (!isOp("]")) take(",");
      }
      take("]");
      open--;
      return node({ kind: "list", items: exprs(items) }, deepestOf(items), token.at);
    }
    if (token.type === "op" && (token.text === "!" || token.text === "-")) {
      enter(token.at);
      const operand = postfix(primary());
      open--;
      return node({ kind: "unary", op: token.text, operand: operand.expr }, operand.depth, token.at);
    }
    if (token.type !== "id") throw new ToolError(`unexpected "${token.text}" at character ${token.at + 1}`);
    if (token.text === "true" || token.text === "false") return { expr: { kind: "lit", value: token.text === "true" }, depth: 1 };
    if (token.text === "null") return { expr: { kind: "lit", value: null }, depth: 1 };
    const path = [token.text];
    // A dotted name (`file.name`, `note.status`), or a call of one (`file.hasTag(…)`, `date(…)`).
    while ((path[0] === "file" || path[0] === "note" || path[0] === "formula") && path.length === 1 && isOp(".")) {
      next++;
      const part = tokens[next++];
      if (!part || part.type !== "id") throw new ToolError(`expected a name after "${path[0]}."`);
      path.push(part.text);
    }
    if (path[0] === "note" && path.length === 1 && isOp("[")) {
      next++;
      const key = tokens[next++];
      if (!key || key.type !== "str") throw new ToolError('expected a quoted property name after "note["');
      take("]");
      path.push(key.text);
    }
    if (isOp("(")) {
      const list = args();
      return node({ kind: "call", callee: path, args: exprs(list) }, deepestOf(list), token.at);
    }
    return { expr: { kind: "name", path }, depth: 1 };
  };
  const postfix = (target: Node): Node => {
    while (isOp(".") || isOp("[")) {
      const at = tokens[next].at;
      next++;
      if (tokens[next - 1].text === "[") {
        // `list[0]`: a list's item by its 0-based position.
        enter(at);
        const index = binary(0);
        take("]");
        open--;
        target = node({ kind: "index", target: target.expr, index: index.expr }, Math.max(target.depth, index.depth), at);
        continue;
      }
      const name = tokens[next++];
      if (!name || name.type !== "id") throw new ToolError('expected a method name after "."');
      if (isOp("(")) {
        const list = args();
        target = node({ kind: "method", target: target.expr, name: name.text, args: exprs(list) }, Math.max(target.depth, deepestOf(list)), at);
      } else {
        target = node({ kind: "member", target: target.expr, name: name.text }, target.depth, at);
      }
    }
    return target;
  };
  const binary = (min: number): Node => {
    let left = postfix(primary());
    for (;;) {
      const token = peek();
      const rank = token?.type === "op" ? BINARY[token.text] : undefined;
      if (rank === undefined || rank <= min) return left;
      next++;
      const right = binary(rank);
      left = node({ kind: "binary", op: token.text, left: left.expr, right: right.expr }, Math.max(left.depth, right.depth), token.at);
    }
  };
  const expr = binary(0);
  if (next < tokens.length) throw new ToolError(`unexpected "${tokens[next].text}" at character ${tokens[next].at + 1}`);
  return expr;
}


// The syntax of the Bases expression language's subset obsmcp evaluates (./bases-expr.ts says which): tokens and a
// precedence parser, every refusal naming the character where reading stopped (counted in UTF-16 units). The offline
// twin is src/offline/bases/parse.rs.

import { ToolError } from "../tools/types";
import type { Value } from "./bases-expr";

export type Expr =
  | { kind: "lit"; value: Value }
  | { kind: "list"; items: Expr[] }
  | { kind: "name"; path: string[] }
  | { kind: "unary"; op: string; operand: Expr }
  | { kind: "binary"; op: string; left: Expr; right: Expr }
  | { kind: "call"; callee: string[]; args: Expr[] }
  | { kind: "method"; target: Expr; name: string; args: Expr[] }
  | { kind: "member"; target: Expr; name: string };

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

const BINARY: Record<string, number> = { "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6 };

/** Parses one expression; a ToolError names what could not be read. */
export function parseExpr(source: string): Expr {
  const tokens = tokenize(source);
  let next = 0;
  const peek = () => tokens[next];
  const take = (text: string) => {
    const token = tokens[next];
    if (!token || token.type !== "op" || token.text !== text) {
      throw new ToolError(`expected "${text}" ${token ? `at character ${token.at + 1}` : "at the end"}`);
    }
    next++;
  };
  const isOp = (text: string) => peek()?.type === "op" && peek().text === text;
  const args = (): Expr[] => {
    take("(");
    const list: Expr[] = [];
    while (!isOp(")")) {
      list.push(binary(0));
      if (!isOp(")")) take(",");
    }
    take(")");
    return list;
  };
  const primary = (): Expr => {
    const token = tokens[next++];
    if (!token) throw new ToolError("the expression ends too early");
    if (token.type === "num") return { kind: "lit", value: Number(token.text) };
    if (token.type === "str") return { kind: "lit", value: token.text };
    if (token.type === "op" && token.text === "(") {
      const inner = binary(0);
      take(")");
      return inner;
    }
    if (token.type === "op" && token.text === "[") {
      const items: Expr[] = [];
      while (!isOp("]")) {
        items.push(binary(0));
        if (!isOp("]")) take(",");
      }
      take("]");
      return { kind: "list", items };
    }
    if (token.type === "op" && (token.text === "!" || token.text === "-")) return { kind: "unary", op: token.text, operand: postfix(primary()) };
    if (token.type !== "id") throw new ToolError(`unexpected "${token.text}" at character ${token.at + 1}`);
    if (token.text === "true" || token.text === "false") return { kind: "lit", value: token.text === "true" };
    if (token.text === "null") return { kind: "lit", value: null };
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
    if (isOp("(")) return { kind: "call", callee: path, args: args() };
    return { kind: "name", path };
  };
  const postfix = (expr: Expr): Expr => {
    while (isOp(".")) {
      next++;
      const name = tokens[next++];
      if (!name || name.type !== "id") throw new ToolError('expected a method name after "."');
      expr = isOp("(") ? { kind: "method", target: expr, name: name.text, args: args() } : { kind: "member", target: expr, name: name.text };
    }
    return expr;
  };
  const binary = (min: number): Expr => {
    let left = postfix(primary());
    for (;;) {
      const token = peek();
      const rank = token?.type === "op" ? BINARY[token.text] : undefined;
      if (rank === undefined || rank <= min) return left;
      next++;
      left = { kind: "binary", op: token.text, left, right: binary(rank) };
    }
  };
  const expr = binary(0);
  if (next < tokens.length) throw new ToolError(`unexpected "${tokens[next].text}" at character ${tokens[next].at + 1}`);
  return expr;
}


// What a Bases expression evaluates to (the offline twin: src/offline/plugin/vault/bases/value.rs): a leaf, so that the syntax
// (./bases-parse.ts, whose literals are values) and the evaluator (./bases-expr.ts, which walks the syntax) need
// not import each other.

/** A string, number, boolean, null, list, or a date as milliseconds since the epoch. */
export type Value = string | number | boolean | null | Value[] | { date: number };

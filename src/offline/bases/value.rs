//! A value of the Bases expression language (`Value` in `vault/bases-expr.ts`).

/// `Value`: a date is milliseconds since the epoch, in UTC.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Str(String),
    Num(f64),
    Bool(bool),
    Null,
    List(Vec<Value>),
    Date(f64),
}

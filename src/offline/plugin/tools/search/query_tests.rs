//! The query parser's rules, one test per rule family (`query.rs`).
use super::*;

fn shape(query: &str) -> String {
    let parsed = parse(query, false).unwrap();
    render(&parsed.root, &parsed.atoms)
}

fn render(node: &Node, atoms: &[Atom]) -> String {
    let list = |nodes: &[Node]| {
        nodes
            .iter()
            .map(|node| render(node, atoms))
            .collect::<Vec<_>>()
            .join(" ")
    };
    match node {
        Node::And(nodes) => format!("(and {})", list(nodes)),
        Node::Or(nodes) => format!("(or {})", list(nodes)),
        Node::Not(node) => format!("(not {})", render(node, atoms)),
        Node::Atom(at) => atoms[*at].written.clone(),
        Node::Field(field, node) => format!("({field:?} {})", render(node, atoms)),
        Node::Scope(scope, node) => format!("({scope:?} {})", render(node, atoms)),
        Node::Tag(name) => format!("(tag {name})"),
        Node::Property(name, None) => format!("[{name}]"),
        Node::Property(name, Some(value)) => format!("[{name} {}]", render(value, atoms)),
    }
}

fn error(query: &str) -> String {
    let message = parse(query, false).unwrap_err().0;
    message
        .strip_prefix("invalid query: ")
        .and_then(|rest| rest.strip_suffix(HINT))
        .map(str::to_string)
        .unwrap_or(message)
}

#[test]
fn or_binds_looser_than_and_and_minus_binds_tightest() {
    assert_eq!(shape("a b OR c d"), "(or (and a b) (and c d))");
    assert_eq!(
        shape("meeting (work OR meetup) personal"),
        "(and meeting (or work meetup) personal)"
    );
    assert_eq!(shape("-a OR b"), "(or (not a) b)");
    assert_eq!(shape("a -(b c)"), "(and a (not (and b c)))");
    assert_eq!(
        shape("or OR Or"),
        "(or or Or)",
        "only the upper-case whole term is OR"
    );
    assert_eq!(shape("foo-bar and/or -x"), "(and foo-bar and/or (not x))");
    assert_eq!(shape("a(b)c"), "(and a b c)");
    assert_eq!(shape("ORx OR:y"), "(and ORx OR:y)");
}

#[test]
fn phrases_regexes_and_operators() {
    assert_eq!(
        shape(r#""star wars" /\d{4}\// x"#),
        r#"(and "star wars" /\d{4}\// x)"#
    );
    let parsed = parse(r#""say \"hi\" \\ \n""#, false).unwrap();
    assert_eq!(parsed.atoms[0].written, r#""say \"hi\" \\ \n""#);
    assert!(
        parsed.atoms[0]
            .matcher
            .find(r#"they say "hi" \ \n"#)
            .is_some()
    );
    assert_eq!(
        shape("file:.jpg path:\"Daily notes\""),
        "(and (File .jpg) (Path \"Daily notes\"))"
    );
    assert_eq!(
        shape("line:(mix flour) section:(a OR b)"),
        "(and (Line (and mix flour)) (Section (or a b)))"
    );
    assert_eq!(
        shape("task-todo:call task:x task-done:(y)"),
        "(and (TaskTodo call) (Task x) (TaskDone y))"
    );
    assert_eq!(
        shape("tag:#work -tag:\"a b\""),
        "(and (tag #work) (not (tag a b)))"
    );
    assert_eq!(shape("http://x.org File:y"), "(and http://x.org File:y)");
    assert_eq!(
        shape("[aliases] [ status : Draft OR \"In review\"]"),
        "(and [aliases] [status (or Draft \"In review\")])"
    );
    assert_eq!(shape("[a:x]y"), "(and [a x] y)");
    assert_eq!(shape("[a:]"), "[a]");
    assert_eq!(shape("[[hub"), "[[hub", "a link's text is a word");
    let texts = |query: &str| -> Vec<String> {
        parse(query, false)
            .unwrap()
            .atoms
            .into_iter()
            .map(|atom| atom.text)
            .collect()
    };
    assert_eq!(
        texts("build, now? crates.io. e.g. ... c++ file:x,"),
        ["build", "now", "crates.io", "e.g", "...", "c++", "x"],
        "a word's closing punctuation is not looked for"
    );
    // Whether each atom finds its text in upper case: the case rule it was given.
    let finds_upper = |query: &str, case_sensitive: bool| -> Vec<bool> {
        let parsed = parse(query, case_sensitive).unwrap();
        parsed
            .atoms
            .iter()
            .map(|atom| atom.matcher.find(&atom.text.to_uppercase()).is_some())
            .collect()
    };
    assert_eq!(
        finds_upper("match-case:Rust rust ignore-case:(X)", true),
        [false, false, true]
    );
    assert_eq!(finds_upper("match-case:Rust rust", false), [false, true]);
}

#[test]
fn errors_name_what_is_wrong_and_where() {
    assert_eq!(error("a \"b c"), "the quote at position 3 is never closed");
    assert_eq!(
        error("😀 /x"),
        "the regular expression at position 4 has no closing /"
    );
    assert_eq!(
        error("(a b"),
        "the parenthesis at position 1 is never closed"
    );
    assert_eq!(error("a) b"), "unexpected ) at position 2");
    assert_eq!(error("OR a"), "OR at position 1 needs a term on each side");
    assert_eq!(error("a OR"), "OR at position 3 needs a term on each side");
    assert_eq!(
        error("a OR OR b"),
        "OR at position 3 needs a term on each side"
    );
    assert_eq!(
        error("(a OR)"),
        "OR at position 4 needs a term on each side"
    );
    assert_eq!(error("a -"), "- at position 3 excludes nothing");
    assert_eq!(error("(-)"), "- at position 2 excludes nothing");
    assert_eq!(
        error("file: x"),
        "file: at position 1 needs a term after it"
    );
    assert_eq!(
        error("x line:"),
        "line: at position 3 needs a term after it"
    );
    assert_eq!(error("a ()"), "empty parentheses at position 3");
    assert_eq!(error("[status"), "the [ at position 1 is never closed");
    assert_eq!(error("[s:a b"), "the [ at position 1 is never closed");
    assert_eq!(error("[ ]"), "[ at position 1 names no property");
    assert_eq!(
        error("tag:(a)"),
        "tag: at position 1 takes a tag name, not a group or a regular expression"
    );
    assert_eq!(error("\"\""), "the phrase at position 1 is empty");
    assert_eq!(error("//"), "the regular expression at position 1 is empty");
    assert!(
        error("x /(?<=a)b/").starts_with("the regular expression at position 3 cannot be used: ")
    );
    assert!(error("/(/").starts_with("the regular expression at position 1 cannot be used: "));
    assert_eq!(
        parse(" \t ", false).unwrap_err().0,
        "invalid query: nothing to search for"
    );
}

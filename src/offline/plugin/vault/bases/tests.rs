//! The bases reader's limits: expressions nested past `MAX_NESTING` are refused while parsing, so that no base in a
//! synced vault can overflow the bridge's stack (each of these forms aborted the process before the bound).

use super::eval::{Row, evaluate};
use super::parse::{MAX_NESTING, parse_expr};
use super::value::Value;

/// Each hostile form at `n` levels: a long sum, nested brackets, prefix operators, lists, a method chain, calls.
fn forms(n: usize) -> Vec<(&'static str, String)> {
    vec![
        ("sum", vec!["1"; n + 1].join("+")),
        (
            "parentheses",
            format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        ),
        ("negations", format!("{}true", "!".repeat(n))),
        ("minus signs", format!("{}1", "-".repeat(n))),
        ("lists", format!("{}1{}", "[".repeat(n), "]".repeat(n))),
        ("method chain", format!("'a'{}", ".lower()".repeat(n))),
        (
            "calls",
            format!("{}1{}", "if(true,".repeat(n), ")".repeat(n)),
        ),
    ]
}

fn row_value(source: &str) -> Result<Value, String> {
    let formula = |name: &str| {
        Err(crate::offline::plugin::tools::ToolError(format!(
            "no formula.{name}"
        )))
    };
    let row = Row {
        path: "a.md",
        name: "a.md",
        basename: "a",
        folder: "",
        ext: "md",
        size: 0,
        ctime: 0,
        mtime: 0,
        note: &(),
        formula: &formula,
        now: 0.0,
    };
    let (expr, _) = parse_expr(source).map_err(|error| error.0)?;
    evaluate(&expr, &row).map_err(|error| error.0)
}

#[test]
fn expressions_nested_past_the_bound_are_refused_instead_of_overflowing_the_stack() {
    for (form, source) in forms(20_000).into_iter().chain(forms(50_000)) {
        let error = match parse_expr(&source) {
            Err(error) => error.0,
            Ok(_) => panic!("{form} nested {} deep was accepted", source.len()),
        };
        assert!(
            error.starts_with(&format!(
                "the expression nests deeper than {MAX_NESTING} levels at character "
            )),
            "{form}: {error}"
        );
    }
}

#[test]
fn expressions_just_inside_the_bound_parse_and_evaluate_on_a_default_stack() {
    // A test thread has the 2 MiB stack of a tokio worker or blocking thread: what parses must also evaluate there.
    for (form, source) in forms(MAX_NESTING - 2) {
        let value = row_value(&source);
        assert!(value.is_ok(), "{form}: {value:?}");
    }
    for (form, source) in forms(MAX_NESTING + 1) {
        assert!(
            parse_expr(&source).is_err(),
            "{form} one level past the bound"
        );
    }
}

#[test]
fn a_refusal_names_the_character_where_the_bound_was_passed() {
    let source = format!(
        "{}1{}",
        "(".repeat(MAX_NESTING + 5),
        ")".repeat(MAX_NESTING + 5)
    );
    let error = parse_expr(&source).err().unwrap().0;
    assert_eq!(
        error,
        format!(
            "the expression nests deeper than {MAX_NESTING} levels at character {}",
            MAX_NESTING + 1
        )
    );
}

#[test]
fn tags_and_keys_are_compared_ignoring_case_without_lower_casing_ascii_into_new_strings() {
    use super::facts::tag_is_or_under;
    use crate::offline::js::lowers_to;
    assert!(lowers_to("Status", "status"));
    assert!(!lowers_to("Statuses", "status"));
    assert!(lowers_to("ÉTAT", "état"), "not ASCII: lower-cased");
    assert!(tag_is_or_under("Project", "project"));
    assert!(tag_is_or_under("Project/Alpha", "project"));
    assert!(!tag_is_or_under("Projects", "project"));
    assert!(!tag_is_or_under("Proj", "project"));
    assert!(!tag_is_or_under("Project-Alpha", "project"));
    assert!(tag_is_or_under("Été/Plage", "été"));
    assert!(!tag_is_or_under("Project", "prôject"));
}

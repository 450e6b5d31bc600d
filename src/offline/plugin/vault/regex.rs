//! Agent-supplied regular expressions (`vault/regex.ts`). The plugin runs them with RE2JS, a port of RE2, so that no
//! pattern can hold Obsidian's UI thread; Rust's `regex` is of the same family (linear time; lookaround and
//! backreferences refused by both), so the two accept and refuse the same patterns. Only the classes whose meaning
//! differs between RE2 (ASCII `\d \w \s \b`) and Rust (Unicode) are rewritten. Obsidian's own excluded-files filters
//! run on JavaScript's engine, whose `\s` is Unicode: [`translate_javascript_regex`] is for those.

/// Why a pattern uses syntax that neither reader's engine has, in the words both readers give
/// (`unsupportedSyntax` in `vault/regex.ts`): the engines' own messages for these differ (RE2JS: "invalid named
/// capture", `regex`: "look-around … is not supported"), and an agent should get one answer whichever reader
/// serves it.
pub(crate) fn unsupported_syntax(pattern: &str) -> Option<&'static str> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                if !in_class && chars.get(i + 1).is_some_and(|c| ('1'..='9').contains(c)) {
                    return Some(BACKREFERENCE);
                }
                i += 1;
            }
            '[' if !in_class => {
                in_class = true;
                // A `]` right after `[` or `[^` is a member of the class, not its end.
                if chars.get(i + 1) == Some(&'^') {
                    i += 1;
                }
                if chars.get(i + 1) == Some(&']') {
                    i += 1;
                }
            }
            ']' if in_class => in_class = false,
            '(' if !in_class => {
                let rest: String = chars[i + 1..chars.len().min(i + 4)].iter().collect();
                if ["?=", "?!", "?<=", "?<!"]
                    .iter()
                    .any(|open| rest.starts_with(open))
                {
                    return Some(LOOK_AROUND);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

const LOOK_AROUND: &str = "look-around ((?=, (?!, (?<=, (?<!) is not supported: patterns are RE2 syntax, which matches in linear time";
const BACKREFERENCE: &str = "backreferences (\\1 to \\9) are not supported: patterns are RE2 syntax, which matches in linear time";

/// The last non-blank line of an error message (the `regex` crate explains its errors over several lines).
pub(crate) fn first_line(text: &str) -> String {
    text.lines()
        .rfind(|line| !line.trim().is_empty())
        .unwrap_or(text)
        .trim()
        .to_string()
}

/// Rewrites the classes whose meaning differs between RE2 (ASCII, the plugin's RE2JS) and Rust (Unicode) regexes.
pub(crate) fn translate_js_regex(pattern: &str) -> String {
    // RE2's `\\s` (the plugin's engine): ASCII space, tab, line feed, form feed and carriage return.
    translate_classes(pattern, "\\t\\n\\x0C\\r ")
}

/// Rewrites the classes whose meaning differs between a JavaScript `RegExp` without flags (ASCII `\d \w \b`,
/// Unicode `\s`) and Rust's regexes, for patterns that Obsidian runs with JavaScript's own engine.
pub(crate) fn translate_javascript_regex(pattern: &str) -> String {
    translate_classes(
        pattern,
        "\\t\\n\\x0B\\x0C\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}",
    )
}

/// `\d \w \b` and their negations in ASCII and `\s` as the members of `space`, leaving the rest as written.
fn translate_classes(pattern: &str, space: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut in_class = false;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let replacement = match (next, in_class) {
                    ('d', false) => Some("[0-9]".to_string()),
                    ('D', false) => Some("[^0-9]".to_string()),
                    ('w', false) => Some("[0-9A-Za-z_]".to_string()),
                    ('W', false) => Some("[^0-9A-Za-z_]".to_string()),
                    ('s', false) => Some(format!("[{space}]")),
                    ('S', false) => Some(format!("[^{space}]")),
                    ('b', false) => Some("(?-u:\\b)".to_string()),
                    ('B', false) => Some("(?-u:\\B)".to_string()),
                    ('d', true) => Some("0-9".to_string()),
                    ('w', true) => Some("0-9A-Za-z_".to_string()),
                    ('s', true) => Some(space.to_string()),
                    _ => None,
                };
                match replacement {
                    Some(text) => out.push_str(&text),
                    None => {
                        out.push('\\');
                        out.push(next);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A `]` right after `[` or `[^` is a literal in Rust but closes an empty class in JavaScript; rare
                // enough to pass through unchanged.
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

//! A note's lines as the plugin splits them (`vault/lines.ts`).

/// `splitLines` of `vault/lines.ts`: lines split on "\n" (a "\r" stays on its line); "" has no lines and a final
/// "\n" does not start an empty one.
pub(crate) fn split_lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') {
        lines.pop();
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_follow_the_plugin_convention() {
        assert_eq!(split_lines(""), Vec::<&str>::new());
        assert_eq!(split_lines("a\nb\n"), vec!["a", "b"]);
        assert_eq!(split_lines("a\r\nb"), vec!["a\r", "b"]);
        assert_eq!(split_lines("\n"), vec![""]);
    }
}

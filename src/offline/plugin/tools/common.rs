//! Helpers of every tool's result (`tools/common.ts`): a note read's header, ISO times, and the head of a paged result
//! with the call that gets the next page.

use serde_json::{Map, Value, json};

use crate::offline::js::utf16_len;
use crate::offline::plugin::tools::{Args, Output};
use crate::offline::plugin::vault::hash::content_hash;
use crate::offline::plugin::vault::limits::cut_chars;
use crate::offline::plugin::vault::lines::split_lines;
use crate::offline::plugin::vault::paths::quote;

/// `renderRead`: the `[lines a-b of N] path=… sha256=…` header and the lines that fit in `max_chars`.
pub(crate) fn render_read(
    path: &str,
    text: &str,
    start: usize,
    end: usize,
    max_chars: usize,
    extra: Option<&str>,
) -> Output {
    let lines = split_lines(text);
    let total = lines.len();
    let mut parts: Vec<&str> = Vec::new();
    let mut used = 0;
    let mut next = end;
    let mut cut_line = None;
    for (i, line) in lines.iter().enumerate().take(end).skip(start) {
        let cost = utf16_len(line) + usize::from(!parts.is_empty());
        if used + cost > max_chars {
            if parts.is_empty() {
                parts.push(cut_chars(line, max_chars));
                cut_line = Some(i);
                next = i + 1;
            } else {
                next = i;
            }
            break;
        }
        parts.push(line);
        used += cost;
    }
    let shown_end = start + parts.len();
    let mut header = if total == 0 || parts.is_empty() {
        format!("[lines 0-0 of {total}]")
    } else {
        format!("[lines {}-{} of {}]", start + 1, shown_end, total)
    };
    header.push_str(&format!(
        " path={} sha256={}",
        quote(path),
        content_hash(text)
    ));
    if let Some(extra) = extra {
        header.push(' ');
        header.push_str(extra);
    }
    if let Some(cut) = cut_line {
        header.push_str(&format!(" cut_line={}", cut + 1));
    }
    if next < end {
        header.push_str(&format!(
            " truncated=true continue_with={}",
            json!({"tool": "read_note", "arguments": {"path": path, "start_line": next + 1, "end_line": end, "max_chars": max_chars}})
        ));
    } else if cut_line.is_some() {
        header.push_str(" truncated=true");
    }
    Output::Read {
        header,
        body: parts.join("\n"),
    }
}

/// `isoTime`: milliseconds since the epoch as `toISOString` writes them.
pub(crate) fn iso_time(ms: i64) -> String {
    // The Gregorian calendar repeats every 400 years, so a time beyond jiff's years (-9999 to 9999) is written as
    // the same instant of a year within them, with its real year put back.
    const FOUR_CENTURIES_MS: i64 = 146_097 * 86_400_000;
    let eras = ms.div_euclid(FOUR_CENTURIES_MS);
    let Ok(time) = jiff::Timestamp::from_millisecond(ms.rem_euclid(FOUR_CENTURIES_MS)) else {
        return String::new();
    };
    let text = time.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
    if eras == 0 {
        return text;
    }
    // Within the first 400 years after 1970 the year has four digits.
    let (year, rest) = text.split_at(4);
    let year = year.parse::<i64>().unwrap_or_default() + 400 * eras;
    if (0..=9999).contains(&year) {
        format!("{year:04}{rest}")
    } else {
        format!(
            "{}{:06}{rest}",
            if year < 0 { '-' } else { '+' },
            year.abs()
        )
    }
}

/// `{total, <key>: page, truncated, next_cursor}` for an offset-paginated list.
pub(crate) fn paged(offset: usize, shown: usize, total: usize) -> (bool, Value) {
    let next = offset + shown;
    let truncated = next < total;
    (
        truncated,
        if truncated {
            Value::String(next.to_string())
        } else {
            Value::Null
        },
    )
}

/// The plugin's `hiddenChecker` for a path named inside a file (a bookmark, a canvas node): hidden by a rule, or
/// on disk but left out of the index because its real location is hidden. The config folder is the caller's to judge.
pub(crate) fn hidden_path(
    ctx: &super::Context<'_>,
    rules: &crate::offline::plugin::vault::hidden::HiddenRules,
    path: &str,
) -> bool {
    if rules.hides(path) {
        return true;
    }
    let listed = ctx.snapshot.file(path).is_some() || ctx.snapshot.is_folder(path);
    !listed
        && !crate::offline::plugin::vault::paths::is_in_config_dir(path, ctx.config_dir)
        && std::fs::symlink_metadata(ctx.root.join(path)).is_ok()
}

/// `pageOf`: one page of `all` for a tool paged by an offset cursor (at most `limit` items that fit in `max_chars`
/// less `reserve`), and the next page's cursor (null on the last one).
pub(crate) fn page_of(
    all: Vec<Value>,
    offset: usize,
    limit: usize,
    max_chars: usize,
    reserve: usize,
) -> (Vec<Value>, Value) {
    let total = all.len();
    let window: Vec<Value> = all.into_iter().skip(offset).take(limit).collect();
    page_of_window(window, total, offset, max_chars, reserve)
}

/// [`page_of`] for a caller that built only the items of the window (`offset` up to `offset + limit` of `total`),
/// so that a page costs the page and not every item.
pub(crate) fn page_of_window(
    window: Vec<Value>,
    total: usize,
    offset: usize,
    max_chars: usize,
    reserve: usize,
) -> (Vec<Value>, Value) {
    let count = crate::offline::plugin::vault::limits::count_within_budget(
        &window,
        max_chars.saturating_sub(reserve),
    );
    let page: Vec<Value> = window.into_iter().take(count).collect();
    let (_, next) = paged(offset, page.len(), total);
    (page, next)
}

/// `pageHead`: the keys a paged result starts with (whether it was limited, the next page's cursor and, when
/// limited, the exact call that gets that page), followed by `rest`'s keys.
pub(crate) fn paged_result(args: &Args<'_>, next_cursor: Value, rest: Value) -> Value {
    let mut head = Map::new();
    head.insert("truncated".into(), Value::Bool(!next_cursor.is_null()));
    if !next_cursor.is_null() {
        head.insert("next_cursor".into(), next_cursor.clone());
        head.insert(
            "continue_with".into(),
            args.next_call(vec![("cursor", next_cursor)], &[]),
        );
    } else {
        head.insert("next_cursor".into(), Value::Null);
    }
    led_by(head, rest)
}

/// An object with `head`'s keys first, then `rest`'s.
pub(crate) fn led_by(mut head: Map<String, Value>, rest: Value) -> Value {
    if let Value::Object(rest) = rest {
        head.extend(rest);
    }
    Value::Object(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(output: Output) -> String {
        match output {
            Output::Read { header, body } => format!("{header}\n{body}"),
            Output::Json(_) | Output::Attachment { .. } => unreachable!(),
        }
    }

    #[test]
    fn reads_state_their_window_and_cuts() {
        let hash = content_hash("a\nbb\nccc\n");
        assert_eq!(
            header(render_read("n.md", "a\nbb\nccc\n", 0, 3, 100, None)),
            format!("[lines 1-3 of 3] path=\"n.md\" sha256={hash}\na\nbb\nccc")
        );
        assert_eq!(
            header(render_read("n.md", "a\nbb\nccc\n", 0, 3, 4, None)),
            format!(
                "[lines 1-2 of 3] path=\"n.md\" sha256={hash} truncated=true continue_with={{\"tool\":\"read_note\",\"arguments\":{{\"path\":\"n.md\",\"start_line\":3,\"end_line\":3,\"max_chars\":4}}}}\na\nbb"
            )
        );
        assert_eq!(
            header(render_read("n.md", "a\nbb\nccc\n", 2, 3, 2, None)),
            format!("[lines 3-3 of 3] path=\"n.md\" sha256={hash} cut_line=3 truncated=true\ncc")
        );
        assert!(
            header(render_read("e.md", "", 0, 0, 100, None))
                .starts_with("[lines 0-0 of 0] path=\"e.md\"")
        );
    }

    #[test]
    fn hash_is_sha256_hex() {
        assert_eq!(
            content_hash(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}

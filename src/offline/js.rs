//! Text arithmetic the plugin does in JavaScript, redone so that offline results match it to the character.
//!
//! JavaScript counts string lengths in UTF-16 code units and its `\s` / `trim()` know a slightly different set of
//! whitespace than Rust's `char::is_whitespace`; every limit, cut and position in a result depends on those two
//! facts, so they live here once. Line splitting follows `vault/lines.ts`: a final "\n" ends the last line.

use std::cmp::Ordering;

/// Whether `c` is whitespace for a JavaScript regex `\s` (and for `String.prototype.trim`).
pub(crate) fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// `String.prototype.trim`.
pub(crate) fn js_trim(text: &str) -> &str {
    text.trim_matches(is_js_space)
}

/// `String.prototype.trimEnd`.
pub(crate) fn js_trim_end(text: &str) -> &str {
    text.trim_end_matches(is_js_space)
}

/// Whether `text` lower-cased is `lower` (itself lower case), without lower-casing ASCII text into a new string (the
/// lower case of ASCII is ASCII, byte for byte): a Bases view asks it of every note's keys and tags, and resolving a
/// link by name of every candidate's path.
pub(crate) fn lowers_to(text: &str, lower: &str) -> bool {
    if text.is_ascii() {
        text.len() == lower.len()
            && text
                .bytes()
                .zip(lower.bytes())
                .all(|(a, b)| a.to_ascii_lowercase() == b)
    } else {
        text.to_lowercase() == lower
    }
}

/// Length of `text` in UTF-16 code units (JavaScript's `length`).
pub(crate) fn utf16_len(text: &str) -> usize {
    // A character is one unit, or two outside the BMP: the bytes that start a character, and once more those that
    // start a four-byte one. Counted bytewise into a byte per block of 127 (at most 254), which the compiler turns
    // into vector adds: summed straight into a `usize`, it stayed one byte at a time (9% of a build's instructions,
    // as every line holding a character outside ASCII is counted).
    text.as_bytes()
        .chunks(127)
        .map(|block| {
            let units = block.iter().fold(0u8, |units, &byte| {
                units
                    .wrapping_add(u8::from(byte & 0xC0 != 0x80))
                    .wrapping_add(u8::from(byte >= 0xF0))
            });
            usize::from(units)
        })
        .sum()
}

/// The byte index in `text` where `units` UTF-16 code units have been consumed; a cut inside a surrogate pair
/// moves back before the pair, like `cutChars` does.
pub(crate) fn byte_at_utf16(text: &str, units: usize) -> usize {
    let mut used = 0;
    for (index, c) in text.char_indices() {
        let width = c.len_utf16();
        if used + width > units {
            return index;
        }
        used += width;
    }
    text.len()
}

/// `a < b` for JavaScript strings: UTF-16 code unit order.
///
/// UTF-8 bytes sort as code points, and UTF-16 units sort the same way except that a character beyond U+FFFF (four
/// UTF-8 bytes, lead byte `F0`-`F4`; two surrogates in UTF-16, `D800`-`DFFF`) comes before U+E000-U+FFFF (lead byte
/// `EE` or `EF`). So the first differing byte decides, unless it sets one of those against the other. Sorting a
/// folder of 2,500 names calls this 30,000 times: the walk of a large vault spent a tenth of its time here.
pub(crate) fn js_cmp(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let Some(at) = x.iter().zip(y).position(|(p, q)| p != q) else {
        return x.len().cmp(&y.len());
    };
    let (p, q) = (x[at], y[at]);
    let beyond_bmp = |byte: u8| byte >= 0xF0;
    let high_bmp = |byte: u8| byte == 0xEE || byte == 0xEF;
    if (beyond_bmp(p) && high_bmp(q)) || (high_bmp(p) && beyond_bmp(q)) {
        // Differing lead bytes, so both characters start at `at`.
        return a[at..].encode_utf16().cmp(b[at..].encode_utf16());
    }
    p.cmp(&q)
}

/// Sorts `items` by [`js_cmp`] of their keys, which must be distinct (the sort is unstable). When no key holds a character at or above U+E000 (names rarely do),
/// byte order is that order, and comparing bytes is several times faster.
pub(crate) fn js_sort_by_key<T>(items: &mut [T], key: impl Fn(&T) -> &str) {
    let plain = items
        .iter()
        .all(|item| key(item).bytes().all(|byte| byte < 0xEE));
    if plain {
        items.sort_unstable_by(|a, b| key(a).as_bytes().cmp(key(b).as_bytes()));
    } else {
        items.sort_unstable_by(|a, b| js_cmp(key(a), key(b)));
    }
}

/// JavaScript's `Canonicalize` for a regex with the `i` flag and no `u` flag: the upper case of a character when it
/// is a single character and does not turn a non-ASCII character into an ASCII one.
pub(crate) fn js_canonicalize(c: char) -> char {
    if c as u32 > 0xFFFF {
        // Outside the BMP a non-unicode regex sees two surrogates, which have no case.
        return c;
    }
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) if !(c as u32 >= 128 && (u as u32) < 128) && u as u32 <= 0xFFFF => u,
        _ => c,
    }
}

/// [`js_canonicalize`] of `c` when that is alphanumeric (a character of a word of the word index), else nothing. The
/// characters of two UTF-8 bytes (U+0080 to U+07FF: accented Latin, Greek, Cyrillic, Hebrew, Arabic) are read from a
/// table made once from those two functions: looking them up one by one was a fifth of splitting accented prose into
/// words.
pub(crate) fn canonical_alphanumeric(c: char) -> Option<char> {
    static TWO_BYTES: std::sync::OnceLock<Vec<Option<char>>> = std::sync::OnceLock::new();
    let code = c as u32;
    if code < 0x80 {
        return c.is_ascii_alphanumeric().then(|| c.to_ascii_uppercase());
    }
    if code < 0x800 {
        let table = TWO_BYTES.get_or_init(|| {
            (0x80..0x800)
                .map(|code| char::from_u32(code).and_then(canonical_alphanumeric_of))
                .collect()
        });
        return table[(code - 0x80) as usize];
    }
    canonical_alphanumeric_of(c)
}

fn canonical_alphanumeric_of(c: char) -> Option<char> {
    let folded = js_canonicalize(c);
    folded.is_alphanumeric().then_some(folded)
}

/// Every character that JavaScript's `i` flag (no `u` flag) equates with `c`: those with the same [`js_canonicalize`],
/// `c` included, in code point order. Upper and lower case are not enough: `ς`, `σ` and `Σ` are one class, and so are
/// `µ` (the micro sign), `μ` and `Μ`.
pub(crate) fn js_case_class(c: char) -> Vec<char> {
    static CLASSES: std::sync::OnceLock<std::collections::HashMap<char, Vec<char>>> =
        std::sync::OnceLock::new();
    // Outside the BMP nothing has case (see `js_canonicalize`); within it, a table of the classes of more than one
    // character, made once from every character (about a millisecond).
    let classes = CLASSES.get_or_init(|| {
        let mut classes: std::collections::HashMap<char, Vec<char>> = Default::default();
        for c in (0..=0xFFFF).filter_map(char::from_u32) {
            classes.entry(js_canonicalize(c)).or_default().push(c);
        }
        classes.retain(|_, members| members.len() > 1);
        classes
    });
    classes
        .get(&js_canonicalize(c))
        .cloned()
        .unwrap_or_else(|| vec![c])
}

/// A number as `JSON.stringify` writes it: integral values without a fraction, and null for NaN and infinities.
pub(crate) fn js_number(n: f64) -> serde_json::Value {
    if !n.is_finite() {
        serde_json::Value::Null
    } else if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        serde_json::Value::from(n as i64)
    } else {
        serde_json::Value::from(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_classes_hold_every_character_javascript_equates() {
        assert_eq!(js_case_class('σ'), ['Σ', 'ς', 'σ']);
        assert_eq!(js_case_class('ς'), js_case_class('Σ'));
        assert_eq!(js_case_class('μ'), ['µ', 'Μ', 'μ']);
        assert_eq!(
            js_case_class('k'),
            ['K', 'k'],
            "the Kelvin sign is not made ASCII"
        );
        assert_eq!(
            js_case_class('ß'),
            ['ß'],
            "its upper case is two characters"
        );
        assert_eq!(js_case_class('7'), ['7']);
        assert_eq!(js_case_class('𝐀'), ['𝐀'], "outside the BMP");
    }

    #[test]
    fn canonical_case_keeps_letters_and_digits_apart_from_the_rest() {
        // The word index splits canonical text into runs of letters and digits, and the plugin finds word starts in
        // the text as written: the two agree because no character changes that kind when canonicalised.
        for c in (0..=0xFFFF).filter_map(char::from_u32) {
            assert_eq!(
                c.is_alphanumeric(),
                js_canonicalize(c).is_alphanumeric(),
                "U+{:04X}",
                c as u32
            );
        }
    }

    #[test]
    fn utf16_len_counts_as_javascript_does() {
        for text in [
            "",
            "abc",
            "é",
            "€uro",
            "a😀b",
            "😀😀",
            "ünïcödé – “quotes” 中文 𝄞",
        ] {
            let units: usize = text.chars().map(char::len_utf16).sum();
            assert_eq!(utf16_len(text), units, "{text}");
        }
        assert_eq!(utf16_len("a😀"), 3);
        // Long texts, counted a block of bytes at a time: characters of every length across the blocks' edges.
        for (piece, times) in [("a", 1000), ("中", 300), ("😀", 300), ("é😀a中", 97)] {
            let text = piece.repeat(times);
            let units: usize = text.chars().map(char::len_utf16).sum();
            assert_eq!(utf16_len(&text), units, "{piece} × {times}");
            for cut in (0..text.len()).filter(|&cut| text.is_char_boundary(cut)) {
                let units: usize = text[cut..].chars().map(char::len_utf16).sum();
                assert_eq!(
                    utf16_len(&text[cut..]),
                    units,
                    "{piece} × {times} from {cut}"
                );
            }
        }
    }

    #[test]
    fn js_cmp_is_utf16_order() {
        let samples = [
            "",
            "a",
            "A",
            "ab",
            "a\u{0}",
            "é",
            "e\u{301}",
            "\u{7FF}",
            "\u{800}",
            "\u{D7FF}",
            "\u{E000}",
            "\u{FFFD}",
            "\u{FFFF}",
            "\u{10000}",
            "😀",
            "😀a",
            "\u{10FFFF}",
            "a😀",
            "a\u{FFFD}",
            "aé",
            "aéb",
            "\u{E000}😀",
            "😀\u{E000}",
            "Ωmega",
            "Zeta",
        ];
        for a in samples {
            for b in samples {
                assert_eq!(
                    js_cmp(a, b),
                    a.encode_utf16().cmp(b.encode_utf16()),
                    "{a:?} against {b:?}"
                );
            }
        }
        let mut plain = vec!["b", "a", "é", "Z", "ab"];
        let mut mixed = plain.clone();
        mixed.extend(["😀", "\u{FFFD}", "\u{E000}a"]);
        for list in [&mut plain, &mut mixed] {
            let mut expected = list.clone();
            expected.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            js_sort_by_key(list, |name| name);
            assert_eq!(*list, expected);
        }
    }

    #[test]
    fn whitespace_follows_javascript_not_rust() {
        assert!(is_js_space('\u{FEFF}'));
        assert!(
            !is_js_space('\u{85}'),
            "NEL is whitespace to Rust but not to a JavaScript regex"
        );
        assert_eq!(js_trim("\u{FEFF} a \u{3000}"), "a");
    }
}

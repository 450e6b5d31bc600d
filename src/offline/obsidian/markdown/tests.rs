//! The Markdown reader's unit tests: each rule of the fake's list on the smallest text that shows it.

use super::*;

fn links(text: &str) -> Vec<String> {
    parse(text).links.into_iter().map(|l| l.link).collect()
}

#[test]
fn wikilinks_split_display_and_keep_subpaths() {
    let meta = parse("see [[Note#Head|shown]] and [[a\\|b]] and [[ spaced ]] and [[]]");
    let found: Vec<(&str, &str)> = meta
        .links
        .iter()
        .map(|l| (l.link.as_str(), l.display_text.as_str()))
        .collect();
    assert_eq!(
        found,
        vec![("Note#Head", "shown"), ("a", "b"), ("spaced", " spaced ")]
    );
    assert_eq!(meta.links[0].original, "[[Note#Head|shown]]");
    assert_eq!(meta.links[0].position.start.col, 4);
}

#[test]
fn embeds_are_separate_from_links() {
    let meta = parse("![[pic.png]] [[x]] ![alt](img%20one.png)");
    assert_eq!(
        meta.embeds
            .iter()
            .map(|l| l.link.as_str())
            .collect::<Vec<_>>(),
        vec!["pic.png", "img one.png"]
    );
    assert_eq!(meta.embeds[0].position.start.col, 0);
    assert_eq!(links("![[pic.png]] [[x]]"), vec!["x"]);
}

#[test]
fn markdown_links_decode_and_skip_external_targets() {
    assert_eq!(
        links(
            "[a](My%20Note.md) [b](<Other Note.md>) [c](https://x.org/a) [d](mailto:me@x.org) [e](t.md \"title\")"
        ),
        vec!["My Note.md", "Other Note.md", "t.md"]
    );
    assert_eq!(links("[bad](100%zz.md)"), vec!["100%zz.md"]);
    assert_eq!(links("[nested [x]](n.md)"), vec!["n.md"]);
    assert_eq!(links("[p](f(1).md)"), vec!["f(1).md"]);
}

#[test]
fn code_spans_and_fences_hide_links_tags_and_headings() {
    let text = "`[[no]]` ``[[no `x` too]]`` [[yes]] `#notag`\n```\n[[fenced]]\n# not heading\n```\n~~~~\n#x\n~~~~\n$$\n[[math]]\n$$\n#tag";
    let meta = parse(text);
    assert_eq!(
        meta.links
            .iter()
            .map(|l| l.link.as_str())
            .collect::<Vec<_>>(),
        vec!["yes"]
    );
    assert!(meta.headings.is_empty());
    assert_eq!(
        meta.tags.iter().map(|t| t.tag.as_str()).collect::<Vec<_>>(),
        vec!["#tag"]
    );
    let kinds: Vec<_> = meta.sections.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        vec!["paragraph", "code", "code", "math", "paragraph"]
    );
}

#[test]
fn unclosed_code_span_is_text_and_unclosed_fence_runs_to_the_end() {
    assert_eq!(links("`open [[a]]"), vec!["a"]);
    assert!(links("```js\n[[a]]").is_empty());
    assert_eq!(
        links("```js`\n[[a]]"),
        vec!["a"],
        "a backtick in the info string is not a fence"
    );
}

#[test]
fn tags_follow_the_character_rules() {
    let meta =
        parse("#one two#no #123 #a/b-c_d #café, (#x) #ok! https://x.org/#frag [[n#h]] #日本");
    let tags: Vec<_> = meta.tags.iter().map(|t| t.tag.as_str()).collect();
    assert_eq!(tags, vec!["#one", "#a/b-c_d", "#café", "#ok", "#日本"]);
    let position = meta.tags.last().unwrap().position;
    assert_eq!(position.end.col - position.start.col, 3);
    // After any space JavaScript's `\s` knows; a `#` right after a tag, or after a `#` with nothing behind it, is not
    // one.
    let meta = parse("\u{3000}#wide\u{a0}#nb #a#b # #c ##d #1#e");
    let tags: Vec<_> = meta.tags.iter().map(|t| t.tag.as_str()).collect();
    assert_eq!(tags, vec!["#wide", "#nb", "#a", "#c"]);
}

#[test]
fn headings_are_atx_with_closing_runs_removed() {
    let meta = parse(
        "# One ##\n####### seven\n#nospace\n   ### Three #\n#### Hash#tag\n##\n    # four spaces",
    );
    let found: Vec<(usize, &str)> = meta
        .headings
        .iter()
        .map(|h| (h.level, h.heading.as_str()))
        .collect();
    assert_eq!(
        found,
        vec![(1, "One"), (3, "Three"), (4, "Hash#tag"), (2, "")]
    );
}

#[test]
fn frontmatter_is_yaml_with_links_and_positions() {
    let text = "---\ntitle: T\nup: \"[[Parent|p]]\"\nrelated:\n  - \"[[A]]\"\n  - plain\nn: 1.0\n---\nbody";
    let meta = parse(text);
    let front = meta.frontmatter.unwrap();
    assert_eq!(front["title"], "T");
    assert_eq!(serde_json::to_string(&front["n"]).unwrap(), "1");
    let keys: Vec<_> = meta
        .frontmatter_links
        .iter()
        .map(|l| (l.key.as_str(), l.link.as_str()))
        .collect();
    assert_eq!(keys, vec![("up", "Parent"), ("related.0", "A")]);
    assert_eq!(meta.frontmatter_position.unwrap().end.line, 7);
    assert_eq!(meta.sections[0].kind, "yaml");
}

#[test]
fn invalid_or_unclosed_frontmatter() {
    let meta = parse("---\n: [bad\n---\n# H");
    assert!(meta.frontmatter.is_none());
    assert!(meta.frontmatter_position.is_some());
    assert_eq!(meta.headings.len(), 1);
    assert!(parse("---\na: 1\n").frontmatter_position.is_none());
    assert_eq!(parse("---\n---\n").frontmatter, Some(Map::new()));
}

#[test]
fn javascript_key_order_puts_index_keys_first() {
    let value = parse_yaml("b: 1\n2: x\na: 3\n1: y").unwrap();
    assert_eq!(
        serde_json::to_string(&value).unwrap(),
        r#"{"1":"y","2":"x","b":1,"a":3}"#
    );
}

#[test]
fn positions_count_utf16_and_crlf() {
    let meta = parse("😀 x\r\n[[a]]");
    let start = meta.links[0].position.start;
    assert_eq!((start.line, start.col, start.offset), (1, 0, 6));
}

#[test]
fn blocks_name_list_items_paragraphs_and_the_section_before_a_lone_id() {
    let text = "Para line one\nline two ^para\n\n- item ^Item1\n  - child\n\n> quote\n\n^quote\n\n# H ^head";
    let meta = parse(text);
    let ids: Vec<_> = meta
        .blocks
        .iter()
        .map(|(k, b)| {
            (
                k.as_str(),
                b.id.as_str(),
                b.position.start.line,
                b.position.end.line,
            )
        })
        .collect();
    assert_eq!(
        ids,
        vec![
            ("para", "para", 0, 1),
            ("item1", "Item1", 3, 3),
            ("quote", "quote", 6, 6),
            ("head", "head", 10, 10)
        ]
    );
    assert_eq!(meta.list_items.len(), 2);
    assert_eq!(meta.list_items[0].parent, -3);
    assert_eq!(meta.list_items[1].parent, 3);
    assert_eq!(meta.list_items[0].id.as_deref(), Some("Item1"));
}

#[test]
fn sections_split_on_blank_lines_and_interruptions() {
    let text = "p1\np2\n- a\ncont\n\n| a | b |\n| - | - |\n| 1 | 2 |\n***\n> [!note]\n> x\ntext";
    let kinds: Vec<_> = parse(text)
        .sections
        .iter()
        .map(|s| (s.kind, s.position.start.line, s.position.end.line))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("paragraph", 0, 1),
            ("list", 2, 3),
            ("table", 5, 7),
            ("thematicBreak", 8, 8),
            ("callout", 9, 11)
        ]
    );
}

#[test]
fn tasks_are_read_from_list_items() {
    let meta = parse("- [ ] todo\n- [x] done\n- [link](x.md)\n1) [?] q");
    let tasks: Vec<_> = meta.list_items.iter().map(|i| i.task.clone()).collect();
    assert_eq!(
        tasks,
        vec![Some(" ".into()), Some("x".into()), None, Some("?".into())]
    );
}

/// The time `parse` takes on `make(n)`: the least of three runs, in seconds.
fn parse_seconds(make: &dyn Fn(usize) -> String, n: usize) -> f64 {
    let text = make(n);
    (0..3)
        .map(|_| {
            let start = std::time::Instant::now();
            std::hint::black_box(parse(std::hint::black_box(&text)));
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn hostile_notes_parse_in_time_linear_in_their_size() {
    // Each of these cost the offline index time with the square of the note's size (a 1 MB line of links took about
    // two minutes). The growth is measured, not the time: eight times the text may take about eight times as long
    // (sixteen allowed for noise); the square's 64 fails.
    type Make = Box<dyn Fn(usize) -> String>;
    let shapes: Vec<(&str, usize, Make)> = vec![
        (
            "wikilinks on one line",
            4000,
            Box::new(|n| "[[a]] ".repeat(n)),
        ),
        (
            "wikilinks after accents",
            4000,
            Box::new(|n| "é[[a]] ".repeat(n)),
        ),
        (
            "markdown links on one line",
            4000,
            Box::new(|n| "[a](b) ".repeat(n)),
        ),
        ("tags on one line", 8000, Box::new(|n| "#t ".repeat(n))),
        ("tags after accents", 8000, Box::new(|n| "é #t ".repeat(n))),
        (
            "unmatched code span runs",
            4000,
            Box::new(|n| {
                (1..=n)
                    .map(|i| format!("{} x ", "`".repeat(1 + i % 7)))
                    .collect()
            }),
        ),
        (
            "block ids",
            4000,
            Box::new(|n| (0..n).map(|i| format!("para ^b{i}\n\n")).collect()),
        ),
        (
            "frontmatter keys",
            2000,
            Box::new(|n| {
                format!(
                    "---\n{}---\n",
                    (0..n).map(|i| format!("k{i}: 1\n")).collect::<String>()
                )
            }),
        ),
        (
            "frontmatter nested lists",
            8000,
            Box::new(|n| format!("---\na: {}1{}\n---\n", "[".repeat(n), "]".repeat(n))),
        ),
        (
            "frontmatter nested maps",
            8000,
            Box::new(|n| format!("---\na: {}1{}\n---\n", "{a: ".repeat(n), "}".repeat(n))),
        ),
    ];
    for (shape, n, make) in shapes {
        // Warm the allocator and caches on the small size first.
        parse_seconds(&make, n);
        // A loaded machine (a build beside the tests) can stall one measurement; a square's growth shows in every
        // one, so the shape passes when any of three measurements stays linear.
        let mut measured = Vec::new();
        for _ in 0..3 {
            let small = parse_seconds(&make, n);
            let large = parse_seconds(&make, 8 * n);
            measured.push((large / small, small, large));
            if large / small < 16.0 {
                break;
            }
        }
        let (growth, small, large) = *measured.last().unwrap();
        assert!(
            growth < 16.0,
            "{shape}: 8x the text took {growth:.1}x as long ({:.1} ms -> {:.1} ms), in each of {} measurements",
            small * 1000.0,
            large * 1000.0,
            measured.len()
        );
    }
}

#[test]
fn frontmatter_nested_past_the_yaml_limit_is_refused_as_the_yaml_reader_would() {
    let deep = |n: usize| format!("a: {}1{}", "[".repeat(n), "]".repeat(n));
    // The quick count turns away only what the YAML reader refuses itself (its recursion limit).
    assert!(parse_yaml(&deep(120)).is_some());
    assert!(yaml_serde::from_str::<yaml_serde::Value>(&deep(130)).is_err());
    assert!(parse_yaml(&deep(130)).is_none());
    // Brackets in quoted and plain scalars and comments are text, not nesting.
    let text = format!(
        "a: \"{0}\"\nb: '{0}'\nc: x{0}\n# {0}\nd: [1]\n",
        "[".repeat(300)
    );
    let value = parse_yaml(&text).expect("parses");
    assert_eq!(value["a"], json!("[".repeat(300)));
    assert_eq!(value["c"], json!(format!("x{}", "[".repeat(300))));
    assert_eq!(value["d"], json!([1]));
}

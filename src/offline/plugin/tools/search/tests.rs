//! Word mode end to end on small vaults: what matches, what each result shows, ranking and pages. Parity with the
//! plugin is pinned on whole vaults in `tests/it/offline/parity.rs`.

use serde_json::{Value, json};

use crate::offline::strip_disk_marks;
use crate::offline::tests::vault;

fn search(files: &[(&str, &str)], arguments: Value) -> Value {
    let (_dir, offline) = vault(files);
    let result = strip_disk_marks(&offline.call_tool("search", arguments).unwrap());
    let text = result["content"][0]["text"].as_str().unwrap();
    serde_json::from_str(text).unwrap_or_else(|_| json!({ "error": text }))
}

fn paths(result: &Value) -> Vec<&str> {
    result["results"]
        .as_array()
        .unwrap_or_else(|| panic!("{result}"))
        .iter()
        .map(|note| note["path"].as_str().unwrap())
        .collect()
}

const NOTES: [(&str, &str); 4] = [
    (
        "Offsite.md",
        "# Q3 offsite\nWe agreed on the pricing.\n\nThe decision was unanimous.\n",
    ),
    (
        "Pricing/Tiers.md",
        "---\naliases: [Plans]\ntags: [money]\n---\nThree tiers.\n- [ ] call the bank\n- [x] email Ann\n",
    ),
    (
        "Staging.md",
        "## Deploy\nHow to deploy the staging server.\n#ops/deploy\n",
    ),
    ("Other.md", "Nothing of note.\n"),
];

#[test]
fn several_words_match_anywhere_in_a_note_in_any_order() {
    let result = search(&NOTES, json!({"query": "decision offsite pricing"}));
    assert_eq!(paths(&result), ["Offsite.md"]);
    assert_eq!(result["mode"], "words");
    assert_eq!(result["match"], "all");
    assert_eq!(result["terms"], json!(["decision", "offsite", "pricing"]));
    let note = &result["results"][0];
    assert_eq!(note["terms_matched"], 3);
    let lines: Vec<i64> = note["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["line"].as_i64().unwrap())
        .collect();
    assert_eq!(lines, [1, 2, 4], "every line holding a term, and no other");
    // Today's phrase search finds nothing for the same words.
    let phrase = search(
        &NOTES,
        json!({"query": "decision offsite pricing", "mode": "phrase"}),
    );
    assert_eq!(phrase["results"], json!([]));
    assert_eq!(phrase["mode"], "phrase");
}

#[test]
fn a_path_match_alone_comes_without_lines_and_pages_on() {
    let result = search(&NOTES, json!({"query": "pricing", "limit": 1}));
    assert_eq!(paths(&result), ["Offsite.md"]);
    assert_eq!(result["next_cursor"], "2:Offsite.md");
    let next = search(
        &NOTES,
        json!({"query": "pricing", "limit": 1, "cursor": "2:Offsite.md"}),
    );
    assert_eq!(paths(&next), ["Pricing/Tiers.md"]);
    assert_eq!(
        next["results"][0]["matches"],
        json!([]),
        "matched by its folder's name"
    );
    assert_eq!(next["next_cursor"], Value::Null, "nothing after it");
    let both = search(
        &NOTES,
        json!({"query": "pricing OR deploy", "limit": 1, "cursor": "2:Offsite.md"}),
    );
    assert_eq!(both["next_cursor"], "0:Pricing/Tiers.md");
    let last = search(
        &NOTES,
        json!({"query": "pricing OR deploy", "cursor": "0:Pricing/Tiers.md"}),
    );
    assert_eq!(
        paths(&last),
        ["Staging.md"],
        "resuming after a note without lines skips it"
    );
}

#[test]
fn operators_look_where_they_say() {
    let found = |query: &str| {
        paths(&search(&NOTES, json!({"query": query})))
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(found("deploy -path:Staging"), Vec::<String>::new());
    assert_eq!(found("file:Staging.md"), ["Staging.md"]);
    assert_eq!(found("content:pricing"), ["Offsite.md"]);
    assert_eq!(
        found("tag:ops"),
        ["Staging.md"],
        "a nested tag matches its parent"
    );
    assert_eq!(found("tag:#OPS/deploy"), ["Staging.md"]);
    assert_eq!(found("tag:op"), Vec::<String>::new());
    assert_eq!(found("[aliases:plans]"), ["Pricing/Tiers.md"]);
    assert_eq!(found("[tags]"), ["Pricing/Tiers.md"]);
    assert_eq!(found("task-todo:bank"), ["Pricing/Tiers.md"]);
    assert_eq!(found("task-done:bank"), Vec::<String>::new());
    assert_eq!(found("task-done:ann"), ["Pricing/Tiers.md"]);
    assert_eq!(found("line:(agreed pricing)"), ["Offsite.md"]);
    assert_eq!(found("line:(agreed decision)"), Vec::<String>::new());
    assert_eq!(found("block:(pricing agreed)"), ["Offsite.md"]);
    assert_eq!(found("section:(offsite unanimous)"), ["Offsite.md"]);
    assert_eq!(
        found("\"the staging server\" OR nothing"),
        ["Other.md", "Staging.md"]
    );
    assert_eq!(found("/^three/"), ["Pricing/Tiers.md"]);
    assert_eq!(found("match-case:three"), Vec::<String>::new());
    assert_eq!(found("-e"), Vec::<String>::new(), "every note holds an e");
}

#[test]
fn ranking_weighs_titles_and_matches_any_word() {
    let files = [
        ("Deploy.md", "How we ship.\n"),
        (
            "Notes.md",
            "We deploy on Fridays and deploy again on Mondays.\n",
        ),
        ("Misc.md", "Unrelated text about staging.\n"),
    ];
    let result = search(
        &files,
        json!({"query": "how do we deploy staging", "rank": true}),
    );
    assert_eq!(result["match"], "any");
    assert_eq!(result["order"], "relevance");
    let found = paths(&result);
    assert_eq!(
        found[0], "Deploy.md",
        "a word in the title counts once more: {found:?}"
    );
    assert_eq!(found.len(), 3, "any of the words is enough: {found:?}");
    let scores: Vec<f64> = result["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["score"].as_f64().unwrap())
        .collect();
    assert!(
        scores.windows(2).all(|pair| pair[0] >= pair[1]),
        "{scores:?}"
    );
    assert_eq!(result["notes_matching"], 3);
    let all = search(
        &files,
        json!({"query": "deploy fridays", "rank": true, "match": "all"}),
    );
    assert_eq!(paths(&all), ["Notes.md"]);
}

#[test]
fn bad_syntax_is_refused_with_its_position() {
    let result = search(&NOTES, json!({"query": "pricing (tiers"}));
    assert_eq!(
        result["error"],
        "invalid query: the parenthesis at position 9 is never closed; pass mode \"phrase\" to search for the text as written"
    );
    let phrase = search(&NOTES, json!({"query": "pricing (tiers", "mode": "phrase"}));
    assert_eq!(phrase["results"], json!([]));
}

#[test]
fn ranked_results_show_the_lines_of_the_rarer_terms() {
    let files = [
        ("a.md", "the start\nthe harbor at dawn\nthe end\n"),
        ("b.md", "the only line\n"),
        ("c.md", "the other note\n"),
    ];
    let result = search(&files, json!({"query": "the harbor", "rank": true}));
    assert_eq!(paths(&result)[0], "a.md");
    let lines: Vec<i64> = result["results"][0]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["line"].as_i64().unwrap())
        .collect();
    assert_eq!(
        lines,
        [2],
        "`the` is in every note: its lines are not shown"
    );
    assert_eq!(result["results"][0]["terms_matched"], 2);
    // When every term is that common, their lines are shown.
    let common = search(&files, json!({"query": "the", "rank": true}));
    assert_eq!(common["results"][0]["matches"].as_array().unwrap().len(), 3);
    // Without rank, every term's lines.
    let all = search(&files, json!({"query": "the harbor"}));
    assert_eq!(all["results"][0]["matches"].as_array().unwrap().len(), 3);
}

/// Notes that put the word index's counts to the test: repeats (300 of one word in one note), case, prefixes and inner
/// matches, aliases, titles, folder names, a word too long to index, a tag and tasks.
fn varied_notes() -> Vec<(String, String)> {
    let long = format!("garden{}", "x".repeat(60));
    let mut notes = vec![
        ("Garden.md".into(), "Notes on the garden.\n".into()),
        (
            "Plans/Spring.md".into(),
            "---\naliases: [Garden plan, Plot]\n---\nGARDEN garden Gardening gardens\nregarden\n"
                .into(),
        ),
        (
            "Plans/Deploy.md".into(),
            "How we deploy the garden server.\n#ops\n- [ ] deploy".into(),
        ),
        ("Long.md".into(), format!("{long} and garden once\n")),
        ("Blob.md".into(), format!("only {long}\n")),
        (
            "Inner.md".into(),
            "regardening, engarden; the plan\n".into(),
        ),
        (
            "Kelvin.md".into(),
            "\u{212A}elvin garden-plan the THE The\n".into(),
        ),
        ("garden/Inside.md".into(), "nothing of the kind\n".into()),
        ("Empty.md".into(), String::new()),
        // Past what a byte counts.
        ("Repeat.md".into(), "the plan, ".repeat(300)),
    ];
    for i in 0..24 {
        let text = match i % 4 {
            0 => format!("The plan {i} for the server.\n"),
            1 => format!("Deploy day {i}: the garden gate, the garden wall.\n"),
            2 => format!("---\nalias: plan {i}\n---\n{}\n", "filler words ".repeat(i)),
            _ => format!("# Heading {i}\nplans and planning, the plan\n"),
        };
        notes.push((format!("Many/Note {i:02}.md"), text));
    }
    notes
}

#[test]
fn the_word_index_finds_and_ranks_what_reading_every_note_finds() {
    let notes = varied_notes();
    let files: Vec<(&str, &str)> = notes
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let (_dir, indexed) = vault(&files);
    let (_dir2, reading) = vault(&files);
    // A budget of nothing drops the word index: every search then reads every note.
    let reading = reading.with_memory_budget_mb(0);
    let queries = [
        "garden",
        "the garden plan",
        "GARDEN deploy",
        "garden -deploy",
        "garden OR plot",
        "(garden OR server) plan",
        "line:(garden plan)",
        "section:(plan) the",
        "tag:ops garden",
        "content:garden",
        "\"garden plan\" the",
        "garden-plan server",
        "Kelvin",
        "plan match-case:The",
        "nowhere garden",
        "-garden plan",
        "line:(-garden) the",
        "-(garden OR plan) the",
    ];
    let mut compared = 0;
    for (query, matching, rank) in queries.iter().flat_map(|query| {
        [("any", true), ("all", true), ("all", false)].map(|(m, r)| (query, m, r))
    }) {
        let arguments = json!({"query": query, "rank": rank, "match": matching, "limit": 50});
        let answer = |offline: &crate::offline::OfflineVault| {
            let result = strip_disk_marks(&offline.call_tool("search", arguments.clone()).unwrap());
            let mut answer: Value =
                serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
            // The one difference: the reader without a word index says so.
            answer.as_object_mut().unwrap().remove("index_limited");
            answer
        };
        let from_index = answer(&indexed);
        assert_eq!(
            from_index,
            answer(&reading),
            "{query} ({matching}, rank {rank})"
        );
        compared += from_index["results"].as_array().map_or(0, Vec::len);
    }
    assert!(
        compared > 100,
        "the queries rank notes: {compared} scores compared"
    );
    let (kept, dropped) = (indexed.describe().unwrap(), reading.describe().unwrap());
    assert!(
        kept["wordIndex"].as_str().unwrap().starts_with("kept"),
        "{kept}"
    );
    assert!(
        !dropped["wordIndex"].as_str().unwrap().starts_with("kept"),
        "{dropped}"
    );
}

//! Search by meaning end to end on vault folders, with the small model of `model/tests.rs`: the modes, the passages,
//! the fusion's order, hidden notes, the store kept current, its save and a model change, and a vault with no model.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::model::tests::write_model;
use super::vault::ModelSource;
use crate::offline::OfflineVault;

/// A vault of `files` with the small model (its folder kept in the returned guard), checked on every call.
fn vault(files: &[(&str, &str)]) -> (tempfile::TempDir, OfflineVault) {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model");
    write_model(&model);
    let notes = dir.path().join("vault");
    for (path, text) in files {
        let full = notes.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    let offline = OfflineVault::open(&notes, None)
        .unwrap()
        .with_refresh_interval(Duration::ZERO)
        .with_model(Arc::new(ModelSource::new(Some(model), None)));
    (dir, offline)
}

fn search(offline: &OfflineVault, arguments: Value) -> Value {
    let result = offline.call_tool("search", arguments).unwrap();
    let text = result["content"][0]["text"].as_str().unwrap();
    if result.get("isError").is_some() {
        return json!({"error": text});
    }
    serde_json::from_str(text).unwrap()
}

fn paths(answer: &Value) -> Vec<&str> {
    answer["results"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
        .iter()
        .map(|result| result["path"].as_str().unwrap())
        .collect()
}

/// The filler keeps each section over the size at which a short one is joined with the next; the small model knows
/// none of its words, so it adds nothing to any vector.
fn offsite() -> String {
    let filler = "lorem ".repeat(67);
    format!(
        "# Q3 offsite\nWe met at the hotel. {filler}\n\n## Pricing\nThe price of the product goes up. {filler}\n"
    )
}
const SOUP: &str = "# Soup\nOnion soup recipe.\n";

#[test]
fn semantic_mode_finds_a_section_by_meaning_and_names_its_lines() {
    let (_dir, offline) = vault(&[("Q3 offsite.md", &offsite()), ("Cooking/Soup.md", SOUP)]);
    let answer = search(
        &offline,
        json!({"query": "how much money does it cost", "mode": "semantic"}),
    );
    assert_eq!(
        paths(&answer),
        ["Q3 offsite.md", "Cooking/Soup.md"],
        "{answer}"
    );
    let best = &answer["results"][0];
    assert_eq!(best["heading"], "Pricing");
    assert_eq!(
        (best["start_line"].as_u64(), best["end_line"].as_u64()),
        (Some(4), Some(5))
    );
    assert!(best["score"].as_f64().unwrap() > 0.5, "{best}");
    assert!(
        best["excerpt"]
            .as_str()
            .unwrap()
            .starts_with("The price of the product goes up. lorem"),
        "{best}"
    );
    assert_eq!(answer["mode"], "semantic");
    assert_eq!(answer["model"], "model");
    // Passages per note and the page's size.
    let two = search(
        &offline,
        json!({"query": "hotel cost", "mode": "semantic", "max_per_file": 2, "limit": 2}),
    );
    assert_eq!(paths(&two), ["Q3 offsite.md", "Q3 offsite.md"], "{two}");
    assert_eq!(two["next_cursor"], "m:2");
    let rest = search(
        &offline,
        json!({"query": "hotel cost", "mode": "semantic", "max_per_file": 2, "limit": 2, "cursor": "m:2"}),
    );
    assert_eq!(paths(&rest), ["Cooking/Soup.md"], "{rest}");
    let scoped = search(
        &offline,
        json!({"query": "money", "mode": "semantic", "path_prefix": "Cooking/"}),
    );
    assert_eq!(paths(&scoped), ["Cooking/Soup.md"]);
    let unknown = search(&offline, json!({"query": "zzz", "mode": "semantic"}));
    assert!(
        unknown["error"]
            .as_str()
            .unwrap()
            .contains("no word the embedding model knows")
    );
}

#[test]
fn hybrid_ranks_a_note_both_sides_find_above_one_side_alone() {
    let (_dir, offline) = vault(&[
        // Words and meaning: the question's own word, and about money.
        ("Budget.md", "# Budget\nThe trip budget and its cost.\n"),
        // Meaning only: money, without the question's words.
        ("Pricing.md", "# Pricing\nThe price.\n"),
        // Words only: the question's word, about cooking.
        ("Recipe.md", "# Recipe\nSoup for the trip.\n"),
        ("Other.md", "# Notes\nMeeting notes.\n"),
    ]);
    let answer = search(&offline, json!({"query": "trip cost", "mode": "hybrid"}));
    let order = paths(&answer);
    assert_eq!(order[0], "Budget.md", "{answer}");
    assert!(
        order.contains(&"Pricing.md") && order.contains(&"Recipe.md"),
        "{answer}"
    );
    let first = &answer["results"][0];
    assert!(first["word_score"].as_f64().unwrap() > 0.0, "{first}");
    assert!(first["meaning_score"].as_f64().unwrap() > 0.5, "{first}");
    // Weighted reciprocal rank fusion: first on both sides gives 1/11 + 0.7/11.
    assert!(
        (first["score"].as_f64().unwrap() - 1.7 / 11.0).abs() < 1e-3,
        "{first}"
    );
    let words_only: Vec<&Value> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|result| result["path"] == "Pricing.md")
        .collect();
    assert_eq!(words_only[0]["word_score"], Value::Null);
}

#[test]
fn hidden_notes_are_in_no_mode() {
    let (dir, offline) = vault(&[
        ("Budget.md", "money\n"),
        ("Private/Salary.md", "money money\n"),
    ]);
    assert!(
        paths(&search(
            &offline,
            json!({"query": "money", "mode": "semantic"})
        ))
        .contains(&"Private/Salary.md")
    );
    let plugin = dir.path().join("vault/.obsidian/plugins/obsmcp");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::write(plugin.join("data.json"), r#"{"hiddenPaths":["Private"]}"#).unwrap();
    for mode in ["semantic", "hybrid"] {
        let answer = search(&offline, json!({"query": "money", "mode": mode}));
        assert_eq!(paths(&answer), ["Budget.md"], "{mode}: {answer}");
    }
    let words = search(&offline, json!({"query": "money", "rank": true}));
    assert!(!words.to_string().contains("Salary"), "{words}");
}

#[test]
fn an_edited_note_is_found_by_its_new_meaning_at_the_next_call() {
    let (dir, offline) = vault(&[("a.md", "soup\n"), ("b.md", "hotel\n")]);
    let first = search(
        &offline,
        json!({"query": "money", "mode": "semantic", "limit": 1}),
    );
    assert_ne!(paths(&first), ["a.md"]);
    std::fs::write(dir.path().join("vault/a.md"), "the price and the budget\n").unwrap();
    let after = search(
        &offline,
        json!({"query": "money", "mode": "semantic", "limit": 1}),
    );
    assert_eq!(paths(&after), ["a.md"], "{after}");
    std::fs::remove_file(dir.path().join("vault/a.md")).unwrap();
    let gone = search(&offline, json!({"query": "money", "mode": "semantic"}));
    assert_eq!(paths(&gone), ["b.md"], "{gone}");
}

#[test]
fn the_saved_store_is_used_again_and_a_new_model_rebuilds_it() {
    let (dir, offline) = vault(&[("a.md", "price\n")]);
    let state = dir.path().join("state");
    let model = dir.path().join("model");
    let open = || {
        OfflineVault::open(dir.path().join("vault"), None)
            .unwrap()
            .with_saved_index(&state)
            .with_model(Arc::new(ModelSource::new(Some(model.clone()), None)))
    };
    drop(offline);
    let first = open();
    assert_eq!(
        paths(&search(
            &first,
            json!({"query": "money", "mode": "semantic"})
        )),
        ["a.md"]
    );
    let saved = wait_for(|| find_vectors(&state));
    let loaded = super::saved::SavedVectors::new(
        &state,
        &std::fs::canonicalize(dir.path().join("vault")).unwrap(),
        ".obsidian",
        super::model::Model::load(&model).unwrap().fingerprint(),
    );
    assert_eq!(loaded.load().unwrap().notes(), 1);
    // Another model (one number changed): the store saved by the first is not used.
    let other = super::saved::SavedVectors::new(
        &state,
        &std::fs::canonicalize(dir.path().join("vault")).unwrap(),
        ".obsidian",
        "another fingerprint",
    );
    assert!(other.load().is_none());
    // A damaged file is built again, not trusted.
    let mut bytes = std::fs::read(&saved).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&saved, bytes).unwrap();
    assert!(loaded.load().is_none());
    let second = open();
    assert_eq!(
        paths(&search(
            &second,
            json!({"query": "money", "mode": "semantic"})
        )),
        ["a.md"]
    );
}

fn find_vectors(folder: &std::path::Path) -> Option<std::path::PathBuf> {
    std::fs::read_dir(folder)
        .ok()?
        .map(|entry| entry.unwrap().path())
        .find(|path| {
            path.extension()
                .is_some_and(|extension| extension == "vectors")
        })
}

fn wait_for<T>(mut found: impl FnMut() -> Option<T>) -> T {
    let started = std::time::Instant::now();
    loop {
        if let Some(value) = found() {
            return value;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "not saved in time"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_large_first_build_says_when_to_retry_and_falls_back_to_words_if_asked() {
    let notes: Vec<(String, String)> = (0..super::INLINE_NOTES + 500)
        .map(|i| (format!("n{i}.md"), format!("trip {i} hotel\n")))
        .collect();
    let files: Vec<(&str, &str)> = notes
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .collect();
    let (_dir, offline) = vault(&files);
    let building = search(&offline, json!({"query": "hotel", "mode": "semantic"}));
    let message = building["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{building}"));
    assert!(
        message.starts_with("index_building:") && message.contains("retry_after_seconds="),
        "{message}"
    );
    let fallback = search(
        &offline,
        json!({"query": "hotel", "mode": "hybrid", "fallback": true, "limit": 3}),
    );
    assert!(
        fallback["fallback"]
            .as_str()
            .unwrap()
            .contains("word-search (BM25)"),
        "{fallback}"
    );
    assert_eq!(paths(&fallback).len(), 3);
    let ready = wait_for(|| {
        let answer = search(
            &offline,
            json!({"query": "hotel", "mode": "semantic", "limit": 1}),
        );
        answer.get("results").is_some().then_some(answer)
    });
    assert_eq!(paths(&ready).len(), 1);
}

#[test]
fn without_a_model_a_semantic_call_says_how_to_get_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), "x\n").unwrap();
    let offline = OfflineVault::open(dir.path(), None)
        .unwrap()
        .with_model(Arc::new(ModelSource::new(
            None,
            Some(&dir.path().join("state")),
        )));
    let answer = search(&offline, json!({"query": "x", "mode": "semantic"}));
    assert!(
        answer["error"].as_str().unwrap().contains("--model FOLDER"),
        "{answer}"
    );
    let broken = OfflineVault::open(dir.path(), None)
        .unwrap()
        .with_model(Arc::new(ModelSource::new(
            Some(dir.path().join("nowhere")),
            None,
        )));
    let answer = search(&broken, json!({"query": "x", "mode": "hybrid"}));
    let message = answer["error"].as_str().unwrap();
    assert!(
        message.contains("cannot be used") && message.contains("model.safetensors"),
        "{message}"
    );
    // Word search is unchanged.
    let words = search(&offline, json!({"query": "x"}));
    assert_eq!(words["mode"], "words");
}

/// What `obsidian_status` says of search by meaning.
fn meaning_status(offline: &OfflineVault) -> Value {
    offline.describe_meaning()
}

#[test]
fn the_file_watcher_brings_an_edit_in_and_only_the_edited_note_is_embedded_again() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model");
    write_model(&model);
    let notes = dir.path().join("vault");
    std::fs::create_dir_all(&notes).unwrap();
    for i in 0..20 {
        std::fs::write(notes.join(format!("n{i}.md")), "soup and onion\n").unwrap();
    }
    // The default: a file watcher decides when the folder is checked.
    let offline = OfflineVault::open(&notes, None)
        .unwrap()
        .with_model(Arc::new(ModelSource::new(Some(model), None)));
    let first = search(
        &offline,
        json!({"query": "hotel", "mode": "semantic", "limit": 1}),
    );
    assert_eq!(paths(&first).len(), 1, "{first}");
    assert_eq!(meaning_status(&offline)["embeddedSinceStart"], 20);
    std::fs::write(
        notes.join("n7.md"),
        "the flight and the hotel of the trip\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    loop {
        let answer = search(
            &offline,
            json!({"query": "hotel", "mode": "semantic", "limit": 1}),
        );
        if paths(&answer) == ["n7.md"] {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the watcher never brought the edit in: {answer}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(meaning_status(&offline)["embeddedSinceStart"], 21);
}

#[test]
fn a_batch_holds_a_search_by_meaning_beside_other_reads() {
    let (_dir, offline) = vault(&[("Q3 offsite.md", &offsite()), ("Cooking/Soup.md", SOUP)]);
    let calls = json!({"calls": [
        {"tool": "search", "arguments": {"query": "money", "mode": "semantic", "limit": 1}},
        {"tool": "read_note", "arguments": {"path": "Cooking/Soup.md"}},
        {"tool": "search", "arguments": {"query": "soup"}},
    ]});
    let result = offline.call_tool("batch", calls).unwrap();
    assert!(result.get("isError").is_none(), "{result}");
    assert_eq!(result["_meta"][crate::offline::SOURCE_META_KEY], "index");
    let answer: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    let results = answer["results"].as_array().unwrap();
    assert!(
        results.iter().all(|result| result["ok"] == true),
        "{answer}"
    );
    let meaning: Value = serde_json::from_str(results[0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(paths(&meaning), ["Q3 offsite.md"]);
    assert!(
        results[1]["text"]
            .as_str()
            .unwrap()
            .contains("Onion soup recipe.")
    );
    let words: Value = serde_json::from_str(results[2]["text"].as_str().unwrap()).unwrap();
    assert_eq!(words["mode"], "words");
    // A batch of reads alone is the disk's, as before.
    let plain = offline
        .call_tool(
            "batch",
            json!({"calls": [{"tool": "read_note", "arguments": {"path": "Cooking/Soup.md"}}]}),
        )
        .unwrap();
    assert_eq!(plain["_meta"][crate::offline::SOURCE_META_KEY], "disk");
}

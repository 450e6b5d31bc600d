//! Obsidian's documented rules (`tests/vectors/obsidian-rules.json`, each case citing its help page) through the
//! offline reader: every vault of the file written to a temporary home, a bridge started on it with Obsidian closed,
//! every case's tool call answered from disk and judged. The plugin runs the same file against the fake `obsidian`
//! module (`obsidian-plugin/test/obsidian-rules.test.mjs`); `tests/vectors/README.md` states the checks once for
//! both, and `tests/vectors/run.mjs` is their JavaScript side.

use std::collections::BTreeMap;

use super::*;
use crate::support::repo_root;

/// The vault that holds the cases given as note text.
const NOTES_VAULT: &str = "notes";

fn vectors() -> Value {
    let path = repo_root().join("tests/vectors/obsidian-rules.json");
    let text = std::fs::read_to_string(&path).expect("the vector file reads");
    serde_json::from_str(&text).expect("the vector file is JSON")
}

fn note_case_path(id: &str) -> String {
    format!("cases/{id}.md")
}

/// Every vault by name, the notes vault built from the cases' note texts.
fn vaults_of(vectors: &Value) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut vaults = BTreeMap::new();
    for (name, files) in vectors["vaults"].as_object().expect("vaults") {
        let files = files
            .as_object()
            .expect("a vault's files")
            .iter()
            .map(|(path, text)| (path.clone(), text.as_str().expect("text").to_owned()))
            .collect();
        vaults.insert(name.clone(), files);
    }
    let notes = cases(vectors)
        .filter_map(|case| {
            let text = case["note"].as_str()?;
            Some((note_case_path(id(case)), text.to_owned()))
        })
        .collect();
    vaults.insert(NOTES_VAULT.to_owned(), notes);
    vaults
}

fn cases(vectors: &Value) -> impl Iterator<Item = &Value> {
    vectors["cases"].as_array().expect("cases").iter()
}

fn id(case: &Value) -> &str {
    case["id"].as_str().expect("a case id")
}

fn vault_of(case: &Value) -> &str {
    if case["note"].is_string() {
        NOTES_VAULT
    } else {
        case["vault"].as_str().expect("a case's vault")
    }
}

fn write_vault(dir: &Path, files: &BTreeMap<String, String>) {
    std::fs::create_dir_all(dir.join(".obsidian")).unwrap();
    for (path, text) in files {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
}

/// The note a case is about: its `input.path`, or its own note in the notes vault.
fn subject(case: &Value) -> String {
    case["input"]["path"]
        .as_str()
        .map_or_else(|| note_case_path(id(case)), str::to_owned)
}

/// The parsed JSON of a successful call (panics with the case named otherwise).
fn json_of(client: &mut Client, case: &Value, tool: &str, arguments: Value) -> Value {
    let result = client.call(tool, &arguments);
    assert_ne!(
        result["isError"],
        json!(true),
        "{}: {tool} {arguments} failed: {}",
        id(case),
        text_of(&result)
    );
    serde_json::from_str(text_of(&result)).expect("a JSON result")
}

/// The answer to a case's check, as `run.mjs` computes it.
fn answer(client: &mut Client, case: &Value) -> Value {
    let input = &case["input"];
    let mut call = |tool: &str, arguments: Value| json_of(client, case, tool, arguments);
    let project = |items: &Value, keys: &[&str]| -> Value {
        Value::Array(
            items
                .as_array()
                .expect("a list")
                .iter()
                .map(|item| {
                    let object = keys.iter().map(|key| (key.to_string(), item[*key].clone()));
                    Value::Object(object.collect())
                })
                .collect(),
        )
    };
    match case["check"].as_str().expect("a check") {
        "resolve" => {
            let result = call(
                "outgoing_links",
                json!({"path": input["from"], "limit": 500}),
            );
            let found = result["links"].as_array().unwrap().iter().find(|link| {
                link["link"] == input["link"]
                    && (input["embed"].is_null() || link["embed"] == input["embed"])
            });
            found.map_or(json!("not a link"), |link| link["resolved"].clone())
        }
        "links" => {
            let result = call(
                "outgoing_links",
                json!({"path": subject(case), "limit": 500}),
            );
            project(&result["links"], &["link", "embed"])
        }
        "tags" => call("note_metadata", json!({"path": subject(case)}))["tags"].clone(),
        "aliases" => call("note_metadata", json!({"path": subject(case)}))["aliases"].clone(),
        "frontmatter" => {
            call("note_metadata", json!({"path": subject(case)}))["frontmatter"].clone()
        }
        "blocks" => {
            let blocks = &call("note_metadata", json!({"path": subject(case)}))["blocks"];
            Value::Array(
                blocks
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|block| block["id"].clone())
                    .collect(),
            )
        }
        "headings" => project(
            &call("outline", json!({"path": subject(case)}))["headings"],
            &["level", "heading"],
        ),
        "tag_notes" => {
            let notes = &call("files_by_tag", json!({"tag": input["tag"]}))["notes"];
            Value::Array(
                notes
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|note| note["path"].clone())
                    .collect(),
            )
        }
        "tag_counts" => call("tags", json!({"sort": "name"}))["tags"].clone(),
        "property_type" => call("properties", json!({"name": input["name"]}))["type"].clone(),
        "tasks" => {
            let arguments = json!({"path_prefix": subject(case), "status": "all", "limit": 100});
            let tasks = &call("tasks", arguments)["tasks"];
            let rows = tasks.as_array().unwrap().iter().map(|task| {
                let complete = matches!(task["type"].as_str(), Some("done" | "cancelled"));
                json!({"line": task["line"], "status": task["status"], "complete": complete})
            });
            Value::Array(rows.collect())
        }
        "bases" => {
            let mut arguments = json!({"base": input["base"], "limit": 100});
            if !input["view"].is_null() {
                arguments["view"] = input["view"].clone();
            }
            let result = client.call("bases", &arguments);
            if result["isError"] == json!(true) {
                return json!({"error": true});
            }
            let result: Value = serde_json::from_str(text_of(&result)).expect("a JSON result");
            let expect = &case["expect"];
            let mut out = serde_json::Map::new();
            if expect.get("columns").is_some() {
                out.insert("columns".into(), result["columns"].clone());
            }
            let rows = result["rows"].as_array().unwrap();
            if expect.get("paths").is_some() {
                out.insert(
                    "paths".into(),
                    rows.iter().map(|row| row["path"].clone()).collect(),
                );
            }
            if expect.get("values").is_some() {
                out.insert(
                    "values".into(),
                    rows.iter().map(|row| row["values"].clone()).collect(),
                );
            }
            Value::Object(out)
        }
        other => panic!("case {}: unknown check {other:?}", id(case)),
    }
}

/// `None` when the case gives its answer: `expect`, or `differs.today` for a case marked as differing.
fn judge(case: &Value, actual: &Value) -> Option<String> {
    let marked = !case["differs"].is_null();
    let wanted = if marked {
        &case["differs"]["today"]
    } else {
        &case["expect"]
    };
    (actual != wanted).then(|| {
        let what = if marked {
            "marked as differing, but its answer changed"
        } else {
            "documented"
        };
        format!(
            "{} ({}): {what} {wanted}, got {actual}",
            id(case),
            case["help"].as_str().unwrap_or("")
        )
    })
}

#[test]
fn the_offline_reader_gives_obsidians_documented_answers() {
    let vectors = vectors();
    let mut failures = Vec::new();
    let mut judged = 0;
    for (name, files) in vaults_of(&vectors) {
        let home = TempHome::new();
        let vault = home.path().join(&name);
        write_vault(&vault, &files);
        let mut client = Client::offline(&home, &vault);
        for case in cases(&vectors).filter(|case| vault_of(case) == name) {
            judged += 1;
            failures.extend(judge(case, &answer(&mut client, case)));
        }
    }
    assert_eq!(
        judged,
        cases(&vectors).count(),
        "every case ran in its vault"
    );
    assert!(
        failures.is_empty(),
        "{} of {judged} case(s) disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

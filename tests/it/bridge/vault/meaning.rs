//! Search by meaning through the real bridge (`search` in modes `semantic` and `hybrid`), with the small model of
//! `tests/it/support/model` (four subjects: money, travel, cooking, the rest): listed in the search tool, answered by
//! the bridge with Obsidian open and with it closed, and, with no model, a message that says how to get one, after
//! which `obsmcp setup --semantic` makes it work in the same bridge, and uninstall takes the model away again.

use super::*;

fn model() -> std::path::PathBuf {
    crate::support::repo_root().join("tests/it/support/model")
}

/// The vault's one note about money and travel, in words the question does not use.
fn write_budget(setup: &Setup) {
    std::fs::create_dir_all(setup.vault.join("Trips")).unwrap();
    std::fs::write(
        setup.vault.join("Trips/Budget.md"),
        // The introduction is long enough to stay a passage of its own (a short one is joined with the next).
        format!(
            "# Budget\nIntro. {}\n\n## Costs\nThe flight and the hotel: the price of the trip.\n",
            "lorem ".repeat(70)
        ),
    )
    .unwrap();
}

/// `obsmcp` with only the test home's environment; its exit status and everything it printed.
fn obsmcp(setup: &Setup, args: &[&str]) -> (std::process::Output, String) {
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_obsmcp"))
        .args(args)
        .env_clear()
        .envs(setup.home.env())
        .env("PATH", std::env::var_os("PATH").unwrap())
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    (run, said)
}

fn answer_of(answer: &Value) -> Value {
    assert!(!is_error(answer), "{answer}");
    serde_json::from_str(&text_of(answer)).unwrap()
}

#[test]
fn search_by_meaning_is_listed_and_answered_with_obsidian_open_and_closed() {
    let setup = setup();
    write_budget(&setup);
    let host = setup.host();
    let mut bridge = setup.bridge(&["--connect-wait", "5", "--model", model().to_str().unwrap()]);
    bridge.initialize();
    let listed = bridge.request("tools/list", json!({}));
    let search = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "search")
        .unwrap()
        .clone();
    let modes = &search["inputSchema"]["properties"]["mode"];
    assert_eq!(
        modes["enum"],
        json!(["words", "phrase", "semantic", "hybrid"]),
        "{modes}"
    );
    assert!(search["inputSchema"]["properties"]["fallback"].is_object());

    // Obsidian open: the plugin has no such modes, the bridge answers.
    let open = answer_of(&bridge.call_tool(
        "search",
        json!({"query": "money for travel", "mode": "semantic", "limit": 1}),
    ));
    assert_eq!(open["results"][0]["path"], "Trips/Budget.md", "{open}");
    assert_eq!(open["results"][0]["heading"], "Costs");
    assert_eq!(open["served_from"], "index");
    // Word search still goes to Obsidian (and its answer is the plugin's).
    let words = bridge.call_tool("search", json!({"query": "hotel"}));
    assert!(!is_error(&words), "{words}");
    // A batch holding a search by meaning is the bridge's too, its other reads as the plugin gives them.
    let batch = answer_of(&bridge.call_tool(
        "batch",
        json!({"calls": [
            {"tool": "search", "arguments": {"query": "money for travel", "mode": "hybrid", "limit": 1}},
            {"tool": "read_note", "arguments": {"path": "Trips/Budget.md", "heading": "Costs"}},
        ]}),
    ));
    let inner = batch["results"].as_array().unwrap();
    assert!(inner.iter().all(|call| call["ok"] == true), "{batch}");
    assert!(
        inner[0]["text"]
            .as_str()
            .unwrap()
            .contains("Trips/Budget.md"),
        "{batch}"
    );
    assert!(
        inner[1]["text"]
            .as_str()
            .unwrap()
            .contains("the price of the trip"),
        "{batch}"
    );

    drop(host);
    let closed = answer_of(&bridge.call_tool(
        "search",
        json!({"query": "what did the flight cost", "mode": "hybrid"}),
    ));
    assert_eq!(closed["results"][0]["path"], "Trips/Budget.md", "{closed}");
    assert!(
        closed["results"][0]["word_score"].as_f64().unwrap() > 0.0,
        "{closed}"
    );
}

#[test]
fn without_a_model_the_bridge_says_how_to_get_one_and_setup_semantic_needs_no_restart() {
    let setup = setup();
    write_budget(&setup);
    let mut bridge = setup.bridge(&["--connect-wait", "1"]);
    bridge.initialize();
    let missing = bridge.call_tool("search", json!({"query": "money", "mode": "semantic"}));
    assert!(is_error(&missing), "{missing}");
    assert!(
        text_of(&missing).contains("obsmcp setup --semantic"),
        "{missing}"
    );

    let (run, said) = obsmcp(
        &setup,
        &[
            "setup",
            "--vault",
            setup.vault.to_str().unwrap(),
            "--client",
            "codex",
            "--yes",
            "--semantic",
            "--model",
            model().to_str().unwrap(),
        ],
    );
    assert!(run.status.success(), "{said}");
    assert!(said.contains("embedding model"), "{said}");
    let model_folder = setup.home.path().join(".local/state/obsmcp/model");
    assert!(model_folder.join("obsmcp-model.json").is_file(), "{said}");

    let found =
        answer_of(&bridge.call_tool("search", json!({"query": "money", "mode": "semantic"})));
    assert_eq!(found["results"][0]["path"], "Trips/Budget.md", "{found}");
    drop(bridge);

    let (run, said) = obsmcp(&setup, &["uninstall", "--yes"]);
    assert!(run.status.success(), "{said}");
    assert!(!model_folder.exists(), "{said}");
}

#[test]
fn each_vault_of_several_is_searched_by_meaning_on_its_own() {
    let home = crate::support::TempHome::new();
    let mut args = Vec::new();
    let mut folders = Vec::new();
    for (name, note) in [
        ("Work", "The price and the budget of the product.\n"),
        ("Home", "Onion soup recipe.\n"),
    ] {
        let folder = home.path().join(name);
        std::fs::create_dir_all(folder.join(".obsidian")).unwrap();
        std::fs::write(folder.join("Note.md"), note).unwrap();
        folders.push(folder);
    }
    for folder in &folders {
        args.extend(["--vault", folder.to_str().unwrap()]);
    }
    let model = model();
    args.extend(["--model", model.to_str().unwrap(), "--connect-wait", "1"]);
    let mut bridge = crate::support::bridge::Bridge::start(&home, &args);
    bridge.initialize();
    for (vault, excerpt) in [("Work", "The price"), ("Home", "Onion soup")] {
        let answer = answer_of(&bridge.call_tool(
            "search",
            json!({"query": "what does it cost", "mode": "semantic", "vault": vault}),
        ));
        let results = answer["results"].as_array().unwrap();
        assert_eq!(results.len(), 1, "{answer}");
        assert!(
            results[0]["excerpt"].as_str().unwrap().starts_with(excerpt),
            "{vault}: {answer}"
        );
    }
}

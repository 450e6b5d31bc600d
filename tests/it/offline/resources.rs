//! Parity of resources, prompts and completion: `resources/list` (every page), `resources/templates/list`, `resources/read` of
//! every listed file and of URIs that must fail, and `completion/complete` for many typed values, through the bridge
//! while the plugin serves the vault and again from disk, compared whole (results and errors alike). On the fixture
//! vault (with a hidden folder, an attachment over the blob limit and names that need percent-encoding) and on a
//! generated vault of 10,000 notes.

use super::*;

/// One request of the list.
struct Request {
    method: &'static str,
    params: Value,
}

fn request(method: &'static str, params: Value) -> Request {
    Request { method, params }
}

fn complete(typed: &str) -> Request {
    request(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "obsidian://vault/{+path}"}, "argument": {"name": "path", "value": typed}}),
    )
}

/// Every page of `resources/list` as requests, following the live cursors, and the URIs listed.
fn list_requests(client: &mut Client) -> (Vec<Request>, Vec<String>) {
    let mut requests = vec![request("resources/list", json!({}))];
    let mut uris = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = cursor
            .as_ref()
            .map_or_else(|| json!({}), |cursor| json!({ "cursor": cursor }));
        let page = client.bridge.request("resources/list", params.clone());
        let result = &page["result"];
        uris.extend(
            result["resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|resource| resource["uri"].as_str().unwrap().to_string()),
        );
        if cursor.is_some() {
            requests.push(request("resources/list", params));
        }
        match result["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    (requests, uris)
}

/// An answer as the plugin would have sent it: an offline result without its `_meta` and the `served_from` mark.
fn plain(answer: &Value) -> Value {
    let mut answer = answer.clone();
    if let Some(result) = answer.get_mut("result").and_then(Value::as_object_mut) {
        result.remove("_meta");
    }
    if let Some(text) = answer.pointer_mut("/result/contents/0/text")
        && let Some((header, body)) = text.as_str().and_then(|text| text.split_once('\n'))
    {
        let header = header.strip_suffix(" served_from=disk").unwrap_or(header);
        *text = json!(format!("{header}\n{body}"));
    }
    answer.as_object_mut().unwrap().remove("id");
    answer
}

/// Runs the requests live, stops the plugin, runs them again from disk; the differences.
fn run(home: &TempHome, vault: &Path, host: PluginHost, requests: &[Request]) -> Vec<String> {
    let mut live_client = Client::live(home, vault);
    let live: Vec<Value> = requests
        .iter()
        .map(|Request { method, params }| {
            let answer = live_client.bridge.request(method, params.clone());
            assert!(
                answer["result"]["_meta"]["obsmcp/source"].is_null(),
                "{method} {params} came from disk: {answer}"
            );
            answer
        })
        .collect();
    drop(live_client);
    host.stop();
    let mut offline = Client::offline(home, vault);
    let mut differences = Vec::new();
    for (Request { method, params }, live) in requests.iter().zip(&live) {
        let disk = offline.bridge.request(method, params.clone());
        if disk.get("result").is_some() {
            assert_eq!(
                disk["result"]["_meta"]["obsmcp/source"], "disk",
                "{method} {params}: {disk}"
            );
        }
        let mut found = Vec::new();
        diff("", &plain(live), &plain(&disk), &mut found);
        differences.extend(
            found
                .into_iter()
                .map(|difference| format!("{method} {params}: {difference}")),
        );
    }
    differences
}

/// A prompts folder with a prompt of every kind: arguments and embeds, one named like a built-in (listed beside it as
/// `vault-…`), a clash of names, a hidden one, one in a subfolder, one with broken frontmatter, one declaring
/// `__proto__`.
fn write_prompts(vault: &Path) {
    let prompts = vault.join("Prompts");
    std::fs::create_dir_all(prompts.join("Sub")).unwrap();
    for (name, text) in [
        (
            "Weekly plan.md",
            "---\ndescription: Plan the week\narguments:\n  - name: focus\n    description: The theme\n    required: true\n  - mood\n  - name: bad name\n---\n\nAround {{focus}} ({{ mood }}), {{other}} stays.\n![[Home]]\n![[Notes/Note#Nope]] ![[Missing]] ![[Secret]]\n",
        ),
        (
            "summarize-note.md",
            "---\narguments: [path]\n---\nMine: {{path}}\n",
        ),
        ("Sub/Deep one.md", "deep ![[Über uns|shown]]\n"),
        ("Dup.md", "second\n"),
        (
            "Sub/Dup.md",
            "first? no: Prompts/Dup.md sorts before Prompts/Sub/Dup.md\n",
        ),
        (
            "Broken.md",
            "---\narguments: [unclosed\n---\nstill a prompt\n",
        ),
        (
            "Proto.md",
            "---\narguments: [__proto__, ok]\n---\n{{__proto__}} {{ok}}\n",
        ),
    ] {
        std::fs::write(prompts.join(name), text).unwrap();
    }
}

/// Every prompt request worth comparing on the prompts of `write_prompts` and the built-ins.
fn prompt_requests() -> Vec<Request> {
    let mut requests = vec![request("prompts/list", json!({}))];
    for (name, arguments) in [
        ("Weekly-plan", json!({"focus": "launch", "mood": "calm"})),
        ("Weekly-plan", json!({"focus": "{{mood}} ![[Home]]"})),
        ("Weekly-plan", json!({})),
        ("summarize-note", json!({"path": "Home"})),
        ("vault-summarize-note", json!({"path": "Home"})),
        ("Proto", json!({"__proto__": "p", "ok": "k"})),
        ("Deep-one", json!({})),
        ("Dup", json!({})),
        ("Broken", json!({})),
        ("research-topic", json!({"topic": "Ünïcode"})),
        ("research-topic", json!({})),
        ("daily-review", json!({"date": "2026-03-14"})),
        ("daily-review", json!({"date": "1999-01-01"})),
        ("nope", json!({})),
    ] {
        requests.push(request(
            "prompts/get",
            json!({ "name": name, "arguments": arguments }),
        ));
    }
    for (name, argument, typed) in [
        ("summarize-note", "path", "no"),
        ("Weekly-plan", "focus", "x"),
        ("Weekly-plan", "path", ""),
        ("nope", "path", ""),
    ] {
        requests.push(request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": name}, "argument": {"name": argument, "value": typed}}),
        ));
    }
    requests
}

#[test]
fn resources_and_completion_from_disk_equal_the_plugins_on_the_fixture_vault() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    std::fs::write(
        vault.join("Attachments/Big scan.pdf"),
        vec![7u8; 10 * 1024 * 1024 + 1],
    )
    .unwrap();
    std::fs::write(vault.join("100% sure #1.md"), "percent\n").unwrap();
    std::fs::create_dir_all(vault.join("Private")).unwrap();
    std::fs::write(vault.join("Private/Secret.md"), "secret\n").unwrap();
    write_prompts(&vault);
    write_plugin_data(&vault, free_port(), TOKEN);
    let data = vault.join(".obsidian/plugins/obsmcp/data.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&data).unwrap()).unwrap();
    settings["hiddenPaths"] = json!(["Private"]);
    std::fs::write(&data, settings.to_string()).unwrap();
    let host = start_host(&vault);
    let mut client = Client::live(&home, &vault);
    let (mut requests, uris) = list_requests(&mut client);
    let listed = client.bridge.request("prompts/list", json!({}));
    let names: Vec<&str> = listed["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|prompt| prompt["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Broken",
            "Deep-one",
            "Dup",
            "Proto",
            "Weekly-plan",
            "daily-review",
            "research-topic",
            "summarize-note",
            "vault-summarize-note"
        ],
        "{listed}"
    );
    let weekly = client.bridge.request(
        "prompts/get",
        json!({"name": "Weekly-plan", "arguments": {"focus": "launch"}}),
    );
    let text = weekly["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.starts_with("Around launch (), {{other}} stays.\n[lines 1-")
            && text.contains("![[Missing]] ![[Secret]]"),
        "{weekly}"
    );
    drop(client);
    assert!(
        uris.len() >= 15,
        "the fixture vault lists {} files",
        uris.len()
    );
    assert!(
        !uris.iter().any(|uri| uri.contains("Private")),
        "hidden files are not listed"
    );
    for cursor in ["", "Notes", "Notes/", "zzz", "Über"] {
        requests.push(request("resources/list", json!({ "cursor": cursor })));
    }
    requests.push(request("resources/templates/list", json!({})));
    requests.extend(
        uris.iter()
            .map(|uri| request("resources/read", json!({ "uri": uri }))),
    );
    for uri in [
        "obsidian://vault/Projekte/Über uns.md",
        "obsidian://vault/projekte/%c3%9cber%20uns.md",
        "obsidian://vault/Private/Secret.md",
        "obsidian://vault/Notes",
        "obsidian://vault/",
        "obsidian://vault/Nope.md",
        "obsidian://vault/Home",
        "obsidian://vault/../outside.md",
        "obsidian://vault/.obsidian/app.json",
        "obsidian://vault/%FF.md",
        "file:///etc/passwd",
    ] {
        requests.push(request("resources/read", json!({ "uri": uri })));
    }
    for typed in [
        "", "h", "home", "HOME", "no", "note", "über", "about", "ar/no", "ntes", "diag", "png",
        "2026", "zzz", "secret", " ",
    ] {
        requests.push(complete(typed));
    }
    requests.push(request(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "obsidian://vault/{path}"}, "argument": {"name": "path", "value": ""}}),
    ));
    requests.push(request(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "obsidian://vault/{+path}"}, "argument": {"name": "folder", "value": ""}}),
    ));
    requests.extend(prompt_requests());
    let count = requests.len();
    let differences = run(&home, &vault, host, &requests);
    assert_same(count, &differences);
    eprintln!("resources parity on the fixture vault: {count} requests, no difference");
}

#[test]
fn resources_and_completion_from_disk_equal_the_plugins_on_a_generated_vault() {
    let home = TempHome::new();
    let vault = generated_vault(&home, 10_000, 11);
    let host = start_host(&vault);
    let mut client = Client::live(&home, &vault);
    let (mut requests, uris) = list_requests(&mut client);
    drop(client);
    assert!(uris.len() >= 10_000, "{} files listed", uris.len());
    assert!(requests.len() >= 20, "10,000 notes are at least 20 pages");
    requests.extend(
        uris.iter()
            .step_by(500)
            .map(|uri| request("resources/read", json!({ "uri": uri }))),
    );
    for typed in [
        "", "hub", "start", "index", "a", "note 1", "alias", "00", "harbor", "q", "xq",
    ] {
        requests.push(complete(typed));
    }
    let count = requests.len();
    let differences = run(&home, &vault, host, &requests);
    assert_same(count, &differences);
    eprintln!("resources parity on a generated vault: {count} requests, no difference");
}

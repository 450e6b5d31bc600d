//! Several vaults behind one bridge (`--vault A --vault B`): a call names its vault (`vault`, the first when absent),
//! each vault's plugin is reached, lost and read from disk on its own, its hidden paths and read-only setting hold for
//! it alone, resources and prompts name their vault, and `obsidian_status` reports each.

use super::*;

/// One vault of several: the fixture vault under its own name, with its plugin's port and token.
struct Vault {
    name: String,
    path: std::path::PathBuf,
    port: u16,
    token: String,
}

impl Vault {
    fn new(home: &TempHome, name: &str) -> Self {
        let path = home.path().join(name);
        crate::support::copy_dir(
            &crate::support::repo_root().join("obsidian-plugin/test/fixtures/vault"),
            &path,
        );
        let port = free_port();
        let token = format!("{:0<64}", name.to_lowercase());
        write_plugin_data(&path, port, &token);
        std::fs::create_dir_all(path.join("Prompts")).unwrap();
        std::fs::write(
            path.join("Prompts/Review.md"),
            format!("Review the notes of {name}."),
        )
        .unwrap();
        std::fs::write(
            path.join("Where.md"),
            format!("This is the vault {name}.\n"),
        )
        .unwrap();
        Self {
            name: name.into(),
            path,
            port,
            token,
        }
    }

    fn host(&self, extra: &[&str]) -> PluginHost {
        PluginHost::start(&self.path, self.port, &self.token, extra)
    }

    /// Adds a key to the plugin's `data.json` (read by the plugin at start and by the offline reader).
    fn set(&self, key: &str, value: Value) {
        let file = self.path.join(".obsidian/plugins/obsmcp/data.json");
        let mut data: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        data[key] = value;
        std::fs::write(&file, data.to_string()).unwrap();
    }
}

/// A bridge in front of `vaults`, initialized; its `initialize` result beside it.
fn bridge(home: &TempHome, vaults: &[&Vault], extra: &[&str]) -> (Bridge, Value) {
    let mut args = Vec::new();
    for vault in vaults {
        args.extend(["--vault", vault.path.to_str().unwrap()]);
    }
    args.extend_from_slice(extra);
    let mut bridge = Bridge::start(home, &args);
    let initialized = bridge.initialize();
    (bridge, initialized)
}

fn source(answer: &Value) -> &str {
    answer["result"]["_meta"]["obsmcp/source"]
        .as_str()
        .unwrap_or("obsidian")
}

/// `read_note` of Where.md in `vault` (`None`: no `vault` argument).
fn where_am_i(bridge: &mut Bridge, vault: Option<&str>) -> Value {
    let mut arguments = json!({ "path": "Where.md" });
    if let Some(vault) = vault {
        arguments["vault"] = json!(vault);
    }
    bridge.call_tool("read_note", arguments)
}

#[test]
fn two_vaults_one_open_one_closed_each_answered_by_its_own_side() {
    let home = TempHome::new();
    let work = Vault::new(&home, "Work");
    let personal = Vault::new(&home, "Personal");
    std::fs::create_dir_all(personal.path.join("Private")).unwrap();
    std::fs::write(personal.path.join("Private/Diary.md"), "dear diary\n").unwrap();
    std::fs::create_dir_all(work.path.join("Private")).unwrap();
    std::fs::write(work.path.join("Private/Diary.md"), "work diary\n").unwrap();
    personal.set("hiddenPaths", json!(["Private"]));
    let _work_host = work.host(&[]);
    let (mut bridge, initialized) = bridge(&home, &[&work, &personal], &["--connect-wait", "1"]);

    // Every listed tool takes the vault by name.
    let listed = bridge.request("tools/list", json!({}));
    for tool in listed["result"]["tools"].as_array().unwrap() {
        assert_eq!(
            tool["inputSchema"]["properties"]["vault"],
            json!({"type": "string", "enum": ["Work", "Personal"]}),
            "{}",
            tool["name"]
        );
    }
    let instructions = initialized["instructions"].as_str().unwrap();
    assert!(
        instructions.contains("Work (the default) and Personal"),
        "{instructions}"
    );

    // The default vault is the first; each vault answers from its own side.
    let default = where_am_i(&mut bridge, None);
    assert!(text_of(&default).contains("vault Work"), "{default}");
    assert_eq!(source(&default), "obsidian", "{default}");
    let closed = where_am_i(&mut bridge, Some("Personal"));
    assert!(text_of(&closed).contains("vault Personal"), "{closed}");
    assert_eq!(source(&closed), "disk", "{closed}");
    let again = where_am_i(&mut bridge, Some("work"));
    assert!(
        text_of(&again).contains("vault Work"),
        "a name in another case: {again}"
    );

    // A write goes to its vault: the open one takes it, the closed one says Obsidian must be open.
    let written = bridge.call_tool(
        "create_note",
        json!({ "path": "New.md", "content": "made in Work", "vault": "Work" }),
    );
    assert!(!is_error(&written), "{written}");
    assert!(work.path.join("New.md").is_file() && !personal.path.join("New.md").exists());
    let refused = bridge.call_tool(
        "create_note",
        json!({ "path": "New.md", "content": "x", "vault": "Personal" }),
    );
    assert!(is_error(&refused), "{refused}");
    assert!(text_of(&refused).contains("vault Personal"), "{refused}");
    assert!(!personal.path.join("New.md").exists());

    // Hidden paths are the vault's own.
    let hidden = bridge.call_tool(
        "read_note",
        json!({ "path": "Private/Diary.md", "vault": "Personal" }),
    );
    assert!(is_error(&hidden), "{hidden}");
    let shown = bridge.call_tool(
        "read_note",
        json!({ "path": "Private/Diary.md", "vault": "Work" }),
    );
    assert!(text_of(&shown).contains("work diary"), "{shown}");

    // A vault the bridge does not serve is refused with the ones it does.
    let unknown = where_am_i(&mut bridge, Some("Nowhere"));
    assert!(is_error(&unknown), "{unknown}");
    assert!(
        text_of(&unknown).contains("Work (the default), Personal"),
        "{unknown}"
    );

    // The status reports each vault.
    let status = bridge.call_tool("obsidian_status", json!({}));
    let vaults = status["result"]["structuredContent"]["vaults"]
        .as_array()
        .unwrap();
    let states: Vec<(&str, &str)> = vaults
        .iter()
        .map(|vault| {
            (
                vault["vault"].as_str().unwrap(),
                vault["state"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [("Work", "connected"), ("Personal", "disconnected")],
        "{status}"
    );
    assert_eq!(vaults[1]["upstream"]["hiddenPathRules"], 1);
    let one = bridge.call_tool("obsidian_status", json!({ "vault": "Personal" }));
    assert_eq!(
        one["result"]["structuredContent"]["vault"], "Personal",
        "{one}"
    );

    // Resources and prompts name their vault, and lists go vault by vault.
    let resources = list_all(&mut bridge, "resources/list", "resources");
    let uris: Vec<&str> = resources
        .iter()
        .map(|item| item["uri"].as_str().unwrap())
        .collect();
    let work_where = uris
        .iter()
        .find(|uri| uri.contains("Where.md") && uri.ends_with("?vault=Work"));
    let personal_where = uris
        .iter()
        .find(|uri| uri.contains("Where.md") && uri.ends_with("?vault=Personal"))
        .expect("Personal's notes are listed");
    assert!(work_where.is_some(), "{uris:?}");
    assert!(
        !uris
            .iter()
            .any(|uri| uri.contains("Private") && uri.ends_with("Personal"))
    );
    let read = bridge.request("resources/read", json!({ "uri": personal_where }));
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["uri"], json!(personal_where), "{read}");
    assert!(
        contents["text"]
            .as_str()
            .unwrap()
            .contains("vault Personal"),
        "{read}"
    );
    let prompts = list_all(&mut bridge, "prompts/list", "prompts");
    let names: Vec<&str> = prompts
        .iter()
        .map(|prompt| prompt["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"Work/Review") && names.contains(&"Personal/Review"),
        "{names:?}"
    );
    let prompt = bridge.request("prompts/get", json!({ "name": "Personal/Review" }));
    assert!(prompt.to_string().contains("notes of Personal"), "{prompt}");

    // Completion goes by the template's vault: only Personal has a note called Only-personal.
    std::fs::write(personal.path.join("Only-personal.md"), "x\n").unwrap();
    let templates = list_all(&mut bridge, "resources/templates/list", "resourceTemplates");
    let personal_template = templates
        .iter()
        .map(|template| template["uriTemplate"].as_str().unwrap())
        .find(|template| template.ends_with("?vault=Personal"))
        .expect("each vault's template names it")
        .to_owned();
    let completed = bridge.request(
        "completion/complete",
        json!({ "ref": { "type": "ref/resource", "uri": personal_template }, "argument": { "name": "path", "value": "only" } }),
    );
    assert_eq!(
        completed["result"]["completion"]["values"][0], "Only-personal.md",
        "{completed}"
    );

    // A batch runs in the vault it names.
    let batch = bridge.call_tool(
        "batch",
        json!({ "vault": "Personal", "calls": [{ "tool": "read_note", "arguments": { "path": "Where.md" } }] }),
    );
    assert!(text_of(&batch).contains("vault Personal"), "{batch}");

    // The closed vault's Obsidian starts: its calls go to its plugin, the other's never stopped.
    let _personal_host = personal.host(&[]);
    let reached = (0..100).find_map(|_| {
        std::thread::sleep(Duration::from_millis(100));
        let answer = where_am_i(&mut bridge, Some("Personal"));
        (source(&answer) == "obsidian").then_some(answer)
    });
    assert!(reached.is_some(), "Personal's plugin was never reached");
}

/// Every item of a list, following its cursors.
fn list_all(bridge: &mut Bridge, method: &str, key: &str) -> Vec<Value> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..50 {
        let params = match &cursor {
            Some(cursor) => json!({ "cursor": cursor }),
            None => json!({}),
        };
        let page = bridge.request(method, params);
        items.extend(page["result"][key].as_array().unwrap().iter().cloned());
        match page["result"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return items,
        }
    }
    panic!("{method} never ended");
}

#[test]
fn five_vaults_two_open_two_closed_one_restarting_are_each_reached_and_read_only_is_per_vault() {
    let home = TempHome::new();
    let vaults: Vec<Vault> = ["One", "Two", "Three", "Four", "Five"]
        .iter()
        .map(|name| Vault::new(&home, name))
        .collect();
    let _one = vaults[0].host(&[]);
    // Two's plugin runs read-only: its writes are refused, the others' are not.
    let _two = vaults[1].host(&["--read-only"]);
    let mut restarting = Some(vaults[4].host(&[]));
    let all: Vec<&Vault> = vaults.iter().collect();
    let (mut bridge, _) = bridge(&home, &all, &["--connect-wait", "1"]);
    // The default list stays small with five vaults' names in every tool.
    let id = bridge.send_request("tools/list", json!({}));
    let listed = bridge.wait_response(&id, Duration::from_secs(10));
    let bytes = serde_json::to_vec(&listed).unwrap().len();
    assert!(
        bytes <= 12_000,
        "the core list of five vaults is {bytes} bytes"
    );

    let sources = |bridge: &mut Bridge| -> Vec<String> {
        vaults
            .iter()
            .map(|vault| {
                let answer = where_am_i(bridge, Some(&vault.name));
                assert!(
                    text_of(&answer).contains(&format!("vault {}", vault.name)),
                    "{answer}"
                );
                source(&answer).to_owned()
            })
            .collect()
    };
    let wait_for = |bridge: &mut Bridge, wanted: &[&str]| {
        let mut last = Vec::new();
        for _ in 0..100 {
            last = sources(bridge);
            if last == wanted {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("the vaults answered from {last:?}, not {wanted:?}");
    };
    wait_for(
        &mut bridge,
        &["obsidian", "obsidian", "disk", "disk", "obsidian"],
    );

    let write = |bridge: &mut Bridge, vault: &Vault| {
        bridge.call_tool(
            "append",
            json!({ "path": "Where.md", "content": "appended", "vault": vault.name }),
        )
    };
    assert!(!is_error(&write(&mut bridge, &vaults[0])));
    let refused = write(&mut bridge, &vaults[1]);
    assert!(is_error(&refused), "{refused}");
    assert!(
        text_of(&refused).to_lowercase().contains("read-only"),
        "{refused}"
    );
    assert!(
        !std::fs::read_to_string(vaults[1].path.join("Where.md"))
            .unwrap()
            .contains("appended")
    );

    // Five's Obsidian restarts: it is read from disk meanwhile, and from its plugin again after.
    drop(restarting.take());
    wait_for(
        &mut bridge,
        &["obsidian", "obsidian", "disk", "disk", "disk"],
    );
    restarting = Some(vaults[4].host(&[]));
    wait_for(
        &mut bridge,
        &["obsidian", "obsidian", "disk", "disk", "obsidian"],
    );
    assert!(restarting.is_some());

    let status = bridge.call_tool("obsidian_status", json!({}));
    let reported = status["result"]["structuredContent"]["vaults"]
        .as_array()
        .unwrap();
    assert_eq!(reported.len(), 5, "{status}");
    assert_eq!(reported[0]["default"], true);
}

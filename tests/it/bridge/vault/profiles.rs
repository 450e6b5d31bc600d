//! How much of the catalog the bridge lists (`--tools core|all`) and `obsidian_tools`, which reaches the rest: the
//! default list is the core in at most 12,000 bytes, and every other tool stays reachable by a plain call, through
//! `obsidian_tools` (list, describe, enable with `tools/list_changed`, call), with Obsidian open or closed, and never
//! past `--read-only`.

use super::annotations::{changes, tree};
use super::*;

/// The core profile's plugin tools, as `src/bridge/profile.rs` names them.
const CORE: &[&str] = &[
    "search",
    "read_note",
    "outline",
    "list_files",
    "create_note",
    "str_replace",
    "append",
    "batch",
];

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names
}

fn structured(answer: &Value) -> &Value {
    &answer["result"]["structuredContent"]
}

fn discover(bridge: &mut Bridge, arguments: Value) -> Value {
    bridge.call_tool("obsidian_tools", arguments)
}

#[test]
fn the_default_list_is_the_core_and_every_other_tool_is_reached_by_name_or_through_obsidian_tools()
{
    let setup = setup();
    let _host = setup.host();
    let mut bridge = setup.bridge(&["--connect-wait", "5"]);
    bridge.initialize();

    let id = bridge.send_request("tools/list", json!({}));
    let listed = bridge.wait_response(&id, Duration::from_secs(10));
    let bytes = serde_json::to_vec(&listed).unwrap().len();
    assert!(bytes <= 12_000, "the core list is {bytes} bytes");
    let names = bridge.tool_names();
    let mut expected: Vec<String> = CORE.iter().map(|name| name.to_string()).collect();
    expected.extend(["obsidian_status".into(), "obsidian_tools".into()]);
    assert_eq!(sorted(names.clone()), sorted(expected));
    let tools = listed["result"]["tools"].as_array().unwrap();
    assert!(
        tools
            .iter()
            .all(|tool| tool["inputSchema"].get("$schema").is_none()),
        "the core list leaves out $schema"
    );
    // obsidian_tools can run any tool: it says it may write and delete, and never reaches outside the vault.
    let discovery = tools
        .iter()
        .find(|tool| tool["name"] == "obsidian_tools")
        .unwrap();
    let hints = &discovery["annotations"];
    assert_eq!(
        (
            &hints["readOnlyHint"],
            &hints["destructiveHint"],
            &hints["openWorldHint"]
        ),
        (&json!(false), &json!(true), &json!(false)),
        "{hints}"
    );

    // A tool outside the list, called by name, as a client that allows it does.
    let tags = bridge.call_tool("tags", json!({}));
    assert!(!is_error(&tags), "{tags}");

    // list: every tool of the catalog, the listed ones by name, the rest with a description.
    let every = discover(&mut bridge, json!({}));
    assert!(!is_error(&every), "{every}");
    let more: Vec<String> = structured(&every)["more"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect();
    let listed_core: Vec<String> =
        serde_json::from_value(structured(&every)["listed"].clone()).unwrap();
    let mut all = more.clone();
    all.extend(listed_core);
    assert_eq!(sorted(all), sorted(catalog_names()));
    assert!(
        text_of(&every).contains("- tasks (reads): "),
        "{}",
        text_of(&every)
    );

    // describe: the definition as the catalog has it.
    let described = discover(
        &mut bridge,
        json!({"action": "describe", "tools": ["set_task"]}),
    );
    let definition = &structured(&described)["tools"][0];
    assert_eq!(definition["name"], "set_task");
    assert!(
        definition["inputSchema"]["properties"].is_object(),
        "{described}"
    );

    // call: the same answer as the direct call.
    let through = discover(
        &mut bridge,
        json!({"action": "call", "name": "tags", "arguments": {}}),
    );
    assert_eq!(text_of(&through), text_of(&tags));
    let written = discover(
        &mut bridge,
        json!({"action": "call", "name": "set_property", "arguments": {"path": "Home.md", "key": "reached", "value": true}}),
    );
    assert!(!is_error(&written), "{written}");
    let home = std::fs::read_to_string(setup.vault.join("Home.md")).unwrap();
    assert!(home.contains("reached: true"), "{home}");

    // enable: a name that is not a tool changes nothing; a real one is listed and the client is told.
    let refused = discover(
        &mut bridge,
        json!({"action": "enable", "tools": ["tasks", "no_such_tool"]}),
    );
    assert!(
        is_error(&refused) && text_of(&refused).contains("no_such_tool"),
        "{refused}"
    );
    assert!(!bridge.tool_names().contains(&"tasks".to_string()));
    let enabled = discover(&mut bridge, json!({"action": "enable", "tools": ["tasks"]}));
    assert_eq!(structured(&enabled)["added"], json!(["tasks"]), "{enabled}");
    let told = bridge.wait_message(Duration::from_secs(5), |message| {
        message["method"] == "notifications/tools/list_changed"
    });
    assert!(told.is_some(), "no tools/list_changed after enable");
    assert!(bridge.tool_names().contains(&"tasks".to_string()));
    let again = discover(&mut bridge, json!({"action": "enable", "tools": ["tasks"]}));
    assert_eq!(structured(&again)["added"], json!([]), "{again}");

    // The status tool says which profile the session has and what it enabled.
    let status = bridge.call_tool("obsidian_status", json!({}));
    assert_eq!(
        structured(&status)["toolList"]["profile"],
        "core",
        "{status}"
    );
    assert_eq!(
        structured(&status)["toolList"]["enabledThisSession"],
        json!(["tasks"])
    );

    // Bad arguments are explained.
    let bad = discover(&mut bridge, json!({"action": "call"}));
    assert!(is_error(&bad) && text_of(&bad).contains("name"), "{bad}");
    let itself = discover(
        &mut bridge,
        json!({"action": "call", "name": "obsidian_tools"}),
    );
    assert!(is_error(&itself), "{itself}");
}

#[test]
fn all_lists_the_whole_catalog_and_the_instructions_fit_the_clients_cuts() {
    let setup = setup();
    let mut everything = setup.bridge(&["--tools", "all"]);
    let info = everything.initialize();
    let mut expected = catalog_names();
    expected.push("obsidian_status".into());
    assert_eq!(sorted(everything.tool_names()), sorted(expected));

    let mut core = setup.bridge(&[]);
    let info_core = core.initialize();
    for info in [&info, &info_core] {
        let instructions = info["instructions"].as_str().unwrap();
        assert!(instructions.chars().count() < 2048, "{instructions}");
    }
    let head: String = info_core["instructions"]
        .as_str()
        .unwrap()
        .chars()
        .take(512)
        .collect();
    assert!(head.contains("obsidian_tools"), "{head}");
}

#[test]
fn with_obsidian_closed_a_tool_outside_the_list_is_answered_from_disk() {
    let setup = setup();
    let mut bridge = setup.bridge(&["--connect-wait", "1"]);
    bridge.initialize();
    let through = discover(
        &mut bridge,
        json!({"action": "call", "name": "tasks", "arguments": {}}),
    );
    assert!(!is_error(&through), "{through}");
    assert_eq!(
        through["result"]["_meta"]["obsmcp/source"], "disk",
        "{through}"
    );
    let direct = bridge.call_tool("vault_info", json!({}));
    assert_eq!(
        direct["result"]["_meta"]["obsmcp/source"], "disk",
        "{direct}"
    );
}

#[test]
fn under_read_only_obsidian_tools_reads_only_and_reaches_no_writing_tool() {
    let setup = setup();
    let _host = setup.host();
    let mut bridge = setup.bridge(&["--read-only", "--connect-wait", "5"]);
    bridge.initialize();
    let listed = bridge.request("tools/list", json!({}));
    let discovery = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "obsidian_tools")
        .cloned()
        .expect("obsidian_tools is listed");
    assert_eq!(
        discovery["annotations"]["readOnlyHint"], true,
        "{discovery}"
    );
    assert_eq!(discovery["annotations"]["openWorldHint"], false);
    // Warm up, so that what a first call sets up for good is there before the snapshot.
    bridge.call_tool("vault_info", json!({}));

    let calls = [
        json!({}),
        json!({"action": "describe", "tools": ["all"]}),
        json!({"action": "enable", "tools": ["all"]}),
        json!({"action": "call", "name": "tasks", "arguments": {}}),
        json!({"action": "enable", "tools": ["create_note"]}),
        json!({"action": "call", "name": "create_note", "arguments": {"path": "Sneaky.md", "content": "x"}}),
        json!({"action": "call", "name": "batch", "arguments": {"calls": [{"tool": "delete_note", "arguments": {"path": "Home.md"}}]}}),
    ];
    for arguments in calls {
        let before = tree(setup.home.path());
        let answer = discover(&mut bridge, arguments.clone());
        let changed = changes(&before, &tree(setup.home.path()));
        assert!(
            changed.is_empty(),
            "{arguments} changed the home: {changed:?}"
        );
        let names_a_writer = arguments.to_string().contains("create_note")
            || arguments.to_string().contains("delete_note");
        assert_eq!(is_error(&answer), names_a_writer, "{arguments}: {answer}");
        if names_a_writer {
            assert!(text_of(&answer).contains("--read-only"), "{answer}");
        }
    }
    let every = discover(&mut bridge, json!({}));
    assert!(
        !text_of(&every).contains("create_note"),
        "{}",
        text_of(&every)
    );
    assert!(bridge.tool_names().iter().all(|name| name != "create_note"));
}

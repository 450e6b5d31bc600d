//! Resources and completion of the vault through the bridge: passed to the plugin while Obsidian is open, answered
//! from disk while it is closed and again by the plugin once it is back, in both protocol eras; and refused, with the
//! reason, when the bridge's policy does not offer `read_note`.

use super::*;

const TEMPLATE: &str = "obsidian://vault/{+path}";

fn modern(params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "claude-code", "version": "1" },
    });
    params
}

fn source(answer: &Value) -> &Value {
    &answer["result"]["_meta"]["obsmcp/source"]
}

#[test]
fn resources_come_from_the_plugin_from_disk_while_obsidian_is_closed_and_from_the_plugin_again() {
    let setup = setup();
    let host = setup.host();
    let mut bridge = setup.bridge(&["--connect-wait", "1"]);
    let init = bridge.initialize();
    for capability in ["resources", "prompts", "completions"] {
        assert!(
            init["capabilities"][capability].is_object(),
            "{capability}: {init}"
        );
    }
    let home_uri = json!({ "uri": "obsidian://vault/Home.md" });
    let live = bridge.request("resources/read", home_uri.clone());
    assert!(source(&live).is_null(), "{live}");
    let text = live["result"]["contents"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.starts_with("[lines 1-"), "{text}");
    let listed = bridge.request("resources/list", json!({}));
    assert!(
        listed["result"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|resource| resource["name"] == "Home.md"),
        "{listed}"
    );
    let completed = bridge.request(
        "completion/complete",
        json!({ "ref": { "type": "ref/resource", "uri": TEMPLATE }, "argument": { "name": "path", "value": "hom" } }),
    );
    assert_eq!(
        completed["result"]["completion"]["values"][0], "Home.md",
        "{completed}"
    );

    host.stop();
    let offline = bridge.request("resources/read", home_uri.clone());
    assert_eq!(source(&offline), "disk", "{offline}");
    let offline_text = offline["result"]["contents"][0]["text"].as_str().unwrap();
    assert_eq!(offline_text.replacen(" served_from=disk\n", "\n", 1), text);
    let modern_list = bridge.request("resources/list", modern(json!({})));
    assert_eq!(
        modern_list["result"]["resultType"], "complete",
        "{modern_list}"
    );
    assert_eq!(modern_list["result"]["ttlMs"], 0, "{modern_list}");
    assert_eq!(source(&modern_list), "disk");
    let missing = bridge.request(
        "resources/read",
        json!({ "uri": "obsidian://vault/Nope.md" }),
    );
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert_eq!(
        missing["error"]["data"]["uri"], "obsidian://vault/Nope.md",
        "{missing}"
    );

    let _back = setup.host();
    let again = (0..100)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(100));
            bridge.request("resources/read", home_uri.clone())
        })
        .find(|answer| source(answer).is_null())
        .expect("the plugin answers again once it is back");
    assert_eq!(again["result"]["contents"][0]["text"], text);
    let modern_read = bridge.request("resources/read", modern(home_uri));
    assert_eq!(
        modern_read["result"]["resultType"], "complete",
        "{modern_read}"
    );
    assert!(
        modern_read["result"].get("ttlMs").is_none(),
        "a read carries no cache hint: {modern_read}"
    );
}

#[test]
fn the_policy_that_hides_read_note_refuses_resources_and_says_why() {
    let setup = setup();
    let _host = setup.host();
    for (flags, said) in [
        (
            vec!["--deny-tool", "read_note"],
            "blocked by this bridge's --deny-tool list",
        ),
        (
            vec!["--allow-tool", "search"],
            "not in this bridge's --allow-tool list",
        ),
    ] {
        let mut bridge = setup.bridge(&flags);
        bridge.initialize();
        for (method, params) in [
            ("resources/list", json!({})),
            (
                "resources/read",
                json!({ "uri": "obsidian://vault/Home.md" }),
            ),
            (
                "completion/complete",
                json!({ "ref": { "type": "ref/resource", "uri": TEMPLATE }, "argument": { "name": "path", "value": "" } }),
            ),
        ] {
            let answer = bridge.request(method, params);
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert!(
                message.starts_with(&format!(
                    "{method} is refused: resources read notes as read_note does"
                )) && message.contains(said),
                "{flags:?} {method}: {answer}"
            );
        }
    }
    let mut read_only = setup.bridge(&["--read-only"]);
    read_only.initialize();
    let answer = read_only.request(
        "resources/read",
        json!({ "uri": "obsidian://vault/Home.md" }),
    );
    assert!(
        answer["result"]["contents"][0]["text"].is_string(),
        "reads are allowed read-only: {answer}"
    );
}

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

/// Waits for a notification `method` (whose params satisfy `pick`) within a few seconds.
fn heard(bridge: &mut Bridge, method: &str, pick: impl Fn(&Value) -> bool) -> Option<Value> {
    bridge.wait_message(Duration::from_secs(5), |message| {
        message["method"] == method && pick(&message["params"])
    })
}

#[test]
fn subscribed_notes_and_the_lists_are_heard_through_the_bridge_in_both_eras_and_after_a_restart() {
    let setup = setup();
    let mut bridge = setup.bridge(&["--connect-wait", "1"]);
    bridge.initialize();
    let home = "obsidian://vault/Home.md";
    let refused = bridge.request("resources/subscribe", json!({ "uri": home }));
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Obsidian is closed"),
        "a subscription while Obsidian is closed says why: {refused}"
    );
    let host = setup.host();
    let ready = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(100));
        bridge.request("resources/subscribe", json!({ "uri": home }))["result"] == json!({})
    });
    assert!(ready, "subscribing works once the plugin is up");
    let listen = bridge.send_request(
        "subscriptions/listen",
        modern(json!({ "notifications": { "resourcesListChanged": true, "promptsListChanged": true, "resourceSubscriptions": ["obsidian://vault/Orphan.md"] } })),
    );
    let ack = heard(
        &mut bridge,
        "notifications/subscriptions/acknowledged",
        |_| true,
    )
    .expect("the listen stream is acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        listen
    );
    // Let the bridge's own listen stream upstream take the new filter.
    std::thread::sleep(Duration::from_millis(500));

    let appended = bridge.call_tool("append", json!({ "path": "Home", "content": "changed" }));
    assert!(!is_error(&appended), "{appended}");
    let updated = heard(&mut bridge, "notifications/resources/updated", |params| {
        params["uri"] == home && params.get("_meta").is_none()
    })
    .expect("the 2025 client hears its note change");
    assert_eq!(updated["params"], json!({ "uri": home }));
    bridge.call_tool("append", json!({ "path": "Orphan", "content": "changed" }));
    let tagged = heard(&mut bridge, "notifications/resources/updated", |params| {
        params["uri"] == "obsidian://vault/Orphan.md"
    })
    .expect("the listen stream hears the note it named");
    assert_eq!(
        tagged["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        listen
    );
    bridge.call_tool(
        "create_note",
        json!({ "path": "Prompts/Fresh", "content": "a prompt" }),
    );
    assert!(
        heard(
            &mut bridge,
            "notifications/resources/list_changed",
            |params| params.get("_meta").is_none()
        )
        .is_some()
    );
    assert!(
        heard(
            &mut bridge,
            "notifications/prompts/list_changed",
            |params| params["_meta"]["io.modelcontextprotocol/subscriptionId"] == listen
        )
        .is_some()
    );

    // Obsidian restarts: the new session gets the subscriptions again.
    host.stop();
    let _back = setup.host();
    let again = (0..100).find_map(|_| {
        std::thread::sleep(Duration::from_millis(100));
        let answer = bridge.call_tool(
            "append",
            json!({ "path": "Home", "content": "after the restart" }),
        );
        (!is_error(&answer)).then_some(answer)
    });
    assert!(again.is_some(), "the plugin is back");
    assert!(
        heard(
            &mut bridge,
            "notifications/resources/updated",
            |params| params["uri"] == home && params.get("_meta").is_none()
        )
        .is_some(),
        "the subscription survived the restart"
    );
}

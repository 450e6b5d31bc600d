//! Obsidian's startup through the bridge: until Obsidian's metadata cache is complete the plugin says so, and
//! `obsidian_status` shows how far indexing is. The host holds the fake's indexing before its first note
//! (`--index-hold 0`), so the "still indexing" state lasts as long as the test needs, whatever the machine's speed.

use super::*;

#[test]
fn obsidian_status_shows_obsidian_indexing_until_the_cache_is_complete() {
    let setup = setup();
    let held = PluginHost::start(&setup.vault, setup.port, TOKEN, &["--index-hold", "0"]);
    let mut bridge = setup.bridge(&[]);
    bridge.initialize();
    // The first call also brings the bridge's session up; the status asks only a connected plugin.
    let info = text_of(&bridge.call_tool("vault_info", json!({})));
    assert!(
        info.starts_with(r#"{"indexing":{"done":0,"total":"#),
        "{info}"
    );
    let status = bridge.call_tool("obsidian_status", json!({}));
    let index = &status["result"]["structuredContent"]["obsidianIndex"];
    assert_eq!(index["state"], "indexing", "{status}");
    assert_eq!(index["done"], 0, "{status}");
    assert!(index["total"].as_u64().unwrap() > 0, "{status}");
    assert!(
        index["hint"].as_str().unwrap().contains("call again"),
        "{status}"
    );
    held.stop();

    let _host = setup.host();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let status = bridge.call_tool("obsidian_status", json!({}));
        let index = &status["result"]["structuredContent"]["obsidianIndex"];
        if index["state"] == "resolved" {
            break;
        }
        assert!(Instant::now() < deadline, "never resolved: {status}");
        // Any call brings the session back after the restart; vault_info answers at once.
        bridge.call_tool("vault_info", json!({}));
        std::thread::sleep(Duration::from_millis(100));
    }
}

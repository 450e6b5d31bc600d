//! obsmcp through an MCP client it did not write: the official Rust SDK (rmcp) as the client, against the bridge over
//! stdio (where it settles on 2026-07-28 after `server/discover`) and against the plugin over Streamable HTTP (2025
//! era). Every other test here speaks MCP through the project's own
//! helpers, which would share any misreading of the spec with the code they test.

use std::collections::BTreeSet;

use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt as _, ServiceExt as _};
use serde_json::{Value, json};

use crate::support::{PluginHost, TempHome, fixture_vault, free_port, write_plugin_data};

const TOKEN: &str = "f00df00df00df00df00df00df00df00df00df00df00df00df00df00df00df00d";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// `obsmcp bridge ARGS…` as rmcp's child-process transport starts it, in the test's home.
fn bridge_command(home: &TempHome, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_obsmcp"));
    command
        .arg("bridge")
        .args(args)
        .args(["--log-level", "warn"])
        .envs(home.env());
    command
}

fn read_call(path: &str) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new("read_note");
    params.arguments = json!({ "path": path }).as_object().cloned();
    params
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    let value = serde_json::to_value(result).unwrap();
    value["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_sdk_client_lists_and_reads_through_the_bridge_while_obsidian_is_closed() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    write_plugin_data(&vault, free_port(), TOKEN);
    runtime().block_on(async {
        let transport =
            TokioChildProcess::new(bridge_command(&home, &["--vault", vault.to_str().unwrap()]))
                .unwrap();
        // Discover mode: the stateless era only, no fallback to `initialize`.
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        let client =
            ().serve_with_lifecycle(transport, lifecycle)
                .await
                .expect("the SDK's discovery of the bridge");
        let server = client.peer_info().expect("the server's discover result");
        assert_eq!(server.protocol_version, ProtocolVersion::V_2026_07_28);
        assert_eq!(
            server.server_info.as_ref().map(|info| info.name.as_str()),
            Some("obsmcp")
        );
        let tools: BTreeSet<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect();
        for expected in ["read_note", "search", "append", "obsidian_status"] {
            assert!(tools.contains(expected), "{expected} in {tools:?}");
        }
        let read = client.call_tool(read_call("Home")).await.unwrap();
        assert_ne!(read.is_error, Some(true), "{read:?}");
        let text = text_of(&read);
        assert!(
            text.starts_with("[lines 1-")
                && text.lines().next().unwrap().ends_with(" served_from=disk"),
            "{text}"
        );
        let meta = serde_json::to_value(&read).unwrap()["_meta"].clone();
        assert_eq!(meta["obsmcp/source"], "disk");
        client.cancel().await.unwrap();
    });
}

#[test]
fn the_sdk_client_talks_to_the_plugin_directly_and_through_the_bridge() {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let port = free_port();
    let host = PluginHost::start(&vault, port, TOKEN, &[]);
    runtime().block_on(async {
        let config =
            StreamableHttpClientTransportConfig::with_uri(format!("http://127.0.0.1:{port}/mcp"))
                .auth_header(TOKEN);
        let direct =
            ().serve(StreamableHttpClientTransport::from_config(config))
                .await
                .expect("the SDK's handshake with the plugin");
        let from_plugin = direct.call_tool(read_call("Home")).await.unwrap();
        assert_ne!(from_plugin.is_error, Some(true), "{from_plugin:?}");

        let transport =
            TokioChildProcess::new(bridge_command(&home, &["--vault", vault.to_str().unwrap()]))
                .unwrap();
        let bridged = ().serve(transport).await.expect("the SDK's handshake with the bridge");
        let through = bridged.call_tool(read_call("Home")).await.unwrap();
        assert_eq!(
            serde_json::to_value(&through).unwrap(),
            serde_json::to_value(&from_plugin).unwrap(),
            "the bridge passes the plugin's answer on as it is"
        );
        let wrong: Value =
            serde_json::to_value(direct.call_tool(read_call("../outside")).await.unwrap()).unwrap();
        assert_eq!(wrong["isError"], true, "{wrong}");
        direct.cancel().await.unwrap();
        bridged.cancel().await.unwrap();
    });
    host.stop();
}

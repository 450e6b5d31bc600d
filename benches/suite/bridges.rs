//! The stdio bridges the suite puts side by side: `obsmcp bridge` and the pinned npm peers of `tests/peers/`. Each is
//! started in the mode that bridges stdio to the plugin's Streamable HTTP endpoint with an `Authorization` header,
//! and in its quietest logging mode, so a peer's figures never include its own chatter on stderr.

use std::path::Path;

use serde_json::Value;

use crate::support::bridge::Bridge;
use crate::support::{TempHome, repo_root};

/// The plugin's bearer token in every run of the suite.
pub const TOKEN: &str = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";

/// One contender of the suite.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BridgeKind {
    Obsmcp,
    McpRemote,
    Supergateway,
}

impl BridgeKind {
    /// Every contender, obsmcp first: the order of every table's columns.
    pub const ALL: [BridgeKind; 3] = [Self::Obsmcp, Self::McpRemote, Self::Supergateway];

    /// The key of this contender in the JSON results.
    pub fn key(self) -> &'static str {
        match self {
            Self::Obsmcp => "obsmcp",
            Self::McpRemote => "mcp-remote",
            Self::Supergateway => "supergateway",
        }
    }

    /// The npm package of a peer (`None` for obsmcp).
    pub fn package(self) -> Option<&'static str> {
        match self {
            Self::Obsmcp => None,
            Self::McpRemote => Some("mcp-remote"),
            Self::Supergateway => Some("supergateway"),
        }
    }

    /// The installed version of a peer, read from its `package.json` under `tests/peers/node_modules`.
    pub fn version(self) -> Option<String> {
        let package = self.package()?;
        let manifest = peer_folder(package).join("package.json");
        let text = std::fs::read_to_string(&manifest).unwrap_or_else(|_| {
            panic!(
                "{} is missing: run `npm ci --prefix tests/peers`",
                manifest.display()
            )
        });
        let manifest: Value = serde_json::from_str(&text).expect("a package.json");
        Some(manifest["version"].as_str().expect("a version").to_string())
    }

    /// The column heading: the name, with the version for a peer.
    pub fn title(self) -> String {
        match self.version() {
            Some(version) => format!("{} {version}", self.key()),
            None => "obsmcp bridge".into(),
        }
    }

    /// The command line, for the record: what exactly was measured.
    pub fn command_line(self) -> &'static str {
        match self {
            Self::Obsmcp => "obsmcp bridge --vault VAULT",
            Self::McpRemote => {
                "node mcp-remote/dist/proxy.js URL --transport http-only --header 'Authorization: Bearer TOKEN' --silent"
            }
            Self::Supergateway => {
                "node supergateway/dist/index.js --streamableHttp URL --oauth2Bearer TOKEN --logLevel none"
            }
        }
    }

    /// Starts this bridge on stdio, pointed at the plugin of `vault` listening on `port`.
    pub fn start(self, home: &TempHome, vault: &Path, port: u16) -> Bridge {
        let url = format!("http://127.0.0.1:{port}/mcp");
        match self {
            // The plugin answers every call, searches too: the bridge's own index has rows of its own (scale.rs).
            // Every tool listed, as the peers list the plugin's (the default core list is measured by
            // tests/context/tools-list.mjs).
            Self::Obsmcp => Bridge::start(
                home,
                &[
                    "--vault",
                    vault.to_str().unwrap(),
                    "--index-search",
                    "never",
                    "--tools",
                    "all",
                ],
            ),
            Self::McpRemote => {
                let script = peer_folder("mcp-remote").join("dist/proxy.js");
                let header = format!("Authorization: Bearer {TOKEN}");
                Bridge::start_node(
                    home,
                    &[
                        script.to_str().unwrap(),
                        &url,
                        "--transport",
                        "http-only",
                        "--header",
                        &header,
                        "--silent",
                    ],
                )
            }
            Self::Supergateway => {
                let script = peer_folder("supergateway").join("dist/index.js");
                Bridge::start_node(
                    home,
                    &[
                        script.to_str().unwrap(),
                        "--streamableHttp",
                        &url,
                        "--oauth2Bearer",
                        TOKEN,
                        "--logLevel",
                        "none",
                    ],
                )
            }
        }
    }
}

fn peer_folder(package: &str) -> std::path::PathBuf {
    let folder = repo_root().join("tests/peers/node_modules").join(package);
    assert!(
        folder.exists(),
        "{} is missing: run `npm ci --prefix tests/peers`",
        folder.display()
    );
    folder
}

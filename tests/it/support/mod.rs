//! Helpers shared by the integration tests: fresh temporary homes, free ports, the pinned npm peers, and guards that
//! own every child process — a guard kills its child when dropped and, when the test is failing, prints what the
//! child wrote on stderr so the failure explains itself. This file holds the homes, ports, fixture vaults and the
//! peers' paths; the process guards and signals are `process.rs`, the servers the tests start (the plugin host,
//! server-everything, impostors) `servers.rs`, the test-side MCP client `bridge.rs`, and the seeded random numbers that
//! the soak and the setup sequences replay `rng.rs`.

#![allow(dead_code)]

pub mod bridge;
mod process;
pub mod rng;
mod servers;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

pub use process::{
    ChildGuard, children_of, line_channel, process_alive, rss_kib, signal, wait_until,
};
pub use servers::{
    EverythingServer, PluginHost, start_failing, start_impostor, start_listener, start_sessions,
};

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh temporary folder standing in for a user's home, with XDG folders inside it.
pub struct TempHome {
    pub dir: tempfile::TempDir,
}

impl TempHome {
    pub fn new() -> Self {
        Self {
            dir: tempfile::Builder::new()
                .prefix("obsmcp-it-")
                .tempdir()
                .expect("a temporary folder"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Environment variables that point every lookup of home, cache and state into this folder.
    pub fn env(&self) -> Vec<(String, PathBuf)> {
        vec![
            ("HOME".into(), self.path().to_path_buf()),
            ("XDG_CACHE_HOME".into(), self.path().join(".cache")),
            ("XDG_STATE_HOME".into(), self.path().join(".local/state")),
            ("XDG_CONFIG_HOME".into(), self.path().join(".config")),
            ("XDG_DATA_HOME".into(), self.path().join(".local/share")),
        ]
    }
}

/// A port that was free a moment ago (bound to port 0, then released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind a free port")
        .local_addr()
        .unwrap()
        .port()
}

/// Whether something accepts connections on a loopback port.
pub fn port_open(port: u16) -> bool {
    std::net::TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(200))
        .is_ok()
}

/// Copies a folder tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A copy of the plugin's fixture vault in `home`.
pub fn fixture_vault(home: &TempHome) -> PathBuf {
    let vault = home.path().join("Vault");
    copy_dir(
        &repo_root().join("obsidian-plugin/test/fixtures/vault"),
        &vault,
    );
    vault
}

/// Writes the plugin's `data.json` as setup would, so a bridge started before the plugin knows where to look.
pub fn write_plugin_data(vault: &Path, port: u16, token: &str) {
    let folder = vault.join(".obsidian/plugins/obsmcp");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("data.json"),
        format!("{{\"port\":{port},\"token\":\"{token}\",\"readOnly\":false}}"),
    )
    .unwrap();
}

/// Runs a Node script of the repository (e.g. the plugin's vault generator) from its root and returns its stdout.
pub fn node(args: &[&str]) -> String {
    let output = Command::new("node")
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("node runs");
    assert!(
        output.status.success(),
        "node {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A binary of the pinned npm peers, or a clear failure saying how to install them.
pub fn peer_bin(name: &str) -> PathBuf {
    let path = repo_root().join("tests/peers/node_modules/.bin").join(name);
    assert!(
        path.exists(),
        "{} is missing: run `npm ci --prefix tests/peers`",
        path.display()
    );
    path
}

/// The entry script of `@modelcontextprotocol/server-everything`, run with `node` directly so that killing the
/// process kills the server (no npm or shell wrapper in between).
pub fn everything_script() -> PathBuf {
    let path = repo_root()
        .join("tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        path.exists(),
        "{} is missing: run `npm ci --prefix tests/peers`",
        path.display()
    );
    path
}

//! The programs the tests talk to, each owned by a guard and waited for until it listens: the obsmcp plugin hosted in
//! Node, `@modelcontextprotocol/server-everything`, and the impostor and failing servers that pose as the plugin.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::process::{ChildGuard, line_channel, signal, wait_until};
use super::{everything_script, port_open, repo_root};

/// The obsmcp plugin hosted in Node, as Obsidian would run it.
pub struct PluginHost {
    pub guard: ChildGuard,
    pub port: u16,
}

impl PluginHost {
    /// Starts the host on `vault` and waits (bounded) for `listening on PORT`.
    pub fn start(vault: &Path, port: u16, token: &str, extra: &[&str]) -> Self {
        let host = repo_root().join("obsidian-plugin/test/host.mjs");
        assert!(host.exists(), "{} is missing", host.display());
        let mut command = Command::new("node");
        command
            .arg(host)
            .arg("--vault")
            .arg(vault)
            .args(["--port", &port.to_string(), "--token", token])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped());
        let mut guard = ChildGuard::spawn("plugin host", command);
        let lines = line_channel(guard.child.stdout.take().unwrap());
        // A host that first waits for the fake's indexing (100,000 notes in a benchmark) takes longer to listen.
        let limit = if extra.contains(&"--wait-indexed") {
            300
        } else {
            20
        };
        match lines.recv_timeout(Duration::from_secs(limit)) {
            Ok(line) if line.trim() == format!("listening on {port}") => {}
            other => panic!("plugin host did not start: {other:?}\n{}", guard.stderr()),
        }
        Self { guard, port }
    }

    /// Stops the host as Obsidian quitting would (SIGTERM: the plugin unloads) and waits for it.
    pub fn stop(mut self) {
        signal(self.guard.pid(), "TERM");
        assert!(
            self.guard.wait_exit(Duration::from_secs(5)).is_some(),
            "plugin host did not stop on SIGTERM"
        );
    }
}

/// `@modelcontextprotocol/server-everything` over Streamable HTTP (`/mcp`) or legacy SSE (`/sse`).
pub struct EverythingServer {
    pub guard: ChildGuard,
    pub port: u16,
}

impl EverythingServer {
    /// Starts it in `mode` (`streamableHttp` or `sse`) and waits (bounded) until the port accepts connections.
    pub fn start(mode: &str, port: u16) -> Self {
        let mut command = Command::new("node");
        command
            .arg(everything_script())
            .arg(mode)
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        let guard = ChildGuard::spawn("server-everything", command);
        assert!(
            wait_until(Duration::from_secs(20), || port_open(port)),
            "server-everything did not listen:\n{}",
            guard.stderr()
        );
        Self { guard, port }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

/// A program posing as the obsmcp plugin on `port` (`impostor.mjs`), logging every request it gets to `log`.
pub fn start_impostor(port: u16, log: &Path) -> ChildGuard {
    let mut command = Command::new("node");
    command
        .arg(repo_root().join("tests/it/support/impostor.mjs"))
        .arg(port.to_string())
        .arg(log);
    start_listener("impostor", command)
}

/// A server on `port` that fails every request (`failing.mjs`: MODE "500" or "close"), logging each one to `log`.
pub fn start_failing(port: u16, mode: &str, log: &Path) -> ChildGuard {
    let mut command = Command::new("node");
    command
        .arg(repo_root().join("tests/it/support/failing.mjs"))
        .arg(port.to_string())
        .arg(mode)
        .arg(log);
    start_listener("failing server", command)
}

/// A 2025-era MCP server with sessions on `port` (`sessions.mjs`) that forgets them when it restarts.
pub fn start_sessions(port: u16) -> ChildGuard {
    let mut command = Command::new("node");
    command
        .arg(repo_root().join("tests/it/support/sessions.mjs"))
        .arg(port.to_string());
    start_listener("sessions server", command)
}

/// Starts a server that prints `up` on stdout once it listens, and waits for that line.
pub fn start_listener(name: &str, mut command: Command) -> ChildGuard {
    command.stdin(Stdio::null()).stdout(Stdio::piped());
    let mut guard = ChildGuard::spawn(name, command);
    let lines = line_channel(guard.child.stdout.take().unwrap());
    let line = lines
        .recv_timeout(Duration::from_secs(10))
        .unwrap_or_else(|_| panic!("{name} did not start: {}", guard.stderr()));
    assert_eq!(line.trim(), "up");
    guard
}

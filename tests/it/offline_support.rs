//! Helpers for the offline-mode tests: a copy of the fixture vault, the plugin hosted in Node as a child process
//! (killed on drop, its stderr printed when a test fails), and a minimal MCP client over Streamable HTTP.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// The repository root (the `obsmcp` package's folder).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The committed fixture vault.
pub fn fixture_vault() -> PathBuf {
    repo_root().join("obsidian-plugin/test/fixtures/vault")
}

/// Copies a folder tree (files and folders; symlinks are not expected in fixtures).
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

/// A fresh copy of the fixture vault in a temporary folder.
pub fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("obsmcp-offline-")
        .tempdir()
        .unwrap();
    copy_dir(&fixture_vault(), dir.path());
    dir
}

/// Runs a Node script of the plugin's test folder (e.g. the vault generator) and returns its stdout.
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

/// A port that was free a moment ago.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The plugin running under Node on a vault; killed when dropped.
pub struct Host {
    child: Child,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    pub url: String,
    pub token: String,
}

impl Host {
    /// Starts `host.mjs` on `vault` and waits (bounded) for `listening on N`.
    pub fn start(vault: &Path) -> Host {
        let token: String = (0..64)
            .map(|i| char::from(b"0123456789abcdef"[(i * 7 + 3) % 16]))
            .collect();
        let mut last_error = String::new();
        for _ in 0..3 {
            let port = free_port();
            let mut child = Command::new("node")
                .arg(repo_root().join("obsidian-plugin/test/host.mjs"))
                .args([
                    "--vault",
                    vault.to_str().unwrap(),
                    "--port",
                    &port.to_string(),
                    "--token",
                    &token,
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("node starts");
            let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
            let sink = std::sync::Arc::clone(&stderr);
            let mut err = child.stderr.take().unwrap();
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = std::io::Read::read_to_string(&mut err, &mut text); // partial stderr is still worth showing
                sink.lock().unwrap().push_str(&text);
            });
            let stdout = child.stdout.take().unwrap();
            let (lines, line) = mpsc::channel();
            std::thread::spawn(move || {
                for text in BufReader::new(stdout).lines().map_while(Result::ok) {
                    if lines.send(text).is_err() {
                        break;
                    }
                }
            });
            match line.recv_timeout(Duration::from_secs(30)) {
                Ok(text) if text == format!("listening on {port}") => {
                    return Host {
                        child,
                        stderr,
                        url: format!("http://127.0.0.1:{port}/mcp"),
                        token,
                    };
                }
                other => {
                    let _ = child.kill(); // it failed to start; reaping it is all that is left to do
                    let _ = child.wait();
                    last_error = format!("{other:?}; stderr: {}", stderr.lock().unwrap());
                }
            }
        }
        panic!("the plugin host did not start: {last_error}");
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill(); // already exited is fine
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("plugin host stderr:\n{}", self.stderr.lock().unwrap());
        }
    }
}

/// A minimal MCP client: one session, `tools/call` returning the `CallToolResult` JSON.
pub struct Client {
    http: reqwest::Client,
    url: String,
    token: String,
    session: Option<String>,
    next_id: u64,
    pub runtime: tokio::runtime::Runtime,
}

impl Client {
    /// Opens a session with `initialize` and `notifications/initialized`.
    pub fn connect(host: &Host) -> Client {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        // No idle connections: Node closes them after 5 s, and reusing one at that moment fails the request.
        let http = reqwest::Client::builder()
            .no_proxy()
            .pool_max_idle_per_host(0)
            .timeout(Duration::from_secs(120))
            .build()
            .unwrap();
        let mut client = Client {
            http,
            url: host.url.clone(),
            token: host.token.clone(),
            session: None,
            next_id: 1,
            runtime,
        };
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "obsmcp-offline-test", "version": "0"}}),
        );
        assert!(init.get("protocolVersion").is_some(), "{init}");
        client.post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client
    }

    fn post(&mut self, body: Value) -> (reqwest::header::HeaderMap, String) {
        let mut request = self
            .http
            .post(&self.url)
            .bearer_auth(&self.token)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(session) = &self.session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-06-18");
        }
        self.runtime.block_on(async {
            let response = request.send().await.expect("the host answers");
            let headers = response.headers().clone();
            (headers, response.text().await.unwrap())
        })
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let (headers, text) =
            self.post(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        if let Some(session) = headers.get("mcp-session-id") {
            self.session = Some(session.to_str().unwrap().to_string());
        }
        let messages: Vec<Value> = if text.trim_start().starts_with('{') {
            vec![serde_json::from_str(&text).unwrap()]
        } else {
            text.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|data| serde_json::from_str(data.trim_start()).unwrap())
                .collect()
        };
        let answer = messages
            .into_iter()
            .find(|m| m["id"] == json!(id))
            .unwrap_or_else(|| panic!("no answer to {method}: {text}"));
        assert!(answer.get("error").is_none(), "{method} failed: {answer}");
        answer["result"].clone()
    }

    /// Calls a tool and returns its `CallToolResult`.
    pub fn call(&mut self, name: &str, arguments: &Value) -> Value {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
    }
}

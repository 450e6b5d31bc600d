//! A test-side MCP client for `obsmcp bridge`: it starts the real binary with a temporary home, writes JSON-RPC
//! lines to its stdin and reads every line of its stdout, checking that each one is a JSON-RPC 2.0 message.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{ChildGuard, TempHome, line_channel};

/// The default bound on waiting for one answer.
pub const ANSWER_LIMIT: Duration = Duration::from_secs(30);

/// A running bridge and its stdio.
pub struct Bridge {
    pub guard: ChildGuard,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    buffered: Vec<Value>,
    /// Every message read so far, in order.
    pub seen: Vec<Value>,
    /// Lines of stdout that were not JSON-RPC 2.0 messages: must stay empty.
    pub invalid: Vec<String>,
    next_id: u64,
    pub log_file: PathBuf,
    /// For a bridge started unread: sending on it starts reading its stdout.
    gate: Option<std::sync::mpsc::Sender<()>>,
}

impl Bridge {
    /// Starts `obsmcp bridge ARGS…` with the home's environment.
    pub fn start(home: &TempHome, args: &[&str]) -> Self {
        Self::start_with_env(home, args, &[])
    }

    /// Starts it with extra environment variables.
    pub fn start_with_env(home: &TempHome, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_obsmcp"));
        command.arg("bridge").args(args);
        // A proxy that does not exist: the bridge must never send loopback traffic through a user's proxy.
        command
            .env("HTTP_PROXY", "http://127.0.0.1:9")
            .env("http_proxy", "http://127.0.0.1:9");
        Self::launch("obsmcp bridge", command, home, env, false)
    }

    /// Starts `obsmcp bridge ARGS…` without reading its stdout until [`Bridge::start_reading`]: a client that has
    /// stopped reading its answers.
    pub fn start_unread(home: &TempHome, args: &[&str]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_obsmcp"));
        command.arg("bridge").args(args);
        Self::launch("obsmcp bridge", command, home, &[], true)
    }

    /// Starts reading the stdout of a bridge started unread.
    pub fn start_reading(&mut self) {
        if let Some(gate) = self.gate.take() {
            let _ = gate.send(());
        }
    }

    /// Starts another stdio bridge under Node (`node ARGS…`), for side-by-side comparisons.
    pub fn start_node(home: &TempHome, args: &[&str]) -> Self {
        let mut command = Command::new("node");
        command.args(args);
        Self::launch("node bridge", command, home, &[], false)
    }

    /// Starts any other stdio server (`program ARGS…`), for side-by-side comparisons.
    pub fn start_program(home: &TempHome, program: &Path, args: &[&str]) -> Self {
        let mut command = Command::new(program);
        command.args(args);
        Self::launch("stdio server", command, home, &[], false)
    }

    fn launch(
        name: &str,
        mut command: Command,
        home: &TempHome,
        env: &[(&str, &str)],
        unread: bool,
    ) -> Self {
        command.stdin(Stdio::piped()).stdout(Stdio::piped());
        command
            .env_remove("OBSIDIAN_MCP_URL")
            .env_remove("OBSIDIAN_MCP_STARTUP_GRACE_MS");
        command.env("RUST_BACKTRACE", "1");
        for (name, value) in home.env() {
            command.env(name, value);
        }
        for (name, value) in env {
            command.env(name, value);
        }
        let mut guard = ChildGuard::spawn(name, command);
        let stdin = guard.child.stdin.take();
        let stdout = guard.child.stdout.take().unwrap();
        let (lines, gate) = if unread {
            let (gate, opened) = std::sync::mpsc::channel::<()>();
            let (sender, receiver) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                if opened.recv().is_err() {
                    return;
                }
                for line in line_channel(stdout) {
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            });
            (receiver, Some(gate))
        } else {
            (line_channel(stdout), None)
        };
        let log_file = home.path().join(".local/state/obsmcp/bridge.log");
        Self {
            guard,
            stdin,
            lines,
            buffered: Vec::new(),
            seen: Vec::new(),
            invalid: Vec::new(),
            next_id: 1,
            log_file,
            gate,
        }
    }

    /// Writes raw bytes (a line must end with `\n`).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("write to the bridge");
        stdin.flush().expect("flush to the bridge");
    }

    /// Writes one message as a line.
    pub fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.send_raw(&line);
    }

    /// Sends a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        id
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and waits for its answer.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.wait_response(&id, ANSWER_LIMIT)
    }

    /// Waits for the answer to `id`; panics after `limit`.
    pub fn wait_response(&mut self, id: &Value, limit: Duration) -> Value {
        let id = id.clone();
        self.wait_message(limit, |message| {
            message.get("id") == Some(&id) && message.get("method").is_none()
        })
        .unwrap_or_else(|| panic!("no answer to request {id} within {limit:?}"))
    }

    /// Waits for a message matching `predicate` (from those not yet claimed, then new ones).
    pub fn wait_message(
        &mut self,
        limit: Duration,
        mut predicate: impl FnMut(&Value) -> bool,
    ) -> Option<Value> {
        if let Some(index) = self.buffered.iter().position(&mut predicate) {
            return Some(self.buffered.remove(index));
        }
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let Some(message) = self.accept(line) else {
                        continue;
                    };
                    if predicate(&message) {
                        return Some(message);
                    }
                    self.buffered.push(message);
                }
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => {
                    if Instant::now() >= deadline {
                        return None;
                    }
                    // Stdout closed: nothing more will come.
                    return None;
                }
            }
        }
    }

    /// Reads whatever arrives within `limit` into the buffer.
    pub fn drain(&mut self, limit: Duration) {
        let deadline = Instant::now() + limit;
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            if let Some(message) = self.accept(line) {
                self.buffered.push(message);
            }
        }
    }

    /// Messages read but not claimed by a wait.
    pub fn unclaimed(&self) -> &[Value] {
        &self.buffered
    }

    fn accept(&mut self, line: String) -> Option<Value> {
        match serde_json::from_str::<Value>(&line) {
            Ok(message) if message.get("jsonrpc") == Some(&json!("2.0")) && message.is_object() => {
                self.seen.push(message.clone());
                Some(message)
            }
            _ => {
                self.invalid.push(line);
                None
            }
        }
    }

    /// The usual handshake; returns the `initialize` result.
    pub fn initialize(&mut self) -> Value {
        self.initialize_as("obsmcp-tests")
    }

    /// The handshake of a client that names itself `client` (which decides its output budget).
    pub fn initialize_as(&mut self, client: &str) -> Value {
        let answer = self.request(
            "initialize",
            json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": client, "version": "1" } }),
        );
        self.notify("notifications/initialized", json!({}));
        answer["result"].clone()
    }

    /// Calls a tool and returns the whole answer message.
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> Value {
        self.request(
            "tools/call",
            json!({ "name": name, "arguments": arguments }),
        )
    }

    /// The tool names of `tools/list`.
    pub fn tool_names(&mut self) -> Vec<String> {
        let answer = self.request("tools/list", json!({}));
        answer["result"]["tools"]
            .as_array()
            .expect("a tools array")
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_string())
            .collect()
    }

    /// Writes one message from another thread, for messages a slow reader might not take in time; the receiver yields
    /// stdin back once the write is done (give it to [`Bridge::restore_stdin`]).
    pub fn send_in_background(&mut self, message: &Value) -> std::sync::mpsc::Receiver<ChildStdin> {
        let mut stdin = self.stdin.take().expect("stdin is open");
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            if stdin.write_all(&line).and_then(|()| stdin.flush()).is_ok() {
                let _ = sender.send(stdin);
            }
        });
        receiver
    }

    /// Puts back the stdin that [`Bridge::send_in_background`] borrowed.
    pub fn restore_stdin(&mut self, stdin: ChildStdin) {
        self.stdin = Some(stdin);
    }

    /// Closes stdin (EOF), as a client does when it is done.
    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }
}

/// The text of the first content block of a `tools/call` answer.
pub fn text_of(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {answer}"))
        .to_string()
}

/// Whether a `tools/call` answer is a tool error.
pub fn is_error(answer: &Value) -> bool {
    answer["result"]["isError"] == json!(true)
}

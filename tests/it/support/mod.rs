//! Helpers shared by the integration tests: fresh temporary homes, free ports, the pinned npm peers, and guards that
//! own every child process — a guard kills its child when dropped and, when the test is failing, prints what the
//! child wrote on stderr so the failure explains itself.

#![allow(dead_code)]

pub mod bridge;

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

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

/// VmRSS of a process in KiB, if it is alive.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Sends a signal by name (`TERM`, `KILL`, `STOP`, `CONT`) to a process.
pub fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{name} {pid} failed");
}

/// Whether a process exists (and is not a zombie).
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .unwrap_or_default()
            .trim_start()
            .starts_with('Z'),
        Err(_) => false,
    }
}

/// The direct children of a process (Linux).
pub fn children_of(pid: u32) -> Vec<u32> {
    let mut children = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return children;
    };
    for task in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            children.extend(
                text.split_whitespace()
                    .filter_map(|pid| pid.parse::<u32>().ok()),
            );
        }
    }
    children
}

/// Polls `condition` every 20 ms until it holds or `limit` passes.
pub fn wait_until(limit: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if condition() {
            return true;
        }
        thread::sleep(Duration::from_millis(20));
    }
    condition()
}

/// A child process owned by a test.
pub struct ChildGuard {
    pub name: String,
    pub child: Child,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_closed: mpsc::Receiver<()>,
}

impl ChildGuard {
    /// Spawns `command` with stderr captured (stdin and stdout as the command set them).
    pub fn spawn(name: &str, mut command: Command) -> Self {
        command.stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .unwrap_or_else(|error| panic!("could not start {name}: {error}"));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut pipe = child.stderr.take().unwrap();
        let sink = Arc::clone(&stderr);
        let (closed, stderr_closed) = mpsc::channel();
        thread::spawn(move || {
            let mut buffer = [0u8; 8192];
            while let Ok(read) = pipe.read(&mut buffer) {
                if read == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buffer[..read]);
            }
            let _ = closed.send(());
        });
        Self {
            name: name.into(),
            child,
            stderr,
            stderr_closed,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the child wrote on stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Waits for the child to exit, at most `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // Let the reader catch the last of stderr (a grandchild may hold the pipe: bounded).
                let _ = self.stderr_closed.recv_timeout(Duration::from_secs(1));
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// Kills the child (SIGKILL) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            // Already gone is the only way this fails.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if thread::panicking() {
            eprintln!(
                "----- stderr of {} -----\n{}\n----- end of {} -----",
                self.name,
                self.stderr(),
                self.name
            );
        }
    }
}

/// Reads a child's stdout lines into a channel, on a thread.
pub fn line_channel(stdout: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        while reader
            .read_line(&mut line)
            .map(|read| read > 0)
            .unwrap_or(false)
        {
            if sender.send(std::mem::take(&mut line)).is_err() {
                break;
            }
        }
    });
    receiver
}

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
        match lines.recv_timeout(Duration::from_secs(20)) {
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

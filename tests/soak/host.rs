//! The plugin host of the soak: the plugin's committed `main.js` under Node on a fixed port, with its own config
//! folder, started again on that port as often as the chaos loop kills it, stopped by a signal or reloaded in place.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc::Receiver;
use std::thread;
use std::time::Duration;

use crate::support::{ChildGuard, line_channel, signal};

use super::{HOST_CONFIG_DIR, TOKEN};

/// The plugin host, restarted on the same port as often as the chaos loop likes.
pub(super) struct Host {
    pub(super) vault: PathBuf,
    pub(super) port: u16,
    pub(super) guard: Option<ChildGuard>,
    pub(super) lines: Option<Receiver<String>>,
}

impl Host {
    pub(super) fn start(&mut self) {
        for attempt in 0..5 {
            let mut command = Command::new("node");
            command
                .arg(crate::support::repo_root().join("obsidian-plugin/test/host.mjs"))
                .arg("--vault")
                .arg(&self.vault)
                .args(["--port", &self.port.to_string(), "--token", TOKEN])
                .args(["--config-dir", HOST_CONFIG_DIR])
                .stdin(Stdio::null())
                .stdout(Stdio::piped());
            let mut guard = ChildGuard::spawn("plugin host", command);
            // Kept open for the host's life: a reload prints `listening on` again into it.
            let lines = line_channel(guard.child.stdout.take().unwrap());
            if self.listening(&lines) {
                self.guard = Some(guard);
                self.lines = Some(lines);
                return;
            }
            eprintln!(
                "soak: the host did not start (attempt {}): {}",
                attempt + 1,
                guard.stderr()
            );
            drop(guard);
            thread::sleep(Duration::from_millis(300));
        }
        panic!("the plugin host would not start on port {}", self.port);
    }

    /// Whether the host says `listening on PORT` within 30 s. Any other line on its stdout (what the plugin or the
    /// fake logs with `console.log`, which Obsidian shows in its console) is passed over and kept in `others`.
    fn listening_among(&self, lines: &Receiver<String>, others: &mut Vec<String>) -> bool {
        let wanted = format!("listening on {}", self.port);
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match lines.recv_timeout(left) {
                Ok(line) if line.trim() == wanted => return true,
                Ok(line) => others.push(line),
                Err(_) => return false,
            }
        }
    }

    fn listening(&self, lines: &Receiver<String>) -> bool {
        self.listening_among(lines, &mut Vec::new())
    }

    pub(super) fn pid(&self) -> u32 {
        self.guard.as_ref().expect("the host runs").pid()
    }

    /// Sends `signal_name` and waits for the exit; a host that outlives SIGTERM for 5 s is killed.
    pub(super) fn end(&mut self, signal_name: &str) {
        let mut guard = self.guard.take().expect("the host runs");
        signal(guard.pid(), signal_name);
        if guard.wait_exit(Duration::from_secs(5)).is_none() {
            eprintln!("soak: the host outlived SIG{signal_name} for 5 s; killing it");
            guard.kill();
        }
        self.lines = None;
    }

    /// A plugin reload inside the running host (SIGHUP), waited for.
    pub(super) fn reload(&mut self) {
        signal(self.pid(), "HUP");
        let lines = self.lines.take().expect("the host runs");
        let mut others = Vec::new();
        if !self.listening_among(&lines, &mut others) {
            let stderr = self
                .guard
                .as_ref()
                .map(|guard| guard.stderr())
                .unwrap_or_default();
            panic!(
                "the host did not come back from a reload within 30 s; its other stdout lines: {others:?}; its stderr: {stderr}"
            );
        }
        self.lines = Some(lines);
    }
}

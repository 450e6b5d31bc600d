//! Child processes owned by tests: a guard that kills its child when dropped and, when the test is failing, prints
//! what the child wrote on stderr; its stdout read line by line on a thread; signals, liveness, children and memory
//! read from `/proc`; and a bounded wait for a condition.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

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

//! The soak's stdio client: many callers share the bridge's stdin (several requests in flight at once), and one reader
//! taps the raw bytes of its stdout, checks that every line is a JSON-RPC 2.0 message, and hands each answer to the
//! caller waiting for that id. An answer for an id nobody waits for (late, duplicated, or made up) is recorded.

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::process::{ChildStdin, ChildStdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// What the tap saw on stdout.
#[derive(Default)]
pub struct Tap {
    pub lines: u64,
    pub bytes: u64,
    /// Lines that are not JSON-RPC 2.0 messages (the first few, shortened), and how many there were.
    pub invalid: Vec<String>,
    pub invalid_count: u64,
    /// Answers to ids nobody was waiting for.
    pub stray: Vec<String>,
    /// Notifications, by method.
    pub notifications: BTreeMap<String, u64>,
    /// Whether stdout reached its end (the bridge exited or closed it).
    pub closed: bool,
}

/// The shared client.
pub struct Client {
    stdin: Mutex<ChildStdin>,
    waiting: Arc<Mutex<HashMap<String, Sender<Value>>>>,
    pub tap: Arc<Mutex<Tap>>,
    /// While set, stdout is not read: a client that stopped reading.
    paused: Arc<AtomicBool>,
}

impl Client {
    pub fn new(stdin: ChildStdin, stdout: ChildStdout) -> Self {
        let waiting: Arc<Mutex<HashMap<String, Sender<Value>>>> = Arc::default();
        let tap: Arc<Mutex<Tap>> = Arc::default();
        let paused: Arc<AtomicBool> = Arc::default();
        {
            let (waiting, tap, paused) =
                (Arc::clone(&waiting), Arc::clone(&tap), Arc::clone(&paused));
            thread::spawn(move || read_stdout(stdout, &waiting, &tap, &paused));
        }
        Self {
            stdin: Mutex::new(stdin),
            waiting,
            tap,
            paused,
        }
    }

    /// Stops reading stdout (or starts again).
    pub fn pause_reading(&self, paused: bool) {
        self.paused.store(paused, Ordering::SeqCst);
    }

    /// Sends a request with id `id` and waits up to `limit` for its answer; `None` when none came.
    pub fn request(
        &self,
        id: &str,
        method: &str,
        params: Value,
        limit: Duration,
    ) -> Option<(Value, Duration)> {
        let (sender, receiver) = mpsc::channel();
        self.waiting
            .lock()
            .unwrap()
            .insert(json!(id).to_string(), sender);
        let mut line = serde_json::to_vec(
            &json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }),
        )
        .unwrap();
        line.push(b'\n');
        let started = Instant::now();
        {
            let mut stdin = self.stdin.lock().unwrap();
            stdin.write_all(&line).expect("write to the bridge's stdin");
            stdin.flush().expect("flush the bridge's stdin");
        }
        let answer = receiver.recv_timeout(limit).ok();
        self.waiting.lock().unwrap().remove(&json!(id).to_string());
        answer.map(|answer| (answer, started.elapsed()))
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) {
        let mut line =
            serde_json::to_vec(&json!({ "jsonrpc": "2.0", "method": method, "params": params }))
                .unwrap();
        line.push(b'\n');
        let mut stdin = self.stdin.lock().unwrap();
        stdin.write_all(&line).expect("write to the bridge's stdin");
        stdin.flush().expect("flush the bridge's stdin");
    }

    /// Closes stdin (EOF), as a client does when it is done.
    pub fn close(self) -> Arc<Mutex<Tap>> {
        drop(self.stdin);
        self.tap
    }
}

/// Reads raw stdout bytes, splits them on `\n`, checks and routes each line.
fn read_stdout(
    mut stdout: ChildStdout,
    waiting: &Mutex<HashMap<String, Sender<Value>>>,
    tap: &Mutex<Tap>,
    paused: &AtomicBool,
) {
    let mut pending = Vec::new();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        while paused.load(Ordering::SeqCst) {
            thread::sleep(Duration::from_millis(10));
        }
        let read = match stdout.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        tap.lock().unwrap().bytes += read as u64;
        pending.extend_from_slice(&buffer[..read]);
        while let Some(end) = pending.iter().position(|&byte| byte == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            route(&line[..line.len() - 1], waiting, tap);
        }
    }
    let mut tap = tap.lock().unwrap();
    if !pending.is_empty() {
        tap.invalid_count += 1;
        tap.invalid.push(format!(
            "unterminated last line: {}",
            shorten(&String::from_utf8_lossy(&pending))
        ));
    }
    tap.closed = true;
}

fn route(line: &[u8], waiting: &Mutex<HashMap<String, Sender<Value>>>, tap: &Mutex<Tap>) {
    tap.lock().unwrap().lines += 1;
    let message = serde_json::from_slice::<Value>(line)
        .ok()
        .filter(valid_message);
    let Some(message) = message else {
        let mut tap = tap.lock().unwrap();
        tap.invalid_count += 1;
        if tap.invalid.len() < 10 {
            tap.invalid
                .push(shorten(&String::from_utf8_lossy(line)).to_string());
        }
        return;
    };
    if let Some(method) = message.get("method").and_then(Value::as_str) {
        *tap.lock()
            .unwrap()
            .notifications
            .entry(method.to_string())
            .or_default() += 1;
        return;
    }
    let key = message["id"].to_string();
    let sender = waiting.lock().unwrap().remove(&key);
    match sender {
        // The caller is gone only if it gave up waiting, which it reports itself.
        Some(sender) => drop(sender.send(message)),
        None => {
            let mut tap = tap.lock().unwrap();
            if tap.stray.len() < 10 {
                tap.stray.push(shorten(&message.to_string()).to_string());
            } else {
                tap.stray.push(String::new());
            }
        }
    }
}

/// A JSON-RPC 2.0 response (id, and exactly one of result and error) or notification (method, no id), as the bridge
/// may send them.
fn valid_message(message: &Value) -> bool {
    let Some(object) = message.as_object() else {
        return false;
    };
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return false;
    }
    match object.get("method") {
        Some(method) => method.is_string() && !object.contains_key("id"),
        None => {
            let id_ok = object
                .get("id")
                .is_some_and(|id| id.is_string() || id.is_number() || id.is_null());
            id_ok && (object.contains_key("result") != object.contains_key("error"))
        }
    }
}

fn shorten(text: &str) -> &str {
    match text.char_indices().nth(300) {
        Some((index, _)) => &text[..index],
        None => text,
    }
}

//! The queue of lines to stdout, the bridge's one way out, bounded by what a client that stops reading can cost.
//!
//! Answers are always kept: each is owed to a request the client sent, and the client's own requests stop being
//! read once the queue holds more than [`BOUND`] bytes (it then waits on its own full pipe, as with any stdio
//! server). Notifications are what the upstream sends on its own, at any rate, so they are coalesced instead: a
//! progress notification replaces the one still queued for the same token, a list-changed notification already queued
//! is not queued twice, and past the bound the rest are dropped and counted. Once the queue has drained, one log
//! message tells the client how many were dropped: nothing goes missing silently.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use crate::lock::lock;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// Bytes queued for stdout past which stdin is not read and notifications are dropped. Well above one answer's
/// usual size; a larger answer (a 20 MB note) still goes out whole.
pub(crate) const BOUND: usize = 16 << 20;

/// The queue; one writer takes lines with [`Outbox::next`], anyone sends.
pub(crate) struct Outbox {
    state: Mutex<State>,
    /// Woken when a line is queued or the outbox closes.
    queued: Notify,
    /// Woken when the queue shrinks to the bound or below.
    room: Notify,
}

#[derive(Default)]
struct State {
    lines: VecDeque<Vec<u8>>,
    /// The sequence number of `lines[0]`: every line queued gets the next one.
    first: u64,
    bytes: usize,
    /// For notifications that a newer one replaces: the sequence number of the one still queued, by its key.
    replaceable: HashMap<String, u64>,
    /// Notifications dropped since the client last caught up.
    dropped: u64,
    closed: bool,
}

impl State {
    fn push(&mut self, line: Vec<u8>) -> u64 {
        self.bytes += line.len();
        self.lines.push_back(line);
        self.first + self.lines.len() as u64 - 1
    }
}

impl Outbox {
    pub(crate) fn new() -> Self {
        Self {
            state: Mutex::new(State::default()),
            queued: Notify::new(),
            room: Notify::new(),
        }
    }

    /// Queues a message as one line (or coalesces or drops it, for a notification; see the module's text).
    pub(crate) fn send(&self, message: &Value) {
        let key = notification_method(message).map(|method| replace_key(method, message));
        let mut state = lock(&self.state);
        if state.closed {
            return;
        }
        let replaces = match &key {
            Some(Some(key)) => state.replaceable.get(key).copied(),
            _ => None,
        };
        // Dropped before it costs a serialization.
        if key.is_some() && replaces.is_none() && state.bytes > BOUND {
            state.dropped += 1;
            return;
        }
        let line = to_line(message);
        if let Some(sequence) = replaces {
            let index = (sequence - state.first) as usize;
            let old = std::mem::replace(&mut state.lines[index], line);
            state.bytes = state.bytes - old.len() + state.lines[index].len();
            return;
        }
        let sequence = state.push(line);
        if let Some(Some(key)) = key {
            state.replaceable.insert(key, sequence);
        }
        drop(state);
        self.queued.notify_one();
    }

    /// The next line to write; `None` once closed and empty.
    pub(crate) async fn next(&self) -> Option<Vec<u8>> {
        loop {
            {
                let mut state = lock(&self.state);
                if let Some(line) = state.lines.pop_front() {
                    let sequence = state.first;
                    state.first += 1;
                    state.bytes -= line.len();
                    state.replaceable.retain(|_, queued| *queued != sequence);
                    if state.bytes <= BOUND {
                        self.room.notify_waiters();
                    }
                    if state.lines.is_empty() && state.dropped > 0 {
                        let notice = dropped_notice(std::mem::take(&mut state.dropped));
                        state.push(notice);
                    }
                    return Some(line);
                }
                if state.closed {
                    return None;
                }
            }
            // One consumer: a line queued since the check left a permit, so this returns at once.
            self.queued.notified().await;
        }
    }

    /// Waits until the queue holds no more than the bound (or the outbox closed).
    pub(crate) async fn room(&self) {
        loop {
            let notified = self.room.notified();
            tokio::pin!(notified);
            // Registered before the check, so a shrink between the check and the wait is not missed.
            notified.as_mut().enable();
            {
                let state = lock(&self.state);
                if state.bytes <= BOUND || state.closed {
                    return;
                }
            }
            notified.await;
        }
    }

    /// Takes no more messages; the writer still gets what is queued.
    pub(crate) fn close(&self) {
        lock(&self.state).closed = true;
        self.queued.notify_one();
        self.room.notify_waiters();
    }

    /// Bytes queued now.
    #[cfg(test)]
    fn queued_bytes(&self) -> usize {
        lock(&self.state).bytes
    }
}

/// The method of a notification (a message with a method and no id); `None` for answers.
fn notification_method(message: &Value) -> Option<&str> {
    if message.get("id").is_some() {
        return None;
    }
    message.get("method").and_then(Value::as_str)
}

/// What makes a queued notification stale when a newer one comes: the same progress token, or the same
/// list-changed method on the same stream.
fn replace_key(method: &str, message: &Value) -> Option<String> {
    match method {
        "notifications/progress" => message
            .pointer("/params/progressToken")
            .map(|token| format!("progress {token}")),
        // Per stream: a 2026 client's listen streams (tagged with their id) and the untagged 2025 form each keep one.
        "notifications/tools/list_changed"
        | "notifications/resources/list_changed"
        | "notifications/prompts/list_changed" => Some(format!(
            "{method} {}",
            message
                .pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId")
                .unwrap_or(&Value::Null)
        )),
        _ => None,
    }
}

fn to_line(message: &Value) -> Vec<u8> {
    let line = serde_json::to_vec(message).expect("a JSON value serializes");
    let mut line = super::jsonrpc::restore_raw_id(message, line);
    line.push(b'\n');
    line
}

fn dropped_notice(count: u64) -> Vec<u8> {
    let message = json!({
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {
            "level": "warning",
            "logger": "obsmcp",
            "data": format!(
                "obsmcp dropped {count} notification{} (log messages or progress) from the server while this client \
                 was not reading: more than {} MiB were waiting",
                if count == 1 { "" } else { "s" },
                BOUND >> 20
            ),
        },
    });
    to_line(&message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(text: &str) -> Value {
        json!({ "jsonrpc": "2.0", "method": "notifications/message", "params": { "level": "info", "data": text } })
    }

    fn progress(token: u64, done: u64) -> Value {
        json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": token, "progress": done } })
    }

    async fn drain(outbox: &Outbox) -> Vec<Value> {
        outbox.close();
        let mut lines = Vec::new();
        while let Some(line) = outbox.next().await {
            lines.push(serde_json::from_slice(&line).unwrap());
        }
        lines
    }

    #[tokio::test]
    async fn progress_for_one_token_keeps_only_the_newest_in_its_place() {
        let outbox = Outbox::new();
        outbox.send(&progress(1, 1));
        outbox.send(&log("between"));
        outbox.send(&progress(2, 1));
        outbox.send(&progress(1, 2));
        outbox.send(&progress(1, 3));
        let lines = drain(&outbox).await;
        let seen: Vec<String> = lines
            .iter()
            .map(|line| match line["params"]["progressToken"].as_u64() {
                Some(token) => format!("{token}:{}", line["params"]["progress"]),
                None => line["params"]["data"].as_str().unwrap().to_string(),
            })
            .collect();
        assert_eq!(seen, ["1:3", "between", "2:1"]);
    }

    #[tokio::test]
    async fn a_list_change_replaces_the_queued_one_of_its_own_stream_only() {
        let outbox = Outbox::new();
        let changed = |tag: Option<&str>| match tag {
            Some(tag) => {
                json!({ "jsonrpc": "2.0", "method": "notifications/resources/list_changed",
                "params": { "_meta": { "io.modelcontextprotocol/subscriptionId": tag } } })
            }
            None => json!({ "jsonrpc": "2.0", "method": "notifications/resources/list_changed" }),
        };
        for tag in [None, Some("a"), Some("b"), None, Some("a")] {
            outbox.send(&changed(tag));
        }
        let lines = drain(&outbox).await;
        let tags: Vec<&Value> = lines
            .iter()
            .map(|line| &line["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"])
            .collect();
        assert_eq!(tags, [&Value::Null, &json!("a"), &json!("b")]);
    }

    #[tokio::test]
    async fn past_the_bound_answers_are_kept_notifications_dropped_and_the_count_told_once_drained()
    {
        let outbox = Outbox::new();
        let big = "x".repeat(1 << 20);
        let mut notices = 0;
        while outbox.queued_bytes() <= BOUND {
            outbox.send(&log(&big));
            notices += 1;
        }
        for extra in 0..5 {
            outbox.send(&log(&format!("dropped {extra}")));
        }
        outbox.send(&json!({ "jsonrpc": "2.0", "id": 7, "result": {} }));
        let lines = drain(&outbox).await;
        assert_eq!(
            lines.len(),
            notices + 2,
            "every queued notice, the answer, one count"
        );
        assert_eq!(lines[notices]["id"], 7);
        let told = lines.last().unwrap()["params"]["data"].as_str().unwrap();
        assert!(told.contains("dropped 5 notifications"), "{told}");
    }

    #[tokio::test]
    async fn room_waits_while_the_queue_is_over_the_bound() {
        let outbox = std::sync::Arc::new(Outbox::new());
        let big = "y".repeat(BOUND + 1);
        outbox.send(&json!({ "jsonrpc": "2.0", "id": 1, "result": { "text": big } }));
        let waiting = tokio::spawn({
            let outbox = std::sync::Arc::clone(&outbox);
            async move { outbox.room().await }
        });
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(
            !waiting.is_finished(),
            "room() returned while over the bound"
        );
        outbox.next().await.unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
            .await
            .expect("room() returns once the line is taken")
            .unwrap();
    }
}

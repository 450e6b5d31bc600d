//! One soak caller: a loop of reads, appends with `expected_hash`, status calls, listings and pings on the shared
//! client, each answer checked against the bridge's contract and counted.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::client::Client;
use super::figures::short;
use super::hostile::{DEEP_BASE, DEEP_VIEWS, LINKS_WORD};
use crate::support::rng::Rng;

/// The outcome of one caller's calls.
#[derive(Default)]
pub struct Results {
    pub calls: u64,
    pub ok: BTreeMap<&'static str, u64>,
    pub errors: BTreeMap<String, u64>,
    /// Broken rules, each described.
    pub failures: Vec<String>,
    pub latencies: Vec<Duration>,
    /// The marker of every write attempted, and what its answer said.
    pub writes: Vec<(String, WriteOutcome)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOutcome {
    /// Answered with success: the marker must be in the note exactly once.
    Applied,
    /// Answered with an error that says nothing was written (conflict, or never sent): the marker must be absent.
    NotApplied,
    /// Lost, timed out, refused by HTTP or not answered: at most once.
    Unknown,
}

/// What the bridge's answer to a `tools/call` says.
pub enum Answer {
    Ok(String, bool),
    ToolError(String, String),
    Protocol(String),
}

pub fn classify(answer: &Value) -> Answer {
    if let Some(error) = answer.get("error") {
        return Answer::Protocol(error.to_string());
    }
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    if answer["result"]["isError"] == json!(true) {
        let kind = if text.starts_with("conflict:") {
            "conflict (plugin)"
        } else if text.contains("is not reachable") {
            "unreachable"
        } else if text.contains("was lost during this call") {
            "lost"
        } else if text.contains("did not answer within") {
            "timeout"
        } else if text.contains("refused the call") {
            "rejected"
        } else {
            "other"
        };
        return Answer::ToolError(kind.to_string(), text);
    }
    let from_disk = answer["result"]["_meta"]["obsmcp/source"] == "disk";
    Answer::Ok(text, from_disk)
}

pub fn note_path(caller: usize) -> String {
    format!("Soak/caller-{caller}.md")
}

pub fn owner_line(caller: usize) -> String {
    format!("owner: caller-{caller}")
}

/// The `sha256=` of a `read_note` header.
pub fn hash_of(text: &str) -> Option<String> {
    let start = text.lines().next()?.find("sha256=")? + "sha256=".len();
    text.get(start..start + 64).map(str::to_string)
}

pub struct Caller {
    pub index: usize,
    pub vault: PathBuf,
    pub client: Arc<Client>,
    pub stop_at: Instant,
    pub bound: Duration,
    pub seed: u64,
}

impl Caller {
    pub fn run(self) -> Results {
        let mut rng = Rng::new(self.seed ^ (self.index as u64 + 1).wrapping_mul(0x1234_5678_9ABC));
        let mut results = Results::default();
        let mut sequence = 0;
        while Instant::now() < self.stop_at {
            sequence += 1;
            let id = format!("c{}-{sequence}", self.index);
            match rng.below(100) {
                0..45 => {
                    if let Some(hash) = self.read(&id, &mut results) {
                        self.append(&format!("{id}w"), &hash, &mut results);
                    }
                }
                45..75 => drop(self.read(&id, &mut results)),
                75..85 => {
                    if let Some(answer) = self.call(
                        &id,
                        "tools/call",
                        json!({ "name": "obsidian_status", "arguments": {} }),
                        &mut results,
                    ) {
                        let report = &answer["result"]["structuredContent"];
                        if report["state"].is_string() && report["catalog"]["tools"].is_u64() {
                            *results.ok.entry("status").or_default() += 1;
                        } else {
                            results
                                .failures
                                .push(format!("{id}: the status tool answered {answer}"));
                        }
                    }
                }
                85..93 => {
                    if let Some(answer) = self.call(&id, "tools/list", json!({}), &mut results) {
                        // The default list: the core tools, the status tool and obsidian_tools (which reaches the
                        // rest, called here by name).
                        let tools = answer["result"]["tools"]
                            .as_array()
                            .cloned()
                            .unwrap_or_default();
                        let reaches_the_rest =
                            tools.iter().any(|tool| tool["name"] == "obsidian_tools");
                        if tools.len() >= 10 && reaches_the_rest {
                            *results.ok.entry("tools/list").or_default() += 1;
                        } else {
                            results
                                .failures
                                .push(format!("{id}: tools/list answered {answer}"));
                        }
                    }
                }
                93..96 => self.ask_about_hostile_files(&id, rng.below(100), &mut results),
                _ => {
                    if let Some(answer) = self.call(&id, "ping", json!({}), &mut results) {
                        if answer["result"] == json!({}) {
                            *results.ok.entry("ping").or_default() += 1;
                        } else {
                            results
                                .failures
                                .push(format!("{id}: ping answered {answer}"));
                        }
                    }
                }
            }
            thread::sleep(rng.millis(0, 80));
        }
        results
    }

    /// A view of the deeply nested base (refused with the bound, by the plugin or from disk) or a search for the word
    /// of the note of 40,000 links (found): either way answered within the bound, and the bridge alive.
    fn ask_about_hostile_files(&self, id: &str, pick: u64, results: &mut Results) {
        let (params, kind) = if pick.is_multiple_of(2) {
            let view = DEEP_VIEWS[(pick / 2) as usize % DEEP_VIEWS.len()];
            let arguments = json!({ "base": DEEP_BASE, "view": view });
            (
                json!({ "name": "bases", "arguments": arguments }),
                "hostile base",
            )
        } else {
            let arguments = json!({ "query": LINKS_WORD });
            (
                json!({ "name": "search", "arguments": arguments }),
                "hostile note search",
            )
        };
        let Some(answer) = self.call(id, "tools/call", params, results) else {
            return;
        };
        let expected = match classify(&answer) {
            Answer::Ok(text, _) => kind == "hostile note search" && text.contains("Links.md"),
            Answer::ToolError(error, text) => {
                let refused =
                    kind == "hostile base" && text.contains("nests deeper than 100 levels");
                refused
                    || matches!(
                        error.as_str(),
                        "unreachable" | "lost" | "timeout" | "rejected"
                    )
            }
            Answer::Protocol(_) => false,
        };
        if expected {
            *results.ok.entry(kind).or_default() += 1;
        } else {
            results
                .failures
                .push(format!("{id}: {kind} answered {}", short(&answer)));
        }
    }

    /// One request; `None` (with the failure recorded) when it was not answered within the bound.
    fn call(&self, id: &str, method: &str, params: Value, results: &mut Results) -> Option<Value> {
        results.calls += 1;
        // Wait past the bound, so a late answer is measured rather than left for the tap to call stray.
        let Some((answer, latency)) =
            self.client
                .request(id, method, params, self.bound + Duration::from_secs(30))
        else {
            results.failures.push(format!(
                "{id} ({method}): no answer at all within {:?}",
                self.bound + Duration::from_secs(30)
            ));
            return None;
        };
        results.latencies.push(latency);
        if latency > self.bound {
            results.failures.push(format!(
                "{id} ({method}): answered after {latency:?}, over the bound of {:?}: {}",
                self.bound,
                short(&answer)
            ));
        }
        Some(answer)
    }

    /// Reads the caller's own note; the hash when the read succeeded and was the caller's note.
    fn read(&self, id: &str, results: &mut Results) -> Option<String> {
        let path = note_path(self.index);
        let answer = self.call(
            id,
            "tools/call",
            json!({ "name": "read_note", "arguments": { "path": path } }),
            results,
        )?;
        match classify(&answer) {
            Answer::Ok(text, from_disk) => {
                let header = text.lines().next().unwrap_or_default();
                let own = header.contains(&format!("path=\"{path}\""))
                    && text.lines().nth(2) == Some(owner_line(self.index).as_str());
                if !own && from_disk && self.torn(&text) {
                    // The plugin writes a note as Obsidian does (truncate, then write), so a read from disk while the
                    // bridge thought Obsidian gone but it was still finishing a write sees part of the note. Counted,
                    // not failed: it is the writer's, and nothing the bridge can prevent; a misrouted answer would
                    // name another note or owner and still fail.
                    *results
                        .ok
                        .entry("read_note (from disk, torn by a plugin write)")
                        .or_default() += 1;
                    return None;
                }
                if !own {
                    results.failures.push(format!(
                        "{id}: the answer is not about {path}: {}",
                        short(&answer)
                    ));
                    return None;
                }
                *results
                    .ok
                    .entry(if from_disk {
                        "read_note (from disk)"
                    } else {
                        "read_note"
                    })
                    .or_default() += 1;
                hash_of(&text)
            }
            Answer::ToolError(kind, text) => {
                self.tool_error(id, kind, &text, results);
                None
            }
            Answer::Protocol(error) => {
                results.failures.push(format!(
                    "{id}: a protocol error instead of a tool result: {error}"
                ));
                None
            }
        }
    }

    /// Whether a read's content is a beginning of the caller's note as it is now (notes only ever grow).
    fn torn(&self, text: &str) -> bool {
        let header = text.lines().next().unwrap_or_default();
        let content = &text[(header.len() + 1).min(text.len())..];
        let now =
            std::fs::read_to_string(self.vault.join(note_path(self.index))).unwrap_or_default();
        header.contains(&format!("path=\"{}\"", note_path(self.index))) && now.starts_with(content)
    }

    /// Appends a unique marker line with `expected_hash`.
    fn append(&self, id: &str, hash: &str, results: &mut Results) {
        let path = note_path(self.index);
        let marker = format!("<{id}>");
        let arguments =
            json!({ "path": path, "content": format!("marker {marker}\n"), "expected_hash": hash });
        let Some(answer) = self.call(
            id,
            "tools/call",
            json!({ "name": "append", "arguments": arguments }),
            results,
        ) else {
            results.writes.push((marker, WriteOutcome::Unknown));
            return;
        };
        let outcome = match classify(&answer) {
            Answer::Ok(text, _) => {
                let written: Value = serde_json::from_str(&text).unwrap_or_default();
                if written["path"] != json!(path) {
                    results.failures.push(format!(
                        "{id}: the answer is not about {path}: {}",
                        short(&answer)
                    ));
                }
                *results.ok.entry("append").or_default() += 1;
                WriteOutcome::Applied
            }
            Answer::ToolError(kind, text) => {
                let outcome = match kind.as_str() {
                    "conflict (plugin)" | "unreachable" => WriteOutcome::NotApplied,
                    _ => WriteOutcome::Unknown,
                };
                self.tool_error(id, kind, &text, results);
                outcome
            }
            Answer::Protocol(error) => {
                results.failures.push(format!(
                    "{id}: a protocol error instead of a tool result: {error}"
                ));
                WriteOutcome::Unknown
            }
        };
        results.writes.push((marker, outcome));
    }

    fn tool_error(&self, id: &str, kind: String, text: &str, results: &mut Results) {
        if kind == "other" {
            results
                .failures
                .push(format!("{id}: an unexpected tool error: {text}"));
        }
        *results.errors.entry(kind).or_default() += 1;
    }
}
